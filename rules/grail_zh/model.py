"""The game's constants: attributes and stats, Master types, classes and the tables of §4."""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

Attribute = Literal["str", "dex", "con", "int", "wis", "cha"]
ATTRIBUTES: tuple[Attribute, ...] = get_args(Attribute)
Stat = Literal["STR", "END", "AGI", "MAG", "LUK"]
STATS: tuple[Stat, ...] = get_args(Stat)
MasterType = Literal["melee", "trickster", "magus", "homunculus", "ordinary"]
MASTER_TYPES: tuple[MasterType, ...] = get_args(MasterType)
ServantClass = Literal["saber", "lancer", "archer", "rider", "caster", "assassin", "berserker"]
CLASSES: tuple[ServantClass, ...] = get_args(ServantClass)
Spell = Literal["alarm", "heal", "familiar", "bolt", "shield", "suggest"]
GENERAL_SPELLS: tuple[Spell, ...] = get_args(Spell)
# T3: a Caster's or a Spellcasting Servant's list, the general ones and four more.
CasterSpell = Literal[
    "alarm", "heal", "familiar", "bolt", "shield", "suggest", "teleport", "flight", "reinforce", "puppets"
]
CASTER_SPELLS: tuple[CasterSpell, ...] = get_args(CasterSpell)
Scope = Literal["anti_unit", "anti_army", "anti_city", "other"]
NPMode = Literal["one_shot", "sustained", "passive", "mount"]
SaveStat = Literal["MAG", "LUK"]

ATTRIBUTE_BUDGET = 10  # 「你有10点属性点数可以自由分配」 (D1: at most; unspent points are the player's loss)
ATTRIBUTE_MIN, ATTRIBUTE_MAX = -5, 5
# T1: how many general spells each Master type picks (the magus knows all six).
SPELL_COUNT: dict[MasterType, int] = {"melee": 0, "trickster": 2, "magus": 6, "homunculus": 1, "ordinary": 0}
GRENADES = 10  # the trickster's (「你拥有10颗手榴弹」)
SIGNATURE_DAMAGE_CAP = 25  # 「若该特技会造成魔术伤害（直接伤害），最大不能超过25」
# R9: which Master attribute moves which Servant stat
# (「力量对应劲力 敏捷对应敏捷 体质对应耐力 智力、魅力、感知对应魔力」).
ADJUSTED_BY: dict[Attribute, Stat] = {
    "str": "STR",
    "dex": "AGI",
    "con": "END",
    "int": "MAG",
    "wis": "MAG",
    "cha": "MAG",
}


class ClassRow(NamedTuple):
    """T6: a class's HP per END rank, speed, melee dice count and whether it has a ranged attack by default."""

    hp: int
    speed: int
    melee_dice: int
    ranged: bool


CLASS_TABLE: dict[ServantClass, ClassRow] = {
    "berserker": ClassRow(18, 6, 4, False),
    "saber": ClassRow(16, 6, 3, False),
    "lancer": ClassRow(14, 7, 3, False),
    "rider": ClassRow(12, 6, 3, False),
    "archer": ClassRow(12, 8, 2, True),
    "assassin": ClassRow(10, 8, 2, True),
    "caster": ClassRow(8, 5, 1, False),
}
DIE_BY_RANK = {1: 4, 2: 6, 3: 8, 4: 10, 5: 12}  # 「1~5分别是1d4\1d6\1d8\1d10\1d12」
# T7: Mad Enhancement's deltas on STR END AGI MAG LUK, by its rank's n.
MAD_ENHANCEMENT: dict[int, tuple[int, int, int, int, int]] = {
    1: (1, 0, 0, -1, -1),
    2: (1, 1, 0, -1, 0),
    3: (1, 1, 1, 0, 0),
    4: (1, 1, 1, 1, 0),
    5: (2, 1, 1, 1, 0),
}
SCOPE_MULTIPLIER: dict[Scope, int] = {"anti_unit": 1, "anti_army": 3, "anti_city": 5}
DAILY_BASE = 2  # 「每天基础消耗2MP」
TRANSFER_RANGE = 30  # squares between a Master and its Servant for a transfer (「处于英灵30格内」)
KILL_MP = 5  # 「每杀1人恢复5mp」
FAMILIAR_HP, FAMILIAR_SPEED = 1, 10  # 「使魔只有1HP」, speed 10 (T2)
TERRITORY_SQUARES = 50  # a Caster's territory is at most 50x50 squares, built in a day (§2.6)
ROUNDS_PER_MINUTE = 10  # D8
# T2, for a Master and for a Caster (or a Servant with Spellcasting): HP and temporary HP for each MP, and how many
# minutes a protection lasts; a healing touches an adjacent target (D30), a protection one within 5 squares.
HEAL_PER_MP = {"master": 2, "caster": 5}
SHIELD_PER_MP = {"master": 2, "caster": 5}
SHIELD_MINUTES = {"master": 3, "caster": 10}
SHIELD_RANGE = 5
TELEPORT_MP_PER_SQUARE = 1
BARRIER_REACH = {"master": 20, "caster": 50}  # squares from its centre: radius 20, or a 100 x 100 square
BARRIER_SETUP_MINUTES = 3
FAMILIARS = {"master": 3, "caster": 10}  # how many a caster keeps
PUPPETS_PER_MAG, PUPPET_MP, PUPPET_RANK_BELOW_MAG = 5, 5, 2  # up to 5 x MAG, 5 MP each, every rank MAG - 2 (D33)
FLIGHT_MP_PER_ROUND, FLIGHT_BASE_SPEED = 5, 4  # air speed 4 + AGI + MAG
REINFORCE_MP_PER_RANK = 5  # an item made a Noble Phantasm of rank k for 5k MP, k at most MAG - 1


def attribute_adjustment(value: int) -> int:
    """T10: a Master attribute's shift of its Servant's rank."""
    if value <= -5:
        return -3
    if value <= -2:
        return -2
    if value < 0:
        return -1
    if value >= 5:
        return 2
    if value >= 3:
        return 1
    return 0


# The skills whose rules the bot applies (T4, R19, R20); any other name is a custom skill for the GM to rule on.
Skill = Literal[
    "riding",
    "instinct",
    "minds_eye_true",
    "minds_eye_false",
    "magic_resistance",
    "charisma",
    "tactics",
    "throwing",
    "arrow_ward",
    "clairvoyance",
    "battle_continuation",
    "martial_arts",
    "spellcasting",
    "mp_regen",
    "hp_regen",
    "resist",
    "slayer",
    "rank_boost",
    "mad_enhancement",
    "independent_action",
    "presence_concealment",
    "territory",
]
SKILLS: tuple[Skill, ...] = get_args(Skill)
INDEPENDENT_ACTION_DAYS = {1: 1, 2: 3, 3: 7, 4: 15, 5: 30}
