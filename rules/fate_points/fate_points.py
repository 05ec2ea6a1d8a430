"""R19: spending a Fate/Point to roll against a Servant or to lift a stat to a Servant's level."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from rules.exchange import PoolDelta, Resolution, RuleError
from rules.fate_points.model import STATS
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.outcomes import FateSpendResult

FateUse = Literal["roll_vs_servant", "boost_stat"]
FATE_USES: tuple[FateUse, ...] = get_args(FateUse)
_DEFAULTS = FatePointsOptions()


def spend_fate_point(
    kind: str,
    fate_points: int,
    use: str,
    stat: str | None,
    *,
    round_number: int | None = None,
    options: FatePointsOptions = _DEFAULTS,
) -> Resolution[FateSpendResult]:
    """One point off the Master's pool, and the effect the Master's next roll carries (`outcome.effect`).

    Only Masters hold Fate/Points; boosting needs the stat to boost. The effect records how long it lasts
    (`duration`, the option `fp_duration` when it was granted) and the round it was granted in
    (`granted_round`, None out of combat), which `fate_effect_expired` reads.
    """
    if kind != "master":
        raise RuleError("fate_masters_only")
    if use not in FATE_USES:
        raise RuleError("unknown_fate_use", use=use)
    if use == "boost_stat" and stat not in STATS:
        raise RuleError("boost_needs_stat")
    if use != "boost_stat" and stat is not None:
        raise RuleError("stat_not_needed", use=use)
    if fate_points < 1:
        raise RuleError("no_fate_points")
    effect: dict[str, object] = {"roll_vs_servant": True} if use == "roll_vs_servant" else {"boost": stat}
    effect.update(granted_round=round_number, duration=options.fp_duration)
    return Resolution(FateSpendResult(use=use, effect=effect), effects=(PoolDelta("master", "fate_points", -1),))


def fate_effect_expired(
    effect: Mapping[str, object],
    *,
    used_in_roll: bool,
    round_number: int,
    scene_ended: bool,
    options: FatePointsOptions,
) -> bool:
    """R19/A24: whether a stored Fate/Point effect is over, given what just happened.

    "roll" ends with the roll that used it; "round" once the round advances past the one it was granted in;
    "scene" when the GM ends the scene. Every effect ends with the scene: it is the longest duration there is.
    The duration stored with the effect wins over the current option (a GM changing the option does not
    stretch points already spent); effects stored before durations were recorded use the option. A "round"
    effect granted out of combat (no round) has no round to outlast, so it lasts one roll.
    """
    if scene_ended:
        return True
    duration = effect.get("duration", options.fp_duration)
    granted = effect.get("granted_round")
    if duration == "scene":
        return False
    if duration == "round" and isinstance(granted, int):
        return round_number > granted
    return used_in_roll
