"""A search on the map never names a concealed character to an observer whose roll fell short (R27, R28)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rulesets.base import ACTOR, EVERYONE, CharacterSnapshot, Pool, Scene, Turn
from bot.rulesets.grail_zh.actions import POSITION
from bot.rulesets.grail_zh.characters import CONCEALED
from bot.rulesets.grail_zh.detection import CONCEALMENT_BASE, CONCEALMENT_STEP, Searched, search
from bot.rulesets.grail_zh.play import GrailZhPlay
from rules.dice import SeededDice
from rules.grail_zh.options import GrailZhOptions

PLAY, OPTIONS = GrailZhPlay(), GrailZhOptions()
LETTERS = st.sampled_from("EDCBA")


def _servant(key: int, name: str, legend: dict[str, str], *, skills: list[dict[str, Any]], x: int,
             concealed: bool) -> CharacterSnapshot:  # fmt: skip
    data = {"name": name, "master": "Nobody", "servant_class": "assassin", "legend": legend, "skills": skills}
    draft = PLAY.build("servant", data, {}, SeededDice(0), OPTIONS)
    state: dict[str, Any] = {POSITION: {"sector": [0, 0], "x": x, "y": 0}}
    if concealed:
        state[CONCEALED] = True
    pools = {name: Pool(pool.current, pool.maximum, pool.minimum) for name, pool in draft.pools.items()}
    return CharacterSnapshot(key, draft.name, "servant", key, draft.sheet, pools, state)


@settings(max_examples=60, deadline=None)
@given(LETTERS, LETTERS, LETTERS, LETTERS, st.integers(0, 2**32))
def test_a_concealed_servant_is_named_only_when_the_roll_reaches_its_number(
    magic: str, agility: str, hider_agility: str, luck: str, seed: int
) -> None:
    observer = _servant(1, "Watcher", {"STR": "C", "END": "C", "AGI": agility, "MAG": magic, "LUK": luck},
                        skills=[], x=1, concealed=False)  # fmt: skip
    hider = _servant(2, "Hider", {"STR": "C", "END": "C", "AGI": hider_agility, "MAG": "C", "LUK": "C"},
                     skills=[], x=50, concealed=True)  # fmt: skip
    scene = Scene(1, {ACTOR: (observer,), EVERYONE: (observer, hider)}, Turn(1, False, 1, 1, 1), OPTIONS,
                  SeededDice(seed))  # fmt: skip
    step = search(scene)
    searched = next(outcome for outcome in step.outcomes if isinstance(outcome, Searched))
    against = next(roll for roll in step.rolls if roll.label == "search_concealed")
    x = {"E": 1, "D": 2, "C": 3, "B": 4, "A": 5}[hider_agility]  # an Assassin's Presence Concealment is its AGI
    assert ("Hider" in searched.found) == (against.total >= CONCEALMENT_BASE + CONCEALMENT_STEP * x)
    assert searched.secret
