"""Campaign options of Fate/Points: the spec's §5 defaults (decisions A1-A40)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rules.options import CampaignOptions


class FatePointsOptions(CampaignOptions):
    score_floor: int | None = Field(1, ge=1, le=20)
    master_stat_budget: int = Field(15, ge=5, le=25)
    ex_default: int = Field(6, ge=6, le=10)
    stat_die_mode: Literal["dN", "d2N"] = "dN"
    crit_on: Literal["natural", "final"] = "natural"
    repeat_def_mod: int = Field(2, ge=-5, le=5)
    repeat_stacks: bool = True
    ranged_block_stat: Literal["STR", "AGI"] = "STR"
    shield_dodge_mod: int = Field(0, ge=-5, le=5)
    unarmed_base: int = Field(0, ge=0, le=10)
    shield_base: int = Field(0, ge=0, le=10)
    human_mult: int = Field(10, ge=1, le=100)
    human_mult_scope: Literal["base_only", "attack_total"] = "base_only"
    master_weapon_base: bool = True
    master_wmod_scope: Literal["all", "master_vs_master"] = "all"
    fp_lifts_null_damage: bool = True
    servant_points_mode: Literal["rank_steps", "roll_mods"] = "rank_steps"
    master_defends_if_servant_present: bool = True
    passive_regen_costs_master: bool = True
    np_replaces_attack_cost: bool = True
    regen_mana_per_hp: int = Field(4, ge=1, le=100)
    fp_initial: int = Field(0, ge=0, le=20)
    fp_per_session: int | None = Field(None, ge=0, le=20)
    fp_duration: Literal["roll", "round", "scene"] = "roll"
    fp_needs_gm_ok: bool = True
    # In a fight, a character attacks and takes its actions on its own turn in the order the GM set (A13);
    # defences are reactions (A12) and GMs act for anyone. Off, anyone acts at any moment of the round.
    own_turn_only: bool = True
