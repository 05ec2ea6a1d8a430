"""Crest Magia vocabulary and constants: stats, dice, the twenty skills, crest categories (T1-T7)."""

from __future__ import annotations

from typing import Literal, get_args

Stat = Literal["Physique", "Dexterity", "Intelligence", "Wit"]
STATS: tuple[Stat, ...] = get_args(Stat)
Skill = Literal[
    "Agility",
    "Athletics",
    "Awareness",
    "Connections",
    "Convince",
    "Craft",
    "Determination",
    "Expression",
    "Investigation",
    "Lore",
    "Magecraft",
    "Medicine",
    "Melee",
    "Ranged",
    "Science",
    "Socialize",
    "Subterfuge",
    "Tech",
    "Unarmed",
    "Vehicles",
]
SKILLS: tuple[Skill, ...] = get_args(Skill)
CrestCategory = Literal["magical", "healing", "melee_weaponry", "ranged_thrown_weaponry", "artificial", "martial_arts"]
CREST_CATEGORIES: tuple[CrestCategory, ...] = get_args(CrestCategory)
WeaponKind = Literal["melee", "ranged", "thrown", "unarmed"]
Crit = Literal["success", "failure"]

# T1: the dice a stat may have; its HP pool is the die's size.
DICE = (4, 6, 8, 10, 12)
DEPLETED_DIE = 4  # a stat at 0 HP rolls a d4 (R9)
BASE_SIDES = 6  # the two base dice (R1)
BOON_SIDES = 4  # boons and banes (R2)
DAMAGE_SIDES = 6  # damage, withstand, weakness and resistance dice (R7, R8)

# T4: the skill a crest of each category is used with.
CREST_SKILL: dict[CrestCategory, Skill] = {
    "magical": "Magecraft",
    "healing": "Medicine",
    "melee_weaponry": "Melee",
    "ranged_thrown_weaponry": "Ranged",
    "artificial": "Tech",
    "martial_arts": "Unarmed",
}
# R6: the skill an attack with a weapon of each kind uses by default.
WEAPON_SKILL: dict[WeaponKind, Skill] = {"melee": "Melee", "ranged": "Ranged", "thrown": "Ranged", "unarmed": "Unarmed"}
# R1/R6: the stat an attack uses unless the attacker argues for another (the GM calls the stat; the book names none).
# A blade or a fist strikes with Physique, a shot or a throw with Dexterity; a crest as what it is (T4): a weaponry
# or martial arts crest as the weapons of its skill, the others (magic, healing, artifice) with Intelligence.
WEAPON_STAT: dict[WeaponKind, Stat] = {
    "melee": "Physique",
    "unarmed": "Physique",
    "ranged": "Dexterity",
    "thrown": "Dexterity",
}
CREST_STAT: dict[CrestCategory, Stat] = {
    "magical": "Intelligence",
    "healing": "Intelligence",
    "melee_weaponry": "Physique",
    "ranged_thrown_weaponry": "Dexterity",
    "artificial": "Intelligence",
    "martial_arts": "Physique",
}

# T5: the consequence ladder; "dead" is terminal.
CONSEQUENCES = ("none", "mild", "moderate", "serious", "dying", "dead")
DEAD = len(CONSEQUENCES) - 1

# T6: the creation budget.
CREATION_DICE = (4, 6, 6, 8)
CREATION_SKILL_RANKS = {3: 3, 2: 4, 1: 5}  # rank -> how many skills, each on a skill of its own (C14)
CREATION_SPECIALTIES = 3
CREATION_CREST_RANK = 2

# T7: the caps.
MAX_SKILL = 5
MAX_SPECIALTY = 3
MAX_CREST = 5
CREST_SLOTS = 3  # R13: "3 crest slots. There is no way to acquire more slots"

# T8 and C28: the rulebook's crests, by name. A file naming one may leave out its category and damage type; the
# rulebook gives a ladder of capabilities for the Crest of Flames only (its words are in the bot's catalogs).
BOOK_CRESTS: dict[str, tuple[CrestCategory, str | None]] = {
    "Crest of Flames": ("magical", "fire"),
    "Crest of Tides": ("magical", "water"),
    "Crest of Salves": ("healing", None),
    "Crest of Sabers": ("melee_weaponry", None),
}
BOOK_LADDERS = frozenset({"Crest of Flames"})
