"""Lists of localized parts as one text, and the names (stats, skills) a player types, as the rules write them.

The rules know their names only as they write them (`STR`, `magic_resistance`); the words a player may type for
them in any of the game's languages are the catalogs', which the bot reads and hands the rules as a `Spelling`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import ValidationInfo

from rules.exchange import Text

# The key of a validation context that carries the ruleset's `Spelling` to its inputs' validators.
SPELLING = "spelling"


class Spelling(Protocol):
    def __call__(self, kind: str, names: tuple[str, ...], value: object) -> object:
        """One of `names` (of a kind: `stat`, `skill`) from the words a player typed, in any language and case;
        anything else as typed."""
        ...


def as_the_rules_write(kind: str, names: tuple[str, ...], value: object) -> object:
    """The spelling without catalogs: a name in any case."""
    if isinstance(value, str):
        return {name.casefold(): name for name in names}.get(value.strip().casefold(), value)
    return value


def spelling_of(info: ValidationInfo) -> Spelling:
    """The spelling a validator reads names with: the one the bot passed in the validation context, else the rules'
    own names."""
    context = info.context
    found = context.get(SPELLING) if isinstance(context, dict) else None
    return found if found is not None else as_the_rules_write


def joined(parts: Sequence[Text | str], key: str = "list.items") -> Text | str:
    """Localized parts as one text, each language with its own separator (`key` joins `first` and `next`:
    `list.items` on one line, `list.comma` in a sentence, `list.lines` one per line)."""
    if not parts:
        return ""
    line = parts[0]
    for part in parts[1:]:
        line = Text(key, {"first": line, "next": part})
    return line
