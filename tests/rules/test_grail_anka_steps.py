"""A battle of the anka game step by step on built scenes, each paused exchange resumed from its state as the
database keeps it: the picks, the anchored decisions, a loser's way out and its vanish check, and the states older
releases stored."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.dice.source import SeededDice
from rules.exchange import Answer, Commit, Pause, PoolDelta, Reveal, RuleError, SidePatch, StatePatch, Step
from rules.grail_anka import battle, checks, decisions, fight
from rules.grail_anka.model import COMMAND_SEALS, RETREAT_FATIGUE, UNDO_VANISH_SEALS, Talisman
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.outcomes import BattleOver, Retreated, VanishChecked, Vanished
from rules.grail_anka.play import BATTLE_KIND, GrailAnkaPlay
from rules.grail_anka.render import AnkaRenderer
from rules.grail_anka.states import (
    Anchoring,
    Battle,
    ChoosingFate,
    ChoosingSkill,
    Consenting,
    Countering,
    Deciding,
    Picking,
    Undoing,
)
from rules.play import CharacterSnapshot, CommitmentSnapshot, Pool, Scene, SideSnapshot, Turn

PARAMS = {"str": 20, "end": 20, "agi": 20, "mag": 20, "luk": 20, "np": 20}
PLAY = GrailAnkaPlay()
RENDERER = AnkaRenderer()
SAVED_BY_SEAL, VANISHES, PULLED_BACK = "seal", "vanishes", "pulled_back"


def _character(id_: int, name: str, kind: str, pools: dict[str, Pool], **extra: Any) -> CharacterSnapshot:
    file = {"name": name, "level": 5, "params": PARAMS, "skills": [], **extra}
    return CharacterSnapshot(id_, name, kind, 100 + id_, {"file": file}, pools, {})


def _scene() -> Scene:
    """Two camps of one Servant each, alike in everything: side A's win rate is 50."""
    seals = {fight.SEALS: Pool(COMMAND_SEALS, COMMAND_SEALS)}
    ma, mb = _character(1, "Ma", "master", seals), _character(2, "Mb", "master", seals)
    saber = _character(3, "Saber", "servant", {fight.FATIGUE: Pool(0, None)}, master="Ma")
    lancer = _character(4, "Lancer", "servant", {fight.FATIGUE: Pool(0, None)}, master="Mb")
    sides = {"a": SideSnapshot(1, "Red", ((saber, "main"),)), "b": SideSnapshot(2, "Blue", ((lancer, "main"),))}
    roles = {fight.FIGHTER: (saber, lancer), "fighter.master": (ma,), "fighter#1.master": (mb,)}
    return Scene(1, roles, Turn(1, True, 1, 1, 1), GrailAnkaOptions(), SeededDice(7), sides)


class Table:
    """A scene that keeps what the exchange's steps committed, as the database would."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene

    def answer(self, step: Step, answer: Answer) -> Step:
        """The step an answer gives, from the paused state as stored."""
        assert step.pause is not None
        committed = {c.key: CommitmentSnapshot(c.key, c.digest, c.secret, c.nonce, False) for c in _commits(step)}
        self.scene = replace(self.scene, commitments={**self.scene.commitments, **committed})
        return PLAY.resumes.resume(self.scene, step.pause.stored_as, step.pause.stored_state(), answer)


def _commits(step: Step) -> list[Commit]:
    return [effect for effect in step.effects if isinstance(effect, Commit)]


def _anchor(commit: Commit, value: int) -> Answer:
    """The anchor that gives a committed decision the value wanted (what no player can know)."""
    anchor = (value - int(commit.secret)) % checks.VALUES or checks.ANCHOR_MAX
    return Answer(decisions.ANCHOR_WAIT, value=anchor, by=42)


def _pause(step: Step) -> Pause:
    assert step.pause is not None
    return step.pause


def _state(step: Step) -> Any:
    return _pause(step).state


def _told(step: Step, *keys: str) -> bool:
    """Whether the step's post says these lines, in this order."""
    report = RENDERER.report(step.outcomes)
    said = iter(text.key for text in (*((report.title,) if report.title else ()), *report.notes))
    return all(key in said for key in keys)


def _begun(table: Table) -> Step:
    return fight.begin(table.scene, "a", None, [("a", fight.MAIN), ("b", fight.MAIN)])


def _decided(table: Table) -> Step:
    """The battle up to its decision, won by side A: both picks, the third parameter drawn, the check at 50."""
    begun = _begun(table)
    assert isinstance(_state(begun), Picking)
    assert [(w.key, w.audience.role) for w in _pause(begun).waits] == [("pick", "a")]
    second = table.answer(begun, Answer("pick", option="str"))
    assert isinstance(_state(second), Picking) and _state(second).picks == ("str",)
    assert [w.audience.role for w in _pause(second).waits] == ["b"]
    drawing = table.answer(second, Answer("pick", option="end"))
    assert isinstance(_state(drawing), Anchoring)
    third_value = 6
    checking = table.answer(drawing, _anchor(_commits(drawing)[0], third_value))
    deciding = _state(checking)
    assert isinstance(deciding, Anchoring) and isinstance(deciding.continued, Deciding)
    assert deciding.continued.picks == ("str", "end", battle.third_parameter(("str", "end"), third_value))
    assert deciding.continued.rate == 50
    won = table.answer(checking, _anchor(_commits(checking)[0], 30))
    assert [effect.key for effect in won.effects if isinstance(effect, Reveal)] == [c.key for c in _commits(checking)]
    return won


@pytest.mark.parametrize("ending", [SAVED_BY_SEAL, VANISHES, PULLED_BACK])
def test_a_battle_from_its_picks_to_its_aftermath(ending: str) -> None:
    table = Table(_scene())
    fate = _decided(table)
    asked = _state(fate)
    assert isinstance(asked, ChoosingFate) and asked.winner == "a" and asked.after.queue == (1,)
    assert {option.key for option in _pause(fate).waits[0].options} == {"seal", "face"}
    chosen = table.answer(fate, Answer("fate", option="seal" if ending == SAVED_BY_SEAL else "face"))
    rolling = _state(chosen)
    assert isinstance(rolling, Anchoring)
    fatigue_decision, *vanish_decision = _commits(chosen)
    if ending == SAVED_BY_SEAL:
        assert PoolDelta("fighter#1.master", fight.SEALS, -1) in chosen.effects
        assert PoolDelta("fighter#1", fight.FATIGUE, RETREAT_FATIGUE) in chosen.effects
        assert rolling.request.rates == (None,) and not vanish_decision  # the winner's fatigue alone
        assert Retreated(who="Lancer", by="seal", fatigue=RETREAT_FATIGUE, seals=1) in chosen.outcomes
        over = table.answer(chosen, _anchor(fatigue_decision, 40))
        assert over.pause is None
        assert PoolDelta("fighter", fight.FATIGUE, battle.winner_fatigue(0, 0)) in over.effects
        assert over.outcomes[-1] == BattleOver(winner="Red", loser="Blue")
        assert _told(over, "anka.decision_revealed", "anka.winner_fatigue", "anka.battle_over")
        return
    survive = battle.survive_rate(0)
    assert rolling.request.rates == (None, survive)  # the winner's fatigue, then the loser's vanish check
    fatigue = table.answer(chosen, _anchor(fatigue_decision, 40))
    assert isinstance(_state(fatigue), Anchoring) and len(_state(fatigue).request.anchors) == 1
    undo = table.answer(fatigue, _anchor(vanish_decision[0], survive + 20))  # the check failed
    assert isinstance(_state(undo), Undoing) and _state(undo).after.undo == (1,)
    assert [(o.who, o.survived) for o in undo.outcomes if isinstance(o, VanishChecked)] == [("Lancer", False)]
    assert _told(undo, "anka.winner_fatigue", "anka.vanish_checked")
    over = table.answer(undo, Answer("undo", option="accept" if ending == VANISHES else "seal"))
    assert over.pause is None
    # With no Servant of theirs back, the losers would have to negotiate (none is left to).
    assert over.outcomes[-1] == BattleOver(winner="Red", loser="Blue", negotiate=ending == VANISHES)
    if ending == VANISHES:
        assert StatePatch("fighter#1", fight.VANISHED, True) in over.effects
        assert not any(isinstance(effect, PoolDelta) and effect.pool == fight.SEALS for effect in over.effects)
        assert Vanished(who="Lancer") in over.outcomes
        assert _told(over, "anka.vanished", "anka.battle_over")
    else:
        assert PoolDelta("fighter#1.master", fight.SEALS, -UNDO_VANISH_SEALS) in over.effects
        assert not any(isinstance(effect, StatePatch) for effect in over.effects)
        assert _told(over, "anka.retreated", "anka.battle_over")


def test_a_skill_cancelled_by_a_talisman_and_the_battle_called_off_gives_the_talisman_back() -> None:
    scene = _scene()
    rage = {"name": "Rage", "kind": "normal", "timing": "setup", "fatigue_cost": 1, "effect": {"win_rate_delta": 10}}
    saber, lancer = scene.members(fight.FIGHTER)
    lancer = replace(lancer, sheet={"file": {**lancer.sheet["file"], "skills": [rage]}})
    held = {fight.TALISMANS: {Talisman.ILLUSION.value: 1}}
    armed = replace(scene.sides["a"], state=held)
    table = Table(
        replace(scene, roles={**scene.roles, fight.FIGHTER: (saber, lancer)}, sides={**scene.sides, "a": armed})
    )
    window = _begun(table)
    assert isinstance(_state(window), ChoosingSkill)
    assert [(w.key, w.audience.role) for w in _pause(window).waits] == [("skill", "b")]
    activated = table.answer(window, Answer("skill", option="u1_0"))
    assert isinstance(_state(activated), Countering) and _state(activated).using == (1, 0)
    assert [w.audience.role for w in _pause(activated).waits] == ["a"]
    picking = table.answer(activated, Answer("cancel", option=Talisman.ILLUSION.value))
    spent = {kind.value: 0 for kind in Talisman}
    assert SidePatch("a", fight.TALISMANS, spent) in picking.effects
    assert not any(isinstance(effect, PoolDelta) for effect in picking.effects)  # a cancelled skill tires no one
    state = _state(picking)
    assert isinstance(state, Picking) and state.spent == (("a", Talisman.ILLUSION.value),)
    assert [(used.fighter, used.cancelled) for used in state.activations] == [(1, True)]
    disarmed = replace(armed, state={fight.TALISMANS: spent})
    after_the_talisman = replace(table.scene, sides={**table.scene.sides, "a": disarmed})
    drawing = table.answer(table.answer(picking, Answer("pick", option="str")), Answer("pick", option="end"))
    for paused in (state, _state(drawing)):  # at a wait of the battle, or at its request's
        called_off = PLAY.cancelled(after_the_talisman, BATTLE_KIND, paused)
        assert called_off is not None
        assert SidePatch("a", fight.TALISMANS, {**spent, Talisman.ILLUSION.value: 1}) in called_off.effects


def test_a_fighter_gone_meanwhile_refuses_the_answer() -> None:
    table = Table(_scene())
    fate = _decided(table)
    table.scene = replace(table.scene, roles={**table.scene.roles, fight.FIGHTER: table.scene.roles[fight.FIGHTER][:1]})
    with pytest.raises(RuleError) as refused:
        table.answer(fate, Answer("fate", option="face"))
    assert refused.value.code == "fighter_gone"


def test_a_stored_state_reads_back_as_it_was_and_as_older_releases_stored_it() -> None:
    table = Table(_scene())
    begun = _begun(table)
    drawing = table.answer(table.answer(begun, Answer("pick", option="str")), Answer("pick", option="end"))
    for step in (begun, drawing, _decided(Table(_scene()))):
        assert step.pause is not None
        stored = step.pause.stored_state()
        assert PLAY.resumes.state(step.pause.stored_as, stored) == step.pause.state
        assert PLAY.resumes.state(step.pause.stored_as, stored).model_dump(mode="json") == stored
    # A request is kept flat, its continued state beside it, as the service and open waits read it.
    stored = _pause(drawing).stored_state()
    assert stored["picks"] == ["str", "end"] and stored[decisions.REQUEST]["then"] == "third"
    assert decisions.phase_of(stored) == decisions.OPEN
    # What the older steps read with a default when it was missing.
    consent = PLAY.resumes.state("anka_contract", {"waiting": ["servant"]})
    assert isinstance(consent, Consenting) and consent.was is None
    fighters = [{"side": "a", "place": "main"}, {"side": "b", "place": "main"}]
    before: dict[str, Any] = {
        "first": "a",
        "home": None,
        "fighters": fighters,
        "uses": {},
        "activations": [],
        "picks": [],
        "timing": "setup",
        "turn": 0,
        "fatigue_start": [0, 0],
    }
    old = Battle.model_validate(before)
    assert (old.spent, old.refunded, old.winner, old.after, old.retreat_disabled) == ((), (), None, None, False)
