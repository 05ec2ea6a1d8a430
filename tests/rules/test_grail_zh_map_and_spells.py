"""Properties of the map and of spells: a search never names a concealed character to an observer whose roll fell
short (R27, R28); a protection never lifts temporary HP above its caster's MP maximum; puppets never outnumber 5 x
their maker's MAG (R22)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import SeededDice
from rules.exchange import PoolDelta, RuleError, Summon
from rules.grail_zh.actions import POSITION
from rules.grail_zh.detection import CONCEALMENT_BASE, CONCEALMENT_STEP, Searched, search
from rules.grail_zh.magecraft import cast
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.play import GrailZhPlay
from rules.grail_zh.stored import CONCEALED, MAKER
from rules.play import ACTOR, EVERYONE, OPPONENT, CharacterSnapshot, Pool, Scene, Turn

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


def _scene(*roles: tuple[str, tuple[CharacterSnapshot, ...]], seed: int = 0) -> Scene:
    return Scene(1, dict(roles), Turn(1, False, 1, 1, 1), OPTIONS, SeededDice(seed))


CASTER = {"STR": "E", "END": "D", "AGI": "C", "LUK": "C"}


def _caster(magic: str, *, mp: int | None = None) -> CharacterSnapshot:
    data = {"name": "Medea", "master": "Nobody", "servant_class": "caster", "legend": {**CASTER, "MAG": magic},
            "skills": [{"name": "spellcasting", "rank": "A"}], "spells": ["shield", "puppets"]}  # fmt: skip
    draft = PLAY.build("servant", data, {}, SeededDice(0), OPTIONS)
    pools = {name: Pool(pool.current if name != "mp" or mp is None else mp, pool.maximum, pool.minimum)
             for name, pool in draft.pools.items()}  # fmt: skip
    return CharacterSnapshot(7, draft.name, "servant", 7, draft.sheet, pools, {})


@settings(max_examples=60, deadline=None)
@given(LETTERS, st.integers(1, 200), st.integers(0, 300))
def test_a_protection_never_lifts_temporary_hp_above_the_casters_mp_maximum(magic: str, put: int, held: int) -> None:
    caster = _caster(magic, mp=1000)
    target = replace(caster, id=8, name="Saber", pools={**caster.pools, "temp_hp": Pool(held, None)}, state={})
    ceiling = caster.pools["mp"].maximum or 0
    scene = _scene((ACTOR, (caster,)), (OPPONENT, (target,)))
    try:
        step = cast(scene, "shield", {"amount": put})
    except RuleError:
        assert held >= ceiling  # refused only when there is no room left
        return
    given_hp = sum(e.delta for e in step.effects if isinstance(e, PoolDelta) and e.who == OPPONENT)
    assert given_hp > 0 and held + given_hp <= max(ceiling, held)


@settings(max_examples=60, deadline=None)
@given(LETTERS, st.integers(0, 30), st.integers(1, 30))
def test_puppets_never_outnumber_five_times_their_makers_magic(magic: str, made: int, wanted: int) -> None:
    caster = _caster(magic, mp=1000)
    existing = tuple(replace(caster, id=100 + index, name=f"P{index}", kind="puppet", state={MAKER: caster.id})
                     for index in range(made))  # fmt: skip
    scene = _scene((ACTOR, (caster,)), (EVERYONE, (caster, *existing)))
    n = "EDCBA".index(magic) + 1
    try:
        step = cast(scene, "puppets", {"amount": wanted, "item": "Dragon Tooth"})
    except RuleError:
        assert n - 2 < 1 or made + wanted > 5 * n
        return
    summoned = [effect for effect in step.effects if isinstance(effect, Summon)]
    assert len(summoned) == wanted and made + wanted <= 5 * n
