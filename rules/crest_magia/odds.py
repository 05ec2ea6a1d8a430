"""Exact odds of an attack beating a defence, by enumerating every face of every die (no simulation)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from rules.crest_magia.model import BASE_SIDES, BOON_SIDES, Crit
from rules.crest_magia.options import CrestMagiaOptions

Outcome = tuple[Crit | None, int]  # a roll's crit and total


def highest_d4(count: int) -> dict[int, Fraction]:
    """P(the highest of `count` d4s is k): (k^n - (k-1)^n) / 4^n."""
    return {k: Fraction(k**count - (k - 1) ** count, BOON_SIDES**count) for k in range(1, BOON_SIDES + 1)}


def action_outcomes(
    stat_sides: int, bonus: int, net_boons: int, options: CrestMagiaOptions, *, crits: bool = True
) -> dict[Outcome, Fraction]:
    """Every (crit, total) of an action roll with a flat `bonus` (skill, specialty, GM) and boons minus banes."""
    count = abs(net_boons) if options.max_bb_dice is None else min(abs(net_boons), options.max_bb_dice)
    boon_values = (
        {0: Fraction(1)}
        if count == 0
        else {(k if net_boons > 0 else -k): chance for k, chance in highest_d4(count).items()}
    )
    each = Fraction(1, BASE_SIDES * BASE_SIDES * stat_sides)
    outcomes: dict[Outcome, Fraction] = defaultdict(Fraction)
    for first in range(1, BASE_SIDES + 1):
        for second in range(1, BASE_SIDES + 1):
            crit: Crit | None = None
            if crits and first == second == BASE_SIDES:
                crit = "success"
            elif crits and first == second == 1:
                crit = "failure"
            for face in range(1, stat_sides + 1):
                kept = first + second + face - min(first, second, face)
                for boon, chance in boon_values.items():
                    outcomes[(crit, kept + bonus + boon)] += each * chance
    return dict(outcomes)


def hit_chance(
    attack: dict[Outcome, Fraction], defence: dict[Outcome, Fraction], options: CrestMagiaOptions
) -> Fraction:
    """P(hit) with R6's order: a critical attack decides, then a critical defence (C2), then attack > defence."""
    total = Fraction(0)
    for (attack_crit, attack_total), attack_chance in attack.items():
        if attack_crit == "failure":
            continue
        if attack_crit == "success":
            total += attack_chance
            continue
        for (defence_crit, defence_total), defence_chance in defence.items():
            if defence_crit == "failure":
                hit = True
            elif defence_crit == "success" and options.crit_success_autopasses:
                hit = False
            else:
                hit = attack_total > defence_total
            if hit:
                total += attack_chance * defence_chance
    return total
