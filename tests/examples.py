"""The rulesets' example files as the bot hands them out to an English reader: their names are catalog texts,
which the rules alone cannot word."""

from __future__ import annotations

from typing import Any

from bot.cogs.characters import worded
from bot.i18n import ENGLISH, Translator
from bot.rulesets.registry import RULESETS
from rules.crest_magia import play as crest_magia
from rules.fate_points import play as fate_points


def in_english(ruleset: str, template: dict[str, Any]) -> dict[str, Any]:
    assert ruleset in RULESETS
    named: dict[str, Any] = worded(Translator(ENGLISH, ruleset), template)
    return named


CREST_MAGIA = in_english(crest_magia.RULESET_ID, crest_magia.TEMPLATE)
FATE_MASTER = in_english("fate_points", fate_points.MASTER_TEMPLATE)
FATE_SERVANT = in_english("fate_points", fate_points.SERVANT_TEMPLATE)
