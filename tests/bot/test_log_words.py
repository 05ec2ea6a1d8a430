"""Shared log lines show stored values in the reader's words: yes and no, nothing, languages by name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.db.models import Event
from bot.i18n import Translator
from bot.render import fall_line, log_text
from bot.services.log import Fall, LogEntry


def _entry(kind: str, payload: dict[str, Any]) -> LogEntry:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    event = Event(id=3, campaign_id=1, kind=kind, payload=payload, actor_id=42, secret=False, created_at=moment)
    return LogEntry(event, redacted=False)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "`magical` of Rin: no → yes"),
        ("zh-CN", "Rin 的 `magical`：否 → 是"),
        ("ja", "Rin の `magical` を変更：いいえ → はい"),
    ],
)
def test_a_sheets_yes_or_no_reads_as_words(language: str, expected: str) -> None:
    edited = _entry("character.edited", {"name": "Rin", "field": "magical", "old": False, "new": True, "by_gm": True})
    assert log_text(Translator(language), edited).endswith(expected)


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "the server's language → 日本語"), ("zh-CN", "服务器的语言 → 日本語"), ("ja", "サーバーの言語 → 日本語")],
)
def test_a_campaigns_language_reads_by_name(language: str, expected: str) -> None:
    assert log_text(Translator(language), _entry("campaign.language", {"old": None, "new": "ja"})).endswith(expected)


def test_an_empty_value_reads_as_a_word() -> None:
    """Any shared or ruleset line with a parameter stored as nothing (a summoner since gone, say)."""
    text = log_text(Translator("ja"), _entry("character.summoned", {"name": "Wolf", "by": None}))
    assert "None" not in text and Translator("ja")("log.nothing") in text


def test_a_fall_reads_as_its_fate_or_out_of_play() -> None:
    tr = Translator("zh-CN")
    assert fall_line(tr, Fall("Rider", "down")) == "Rider 倒下"
    assert fall_line(tr, Fall("Rider", "sealed")) == tr("recap.fell", name="Rider")
