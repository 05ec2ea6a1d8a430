"""Character creation: R1 (Master HP, compatibility, prana) and R2-R3 (Servant stats, prana, HP).

Every die is recorded as a Roll, in the order the spec lists them (which is also the order they are
drawn from the DiceSource). Roll labels:
  Master:  "hp" (best of 2d10 + END), "compatibility" (best of 4d10 + MAG + GM mod),
           "prana_d50" (best of 4d50), "prana_mag" (MAG stat die x5).
  Servant: "prana_mag", "prana_end", "prana_luk" (stat dice x5), "prana_d50" (best of 4d50 + class
           mana modifier), "hp_end" (best of four END stat dice, x5).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice.source import DiceSource
from rules.exchange import Modifier, Roll
from rules.fate_points.model import CLASS_MANA_MOD, D50, Stat, rank_letter, stat_die_sides
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.sheets import (
    MasterSheet,
    ServantSheet,
    master_problems,
    servant_points,
    servant_problems,
    servant_stats,
)
from rules.sheets import SheetError

D10 = 10
PRANA_STAT_MULT = 5
HP_ROUND = 5


@dataclass(frozen=True)
class MasterCreation:
    hp_max: int
    compatibility: int
    prana_max: int
    fate_points: int
    servant_points: int  # MASTER_MAG_POINTS of the Master's MAG, before the GM's extra points
    rolls: tuple[Roll, ...]


@dataclass(frozen=True)
class ServantCreation:
    stats: dict[Stat, int]
    ranks: dict[Stat, str]
    prana_max: int
    hp_max: int
    rolls: tuple[Roll, ...]
    points: int  # the R2 points (MAG award + GM extra points)
    # A40 `servant_points_mode=roll_mods`: the points as a flat d20 modifier on every attack and defence
    # (awarded points help, so +1 point is -1 on the die); 0 in the default rank-steps mode.
    roll_mod: int


def quarter_to_5(prana: int) -> int:
    """R3/A8: prana/4 rounded to the nearest multiple of 5, halves up (91 -> 25, 90 -> 25, 89 -> 20)."""
    return HP_ROUND * ((prana + 2 * HP_ROUND) // (4 * HP_ROUND))


def _best_of(label: str, count: int, sides: int, dice: DiceSource, modifiers: tuple[Modifier, ...] = ()) -> Roll:
    faces = tuple(dice.roll(count, sides))
    best = max(faces)
    return Roll(label, sides, faces, (best,), modifiers, best + sum(m.value for m in modifiers))


def _stat_roll(label: str, value: int, count: int, dice: DiceSource, options: FatePointsOptions) -> Roll:
    """A1: "roll the X stat" `count` times, keep the best, multiply by five."""
    sides = stat_die_sides(value, options)
    faces = tuple(dice.roll(count, sides))
    best = max(faces)
    return Roll(label, sides, faces, (best,), (), best * PRANA_STAT_MULT, PRANA_STAT_MULT)


def create_master(
    sheet: MasterSheet, dice: DiceSource, options: FatePointsOptions, gm_compat_mod: int = 0
) -> MasterCreation:
    """R1. Raises SheetError if the sheet breaks the campaign's budget (it may predate an option change)."""
    problems = master_problems(sheet.model_dump(), options)
    if problems:
        raise SheetError(problems)
    hp = _best_of("hp", 2, D10, dice, (Modifier("stat:END", sheet.END),))
    compat_mods = (Modifier("stat:MAG", sheet.MAG), Modifier("gm", gm_compat_mod))
    compatibility = _best_of("compatibility", 4, D10, dice, tuple(m for m in compat_mods if m.value))
    prana_d50 = _best_of("prana_d50", 4, D50, dice)
    prana_mag = _stat_roll("prana_mag", sheet.MAG, 1, dice, options)
    return MasterCreation(
        hp_max=hp.total,
        compatibility=compatibility.total,
        prana_max=prana_d50.total + prana_mag.total,
        fate_points=options.fp_initial,
        servant_points=servant_points(sheet, 0),
        rolls=(hp, compatibility, prana_d50, prana_mag),
    )


def create_servant(
    sheet: ServantSheet, master: MasterSheet, extra_points: int, dice: DiceSource, options: FatePointsOptions
) -> ServantCreation:
    """R2-R3 with the final stats. Raises SheetError if the rank steps do not fit the points."""
    problems = servant_problems(sheet.model_dump(), master, extra_points, options)
    if problems:
        raise SheetError(problems)
    stats = servant_stats(sheet, options)
    stat_rolls = tuple(
        _stat_roll(f"prana_{stat.lower()}", stats[stat], 1, dice, options) for stat in ("MAG", "END", "LUK")
    )
    prana_d50 = _best_of("prana_d50", 4, D50, dice, (Modifier("class", CLASS_MANA_MOD[sheet.servant_class]),))
    prana_max = sum(roll.total for roll in stat_rolls) + prana_d50.total
    hp_end = _stat_roll("hp_end", stats["END"], 4, dice, options)
    points = servant_points(master, extra_points)
    return ServantCreation(
        stats=stats,
        ranks={stat: rank_letter(value) for stat, value in stats.items()},
        prana_max=prana_max,
        hp_max=quarter_to_5(prana_max) + hp_end.total,
        rolls=(*stat_rolls, prana_d50, hp_end),
        points=points,
        roll_mod=-points if options.servant_points_mode == "roll_mods" else 0,
    )
