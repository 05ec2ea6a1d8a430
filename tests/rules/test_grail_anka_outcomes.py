"""The anka game's steps say what happened as data (names and numbers), and its renderer words them as the table
reads them: the same catalog lines, and a log that reads in each reader's language, older logs too."""

from __future__ import annotations

from typing import Any

from bot.i18n import Translator
from rules.dice.source import SeededDice
from rules.exchange import Answer, Commit, Outcome, Step, Text, member
from rules.grail_anka import checks, fight, outcomes, turn_steps
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.outcomes import (
    BattleBegun,
    Checked,
    DecisionRevealed,
    DecisionsCommitted,
    MasterlessFrozen,
    ParamPicked,
    Recovered,
    ThirdParam,
    TurnEnded,
    Vanished,
)
from rules.grail_anka.play import GrailAnkaPlay, gm_check
from rules.grail_anka.render import EVENTS, AnkaRenderer
from rules.play import EVERYONE, CharacterSnapshot, CommitmentSnapshot, Pool, Scene, SideSnapshot, Turn
from tests.rules.logged import logged_line

PARAMS = {"str": 10, "end": 10, "agi": 10, "mag": 10, "luk": 10, "np": 10}
RENDERER = AnkaRenderer()
PLAY = GrailAnkaPlay()


def _servant(number: int, name: str, fatigue: int, **bound: CharacterSnapshot) -> CharacterSnapshot:
    return CharacterSnapshot(
        number,
        name,
        "servant",
        1,
        {"file": {"name": name, "params": PARAMS}},
        {fight.FATIGUE: Pool(fatigue, None)},
        {},
        bound_to={relation: (to,) for relation, to in bound.items()},
    )


def _resumed(scene: Scene, step: Step, answer: Answer) -> Step:
    assert step.pause is not None
    return PLAY.resumes.resume(scene, step.pause.stored_as, step.pause.stored_state(), answer)


def _keys(step: Step) -> list[str]:
    report = RENDERER.report(step.outcomes)
    return [text.key for text in (*((report.title,) if report.title else ()), *report.notes)]


def test_a_battles_picks_are_the_sides_and_parameters_the_third_drawn_with_its_roll() -> None:
    fighters = (_servant(1, "Saber", 0), _servant(2, "Lancer", 0))
    sides = {"a": SideSnapshot(1, "Dawn", ()), "b": SideSnapshot(2, "Dusk", ())}
    scene = Scene(
        1,
        {fight.FIGHTER: fighters},
        Turn(1, False, 1, 1, 1),
        GrailAnkaOptions(random_param_source="server_rng"),
        SeededDice(5),
        sides,
    )
    begun = fight.begin(scene, "a", None, [("a", "main"), ("b", "main")])
    (opened,) = begun.outcomes
    assert isinstance(opened, BattleBegun)
    assert (opened.first, opened.second, opened.home) == ("Dawn", "Dusk", None)
    assert [(f.side, f.main, f.subs) for f in opened.formations] == [
        ("Dawn", ("Saber",), ()),
        ("Dusk", ("Lancer",), ()),
    ]
    first = _resumed(scene, begun, Answer("pick", option="str"))
    assert first.outcomes == (ParamPicked(side="Dawn", param="str"),)
    second = _resumed(scene, first, Answer("pick", option="np"))
    picked, third = second.outcomes[:2]
    (roll,) = second.rolls
    assert picked == ParamPicked(side="Dusk", param="np")
    assert third == ThirdParam(param=("end", "agi", "mag", "luk")[roll.total - 1], drawn=True)
    report = RENDERER.report(second.outcomes[:2])
    assert [note.key for note in report.notes] == ["anka.param_picked", "anka.third_param"]
    assert report.rolls_before == Text("anka.third_param", {"param": Text(f"anka.param.{third.param}")})


def test_a_gms_check_commits_then_reads_its_value_against_its_rate() -> None:
    scene = Scene(7, {}, Turn(1, False, 1, 1, 1), GrailAnkaOptions(), SeededDice(11))
    asked = gm_check(scene, 40, Text("anka.purpose.check", {"purpose": "Climb the wall"}))
    (opened,) = asked.outcomes
    assert isinstance(opened, DecisionsCommitted)
    (decision,) = opened.decisions
    assert (decision.rate, decision.purpose.said) == (40, "Climb the wall")
    assert _keys(asked) == ["anka.decisions_opened", "anka.decision_committed_at"]
    (commit,) = [effect for effect in asked.effects if isinstance(effect, Commit)]
    assert commit.key == decision.id and commit.digest == decision.digest
    known = {commit.key: CommitmentSnapshot(commit.key, commit.digest, commit.secret, commit.nonce, False)}
    read = _resumed(
        Scene(7, {}, scene.turn, scene.options, SeededDice(11), commitments=known),
        asked,
        Answer("anchor", value=63, by=5),
    )
    value = checks.value_of(int(commit.secret), 63)
    verdict = checks.judge(value, 40)
    revealed = next(outcome for outcome in read.outcomes if isinstance(outcome, DecisionRevealed))
    checked = next(outcome for outcome in read.outcomes if isinstance(outcome, Checked))
    assert (revealed.anchor, revealed.value, revealed.secret) == (63, value, commit.secret)
    assert (checked.of, checked.value, checked.rate, checked.said) == ("gm", value, 40, "Climb the wall")
    assert checked.reading == (
        "critical" if verdict.critical else "fumble" if verdict.fumble else "success" if verdict.success else "failure"
    )
    assert _keys(read)[-2:] == ["anka.decision_revealed", "anka.check_decided"]


def test_a_turns_end_tells_each_servants_fatigue_and_its_turns_without_a_master() -> None:
    master = CharacterSnapshot(
        10, "Rin", "master", 1, {"file": {"name": "Rin", "params": PARAMS}}, {fight.SEALS: Pool(3, 3)}, {}
    )
    dead = CharacterSnapshot(
        11,
        "Kirei",
        "master",
        1,
        {"file": {"name": "Kirei", "params": PARAMS}},
        {fight.SEALS: Pool(3, 3)},
        {fight.DEAD: True},
    )
    everyone = (_servant(1, "Archer", 4, master=master), _servant(2, "Lancer", 2, master=dead))
    bound = {f"{member(EVERYONE, index)}.{fight.MASTER_RELATION}": (boss,) for index, boss in enumerate((master, dead))}
    scene = Scene(
        1,
        {EVERYONE: everyone, **bound},
        Turn(1, False, 1, 6, 1),
        GrailAnkaOptions(),
        SeededDice(2),
        {"side0": SideSnapshot(1, "Dawn", tuple((c, "member") for c in everyone))},
    )
    ended = turn_steps.turn_ended(scene)
    assert ended.outcomes[0] == TurnEnded(turn=6)
    assert MasterlessFrozen(who="Lancer", turns=1, fatigue=2) in ended.outcomes
    assert Recovered(who="Archer", before=4, after=3) in ended.outcomes
    keys = _keys(ended)
    assert keys[0] == "anka.turn_ended"
    assert keys.index("anka.masterless_frozen") < keys.index("anka.turn_recovery")


def _logged(kind: str, payload: dict[str, Any], language: str) -> str:
    return logged_line("grail_anka", RENDERER, kind, payload, language)


def test_a_log_of_the_first_release_still_reads_its_lines() -> None:
    stored = {
        "key": "anka.vanished",
        "params": {"who": "Berserker"},
        "headline": False,
        "reads_roll": False,
        "rolls": [],
        "effects": [],
    }
    assert RENDERER.log_line("anka.told", stored) == Text("anka.vanished", {"who": "Berserker"})
    assert _logged("anka.told", stored, "en").endswith(Translator("en", "grail_anka")("anka.vanished", who="Berserker"))


def test_an_events_data_reads_in_the_readers_language() -> None:
    payload = {**Vanished(who="Berserker").model_dump(mode="json"), "rolls": [], "effects": [], "exchange": 9}
    english, japanese = _logged(Vanished.event, payload, "en"), _logged(Vanished.event, payload, "ja")
    assert english.endswith(Translator("en", "grail_anka")("anka.vanished", who="Berserker"))
    assert japanese.endswith(Translator("ja", "grail_anka")("anka.vanished", who="Berserker"))
    assert english != japanese


def test_each_kind_of_outcome_is_an_event_of_its_own() -> None:
    kinds = [kind for kind in vars(outcomes).values() if isinstance(kind, type) and issubclass(kind, Outcome)]
    events = [kind.event for kind in kinds if kind is not Outcome]
    assert len(set(events)) == len(events) == len(EVENTS)
