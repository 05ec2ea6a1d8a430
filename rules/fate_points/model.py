"""Fate/Points vocabulary and constants: stats, ranks, classes, weapons and the spec's tables T1-T6."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, get_args

from rules.dice.source import DiceSource
from rules.exchange import Modifier, Roll, RuleError
from rules.fate_points.options import FatePointsOptions

Stat = Literal["STR", "END", "AGI", "MAG", "LUK"]
STATS: tuple[Stat, ...] = get_args(Stat)
ServantClass = Literal["Saber", "Lancer", "Archer", "Berserker", "Rider", "Caster", "Assassin"]
SERVANT_CLASSES: tuple[ServantClass, ...] = get_args(ServantClass)
AttackType = Literal["melee", "magical", "ranged"]
ATTACK_TYPES: tuple[AttackType, ...] = get_args(AttackType)
WeaponType = Literal["shield", "axe", "mace", "sword", "lance", "bow", "dagger", "unarmed", "magic"]
WEAPON_TYPES: tuple[WeaponType, ...] = get_args(WeaponType)
DefenceChoice = Literal["block", "dodge", "parry_agi", "parry_luk"]
DEFENCE_CHOICES: tuple[DefenceChoice, ...] = get_args(DefenceChoice)
TAKE = "take"
Kind = Literal["master", "servant"]
# The repeat rule (R6) counts manoeuvres, so both parry stats are the same "parry".
Manoeuvre = Literal["block", "dodge", "parry"]
# What an Ability's `roll_mods` keys may be. All values are signed and added to the number named:
# attack:<type> and defense:<manoeuvre> to that d20 (negative helps), damage to the damage this
# character deals (positive helps), damage_taken to the damage this character takes (negative helps).
RollKind = Literal[
    "attack:melee",
    "attack:magical",
    "attack:ranged",
    "defense:block",
    "defense:dodge",
    "defense:parry",
    "damage",
    "damage_taken",
]
ROLL_KINDS: tuple[RollKind, ...] = get_args(RollKind)
ATTACK_ROLL_KIND: dict[AttackType, RollKind] = {
    "melee": "attack:melee",
    "magical": "attack:magical",
    "ranged": "attack:ranged",
}
DEFENCE_ROLL_KIND: dict[Manoeuvre, RollKind] = {
    "block": "defense:block",
    "dodge": "defense:dodge",
    "parry": "defense:parry",
}

RANK_LETTERS = ("E", "D", "C", "B", "A")
EX = "EX"
MIN_STAT = 1
MAX_STAT = len(RANK_LETTERS)
D20 = 20
D50 = 50

# T1: Servant class base stats, as numbers (E=1 .. A=5).
CLASS_BASE: dict[ServantClass, dict[Stat, int]] = {
    "Saber": {"STR": 5, "END": 4, "AGI": 4, "MAG": 3, "LUK": 2},
    "Lancer": {"STR": 4, "END": 3, "AGI": 5, "MAG": 2, "LUK": 1},
    "Archer": {"STR": 3, "END": 3, "AGI": 3, "MAG": 1, "LUK": 1},
    "Berserker": {"STR": 3, "END": 2, "AGI": 2, "MAG": 1, "LUK": 1},
    "Rider": {"STR": 2, "END": 2, "AGI": 4, "MAG": 3, "LUK": 1},
    "Caster": {"STR": 1, "END": 1, "AGI": 3, "MAG": 5, "LUK": 4},
    "Assassin": {"STR": 2, "END": 2, "AGI": 4, "MAG": 1, "LUK": 4},
}

# T2: which stat an attack type rolls, and the class modifier added to the d20.
ATTACK_STAT: dict[AttackType, Stat] = {"melee": "STR", "magical": "MAG", "ranged": "AGI"}
CLASS_ATTACK_MOD: dict[ServantClass, dict[AttackType, int]] = {
    "Saber": {"melee": -2, "magical": -1, "ranged": 0},
    "Lancer": {"melee": -2, "magical": -1, "ranged": 0},
    "Archer": {"melee": 0, "magical": 0, "ranged": -3},
    "Berserker": {"melee": -3, "magical": 1, "ranged": 0},
    "Rider": {"melee": -2, "magical": -2, "ranged": 0},
    "Caster": {"melee": 1, "magical": -3, "ranged": 0},
    "Assassin": {"melee": -1, "magical": -2, "ranged": 0},
}

# T3: weapon defence modifiers. `magic` is absent on purpose: sorcery defends as unarmed (T3 decision);
# the shield's dodge value comes from the `shield_dodge_mod` option (A14).
BLOCK_MOD: dict[WeaponType, int] = {
    "shield": -3,
    "axe": -2,
    "mace": -2,
    "sword": -1,
    "lance": -1,
    "bow": 1,
    "dagger": 1,
    "unarmed": 2,
}
DODGE_MOD: dict[WeaponType, int] = {
    "axe": 1,
    "mace": 1,
    "sword": -1,
    "lance": -1,
    "bow": -3,
    "dagger": -3,
    "unarmed": -3,
}
PARRY_MOD: dict[WeaponType, int] = {
    "shield": -1,
    "axe": 1,
    "mace": 1,
    "sword": -3,
    "lance": -3,
    "bow": -2,
    "dagger": -2,
    "unarmed": 1,
}

# T4: base damage of the physical weapons; unarmed, shield and magic depend on options and class (R10).
BASE_DAMAGE: dict[WeaponType, int] = {"axe": 5, "mace": 5, "sword": 4, "lance": 4, "bow": 4, "dagger": 3}
CASTER_MAGIC_BASE = 5

# T5.
MASTER_MAG_POINTS: dict[int, int] = {1: -2, 2: -1, 3: 0, 4: 1, 5: 2}
CLASS_MANA_MOD: dict[ServantClass, int] = {
    "Saber": 15,
    "Lancer": 15,
    "Rider": 15,
    "Assassin": 10,
    "Archer": 10,
    "Berserker": -10,
    "Caster": 20,
}
NP_BASE: dict[str, int] = {"A": 30, "B": 25, "C": 20, "D": 15, "E": 10}
NP_STEP = 2

_NP_RANK = re.compile(r"^(EX|[A-E])(\+*|-*)$")


def is_np_rank(rank: str) -> bool:
    """An NP rank is a letter or EX followed only by `+` signs or only by `-` signs (A+, B--, EX)."""
    return _NP_RANK.match(rank) is not None


def rank_letter(value: int) -> str:
    """E..A for 1..5; anything above A is EX (an EX stat is stored as its GM-set number, A3)."""
    if value > MAX_STAT:
        return EX
    return RANK_LETTERS[value - 1]


def rank_value(rank: str, ex_value: int) -> int:
    """The numeric value of a plain rank letter; EX is worth `ex_value` (the sheet's, or the option's)."""
    if rank == EX:
        return ex_value
    if rank not in RANK_LETTERS:
        raise RuleError("invalid_rank", rank=rank)
    return RANK_LETTERS.index(rank) + 1


def _np_rank_parts(rank: str) -> tuple[str, int]:
    """(letter or EX, number of `+` minus number of `-`); both the NP cost and the God Hand order read these."""
    match = _NP_RANK.match(rank)
    if match is None:
        raise RuleError("invalid_rank", rank=rank)
    letter, suffix = match.groups()
    return letter, suffix.count("+") - suffix.count("-")


def np_cost(rank: str, gm_cost_adjust: int = 0, ex_cost: int | None = None) -> int:
    """R16: NP_BASE of the letter, +2 per `+`, -2 per `-`, plus the GM's adjustment; EX costs what the GM set.

    The GM's EX value is the whole cost (the adjustment is not added to it). A cost never drops below 0,
    which only matters for ranks like `E------`.
    """
    letter, steps = _np_rank_parts(rank)
    if letter == EX:
        if ex_cost is None:
            raise RuleError("np_ex_cost_missing", rank=rank)
        return ex_cost
    return max(0, NP_BASE[letter] + NP_STEP * steps + gm_cost_adjust)


def np_rank_key(rank: str) -> tuple[int, int]:
    """A sort key for NP ranks (R16, God Hand): by letter (EX above A), then by its `+`/`-` signs.

    So A+ > A > A- > B++ > B+ > B. EX is above every lettered rank, and EX+ above EX, should a GM write one.
    """
    letter, steps = _np_rank_parts(rank)
    return (MAX_STAT + 1 if letter == EX else RANK_LETTERS.index(letter) + 1), steps


def require_mana(kind: Kind, cost: int, mana: int, confirmed: bool) -> Literal["dead"] | None:
    """A33, for every spend (attacks, defences, activations, regeneration): the fate the spend brings.

    Spending more than the pool is refused. A Servant spending its last mana dies (R18), so it must
    confirm, and then "dead" is returned; Masters live on at 0 mana.
    """
    if cost > mana:
        raise RuleError("not_enough_mana", cost=cost, mana=mana)
    if kind == "servant" and cost == mana:
        if not confirmed:
            raise RuleError("confirm_zero_mana", cost=cost, mana=mana)
        return "dead"
    return None


def stat_die_sides(value: int, options: FatePointsOptions) -> int:
    """A1: "roll the X stat" rolls a die with as many faces as the stat (or twice as many, per option)."""
    return 2 * value if options.stat_die_mode == "d2N" else value


def floored(total: int, options: FatePointsOptions) -> int:
    """A28: "the best score possible being a 1", or no clamp at all when the floor option is off."""
    return total if options.score_floor is None else max(options.score_floor, total)


def stat_modifier(stat: str, value: int) -> Modifier:
    """The `- stat` term of a d20 score, kept as a modifier so the roll shows where every number came from."""
    return Modifier(f"stat:{stat}", -value)


def score_of(natural: int, modifiers: Sequence[Modifier], options: FatePointsOptions) -> int:
    """Every score in the game: `d20 - stat + modifiers`, floored. Shared by checks, attacks, defences and odds."""
    return floored(natural + sum(m.value for m in modifiers), options)


def roll_d20(
    label: str, modifiers: Sequence[Modifier], dice: DiceSource, options: FatePointsOptions, by: str | None = None
) -> Roll:
    """Roll one scored d20 for `by`; `total` is the floored score and `dice[0]` the natural face."""
    (natural,) = dice.roll(1, D20)
    kept = tuple(m for m in modifiers if m.value != 0 or m.source.startswith("stat"))
    return Roll(label, D20, (natural,), (natural,), kept, score_of(natural, kept, options), by=by)
