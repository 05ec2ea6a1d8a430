"""The exchange engine: every ruleset's steps applied, logged, paused and resumed in one place.

A service that starts an exchange (an attack, a check, a GM approval, a hook of the campaign's clock)
calls `ExchangeEngine.run` inside its transaction, with the campaign locked. The engine builds the
`Scene`, asks the ruleset for the first step, applies its effects as atomic updates, logs an event per
outcome, and, when the step pauses, stores the exchange, its roles and its waits. Answers come back
through `ExchangeService` (buttons, commands with a number, GMs forcing or cancelling, deadlines): each
wait leaves 'pending' exactly once (`atomic.answer_wait`), its siblings of the same step superseded in
the same statement, and the ruleset's handler gives the next step. Waits of characters the GMs run are
answered at once when a GM gave the answer in advance.
"""

from __future__ import annotations

import functools
import logging
import math
import socket
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from bot.db.atomic import (
    answer_wait,
    apply_pool_delta,
    count_wait_failure,
    lock_campaign,
    lock_campaign_of_wait,
    lock_holds_joined_rows,
    resolve_wait,
    set_pool,
    set_pool_maximum,
)
from bot.db.engine import Busy, Database
from bot.db.held_events import savepoint
from bot.db.models import (
    ANSWERED,
    CANCELLED,
    DEADLINE_TRIES,
    EXCHANGE_CANCELLED,
    EXCHANGE_CLOSED,
    EXCHANGE_OPEN,
    EXPIRED,
    PENDING,
    SUPERSEDED,
    Campaign,
    Character,
    CharacterLink,
    Commitment,
    Exchange,
    ExchangeRole,
    Membership,
    ResourcePool,
    Side,
    SideMember,
    WaitAnswer,
    WaitRow,
    table_of,
)
from bot.errors import UserError, WaitClosed, new_error_id, refusal_text, rule_refused
from bot.rulesets.base import Ruleset
from bot.services.campaigns import campaign_options
from bot.services.common import (
    SHEET_SECRETS,
    Actor,
    Clock,
    Place,
    active_campaign,
    gm_ids,
    is_gm,
    on_shards,
    readable,
    record_event,
    require_gm,
)
from bot.services.held import decide, refuse_fallen
from bot.services.requests import decided
from bot.services.snapshots import Seen, play_of, snapshots, store_character
from bot.shards import EVERY_GUILD, Shards
from rules.dice import DiceSource
from rules.exchange import (
    Answer,
    Bind,
    Commit,
    Effect,
    JoinSide,
    Note,
    Outcome,
    PoolDelta,
    PoolMaximum,
    PoolSet,
    Resumption,
    Reveal,
    Roll,
    RuleError,
    SidePatch,
    StatePatch,
    StateUpdate,
    Step,
    Summon,
    Text,
    UserRef,
    Wait,
    Whisper,
    effect_to_dict,
    member,
)
from rules.play import (
    ANSWERER,
    CharacterSnapshot,
    CommitmentSnapshot,
    Play,
    Pool,
    Renderer,
    Resumptions,
    Scene,
    SideSnapshot,
    Turn,
)

log = logging.getLogger(__name__)

# A GM's answers given in advance may chain (an NPC defends, then withstands...); a ruleset that keeps
# asking the same preset question forever is a bug, not a fight.
MAX_AUTO_ANSWERS = 32
# What fails for a while whichever wait is tried (the database locked, out of reach, or all its connections in use):
# not the wait's fault, so not counted against it; the next look tries again. Only the network's own errors: any
# other OSError (a file its rules read is gone) is the wait's, and is counted like any bug.
PASSING_FAILURES = (Busy, OperationalError, InterfaceError, PoolTimeout, ConnectionError, TimeoutError, socket.gaierror)


class EngineError(Exception):
    """A ruleset returned something the engine cannot apply (an unknown role, pool or handler): a bug."""


def shown_round(campaign: Campaign) -> int:
    """The round as players count it: a fight's rounds from 1 (its first round is stored when it starts)."""
    first = campaign.combat.get("first_round")
    return campaign.round_number - first + 1 if isinstance(first, int) else campaign.round_number


def turn_of(campaign: Campaign) -> Turn:
    return Turn(
        campaign.round_number,
        bool(campaign.combat.get("order")),
        campaign.session_number,
        campaign.turn_number,
        shown_round(campaign),
    )


@dataclass(frozen=True)
class Fallen:
    """A character the last change put out of play ("dead", "down"...)."""

    name: str
    owner_id: int
    fate: str


WhisperTo = tuple[tuple[int, ...], Text]  # the users a whisper is for, and its words


@dataclass(frozen=True)
class Applied:
    """One step as applied: its rolls and outcomes, each changed character's pools now, and who fell."""

    rolls: tuple[Roll, ...]
    outcomes: tuple[Outcome, ...]
    pools: dict[str, dict[str, tuple[int, int | None]]]
    fallen: tuple[Fallen, ...]
    # The characters the GMs run among `pools`: their pools are not shown to the table.
    hidden: frozenset[str] = frozenset()
    # Words for some players alone (a noise only their characters heard): to send each of them privately.
    whispers: tuple[WhisperTo, ...] = ()


@dataclass(frozen=True)
class Prompt:
    """A wait just opened, to post: its id (for its buttons), who may answer (empty: the GMs), and the
    character it is for."""

    wait_id: int
    wait: Wait
    channel_id: int
    audience_ids: tuple[int, ...]
    subject: str | None
    title: Text
    deadline: datetime | None


@dataclass(frozen=True)
class Closed:
    """A wait that ended, and the line its prompt now shows."""

    wait_id: int
    channel_id: int
    message_id: int | None
    summary: Text
    kind: str


@dataclass
class Progress:
    """What one engine call did, for the cog to show: steps applied, waits opened and closed."""

    ruleset: str
    renderer: Renderer  # the ruleset's, for whoever shows the steps
    campaign_id: int
    channel_id: int
    exchange_id: int | None = None
    steps: list[Applied] = field(default_factory=list)
    opened: list[Prompt] = field(default_factory=list)
    closed: list[Closed] = field(default_factory=list)
    # The wait this call answered (its prompt is the message that was clicked), and whether a GM forced it.
    answered: Closed | None = None
    forced: bool = False
    recorded: bool = False  # a `needs_all` answer stored while others are still awaited
    language: str | None = None  # the campaign's language for its public messages (None: the server's)


@dataclass
class Cast:
    """The characters and sides of an exchange by role, as stored objects."""

    roles: dict[str, list[Character]] = field(default_factory=dict)
    sides: dict[str, Side] = field(default_factory=dict)


@dataclass(frozen=True)
class WaitView:
    """A pending wait as /gm pending and the sub-choice buttons show it."""

    ruleset: str
    wait_id: int
    wait: Wait
    title: Text
    subject: str | None
    created_at: datetime
    # The error id of its latest failure, once the deadlines gave up on it (`DEADLINE_TRIES`).
    error_id: str | None = None


@dataclass(frozen=True)
class UnreadableWait:
    """A pending wait whose stored question no longer reads (stored by rules that changed since): /gm pending
    offers its GMs its cancel alone."""

    ruleset: str
    wait_id: int
    created_at: datetime
    error_id: str | None


StepOf = Callable[[Scene], Step]


@dataclass(frozen=True)
class _Running:
    """An exchange while the engine works on it: what its steps are applied to."""

    campaign: Campaign
    play: Play
    exchange: Exchange | None
    kind: str
    title: Text
    cast: Cast
    scene: Scene
    refs: dict[str, Character]
    dice: DiceSource
    # The id of every pool the scene read, by character and name: what the step's pool changes update.
    pool_ids: Mapping[tuple[int, str], int]
    # The exchange's step when this one began (0 for a new exchange): a pause moves it to the next.
    at_step: int = 0


# A step every ruleset shares: it takes the ruleset's play and id before what a ruleset's own step takes.
SharedStep = Callable[[Play, str, Scene, Any, Answer], Step]
# A sheet's approval, a request of the GMs: found before a ruleset's own, so no ruleset takes their names.
SHARED_STEPS = Resumptions[SharedStep](decide, decided)


def _typed(play: Play, stored_as: str | None) -> Resumptions[Any] | None:
    """The steps among which one resumes from a state stored under this name: the shared ones or the ruleset's."""
    if stored_as in SHARED_STEPS:
        return SHARED_STEPS
    return play.resumes if stored_as in play.resumes else None


def _resumable(play: Play, stored_as: str | None) -> bool:
    return _typed(play, stored_as) is not None


def _paused_state(play: Play, exchange: Exchange) -> Resumption:
    """A paused exchange's state as its resuming step takes it."""
    steps = _typed(play, exchange.handler)
    if steps is None or exchange.handler is None:
        raise EngineError(f"no step resumes from {exchange.handler!r}")
    return steps.state(exchange.handler, exchange.state)


def _resumed(play: Play, ruleset: str, exchange: Exchange, scene: Scene, answer: Answer) -> Step:
    """The step an answer gives a paused exchange."""
    stored_as = exchange.handler or ""
    if stored_as in SHARED_STEPS:
        state = SHARED_STEPS.state(stored_as, exchange.state)
        return SHARED_STEPS.step(stored_as)(play, ruleset, scene, state, answer)
    return play.resumes.resume(scene, stored_as, exchange.state, answer)


def _listed(campaign: Campaign, wait: WaitRow, exchange: Exchange) -> WaitView | UnreadableWait:
    """A pending wait as /gm pending lists it, whether or not its stored question still reads."""
    read = readable(
        f"wait {wait.id} of campaign {campaign.id}", lambda: (Wait.from_dict(wait.spec), Text.from_dict(exchange.title))
    )
    if read is None:
        return UnreadableWait(campaign.ruleset, wait.id, wait.created_at, wait.given_up_error)
    spec, title = read
    return WaitView(campaign.ruleset, wait.id, spec, title, wait.subject, wait.created_at, wait.given_up_error)


def _answer_record(answer: Answer) -> dict[str, Any]:
    return {
        "option": answer.option,
        "value": answer.value,
        "by": answer.by,
        "forced": answer.forced,
        "expired": answer.expired,
        "each": {str(user): text for user, text in answer.each.items()},
    }


def _for_gm_run(spec: Wait, wait: WaitRow) -> bool:
    """Whether a wait is for a character the GMs run (its audience: no player, only the GMs)."""
    return spec.audience.kind == "character" and not wait.audience_ids


def _is_secret(outcome: Outcome) -> bool:
    """Whether an outcome tells what a character the GMs run has (its costs, say): it marks itself `secret`."""
    return getattr(outcome, "secret", False) is True


# Each changed pool's current value and maximum, by character name and pool.
PoolsShown = dict[str, dict[str, tuple[int, int | None]]]


def wait_closed(campaign: Campaign, exchange: Exchange, summary: Text | None = None) -> WaitClosed:
    closed = WaitClosed.worded_for(exchange.kind, "wait.already_answered").within(campaign.ruleset)
    closed.summary, closed.kind, closed.language = summary, exchange.kind, campaign.language
    return closed


def _answer_from_record(key: str, record: Mapping[str, Any]) -> Answer:
    each = {int(user): text for user, text in record.get("each", {}).items()}
    return Answer(
        key,
        record.get("option"),
        record.get("value"),
        record.get("by"),
        record.get("forced", False),
        record.get("expired", False),
        each,
    )


def _changed_character(refs: Mapping[str, Character], effect: Effect, hidden: frozenset[str]) -> dict[str, Any]:
    """The character a logged change is made to, by name (a recap tells it without the exchange's cast), and
    whether the GMs hide its sheet."""
    reference = getattr(effect, "who", None)
    character = refs.get(reference) if isinstance(reference, str) else None
    if character is None:
        return {}
    return {"name": character.name, **({"sheet_hidden": True} if character.name in hidden else {})}


class ExchangeEngine:
    """Runs steps inside a caller's transaction; the campaign row is already locked."""

    def __init__(self, clock: Clock, rulesets: Mapping[str, Ruleset]) -> None:
        self.clock = clock
        # The rulesets the process serves: every service that runs exchanges reaches them through its engine.
        self.rulesets = rulesets

    def progress(
        self, campaign: Campaign, channel_id: int, exchange_id: int | None = None, *, recorded: bool = False
    ) -> Progress:
        """Nothing done yet in `campaign`'s exchange, shown in its ruleset's words."""
        renderer = self.rulesets[campaign.ruleset].renderer
        return Progress(
            campaign.ruleset,
            renderer,
            campaign.id,
            channel_id,
            exchange_id,
            recorded=recorded,
            language=campaign.language,
        )

    async def run(
        self,
        session: AsyncSession,
        campaign: Campaign,
        *,
        kind: str,
        title: Text,
        cast: Cast,
        step_of: StepOf,
        dice: DiceSource,
        actor_id: int | None,
        channel_id: int,
        payload: Mapping[str, Any] | None = None,
        seen: Seen | None = None,
    ) -> Progress:
        """Start an exchange: its first step, applied; stored only if it pauses. `seen`: what the caller read of
        the cast in this transaction, unchanged since."""
        progress = self.progress(campaign, channel_id)
        scene, refs, pool_ids = await self._scene(session, campaign, cast, dice, None, seen)
        try:
            step = step_of(scene)
        except RuleError as error:
            raise rule_refused(error, campaign.ruleset) from error
        exchange = None
        if step.pause is not None or any(isinstance(effect, Commit) for effect in step.effects):
            exchange = await self._store_exchange(session, campaign, kind, title, cast, channel_id, actor_id, step)
            progress.exchange_id = exchange.id
        play = play_of(self.rulesets, campaign)
        running = _Running(campaign, play, exchange, kind, title, cast, scene, refs, dice, pool_ids)
        await self._settle(session, running, step, actor_id, progress, payload)
        return progress

    async def answer(
        self,
        session: AsyncSession,
        campaign: Campaign,
        wait: WaitRow,
        answer: Answer,
        dice: DiceSource,
        *,
        status: str = ANSWERED,
    ) -> Progress:
        """Resolve a wait with this answer (exactly once) and resume its exchange."""
        exchange = await session.get(Exchange, wait.exchange_id)
        assert exchange is not None
        progress = self.progress(campaign, exchange.channel_id, exchange.id)
        await self._resume(session, campaign, exchange, wait, answer, dice, status, progress, depth=0)
        return progress

    async def cancel(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        actor_id: int | None,
        *,
        reason: Text | None = None,
        dice: DiceSource | None = None,
        undo_may_fail: bool = False,
    ) -> Progress:
        """End an exchange and its waits: a GM's cancel (with `dice`, the ruleset may undo what the exchange
        counted, `Play.cancelled`), or (with `reason` and no actor) one the rules cannot go on with. An exchange
        the deadlines gave up on (`undo_may_fail`) is cancelled even where its undo fails as its answers did: the
        GMs' cancel is the way out of it, so the undo is logged and left rather than keeping the exchange open."""
        progress = self.progress(campaign, exchange.channel_id, exchange.id)
        if dice is not None and exchange.handler is not None:
            if undo_may_fail:
                await self._undo_or_leave(session, campaign, exchange, actor_id, dice, progress)
            else:
                await self._undo(session, campaign, exchange, actor_id, dice, progress)
        summary = (
            Text("wait.cancelled", {"user": UserRef(actor_id)})
            if reason is None
            else Text("wait.abandoned", {"reason": reason})
        )
        waits = await session.scalars(
            select(WaitRow).where(WaitRow.exchange_id == exchange.id, WaitRow.status == PENDING).order_by(WaitRow.id)
        )
        for wait in list(waits):
            if await resolve_wait(session, wait.id, CANCELLED, {"by": actor_id}, self.clock()):
                progress.closed.append(Closed(wait.id, wait.channel_id, wait.message_id, summary, exchange.kind))
        await _store_progress(session, exchange, status=EXCHANGE_CANCELLED, closed_at=self.clock())
        record_event(
            session,
            campaign.id,
            "exchange.cancelled",
            actor_id=actor_id,
            payload={
                "exchange": exchange.id,
                "kind": exchange.kind,
                "title": exchange.title,
                **({"reason": reason.to_dict()} if reason else {}),
            },
            created_at=self.clock(),
        )
        return progress

    async def _undo(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        actor_id: int | None,
        dice: DiceSource,
        progress: Progress,
    ) -> None:
        play = play_of(self.rulesets, campaign)
        cast, seen = await self._cast(session, exchange)
        scene, refs, pool_ids = await self._scene(session, campaign, cast, dice, exchange, seen)
        undone = play.cancelled(scene, exchange.kind, _paused_state(play, exchange))
        if undone is not None:
            title = Text.from_dict(exchange.title)
            running = _Running(campaign, play, None, exchange.kind, title, cast, scene, refs, dice, pool_ids)
            await self._settle(session, running, undone, actor_id, progress, None)

    async def _undo_or_leave(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        actor_id: int | None,
        dice: DiceSource,
        progress: Progress,
    ) -> None:
        """The undo, or where it fails (a bug, not a refusal or the database away) nothing of it, logged."""
        steps = len(progress.steps)
        try:
            async with savepoint(session):
                await self._undo(session, campaign, exchange, actor_id, dice, progress)
        except (UserError, *PASSING_FAILURES):
            raise
        except Exception:
            del progress.steps[steps:]
            log.exception(
                "the undo of exchange %s of campaign %s failed; it is cancelled without it [error %s]",
                exchange.id,
                campaign.id,
                new_error_id(),
            )

    async def _resume(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        wait: WaitRow,
        answer: Answer,
        dice: DiceSource,
        status: str,
        progress: Progress,
        *,
        depth: int,
    ) -> None:
        siblings = await answer_wait(session, wait, status, _answer_record(answer), SUPERSEDED, self.clock())
        if siblings is None:
            raise wait_closed(campaign, exchange)  # the transaction rolls back: no sibling moves
        if wait.deadline_at is not None:
            left = (wait.deadline_at - self.clock()).total_seconds()
            answer = replace(answer, seconds_left=max(0, math.ceil(left)))
        spec = Wait.from_dict(wait.spec)
        closed = Closed(wait.id, wait.channel_id, wait.message_id, self.summary(spec, wait, answer), exchange.kind)
        progress.closed.append(closed)
        if progress.answered is None:
            progress.answered = closed
            progress.forced = answer.forced
        for sibling_id, channel_id, message_id, sibling_spec in siblings:
            settled = Wait.from_dict(sibling_spec).settled or Text("wait.superseded")
            progress.closed.append(Closed(sibling_id, channel_id, message_id, settled, exchange.kind))
        record_event(
            session,
            campaign.id,
            "wait.answered" if status == ANSWERED else "wait.expired",
            actor_id=answer.by,
            payload={
                "exchange": exchange.id,
                "wait": spec.key,
                "wait_id": wait.id,
                "title": exchange.title,
                "subject": wait.subject,
                "choice": self._choice_label(spec, answer).to_dict(),
                "forced": answer.forced,
            },
            created_at=self.clock(),
            secret=_for_gm_run(spec, wait),
        )
        play = play_of(self.rulesets, campaign)
        if not _resumable(play, exchange.handler):
            raise EngineError(f"{campaign.ruleset} has no handler {exchange.handler!r}")
        cast, seen = await self._cast(session, exchange)
        if answerer := await self._answerer(session, campaign, play, spec, answer, seen):
            cast.roles[ANSWERER] = answerer
        scene, refs, pool_ids = await self._scene(session, campaign, cast, dice, exchange, seen)
        try:
            step = _resumed(play, campaign.ruleset, exchange, scene, answer)
        except RuleError as error:
            raise rule_refused(error, campaign.ruleset) from error
        title = Text.from_dict(exchange.title)
        running = _Running(
            campaign, play, exchange, exchange.kind, title, cast, scene, refs, dice, pool_ids, exchange.step
        )
        credited = answer.by if step.by is None else step.by
        await self._settle(session, running, step, credited, progress, None, depth=depth)

    def _choice_label(self, spec: Wait, answer: Answer) -> Text:
        option = spec.option(answer.option) if answer.option else None
        if option is not None:
            return option.label
        return Text("wait.value", {"value": answer.value if answer.value is not None else "—"})

    def summary(self, spec: Wait, wait: WaitRow, answer: Answer) -> Text:
        """How a wait closed with this answer, as its prompt says."""
        choice = self._choice_label(spec, answer)
        if answer.expired:
            return Text("wait.expired", {"choice": spec.lapse or choice})
        who: str | UserRef = wait.subject or UserRef(answer.by)
        option = spec.option(answer.option) if answer.option else None
        if option is not None and option.summary is not None:
            return Text(option.summary.key, {**option.summary.params, "who": who, "user": UserRef(answer.by)})
        if _for_gm_run(spec, wait):  # what a character the GMs run chose would tell the table its sheet
            return Text("wait.answered_privately", {"who": who})
        key = "wait.forced" if answer.forced else "wait.answered"
        return Text(key, {"who": who, "user": UserRef(answer.by), "choice": choice})

    async def _settle(
        self,
        session: AsyncSession,
        running: _Running,
        step: Step,
        actor_id: int | None,
        progress: Progress,
        payload: Mapping[str, Any] | None,
        *,
        depth: int = 0,
    ) -> None:
        """Apply one step, log it, and pause or close its exchange; then run any answers given in advance."""
        now = self.clock()
        campaign, exchange = running.campaign, running.exchange
        pools, fallen, whispers, clamped = await self._apply(session, running, step.effects, exchange, now)
        # Sheets public steps do not tell (pools, the terms of rolls): the GMs' characters', and everyone's where
        # sheets are private, unless revealed.
        hidden = frozenset(
            character.name
            for character in running.refs.values()
            if running.play.sheet_hidden(character.gm_run, character.state)
        )
        self._log(session, running, step, actor_id, payload, now, clamped, hidden)
        for fell in fallen:  # after the step's own events: who fell because of them
            record_event(
                session,
                campaign.id,
                f"character.{fell.fate}",
                actor_id=None,
                payload={
                    "name": fell.name,
                    "fate": fell.fate,
                    **({"exchange": exchange.id} if exchange is not None else {}),
                },
                created_at=now,
            )
        progress.steps.append(Applied(step.rolls, step.outcomes, pools, tuple(fallen), hidden, tuple(whispers)))
        if exchange is None:
            if step.cast:
                raise EngineError("only a paused exchange can change who plays a role")
            return
        if step.pause is None:
            await _store_progress(session, exchange, status=EXCHANGE_CLOSED, closed_at=now, handler=None)
            return
        if not _resumable(running.play, step.pause.stored_as):
            raise EngineError(f"{campaign.ruleset} has no handler {step.pause.stored_as!r}")
        await _store_progress(
            session, exchange, handler=step.pause.stored_as, state=step.pause.stored_state(), step=running.at_step + 1
        )
        scene, refs = running.scene, running.refs
        if step.cast:  # the waits are for the new cast
            await self._recast(session, exchange, running.cast, step.cast)
            scene, refs, _ = await self._scene(session, campaign, running.cast, running.dice, exchange)
        opened = await self._open(session, campaign, exchange, scene, step.pause.waits, now)
        for (row, audience), wait in zip(opened, step.pause.waits, strict=True):
            progress.opened.append(
                Prompt(row.id, wait, row.channel_id, audience, row.subject, running.title, row.deadline_at)
            )
        for row, _ in opened:
            preset = self._preset(refs, row)
            if preset is None:
                continue
            if depth >= MAX_AUTO_ANSWERS:
                raise EngineError(f"answers given in advance chain more than {MAX_AUTO_ANSWERS} times")
            progress.opened = [prompt for prompt in progress.opened if prompt.wait_id != row.id]
            await self._resume(
                session, campaign, exchange, row, preset, running.dice, ANSWERED, progress, depth=depth + 1
            )
            return  # the first preset answer resumed the step; its siblings are superseded

    def _preset(self, refs: Mapping[str, Character], row: WaitRow) -> Answer | None:
        """A GM's answer given in advance for the character this wait is for, if it is one the GMs run."""
        spec = Wait.from_dict(row.spec)
        character = refs.get(spec.audience.role) if spec.audience.kind == "character" else None
        if character is None or not character.gm_run:
            return None
        option = character.auto_answers.get(spec.key)
        if not isinstance(option, str) or spec.option(option) is None:
            return None
        return Answer(spec.key, option=option)

    async def _open(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange,
        scene: Scene,
        waits: Sequence[Wait],
        now: datetime,
    ) -> list[tuple[WaitRow, tuple[int, ...]]]:
        """The step's waits stored in one INSERT ... RETURNING, each with every column given, so that the rows
        handed back (not the session's: nothing in the transaction changes them through it) are as stored."""
        opened = []
        for wait in waits:
            if wait.audience.kind == "players":
                audience, subject = await self._players(session, campaign), None
            else:
                audience, subject = self._audience(scene, wait)
            deadline = now + timedelta(seconds=wait.deadline_seconds) if wait.deadline_seconds is not None else None
            values = {
                "exchange_id": exchange.id,
                "campaign_id": campaign.id,
                "step": exchange.step,
                "key": wait.key,
                "spec": wait.to_dict(),
                "audience_ids": list(audience),
                "subject": subject,
                "status": PENDING,
                "deadline_at": deadline,
                "answer": None,
                "channel_id": exchange.channel_id,
                "message_id": None,
                "created_at": now,
                "resolved_at": None,
                "failures": 0,
                "error_id": None,
            }
            opened.append((values, audience))
        if not opened:
            return []
        ids = (await session.execute(_OPEN_WAITS, [values for values, _ in opened])).scalars()
        return [
            (WaitRow(id=wait_id, **values), audience) for wait_id, (values, audience) in zip(ids, opened, strict=True)
        ]

    async def _players(self, session: AsyncSession, campaign: Campaign) -> tuple[int, ...]:
        """Everyone who plays a character of the campaign, for a wait any of them may answer."""
        return tuple(await session.scalars(_PLAYERS, {"campaign_id": campaign.id}))

    async def _answerer(
        self, session: AsyncSession, campaign: Campaign, play: Play, spec: Wait, answer: Answer, seen: Seen
    ) -> list[Character]:
        """The active character of whoever answered a wait open to every player: it steps into the exchange for
        this step (as ANSWERER), and must be able to act."""
        if spec.audience.kind != "players" or answer.by is None:
            return []
        membership = await session.scalar(
            select(Membership).where(Membership.campaign_id == campaign.id, Membership.user_id == answer.by)
        )
        character = None
        if membership is not None and membership.active_character_id is not None:
            character = await session.get(Character, membership.active_character_id)
        if character is None:
            raise UserError("error.no_active_character")
        refuse_fallen(play, campaign.ruleset, await seen.snapshots(session, [character]))
        return [character]

    def _audience(self, scene: Scene, wait: Wait) -> tuple[tuple[int, ...], str | None]:
        """Who may answer (empty: the GMs) and the character the wait is for."""
        if wait.audience.kind == "gms":
            return (), None
        if wait.audience.kind == "character":
            if "." in wait.audience.role or "/" in wait.audience.role:
                raise EngineError(f"wait {wait.key!r} is for a role of the exchange, not {wait.audience.role!r}")
            character = scene.get(wait.audience.role)
            if character is None:
                raise EngineError(f"wait {wait.key!r} is for {wait.audience.role!r}, who is not in the exchange")
            return (() if character.gm_run else (character.owner_id,)), character.name
        side = scene.sides.get(wait.audience.role)
        if side is None:
            raise EngineError(f"wait {wait.key!r} is for side {wait.audience.role!r}, which is not in the exchange")
        players = dict.fromkeys(character.owner_id for character, _ in side.members if not character.gm_run)
        return tuple(players), side.name

    async def _apply(
        self,
        session: AsyncSession,
        running: _Running,
        effects: Sequence[Effect],
        exchange: Exchange | None,
        now: datetime,
    ) -> tuple[PoolsShown, list[Fallen], list[WhisperTo], dict[int, int]]:
        """Pool changes as atomic updates, states of characters and sides replaced or patched, bindings and sides
        changed, commitments stored, characters summoned, whispers addressed; report who fell, and what each
        pool delta held at a pool's bound really changed (by the effect's place in `effects`)."""
        campaign, play, refs = running.campaign, running.play, running.refs
        whispers: list[WhisperTo] = []
        pools: PoolsShown = {}
        touched: dict[int, Character] = {}
        clamped: dict[int, int] = {}
        # What each changed pool holds now (from its UPDATE ... RETURNING), so no read follows the writes.
        changed_pools: dict[int, dict[str, Pool]] = {}
        pool_ids = await self._pool_ids(session, running, effects)
        # The scene's pools were read in this transaction, under the campaign's lock: what each delta starts from.
        values = {
            (shown.id, name): pool.current
            for shown_in_role in running.scene.roles.values()
            for shown in shown_in_role
            for name, pool in shown.pools.items()
        }
        for index, effect in enumerate(effects):
            if isinstance(effect, Note):
                record_event(
                    session, campaign.id, effect.kind, actor_id=None, payload=dict(effect.payload), created_at=now
                )
                continue
            if isinstance(effect, Commit | Reveal):
                await self._commitment(session, campaign, exchange, effect, now)
                continue
            if isinstance(effect, Summon):
                await self._summon(session, running, effect, now)
                continue
            if isinstance(effect, Bind):
                await self._bind(session, campaign, refs, effect, now)
                continue
            if isinstance(effect, JoinSide):
                await self._join_side(session, campaign, running.cast, refs, effect)
                continue
            if isinstance(effect, SidePatch):
                side = running.cast.sides.get(effect.side)
                if side is None:
                    raise EngineError(f"no side plays {effect.side!r} in this exchange")
                side_state = {**side.state, effect.key: effect.value}
                if effect.value is None:
                    del side_state[effect.key]
                side.state = side_state
                continue
            if isinstance(effect, Whisper):
                heard = self._who(refs, effect.who)
                to = tuple(await gm_ids(session, campaign.id)) if heard.gm_run or effect.gms else (heard.owner_id,)
                # A word for the GMs names its channel: they may run several campaigns.
                channel = exchange.channel_id if exchange is not None else campaign.channel_id
                words = (
                    Text("whisper.where", {"words": effect.text, "channel": f"<#{channel}>"})
                    if effect.gms
                    else (effect.text)
                )
                whispers.append((to, words))
                told = "character.gms_told" if effect.gms else "character.whispered"
                record_event(
                    session,
                    campaign.id,
                    told,
                    actor_id=None,
                    secret=True,
                    payload={"name": heard.name, "text": effect.text.to_dict()},
                    created_at=now,
                )
                continue
            character = self._who(refs, effect.who)
            if isinstance(effect, StateUpdate):
                character.state = dict(effect.state)
                continue
            if isinstance(effect, StatePatch):
                state = {**character.state, effect.key: effect.value}
                if effect.value is None:
                    del state[effect.key]
                character.state = state
                continue
            pool_id = pool_ids.get((character.id, effect.pool))
            if pool_id is None:
                raise EngineError(f"{character.name} has no pool {effect.pool!r}")
            if isinstance(effect, PoolDelta):
                # The rules checked every spend under the campaign lock; clamping only stops damage below zero.
                change = await apply_pool_delta(session, pool_id, effect.delta, clamp=True)
                before = values.get((character.id, effect.pool))
                if before is not None and change.current - before != effect.delta:
                    clamped[index] = change.current - before
            elif isinstance(effect, PoolSet):
                change = await set_pool(session, pool_id, effect.value)
            else:
                assert isinstance(effect, PoolMaximum)
                change = await set_pool_maximum(session, pool_id, effect.maximum)
            pools.setdefault(character.name, {})[effect.pool] = (change.current, change.maximum)
            values[(character.id, effect.pool)] = change.current
            shown_pools = changed_pools.setdefault(character.id, {})
            minimum = self._shown(running, character).pools[effect.pool].minimum
            shown_pools[effect.pool] = Pool(change.current, change.maximum, minimum)
            touched[character.id] = character
        fallen = []
        was = {
            shown.id: play.out_of_play(shown)
            for shown_in_role in running.scene.roles.values()
            for shown in shown_in_role
        }
        for character in touched.values():
            shown = self._shown(running, character)
            now_shown = replace(
                shown, pools={**shown.pools, **changed_pools[character.id]}, state=dict(character.state)
            )
            fate = play.out_of_play(now_shown)
            # Fallen by these changes: one already down whose pools move again (prana drawn, say) is not news.
            if fate is not None and fate != was.get(character.id):
                fallen.append(Fallen(character.name, character.owner_id, fate))
        return pools, fallen, whispers, clamped

    async def _bind(
        self, session: AsyncSession, campaign: Campaign, refs: Mapping[str, Character], effect: Bind, now: datetime
    ) -> None:
        character, target = self._who(refs, effect.who), self._who(refs, effect.to)
        await session.execute(
            delete(CharacterLink).where(
                CharacterLink.character_id == character.id, CharacterLink.relation == effect.relation
            )
        )
        session.add(
            CharacterLink(
                campaign_id=campaign.id,
                character_id=character.id,
                target_id=target.id,
                relation=effect.relation,
                created_at=now,
            )
        )
        if effect.with_player:
            character.owner_id, character.gm_run = target.owner_id, target.gm_run

    async def _join_side(
        self, session: AsyncSession, campaign: Campaign, cast: Cast, refs: Mapping[str, Character], effect: JoinSide
    ) -> None:
        character = self._who(refs, effect.who)
        side = cast.sides.get(effect.side)
        if side is None:
            raise EngineError(f"no side plays {effect.side!r} in this exchange")
        await session.execute(
            delete(SideMember).where(
                SideMember.character_id == character.id,
                SideMember.side_id.in_(select(Side.id).where(Side.campaign_id == campaign.id)),
            )
        )
        session.add(SideMember(side_id=side.id, character_id=character.id, place="member"))

    async def _summon(self, session: AsyncSession, running: _Running, effect: Summon, now: datetime) -> None:
        """A character the rules bring into play, its maker's to run (the GMs', for one of theirs); whatever its
        building rolls is logged with it."""
        campaign, play = running.campaign, running.play
        maker = self._who(running.refs, effect.by)
        taken = set(await session.scalars(select(Character.name).where(Character.campaign_id == campaign.id)))
        data = dict(effect.data)
        name, number = str(data.get("name", "")), 1
        while data.get("name") in taken:
            number += 1
            data["name"] = f"{name} {number}"
        draft = play.build(
            effect.kind, data, {}, running.dice, campaign_options(self.rulesets, campaign), gm_run=maker.gm_run
        )
        await store_character(session, campaign, maker.owner_id, draft, maker.gm_run, effect.state, now)
        record_event(
            session,
            campaign.id,
            "character.summoned",
            actor_id=None,
            secret=maker.gm_run,
            payload={
                "name": draft.name,
                "kind": draft.kind,
                "by": maker.name,
                "rolls": [roll.to_dict() for roll in draft.rolls],
            },
            created_at=now,
        )

    async def _pool_ids(
        self, session: AsyncSession, running: _Running, effects: Sequence[Effect]
    ) -> Mapping[tuple[int, str], int]:
        """The pools the effects change, by character and name: the scene read them, so a query only for a
        character it did not."""
        characters = {
            self._who(running.refs, effect.who).id
            for effect in effects
            if isinstance(effect, PoolDelta | PoolSet | PoolMaximum)
        }
        unread = characters - {character_id for character_id, _ in running.pool_ids}
        if not unread:
            return running.pool_ids
        pool = _POOLS.c
        rows = await session.execute(select(pool.character_id, pool.name, pool.id).where(pool.character_id.in_(unread)))
        return {**running.pool_ids, **{(character_id, name): pool_id for character_id, name, pool_id in rows.all()}}

    def _shown(self, running: _Running, character: Character) -> CharacterSnapshot:
        """The character as the step's scene showed it."""
        return next(shown for in_role in running.scene.roles.values() for shown in in_role if shown.id == character.id)

    def _who(self, refs: Mapping[str, Character], reference: str) -> Character:
        character = refs.get(reference)
        if character is None:
            raise EngineError(f"no character plays {reference!r} in this exchange")
        return character

    async def _commitment(
        self,
        session: AsyncSession,
        campaign: Campaign,
        exchange: Exchange | None,
        effect: Commit | Reveal,
        now: datetime,
    ) -> None:
        if exchange is None:
            raise EngineError("a commitment belongs to a stored exchange")
        if not play_of(self.rulesets, campaign).commits:
            raise EngineError(f"{campaign.ruleset} commits nothing (Play.commits), so no step would see it")
        if isinstance(effect, Commit):
            session.add(
                Commitment(
                    campaign_id=campaign.id,
                    exchange_id=exchange.id,
                    key=effect.key,
                    digest=effect.digest,
                    secret=effect.secret,
                    nonce=effect.nonce,
                    created_at=now,
                )
            )
            await session.flush()
            return
        stored = await session.scalar(
            select(Commitment).where(Commitment.exchange_id == exchange.id, Commitment.key == effect.key)
        )
        if stored is None:
            raise EngineError(f"nothing was committed under {effect.key!r}")
        stored.revealed_at = now

    def _log(
        self,
        session: AsyncSession,
        running: _Running,
        step: Step,
        actor_id: int | None,
        payload: Mapping[str, Any] | None,
        now: datetime,
        clamped: Mapping[int, int],
        hidden: frozenset[str],
    ) -> None:
        """One event per outcome, the step's own first one carrying its rolls and changes; a step without outcomes
        is logged under the exchange's kind, so every change leaves an event. An outcome credited to another user
        (a GM's grant inside the roll it leads to) is theirs, without the roll. A pool delta held at the pool's
        bound (damage past 0) carries what it `applied` too, so the log adds up to the pools; each change names
        its character, and marks one whose sheet is `hidden`. What an event tells of the `hidden` sheets (the
        terms of their rolls, an outcome's `sheet_secrets`) is kept apart, for the GMs."""
        campaign, kind, exchange = running.campaign, running.kind, running.exchange
        rolls = [(roll.folded() if roll.by in hidden else roll).to_dict() for roll in step.rolls]
        full_rolls = [roll.to_dict() for roll in step.rolls]
        kept_rolls = {"rolls": full_rolls} if full_rolls != rolls else {}
        effects = [
            {
                **effect_to_dict(effect, public=True),
                **({"applied": clamped[index]} if index in clamped else {}),
                **_changed_character(running.refs, effect, hidden),
            }
            for index, effect in enumerate(step.effects)
            if not isinstance(effect, Note)
        ]
        extra = {**(payload or {}), **({"exchange": exchange.id} if exchange is not None else {})}
        if not step.outcomes:
            if rolls or effects or payload is not None:
                details = {**extra, "rolls": rolls, "effects": effects}
                if kept_rolls:
                    details[SHEET_SECRETS] = kept_rolls
                record_event(session, campaign.id, kind, actor_id=actor_id, payload=details, created_at=now)
            return
        own = [index for index, outcome in enumerate(step.outcomes) if outcome.credited_to() is None]
        # The rolls and changes go with an outcome every reader may see: on a secret one (what a character the GMs
        # run paid) the players would lose the whole step's dice and damage with it.
        public = [index for index in own if not _is_secret(step.outcomes[index])]
        carrier = (public or own or [0])[0]
        for index, outcome in enumerate(step.outcomes):
            details = {**extra, **outcome.model_dump(mode="json")}
            kept = {name: details.pop(name) for name in outcome.sheet_secrets()}
            if index == carrier:
                details.update(rolls=rolls, effects=effects)
                kept.update(kept_rolls)
            if kept:
                details[SHEET_SECRETS] = kept
            secret = _is_secret(outcome)
            credited = outcome.credited_to()
            record_event(
                session,
                campaign.id,
                outcome.event,
                actor_id=actor_id if credited is None else credited,
                payload=details,
                created_at=now,
                secret=secret,
            )

    async def _store_exchange(
        self,
        session: AsyncSession,
        campaign: Campaign,
        kind: str,
        title: Text,
        cast: Cast,
        channel_id: int,
        actor_id: int | None,
        first: Step,
    ) -> Exchange:
        # Stored as the first step will leave it when it pauses (`_settle` sets the same values): no UPDATE follows.
        paused = first.pause
        values = {
            "campaign_id": campaign.id,
            "kind": kind,
            "title": title.to_dict(),
            "handler": paused.stored_as if paused is not None else None,
            "state": paused.stored_state() if paused is not None else {},
            "step": 1 if paused is not None else 0,
            "status": EXCHANGE_OPEN,
            "channel_id": channel_id,
            "created_by": actor_id,
            "created_at": self.clock(),
            "closed_at": None,
        }
        # Inserted by Core (every column given; the session's flush costs half as much again) and handed to the
        # session as the stored row it now is, so that a read of it in the transaction finds this object.
        exchange = Exchange(id=(await session.execute(_STORE_EXCHANGE, values)).scalar_one(), **values)
        make_transient_to_detached(exchange)
        session.add(exchange)
        # Every role in one INSERT, without objects for the session: what reads them later queries them.
        roles = [
            {"role": role, "position": position, "character_id": character.id, "side_id": None}
            for role, characters in cast.roles.items()
            for position, character in enumerate(characters)
        ]
        roles += [
            {"role": role, "position": 0, "character_id": None, "side_id": side.id} for role, side in cast.sides.items()
        ]
        if roles:
            await session.execute(_STORE_ROLES, [{"exchange_id": exchange.id, **role} for role in roles])
        return exchange

    async def _recast(
        self, session: AsyncSession, exchange: Exchange, cast: Cast, changes: Mapping[str, tuple[int, ...]]
    ) -> None:
        for role, character_ids in changes.items():
            characters = [await session.get(Character, character_id) for character_id in character_ids]
            if any(character is None or character.campaign_id != exchange.campaign_id for character in characters):
                raise EngineError(f"role {role!r} given a character outside the campaign")
            rows = await session.scalars(
                select(ExchangeRole).where(ExchangeRole.exchange_id == exchange.id, ExchangeRole.role == role)
            )
            for row in list(rows):
                await session.delete(row)
            await session.flush()
            for position, character_id in enumerate(character_ids):
                session.add(
                    ExchangeRole(exchange_id=exchange.id, role=role, position=position, character_id=character_id)
                )
            cast.roles[role] = [character for character in characters if character is not None]

    async def _cast(self, session: AsyncSession, exchange: Exchange) -> tuple[Cast, Seen]:
        """The exchange's cast and, read with it, its characters as the rules see them."""
        cast, seen = Cast(), Seen()
        for stored in await seen.cast_of(session, exchange.id):
            if stored.side_id is not None:
                side = await session.get(Side, stored.side_id)
                if side is not None:
                    cast.sides[stored.role] = side
            elif stored.character is not None:
                cast.roles.setdefault(stored.role, []).append(stored.character)
        return cast, seen

    async def _scene(
        self,
        session: AsyncSession,
        campaign: Campaign,
        cast: Cast,
        dice: DiceSource,
        exchange: Exchange | None,
        seen: Seen | None = None,
    ) -> tuple[Scene, dict[str, Character], dict[tuple[int, str], int]]:
        """What the rules see of the cast, the rows behind each of its references, and the ids of their pools;
        what the caller has `seen` of them in this transaction is not read again."""
        refs: dict[str, Character] = {}
        roles: dict[str, tuple[CharacterSnapshot, ...]] = {}
        everyone = [character for characters in cast.roles.values() for character in characters]
        seen = seen or Seen()
        loaded, pool_ids = seen.rows, seen.pool_ids
        shown_in_order = iter(await seen.snapshots(session, everyone))
        for role, characters in cast.roles.items():
            shown = []
            for position, character in enumerate(characters):
                current = next(shown_in_order)
                shown.append(current)
                reference = member(role, position)
                refs[reference] = character
                for relation, partners in current.bound_to.items():
                    roles[f"{reference}.{relation}"] = partners
                    refs[f"{reference}.{relation}"] = loaded[partners[0].id]
                for relation, partners in current.bound_by.items():
                    roles[f"{reference}.by.{relation}"] = partners
                    refs[f"{reference}.by.{relation}"] = loaded[partners[0].id]
            roles[role] = tuple(shown)
        sides = {role: await self._side(session, side, loaded, pool_ids) for role, side in cast.sides.items()}
        for role, side in sides.items():
            for position, (side_member, _) in enumerate(side.members):
                roles[f"{role}/{position}"] = (side_member,)
                refs[f"{role}/{position}"] = loaded[side_member.id]
        commitments: dict[str, CommitmentSnapshot] = {}
        if exchange is not None and play_of(self.rulesets, campaign).commits:
            for stored in await session.scalars(select(Commitment).where(Commitment.exchange_id == exchange.id)):
                commitments[stored.key] = CommitmentSnapshot(
                    stored.key, stored.digest, stored.secret, stored.nonce, stored.revealed_at is not None
                )
        scene = Scene(
            campaign.id,
            roles,
            turn_of(campaign),
            campaign_options(self.rulesets, campaign),
            dice,
            sides,
            commitments,
            exchange.id if exchange is not None else None,
        )
        return scene, refs, pool_ids

    async def _side(
        self, session: AsyncSession, side: Side, loaded: dict[int, Character], pool_ids: dict[tuple[int, str], int]
    ) -> SideSnapshot:
        rows = await session.execute(
            select(Character, SideMember.place)
            .join(SideMember, SideMember.character_id == Character.id)
            .where(SideMember.side_id == side.id)
            .order_by(SideMember.id)
        )
        found = rows.all()
        shown = await snapshots(session, [character for character, _ in found], loaded=loaded, pool_ids=pool_ids)
        members = tuple(zip(shown, (place for _, place in found), strict=True))
        return SideSnapshot(side.id, side.name, members, dict(side.state))


# The statements that load no objects are built on the tables (see `table_of`).
_WAITS = table_of(WaitRow)
_POOLS = table_of(ResourcePool)
_ROLES = table_of(ExchangeRole)
_CHARACTERS = table_of(Character).c
_EXCHANGES = table_of(Exchange)
_ATTACH_MESSAGE = update(_WAITS).where(_WAITS.c.id == bindparam("wait_id")).values(message_id=bindparam("posted_as"))
_STORE_EXCHANGE = insert(_EXCHANGES).returning(_EXCHANGES.c.id)
_STORE_ROLES = insert(_ROLES)
_PROGRESS = ("status", "handler", "state", "step", "closed_at")
_STORE_PROGRESS = (
    update(_EXCHANGES)
    .where(_EXCHANGES.c.id == bindparam("exchange_id"))
    .values({name: bindparam(f"new_{name}", type_=_EXCHANGES.c[name].type) for name in _PROGRESS})
)
_OPEN_WAITS = insert(_WAITS).returning(_WAITS.c.id, sort_by_parameter_order=True)
_PLAYERS = (
    select(_CHARACTERS.owner_id)
    .where(_CHARACTERS.campaign_id == bindparam("campaign_id"), _CHARACTERS.gm_run.is_(False))
    .distinct()
    .order_by(_CHARACTERS.owner_id)
)
# Read once its campaign is locked: as it stands for this transaction.
_WAIT_AND_EXCHANGE = (
    select(WaitRow, Exchange)
    .join(Exchange, Exchange.id == WaitRow.exchange_id)
    .where(WaitRow.id == bindparam("wait_id"))
    .execution_options(populate_existing=True)
)
_CAMPAIGN_WAIT_AND_EXCHANGE = (
    select(Campaign, WaitRow, Exchange)
    .join(WaitRow, WaitRow.campaign_id == Campaign.id)
    .join(Exchange, Exchange.id == WaitRow.exchange_id)
    .where(WaitRow.id == bindparam("wait_id"))
    .execution_options(populate_existing=True)
)


async def _store_progress(session: AsyncSession, exchange: Exchange, **changes: Any) -> None:
    """Store how far the exchange has come (its `_PROGRESS` columns), by Core, and tell the object that it is
    stored: the session's flush of the same change costs about three times as much. Nothing is written when
    nothing changes (a new exchange was stored as its first step leaves it)."""
    if all(getattr(exchange, name) == value for name, value in changes.items()):
        return
    progress = {f"new_{name}": changes.get(name, getattr(exchange, name)) for name in _PROGRESS}
    await session.execute(_STORE_PROGRESS, {"exchange_id": exchange.id, **progress})
    for name, value in changes.items():
        set_committed_value(exchange, name, value)


class ExchangeService:
    """Answers to waits, from buttons, commands and deadlines; GMs forcing, cancelling and listing them."""

    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine

    async def _pending(
        self, session: AsyncSession, guild_id: int, wait_id: int, *, lock: bool
    ) -> tuple[Campaign, WaitRow, Exchange]:
        """A wait of this guild's active campaigns (its campaign locked when it will change): the campaign, the wait
        and its exchange, as they stand once it is locked. One statement, but where the lock would not hold the
        rows it joins (`lock_holds_joined_rows`): there the campaign is locked first and the rest read after."""
        if lock and not lock_holds_joined_rows(session):
            campaign = await lock_campaign_of_wait(session, wait_id)
            found = (await session.execute(_WAIT_AND_EXCHANGE, {"wait_id": wait_id})).first()
            read = None if campaign is None or found is None else (campaign, *found)
        else:
            read = (await session.execute(_CAMPAIGN_WAIT_AND_EXCHANGE, {"wait_id": wait_id})).first()
        if read is None:
            raise UserError("wait.unknown")
        campaign, wait, exchange = read
        if campaign.guild_id != guild_id or not campaign.is_active:
            raise UserError("wait.unknown")
        if wait.status != PENDING:
            summary = None
            if wait.status in (ANSWERED, EXPIRED) and wait.answer is not None:
                answer = _answer_from_record(wait.key, wait.answer)
                summary = self.engine.summary(Wait.from_dict(wait.spec), wait, answer)
            raise wait_closed(campaign, exchange, summary)
        return campaign, wait, exchange

    async def _may_answer(
        self, session: AsyncSession, campaign: Campaign, wait: WaitRow, exchange: Exchange, actor: Actor
    ) -> bool:
        """Whether the actor answers as themselves (False: a GM answering for a player); refused otherwise."""
        if actor.user_id in wait.audience_ids:
            return True
        if await is_gm(session, campaign.id, actor):
            return not wait.audience_ids  # the GMs' own wait (an approval, a character they run), or forcing
        if not wait.audience_ids:
            raise UserError("error.gm_only")
        raise UserError.worded_for(exchange.kind, "wait.not_yours").within(campaign.ruleset)

    async def view(self, guild_id: int, wait_id: int, actor: Actor) -> WaitView:
        """A wait for whoever may answer it (the options behind a group button)."""
        async with self.database.read() as session:
            campaign, wait, exchange = await self._pending(session, guild_id, wait_id, lock=False)
            await self._may_answer(session, campaign, wait, exchange, actor)
            return WaitView(
                campaign.ruleset,
                wait.id,
                Wait.from_dict(wait.spec),
                Text.from_dict(exchange.title),
                wait.subject,
                wait.created_at,
            )

    async def answer(self, guild_id: int, wait_id: int, actor: Actor, option: str, dice: DiceSource) -> Progress:
        async with self.database.write() as session:
            campaign, wait, exchange = await self._pending(session, guild_id, wait_id, lock=True)
            own = await self._may_answer(session, campaign, wait, exchange, actor)
            spec = Wait.from_dict(wait.spec)
            if spec.option(option) is None:
                raise UserError("wait.unknown_choice", choice=option)
            return await self._answer(session, campaign, wait, spec, actor, option, None, own, dice)

    async def answer_value(
        self,
        place: Place,
        actor: Actor,
        value: int,
        dice: DiceSource,
        *,
        key: str | None = None,
        wait_id: int | None = None,
    ) -> Progress:
        """A number for a wait that takes one (an anchor...): the given wait, or the only one open to the actor in
        this channel's campaign (`key` narrows it down to one kind of wait)."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            if wait_id is None:
                wait_id = await self._only_value_wait(session, campaign, actor, key)
            # The wait must be this channel's campaign's, the one locked: another's is not answered from here.
            waits_campaign, wait, exchange = await self._pending(session, place.guild_id, wait_id, lock=False)
            if waits_campaign.id != campaign.id:
                raise UserError("wait.unknown")
            own = await self._may_answer(session, campaign, wait, exchange, actor)
            spec = Wait.from_dict(wait.spec)
            if spec.value is None:
                raise UserError("wait.no_number")
            if not spec.accepts_value(str(value)):
                raise UserError(
                    "wait.number_out_of_range", value=value, minimum=spec.value.minimum, maximum=spec.value.maximum
                )
            return await self._answer(session, campaign, wait, spec, actor, None, value, own, dice)

    async def _only_value_wait(self, session: AsyncSession, campaign: Campaign, actor: Actor, key: str | None) -> int:
        gm = await is_gm(session, campaign.id, actor)
        candidates = []
        for wait in await session.scalars(
            select(WaitRow).where(WaitRow.campaign_id == campaign.id, WaitRow.status == PENDING).order_by(WaitRow.id)
        ):
            # One wait whose question no longer reads leaves the campaign's other numbers to be given.
            spec = readable(f"wait {wait.id} of campaign {campaign.id}", functools.partial(Wait.from_dict, wait.spec))
            if spec is None or spec.value is None or (key is not None and spec.key != key):
                continue
            if actor.user_id in wait.audience_ids or (gm and not wait.audience_ids):
                candidates.append(wait.id)
        if not candidates:
            raise UserError("wait.no_number_waiting")
        if len(candidates) > 1:
            raise UserError("wait.several_numbers_waiting", ids=", ".join(f"#{wait_id}" for wait_id in candidates))
        return candidates[0]

    async def _answer(
        self,
        session: AsyncSession,
        campaign: Campaign,
        wait: WaitRow,
        spec: Wait,
        actor: Actor,
        option: str | None,
        value: int | None,
        own: bool,
        dice: DiceSource,
    ) -> Progress:
        text = option if option is not None else str(value)
        each: dict[int, str] = {}
        if spec.needs_all and own:
            mine = await session.scalar(
                select(WaitAnswer.id).where(WaitAnswer.wait_id == wait.id, WaitAnswer.user_id == actor.user_id)
            )
            if mine is not None:
                raise UserError("wait.already_yours")
            session.add(WaitAnswer(wait_id=wait.id, user_id=actor.user_id, answer=text, created_at=self.clock()))
            await session.flush()
            stored = await session.scalars(select(WaitAnswer).where(WaitAnswer.wait_id == wait.id))
            each = {row.user_id: row.answer for row in stored}
            if set(wait.audience_ids) - each.keys():
                record_event(
                    session,
                    campaign.id,
                    "wait.answer_recorded",
                    actor_id=actor.user_id,
                    payload={"exchange": wait.exchange_id, "wait": spec.key, "subject": wait.subject},
                    created_at=self.clock(),
                )
                return self.engine.progress(campaign, wait.channel_id, wait.exchange_id, recorded=True)
        answer = Answer(spec.key, option=option, value=value, by=actor.user_id, forced=not own, each=each)
        return await self.engine.answer(session, campaign, wait, answer, dice)

    async def cancel(self, guild_id: int, wait_id: int, actor: Actor, dice: DiceSource) -> Progress:
        async with self.database.write() as session:
            campaign, wait, exchange = await self._pending(session, guild_id, wait_id, lock=True)
            await require_gm(session, campaign.id, actor)
            return await self.engine.cancel(
                session, campaign, exchange, actor.user_id, dice=dice, undo_may_fail=wait.given_up_error is not None
            )

    async def attach_message(self, wait_id: int, message_id: int) -> None:
        await self.database.execute(_ATTACH_MESSAGE, {"wait_id": wait_id, "posted_as": message_id})

    async def pending(self, place: Place, actor: Actor, limit: int) -> tuple[int, list[WaitView | UnreadableWait]]:
        """Every wait of the campaign still open, oldest first (how many, and the first `limit`): for its GMs."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            await require_gm(session, campaign.id, actor)
            rows = list(
                await session.scalars(
                    select(WaitRow)
                    .where(WaitRow.campaign_id == campaign.id, WaitRow.status == PENDING)
                    .order_by(WaitRow.id)
                )
            )
            views: list[WaitView | UnreadableWait] = []
            for wait in rows[:limit]:
                exchange = await session.get(Exchange, wait.exchange_id)
                assert exchange is not None
                views.append(_listed(campaign, wait, exchange))
            return len(rows), views

    async def expire_due(self, dice: DiceSource, shards: Shards = EVERY_GUILD) -> AsyncIterator[Progress]:
        """Answer every wait of `shards`' guilds whose deadline passed with its default, each in its own
        transaction, and yield what each did as soon as it is done. However many processes look at once, each wait
        is answered once: its campaign is claimed first (a lock that other lookers skip rather than wait for), and a
        wait found answered is left. A wait whose answer raises is logged and counted, and the next is answered;
        after `DEADLINE_TRIES` failures it is left to its GMs."""
        async with self.database.read() as session:
            due = (
                await session.execute(
                    select(WaitRow.id, WaitRow.campaign_id)
                    .join(Campaign, Campaign.id == WaitRow.campaign_id)
                    .where(
                        WaitRow.status == PENDING,
                        WaitRow.deadline_at.is_not(None),
                        WaitRow.deadline_at <= self.clock(),
                        WaitRow.failures < DEADLINE_TRIES,
                        on_shards(Campaign.guild_id, shards),
                    )
                    .order_by(WaitRow.deadline_at, WaitRow.id)
                )
            ).all()
        for wait_id, campaign_id in due:
            try:
                expired = await self._expire_or_abandon(wait_id, dice)
            except PASSING_FAILURES:
                log.warning(
                    "the deadline of wait %s of campaign %s could not be answered now; trying again later",
                    wait_id,
                    campaign_id,
                    exc_info=True,
                )
                continue
            except Exception as error:
                await self._count_failure(wait_id, campaign_id, error)
                continue
            if expired is not None:
                yield expired

    async def _expire_or_abandon(self, wait_id: int, dice: DiceSource) -> Progress | None:
        try:
            return await self._expire(wait_id, dice)
        except UserError as refusal:
            # The rules refuse the default now (a character of the exchange is gone...): waiting on would only fail
            # again at every look, so the exchange ends, saying why.
            return await self._abandon(wait_id, refusal)

    async def _count_failure(self, wait_id: int, campaign_id: int, error: Exception) -> None:
        """A wait's deadline failed: counted against the wait (with the error id its GMs will see) and logged."""
        error_id = new_error_id()
        try:
            async with self.database.write() as session:
                failures = await count_wait_failure(session, wait_id, error_id)
        except Exception:
            log.exception("could not count failure %s against wait %s of campaign %s", error_id, wait_id, campaign_id)
            failures = None
        if failures is not None and failures >= DEADLINE_TRIES:
            outcome = f"failure {failures} of {DEADLINE_TRIES}: left to the campaign's GMs, to answer or cancel"
        elif failures is not None:
            outcome = f"failure {failures} of {DEADLINE_TRIES}: tried again at the next look"
        else:
            outcome = "not counted"
        log.error(
            "the deadline of wait %s of campaign %s failed [error %s], %s",
            wait_id,
            campaign_id,
            error_id,
            outcome,
            exc_info=error,
        )

    async def _due(self, session: AsyncSession, wait_id: int) -> tuple[Campaign, WaitRow] | None:
        """The wait and its campaign, locked, if the wait is still pending in an active campaign. A campaign
        another transaction holds is skipped: its command, or another process, is on it, and a wait still due
        is found again at the next look."""
        wait = await session.get(WaitRow, wait_id)
        if wait is None:
            return None
        campaign = await lock_campaign(session, wait.campaign_id, skip_locked=True)
        await session.refresh(wait)
        if campaign is None or not campaign.is_active or wait.status != PENDING:
            return None  # answered, cancelled or superseded meanwhile: nothing is due any more
        if wait.failures >= DEADLINE_TRIES:
            return None  # given up on meanwhile, by another process: its GMs answer it
        return campaign, wait

    async def _expire(self, wait_id: int, dice: DiceSource) -> Progress | None:
        async with self.database.write() as session:
            due = await self._due(session, wait_id)
            if due is None:
                return None
            campaign, wait = due
            spec = Wait.from_dict(wait.spec)
            assert spec.default is not None
            is_option = spec.option(spec.default) is not None
            answer = Answer(
                spec.key,
                option=spec.default if is_option else None,
                value=None if is_option else int(spec.default),
                expired=True,
            )
            return await self.engine.answer(session, campaign, wait, answer, dice, status=EXPIRED)

    async def _abandon(self, wait_id: int, refusal: UserError) -> Progress | None:
        async with self.database.write() as session:
            due = await self._due(session, wait_id)
            if due is None:
                return None
            campaign, wait = due
            exchange = await session.get(Exchange, wait.exchange_id)
            assert exchange is not None
            return await self.engine.cancel(session, campaign, exchange, None, reason=refusal_text(refusal))
