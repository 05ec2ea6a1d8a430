"""Crest Magia's exchanges on built scenes: an attack resumed from its stored state at each of its waits (the defence's
stat and skill, a reroll, the withstand, an overflow; a GM's ruling that the defender is helpless; an intercept), a
check rolled again for a Destiny Point, an opposed check whose skill waits for the GMs, a heal, a narrative Destiny
Point, and how their outcomes read."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from rules.crest_magia import healing
from rules.crest_magia.fight import Attacked, Defended, Helpless, Intercepted, Placed, Rerolled, Voided, Wounded
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.play import (
    CHARACTER,
    CONSEQUENCE,
    DESTINY,
    CheckRolled,
    ContestDecided,
    CrestMagiaPlay,
    DestinyDenied,
    DestinySpent,
)
from rules.crest_magia.render import CrestMagiaRenderer
from rules.crest_magia.states import (
    ContestRequest,
    ContestSkill,
    DefenceReroll,
    DefenceSkill,
    DefenceStat,
    HealPlacing,
    Overflowing,
    Withstanding,
)
from rules.dice.source import FixedDice
from rules.exchange import Answer, Pause, PoolDelta, RuleError, StatePatch, Step, Text
from rules.play import ACTOR, ANSWERER, ATTACKER, DEFENDER, CharacterSnapshot, Pool, Scene, Turn
from tests.examples import CREST_MAGIA as TEMPLATE

PLAY = CrestMagiaPlay()
OPTIONS = CrestMagiaOptions()
RENDERER = CrestMagiaRenderer()
TURN = Turn(round_number=3, in_combat=True, session_number=1, turn_number=1, shown_round=1)
GM = 900


def _bearer(number: int, name: str, destiny: int) -> CharacterSnapshot:
    draft = PLAY.build(CHARACTER, {**TEMPLATE, "name": name}, {}, FixedDice([]), OPTIONS)
    pools = {**draft.pools, DESTINY: Pool(destiny, None)}
    return CharacterSnapshot(number, name, CHARACTER, 100 + number, draft.sheet, pools, {})


# Aiko: Physique d8 with Melee 3 and a Sword (rating 0); Bram the same sheet, with Leather (0) and the Crest of
# Flames (rank 2) to withstand with, HP 8/6/4/6.
AIKO = _bearer(1, "Aiko", 0)
BRAM = _bearer(2, "Bram", 1)
CHIYO = _bearer(3, "Chiyo", 1)


def _fight(*faces: int, defender: CharacterSnapshot = BRAM, answerer: CharacterSnapshot | None = None) -> Scene:
    roles = {ATTACKER: (AIKO,), DEFENDER: (defender,), **({ANSWERER: (answerer,)} if answerer else {})}
    return Scene(1, roles, TURN, OPTIONS, FixedDice(faces))


def _alone(role: str, character: CharacterSnapshot, *faces: int, **more: tuple[CharacterSnapshot, ...]) -> Scene:
    return Scene(1, {role: (character,), **more}, TURN, OPTIONS, FixedDice(faces))


def _paused(step: Step) -> Pause:
    assert step.pause is not None
    return step.pause


def _answer(pause: Pause, scene: Scene, wait: str, option: str, **more: Any) -> Step:
    """The step an answer gives, from the state as the database keeps it."""
    assert wait in [each.key for each in pause.waits]
    stored = json.loads(json.dumps(pause.stored_state()))
    return PLAY.resumes.resume(scene, pause.stored_as, stored, Answer(wait, option=option, **more))


def _applied(character: CharacterSnapshot, step: Step, who: str) -> CharacterSnapshot:
    """The character with the step's pool and state changes on `who`, as the bot applies them before the next
    answer."""
    pools, state = dict(character.pools), dict(character.state)
    for effect in step.effects:
        if isinstance(effect, PoolDelta) and effect.who == who:
            pools[effect.pool] = replace(pools[effect.pool], current=pools[effect.pool].current + effect.delta)
        elif isinstance(effect, StatePatch) and effect.who == who:
            state[effect.key] = effect.value
    return replace(character, pools=pools, state=state)


def _attack() -> Step:
    """Aiko's sword on Bram: 4 and 3 on the base dice and 5 on the d8 keep 5 + 4, and Melee 3 makes 12."""
    params = PLAY.attack_input.model_validate({"targets": ["Bram"], "action": "melee|Sword"}, context=PLAY.spelled)
    return PLAY.attack(_fight(4, 3, 5), params)


def _title(step: Step) -> str | None:
    title = RENDERER.report(step.outcomes).title
    return None if title is None else title.key


def _keys(step: Step) -> list[str]:
    return [note.key for note in RENDERER.report(step.outcomes).notes]


def _of(step: Step, kind: type[Any]) -> Any:
    (found,) = (outcome for outcome in step.outcomes if isinstance(outcome, kind))
    return found


def test_every_resuming_step_keeps_the_name_its_open_waits_were_stored_under() -> None:
    assert set(PLAY.resumes) == {
        "destiny_approval", "check_reroll", "contest_stat", "contest_skill", "contest_skill_request", "heal_pool",
        "defence_stat", "helpless_stat", "defence_reroll", "defence_skill_request", "defence_skill", "withstand",
        "overflow",
    }  # fmt: skip


def test_an_attack_is_rolled_and_waits_for_the_defenders_stat_or_someone_stepping_in() -> None:
    step = _attack()
    assert [roll.dice for roll in step.rolls] == [(4, 3), (5,)]
    assert step.rolls[-1].total == 12
    declared = _of(step, Attacked)
    assert (declared.attacker, declared.defender, declared.total, declared.crit) == ("Aiko", "Bram", 12, None)
    pause = _paused(step)
    assert pause.stored_as == "defence_stat" and isinstance(pause.state, DefenceStat)
    assert pause.state.attack.total == 12 and pause.state.means.skill == "Melee"
    # Aiko has no Destiny Point to roll it again with: the other players may step in, and Bram names his stat.
    assert [wait.key for wait in pause.waits] == ["intercept", "defence_stat"]
    assert _title(step) == "attack.declared"


def test_a_defended_hit_let_stand_is_withstood_with_armour_and_overflows_where_the_defender_says() -> None:
    skill = _paused(_answer(_paused(_attack()), _fight(), "defence_stat", "physique"))
    assert skill.stored_as == "defence_skill" and isinstance(skill.state, DefenceSkill)
    assert skill.state.stat == "Physique"
    # Agility 2: 2 and 1 and 3 on the d8 keep 3 + 2, 7 against 12.
    defended = _answer(skill, _fight(2, 1, 3), "defence_skill", "agility")
    outcome = _of(defended, Defended)
    assert (outcome.hit, outcome.attack_total, outcome.defence_total, outcome.skill) == (True, 12, 7, "Agility")
    assert _title(defended) == "attack.hit"
    reroll = _paused(defended)
    # Bram still has a Destiny Point: the hit waits for him to roll again or let it stand.
    assert reroll.stored_as == "defence_reroll" and isinstance(reroll.state, DefenceReroll)
    assert [option.key for option in reroll.waits[0].options] == ["reroll", "keep"]
    struck = _answer(reroll, _fight(6, 6), "reroll", "keep")
    assert [roll.dice for roll in struck.rolls] == [(6, 6)]
    withstand = _paused(struck)
    assert withstand.stored_as == "withstand" and isinstance(withstand.state, Withstanding)
    assert withstand.state.damage == 12 and withstand.state.faces == (6, 6)
    assert [option.key for option in withstand.waits[0].options] == ["crest_0", "armor"]
    # 1 and 1 withstand 2 of the 12: 10 on Physique's 8 HP, and 2 for Bram to place.
    withstood = _answer(withstand, _fight(1, 1), "withstand", "armor")
    wounded = _of(withstood, Wounded)
    assert (wounded.damage, wounded.withstand, wounded.taken, wounded.stat) == (12, 2, 10, "Physique")
    assert PoolDelta(DEFENDER, "physique", -8) in withstood.effects
    assert StatePatch(DEFENDER, "depleted", ["Physique"]) in withstood.effects
    assert _keys(withstood) == ["attack.damage_total", "attack.losses"]
    overflow = _paused(withstood)
    assert overflow.stored_as == "overflow" and isinstance(overflow.state, Overflowing)
    assert (overflow.state.left, overflow.state.choices) == (2, ("Dexterity", "Intelligence", "Wit"))
    hurt = _applied(BRAM, withstood, DEFENDER)
    placed = _answer(overflow, _fight(defender=hurt), "overflow", "dexterity")
    assert placed.pause is None and placed.rolls == ()
    assert placed.effects == (PoolDelta(DEFENDER, "dexterity", -2),)
    assert _of(placed, Placed) == Placed(defender="Bram", losses={"Dexterity": 2}, lost=0, more=True)
    assert _keys(placed) == ["attack.overflow"]


def test_a_gm_rules_the_defender_helpless_and_the_hit_lands_on_the_stat_it_names() -> None:
    ruled = _answer(_paused(_attack()), _fight(), "defence_stat", "helpless", by=GM, forced=True)
    assert _of(ruled, Helpless).defender == "Bram" and ruled.rolls == ()
    which = _paused(ruled)
    assert which.stored_as == "helpless_stat"
    struck = _answer(which, _fight(3, 2), "helpless_stat", "wit")
    hit = _of(struck, Defended)
    assert (hit.hit, hit.stat, hit.defence_total) == (True, "Wit", None)
    withstand = _paused(struck)
    assert isinstance(withstand.state, Withstanding) and withstand.state.damage == 5
    # The crest's rank 2 and 1 and 1 withstand 4 of the 5: 1 on Wit.
    withstood = _answer(withstand, _fight(1, 1), "withstand", "crest_0")
    (roll,) = withstood.rolls
    assert roll.total == 4 and [modifier.value for modifier in roll.modifiers] == [2]
    assert withstood.pause is None and PoolDelta(DEFENDER, "wit", -1) in withstood.effects
    assert _keys(withstood) == ["attack.damage"]


def test_only_a_gm_rules_a_defender_helpless() -> None:
    with pytest.raises(RuleError) as refused:
        _answer(_paused(_attack()), _fight(), "defence_stat", "helpless", by=BRAM.owner_id)
    assert refused.value.code == "helpless_gm_only"


def test_another_player_takes_the_attack_for_a_destiny_point_and_answers_it() -> None:
    taken = _answer(_paused(_attack()), _fight(answerer=CHIYO), "intercept", "intercept", by=CHIYO.owner_id)
    assert _of(taken, Intercepted) == Intercepted(interceptor="Chiyo", defender="Bram", attacker="Aiko")
    assert taken.effects == (PoolDelta(ANSWERER, DESTINY, -1),)
    assert taken.cast == {DEFENDER: (CHIYO.id,)}
    pause = _paused(taken)
    assert pause.stored_as == "defence_stat" and [wait.key for wait in pause.waits] == ["defence_stat"]
    assert _keys(taken) == ["attack.intercepted"]


def test_neither_the_attacker_nor_a_defender_intercepts_the_attack() -> None:
    for answerer in (AIKO, BRAM):
        with pytest.raises(RuleError) as refused:
            _answer(_paused(_attack()), _fight(answerer=answerer), "intercept", "intercept")
        assert refused.value.code == "intercept_own"


def test_a_cancelled_attack_no_one_defended_gives_its_attack_roll_back() -> None:
    attacker = replace(AIKO, state={"attacks": {"round": TURN.round_number, "count": 1}})
    scene = Scene(1, {ATTACKER: (attacker,), DEFENDER: (BRAM,)}, TURN, OPTIONS, FixedDice([]))
    pause = _paused(_attack())
    undone = PLAY.cancelled(scene, "attack", PLAY.resumes.state(pause.stored_as, pause.stored_state()))
    assert undone is not None
    assert undone.effects == (StatePatch(ATTACKER, "attacks", {"round": TURN.round_number, "count": 0}),)
    assert undone.outcomes == (Voided(name="Aiko"),)
    skill = _paused(_answer(pause, _fight(), "defence_stat", "physique"))
    assert PLAY.cancelled(scene, "attack", skill.state) is None


def test_every_paused_state_reads_back_from_what_is_stored_unchanged() -> None:
    attack = _paused(_attack())
    skill = _paused(_answer(attack, _fight(), "defence_stat", "physique"))
    reroll = _paused(_answer(skill, _fight(2, 1, 3), "defence_skill", "agility"))
    withstand = _paused(_answer(reroll, _fight(6, 6), "reroll", "keep"))
    overflow = _paused(_answer(withstand, _fight(1, 1), "withstand", "armor"))
    for pause in (attack, skill, reroll, withstand, overflow):
        stored = json.loads(json.dumps(pause.stored_state()))
        read = PLAY.resumes.state(pause.stored_as, stored)
        assert read == pause.state and type(read) is type(pause.state)
        assert read.model_dump(mode="json") == stored


def test_a_withstand_stored_before_the_states_were_typed_resumes_as_it_did() -> None:
    """The state as the named handlers kept it: a means without a form, the reroll's fields, the shared faces."""
    spec = {"stat": "Physique", "sides": 8, "modifiers": [["skill:Melee", 3]], "boons": 0, "banes": 0, "crits": True}
    defence = {**spec, "modifiers": [["skill:Agility", 2]]}
    stored = {
        "means": {"kind": "melee", "name": "Sword", "stat": "Physique", "skill": "Melee", "rating": 0,
                  "damage_type": "slashing"},
        "spec": spec, "action": "melee|Sword", "current": 0, "attack": {"total": 12, "crit": None},
        "stat": "Physique", "defence": defence, "skill": "Agility", "defence_crit": None, "damage": 12,
        "faces": [6, 6],
    }  # fmt: skip
    withstood = PLAY.resumes.resume(_fight(1, 1), "withstand", stored, Answer("withstand", option="armor"))
    assert _of(withstood, Wounded).taken == 10
    overflow = _paused(withstood)
    assert isinstance(overflow.state, Overflowing) and overflow.state.defence is not None
    assert overflow.state.defence.modifiers[0].source == "skill:Agility"


def test_a_failed_check_rolled_again_for_a_destiny_point_succeeds() -> None:
    aiko = replace(AIKO, pools={**AIKO.pools, DESTINY: Pool(1, None)})
    params = PLAY.check_input.model_validate({"stat": "Physique", "skill": "Melee", "target": 10},
                                             context=PLAY.spelled)  # fmt: skip
    # 2 and 2 and 3 on the d8 keep 3 + 2, and Melee 3 makes 8: short of 10.
    failed = PLAY.check(_alone(ACTOR, aiko, 2, 2, 3), params)
    assert _of(failed, CheckRolled).success is False
    pause = _paused(failed)
    assert pause.stored_as == "check_reroll" and [option.key for option in pause.waits[0].options] == ["reroll", "keep"]
    # 5 and 4 and 6 keep 6 + 5: 14.
    again = _answer(pause, _alone(ACTOR, aiko, 5, 4, 6), "reroll", "reroll")
    assert _of(again, Rerolled) == Rerolled(name="Aiko")
    rolled = _of(again, CheckRolled)
    assert (rolled.total, rolled.success, rolled.rerolled) == (14, True, True)
    assert again.effects == (PoolDelta(ACTOR, DESTINY, -1),) and again.pause is None
    report = RENDERER.report(again.outcomes)
    assert _title(again) == "check.title"
    assert [(label.key, verdict) for label, verdict in report.fields] == [("check.target", Text("check.success"))]
    assert _keys(again) == ["check.rerolled"]


def _contest() -> Pause:
    """Aiko's Wit and Convince 1 against Bram: 3 and 3 and 4 on the d6 keep 4 + 3, and 1 makes 8."""
    params = PLAY.check_input.model_validate({"stat": "Wit", "skill": "Convince", "against": "Bram"},
                                             context=PLAY.spelled)  # fmt: skip
    step = PLAY.check(_alone(ACTOR, AIKO, 3, 3, 4, opponent=(BRAM,)), params)
    pause = _paused(step)
    assert pause.stored_as == "contest_stat" and [wait.key for wait in pause.waits] == ["contest_stat"]
    return _paused(_answer(pause, _alone(ACTOR, AIKO, opponent=(BRAM,)), "contest_stat", "wit"))


def test_an_opposed_checks_unusual_skill_waits_for_the_gms_and_granted_is_rolled() -> None:
    skill = _contest()
    assert skill.stored_as == "contest_skill" and isinstance(skill.state, ContestSkill) and skill.state.stat == "Wit"
    asked = _paused(_answer(skill, _alone(ACTOR, AIKO, opponent=(BRAM,)), "contest_skill", "lore", by=BRAM.owner_id))
    assert asked.stored_as == "contest_skill_request"
    assert isinstance(asked.state, ContestRequest) and asked.state.asked == "lore"
    # Lore 2 on 2 and 2 and 1: 4 + 2 = 6 against 8.
    granted = _answer(asked, _alone(ACTOR, AIKO, 2, 2, 1, opponent=(BRAM,)), "contest_skill_request", "grant", by=GM)
    decided = _of(granted, ContestDecided)
    assert (decided.total, decided.opposed, decided.skill, decided.won) == (8, 6, "Lore", True)
    assert _title(granted) == "contest.won"


def test_an_opposed_checks_skill_the_gms_refuse_is_asked_again_among_the_usual_ones() -> None:
    asked = _paused(_answer(_contest(), _alone(ACTOR, AIKO, opponent=(BRAM,)), "contest_skill", "lore"))
    refused = _paused(_answer(asked, _alone(ACTOR, AIKO, opponent=(BRAM,)), "contest_skill_request", "refuse", by=GM))
    assert refused.stored_as == "contest_skill" and isinstance(refused.state, ContestSkill)
    assert "lore" not in [option.key for option in refused.waits[0].options]
    assert {"agility", "convince", "no_skill"} <= {option.key for option in refused.waits[0].options}


def test_a_heal_waits_for_the_pool_it_goes_on_and_fills_it() -> None:
    bram = replace(BRAM, pools={**BRAM.pools, "physique": Pool(3, 8), "dexterity": Pool(2, 6)})
    step = healing.heal(_alone(ACTOR, bram), 5, OPTIONS)
    pause = _paused(step)
    assert pause.stored_as == "heal_pool" and pause.state == HealPlacing(left=5)
    assert [option.key for option in pause.waits[0].options] == ["physique", "dexterity"]
    healed = _answer(pause, _alone(ACTOR, bram), "heal_pool", "physique")
    assert healed.effects == (PoolDelta(ACTOR, "physique", 5),) and healed.pause is None
    assert _keys(healed) == ["heal.recovered"]


@pytest.mark.parametrize("option", ["approve", "deny"])
def test_a_narrative_destiny_point_waits_for_the_gms(option: str) -> None:
    pause = _paused(PLAY.request_destiny(_alone(ACTOR, BRAM), "combine_action", "a leap", BRAM.owner_id))
    assert pause.stored_as == "destiny_approval"
    decided = _answer(pause, _alone(ACTOR, BRAM), "destiny_approval", option, by=GM)
    if option == "deny":
        assert decided.outcomes == (DestinyDenied(name="Bram", use="combine_action"),) and decided.effects == ()
        return
    spent = _of(decided, DestinySpent)
    assert (spent.use, spent.note, spent.approved_by) == ("combine_action", "a leap", GM)
    assert decided.effects == (PoolDelta(ACTOR, DESTINY, -1),)
    assert RENDERER.report(decided.outcomes).notes == ()


def test_the_log_reads_an_attacks_events_by_their_stored_fields() -> None:
    hit = Defended(attacker="Aiko", defender="Bram", stat="Wit", skill=None, attack_total=12, defence_total=None,
                   hit=True, maxed=False, crit=None)  # fmt: skip
    line = RENDERER.log_line(hit.event, hit.model_dump(mode="json"))
    assert line is not None and line.key == "event.attack.hit"
    placed = Placed(defender="Bram", losses={"Physique": 8}, lost=0, more=False)
    line = RENDERER.log_line(placed.event, placed.model_dump(mode="json"))
    assert line is not None and line.key == "event.attack.placed"
    assert RENDERER.log_line("attack.consequence", {"level": BRAM.pools[CONSEQUENCE].current + 1}) is not None
