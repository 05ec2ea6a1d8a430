"""Part 2 R4: four actions per round, the Extra one standing in for any other."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.exchange import RuleError
from rules.fate_points import ACTIONS, ActionState, actions_in_round, use_action
from tests.rules.test_fate_points_support import refused


def test_a_fresh_round_has_all_four_actions() -> None:
    assert actions_in_round(None, 3) == ActionState(round=3, left=("attack", "move", "general", "extra"))
    spent = ActionState(round=2, left=("move",))
    assert actions_in_round(spent, 2) is spent
    assert actions_in_round(spent, 3).left == ACTIONS


def test_the_extra_action_stands_in_once() -> None:
    state, used = use_action(None, "general", 1)
    assert (used, state.left) == ("general", ("attack", "move", "extra"))
    state, used = use_action(state, "general", 1)
    assert (used, state.left) == ("extra", ("attack", "move"))
    with refused("action_used") as error:
        use_action(state, "general", 1)
    assert error.value.params == {"action": "general"}
    assert error.value.variant == "general"  # worded by the General action's own sentence
    # A new round restores everything.
    assert use_action(state, "general", 2)[0].left == ("attack", "move", "extra")


def test_the_extra_action_can_be_named() -> None:
    state, used = use_action(None, "extra", 1)
    assert (used, state.left) == ("extra", ("attack", "move", "general"))
    with refused("action_used"):
        use_action(state, "extra", 1)


def test_unknown_kinds_are_refused() -> None:
    with refused("unknown_action_kind") as error:
        use_action(None, "defence", 1)
    assert error.value.params == {"action": "defence"}


def test_the_state_round_trips_through_json() -> None:
    state, _ = use_action(None, "move", 4)
    assert ActionState.model_validate_json(state.model_dump_json()) == state
    assert ActionState.model_validate(state.model_dump(mode="json")) == state


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from((*ACTIONS, "dance")), st.booleans()), max_size=40))
def test_no_action_is_used_twice_in_a_round(calls: list[tuple[str, bool]]) -> None:
    """Any sequence of use_action calls, rounds only moving forward (`advance` starts the next round)."""
    state: ActionState | None = None
    round_number = 1
    spent: Counter[str] = Counter()  # spends in the current round
    for kind, advance in calls:
        if advance:
            round_number += 1
            spent.clear()
            # A new round restores all four, whatever the stored state says.
            assert actions_in_round(state, round_number).left == ACTIONS
        left_before = actions_in_round(state, round_number).left
        try:
            state, used = use_action(state, kind, round_number)
        except RuleError as error:
            if kind in ACTIONS:
                assert error.code == "action_used"
                assert kind not in left_before
                assert "extra" not in left_before
            else:
                assert error.code == "unknown_action_kind"
            continue
        assert used == kind or (used == "extra" and kind not in left_before)
        assert state.round == round_number
        spent[used] += 1
        assert spent[used] == 1  # attack, move, general at most once each, plus extra at most once
        assert sum(spent.values()) <= len(ACTIONS)
        assert set(state.left) == set(ACTIONS) - set(spent)
