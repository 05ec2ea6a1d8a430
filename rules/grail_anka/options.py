"""Campaign options of the anka game: the spec's table T6 defaults."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rules.options import CampaignOptions


class GrailAnkaOptions(CampaignOptions):
    anchor_window_s: int = Field(600, ge=30, le=86_400)
    anchor_grace_s: int = Field(0, ge=0, le=3_600)
    anchor_fallback: Literal["wait", "gm", "bot_random"] = "wait"
    low_participation: bool = False
    batch_anchor: bool = False
    random_param_source: Literal["decision", "server_rng"] = "decision"
    first_side_rule: Literal["initiator", "random"] = "initiator"
    critical_fumble_all_checks: bool = False
    fatigue_scope: Literal["present_servants", "main_and_sub"] = "present_servants"
    np_priority_fatigue: bool = False
    max_turns: int | None = Field(None, ge=1, le=1_000)
