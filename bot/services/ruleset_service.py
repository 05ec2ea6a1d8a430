"""The frame of a ruleset's own service: a player's act with their own character, a GM's ruling on a named one, or
an act whose characters, sides and refusals its ruleset finds itself; each a step the process's one exchange engine
runs in one transaction, the campaign locked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, find_character
from bot.services.common import Call, Clock, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress
from bot.services.held import refuse_fallen
from bot.services.play import refuse_out_of_turn
from bot.services.sides import SideService
from bot.services.snapshots import ruleset_play
from rules.exchange import Step, Text
from rules.play import ACTOR, Play, Scene

PlayT = TypeVar("PlayT", bound=Play)
Roles = Mapping[str, list[Character]]
Act = Callable[[PlayT, Scene], Step]
# A player's step that the GMs must allow first: the request, or None when this one needs no leave.
Asked = Callable[[PlayT, Scene], Step | None]
Refusal = Callable[[PlayT, Scene], None]
OwnCast = Callable[[AsyncSession, Campaign, Character], Awaitable[Roles]]
RuledCast = Callable[[AsyncSession, Campaign, Character | None], Awaitable[Roles]]


@dataclass(frozen=True)
class Staged:
    """An act made ready in its transaction: its characters and sides by role, its step, and its title (by default
    the step's key with the first character's name)."""

    cast: Cast
    step: Callable[[Scene], Step]
    title: str | Text | None = None


# Finds an act's characters and sides, and refuses what may not be done in the order its ruleset's rules say.
Stage = Callable[[AsyncSession, Campaign, PlayT], Awaitable[Staged]]


class RulesetService(Generic[PlayT]):
    """A ruleset's service: its `ruleset` id and `play_type`; the database, the clock, the process's engine and the
    campaign's sides."""

    ruleset: ClassVar[str]
    play_type: ClassVar[type[Play]]

    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine
        self.rulesets = engine.rulesets
        self.sides = SideService(database, clock)

    def play_of(self, campaign: Campaign) -> PlayT:
        """The campaign's rules; another ruleset's campaign is refused."""
        return ruleset_play(self.rulesets, campaign, self.ruleset, self.play_type)  # type: ignore[return-value]

    async def own_step(
        self,
        call: Call,
        kind: str,
        act: Act[PlayT],
        *,
        title: str | Text | None = None,
        turn: bool = False,
        cast: OwnCast | None = None,
        in_play: Sequence[str] = (ACTOR,),
        refuse: Refusal[PlayT] | None = None,
        asked: Asked[PlayT] | None = None,
    ) -> Progress:
        """A player's act with their active character: `cast` makes the roles from it (by default it alone acts),
        `turn` holds it to its turn in a fight. Nobody of the `in_play` roles may be out of play (or `refuse` says
        who may not act). A player's act that needs the GMs' leave (`asked`) waits for it; a GM's is done at once."""

        async def stage(session: AsyncSession, campaign: Campaign, play: PlayT) -> Staged:
            character = await active_character(session, campaign, call.actor)
            if turn:
                await refuse_out_of_turn(
                    session, campaign, play, campaign_options(self.rulesets, campaign), character, call.actor
                )
            roles = await cast(session, campaign, character) if cast is not None else {ACTOR: [character]}
            by_gm = asked is not None and await is_gm(session, campaign.id, call.actor)

            def step(scene: Scene) -> Step:
                if refuse is not None:
                    refuse(play, scene)
                else:
                    refuse_fallen(play, self.ruleset, [member for role in in_play for member in scene.members(role)])
                if asked is not None and not by_gm:
                    request = asked(play, scene)
                    if request is not None:
                        return request
                return act(play, scene)

            return Staged(Cast(dict(roles)), step, title)

        return await self.staged_step(call, kind, stage)

    async def gm_step(
        self,
        call: Call,
        kind: str,
        act: Act[PlayT],
        *,
        name: str | None = None,
        title: str | Text | None = None,
        cast: RuledCast | None = None,
    ) -> Progress:
        """A GM's ruling on the `named` character (`cast` makes other roles, or those of no one character): done
        whatever state the characters are in, since the ruling may be what brings one back."""

        async def stage(session: AsyncSession, campaign: Campaign, play: PlayT) -> Staged:
            character = await find_character(session, campaign, name) if name is not None else None
            if cast is not None:
                roles = await cast(session, campaign, character)
            else:
                assert character is not None, "a ruling on no one character makes its own cast"
                roles = {ACTOR: [character]}
            return Staged(Cast(dict(roles)), lambda scene: act(play, scene), title)

        return await self.staged_step(call, kind, stage, gm=True)

    @asynccontextmanager
    async def locked(self, call: Call, *, gm: bool = False) -> AsyncIterator[tuple[AsyncSession, Campaign, PlayT]]:
        """One transaction on the channel's campaign of this ruleset, locked, with its rules; `gm`: a GM's only,
        refused before anything else."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True, member=call.actor)
            play = self.play_of(campaign)
            if gm:
                await require_gm(session, campaign.id, call.actor)
            yield session, campaign, play

    async def staged_step(self, call: Call, kind: str, stage: Stage[PlayT], *, gm: bool = False) -> Progress:
        """An act that `stage` makes ready in the step's one transaction (`locked`). Its title is its key
        (`exchange.<kind>` unless given) with the first character of the cast."""
        async with self.locked(call, gm=gm) as (session, campaign, play):
            staged = await stage(session, campaign, play)
            title = staged.title
            if not isinstance(title, Text):
                first = next((members[0] for members in staged.cast.roles.values() if members), None)
                title = Text(title or f"exchange.{kind}", {"name": first.name} if first is not None else {})
            return await self.engine.run(
                session,
                campaign,
                kind=kind,
                title=title,
                cast=staged.cast,
                step_of=staged.step,
                dice=call.dice,
                actor_id=call.actor.user_id,
                channel_id=call.channel_id,
            )
