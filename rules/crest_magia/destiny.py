"""Destiny Points (R11, C20, C21, C30, C34): set at each session's start, earned by criticals and the GM, and
spent one at a time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from rules.crest_magia.model import STATS, Stat
from rules.crest_magia.options import CrestMagiaOptions
from rules.exchange import RuleError, Text

DestinyUse = Literal[
    "reroll",
    "intercept",
    "remove_consequence",
    "restore_hp",
    "reallocate_hp",
    "combine_action",
    "act_out_of_turn",
    "other",
]
DESTINY_USES: tuple[DestinyUse, ...] = get_args(DestinyUse)
# Uses the rules carry out; the others are logged and left to the GM.
NARRATIVE_USES = frozenset({"combine_action", "act_out_of_turn", "other"})
SPEND_COST = 1  # C21


def session_points(options: CrestMagiaOptions) -> int:
    """C34: every player starts a session with exactly this many, whatever was left ("do not carry over")."""
    return options.dp_session_start


def require_point(points: int) -> None:
    if points < SPEND_COST:
        raise RuleError("no_destiny_points")


def restored(hp: int, maximum: int, options: CrestMagiaOptions) -> int:
    """C20: a pool restored by a Destiny Point: to full, or by half its size (`dp_restore=half_pool`). A full pool
    has nothing to restore, and the point is not spent."""
    if hp >= maximum:
        raise RuleError("pool_full")
    if options.dp_restore == "half_pool":
        return min(maximum, hp + (maximum + 1) // 2)
    return maximum


def reallocated(
    hp: Mapping[Stat, int], maximum: Mapping[Stat, int], source: Stat, target: Stat, amount: int
) -> dict[Stat, int]:
    """C20: `amount` current HP moved from one pool to another, the target never past its maximum."""
    if source not in STATS or target not in STATS or source == target:
        raise RuleError("bad_reallocation", source=Text(f"stat.{source}"), target=Text(f"stat.{target}"))
    if amount < 1 or amount > hp[source]:
        raise RuleError("reallocation_amount", amount=amount, available=hp[source])
    if hp[target] + amount > maximum[target]:
        raise RuleError("reallocation_room", target=Text(f"stat.{target}"), room=maximum[target] - hp[target])
    return {**hp, source: hp[source] - amount, target: hp[target] + amount}


def consequence_removed(consequence: int, dead: int) -> int:
    """R11: one step down the ladder; nothing to remove at none, and death is beyond it."""
    if consequence == 0:
        raise RuleError("no_consequence")
    if consequence >= dead:
        raise RuleError("dead_is_final")
    return consequence - 1
