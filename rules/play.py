"""The interface through which a ruleset plugs into the shared commands and the exchange engine.

The bot hands a ruleset plain snapshots of stored characters, grouped by role in a `Scene`, and gets back
drafts, `Step`s (rolls, effects, typed outcomes, waits: see rules.exchange) and `Report`s of its outcomes;
it never sees SQLAlchemy, and the ruleset never sees Discord. `Play` gives every hook a default that does
nothing, so a ruleset implements only what its rules have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Any, Generic, Self, TypeVar, cast, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.dice import DiceSource
from rules.exchange import Answer, Opening, Outcome, Resumption, Roll, RuleError, Step, Text, parse_member
from rules.options import CampaignOptions
from rules.words import SPELLING, Spelling, as_the_rules_write

# The roles the shared commands and hooks give their characters.
ACTOR = "actor"  # /check, and a ruleset's own one-character commands
OPPONENT = "opponent"  # /check against another character: the passive side of an opposed check
ATTACKER = "attacker"
DEFENDER = "defender"  # /attack's targets, in the order named
CURRENT = "character"  # turn hooks: whose turn it is
FIGHTERS = "fighters"  # combat start: the turn order as the GM gave it
# The active character of whoever answered a wait open to every player (one who steps into the exchange).
ANSWERER = "answerer"
EVERYONE = "everyone"  # round, scene, session, time and campaign-turn hooks: every character of the campaign
REVEALED = "revealed"  # the character state key of a sheet a GM showed to everyone (`/gm reveal`)


def campaign_side(position: int) -> str:
    """The role of the campaign's side at `position` (in the order they were formed) in the clock's hooks, which
    see every side of the campaign besides every character."""
    return f"side{position}"


@dataclass(frozen=True)
class Pool:
    current: int
    maximum: int | None
    minimum: int = 0


@dataclass(frozen=True)
class CharacterSnapshot:
    """A stored character as the rules see it, with the characters it is bound to (and bound by), by relation."""

    id: int
    name: str
    kind: str
    owner_id: int
    sheet: Mapping[str, Any]
    pools: Mapping[str, Pool]
    state: Mapping[str, Any]
    gm_run: bool = False
    bound_to: Mapping[str, tuple[CharacterSnapshot, ...]] = field(default_factory=dict)
    bound_by: Mapping[str, tuple[CharacterSnapshot, ...]] = field(default_factory=dict)
    # Its picture's web address, for what shows the character (no rule reads it).
    portrait_url: str | None = None

    def partner(self, relation: str) -> CharacterSnapshot | None:
        """The first character this one is bound to under `relation` (a Servant's Master)."""
        partners = self.bound_to.get(relation, ())
        return partners[0] if partners else None

    def dependant(self, relation: str) -> CharacterSnapshot | None:
        """The first character bound to this one under `relation` (a Master's Servant)."""
        dependants = self.bound_by.get(relation, ())
        return dependants[0] if dependants else None


@dataclass(frozen=True)
class SideSnapshot:
    """A side (a camp) and its members, each with the place its ruleset gave it (main, sub, companion...)."""

    id: int
    name: str
    members: tuple[tuple[CharacterSnapshot, str], ...]
    state: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CommitmentSnapshot:
    key: str
    digest: str
    secret: str
    nonce: str
    revealed: bool


@dataclass(frozen=True)
class Turn:
    """Where the campaign stands: session, campaign turn, round, and whether a fight is on."""

    # The campaign's round, which only moves forward: what a ruleset keys "once a round" on.
    round_number: int
    in_combat: bool
    session_number: int
    turn_number: int
    # The round as players count it: from 1 in each fight; outside a fight, the campaign's round.
    shown_round: int


@dataclass(frozen=True)
class Scene:
    """What a step sees: the exchange's characters by role, its sides, its commitments, the campaign's turn
    and options, and the dice. Besides its roles, `roles` holds each participant's bound characters as
    `role.relation` (`defender#1.master`), the characters bound to it as `role.by.relation` (a Master's
    Servant: `defender.by.contract`) and each side's members as `side/N`, so effects can name them."""

    campaign_id: int
    roles: Mapping[str, tuple[CharacterSnapshot, ...]]
    turn: Turn
    options: CampaignOptions
    dice: DiceSource
    sides: Mapping[str, SideSnapshot] = field(default_factory=dict)
    commitments: Mapping[str, CommitmentSnapshot] = field(default_factory=dict)
    exchange_id: int | None = None

    def get(self, reference: str) -> CharacterSnapshot | None:
        if reference in self.roles:  # a role, or a bound role such as "defender#1.master"
            return self.roles[reference][0] if self.roles[reference] else None
        if "." in reference or "/" in reference:  # a bound role or side member that is not there
            return None
        role, position = parse_member(reference)
        members = self.roles.get(role, ())
        return members[position] if position < len(members) else None

    def one(self, reference: str) -> CharacterSnapshot:
        character = self.get(reference)
        if character is None:
            raise KeyError(f"the scene has no character {reference!r}")
        return character

    def members(self, role: str) -> tuple[CharacterSnapshot, ...]:
        return self.roles.get(role, ())

    def side(self, role: str) -> SideSnapshot:
        return self.sides[role]


@dataclass(frozen=True)
class CharacterDraft:
    """A validated character with its rolled values, ready to store."""

    name: str
    kind: str
    sheet: dict[str, Any]
    pools: dict[str, Pool]
    rolls: tuple[Roll, ...]


@dataclass(frozen=True)
class Binding:
    """A kind of character bound to another one, which its file names in `field`: a Servant to its Master.

    The other one must be of `target_kind` and its player's (or the creator a GM); at most `per_target`
    characters are bound to one target (None: no limit).
    """

    relation: str
    field: str
    target_kind: str
    per_target: int | None = 1


@dataclass(frozen=True)
class SheetLine:
    """One line of a rendered sheet: a catalog key for the label and the value (neutral text, or a Text)."""

    label_key: str
    value: str | Text
    inline: bool = True


@dataclass(frozen=True)
class Choice:
    """An autocomplete entry: the value sent back, and its label."""

    value: str
    label: Text


# The longest value Discord sends back from an autocomplete entry (and takes in an option of 100 characters).
SENT_VALUE_LIMIT = 100
_PLACE = re.compile(r"#([0-9]{1,4})")


def sendable(choices: Sequence[Choice]) -> list[Choice]:
    """The choices as autocomplete can send them back: one whose value is too long for Discord (an attack with a
    weapon of the longest name, behind its kind) is sent as its place in the list, `#3`, which `chosen` reads."""
    return [
        choice if len(choice.value) <= SENT_VALUE_LIMIT else replace(choice, value=f"#{place}")
        for place, choice in enumerate(choices, start=1)
    ]


def chosen(choices: Sequence[Choice], sent: str) -> str:
    """The value picked from `sendable(choices)`: the long value a place stands for, else the text as sent."""
    place = _PLACE.fullmatch(sent.strip())
    if place is None or not 1 <= int(place[1]) <= len(choices):
        return sent
    value = choices[int(place[1]) - 1].value
    return value if len(value) > SENT_VALUE_LIMIT else sent


@dataclass(frozen=True)
class Report:
    """A ruleset's rendering of a step's outcomes. With a `title`, the bot posts an embed (the rolls as its
    description, then `fields`, then `notes`); without one, plain lines."""

    title: Text | None = None
    fields: tuple[tuple[Text, Text | str], ...] = ()
    notes: tuple[Text, ...] = ()
    # Whether the changed pools follow (a report that already says what changed leaves them out).
    pools: bool = True
    # The note the rolls come just before, the one that reads them (None: before every note).
    rolls_before: Text | None = None
    # Whether the notes are the post's body, with the rolls under the title, rather than a field beside `fields`.
    notes_body: bool = False

    @property
    def empty(self) -> bool:
        return self.title is None and not self.fields and not self.notes


class Renderer:
    """How a ruleset's outcomes read: a step's post and a log line of one of its events, as neutral text (catalog keys
    and their values) that each reader's language words. Every hook has a default: the generic lines."""

    def report(self, outcomes: Sequence[Outcome]) -> Report:
        """A step's outcomes as a post: a title, fields and notes."""
        return Report()

    def log_line(self, kind: str, payload: Mapping[str, Any]) -> Text | None:
        """A log line for one of the ruleset's events, from its stored data, where the generic `event.<kind>` line
        would not do."""
        return None


@dataclass(frozen=True)
class Odds:
    """Exact chances of an attack: one line per way the defender may answer it, and how they were counted."""

    lines: tuple[tuple[Text, Fraction], ...]
    footer: Text


@dataclass(frozen=True)
class Preset:
    """A wait whose answer a GM may give in advance for a character the GMs run (a defence for every attack)."""

    wait: str
    label: Text
    options: tuple[Choice, ...]


class CommandInput(BaseModel):
    """What a shared command passes a ruleset; a ruleset's subclass adds fields that players give in the
    command's `details` option as `name:value` words. Each added field's `description` is the catalog key
    of its help text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def gm_terms(self) -> dict[str, int]:
        """The terms given that the rules leave to the GMs (a modifier the GM deems fit, boons and banes: fields
        marked `GM_TERM`), by field, where they are not the field's default."""
        return {
            name: getattr(self, name)
            for name, info in type(self).model_fields.items()
            if info.json_schema_extra == GM_TERM and getattr(self, name) != info.default
        }

    def without_gm_terms(self) -> Self:
        """The same input with none of the terms only the GMs give."""
        fields = type(self).model_fields
        return self.model_copy(update={name: fields[name].default for name in self.gm_terms()})


# The `json_schema_extra` of an input's field that only the GMs give: a player's value is a request to them.
GM_TERM: dict[str, JsonValue] = {"gm_term": True}


class CheckInput(CommandInput):
    stat: str | None = None
    target: int | None = None
    modifier: int = Field(0, json_schema_extra=GM_TERM)
    # The character an opposed check is made against (OPPONENT in the scene), where the ruleset has them.
    against: str | None = None


class AttackInput(CommandInput):
    targets: tuple[str, ...] = Field(min_length=1)
    action: str


# A step that resumes a paused exchange: its `state` parameter's type is the `Resumption` it resumes from.
Resume = Callable[[Scene, Any, Answer], Step]


StepT = TypeVar("StepT", bound=Callable[..., Step])


class Resumptions(Generic[StepT]):
    """Steps that resume paused exchanges, each found by the type of the state it takes (the annotation of its
    `state` parameter), and stored by that type's `stored_as`; what else a step takes, its caller gives."""

    def __init__(self, *steps: StepT) -> None:
        self._steps: dict[str, tuple[type[Resumption], StepT]] = {}
        for step in steps:
            state_type = get_type_hints(step).get("state")
            if not (isinstance(state_type, type) and issubclass(state_type, Resumption)):
                raise TypeError(f"{step!r} takes no typed state")
            if state_type.stored_as in self._steps:
                raise ValueError(f"two steps resume from states stored as {state_type.stored_as!r}")
            self._steps[state_type.stored_as] = (state_type, step)

    def __contains__(self, stored_as: object) -> bool:
        return stored_as in self._steps

    def __iter__(self) -> Iterator[str]:
        return iter(self._steps)

    def state(self, stored_as: str, data: Mapping[str, Any]) -> Resumption:
        """A stored state read back as its type."""
        return self._steps[stored_as][0].model_validate(data)

    def step(self, stored_as: str) -> StepT:
        """The step that resumes from a state stored under this name."""
        return self._steps[stored_as][1]


class Resumes(Resumptions[Resume]):
    """The steps that resume a ruleset's paused exchanges (`Play.resumes`), each taking the scene, its state and the
    answer."""

    def resume(self, scene: Scene, stored_as: str, data: Mapping[str, Any], answer: Answer) -> Step:
        """The step an answer gives from a stored state."""
        return self.step(stored_as)(scene, self.state(stored_as, data), answer)


# The kinds of exchange /check and /attack start.
CHECK = "check"
ATTACK = "attack"


@dataclass(frozen=True)
class Asking:
    """What a player's check or attack asks of the GMs before it is rolled: the roll in words (`what`, "the Wit
    check"), what it asks besides the GM terms of its input (`asks`: another stat than the usual one, say), the input
    it is rolled with if they refuse (`refused`; None: the one given, without its GM terms), and how long the GMs
    have before it is rolled that way (None: as long as they take)."""

    what: Text
    asks: tuple[Text, ...] = ()
    refused: CommandInput | None = None
    deadline_seconds: int | None = None


class Play:
    """What a ruleset implements for characters, checks, attacks, exchanges and the campaign's clock. `spelling`
    reads the names a player types for the rules' own (the bot's catalogs give it; see rules.words)."""

    def __init__(self, spelling: Spelling = as_the_rules_write) -> None:
        self.spelling = spelling

    kinds: tuple[str, ...] = ()
    # Kinds only a GM makes, always run by the GMs (a ruleset's creatures).
    gm_kinds: frozenset[str] = frozenset()
    pool_names: tuple[str, ...] = ()
    check_stats: tuple[str, ...] = ()
    # The catalog key of the note at the top of a character template.
    template_note_key: str = ""
    check_input: type[CheckInput] = CheckInput
    # Whether /check may name a character it is made `against` (an opposed check, answered by that character).
    opposed_checks: bool = False
    attack_input: type[AttackInput] = AttackInput
    presets: tuple[Preset, ...] = ()
    # Whether a player's sheet is its owner's and the GMs' alone (rivals see what `sheet_lines` shows without
    # `full`), and every look at a sheet is private.
    private_sheets: bool = False
    # Whether an attack's steps see every character of the campaign (`EVERYONE`): for what others notice of it.
    attacks_see_everyone: bool = False
    # The fates of `out_of_play` a character never comes back from: nothing can target it any more.
    final_fates: frozenset[str] = frozenset({"dead"})
    # Whether a GM acting with a character the GMs run keeps the same turns as a player (`acts_on_own_turn`).
    gms_keep_turns: bool = False
    # Whether its steps commit to what they keep secret (`Commit`): only then does a scene read its exchange's
    # commitments.
    commits: bool = False

    @cached_property
    def resumes(self) -> Resumes:
        """The steps that resume a paused exchange, found by the type of its `Pause.state`."""
        return Resumes()

    @property
    def spelled(self) -> dict[str, Spelling]:
        """The validation context that reads an input's names with this ruleset's spelling."""
        return {SPELLING: self.spelling}

    def template(self, kind: str) -> dict[str, Any]:
        return {}

    def template_comments(self, kind: str) -> tuple[str, ...]:
        """The template's fields that carry a comment saying what they take: the ruleset's catalog words each as
        `template.<kind>.<field>`, so a reader of any language can fill in a file whose field names are the rules'."""
        return ()

    def preset_choices(self, preset: Preset, character: CharacterSnapshot) -> tuple[Choice, ...]:
        """The answers a GM may give in advance for this character (its own armour and crests, say)."""
        return preset.options

    def check_stats_of(self, character: CharacterSnapshot) -> tuple[str, ...]:
        """The stats this character can roll a check with (of `check_stats`): all of them unless its kind has fewer."""
        return self.check_stats

    def stat_word(self, stat: str) -> Text | str:
        """A stat of `check_stats` in the reader's words, where the ruleset's catalogs name it."""
        return stat

    def binding(self, kind: str) -> Binding | None:
        return None

    def build(
        self,
        kind: str,
        data: Mapping[str, Any],
        bound: Mapping[str, CharacterSnapshot],
        dice: DiceSource,
        options: CampaignOptions,
        *,
        gm_run: bool = False,
    ) -> CharacterDraft:
        """A character from its file; `gm_run` for one the GMs run (an NPC, a creature)."""
        raise RuleError("no_characters")

    def pool_maxima(self, character: CharacterSnapshot, sheet: Mapping[str, Any]) -> Mapping[str, int | None]:
        """The maxima of the pools that follow from an edited sheet (a stat's die, say); others keep theirs."""
        return {}

    def gm_only_fields(self, kind: str, sheet: Mapping[str, Any]) -> tuple[str, ...]:
        """The values of a built sheet that the rules leave to the GM, each as "`field`: value": a player's file
        setting any of them is held for a GM's approval."""
        return ()

    def editable(self, kind: str, field: str, *, by_gm: bool) -> bool:
        """Whether `/character edit` may change this field of a file: a GM most of them, a player few or none."""
        return False

    def edited_sheet(
        self, character: CharacterSnapshot, file: Mapping[str, Any], options: CampaignOptions, *, by_gm: bool
    ) -> dict[str, Any]:
        """The stored sheet with `file` as its new file, validated again (SheetError otherwise)."""
        raise RuleError("no_characters")

    def sheet_lines(self, character: CharacterSnapshot, options: CampaignOptions, *, full: bool) -> list[SheetLine]:
        """The sheet; `full` is False for a player looking at a character the GMs run (what the fiction shows)."""
        return []

    def check(self, scene: Scene, params: CheckInput) -> Step:
        raise RuleError("no_checks")

    def attack_actions(self, attacker: CharacterSnapshot) -> list[Choice]:
        return []

    def attack(self, scene: Scene, params: AttackInput) -> Step:
        raise RuleError("no_attacks")

    def asking(self, scene: Scene, kind: str, params: CommandInput) -> Asking:
        """What a player's check or attack (`kind`) asks of the GMs besides its GM terms, and the roll in words."""
        if kind == CHECK:
            return Asking(Text("request.on_check", {"stat": self.stat_word(str(cast(CheckInput, params).stat))}))
        return Asking(Text("request.on_attack", {"defender": ", ".join(d.name for d in scene.members(DEFENDER))}))

    def requested(self, scene: Scene, kind: str, given: Mapping[str, Any]) -> Step:
        """The roll a request of the GMs was for, with what they granted (`given`, its input as stored)."""
        if kind == CHECK:
            return self.check(scene, self.check_input.model_validate(given, context=self.spelled))
        return self.attack(scene, self.attack_input.model_validate(given, context=self.spelled))

    def odds(
        self,
        attacker: CharacterSnapshot,
        defender: CharacterSnapshot,
        params: AttackInput,
        options: CampaignOptions,
        turn: Turn,
    ) -> Odds:
        """The exact chances of an attack as `/attack` would declare it, for each answer the defender could give."""
        raise RuleError("no_odds")

    @property
    def has_odds(self) -> bool:
        """Whether the ruleset computes `odds`: one that does not refuses /odds in its own words before any sheet is
        looked at (its chances, if any, are elsewhere)."""
        return type(self).odds is not Play.odds

    def cancelled(self, scene: Scene, kind: str, state: Resumption) -> Step | None:
        """What a GM's cancel of an open exchange undoes (an action it counted), as a step; None: nothing."""
        return None

    def pool_changed(self, scene: Scene, pool: str) -> Step | None:
        """What a pool moved outside the ruleset's own steps (a GM's award) means for its character, `ACTOR`: what
        the rules decide of the new value (a fall, or what holds one off) and what they remember of a pool's history
        (a stat emptied), as their own steps would, as a step. None: nothing."""
        return None

    def out_of_play(self, character: CharacterSnapshot) -> str | None:
        """Why a character can no longer act ("dead", "down"...), or None."""
        return None

    def sheet_hidden(self, gm_run: bool, state: Mapping[str, Any]) -> bool:
        """Whether a character's sheet and pools are only its owner's and the GMs' to know: a character the GMs run,
        or every one where sheets are private, until a GM reveals it."""
        return (gm_run or self.private_sheets) and not state.get(REVEALED)

    def pools_shown(self, character: CharacterSnapshot, viewer: int | None, *, gm: bool) -> bool:
        """Whether a reader (`viewer`; None for a post everyone sees) sees a character's pools: a GM always; a
        hidden sheet's otherwise only its owner (none for the GMs' characters)."""
        if gm or not self.sheet_hidden(character.gm_run, character.state):
            return True
        return not character.gm_run and character.owner_id == viewer

    def acts_on_own_turn(self, options: CampaignOptions) -> bool:
        """Whether, in a fight, a player's character acts only on its own turn (its reactions aside)."""
        return False

    def may_act_out_of_turn(self, character: CharacterSnapshot, turn: Turn) -> bool:
        """Whether a fighter may act now although it is not its turn (it paid for that, say)."""
        return False

    def actions_left(self, character: CharacterSnapshot, turn: Turn) -> tuple[Text, ...] | None:
        """The actions a fighter still has this round, for /combat status; None if the ruleset counts none."""
        return None

    # The campaign's clock. Each hook returns a step like any other: applied, logged, and able to wait.
    def combat_started(self, scene: Scene) -> Opening | None:
        return None

    def round_started(self, scene: Scene) -> Step | None:
        return None

    def turn_started(self, scene: Scene) -> Step | None:
        return None

    def turn_ended(self, scene: Scene) -> Step | None:
        return None

    def combat_ended(self, scene: Scene) -> Step | None:
        return None

    def session_started(self, scene: Scene) -> Step | None:
        return None

    def time_passed(self, scene: Scene, hours: int, days: int) -> Step | None:
        return None

    def campaign_turn_ended(self, scene: Scene) -> Step | None:
        return None
