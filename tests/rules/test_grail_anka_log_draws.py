"""The anka game's log lines tell the server's dice of the step an event opened (a side, a parameter or an anchor
drawn), in every language; an event stored without them reads as before."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import bot.rulesets.registry  # noqa: F401  (merges the rulesets' catalogs with the shared one)
from bot.db.models import Event
from bot.i18n import LANGUAGES, Translator
from bot.render import log_line
from bot.services.log import LogEntry
from rules.exchange import Roll
from rules.grail_anka import outcomes
from rules.grail_anka.render import AnkaRenderer

PICKED = outcomes.ParamPicked(side="Church", param="end")
THIRD = Roll("third_param", 4, (4,), (4,), (), 4)


def _line(language: str, payload: dict[str, Any]) -> str:
    event = Event(id=3, campaign_id=1, kind=PICKED.event, payload=payload, actor_id=42, secret=False,
                  created_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip
    return log_line(Translator(language, "grail_anka"), LogEntry(event, False), AnkaRenderer()).split(" ", 2)[2]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_die_that_drew_the_third_parameter_is_in_the_log(language: str) -> None:
    words = Translator(language, "grail_anka")
    line = _line(language, {**PICKED.model_dump(), "rolls": [THIRD.to_dict()], "effects": []})
    assert line.startswith(words("anka.param_picked", side="Church", param=words("anka.param.end")))
    assert f"{words('roll.label.third_param')}" in line and "1d4 [4]" in line


def test_an_event_stored_without_rolls_reads_as_before() -> None:
    assert _line("en", PICKED.model_dump()) == Translator("en", "grail_anka")(
        "anka.param_picked", side="Church", param="END"
    )
