"""Command seals in a battle's aftermath, on built scenes: a Servant's way out spends only its own Master's strokes,
is offered only while that Master has them, and never takes them below 0 nor above 3."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rules.dice.source import SeededDice
from rules.exchange import PoolDelta, StatePatch, Step
from rules.grail_anka import fight
from rules.grail_anka.model import COMMAND_SEALS
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.sheets import ServantFile
from rules.grail_anka.states import Aftermath
from rules.play import CharacterSnapshot, Pool, Scene, SideSnapshot, Turn

PARAMS = {"str": 10, "end": 10, "agi": 10, "mag": 10, "luk": 10, "np": 10}


def _character(id_: int, kind: str, pools: dict[str, Pool], **extra: Any) -> CharacterSnapshot:
    file = {"name": f"c{id_}", "level": 1, "params": PARAMS, "skills": [], **extra}
    return CharacterSnapshot(id_, f"c{id_}", kind, 100 + id_, {"file": file}, pools, {})


def _scene(seals: int, fatigue: int, substitutes: int) -> tuple[Scene, Aftermath]:
    master = _character(1, "master", {fight.SEALS: Pool(seals, COMMAND_SEALS)})
    servant = _character(2, "servant", {fight.FATIGUE: Pool(fatigue, None)}, master="c1")
    rival = _character(3, "master", {fight.SEALS: Pool(COMMAND_SEALS, COMMAND_SEALS)})
    held = {fight.TALISMANS: {"substitute": substitutes}}
    sides = {"a": SideSnapshot(1, "A", ((rival, "main"),)), "b": SideSnapshot(2, "B", ((servant, "main"),), held)}
    roles = {fight.FIGHTER: (rival, servant), "fighter#1.master": (master,)}
    scene = Scene(1, roles, Turn(1, False, 1, 1, 1), GrailAnkaOptions(), SeededDice(1), sides)
    state = Aftermath.model_validate({
        "fighters": [{"side": "a", "place": "main"}, {"side": "b", "place": "main"}], "uses": {},
        "fatigue_start": [0, fatigue], "activations": [], "winner": "a", "first": "a", "home": None,
        "after": {"winners": [], "queue": [1], "facing": [], "retreated": [], "rescued": False}})  # fmt: skip
    return scene, state


def _seal_spends(step: Step) -> list[PoolDelta]:
    return [effect for effect in step.effects if isinstance(effect, PoolDelta) and effect.pool == fight.SEALS]


@given(st.integers(0, COMMAND_SEALS), st.integers(0, 20), st.integers(0, 2))
def test_a_way_out_spends_only_the_servants_own_masters_seals(seals: int, fatigue: int, substitutes: int) -> None:
    scene, state = _scene(seals, fatigue, substitutes)
    servant = fight.fighters(scene, state)[1]
    offered = {option.key for option in fight.fate_options(scene, state, servant)}
    assert ("seal" in offered) == (seals >= 1)
    assert "face" in offered
    for choice in offered - {"face"}:
        spends = _seal_spends(fight.take_way_out(scene, state, servant, choice))
        assert all(spend.who == "fighter#1.master" for spend in spends)
        assert 0 <= seals + sum(spend.delta for spend in spends) <= COMMAND_SEALS


@given(st.integers(0, COMMAND_SEALS))
def test_pulling_back_a_vanishing_servant_takes_two_strokes_it_has(seals: int) -> None:
    scene, state = _scene(seals, 10, 0)
    state = state.model_copy(update={"after": state.after.model_copy(update={"queue": (), "undo": (1,)})})
    step = fight.next_undo(scene, state)
    if seals >= 2:
        assert step.pause is not None and step.pause.waits[0].key == "undo"
    else:
        assert step.pause is None and not _seal_spends(step)


def test_a_talisman_or_a_stroke_spent_for_one_loser_is_not_offered_to_the_next() -> None:
    master = _character(1, "master", {fight.SEALS: Pool(1, COMMAND_SEALS)})
    first = _character(2, "servant", {fight.FATIGUE: Pool(0, None)}, master="c1")
    second = _character(4, "servant", {fight.FATIGUE: Pool(0, None)}, master="c1")
    rival = _character(3, "master", {fight.SEALS: Pool(COMMAND_SEALS, COMMAND_SEALS)})
    held = {fight.TALISMANS: {"substitute": 1}}
    sides = {"a": SideSnapshot(1, "A", ((rival, "main"),)),
             "b": SideSnapshot(2, "B", ((first, "main"), (second, "sub")), held)}  # fmt: skip
    roles = {fight.FIGHTER: (rival, first, second), "fighter#1.master": (master,), "fighter#2.master": (master,)}
    scene = Scene(1, roles, Turn(1, False, 1, 1, 1), GrailAnkaOptions(), SeededDice(1), sides)
    state = Aftermath.model_validate({
        "fighters": [{"side": "a", "place": "main"}, {"side": "b", "place": "main"}, {"side": "b", "place": "sub"}],
        "uses": {}, "fatigue_start": [0, 0, 0], "activations": [], "winner": "a", "first": "a", "home": None,
        "after": {"winners": [], "queue": [1, 2], "facing": [], "retreated": [], "rescued": False}})  # fmt: skip
    everyone = fight.fighters(scene, state)
    for spent in ("substitute", "seal"):
        step = fight.take_way_out(scene, state, everyone[1], spent)
        assert step.pause is not None
        offered = {option.key for option in step.pause.waits[0].options}
        assert spent not in offered and "face" in offered


def test_a_battle_called_off_after_its_decision_keeps_what_was_read() -> None:
    scene, state = _scene(0, 10, 0)
    state = state.model_copy(update={"after": state.after.model_copy(update={"queue": (), "undo": (1,)})})
    step = fight.cancelled(scene, state)
    assert step is not None
    assert any(isinstance(effect, StatePatch) and effect.who == "fighter#1" and effect.key == fight.VANISHED
               for effect in step.effects)  # fmt: skip


def test_passive_skills_are_always_on_and_a_companions_only_where_allowed() -> None:
    sheet = ServantFile.model_validate({"name": "s", "params": PARAMS, "skills": [
        {"name": "Aura", "timing": "passive", "effect": {"win_rate_delta": 3}},
        {"name": "Guide", "timing": "passive", "tags": ["companion_ok"], "effect": {"param_delta": {"agi": 5}}},
        {"name": "Burst", "timing": "main", "effect": {"win_rate_delta": 9}}]})  # fmt: skip
    assert [a.skill.name for a in fight.passive_activations("a", [(sheet, "main")])] == ["Aura", "Guide"]
    assert [a.skill.name for a in fight.passive_activations("a", [(sheet, "companion")])] == ["Guide"]
