"""What a paused Fate/Points exchange keeps until its answer: an attack waiting for the defence, a block or parry
waiting for its weapon, a Fate/Point waiting for a GM. Their `stored_as` are the names open waits were stored under
before the states were typed; the fields read states stored since then, the defaults the ones stored before."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from rules.exchange import KeptAsDict, Resumption
from rules.fate_points.combat import AttackOutcome, AttackSpec

DEFENCE_WAIT = "defence"
# A block or parry by a player's character with several weapons: which one it defends with.
WEAPON_WAIT = "defence_weapon"
APPROVAL_WAIT = "approval"


# The rolled attack is kept as `AttackOutcome.to_dict` has always written it, its effects and roll as the log has them.
RolledAttack = Annotated[AttackOutcome, KeptAsDict()]
# A Fate/Point effect as the Master's state holds it (`spend_fate_point`): a flag or a stat, its round and duration.
FateEffect = dict[str, str | int | bool | None]


class Defending(Resumption):
    """An attack rolled and paid, waiting for the defender's choice."""

    stored_as: ClassVar[str] = DEFENCE_WAIT

    attack: RolledAttack
    spec: AttackSpec
    # The attacker's Fate/Point effect when the attack was declared: it still counts when the attack lands. None (an
    # early state) leaves the attacker's current one to count.
    attacker_fate: FateEffect | None = Field(default_factory=dict)
    # The skills and NPs the attacker had activated for the attack (none before they were kept).
    attacker_activated: tuple[str, ...] = ()


class ChoosingWeapon(Defending):
    """A block or parry chosen, waiting for the weapon it is made with."""

    stored_as: ClassVar[str] = WEAPON_WAIT

    choice: str


class FateApproval(Resumption):
    """A Fate/Point a Master asked for, waiting for a GM's decision."""

    stored_as: ClassVar[str] = APPROVAL_WAIT

    use: str
    stat: str | None = None
