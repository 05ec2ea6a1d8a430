"""Noble Phantasms and activated skills (R16): activation costs, the GM's ruling on an NP, God Hand ranks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rules.exchange import RuleError
from rules.fate_points.model import DEFENCE_CHOICES, TAKE, DefenceChoice, Stat, np_cost, np_rank_key
from rules.fate_points.sheets import Ability, NoblePhantasm


class NoblePhantasmRuling(BaseModel):
    """How the GM rules one NP: "the requirements for defending against a Noble Phantasm will be decided upon
    by the GM" (R16). Stored per NP by the bot and copied into the `AttackSpec` of an attack using it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    defences: tuple[DefenceChoice, ...] | None = None  # allowed choices; None = all four; () = cannot be defended
    damage: int | None = Field(None, ge=0)  # the damage of a hit, replacing the whole R10 formula
    stat: Stat | None = None  # the stat the NP's attack rolls with (and deals damage with), instead of the type's

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoblePhantasmRuling:
        return cls.model_validate(data)


def np_defence_options(ruling: NoblePhantasmRuling | None) -> tuple[str, ...]:
    """The buttons a defender gets: the allowed defences plus "take"; none at all when the NP cannot be defended."""
    if ruling is None or ruling.defences is None:
        return (*DEFENCE_CHOICES, TAKE)
    if not ruling.defences:
        return ()
    # Kept in the usual button order whatever order the GM typed them in.
    return (*(choice for choice in DEFENCE_CHOICES if choice in ruling.defences), TAKE)


def np_undefendable(ruling: NoblePhantasmRuling | None) -> bool:
    """An empty list of allowed defences makes the NP hit automatically."""
    return ruling is not None and ruling.defences == ()


def np_activation_cost(np: NoblePhantasm) -> int:
    """R16: the mana an NP costs to activate (or to attack with, A22); EX needs the GM's `ex_cost`."""
    return np_cost(np.rank, np.gm_cost_adjust, np.ex_cost)


def ability_activation_cost(ability: Ability) -> int:
    """R16 "Other skills": the GM-set mana cost; a skill without one is passive and is never activated."""
    if ability.mana_cost is None:
        raise RuleError("passive_ability", name=ability.name)
    return ability.mana_cost


def np_rank_below(rank: str, minimum: str | None) -> bool:
    """God Hand (R16): True when an NP of `rank` is below the defender's minimum rank, so it has no effect."""
    return minimum is not None and np_rank_key(rank) < np_rank_key(minimum)
