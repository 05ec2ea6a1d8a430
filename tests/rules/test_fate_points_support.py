"""Builders shared by the Fate/Points tests (no tests here)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from rules.dice.source import FixedDice
from rules.exchange import PoolDelta, Resolution, RuleError, StatePatch
from rules.fate_points import (
    CLASS_BASE,
    AttackOutcome,
    AttackSpec,
    Combatant,
    CombatState,
    FatePointsOptions,
    ServantClass,
    Stat,
    Weapon,
    WeaponType,
    attack,
    defend,
)
from rules.fate_points.outcomes import DefenceResult

DEFAULTS = FatePointsOptions()


def weapon(kind: WeaponType, *, magical: bool = False, penalty: int = 0) -> Weapon:
    return Weapon(name=kind, type=kind, magical=magical, extra_attack_penalty=penalty)


def servant(
    cls: ServantClass,
    *weapons: WeaponType,
    stats: Mapping[Stat, int] | None = None,
    mana: int = 100,
    hp: int = 50,
    state: CombatState | None = None,
) -> Combatant:
    return Combatant(
        kind="servant",
        name=cls,
        stats=dict(stats or CLASS_BASE[cls]),
        hp=hp,
        mana=mana,
        servant_class=cls,
        weapons=[weapon(kind) for kind in weapons],
        state=state or CombatState(),
    )


def master(
    *weapons: WeaponType,
    stats: Sequence[int] = (2, 3, 3, 4, 3),
    hp: int = 10,
    servant_present: bool = False,
    fp_roll_vs_servant: bool = False,
) -> Combatant:
    return Combatant(
        kind="master",
        name="Master",
        stats=dict(zip(("STR", "END", "AGI", "MAG", "LUK"), stats, strict=True)),
        hp=hp,
        mana=50,
        weapons=[weapon(kind) for kind in weapons],
        servant_present=servant_present,
        fp_roll_vs_servant=fp_roll_vs_servant,
    )


def swing(
    attacker: Combatant,
    defender: Combatant,
    spec: AttackSpec,
    natural: int,
    round_number: int = 1,
    options: FatePointsOptions = DEFAULTS,
) -> AttackOutcome:
    outcome = attack(attacker, defender, spec, round_number, FixedDice([natural]), options)
    assert isinstance(outcome, AttackOutcome), outcome
    return outcome


def answer(
    attacker: Combatant,
    defender: Combatant,
    outcome: AttackOutcome,
    spec: AttackSpec,
    choice: str,
    faces: Iterable[int] = (),
    round_number: int = 1,
    options: FatePointsOptions = DEFAULTS,
) -> Resolution[DefenceResult]:
    dice = FixedDice(faces)
    resolution = defend(attacker, defender, outcome, spec, choice, round_number, dice, options)
    assert dice.remaining == 0, "the scripted dice were not all used"
    return resolution


def after(combatant: Combatant, resolution: Resolution[Any]) -> Combatant:
    """The defender with the resolution's state (pools are left to the caller)."""
    (state,) = [e.value for e in resolution.effects if isinstance(e, StatePatch) and e.who == "defender"]
    return replace(combatant, state=CombatState.model_validate(state))


def after_attack(attacker: Combatant, outcome: AttackOutcome) -> Combatant:
    """The attacker once the bot applied the attack's effects (mana spent, attack counted)."""
    mana = attacker.mana + sum(e.delta for e in outcome.effects if isinstance(e, PoolDelta))
    (state,) = [e.value for e in outcome.effects if isinstance(e, StatePatch)]
    return replace(attacker, mana=mana, state=CombatState.model_validate(state))


def hp_delta(resolution: Resolution[Any]) -> int:
    return sum(e.delta for e in resolution.effects if isinstance(e, PoolDelta) and e.pool == "hp")


def pools(resolution: Resolution[Any]) -> dict[tuple[str, str], int]:
    """The net pool changes of a resolution, by (who, pool)."""
    net: dict[tuple[str, str], int] = {}
    for effect in resolution.effects:
        if isinstance(effect, PoolDelta):
            net[effect.who, effect.pool] = net.get((effect.who, effect.pool), 0) + effect.delta
    return net


@contextmanager
def refused(code: str) -> Iterator[pytest.ExceptionInfo[RuleError]]:
    """Expect a RuleError with this code; the yielded info gives its params."""
    with pytest.raises(RuleError) as error:
        yield error
    assert error.value.code == code
