"""A ruleset's names (stats, skills) as a player may type them, in any of its catalogs' languages and any case:
the `Spelling` the bot hands the rules (rules.words)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

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


class CatalogSpelling:
    """Names as a ruleset's catalogs word them (`awareness`, `察知`), read as the rules write them."""

    def __init__(self, catalogs: Traversable) -> None:
        self._folder = str(catalogs)

    def __call__(self, kind: str, names: tuple[str, ...], value: object) -> object:
        if isinstance(value, str):
            return names_in_every_language(self._folder, kind, names).get(value.strip().casefold(), value)
        return value
