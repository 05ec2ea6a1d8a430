"""What each Fate/Points step reports: typed, rendered by its renderer in the bot, logged by their `event`."""

from __future__ import annotations

from typing import Any, Literal

from rules.exchange import Outcome
from rules.fate_points.outcomes import (
    ActivationResult,
    DefenceResult,
    DrawResult,
    RegenResult,
    ReplenishResult,
    RestResult,
    TransferResult,
)


class CheckRolled(Outcome):
    event = "check"
    name: str
    stat: str
    modifier: int
    target: int | None
    score: int
    success: bool | None
    boosted: bool


class AttackDeclared(Outcome):
    event = "attack.declared"
    attacker: str
    defender: str
    action: str
    score: int
    crit: bool
    mana_cost: int
    auto_hit: bool
    round: int
    # The attacker's sheet is hidden by the GMs: what the attack cost would tell its rank.
    cost_kept: bool = False

    def sheet_secrets(self) -> frozenset[str]:
        return frozenset({"mana_cost"}) if self.cost_kept else frozenset()


class AttackFaded(Outcome):
    """A Servant paid its last prana for an attack and vanished before the blow (R18): nothing was rolled."""

    event = "attack.vanished"
    attacker: str
    defender: str
    action: str
    mana_cost: int


class AttackResolved(Outcome):
    event = "attack.resolved"
    attacker: str
    defender: str
    forced: bool
    result: DefenceResult
    # The round of a successful parry's bonus as players count it (the result keeps the campaign's round).
    parry_bonus_shown_round: int | None = None


class FateRequested(Outcome):
    event = "fate.requested"
    name: str
    use: str
    stat: str | None


class FateSpent(Outcome):
    """A Fate/Point spent; `approved_by` is the GM whose approval granted it (their decision already said so)."""

    event = "fate.spent"
    name: str
    use: str
    stat: str | None
    effect: dict[str, Any]
    approved_by: int | None = None


class FateDenied(Outcome):
    event = "fate.denied"
    name: str
    use: str
    stat: str | None


class PranaSpent(Outcome):
    """A line of the prana economy. `secret`: a character whose sheet the GMs hide takes part, and the amounts
    would tell its compatibility, its prana or a Noble Phantasm's rank, so only what happened is told."""

    secret: bool = False


class Transferred(PranaSpent):
    event = "fate.transfer"
    name: str
    result: TransferResult


class Regenerated(PranaSpent):
    event = "fate.regen"
    name: str
    result: RegenResult


class Activated(PranaSpent):
    event = "fate.activate"
    name: str
    result: ActivationResult
    lasts: Literal["round", "next_roll"]  # a fight's round, or outside a fight the next attack or defence roll
    # A Noble Phantasm's rank modifies no roll: what its activation gives is its attack, paid already.
    phantasm: bool = False


class Moved(Outcome):
    event = "fate.move"
    name: str


class Rested(PranaSpent):
    event = "fate.rest"
    name: str
    result: RestResult


class Replenished(PranaSpent):
    event = "fate.replenish"
    name: str
    result: ReplenishResult


class MadDraw(PranaSpent):
    event = "fate.mad_enchantment"
    name: str
    result: DrawResult


class PresenceSet(Outcome):
    event = "fate.presence"
    name: str
    present: bool


class PassiveSet(Outcome):
    event = "fate.passive"
    name: str
    enabled: bool


class PhantasmRuled(Outcome):
    event = "fate.np_ruling"
    name: str
    phantasm: str
    defences: str
    damage: int | None
    ruling: dict[str, Any]


class GodHandSet(Outcome):
    event = "fate.god_hand"
    name: str
    rank: str | None


class ExCostSet(Outcome):
    """The GM's mana cost for an EX rank (R16): of attacks at an EX stat, or of one EX Noble Phantasm."""

    event = "fate.ex_cost"
    name: str
    phantasm: str | None
    cost: int


class CompatibilitySet(Outcome):
    """The GM's modifier to a Master's compatibility (R1: "any modifiers the GM may have approved")."""

    event = "fate.compatibility"
    name: str
    modifier: int
    compatibility: int
