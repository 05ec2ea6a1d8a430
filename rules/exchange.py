"""The language every ruleset's mechanics speak to the bot: rolls, effects, outcomes, and waits.

An exchange (an attack and its answers, a battle, a GM's approval...) is a small state machine. Each
`Step` carries what was rolled, the `effects` to apply in one transaction, typed `outcomes` that the
ruleset renders, and optionally a `Pause`: the waits the exchange stays open for and the state to resume
it with. A `Wait` names who may answer (`Audience`), the options offered (each with its label and, to
group buttons, a group), whether one answer or every member's is needed, an answer by number
(`ValueRange`), and an optional deadline with the default applied when it passes. The bot stores
exchanges and waits, resolves each wait exactly once, and hands the `Answer` to the step that resumes from
the stored state, which returns the next step. The four rule systems fit this one shape:

- fate_points: the attack step pauses for the defender's choice; the answer resolves it.
- grail_zh: the attack resolves at once, and the step pauses for third parties' reactions with a deadline.
- crest_magia: attack, then a defence choice, then a withstand choice, then perhaps an overflow choice.
- grail_anka: picks that alternate between sides, committed secrets, and anchors answered by number.

Effects name characters by role reference: `role` (its first character), `role#N` (its character at
position N, from 0), and the bot adds each participant's bound characters as `role.relation`.
Everything here round-trips through JSON, because exchanges wait in the database for days.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, PlainSerializer, TypeAdapter
from pydantic_core import core_schema

# Option and wait keys travel inside button ids: short, lowercase, no separators.
KEY_PATTERN = re.compile(r"^[a-z0-9_]{1,40}$")


def member(role: str, position: int) -> str:
    """The reference of the character at `position` (from 0) of a role with several characters."""
    return role if position == 0 else f"{role}#{position}"


def parse_member(reference: str) -> tuple[str, int]:
    """(role, position) of a role reference written by `member`."""
    role, _, position = reference.partition("#")
    if not position:
        return role, 0
    if not position.isdigit():
        raise ValueError(f"not a role reference: {reference!r}")
    return role, int(position)


@dataclass(frozen=True)
class UserRef:
    """A user named inside a text, by id: the bot shows them to the reader (a mention), and a stored text keeps the
    id alone. None: nobody (a deadline answered)."""

    user: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"user": self.user}


@dataclass(frozen=True)
class Text:
    """A catalog key and its parameters, translated by the bot in the reader's language.

    A parameter may itself be a `Text` (a choice's label inside a sentence), translated first, or a `UserRef`.
    As a field of a pydantic model, a text is stored as `to_dict` writes it.
    """

    key: str
    params: Mapping[str, str | int | Text | UserRef] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "params": {
                name: value.to_dict() if isinstance(value, Text | UserRef) else value
                for name, value in self.params.items()
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Text:
        return cls(data["key"], {name: _param(value) for name, value in data.get("params", {}).items()})

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return stored_by_dict(cls)


def stored_by_dict(kind: Any) -> core_schema.CoreSchema:
    """How pydantic keeps a value that writes its own JSON (`to_dict`, read back by `from_dict`): as it writes it."""
    return core_schema.no_info_plain_validator_function(
        lambda value: value if isinstance(value, kind) else kind.from_dict(value),
        serialization=core_schema.plain_serializer_function_ser_schema(lambda kept: kept.to_dict()),
    )


class KeptAsDict:
    """Marks a field (`Annotated[AttackOutcome, KeptAsDict()]`) whose value writes its own JSON: a state keeps it
    as `to_dict` has always written it."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return stored_by_dict(source)


def _param(value: Any) -> str | int | Text | UserRef:
    """A stored parameter of a text. (Texts stored by older releases name a user by its mention, a string.)"""
    if isinstance(value, Mapping):
        return UserRef(value["user"]) if value.keys() == {"user"} else Text.from_dict(value)
    word: str | int = value
    return word


@dataclass(frozen=True)
class Modifier:
    """One signed term of a roll, named by where it comes from (`stat:STR`, `class`, `weapon:sword`...)."""

    source: str
    value: int


# The one term a folded roll shows in place of a hidden sheet's.
FOLDED_SOURCE = "sheet"


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
    # One die rolled again until a face stood: `dice` are its faces in order, the last the one that counts.
    rerolled: bool = False
    # The character whose sheet its modifiers come from: where the GMs hide that sheet, the table sees them summed.
    by: str | None = None

    def folded(self) -> Roll:
        """The roll as a reader who may not see `by`'s sheet reads it: the dice and the result, its terms as one
        sum, so no stat or rank shows by name."""
        total = sum(modifier.value for modifier in self.modifiers)
        return replace(self, modifiers=(Modifier(FOLDED_SOURCE, total),) if self.modifiers else ())

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "sides": self.sides,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "modifiers": [{"source": m.source, "value": m.value} for m in self.modifiers],
            "multiplier": self.multiplier,
            "total": self.total,
            "rerolled": self.rerolled,
            **({"by": self.by} if self.by is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Roll:
        return cls(
            label=data["label"],
            sides=data["sides"],
            dice=tuple(data["dice"]),
            kept=tuple(data["kept"]),
            modifiers=tuple(Modifier(m["source"], m["value"]) for m in data["modifiers"]),
            total=data["total"],
            multiplier=data["multiplier"],
            rerolled=bool(data.get("rerolled", False)),
            by=data.get("by"),
        )


# An effect's mapping, which may be a read-only view: stored as the plain dict the JSON column takes.
StoredMapping = Annotated[Mapping[str, Any], PlainSerializer(dict)]


@dataclass(frozen=True)
class PoolDelta:
    """Add `delta` to a pool (hp, prana, fate_points...) of the character `who`; damage stops at the minimum."""

    who: str
    pool: str
    delta: int


@dataclass(frozen=True)
class PoolSet:
    """Set a pool's current value (held within its range)."""

    who: str
    pool: str
    value: int


@dataclass(frozen=True)
class PoolMaximum:
    """Give a pool a new maximum (None: unbounded); a current value above it comes down to it."""

    who: str
    pool: str
    maximum: int | None


@dataclass(frozen=True)
class StatePatch:
    """Set one key of a character's rules state; a `None` value removes the key."""

    who: str
    key: str
    value: Any


@dataclass(frozen=True)
class StateUpdate:
    """Replace a character's whole rules state."""

    who: str
    state: StoredMapping


@dataclass(frozen=True)
class SidePatch:
    """Set one key of a side's state (`side`: its role in the exchange); a `None` value removes the key."""

    side: str
    key: str
    value: Any


@dataclass(frozen=True)
class Bind:
    """Bind the character `who` under `relation` to the character `to` instead of any it was bound to (a Servant
    taking a new Master); with `with_player`, `who` is played from now on as `to` is (its player's, or the
    GMs')."""

    who: str
    relation: str
    to: str
    with_player: bool = False


@dataclass(frozen=True)
class JoinSide:
    """Move the character `who` into the side `side` (a role of the exchange), out of any other side of its
    campaign."""

    who: str
    side: str


@dataclass(frozen=True)
class Note:
    """An event for the campaign log that no other effect or outcome records."""

    kind: str
    payload: StoredMapping = field(default_factory=dict)


@dataclass(frozen=True)
class Commit:
    """Store a commitment: `digest` is public from now on, `secret` and `nonce` stay hidden until revealed."""

    key: str
    digest: str
    secret: str
    nonce: str


@dataclass(frozen=True)
class Reveal:
    """Make a stored commitment's secret and nonce public, so that anyone can check them against the digest."""

    key: str


@dataclass(frozen=True)
class Summon:
    """A character the rules bring into play (a spell's familiars, puppet soldiers): built by the ruleset from its
    `kind` and file `data`, owned and run as the character playing `by` is, with `state` to start from. A name
    taken in the campaign gets the next free number."""

    by: str
    kind: str
    data: StoredMapping
    state: StoredMapping = field(default_factory=dict)


@dataclass(frozen=True)
class Whisper:
    """A word for the player of the character playing `who` alone (the GMs, for one of theirs), sent privately:
    what only that character noticed; with `gms`, for the campaign's GMs whoever plays it (what the rules leave to
    them about that character)."""

    who: str
    text: Text
    gms: bool = False


Effect = (
    PoolDelta
    | PoolSet
    | PoolMaximum
    | StatePatch
    | StateUpdate
    | SidePatch
    | Bind
    | JoinSide
    | Note
    | Commit
    | Reveal
    | Summon
    | Whisper
)
_EFFECT_TYPES: dict[str, type[Effect]] = {
    "pool_delta": PoolDelta,
    "pool_set": PoolSet,
    "pool_maximum": PoolMaximum,
    "state_patch": StatePatch,
    "state": StateUpdate,
    "side_patch": SidePatch,
    "bind": Bind,
    "join_side": JoinSide,
    "note": Note,
    "commit": Commit,
    "reveal": Reveal,
    "summon": Summon,
    "whisper": Whisper,
}
_EFFECT_NAMES = {effect_type: name for name, effect_type in _EFFECT_TYPES.items()}
_EFFECT_ADAPTERS: dict[type[Effect], TypeAdapter[Any]] = {
    effect_type: TypeAdapter(effect_type) for effect_type in _EFFECT_TYPES.values()
}
# What the log leaves out of an effect: a commitment's hidden secret and nonce, a whisper's words.
_UNLOGGED: dict[type[Effect], set[str]] = {Commit: {"secret", "nonce"}, Whisper: {"text"}}


def effect_to_dict(effect: Effect, *, public: bool = False) -> dict[str, Any]:
    """An effect as JSON; `public` leaves out what the log must not see (`_UNLOGGED`)."""
    exclude = _UNLOGGED.get(type(effect)) if public else None
    fields: dict[str, Any] = _EFFECT_ADAPTERS[type(effect)].dump_python(effect, mode="json", exclude=exclude)
    return {"type": _EFFECT_NAMES[type(effect)], **fields}


def effect_from_dict(data: Mapping[str, Any]) -> Effect:
    effect_type = _EFFECT_TYPES[data["type"]]
    fields = {name: value for name, value in data.items() if name != "type"}
    effect: Effect = _EFFECT_ADAPTERS[effect_type].validate_python(fields)
    return effect


Tone = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True)
class Option:
    """One answer offered by a wait. Options sharing a `group` sit behind one button (`OptionGroup`).

    `summary` replaces the generic "X answered: label" when the wait closes with this option.
    """

    key: str
    label: Text
    group: str | None = None
    tone: Tone = "primary"
    summary: Text | None = None

    def __post_init__(self) -> None:
        if not KEY_PATTERN.match(self.key) or (self.group is not None and not KEY_PATTERN.match(self.group)):
            raise ValueError(f"option keys are short lowercase words: {self.key!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "group": self.group,
            "tone": self.tone,
            "summary": self.summary.to_dict() if self.summary else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Option:
        summary = data.get("summary")
        return cls(
            data["key"],
            Text.from_dict(data["label"]),
            data.get("group"),
            data.get("tone", "primary"),
            Text.from_dict(summary) if summary else None,
        )


@dataclass(frozen=True)
class OptionGroup:
    """A button that opens a second, private choice among the options of its group."""

    key: str
    label: Text
    question: Text

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label.to_dict(), "question": self.question.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OptionGroup:
        return cls(data["key"], Text.from_dict(data["label"]), Text.from_dict(data["question"]))


AudienceKind = Literal["character", "gms", "side", "players"]


@dataclass(frozen=True)
class Audience:
    """Who may answer: the player of a character of the exchange (any GM for a character the GMs run),
    the campaign's GMs, the players of a side's characters, or any player of the campaign (a third party
    stepping in: whoever answers brings their active character into the step). A GM may always answer in
    their stead."""

    kind: AudienceKind
    role: str = ""

    @classmethod
    def character(cls, role: str) -> Audience:
        return cls("character", role)

    @classmethod
    def gms(cls) -> Audience:
        return cls("gms")

    @classmethod
    def side(cls, role: str) -> Audience:
        return cls("side", role)

    @classmethod
    def players(cls) -> Audience:
        return cls("players")


@dataclass(frozen=True)
class ValueRange:
    """A wait answered by a command carrying a whole number in this range (an anchor, a bid...)."""

    minimum: int
    maximum: int


@dataclass(frozen=True)
class Wait:
    """What an exchange waits for. With `deadline_seconds`, `default` (an option key, or a number for a
    value wait) answers it when the time is up; `needs_all` waits for every member of the audience.
    `settled` is what its prompt says when another wait of the same step is answered first; `lapse` what it says
    will happen at the deadline, where the default's label would not tell (a number waited for). `waiting_for` is
    whom the lists of open waits name, where its audience would not tell (the GMs hold its buttons, the table
    gives its number). An `optional`
    wait may go unanswered without holding anything up (an offer that another wait of its step settles): it is
    never reminded of, nor counted as stuck."""

    key: str
    audience: Audience
    prompt: Text
    options: tuple[Option, ...] = ()
    groups: tuple[OptionGroup, ...] = ()
    needs_all: bool = False
    value: ValueRange | None = None
    deadline_seconds: int | None = None
    default: str | None = None
    settled: Text | None = None
    lapse: Text | None = None
    waiting_for: Text | None = None
    optional: bool = False

    def __post_init__(self) -> None:
        if not KEY_PATTERN.match(self.key):
            raise ValueError(f"wait keys are short lowercase words: {self.key!r}")
        if not self.options and self.value is None:
            raise ValueError(f"wait {self.key!r} offers nothing to answer")
        keys = [option.key for option in self.options]
        if len(set(keys)) != len(keys):
            raise ValueError(f"wait {self.key!r} offers an option twice")
        groups = {group.key for group in self.groups}
        if any(option.group is not None and option.group not in groups for option in self.options):
            raise ValueError(f"wait {self.key!r} has an option in an unknown group")
        if (self.deadline_seconds is None) != (self.default is None):
            raise ValueError(f"wait {self.key!r}: a deadline needs a default answer, and only a deadline has one")
        if self.deadline_seconds is not None and self.deadline_seconds < 1:
            raise ValueError(f"wait {self.key!r}: the deadline must be at least a second away")
        if self.default is not None and not self.accepts_default(self.default):
            raise ValueError(f"wait {self.key!r}: its default {self.default!r} is not one of its answers")

    def accepts_default(self, default: str) -> bool:
        if default in {option.key for option in self.options}:
            return True
        return self.value is not None and self.accepts_value(default)

    def accepts_value(self, text: str) -> bool:
        if self.value is None or not text.lstrip("-").isdigit():
            return False
        return self.value.minimum <= int(text) <= self.value.maximum

    def option(self, key: str) -> Option | None:
        return next((option for option in self.options if option.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "audience": {"kind": self.audience.kind, "role": self.audience.role},
            "prompt": self.prompt.to_dict(),
            "options": [option.to_dict() for option in self.options],
            "groups": [group.to_dict() for group in self.groups],
            "needs_all": self.needs_all,
            "value": None if self.value is None else {"minimum": self.value.minimum, "maximum": self.value.maximum},
            "deadline_seconds": self.deadline_seconds,
            "default": self.default,
            "settled": self.settled.to_dict() if self.settled else None,
            "lapse": self.lapse.to_dict() if self.lapse else None,
            "waiting_for": self.waiting_for.to_dict() if self.waiting_for else None,
            "optional": self.optional,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Wait:
        value = data.get("value")
        return cls(
            key=data["key"],
            audience=Audience(data["audience"]["kind"], data["audience"].get("role", "")),
            prompt=Text.from_dict(data["prompt"]),
            options=tuple(Option.from_dict(option) for option in data.get("options", [])),
            groups=tuple(OptionGroup.from_dict(group) for group in data.get("groups", [])),
            needs_all=bool(data.get("needs_all", False)),
            value=None if value is None else ValueRange(value["minimum"], value["maximum"]),
            deadline_seconds=data.get("deadline_seconds"),
            default=data.get("default"),
            settled=Text.from_dict(data["settled"]) if data.get("settled") else None,
            lapse=Text.from_dict(data["lapse"]) if data.get("lapse") else None,
            waiting_for=Text.from_dict(data["waiting_for"]) if data.get("waiting_for") else None,
            optional=bool(data.get("optional", False)),
        )


@dataclass(frozen=True)
class Answer:
    """How a wait was answered, as the step that resumes from it receives it.

    `option` is the chosen option's key (None for a value answer); `by` is the user (None when the deadline
    chose the default); `forced` marks a GM answering for the audience. With `needs_all`, `each` holds every
    user's answer and `option`/`value` the last one. `seconds_left` is how long the wait still had before its
    deadline when it was answered (None: it had none), so that a step may keep that deadline or push it back.
    """

    wait: str
    option: str | None = None
    value: int | None = None
    by: int | None = None
    forced: bool = False
    expired: bool = False
    each: Mapping[int, str] = field(default_factory=dict)
    seconds_left: int | None = None


class Outcome(BaseModel):
    """What a step did, in the ruleset's own terms: the ruleset renders it, the log stores it as `event`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: ClassVar[str] = "step"

    def credited_to(self) -> int | None:
        """The user its event is credited to where it is not the step's (a GM's grant inside the roll it leads
        to); None: the step's."""
        return None

    def sheet_secrets(self) -> frozenset[str]:
        """Its fields that tell what a sheet the GMs hide holds (a cost that gives a rank away): the log keeps them
        for the GMs."""
        return frozenset()


OutcomeT = TypeVar("OutcomeT")


@dataclass(frozen=True)
class Resolution(Generic[OutcomeT]):
    """One rule applied: its typed outcome, what was rolled and what changes."""

    outcome: OutcomeT
    rolls: tuple[Roll, ...] = ()
    effects: tuple[Effect, ...] = ()


class Resumption(BaseModel):
    """What a paused exchange keeps until an answer resumes it, one class per step that resumes it: the step is found
    by this class (rules.play.Resumes). `stored_as` is the name the database keeps it under; it stays when the class
    is renamed, because an open wait outlives a release."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stored_as: ClassVar[str]


@dataclass(frozen=True)
class Pause:
    """The exchange stays open until an answer to one of its `waits` resumes it with `state`, whose type names the
    step that resumes it."""

    state: Resumption
    waits: tuple[Wait, ...]

    @property
    def stored_as(self) -> str:
        """The name the database keeps the resuming step under."""
        return self.state.stored_as

    def stored_state(self) -> dict[str, Any]:
        """The state as the database keeps it."""
        return self.state.model_dump(mode="json")

    def __post_init__(self) -> None:
        if not self.waits:
            raise ValueError("a pause waits for something")
        keys = [wait.key for wait in self.waits]
        if len(set(keys)) != len(keys):
            raise ValueError("each wait of a step has its own key")


@dataclass(frozen=True)
class Step:
    """One step of an exchange. `cast` changes who plays a role from now on (role -> character ids), for
    an ally who takes the hit, say. `by` is the user the step's events are credited to where it is not the one
    whose answer resumed it: a roll the GMs granted is the player's who asked for it."""

    rolls: tuple[Roll, ...] = ()
    effects: tuple[Effect, ...] = ()
    outcomes: tuple[Outcome, ...] = ()
    pause: Pause | None = None
    cast: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    by: int | None = None

    @classmethod
    def of(cls, *parts: Resolution[Any] | Step, pause: Pause | None = None) -> Step:
        """One step from several resolutions and steps, in order; outcomes that are `Outcome`s are kept."""
        rolls: list[Roll] = []
        effects: list[Effect] = []
        outcomes: list[Outcome] = []
        cast: dict[str, tuple[int, ...]] = {}
        by: int | None = None
        for part in parts:
            rolls += part.rolls
            effects += part.effects
            if isinstance(part, Step):
                outcomes += part.outcomes
                cast.update(part.cast)
                pause = pause or part.pause
                by = part.by if by is None else by
            elif isinstance(part.outcome, Outcome):
                outcomes.append(part.outcome)
        return cls(tuple(rolls), tuple(effects), tuple(outcomes), pause, cast, by)

    def then(self, other: Step) -> Step:
        return Step.of(self, other, pause=other.pause)


@dataclass(frozen=True)
class Opening:
    """What a ruleset does when a fight starts: a step, and a turn order (character ids) if it rolls one."""

    step: Step = field(default_factory=Step)
    order: tuple[int, ...] | None = None


class RuleError(Exception):
    """An action the rules refuse; `code` and `params` are localized by the bot (a `Text` parameter, a stat's
    or skill's name say, in the reader's words). A `variant` words the refusal by a message of its own for each
    value (`code.variant`), where a word in it (an action's name, say) shapes the whole sentence in some language.
    """

    def __init__(self, code: str, /, *, variant: str | None = None, **params: int | str | Text) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params
        self.variant = variant
