"""An event's `/log show` line as a reader of a language reads it, rendered by a ruleset's renderer: for the
rulesets' tests of their log lines, without a database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.db.models import Event
from bot.i18n import Translator
from bot.render import log_line
from bot.services.log import LogEntry
from rules.play import Renderer


def logged_line(ruleset: str, renderer: Renderer, kind: str, payload: dict[str, Any], language: str) -> str:
    event = Event(
        id=3,
        campaign_id=1,
        kind=kind,
        payload=payload,
        actor_id=42,
        secret=False,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    return log_line(Translator(language, ruleset), LogEntry(event, False), renderer)
