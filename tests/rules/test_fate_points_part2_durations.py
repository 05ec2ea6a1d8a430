"""Part 2 R19/A24: how long a Fate/Point effect lasts, for each `fp_duration`."""

from __future__ import annotations

from typing import Literal

import pytest

from rules.fate_points import FatePointsOptions, fate_effect_expired, spend_fate_point

Duration = Literal["roll", "round", "scene"]


def granted(duration: Duration, round_number: int | None = 2) -> tuple[dict[str, object], FatePointsOptions]:
    options = FatePointsOptions(fp_duration=duration)
    spent = spend_fate_point("master", 1, "boost_stat", "STR", round_number=round_number, options=options)
    return spent.outcome.effect, options


def expired(
    effect: dict[str, object], options: FatePointsOptions, *, used: bool, round_number: int, scene_ended: bool = False
) -> bool:
    return fate_effect_expired(
        effect, used_in_roll=used, round_number=round_number, scene_ended=scene_ended, options=options
    )


def test_roll_effects_end_with_the_roll_that_used_them() -> None:
    effect, options = granted("roll")
    assert not expired(effect, options, used=False, round_number=2)
    assert not expired(effect, options, used=False, round_number=5)
    assert expired(effect, options, used=True, round_number=2)
    assert expired(effect, options, used=False, round_number=2, scene_ended=True)


def test_round_effects_end_when_the_round_advances() -> None:
    effect, options = granted("round")
    assert effect["granted_round"] == 2
    assert not expired(effect, options, used=True, round_number=2)
    assert not expired(effect, options, used=False, round_number=2)
    assert expired(effect, options, used=False, round_number=3)
    assert expired(effect, options, used=False, round_number=2, scene_ended=True)


def test_round_effects_granted_out_of_combat_last_one_roll() -> None:
    effect, options = granted("round", round_number=None)
    assert not expired(effect, options, used=False, round_number=1)
    assert expired(effect, options, used=True, round_number=1)


def test_scene_effects_end_with_the_scene() -> None:
    effect, options = granted("scene")
    assert not expired(effect, options, used=True, round_number=9)
    assert expired(effect, options, used=False, round_number=2, scene_ended=True)


@pytest.mark.parametrize("current", ["roll", "round", "scene"])
def test_the_duration_granted_wins_over_a_later_option_change(current: Duration) -> None:
    effect, _ = granted("scene")
    assert not expired(effect, FatePointsOptions(fp_duration=current), used=True, round_number=7)


@pytest.mark.parametrize(("duration", "ends_on_use"), [("roll", True), ("round", True), ("scene", False)])
def test_effects_stored_without_a_duration_follow_the_option(duration: Duration, ends_on_use: bool) -> None:
    legacy: dict[str, object] = {"roll_vs_servant": True}
    assert expired(legacy, FatePointsOptions(fp_duration=duration), used=True, round_number=3) is ends_on_use
