"""Campaign options in the reader's words, for every ruleset.

A ruleset's catalogs name its options (`option.<name>.name`), say what each does (`option.<name>.description`),
word their values (`option.<name>.value.<value>`; `true`, `false` and `none` are the shared `option.value.*`) and,
for a free text, what it takes (`option.<name>.values`). What a catalog does not word shows as the code names it.
A GM may type an option or a value by its words as well as by its code name.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from bot.i18n import Translator
from rules.options import NONE, CampaignOptions, WholeNumbers, accepted


def option_text(value: Any) -> str:
    """A stored value as it is typed (`true`, `none`, `wait`, `600`)."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def option_name(tr: Translator, name: str) -> str:
    key = f"option.{name}.name"
    return tr(key) if tr.has(key) else name


def option_description(tr: Translator, name: str) -> str | None:
    key = f"option.{name}.description"
    return tr(key) if tr.has(key) else None


def value_words(tr: Translator, name: str, typed: str) -> str:
    """A value, as typed, in words."""
    found = next((key for key in (f"option.{name}.value.{typed}", f"option.value.{typed}") if tr.has(key)), None)
    return tr(found) if found is not None else typed


def stored_words(tr: Translator, name: str, value: Any) -> str:
    return value_words(tr, name, option_text(value))


def accepted_words(tr: Translator, model: type[CampaignOptions], name: str) -> str:
    """What an option takes, in words: its catalog's description of a free text, else each value."""
    if tr.has(f"option.{name}.values"):
        return tr(f"option.{name}.values")
    return tr.either(
        [
            tr(
                "option.range",
                minimum="…" if one.minimum is None else one.minimum,
                maximum="…" if one.maximum is None else one.maximum,
            )
            if isinstance(one, WholeNumbers)
            else value_words(tr, name, one)
            for one in accepted(model, name)
        ]
    )


def _as_typed(text: str) -> str:
    """Text as compared with what a GM typed: an input method's full-width digits and letters as plain ones (NFKC),
    case and spaces aside."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def typed_option(tr: Translator, model: type[CampaignOptions], text: str) -> str:
    """The option a GM typed, by its code name or its words."""
    wanted = _as_typed(text)
    return next(
        (name for name in model.model_fields if wanted in (_as_typed(name), _as_typed(option_name(tr, name)))), text
    )


def typed_value(tr: Translator, model: type[CampaignOptions], name: str, text: str) -> str:
    """The value a GM typed, as typed or by its words, in any case: the words name `bcdice` "BCDice", and a GM
    types it so."""
    plain = unicodedata.normalize("NFKC", text).strip()  # full-width digits and letters as plain ones
    if name not in model.model_fields:
        return plain
    wanted = _as_typed(text)
    words = [one for one in accepted(model, name) if isinstance(one, str)]
    return next((one for one in words if wanted in (_as_typed(one), _as_typed(value_words(tr, name, one)))), plain)


@dataclass(frozen=True)
class OptionWords:
    """An option's name in a message, in its reader's words."""

    name: str

    def words(self, tr: Translator) -> str:
        return option_name(tr, self.name)


@dataclass(frozen=True)
class ValueWords:
    name: str
    typed: str

    def words(self, tr: Translator) -> str:
        return value_words(tr, self.name, self.typed)


@dataclass(frozen=True)
class AcceptedWords:
    model: type[CampaignOptions]
    name: str

    def words(self, tr: Translator) -> str:
        return accepted_words(tr, self.model, self.name)
