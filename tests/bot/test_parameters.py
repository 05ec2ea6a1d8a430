"""A ruleset's own options for a shared command: parsed from `name:value` words, validated, suggested."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field

from bot.errors import SheetRefused
from bot.parameters import command_input, parse_details, suggestions
from rules.play import AttackInput


class Extra(AttackInput):
    attacks: int = Field(1, ge=1, le=10, description="param.attacks")
    rank: Literal["A", "B", "C"] | None = Field(None, description="param.rank")
    confirm: bool = Field(False, description="param.confirm")


GIVEN = {"targets": ("Rider",), "action": "melee|sword"}


def test_words_become_fields_and_a_bare_word_is_a_flag() -> None:
    assert parse_details("attacks:2  Rank:B confirm") == {"attacks": "2", "rank": "B", "confirm": "true"}
    assert parse_details(None) == {}
    made = command_input(Extra, AttackInput, GIVEN, "attacks:3 confirm")
    assert (made.attacks, made.rank, made.confirm, made.targets) == (3, None, True, ("Rider",))


@pytest.mark.parametrize(
    ("details", "problems"),
    [
        ("colour:red", [("colour", "unknown_detail")]),
        ("targets:Saber", [("targets", "unknown_detail")]),  # a shared option is not a detail
        ("colour:red attacks:0", [("colour", "unknown_detail"), ("attacks", "too_small")]),  # every one at once
        ("attacks:11", [("attacks", "too_large")]),
        ("attacks:0", [("attacks", "too_small")]),
        ("attacks:two", [("attacks", "wrong_type")]),
        ("rank:Z", [("rank", "invalid_choice")]),
        ("confirm:maybe", [("confirm", "wrong_type")]),
    ],
)
def test_every_bad_detail_is_named(details: str, problems: list[tuple[str, str]]) -> None:
    with pytest.raises(SheetRefused) as refused:
        command_input(Extra, AttackInput, GIVEN, details)
    assert [(problem.field, problem.code) for problem in refused.value.problems] == problems


def test_suggestions_complete_names_then_values() -> None:
    assert [value for value, _ in suggestions(Extra, AttackInput, "")] == ["attacks:", "rank:", "confirm"]
    assert suggestions(Extra, AttackInput, "ra") == [("rank:", "param.rank")]
    assert [value for value, _ in suggestions(Extra, AttackInput, "rank:")] == ["rank:A", "rank:B", "rank:C"]
    assert [value for value, _ in suggestions(Extra, AttackInput, "attacks:2 ")] == [
        "attacks:2 rank:", "attacks:2 confirm",
    ]  # fmt: skip
    assert suggestions(Extra, AttackInput, "attacks:4") == [("attacks:4", "param.attacks")]
