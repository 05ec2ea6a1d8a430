"""The steps every ruleset shares (a sheet's approval, a request of the GMs) pause with typed states, stored under
the names open waits of older releases keep."""

from __future__ import annotations

from bot.services.exchanges import SHARED_STEPS
from bot.services.held import SHEET_APPROVAL, Approving, approval_step, decide
from bot.services.requests import GM_REQUEST, Requesting, decided, request_step
from rules.exchange import Text

# A request of the GMs as an older release stored it, when its state was a plain dict.
STORED_REQUEST = {
    "kind": "check",
    "given": {"stat": "STR", "modifier": 20},
    "refused": {"stat": "STR", "modifier": 0},
    "by": 101,
    "name": "Rin",
    "asked": {"key": "term.modifier", "params": {"value": 20, "signed": "+20"}},
}


def test_each_shared_step_is_found_by_the_name_its_state_is_stored_under() -> None:
    assert set(SHARED_STEPS) == {SHEET_APPROVAL, GM_REQUEST} == {"sheet_approval", "gm_request"}
    assert SHARED_STEPS.step(SHEET_APPROVAL) is decide and SHARED_STEPS.step(GM_REQUEST) is decided


def test_a_request_stored_by_an_older_release_reads_as_its_typed_state_and_is_stored_again_as_it_was() -> None:
    state = SHARED_STEPS.state(GM_REQUEST, STORED_REQUEST)
    assert isinstance(state, Requesting)
    assert state.asked == Text("term.modifier", {"value": 20, "signed": "+20"}) and state.by == 101
    asked = request_step("Rin", "check", Text("check.what"), [state.asked], state.given, state.refused, 101)
    assert asked.pause is not None and isinstance(asked.pause.state, Requesting)
    assert asked.pause.stored_as == GM_REQUEST
    assert asked.pause.stored_state() == STORED_REQUEST


def test_a_held_sheet_keeps_nothing_but_its_name() -> None:
    held = approval_step("Lancer", ["`ex_stats`: AGI EX"])
    assert held.pause is not None and held.pause.state == Approving()
    assert (held.pause.stored_as, held.pause.stored_state()) == ("sheet_approval", {})
