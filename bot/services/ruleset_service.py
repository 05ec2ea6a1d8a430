"""The frame of a ruleset's own service: a player's act with their own character, and a GM's ruling on a named
one, each a step the process's one exchange engine runs in one transaction, the campaign locked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import ClassVar, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.services.characters import active_character, find_character
from bot.services.common import Call, Clock, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress
from bot.services.held import refuse_fallen
from bot.services.play import refuse_out_of_turn
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


class RulesetService(Generic[PlayT]):
    """A ruleset's service: its `ruleset` id and `play_type`; the database, the clock and the process's engine."""

    ruleset: ClassVar[str]
    play_type: ClassVar[type[Play]]

    def __init__(self, database: Database, clock: Clock, engine: ExchangeEngine) -> None:
        self.database = database
        self.clock = clock
        self.engine = engine

    def play_of(self, campaign: Campaign) -> PlayT:
        """The campaign's rules; another ruleset's campaign is refused."""
        return ruleset_play(campaign, self.ruleset, self.play_type)  # type: ignore[return-value]

    async def own_step(
        self, call: Call, kind: str, act: Act[PlayT], *, title: str | Text | None = None, turn: bool = False,
        cast: OwnCast | None = None, in_play: Sequence[str] = (ACTOR,), refuse: Refusal[PlayT] | None = None,
        asked: Asked[PlayT] | None = None,
    ) -> Progress:  # fmt: skip
        """A player's act with their active character: `cast` makes the roles from it (by default it alone acts),
        `turn` holds it to its turn in a fight. Nobody of the `in_play` roles may be out of play (or `refuse` says
        who may not act). A player's act that needs the GMs' leave (`asked`) waits for it; a GM's is done at once."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = self.play_of(campaign)
            character = await active_character(session, campaign, call.actor)
            if turn:
                await refuse_out_of_turn(session, campaign, play, character, call.actor)
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

            return await self._run(session, campaign, call, kind, title, roles, step)

    async def gm_step(
        self, call: Call, kind: str, act: Act[PlayT], *, name: str | None = None, title: str | Text | None = None,
        cast: RuledCast | None = None,
    ) -> Progress:  # fmt: skip
        """A GM's ruling on the `named` character (`cast` makes other roles, or those of no one character): done
        whatever state the characters are in, since the ruling may be what brings one back."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = self.play_of(campaign)
            await require_gm(session, campaign.id, call.actor)
            character = await find_character(session, campaign, name) if name is not None else None
            if cast is not None:
                roles = await cast(session, campaign, character)
            else:
                assert character is not None, "a ruling on no one character makes its own cast"
                roles = {ACTOR: [character]}
            return await self._run(session, campaign, call, kind, title, roles, lambda scene: act(play, scene))

    async def _run(
        self, session: AsyncSession, campaign: Campaign, call: Call, kind: str, title: str | Text | None,
        roles: Roles, step: Callable[[Scene], Step],
    ) -> Progress:  # fmt: skip
        """The step, titled by its key (`exchange.<kind>` unless given) with the first character of the cast."""
        if not isinstance(title, Text):
            first = next((members[0] for members in roles.values() if members), None)
            title = Text(title or f"exchange.{kind}", {"name": first.name} if first is not None else {})
        return await self.engine.run(
            session, campaign, kind=kind, title=title, cast=Cast(dict(roles)), step_of=step, dice=call.dice,
            actor_id=call.actor.user_id, channel_id=call.channel_id,
        )  # fmt: skip
