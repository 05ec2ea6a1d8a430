"""The four rule systems a campaign can be bound to, by their fixed ids."""

from __future__ import annotations

from dataclasses import dataclass

from bot.rulesets.fate_points import FatePointsPlay
from bot.rulesets.play import Play
from rules.crest_magia.options import CrestMagiaOptions
from rules.fate_points.options import FatePointsOptions
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_zh.options import GrailZhOptions
from rules.options import CampaignOptions


@dataclass(frozen=True)
class Ruleset:
    id: str
    options_model: type[CampaignOptions]
    # Characters, checks and attacks; None until the ruleset's mechanics are built.
    play: Play | None = None

    @property
    def name_key(self) -> str:
        return f"ruleset.{self.id}"


RULESETS: dict[str, Ruleset] = {
    ruleset.id: ruleset
    for ruleset in (
        Ruleset("fate_points", FatePointsOptions, FatePointsPlay()),
        Ruleset("grail_zh", GrailZhOptions),
        Ruleset("crest_magia", CrestMagiaOptions),
        Ruleset("grail_anka", GrailAnkaOptions),
    )
}
