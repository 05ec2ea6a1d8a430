"""What only the Chinese d20 game has, applied to stored state: the Defend stance, MP between a Master and its
Servant, the ritual and a Master's rest. Each is a step run by the shared exchange engine: applied, logged, one
transaction."""

from __future__ import annotations

from collections.abc import Callable

from bot.db.engine import Database
from bot.db.models import Campaign
from bot.rulesets.base import ACTOR, Scene
from bot.rulesets.grail_zh.play import GrailZhPlay
from bot.services.characters import active_character
from bot.services.common import Call, Clock, active_campaign
from bot.services.exchanges import Cast, ExchangeEngine, Progress
from bot.services.held import refuse_fallen
from bot.services.snapshots import ruleset_play
from rules.exchange import Step, Text

RULESET_ID = "grail_zh"


def grail_play(campaign: Campaign) -> GrailZhPlay:
    return ruleset_play(campaign, RULESET_ID, GrailZhPlay)


class GrailService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def act(self, call: Call, kind: str, title_key: str, act: Callable[[GrailZhPlay, Scene], Step]) -> Progress:
        """One of the game's own actions by the actor's active character, which must be able to act."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = grail_play(campaign)
            character = await active_character(session, campaign, call.actor)

            def step(scene: Scene) -> Step:
                refuse_fallen(play, RULESET_ID, scene.members(ACTOR))
                return act(play, scene)

            return await self.engine.run(
                session, campaign, kind=kind, title=Text(title_key, {"name": character.name}),
                cast=Cast({ACTOR: [character]}), step_of=step, dice=call.dice, actor_id=call.actor.user_id,
                channel_id=call.channel_id,
            )  # fmt: skip
