"""What a paused exchange of the anka game keeps until its answer: a battle at one of its waits, a request waiting for
its anchors with the state it goes on with once they are read, a contract waiting for consent, a command seal waiting
for a GM. Their `stored_as` (and a continued state's `continued_as`) are the names open waits were stored under before
the states were typed; a field's default is what those older states meant by leaving it out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from rules.exchange import Resumption
from rules.grail_anka.model import Timing

REQUEST = "request"
Phase = Literal["open", "after", "gms"]
# A catalog text as stored (Text.to_dict).
Said = dict[str, Any]


class _State(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Continued(_State):
    """A state an exchange goes on with once its request's decisions are read; `continued_as` is the name the request
    keeps it under."""

    continued_as: ClassVar[str]


class Request(_State):
    """Decisions committed, waiting for their anchors in order (R1-R3)."""

    ids: tuple[str, ...]
    # What each decides, as it was stored (a catalog text in older states): kept for the record, never read back.
    purposes: tuple[dict[str, Any], ...]
    rates: tuple[int | None, ...]
    anchors: tuple[int, ...] = ()
    # Who gave each anchor (None: drawn by the bot).
    by: tuple[int | None, ...] = ()
    phase: Phase


class Checking(Continued):
    """A GM's check outside battles."""

    continued_as: ClassVar[str] = "check"

    rate: int
    # What it is for, in the GM's words.
    purpose: Said


class MasterlessChecks(Continued):
    """A turn's end waiting for its masterless Servants' vanish checks (R19, R23): each one's place among everyone, its
    rate, and its (dead) Master when the check was committed."""

    continued_as: ClassVar[str] = "masterless"

    turn: int
    masterless: tuple[int, ...]
    rates: tuple[int, ...]
    bound: tuple[int | None, ...]


class Anchoring(Resumption):
    """A request waiting for its next anchor, and the state its exchange goes on with. It is stored flat, as it always
    was: the continued state's fields beside `request`, whose `then` names the continued state's type."""

    stored_as: ClassVar[str] = "anka_anchor"

    request: Request
    continued: SerializeAsAny[Continued]

    @model_validator(mode="before")
    @classmethod
    def _read_flat(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or "continued" in data:
            return data
        request = dict(data[REQUEST])
        continued = CONTINUED[request.pop("then")]
        return {
            REQUEST: request,
            "continued": continued.model_validate({k: v for k, v in data.items() if k != REQUEST}),
        }

    @model_serializer(mode="wrap")
    def _write_flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        return {**data["continued"], REQUEST: {**data[REQUEST], "then": self.continued.continued_as}}


# Battles (R4-R15, R18)


class Placed(_State):
    """A fighter's side and place in its formation."""

    side: str
    place: str


class Used(_State):
    """A skill used in the battle: whose (its fighter's index), which of its skills, when, and whether it was
    cancelled."""

    fighter: int
    skill: int
    timing: Timing
    cancelled: bool


class Spent(_State):
    """Talismans (by `side:kind`) and seals (by Master id) spent earlier in the step being built."""

    talismans: dict[str, int] = {}
    seals: dict[str, int] = {}

    def plus(self, what: Literal["talismans", "seals"], key: str, count: int) -> Spent:
        counts: dict[str, int] = getattr(self, what)
        return self.model_copy(update={what: {**counts, key: counts.get(key, 0) + count}})


class After(_State):
    """The aftermath: the winners who roll on the fatigue table, the losing Servants still to choose a way out, those
    facing their vanish check (at the rates committed), those who retreated, those whose vanish check failed."""

    winners: tuple[int, ...]
    queue: tuple[int, ...]
    facing: tuple[int, ...] = ()
    retreated: tuple[int, ...] = ()
    rescued: bool = False
    facing_rates: tuple[int, ...] = ()
    undo: tuple[int, ...] = ()
    pending: Spent = Spent()


class Battle(_State):
    """A battle between sides `a` and `b`: who goes `first`, whose base it is at, each fighter's side and place, the
    skills used (`uses` by `fighter:skill`) and activated, the parameters picked, the timing and whose turn of it, each
    fighter's fatigue at the start; the skill being used, the talismans spent (side, kind), the activations whose
    fatigue came back; the assassin, side A's win rate, and once decided the winner, how, and the aftermath."""

    first: str
    home: str | None = None
    fighters: tuple[Placed, ...]
    uses: dict[str, int] = {}
    activations: tuple[Used, ...] = ()
    picks: tuple[str, ...] = ()
    timing: Timing = Timing.SETUP
    turn: int = 0
    fatigue_start: tuple[int, ...]
    using: tuple[int, int] | None = None
    spent: tuple[tuple[str, str], ...] = ()
    refunded: tuple[int, ...] = ()
    assassin: int | None = None
    rate: int | None = None
    winner: str | None = None
    decided_by: str | None = None
    retreat_disabled: bool = False
    after: After | None = None

    @classmethod
    def of(cls, battle: Battle, **changes: Any) -> Self:
        """The same battle with `changes`, at another of its steps."""
        return cls(**{**dict(battle), **changes})


class ChoosingSkill(Battle, Resumption):
    stored_as: ClassVar[str] = "anka_skill"


class Countering(Battle, Resumption):
    """A skill activated, the other side asked whether it cancels it (R11)."""

    stored_as: ClassVar[str] = "anka_cancel"

    using: tuple[int, int]


class Picking(Battle, Resumption):
    stored_as: ClassVar[str] = "anka_pick"


class Assassinating(Battle, Continued):
    continued_as: ClassVar[str] = "assassination"

    assassin: int


class DrawingThird(Battle, Continued):
    continued_as: ClassVar[str] = "third"


class Deciding(Battle, Continued):
    """Side A's check at its win rate (R8)."""

    continued_as: ClassVar[str] = "battle"

    rate: int


class Aftermath(Battle):
    """A battle decided, in its aftermath (R12-R15, R18)."""

    winner: str
    after: After


class ChoosingFate(Aftermath, Resumption):
    """A losing Servant's way out (R14)."""

    stored_as: ClassVar[str] = "anka_fate"


class Undoing(Aftermath, Resumption):
    """A Servant whose vanish check failed, its Master asked for two strokes (R18)."""

    stored_as: ClassVar[str] = "anka_undo"


class RollingAftermath(Aftermath, Continued):
    """The winners' fatigue and the losers' vanish checks, committed."""

    continued_as: ClassVar[str] = "aftermath"


CONTINUED: dict[str, type[Continued]] = {
    kind.continued_as: kind
    for kind in (Checking, MasterlessChecks, Assassinating, DrawingThird, Deciding, RollingAftermath)
}


# The campaign's turns (R18, R20)


class Consenting(Resumption):
    """A contract waiting for the players still to consent (their roles), and the Servant's Master when it was asked."""

    stored_as: ClassVar[str] = "anka_contract"

    waiting: tuple[str, ...]
    was: int | None = None


class OrderAsked(Resumption):
    """A command seal for the story, waiting for a GM."""

    stored_as: ClassVar[str] = "anka_order"

    reason: str
