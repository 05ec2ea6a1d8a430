"""The exchange language: waits that cannot be answered are refused, and everything round-trips through JSON."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any, ClassVar, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.exchange import (
    Audience,
    Bind,
    Commit,
    Effect,
    JoinSide,
    Modifier,
    Note,
    Option,
    OptionGroup,
    Pause,
    PoolDelta,
    PoolMaximum,
    PoolSet,
    Resumption,
    Reveal,
    Roll,
    SidePatch,
    StatePatch,
    StateUpdate,
    Step,
    Summon,
    Text,
    UserRef,
    ValueRange,
    Wait,
    Whisper,
    effect_from_dict,
    effect_to_dict,
    member,
    parse_member,
)

PROMPT = Text("prompt", {"who": "Saber"})
YES, NO = Option("yes", Text("choice.yes")), Option("no", Text("choice.no"))


def _json(data: object) -> object:
    return json.loads(json.dumps(data))


def test_a_full_wait_round_trips_through_json() -> None:
    wait = Wait(
        "defence", Audience.character("defender"), Text("attack.prompt", {"attacker": "A", "n": 3}),
        (Option("block", Text("choice.block")), Option("parry_agi", Text("choice.parry_agi"), group="parry"),
         Option("parry_luk", Text("choice.parry_luk"), group="parry", summary=Text("done", {"x": Text("y")})),
         Option("take", Text("choice.take"), tone="secondary")),
        (OptionGroup("parry", Text("choice.parry"), Text("choice.parry.question")),),
        needs_all=True, value=ValueRange(1, 100), deadline_seconds=600, default="take",
        waiting_for=Text("wait.the_table"),
    )  # fmt: skip
    assert Wait.from_dict(_json(wait.to_dict())) == wait  # type: ignore[arg-type]


class _Held(Resumption):
    stored_as: ClassVar[str] = "held"


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda: Wait("w", Audience.gms(), PROMPT), "offers nothing"),
        (lambda: Wait("w", Audience.gms(), PROMPT, (YES, YES)), "twice"),
        (lambda: Wait("w", Audience.gms(), PROMPT, (Option("x", PROMPT, group="g"),)), "unknown group"),
        (lambda: Wait("w", Audience.gms(), PROMPT, (YES, NO), deadline_seconds=60), "needs a default"),
        (lambda: Wait("w", Audience.gms(), PROMPT, (YES, NO), default="yes"), "only a deadline"),
        (lambda: Wait("w", Audience.gms(), PROMPT, (YES, NO), deadline_seconds=60, default="maybe"), "not one of"),
        (lambda: Wait("w", Audience.gms(), PROMPT, value=ValueRange(1, 6), deadline_seconds=9, default="7"), "not one"),
        (lambda: Wait("Not a key", Audience.gms(), PROMPT, (YES,)), "short lowercase"),
        (lambda: Option("x:y", PROMPT), "short lowercase"),
        (lambda: Pause(_Held(), ()), "waits for something"),
        (lambda: Pause(_Held(), (Wait("w", Audience.gms(), PROMPT, (YES,)),) * 2), "its own key"),
    ],
)
def test_a_wait_that_cannot_be_answered_is_refused(build: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        build()  # type: ignore[operator]


def test_a_number_wait_takes_its_range_and_its_default() -> None:
    wait = Wait("anchor", Audience.side("second"), PROMPT, value=ValueRange(1, 100), deadline_seconds=60, default="7")
    assert wait.accepts_value("100") and wait.accepts_value("1")
    assert not wait.accepts_value("0") and not wait.accepts_value("101") and not wait.accepts_value("ten")


who = st.sampled_from(["attacker", "defender#2", "everyone#3.master", "first/0"])
words = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)
effects = st.one_of(
    st.builds(PoolDelta, who, words, st.integers(-99, 99)),
    st.builds(PoolSet, who, words, st.integers(0, 99)),
    st.builds(PoolMaximum, who, words, st.none() | st.integers(0, 99)),
    st.builds(StatePatch, who, words, st.none() | st.integers() | st.dictionaries(words, st.integers(), max_size=3)),
    st.builds(StateUpdate, who, st.dictionaries(words, st.integers(), max_size=3)),
    st.builds(Note, words, st.dictionaries(words, st.integers(), max_size=3)),
    st.builds(Commit, words, st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), words, words),
    st.builds(Reveal, words),
    st.builds(SidePatch, words, words, st.none() | st.integers() | st.lists(words, max_size=3)),
    st.builds(Bind, who, words, who, st.booleans()),
    st.builds(JoinSide, who, words),
    st.builds(Summon, who, words, st.dictionaries(words, words, max_size=3), st.dictionaries(words, st.integers())),
    st.builds(
        Whisper, who, st.builds(Text, words, st.dictionaries(words, st.builds(UserRef, st.integers()))), st.booleans()
    ),
)


@given(effects)
def test_every_effect_round_trips_through_json(effect: object) -> None:
    assert effect_from_dict(_json(effect_to_dict(effect))) == effect  # type: ignore[arg-type]


# One of each effect, as the database and the log have stored it since before effects were serialized by pydantic.
STORED: list[tuple[Effect, dict[str, Any]]] = [
    (PoolDelta("attacker", "hp", -3), {"type": "pool_delta", "who": "attacker", "pool": "hp", "delta": -3}),
    (PoolSet("defender#1", "prana", 4), {"type": "pool_set", "who": "defender#1", "pool": "prana", "value": 4}),
    (PoolMaximum("actor", "hp", None), {"type": "pool_maximum", "who": "actor", "pool": "hp", "maximum": None}),
    (
        StatePatch("actor", "fate", {"stat": "STR"}),
        {"type": "state_patch", "who": "actor", "key": "fate", "value": {"stat": "STR"}},
    ),
    (StateUpdate("actor", {"a": [1, 2]}), {"type": "state", "who": "actor", "state": {"a": [1, 2]}}),
    (SidePatch("first", "picks", None), {"type": "side_patch", "side": "first", "key": "picks", "value": None}),
    (
        Bind("actor", "master", "target", with_player=True),
        {"type": "bind", "who": "actor", "relation": "master", "to": "target", "with_player": True},
    ),
    (JoinSide("actor", "second"), {"type": "join_side", "who": "actor", "side": "second"}),
    (Note("fight.noted", {"round": 2}), {"type": "note", "kind": "fight.noted", "payload": {"round": 2}}),
    (Commit("pick", "ab", "3", "n"), {"type": "commit", "key": "pick", "digest": "ab", "secret": "3", "nonce": "n"}),
    (Reveal("pick"), {"type": "reveal", "key": "pick"}),
    (
        Summon("actor", "familiar", {"name": "Owl"}),
        {"type": "summon", "by": "actor", "kind": "familiar", "data": {"name": "Owl"}, "state": {}},
    ),
    (
        Whisper("actor", Text("heard", {"what": Text("noise")}), gms=True),
        {
            "type": "whisper",
            "who": "actor",
            "text": {"key": "heard", "params": {"what": {"key": "noise", "params": {}}}},
            "gms": True,
        },
    ),
]


def test_every_kind_of_effect_is_stored_as_it_was() -> None:
    assert {type(effect) for effect, _ in STORED} == set(get_args(Effect))
    for effect, stored in STORED:
        assert _json(effect_to_dict(effect)) == stored
        assert effect_from_dict(stored) == effect


def test_effects_read_only_mappings_are_stored_as_plain_ones() -> None:
    stored = effect_to_dict(StateUpdate("actor", MappingProxyType({"a": 1})))
    assert stored == {"type": "state", "who": "actor", "state": {"a": 1}} and type(stored["state"]) is dict


def test_the_log_never_sees_a_whispers_words() -> None:
    public = effect_to_dict(Whisper("actor", Text("heard"), gms=False), public=True)
    assert public == {"type": "whisper", "who": "actor", "gms": False}


def test_a_user_in_a_text_is_stored_by_id_and_an_older_mention_reads_as_it_was() -> None:
    text = Text("wait.answered", {"user": UserRef(42), "nobody": UserRef(None), "inner": Text("x", {"by": UserRef(7)})})
    stored = text.to_dict()
    assert stored["params"]["user"] == {"user": 42} and "<@" not in json.dumps(stored)
    assert Text.from_dict(_json(stored)) == text  # type: ignore[arg-type]
    older = {"key": "wait.answered", "params": {"user": "<@42>"}}
    assert Text.from_dict(older) == Text("wait.answered", {"user": "<@42>"})


class _Asked(Resumption):
    stored_as: ClassVar[str] = "asked"
    asked: Text


def test_a_text_in_a_state_is_stored_as_a_text_is() -> None:
    state = _Asked(asked=Text("request.and", {"a": Text("term.modifier", {"value": 2}), "by": UserRef(5)}))
    stored = state.model_dump(mode="json")
    assert stored == {"asked": state.asked.to_dict()}
    assert _Asked.model_validate(_json(stored)) == state


def test_the_log_never_sees_a_commitments_secret() -> None:
    public = effect_to_dict(Commit("secret", "ab" * 32, "42", "nonce"), public=True)
    assert public == {"type": "commit", "key": "secret", "digest": "ab" * 32}


def test_rolls_and_texts_round_trip() -> None:
    roll = Roll("attack", 20, (12,), (12,), (), 9)
    assert Roll.from_dict(_json(roll.to_dict())) == roll  # type: ignore[arg-type]
    text = Text("a", {"b": 1, "c": Text("d", {"e": "f"})})
    assert Text.from_dict(_json(text.to_dict())) == text  # type: ignore[arg-type]


def test_a_folded_roll_keeps_its_dice_and_result_and_sums_its_terms() -> None:
    roll = Roll("attack", 20, (12,), (12,), (Modifier("stat:STR", -7), Modifier("gm", 2)), 7, by="Heracles")
    assert Roll.from_dict(_json(roll.to_dict())) == roll  # type: ignore[arg-type]
    folded = roll.folded()
    assert (folded.dice, folded.total, folded.by) == ((12,), 7, "Heracles")
    assert folded.modifiers == (Modifier("sheet", -5),)
    assert Roll("damage", 6, (3,), (3,), (), 3).folded().modifiers == ()


def test_role_references() -> None:
    assert member("defender", 0) == "defender"
    assert member("defender", 2) == "defender#2"
    assert parse_member("defender#2") == ("defender", 2)
    assert parse_member("defender") == ("defender", 0)
    with pytest.raises(ValueError):
        parse_member("defender#x")


def test_steps_combine_in_order_and_keep_the_last_pause() -> None:
    pause = Pause(_Held(), (Wait("w", Audience.gms(), PROMPT, (YES,)),))
    first = Step(effects=(PoolDelta("a", "hp", -1),))
    second = Step(effects=(PoolDelta("b", "hp", -2),), pause=pause, cast={"defender": (3,)})
    combined = first.then(second)
    assert combined.effects == (PoolDelta("a", "hp", -1), PoolDelta("b", "hp", -2))
    assert combined.pause is pause
    assert combined.cast == {"defender": (3,)}
