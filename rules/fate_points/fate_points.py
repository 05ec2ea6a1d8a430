"""R19: spending a Fate/Point to roll against a Servant or to lift a stat to a Servant's level."""

from __future__ import annotations

from typing import Literal, get_args

from rules.exchange import PoolDelta, Resolution, RuleError
from rules.fate_points.model import STATS

FateUse = Literal["roll_vs_servant", "boost_stat"]
FATE_USES: tuple[FateUse, ...] = get_args(FateUse)


def spend_fate_point(kind: str, fate_points: int, use: str, stat: str | None) -> Resolution:
    """One point off the Master's pool, and the effect the Master's next roll carries (`outcome["effect"]`).

    Only Masters hold Fate/Points; boosting needs the stat to boost. The effect lasts for the option
    `fp_duration` (one roll by default), which the bot enforces when it clears it.
    """
    if kind != "master":
        raise RuleError("fate_masters_only")
    if use not in FATE_USES:
        raise RuleError("unknown_fate_use", use=use)
    if use == "boost_stat" and stat not in STATS:
        raise RuleError("boost_needs_stat")
    if fate_points < 1:
        raise RuleError("no_fate_points")
    effect: dict[str, object] = {"roll_vs_servant": True} if use == "roll_vs_servant" else {"boost": stat}
    return Resolution(effects=(PoolDelta("master", "fate_points", -1),), outcome={"use": use, "effect": effect})
