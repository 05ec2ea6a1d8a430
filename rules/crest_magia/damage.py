"""Damage on the stats' HP pools: the defending stat first, overflow to pools of the defender's choosing, the
d4 of a depleted stat, and the consequence ladder once every pool is empty (R9, R10, C15-C18)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.crest_magia.model import DEAD, DEPLETED_DIE, STATS, Stat
from rules.crest_magia.options import CrestMagiaOptions
from rules.exchange import RuleError


@dataclass(frozen=True)
class Damaged:
    """Where a hit stands: the pools after it, what is still to place, and the pools the defender may place it on.

    `left` > 0 with `choices` means the defender picks the next pool (more than one has HP); the bot asks and
    calls `overflow` again with the pick. `climbed` is True when the hit moved the consequence ladder."""

    hp: dict[Stat, int]
    left: int
    choices: tuple[Stat, ...]
    consequence: int
    climbed: bool


def take_damage(
    hp: Mapping[Stat, int], stat: Stat, amount: int, consequence: int, options: CrestMagiaOptions
) -> Damaged:
    """R9/R10: `amount` damage (after the Withstand Roll) on the pool of `stat`, the stat that defended (C8)."""
    pools = dict(hp)
    if amount <= 0:  # a hit fully withstood takes nothing and climbs nothing (C18)
        return Damaged(pools, 0, (), consequence, False)
    if all(pools[name] == 0 for name in STATS):
        # "1 damage is the same as 20": one step up the ladder, whatever the amount.
        return Damaged(pools, 0, (), min(DEAD, consequence + 1), consequence < DEAD)
    return overflow(pools, stat, amount, consequence, options)


def overflow(hp: Mapping[Stat, int], stat: Stat, amount: int, consequence: int, options: CrestMagiaOptions) -> Damaged:
    """Place `amount` on `stat` (a pool with HP, or the defending stat), then keep overflowing: to the only pool
    left with HP without asking, or stop and ask when several are (C15). Damage past the last pool is lost (C16),
    or climbs the ladder with `overflow_triggers_consequence`."""
    pools = dict(hp)
    if stat not in pools:
        raise RuleError("unknown_stat", stat=stat)
    target, left = stat, amount
    while left > 0:
        taken = min(left, pools[target])
        pools[target] -= taken
        left -= taken
        if left == 0:
            break
        choices = tuple(name for name in STATS if pools[name] > 0)
        if not choices:
            if options.overflow_triggers_consequence:
                return Damaged(pools, 0, (), min(DEAD, consequence + 1), consequence < DEAD)
            return Damaged(pools, 0, (), consequence, False)
        if len(choices) > 1:
            return Damaged(pools, left, choices, consequence, False)
        (target,) = choices
    return Damaged(pools, 0, (), consequence, False)


def choose_overflow(damaged: Damaged, stat: Stat, options: CrestMagiaOptions) -> Damaged:
    """The defender's pick for the damage still to place."""
    if stat not in damaged.choices:
        raise RuleError("not_an_overflow_choice", stat=stat, choices=", ".join(damaged.choices))
    return overflow(damaged.hp, stat, damaged.left, damaged.consequence, options)


def effective_die(die: int, hp: int, maximum: int, depleted: bool, options: CrestMagiaOptions) -> int:
    """R9/C17: a stat at 0 HP rolls a d4, until any HP comes back (`d4_until=any_hp`), or until its pool is full
    again (`full_hp`; `depleted` remembers that it reached 0)."""
    if hp == 0 or (options.d4_until == "full_hp" and depleted and hp < maximum):
        return min(die, DEPLETED_DIE)
    return die


def still_depleted(was_depleted: bool, hp: int, maximum: int, options: CrestMagiaOptions) -> bool:
    """Whether a stat keeps its d4 after its HP changed to `hp` (the memory `effective_die` needs)."""
    if hp == 0:
        return True
    return was_depleted and options.d4_until == "full_hp" and hp < maximum


def healed(hp: int, maximum: int, amount: int) -> tuple[int, int]:
    """C19: `amount` HP restored to one pool, never past its maximum: the pool's HP, and what is left to place."""
    taken = max(0, min(amount, maximum - hp))
    return hp + taken, amount - taken
