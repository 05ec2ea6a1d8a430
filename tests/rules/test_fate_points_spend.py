"""R19 Fate/Point spends."""

from __future__ import annotations

from typing import Literal

import pytest

from rules.exchange import PoolDelta, RuleError
from rules.fate_points import FatePointsOptions
from rules.fate_points.fate_points import spend_fate_point
from tests.rules.test_fate_points_support import DEFAULTS


def test_roll_vs_servant_costs_one_point() -> None:
    spent = spend_fate_point("master", 2, "roll_vs_servant", None, round_number=3, options=DEFAULTS)
    assert spent.effects == (PoolDelta("master", "fate_points", -1),)
    assert spent.outcome.effect == {"roll_vs_servant": True, "granted_round": 3, "duration": "roll"}


def test_boost_names_the_stat() -> None:
    effect = spend_fate_point("master", 1, "boost_stat", "AGI", round_number=1, options=DEFAULTS).outcome.effect
    assert effect == {"boost": "AGI", "granted_round": 1, "duration": "roll"}


@pytest.mark.parametrize("duration", ["roll", "round", "scene"])
def test_the_effect_records_the_duration_option(duration: Literal["roll", "round", "scene"]) -> None:
    options = FatePointsOptions(fp_duration=duration)
    spent = spend_fate_point("master", 1, "roll_vs_servant", None, round_number=2, options=options)
    assert spent.outcome.effect["duration"] == duration


def test_out_of_combat_spends_have_no_round() -> None:
    # Callers that predate rounds (and spends outside combat) still work.
    assert spend_fate_point("master", 1, "roll_vs_servant", None).outcome.effect["granted_round"] is None


@pytest.mark.parametrize(
    ("kind", "points", "use", "stat", "code"),
    [
        ("servant", 3, "roll_vs_servant", None, "fate_masters_only"),
        ("master", 0, "roll_vs_servant", None, "no_fate_points"),
        ("master", 2, "boost_stat", None, "boost_needs_stat"),
        ("master", 2, "boost_stat", "XYZ", "boost_needs_stat"),
        ("master", 2, "luck", None, "unknown_fate_use"),
    ],
)
def test_refusals(kind: str, points: int, use: str, stat: str | None, code: str) -> None:
    with pytest.raises(RuleError) as refused:
        spend_fate_point(kind, points, use, stat, round_number=1, options=DEFAULTS)
    assert refused.value.code == code
