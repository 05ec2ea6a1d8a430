"""R4: the four actions of a round (Attack, Move, General, and one Extra usable as any of the other three)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.exchange import RuleError

ACTIONS = ("attack", "move", "general", "extra")
EXTRA = "extra"


class ActionState(BaseModel):
    """The actions a character has left in `round`; stored by the bot as JSON in the character's state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    round: int
    left: tuple[str, ...] = ACTIONS


def actions_in_round(state: ActionState | None, round_number: int) -> ActionState:
    """The actions left in `round_number`: a stored state from any other round is stale, so all four are back."""
    if state is None or state.round != round_number:
        return ActionState(round=round_number, left=ACTIONS)
    return state


def use_action(state: ActionState | None, kind: str, round_number: int) -> tuple[ActionState, str]:
    """Spend one action of `kind`, or the Extra action once `kind` is gone; returns the new state and what was spent.

    Defence rolls cost no action (A12); NP activation, mana transfer and regeneration are General actions,
    which the Extra action ("free moves", A34) may also pay for.
    """
    if kind not in ACTIONS:
        raise RuleError("unknown_action_kind", action=kind)
    current = actions_in_round(state, round_number)
    spent = kind if kind in current.left else EXTRA if EXTRA in current.left else None
    if spent is None:
        raise RuleError("action_used", variant=kind, action=kind)  # each action its own sentence
    left = list(current.left)
    left.remove(spent)
    return current.model_copy(update={"left": tuple(left)}), spent


def attack_actions(
    *, noble_phantasm: bool, paid_beforehand: bool, first_of_round: bool, uses_extra: bool
) -> tuple[str, ...]:
    """The actions an attack spends.

    The round's declared attacks share its Attack action (R4/R5): only the first spends it, and the Extra action
    too when one of them is the Extra action spent as an attack (A10). A Noble Phantasm is no Attack action: it is
    "activated via the general or free moves" (R4, R16, A34), so its attack spends the General (or Extra) action,
    and none at all once `/fate activate` has paid for it this round.
    """
    if noble_phantasm:
        return () if paid_beforehand else ("general",)
    if not first_of_round:
        return ()
    return ("attack", EXTRA) if uses_extra else ("attack",)
