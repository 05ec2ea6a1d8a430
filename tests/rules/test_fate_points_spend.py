"""R19 Fate/Point spends."""

from __future__ import annotations

import pytest

from rules.exchange import PoolDelta, RuleError
from rules.fate_points.fate_points import spend_fate_point


def test_roll_vs_servant_costs_one_point() -> None:
    spent = spend_fate_point("master", 2, "roll_vs_servant", None)
    assert spent.effects == (PoolDelta("master", "fate_points", -1),)
    assert spent.outcome["effect"] == {"roll_vs_servant": True}


def test_boost_names_the_stat() -> None:
    assert spend_fate_point("master", 1, "boost_stat", "AGI").outcome["effect"] == {"boost": "AGI"}


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
        spend_fate_point(kind, points, use, stat)
    assert refused.value.code == code
