"""Rendering the log stays robust to what older events hold."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.db.models import Event
from bot.i18n import Translator
from bot.render import log_line
from bot.services.log import LogEntry
from rules.exchange import Text, UserRef


def _event(kind: str, payload: dict[str, object], *, secret: bool = False) -> Event:
    return Event(id=7, campaign_id=1, kind=kind, payload=payload, actor_id=42, secret=secret,
                 created_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip


def test_a_roll_lists_its_expression_and_total() -> None:
    line = log_line(Translator("en"), LogEntry(_event("roll", {"expression": "2d6", "label": None, "total": 8}), False))
    assert line == "`#7` <t:1767225600:f> <@42> rolled `2d6` (no label): **8**"


def test_a_redacted_secret_roll_hides_its_result() -> None:
    event = _event("roll", {"expression": "1d20", "label": "Sneak", "total": 20}, secret=True)
    assert log_line(Translator("en"), LogEntry(event, True)).endswith("<@42> made a secret roll (Sneak)")


def test_an_event_missing_a_field_is_still_listed_by_kind() -> None:
    line = log_line(Translator("ja"), LogEntry(_event("combat.started", {}), False))
    assert line.endswith("`combat.started`")


def test_a_user_in_a_text_is_mentioned_as_a_mention_stored_by_an_older_release_reads() -> None:
    tr = Translator("en")
    stored = Text.from_dict(Text("wait.cancelled", {"user": UserRef(42)}).to_dict())
    assert tr.text(stored) == "Cancelled by <@42>."
    assert tr.text(Text.from_dict({"key": "wait.cancelled", "params": {"user": "<@42>"}})) == "Cancelled by <@42>."
    assert tr.text(Text("wait.answered", {"who": UserRef(None), "choice": Text("wait.value", {"value": 3})})) == (
        "— answered: 3."
    )
