"""The interface through which a ruleset plugs into the shared commands.

The bot hands a ruleset plain snapshots of stored characters and gets back drafts, rolls, effects and
waits (see rules.exchange); it never sees SQLAlchemy, and the ruleset never sees Discord.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.dice import DiceSource
from rules.exchange import Awaiting, Resolution, Roll
from rules.options import CampaignOptions


@dataclass(frozen=True)
class Pool:
    current: int
    maximum: int | None
    minimum: int = 0


@dataclass(frozen=True)
class CharacterSnapshot:
    """A stored character as the rules see it."""

    id: int
    name: str
    kind: str
    owner_id: int
    sheet: Mapping[str, Any]
    pools: Mapping[str, Pool]
    state: Mapping[str, Any]
    master: CharacterSnapshot | None = None


@dataclass(frozen=True)
class CharacterDraft:
    """A validated character with its rolled values, ready to store."""

    name: str
    kind: str
    sheet: dict[str, Any]
    pools: dict[str, Pool]
    rolls: tuple[Roll, ...]


@dataclass(frozen=True)
class SheetLine:
    """One line of a rendered sheet: a catalog key for the label and language-neutral text for the value."""

    label_key: str
    value: str
    inline: bool = True


@dataclass(frozen=True)
class Choice:
    """An autocomplete entry: the value sent back, and its label as a catalog key with parameters."""

    value: str
    label_key: str
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """Where the campaign stands: its round, and whether a fight (with actions per round) is on."""

    round_number: int
    in_combat: bool


@dataclass(frozen=True)
class Declaration:
    """An attack declared: its rolls and effects now, and what it waits for."""

    resolution: Resolution
    awaiting: Awaiting | None


class Play(Protocol):
    """What a ruleset implements for characters, checks and attacks."""

    kinds: tuple[str, ...]
    pool_names: tuple[str, ...]
    check_stats: tuple[str, ...]
    # The catalog key of the note at the top of a character template.
    template_note_key: str

    def template(self, kind: str) -> dict[str, Any]: ...

    def needs_master(self, kind: str) -> bool: ...

    def build(
        self,
        kind: str,
        data: Mapping[str, Any],
        master: CharacterSnapshot | None,
        dice: DiceSource,
        options: CampaignOptions,
    ) -> CharacterDraft: ...

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions) -> list[SheetLine]: ...

    def check(
        self, character: CharacterSnapshot, stat: str, modifier: int, target: int | None, dice: DiceSource,
        options: CampaignOptions,
    ) -> Resolution: ...  # fmt: skip

    def attack_actions(self, attacker: CharacterSnapshot) -> list[Choice]: ...

    def declare_attack(
        self, attacker: CharacterSnapshot, defender: CharacterSnapshot, action: str, attacks: int,
        rank: str | None, confirm: bool, turn: Turn, dice: DiceSource, options: CampaignOptions,
    ) -> Declaration: ...  # fmt: skip

    def answer(
        self, attacker: CharacterSnapshot, defender: CharacterSnapshot, state: Mapping[str, Any], choice: str,
        round_number: int, dice: DiceSource, options: CampaignOptions,
    ) -> Resolution: ...  # fmt: skip

    def out_of_play(self, character: CharacterSnapshot) -> str | None: ...

    # Turns and rounds: the hooks a fight runs (see bot.services.combat).
    def actions_left(self, character: CharacterSnapshot, round_number: int) -> tuple[str, ...]: ...

    def turn_started(
        self, character: CharacterSnapshot, round_number: int, options: CampaignOptions
    ) -> Resolution | None: ...

    def round_started(
        self, character: CharacterSnapshot, round_number: int, options: CampaignOptions
    ) -> dict[str, Any] | None: ...

    def scene_ended(self, character: CharacterSnapshot, options: CampaignOptions) -> dict[str, Any] | None: ...
