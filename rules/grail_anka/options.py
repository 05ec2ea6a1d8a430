"""Campaign options of the anka game: the spec's table T6 defaults, and how long a side has to answer."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from rules.options import CampaignOptions

_SCALE_ENTRY = re.compile(r"^(EX|[A-E])(\d{1,3})$")


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
    rank_scale: str = Field("E10 D20 C30 B40 A50 EX60", examples=["E10 D20 C30 B40 A50 EX60"])
    rank_plus: int = Field(5, ge=0, le=100)
    max_turns: int | None = Field(None, ge=1, le=1_000)
    # Not in the source: how long a side has to use a skill or cancel one before the battle goes on without.
    response_minutes: int = Field(1_440, ge=1, le=20_160)

    @field_validator("rank_scale")
    @classmethod
    def _scale(cls, value: str) -> str:
        entries = value.upper().split()
        if not entries or any(_SCALE_ENTRY.match(entry) is None for entry in entries):
            raise ValueError("ranks and numbers such as E10 D20 C30 B40 A50 EX60")
        letters = [entry.rstrip("0123456789") for entry in entries]
        if len(set(letters)) != len(letters):
            raise ValueError("each rank once")
        return " ".join(entries)

    def rank_values(self) -> dict[str, int]:
        scale: dict[str, int] = {}
        for entry in self.rank_scale.split():
            found = _SCALE_ENTRY.match(entry)
            assert found is not None
            scale[found.group(1)] = int(found.group(2))
        return scale
