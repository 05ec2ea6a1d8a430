"""A rule system as the bot knows it: its rules' `Play` (see rules.play), the renderer of its outcomes, its options,
catalogs, commands and bench."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources.abc import Traversable

from bot.rulesets.bench import BenchExchange
from rules.options import CampaignOptions
from rules.play import Play, Renderer


@dataclass(frozen=True)
class Ruleset:
    """A rule system a campaign can be bound to. `catalogs` is the folder of its `en.json`, `zh-CN.json` and
    `ja.json`; `extension` the module of its own commands; `play` None until its mechanics are built."""

    id: str
    options_model: type[CampaignOptions]
    catalogs: Traversable
    play: Play | None = None
    renderer: Renderer = field(default_factory=Renderer)
    extension: str | None = None
    # Catalog values rightly the same in every language (names, notation).
    proper_noun_keys: frozenset[str] = frozenset()
    bench: BenchExchange | None = None

    @property
    def name_key(self) -> str:
        """Its name's key in the merged catalogs (its own catalog's `ruleset.<id>`)."""
        return f"{self.id}:ruleset.{self.id}"
