"""grail_zh's attack as an exchange on built scenes, without the bot: a hit waits for its target's reactions (R19,
R26) and each answer resumes it from its stored state; attack magecraft in a fight waits for opportunity attacks
(R25, D36); and the renderer's posts of what they did."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest

from rules.dice import FixedDice, SeededDice
from rules.exchange import Answer, PoolDelta, RuleError, Step
from rules.grail_zh import fight
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.play import GrailZhPlay
from rules.grail_zh.render import GrailZhRenderer
from rules.grail_zh.stored import HP, MP
from rules.play import ANSWERER, ATTACKER, DEFENDER, EVERYONE, CharacterSnapshot, Scene, Turn

PLAY, OPTIONS, RENDERER = GrailZhPlay(), GrailZhOptions(), GrailZhRenderer()
CALM, FIGHTING = Turn(1, False, 1, 1, 1), Turn(5, True, 1, 1, 1)
# Luck C: no rerolls, so each d20 below is one face.
LEGEND = {"STR": "B", "END": "C", "AGI": "C", "MAG": "C", "LUK": "C"}


def _servant(key: int, name: str, *skills: dict[str, str]) -> CharacterSnapshot:
    data = {"name": name, "master": "Nobody", "servant_class": "saber", "legend": LEGEND, "skills": list(skills)}
    draft = PLAY.build("servant", data, {}, SeededDice(0), OPTIONS)
    return CharacterSnapshot(key, draft.name, "servant", key, draft.sheet, dict(draft.pools), {})


SABER = _servant(1, "Saber")
ARCHER = _servant(2, "Archer", {"name": "minds_eye_true", "rank": "B"})
_RIN = PLAY.build("master", {"name": "Rin", "master_type": "magus", "attributes": {"dex": 2, "int": 3, "cha": 5}},
                  {}, SeededDice(0), OPTIONS)  # fmt: skip
RIN = CharacterSnapshot(3, _RIN.name, "master", 3, _RIN.sheet, dict(_RIN.pools), {})


def _scene(
    faces: list[int], turn: Turn = CALM, roles: Mapping[str, tuple[CharacterSnapshot, ...]] = MappingProxyType({})
) -> Scene:
    cast = {ATTACKER: (SABER,), DEFENDER: (ARCHER,), EVERYONE: (SABER, ARCHER, RIN), **roles}
    return Scene(1, cast, turn, OPTIONS, FixedDice(faces))


def _attack(scene: Scene, *targets: str, action: str = "melee") -> Step:
    return PLAY.attack(scene, PLAY.attack_input(targets=targets, action=action))


def _resume(scene: Scene, step: Step, wait: str, option: str) -> Step:
    assert step.pause is not None
    return PLAY.resumes.resume(scene, step.pause.stored_as, step.pause.stored_state(), Answer(wait, option))


def _hp_lost(step: Step, who: str) -> int:
    return -sum(effect.delta for effect in step.effects if isinstance(effect, PoolDelta) and effect.who == who
                and effect.pool == HP)  # fmt: skip


def _one(step: Step, kind: type[Any]) -> Any:
    (found,) = [outcome for outcome in step.outcomes if isinstance(outcome, kind)]
    return found


def test_a_hit_on_a_defender_with_minds_eye_waits_for_its_reaction() -> None:
    step = _attack(_scene([15]), "Archer")
    (roll,) = step.rolls
    attacked = _one(step, fight.Attacked)
    assert roll.dice == (15,) and roll.total == 15 + sum(modifier.value for modifier in roll.modifiers)
    assert attacked.hit and attacked.total == roll.total and attacked.defender == "Archer"
    assert step.pause is not None and isinstance(step.pause.state, fight.Reaction)
    assert step.pause.stored_as == fight.REACTION_WAIT and step.pause.state.role == DEFENDER
    assert [(wait.key, [option.key for option in wait.options]) for wait in step.pause.waits] == [
        (fight.REACTION_WAIT, [fight.MINDS_EYE, fight.TAKE])
    ]
    assert _hp_lost(step, DEFENDER) == 0
    report = RENDERER.report(step.outcomes)
    assert report.title is not None and report.title.key == "attack.hit" and report.title.params["total"] == roll.total


def test_a_hit_taken_lands_its_damage() -> None:
    hit = _attack(_scene([15]), "Archer")
    taken = _resume(_scene([3, 3, 3]), hit, fight.REACTION_WAIT, fight.TAKE)
    damaged = _one(taken, fight.Damaged)
    (damage,) = taken.rolls
    assert damage.dice == (3, 3, 3) and damaged.rolled == damage.total
    assert damaged.taken > 0 and _hp_lost(taken, DEFENDER) == damaged.taken and taken.pause is None
    assert [note.key for note in RENDERER.report(taken.outcomes).notes] == ["damage.taken"]


@pytest.mark.parametrize(("face", "evaded"), [(20, True), (2, False)])
def test_minds_eye_evades_only_above_the_attack_roll(face: int, evaded: bool) -> None:
    hit = _attack(_scene([15]), "Archer")
    answered = _resume(_scene([face, 3, 3, 3]), hit, fight.REACTION_WAIT, fight.MINDS_EYE)
    eye = _one(answered, fight.Evaded)
    assert answered.rolls[0].dice == (face,) and eye.total == answered.rolls[0].total
    assert eye.evaded is evaded and (eye.total > eye.against) is evaded
    assert (_hp_lost(answered, DEFENDER) > 0) is not evaded
    keys = [note.key for note in RENDERER.report(answered.outcomes).notes]
    assert keys[0] == ("attack.evaded" if evaded else "attack.not_evaded")


def test_a_hit_waits_for_a_guard_in_a_fight_and_a_defender_cannot_guard_itself() -> None:
    hit = _attack(_scene([15], FIGHTING), "Archer")
    assert hit.pause is not None and [wait.key for wait in hit.pause.waits] == [fight.GUARD_WAIT, fight.REACTION_WAIT]
    with pytest.raises(RuleError) as refused:
        _resume(_scene([], FIGHTING, {ANSWERER: (ARCHER,)}), hit, fight.GUARD_WAIT, fight.GUARD)
    assert refused.value.code == "grail_guard_self"


def test_one_melee_blow_strikes_one_target() -> None:
    with pytest.raises(RuleError) as refused:
        _attack(_scene([15], roles={DEFENDER: (ARCHER, RIN)}), "Archer", "Rin")
    assert refused.value.code == "grail_one_target"


def test_a_waiting_hit_is_stored_and_read_back_unchanged() -> None:
    hit = _attack(_scene([15]), "Archer")
    assert hit.pause is not None
    stored = json.loads(json.dumps(hit.pause.stored_state()))
    state = PLAY.resumes.state(hit.pause.stored_as, stored)
    assert state == hit.pause.state and hit.pause.stored_state() == stored
    # A hit stored before its state was typed has no counter's penalty, no striker out of turn, no blow after it.
    earlier = {key: value for key, value in stored.items() if key not in ("penalty", "by", "after")}
    assert PLAY.resumes.state(hit.pause.stored_as, earlier) == state


def test_attack_magecraft_in_a_fight_waits_for_opportunity_attacks_one_a_character() -> None:
    casting = {ATTACKER: (RIN,), DEFENDER: (SABER,)}
    cast = _attack(_scene([], FIGHTING, casting), "Saber", action="bolt")
    assert cast.rolls == () and cast.pause is not None and cast.pause.stored_as == fight.OPPORTUNITY_WAIT
    assert [wait.key for wait in cast.pause.waits] == [fight.OPPORTUNITY_WAIT, fight.CAST_WAIT]
    # A window stored before its state was typed kept no one who struck and no strike until someone did.
    earlier = {key: value for key, value in cast.pause.stored_state().items() if key not in ("struck_by", "strike")}
    assert PLAY.resumes.state(cast.pause.stored_as, earlier) == cast.pause.state
    casting_report = RENDERER.report(cast.outcomes)
    assert casting_report.title is not None and casting_report.title.key == "attack.casting"
    # Archer strikes at Rin: a hit, which waits for Rin's reactions with Archer cast as the striker.
    struck = _resume(_scene([10], FIGHTING, {**casting, ANSWERER: (ARCHER,)}), cast, fight.OPPORTUNITY_WAIT,
                     fight.OPPORTUNITY)  # fmt: skip
    assert _one(struck, fight.Struck).hit and struck.cast == {fight.STRIKER: (ARCHER.id,)}
    assert struck.pause is not None and isinstance(struck.pause.state, fight.AttackWindow)
    assert struck.pause.state.struck_by == (ARCHER.id,) and struck.pause.state.strike is not None
    assert PLAY.resumes.state(struck.pause.stored_as, struck.pause.stored_state()) == struck.pause.state
    # Rin takes it and stands; the window opens again, and Archer has had its one.
    took = _resume(_scene([2, 2, 2], FIGHTING, {**casting, fight.STRIKER: (ARCHER,)}), struck, fight.REACTION_WAIT,
                   fight.TAKE)  # fmt: skip
    assert 0 < _hp_lost(took, ATTACKER) < RIN.pools[HP].current
    assert took.pause is not None and took.pause.stored_as == fight.OPPORTUNITY_WAIT
    with pytest.raises(RuleError) as refused:
        _resume(_scene([10], FIGHTING, {**casting, ANSWERER: (ARCHER,)}), took, fight.OPPORTUNITY_WAIT,
                fight.OPPORTUNITY)  # fmt: skip
    assert refused.value.code == "grail_struck_already"
    # The GMs let it go on: Rin pays and her bolt is rolled at Saber.
    left = RIN.pools[HP].current - _hp_lost(took, ATTACKER)
    wounded = replace(RIN, pools={**RIN.pools, HP: replace(RIN.pools[HP], current=left)})
    went = _resume(_scene([15], FIGHTING, {ATTACKER: (wounded,), DEFENDER: (SABER,)}), took, fight.CAST_WAIT,
                   fight.GO_ON)  # fmt: skip
    bolt = _one(went, fight.Attacked)
    assert bolt.means == "bolt" and bolt.attacker == "Rin" and went.rolls[0].dice == (15,)
    assert any(isinstance(e, PoolDelta) and e.who == ATTACKER and e.pool == MP and e.delta < 0 for e in went.effects)
