"""What every ruleset's mechanics return: auditable rolls, effects to apply, or a wait for someone's choice.

An exchange (an attack and its answer, a battle step...) is a small state machine. Each step either
waits for a named participant to pick one of the offered options (the bot stores it as a pending action
and renders the options as buttons), or resolves with dice into rolls and effects that the bot applies
in one transaction. The four rulesets differ only in how many steps they chain:
fate_points (attack, then the defender's choice, then one resolution), grail_zh (resolves at once, but
third parties may be offered a reaction), crest_magia (attack roll, defender's defence roll, damage) and
grail_anka (setup, each side's pick, a random third, a commitment, aftermath).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Modifier:
    """One signed term of a roll, named by where it comes from (`stat:STR`, `class`, `weapon:sword`...)."""

    source: str
    value: int


@dataclass(frozen=True)
class Roll:
    """One roll as a player can audit it: each die, each modifier with its source, the result.

    `kept` lists the faces that count (for best-of rolls, the best one); `total` is the result after
    modifiers and any floor the rules apply.
    """

    label: str
    sides: int
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    modifiers: tuple[Modifier, ...] = ()
    total: int = 0
    multiplier: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "sides": self.sides,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "modifiers": [{"source": m.source, "value": m.value} for m in self.modifiers],
            "multiplier": self.multiplier,
            "total": self.total,
        }


@dataclass(frozen=True)
class PoolDelta:
    """Add `delta` to a pool (hp, prana, fate_points...) of the character the rules call `who`."""

    who: str
    pool: str
    delta: int


@dataclass(frozen=True)
class StateUpdate:
    """Replace a character's rules state (combat streaks, staggers...) with `state`."""

    who: str
    state: dict[str, Any]


Effect = PoolDelta | StateUpdate


@dataclass(frozen=True)
class Awaiting:
    """The exchange waits for `participant` to choose one of `options`; `state` resumes it later."""

    participant: str
    options: tuple[str, ...]
    state: dict[str, Any]


@dataclass(frozen=True)
class Resolution:
    """A resolved step: what was rolled, what changes, and the outcome keys the bot renders."""

    rolls: tuple[Roll, ...] = ()
    effects: tuple[Effect, ...] = ()
    outcome: dict[str, Any] = field(default_factory=dict)


class RuleError(Exception):
    """An action the rules refuse; `code` and `params` are localized by the bot."""

    def __init__(self, code: str, /, **params: int | str) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params
