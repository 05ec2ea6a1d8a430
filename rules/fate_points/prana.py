"""Mana between a Master and a Servant (R12-R14), the Master's rest, and spending mana (R16 activation, R17 regen).

Pair operations name the two pools "master" and "servant" in their effects; a character's own spend is
"actor". Nothing here rolls dice. The bot checks the action (R4 `use_action`: transfer, activation and
in-combat regeneration are General actions) and records the round of a transfer (`outcome.round`;
Mad Enchantment uses up that round's transfer too, A19).
"""

from __future__ import annotations

from rules.exchange import PoolDelta, Resolution, RuleError
from rules.fate_points.model import Kind, require_mana
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.outcomes import (
    ActivationResult,
    DrawResult,
    LimitedBy,
    RegenResult,
    ReplenishResult,
    RestResult,
    TransferResult,
)


def _room(servant_mana: int, servant_max: int) -> int:
    """How much mana the Servant can still hold: its pool is capped at its prana stat."""
    return max(0, servant_max - servant_mana)


def _deltas(*deltas: PoolDelta) -> tuple[PoolDelta, ...]:
    """Zero changes are left out, so the bot writes (and the log shows) only pools that move."""
    return tuple(delta for delta in deltas if delta.delta != 0)


def transfer_mana(
    compatibility: int,
    master_mana: int,
    servant_mana: int,
    servant_max: int,
    amount: int,
    used_round: int | None,
    round_number: int,
) -> Resolution[TransferResult]:
    """R12: the one voluntary transfer of the round, from the Master's pool to the Servant's (A37).

    The amount is the request capped by compatibility, the Master's mana and the room the Servant has;
    `limited_by` names the cap that cut the request (the first of them on a tie), None if none did.
    `used_round` is the round of the pair's last transfer (or Mad Enchantment draw).
    """
    if amount < 1:
        raise RuleError("invalid_amount", amount=amount)
    if used_round == round_number:
        raise RuleError("transfer_used", round=round_number)
    caps: dict[LimitedBy, int] = {
        "compatibility": max(0, compatibility),
        "master_mana": max(0, master_mana),
        "room": _room(servant_mana, servant_max),
    }
    moved = min(amount, *caps.values())
    if moved == 0:
        raise RuleError("nothing_to_transfer")
    limited_by = next((cap for cap, limit in caps.items() if limit == moved), None) if moved < amount else None
    return Resolution(
        effects=(PoolDelta("master", "prana", -moved), PoolDelta("servant", "prana", moved)),
        outcome=TransferResult(amount=moved, requested=amount, limited_by=limited_by, round=round_number),
    )


def mad_enchantment_draw(
    compatibility: int, master_mana: int, servant_mana: int, servant_max: int
) -> Resolution[DrawResult]:
    """R13/A19: a mad Servant draws the full compatibility (capped by the Master's mana) at each of its turns.

    The Master pays all of it; what does not fit in the Servant's pool is wasted ("unnecessarily use mana").
    It costs no action, cannot be declined, and uses up the pair's transfer for the round.
    """
    drawn = max(0, min(compatibility, master_mana))
    gained = min(drawn, _room(servant_mana, servant_max))
    return Resolution(
        effects=_deltas(PoolDelta("master", "prana", -drawn), PoolDelta("servant", "prana", gained)),
        outcome=DrawResult(drawn=drawn, gained=gained, wasted=drawn - gained),
    )


def passive_replenishment(
    hours: int,
    compatibility: int,
    master_mana: int,
    servant_mana: int,
    servant_max: int,
    options: FatePointsOptions,
) -> Resolution[ReplenishResult]:
    """R14: out of combat, each full hour refills the Servant by half the compatibility (rounded down, A20).

    Hour by hour, each hour's gain is capped by the room left and, when the option
    `passive_regen_costs_master` makes the Master pay, by the Master's mana left. The player's opt-out
    ("unless the player specifies otherwise") is the bot not calling this.
    """
    if hours < 0:
        raise RuleError("invalid_hours", hours=hours)
    per_hour = max(0, compatibility // 2)
    paying = options.passive_regen_costs_master
    gained = 0
    for _ in range(hours):
        step = min(per_hour, _room(servant_mana + gained, servant_max))
        if paying:
            step = min(step, max(0, master_mana - gained))
        if step == 0:
            break  # full, or the Master is dry: later hours change nothing
        gained += step
    master_paid = gained if paying else 0
    return Resolution(
        effects=_deltas(PoolDelta("master", "prana", -master_paid), PoolDelta("servant", "prana", gained)),
        outcome=ReplenishResult(hours=hours, gained=gained, master_paid=master_paid),
    )


def rest(master_mana: int, prana_max: int) -> Resolution[RestResult]:
    """R12: "The prana stat of a Master refills entirely upon resting or eating" (a GM command)."""
    restored = max(0, prana_max - master_mana)
    return Resolution(RestResult(restored=restored), effects=_deltas(PoolDelta("master", "prana", restored)))


def regenerate(
    hp_points: int, hp: int, hp_max: int, mana: int, options: FatePointsOptions, confirm_zero_mana: bool
) -> Resolution[RegenResult]:
    """R17: a Servant turns `regen_mana_per_hp` mana into each HP it heals (A23), up to its maximum.

    Asking for more HP than are missing is refused rather than charged for HP that cannot be healed.
    The spend follows A33 like every other: a Servant paying its last mana must confirm and dies.
    """
    missing = max(0, hp_max - hp)
    if hp_points < 1:
        raise RuleError("invalid_amount", amount=hp_points)
    if missing == 0:
        raise RuleError("nothing_to_heal")
    if hp_points > missing:
        raise RuleError("too_much_healing", requested=hp_points, missing=missing)
    cost = hp_points * options.regen_mana_per_hp
    fate = require_mana("servant", cost, mana, confirm_zero_mana)
    return Resolution(
        effects=(PoolDelta("actor", "prana", -cost), PoolDelta("actor", "hp", hp_points)),
        outcome=RegenResult(healed=hp_points, cost=cost, fate=fate),
    )


def activate(
    cost: int, mana: int, confirm_zero_mana: bool, name: str, *, kind: Kind = "servant"
) -> Resolution[ActivationResult]:
    """R16: pay for an NP or a skill outside an attack (a General or Extra action, A34).

    `cost` comes from `np_activation_cost` or `ability_activation_cost`. `kind` is "master" for a
    Master's magecraft, who does not die at 0 mana.
    """
    if cost < 0:
        raise RuleError("invalid_amount", amount=cost)
    fate = require_mana(kind, cost, mana, confirm_zero_mana)
    return Resolution(
        effects=_deltas(PoolDelta("actor", "prana", -cost)),
        outcome=ActivationResult(name=name, cost=cost, fate=fate),
    )
