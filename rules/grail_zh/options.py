"""Campaign options of the Chinese d20 game: every decision of §5 marked as a GM option."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rules.options import CampaignOptions


class GrailZhOptions(CampaignOptions):
    mag_adjust: Literal["sum", "best", "mp_attrs"] = "sum"
    ex_value: int = Field(6, ge=6, le=10)
    masterless_rule: Literal["vanish", "drain"] = "vanish"
    round_seconds: int = Field(6, ge=1, le=60)
    ranged_die_stat: Literal["STR", "AGI"] = "STR"
    minds_eye_compare: Literal["attack_roll", "final_total"] = "attack_roll"
    opportunity_cap: int | None = Field(None, ge=1, le=10)
    plus_mode: Literal["linear", "pow2"] = "linear"
    ritual_ordinary_only: bool = False
    dying_rounds: int = Field(0, ge=0, le=10)
    sniper_range: int | None = Field(None, ge=10, le=1_000)
    aim_cap: int | None = Field(None, ge=1, le=20)
    aim_action: Literal["standard", "move", "minor"] = "standard"  # D38: the action a round of aim takes
    action_downgrade: bool = False
    defend_until_next_turn: bool = True
    upkeep_before_boost: bool = True
    one_shot_save_half: bool = False
    shield_upkeep_mp_per_minute: int = Field(1, ge=0, le=10)
    # D17: a Servant's forced costs (upkeep) draw on its Master's MP when its own would not cover them.
    auto_transfer: bool = True
    # Ours, for play by post: how long a hit stays open for reactions (Mind's Eye, Guard) before it lands.
    reaction_minutes: int = Field(60, ge=1, le=10_080)
