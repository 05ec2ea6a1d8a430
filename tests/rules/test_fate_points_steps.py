"""Fate/Points' exchanges on built scenes: an attack paused for the defence and resumed from its stored state with
each answer, the weapon a block is made with, a Fate/Point waiting for a GM, and how their outcomes read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from bot.rulesets.fate_points import RULESET
from rules.dice.source import FixedDice, SeededDice
from rules.exchange import Answer, Pause, PoolDelta, RuleError, StatePatch, Step, Text
from rules.fate_points.events import AttackDeclared, AttackResolved, FateDenied, FateRequested, FateSpent
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.play import CONTRACT, FatePointsPlay
from rules.fate_points.render import FatePointsRenderer
from rules.fate_points.states import ChoosingWeapon, Defending, FateApproval
from rules.play import ACTOR, ATTACKER, DEFENDER, CharacterSnapshot, Pool, Scene, Turn
from tests.examples import FATE_MASTER as MASTER_TEMPLATE
from tests.examples import FATE_SERVANT as SERVANT_TEMPLATE

PLAY = FatePointsPlay()
OPTIONS = FatePointsOptions()
RENDERER = FatePointsRenderer()
TURN = Turn(round_number=3, in_combat=True, session_number=1, turn_number=1, shown_round=1)
SWORD = "melee|Invisible Air"
LANCER = {
    **SERVANT_TEMPLATE, "name": "Lancer", "servant_class": "Lancer", "master": "Sakura",
    "weapons": [{"name": "Gae Bolg", "type": "lance"}, {"name": "Buckler", "type": "shield"}],
}  # fmt: skip


def _character(
    number: int, kind: str, data: Mapping[str, Any], master: CharacterSnapshot | None = None
) -> CharacterSnapshot:
    draft = PLAY.build(kind, data, {CONTRACT: master} if master else {}, SeededDice(number), OPTIONS)
    bound = {CONTRACT: (master,)} if master else {}
    return CharacterSnapshot(number, draft.name, kind, 100 + number, draft.sheet, draft.pools, {}, bound_to=bound)


RIN = _character(1, "master", MASTER_TEMPLATE)
SABER = _character(3, "servant", SERVANT_TEMPLATE, RIN)
LANCER_SERVANT = _character(4, "servant", LANCER, _character(2, "master", {**MASTER_TEMPLATE, "name": "Sakura"}))


def _fight(*faces: int, attacker: CharacterSnapshot = SABER, defender: CharacterSnapshot = LANCER_SERVANT) -> Scene:
    return Scene(1, {ATTACKER: (attacker,), DEFENDER: (defender,)}, TURN, OPTIONS, FixedDice(faces))


def _attack(face: int) -> Step:
    params = PLAY.attack_input.model_validate({"targets": ["Lancer"], "action": SWORD}, context=PLAY.spelled)
    return PLAY.attack(_fight(face), params)


def _paused(step: Step) -> Pause:
    assert step.pause is not None
    return step.pause


def _answer(pause: Pause, scene: Scene, option: str, **more: Any) -> Step:
    """The step an answer gives, from the state as the database keeps it."""
    key = pause.waits[0].key
    return PLAY.resumes.resume(scene, pause.stored_as, pause.stored_state(), Answer(key, option=option, **more))


def _resolved(step: Step) -> AttackResolved:
    (resolved,) = (outcome for outcome in step.outcomes if isinstance(outcome, AttackResolved))
    return resolved


def test_the_resuming_steps_keep_the_names_open_waits_were_stored_under() -> None:
    assert set(PLAY.resumes) == {"defence", "defence_weapon", "approval"}


def test_an_attack_is_rolled_and_paid_then_waits_for_the_defence() -> None:
    step = _attack(12)
    (roll,) = step.rolls
    assert roll.dice == (12,)
    assert roll.total == 12 + sum(modifier.value for modifier in roll.modifiers)
    (declared,) = step.outcomes
    assert isinstance(declared, AttackDeclared)
    assert (declared.attacker, declared.defender, declared.score) == ("Saber", "Lancer", roll.total)
    assert PoolDelta("attacker", "prana", -declared.mana_cost) in step.effects
    pause = _paused(step)
    assert pause.stored_as == "defence"
    assert isinstance(pause.state, Defending)
    assert pause.state.attack.roll == roll
    (wait,) = pause.waits
    assert [option.key for option in wait.options] == ["block", "dodge", "parry_agi", "parry_luk", "take"]


def test_a_paused_attack_reads_back_from_its_stored_state_unchanged() -> None:
    pause = _paused(_attack(12))
    stored = json.loads(json.dumps(pause.stored_state()))
    assert PLAY.resumes.state(pause.stored_as, stored) == pause.state
    assert PLAY.resumes.state(pause.stored_as, stored).model_dump(mode="json") == stored
    chosen = _paused(_answer(pause, _fight(), "block"))
    assert PLAY.resumes.state(chosen.stored_as, json.loads(json.dumps(chosen.stored_state()))) == chosen.state


def test_taking_the_hit_rolls_nothing_and_the_damage_lands() -> None:
    pause = _paused(_attack(12))
    step = _answer(pause, _fight(), "take")
    assert step.rolls == () and step.pause is None
    resolved = _resolved(step)
    assert resolved.result.hit and resolved.result.damage > 0
    assert PoolDelta("defender", "hp", -resolved.result.damage) in step.effects


@pytest.mark.parametrize("face", [1, 20])
def test_a_dodge_beats_the_attack_only_with_a_lower_score(face: int) -> None:
    step = _attack(12)
    attack_score = step.rolls[0].total
    dodged = _answer(_paused(step), _fight(face), "dodge")
    (roll,) = dodged.rolls
    assert roll.dice == (face,)
    resolved = _resolved(dodged)
    assert resolved.result.defence_score == roll.total
    # A7: a dodge must beat the attack, not merely match it.
    assert resolved.result.hit == (roll.total >= attack_score)
    assert any(isinstance(effect, PoolDelta) and effect.pool == "hp" for effect in dodged.effects) == (
        resolved.result.hit
    )


@pytest.mark.parametrize(("option", "weapon"), [("w0", "lance"), ("w1", "shield"), ("best", "shield")])
def test_a_block_by_a_defender_with_two_weapons_asks_which_then_lands(option: str, weapon: str) -> None:
    asked = _answer(_paused(_attack(12)), _fight(), "block")
    assert asked.rolls == () and asked.effects == () and asked.outcomes == ()
    pause = _paused(asked)
    assert pause.stored_as == "defence_weapon"
    assert isinstance(pause.state, ChoosingWeapon) and pause.state.choice == "block"
    assert [option.key for option in pause.waits[0].options] == ["best", "w0", "w1"]
    landed = _answer(pause, _fight(7), option)
    assert landed.rolls[0].dice == (7,)
    resolved = _resolved(landed)
    # T3: a shield blocks at -3, a lance at -1: the best is the shield.
    assert (resolved.result.choice, resolved.result.weapon) == ("block", weapon)


def test_a_defence_the_gm_ruled_out_for_a_noble_phantasm_is_refused() -> None:
    ruled = replace(LANCER_SERVANT, state={"np_rulings": {"Excalibur": {"defences": ["dodge"], "damage": None}}})
    params = PLAY.attack_input.model_validate({"targets": ["Saber"], "action": "np|Excalibur"}, context=PLAY.spelled)
    pause = _paused(PLAY.attack(_fight(12, attacker=ruled, defender=SABER), params))
    assert [option.key for option in pause.waits[0].options] == ["dodge", "take"]
    with pytest.raises(RuleError) as refused:
        _answer(pause, _fight(5, attacker=ruled, defender=SABER), "block")
    assert refused.value.code == "defence_not_allowed"


def test_a_defence_whose_attacker_left_is_refused() -> None:
    pause = _paused(_attack(12))
    gone = Scene(1, {DEFENDER: (LANCER_SERVANT,)}, TURN, OPTIONS, FixedDice([5]))
    with pytest.raises(RuleError) as refused:
        _answer(pause, gone, "dodge")
    assert refused.value.code == "fighter_gone"


def test_an_attack_stored_before_its_activations_and_fate_were_kept_lands_as_then() -> None:
    pause = _paused(_attack(12))
    stored = pause.stored_state()
    older = {name: value for name, value in stored.items() if name not in ("attacker_fate", "attacker_activated")}
    answer = Answer("defence", option="dodge")
    assert PLAY.resumes.resume(_fight(9), "defence", older, answer) == PLAY.resumes.resume(
        _fight(9), "defence", stored, answer
    )


def _asking(*faces: int) -> Scene:
    master = replace(RIN, pools={**RIN.pools, "fate_points": Pool(2, None)})
    return Scene(1, {ACTOR: (master,)}, TURN, OPTIONS, FixedDice(faces))


def test_a_fate_point_waits_for_a_gm_and_is_spent_when_approved() -> None:
    asked = PLAY.request_fate_point(_asking(), "boost_stat", "STR", 101)
    assert asked.effects == ()
    assert asked.outcomes == (FateRequested(name="Rin Tohsaka", use="boost_stat", stat="STR"),)
    pause = _paused(asked)
    assert pause.state == FateApproval(use="boost_stat", stat="STR")
    assert PLAY.resumes.state(pause.stored_as, pause.stored_state()) == pause.state
    approved = _answer(pause, _asking(), "approve", by=7)
    (spent,) = approved.outcomes
    assert isinstance(spent, FateSpent) and spent.approved_by == 7
    assert approved.effects == (PoolDelta(ACTOR, "fate_points", -1), StatePatch(ACTOR, "fate", spent.effect))
    assert spent.effect["boost"] == "STR"


def test_a_denied_fate_point_changes_nothing() -> None:
    pause = _paused(PLAY.request_fate_point(_asking(), "roll_vs_servant", None, 101))
    denied = _answer(pause, _asking(), "deny", by=7)
    assert denied.effects == ()
    assert denied.outcomes == (FateDenied(name="Rin Tohsaka", use="roll_vs_servant", stat=None),)


def test_a_fate_point_asked_for_without_a_stat_reads_back_as_none() -> None:
    step = PLAY.resumes.resume(_asking(), "approval", {"use": "roll_vs_servant"}, Answer("approval", "approve"))
    (spent,) = step.outcomes
    assert isinstance(spent, FateSpent) and (spent.use, spent.stat) == ("roll_vs_servant", None)


def test_the_ruleset_renders_with_its_renderer() -> None:
    assert isinstance(RULESET.renderer, FatePointsRenderer)


def test_an_attack_and_its_landing_read_as_one_post() -> None:
    declared = _attack(12)
    landed = _answer(_paused(declared), _fight(), "take")
    report = RENDERER.report((*declared.outcomes, *landed.outcomes))
    assert report.title is not None and report.title.key == "attack.declared"
    assert [name.key for name, _ in report.fields] == ["attack.made_with", "attack.mana_cost", "attack.round"]
    assert [note.key for note in report.notes] == ["attack.hit", "attack.damage_terms"]
    assert report.notes[0].params["damage"] == _resolved(landed).result.damage


def test_a_defence_answered_later_reads_as_its_own_post() -> None:
    dodged = _answer(_paused(_attack(12)), _fight(1), "dodge")
    report = RENDERER.report(dodged.outcomes)
    assert report.title is not None and report.title.key == "attack.avoided"
    assert not report.fields


def test_a_fate_point_reads_as_spent_unless_a_gm_approved_it() -> None:
    spent = PLAY.spend_fate_point(_asking(), "boost_stat", "STR")
    assert [note.key for note in RENDERER.report(spent.outcomes).notes] == ["fate.spent"]
    approved = _answer(_paused(PLAY.request_fate_point(_asking(), "boost_stat", "STR", 101)), _asking(),
                       "approve", by=7)  # fmt: skip
    assert RENDERER.report(approved.outcomes).empty


def test_an_attack_is_logged_with_its_action_in_words() -> None:
    line = RENDERER.log_line("attack.declared", {"action": SWORD})
    action = Text("attack_logged.melee", {"name": "Invisible Air"})
    assert line == Text("event.attack.declared", {"action": action})
    assert RENDERER.log_line("attack.declared", {}) is None  # the generic line, which needs nothing more
