"""Campaign options of Crest Magia: the spec's §5 defaults (decisions C1-C30)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rules.options import CampaignOptions


class CrestMagiaOptions(CampaignOptions):
    max_bb_dice: int | None = Field(None, ge=1, le=20)
    npc_crits: bool = False
    dp_reroll_any_roll: bool = False
    defender_boons: bool = False
    crit_success_autopasses: bool = True
    crit_on_withstand: bool = False
    crit_resist_die: Literal["1", "rolled"] = "1"
    crest_rank_on_action_rolls: bool = False
    specialty_requires_rank1: bool = False
    overflow_triggers_consequence: bool = False
    d4_until: Literal["any_hp", "full_hp"] = "any_hp"
    dp_restore: Literal["full_pool", "half_pool"] = "full_pool"
    dp_session_start: int = Field(1, ge=0, le=10)
    # R1/R6: another stat or skill than the attack's usual one needs a GM's agreement, unless this is on.
    free_stat_choice: bool = False
    # C19's house default: a heal without an amount rolls 2d6 + the healer's healing crest rank (or Medicine).
    house_healing: bool = True
    # R5: in a fight, players act on their own turn (acting out of turn costs a Destiny Point).
    own_turn_only: bool = True
    # Ours, for play by post: how long a roll nothing else resolves (a check, a critical failure) stays open
    # to a Destiny Point reroll, and how long a boon a player asks for waits for the GMs.
    dp_reroll_minutes: int = Field(60, ge=1, le=10080)
    boon_request_minutes: int = Field(60, ge=1, le=10080)
