"""A ruleset's names (stats, skills) as a player may type them, in any of its catalogs' languages and any case;
and lists of localized parts as one text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from rules.exchange import Text

CATALOG_LANGUAGES = ("en", "ja", "zh-CN")


@cache
def names_in_every_language(folder: str, kind: str, names: tuple[str, ...]) -> Mapping[str, str]:
    """Each name as the rules write it, by its own spelling and by its catalog entry `kind.name` in every language
    of the catalogs in `folder`, casefolded."""
    found = {name.casefold(): name for name in names}
    for language in CATALOG_LANGUAGES:
        words = json.loads(Path(folder).joinpath(f"{language}.json").read_text(encoding="utf-8"))
        found.update({words[f"{kind}.{name}"].casefold(): name for name in names if f"{kind}.{name}" in words})
    return found


def as_written(catalogs: Traversable, kind: str, names: tuple[str, ...], value: object) -> object:
    """A name a player typed (`awareness`, `察知`) as the rules write it; anything else as typed."""
    if isinstance(value, str):
        return names_in_every_language(str(catalogs), kind, names).get(value.strip().casefold(), value)
    return value


def joined(parts: Sequence[Text | str], key: str = "list.items") -> Text | str:
    """Localized parts as one text, each language with its own separator (`key` joins `first` and `next`:
    `list.items` on one line, `list.comma` in a sentence, `list.lines` one per line)."""
    if not parts:
        return ""
    line = parts[0]
    for part in parts[1:]:
        line = Text(key, {"first": line, "next": part})
    return line
