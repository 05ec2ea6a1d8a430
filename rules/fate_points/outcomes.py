"""What each Fate/Points rule reports, typed: the bot renders these and logs them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from rules.fate_points.model import Stat, WeaponType

Fate = Literal["dead", "down"]
LimitedBy = Literal["compatibility", "master_mana", "room"]


class RuleResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DamageTerms(RuleResult):
    """R10's terms of a hit's damage, as the post adds them up: the weapon's base (times `multiplier` for a Servant
    hitting a human, alone or with the rest as `multiplied`), the attack stat, the attacker's bonuses and critical die,
    the defender's END and its own abilities' modifier (`taken`)."""

    weapon: WeaponType
    base: int
    stat: int
    bonus: int = 0
    crit: int = 0
    multiplier: int = 1
    multiplied: Literal["base", "all"] = "all"
    armour: int
    taken: int = 0


class DefenceResult(RuleResult):
    """R6-R11: the defender's answer and the hit. `defence_score`, `defence_stat` and `weapon` are None
    without a defence roll; `parry_bonus_round` is set by a successful parry. `damage_terms` is None without R10's
    formula (a miss, a null hit, a GM's NP damage) and in events stored before it was kept."""

    choice: str
    attack_score: int
    defence_score: int | None = None
    auto_hit: bool
    staggered: bool = False
    repeat_penalty: int = 0
    carry: int = 0
    parry_bonus_round: int | None = None
    defence_stat: Stat | None = None
    weapon: WeaponType | None = None
    mana_cost: int = 0
    hit: bool = False
    damage: int = 0
    null_damage: bool = False
    crit_bonus: int = 0
    np_no_effect: bool = False
    defender_fate: Fate | None = None
    damage_terms: DamageTerms | None = None


class TransferResult(RuleResult):
    """R12: `limited_by` names the cap that cut the request, None if none did."""

    amount: int
    requested: int
    limited_by: LimitedBy | None
    round: int


class DrawResult(RuleResult):
    """R13: Mad Enchantment's draw; `wasted` did not fit in the Servant's pool."""

    drawn: int
    gained: int
    wasted: int


class ReplenishResult(RuleResult):
    hours: int
    gained: int
    master_paid: int


class RestResult(RuleResult):
    restored: int


class RegenResult(RuleResult):
    healed: int
    cost: int
    fate: Fate | None


class ActivationResult(RuleResult):
    name: str
    cost: int
    fate: Fate | None


class FateSpendResult(RuleResult):
    """R19: the effect the Master's next roll carries: `{"roll_vs_servant": True}` or `{"boost": STAT}`,
    with `granted_round` and `duration`."""

    use: str
    effect: dict[str, Any]
