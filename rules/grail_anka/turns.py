"""A campaign turn's end (R17, R19, R21-R23): fatigue recovery, masterless Servants' vanish checks, and what ends
the war or a player's game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from rules.grail_anka.model import VANISH_PER_FATIGUE

TURN_RECOVERY: Final = 1  # R17.1: every Servant with a living Master, at each turn's end
REST_RECOVERY: Final = 1  # R17.2, D16: a camp that rests, on top of it
FINALE_CAMPS: Final = 2  # R22.1
PEACEFUL: Final = frozenset({"allied", "ceasefire"})


def recovered(fatigue: int, *, has_master: bool, resting: bool) -> int:
    """R17: a Servant with a living Master recovers 1 at the turn's end, 1 more if its camp rested; a masterless one
    recovers nothing (R19)."""
    if not has_master:
        return fatigue
    return max(0, fatigue - TURN_RECOVERY - (REST_RECOVERY if resting else 0))


def masterless_survive_rate(turns: int) -> int:
    """R19, T3, D19: a masterless Servant survives a turn's end at 100 - 5 x the turns since its Master died (the
    first turn's end counting 1)."""
    return 100 - VANISH_PER_FATIGUE * turns


def active(members: Iterable[tuple[str, bool]]) -> bool:
    """D17: a camp is active while it has a living Master or a Servant that has not vanished (members as (kind,
    still in play))."""
    return any(in_play and kind in ("master", "servant") for kind, in_play in members)


def finale_reason(active_camps: list[str], relations: Mapping[frozenset[str], str]) -> str | None:
    """R22: why the war enters its final processing, if it does: two camps left (or fewer, all at once), or every
    pair of the camps left allied or in ceasefire (the GM may also judge it so, by command)."""
    if len(active_camps) <= FINALE_CAMPS:
        return {FINALE_CAMPS: "two_camps", 1: "one_camp", 0: "no_camp"}[len(active_camps)]
    pairs = [frozenset((a, b)) for index, a in enumerate(active_camps) for b in active_camps[index + 1 :]]
    if all(relations.get(pair) in PEACEFUL for pair in pairs):
        return "at_peace"
    return None


def time_up(next_turn: int, max_turns: int | None) -> bool:
    """R21: the war is out of time once the turn past `max_turns` would begin."""
    return max_turns is not None and next_turn > max_turns
