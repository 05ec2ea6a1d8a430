"""What only the Chinese d20 game has, applied to stored state: the Defend stance, MP between a Master and its
Servant, the ritual and a Master's rest. Each is a step run by the shared exchange engine: applied, logged, one
transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.db.engine import Database
from bot.db.models import Campaign
from bot.rulesets.base import ACTOR, EVERYONE, OPPONENT, Scene
from bot.rulesets.grail_zh import actions
from bot.rulesets.grail_zh.play import SPELL_KIND, GrailZhPlay
from bot.services.characters import active_character, campaign_characters, find_character
from bot.services.common import Actor, Call, Clock, Place, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress
from bot.services.held import refuse_fallen
from bot.services.play import refuse_out_of_turn
from bot.services.requests import OwnTerms, own_terms_asked
from bot.services.snapshots import ruleset_play, snapshots
from rules.exchange import Step, Text

RULESET_ID = "grail_zh"


def grail_play(campaign: Campaign) -> GrailZhPlay:
    return ruleset_play(campaign, RULESET_ID, GrailZhPlay)


class GrailService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def act(
        self, call: Call, kind: str, title_key: str, act: Callable[[GrailZhPlay, Scene], Step], *, turn: bool = False,
        opponent: str | None = None, everyone: bool = False, terms: OwnTerms | None = None,
    ) -> Progress:  # fmt: skip
        """One of the game's own actions by the actor's active character (at an `opponent`, for some; among
        `everyone`, for a search), which must be able to act (and, for an action of its turn in a fight, whose turn
        it must be). A player's action that gives `terms` only the GMs give waits for them to grant them."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = grail_play(campaign)
            character = await active_character(session, campaign, call.actor)
            if turn:
                await refuse_out_of_turn(session, campaign, play, character, call.actor)
            roles = {ACTOR: [character]}
            if opponent is not None:
                roles[OPPONENT] = [await find_character(session, campaign, opponent)]
            if everyone:  # what the act looks for may be anyone in the campaign
                roles[EVERYONE] = await campaign_characters(session, campaign)

            by_gm = await is_gm(session, campaign.id, call.actor)

            def step(scene: Scene) -> Step:
                refuse_fallen(play, RULESET_ID, scene.members(ACTOR))
                if terms is not None and not by_gm:
                    asked = own_terms_asked(character.name, terms, call.actor.user_id, scene,
                                            lambda tried: act(play, tried))  # fmt: skip
                    if asked is not None:
                        return asked
                return act(play, scene)

            return await self.engine.run(
                session, campaign, kind=kind, title=Text(title_key, {"name": character.name}),
                cast=Cast(roles), step_of=step, dice=call.dice, actor_id=call.actor.user_id,
                channel_id=call.channel_id,
            )  # fmt: skip

    async def cast(self, call: Call, spell: str, params: Mapping[str, Any], target: str | None) -> Progress:
        """A spell of the actor's active character, on its turn in a fight; a suggestion's difficulty is the GM's
        (R21: "GM mod"), so a player's waits for the GMs to grant it."""
        what = Text("request.on_spell", {"spell": Text(f"spell.{spell}")})
        terms = OwnTerms(SPELL_KIND, what, {**params, "spell": spell}, {"modifier": 0})
        return await self.act(call, SPELL_KIND, "exchange.spell", lambda play, scene: play.cast(scene, spell, params),
                              turn=True, opponent=target, everyone=True, terms=terms)  # fmt: skip

    async def rule_on(
        self, call: Call, name: str, kind: str, title_key: str, act: Callable[[GrailZhPlay, Scene], Step], *,
        opponent: str | None = None,
    ) -> Progress:  # fmt: skip
        """A GM's ruling on a named character (its square, its status), or between it and an `opponent`."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = grail_play(campaign)
            await require_gm(session, campaign.id, call.actor)
            character = await find_character(session, campaign, name)
            roles = {ACTOR: [character]}
            if opponent is not None:
                roles[OPPONENT] = [await find_character(session, campaign, opponent)]
            return await self.engine.run(
                session, campaign, kind=kind, title=Text(title_key, {"name": character.name}),
                cast=Cast(roles), step_of=lambda scene: act(play, scene), dice=call.dice,
                actor_id=call.actor.user_id, channel_id=call.channel_id,
            )  # fmt: skip

    async def squares(self, place: Place, actor: Actor) -> list[tuple[str, tuple[int, int] | None]]:
        """Where the characters stand: every one for a GM, a player's own otherwise (positions are what each
        side knows)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            grail_play(campaign)
            gm = await is_gm(session, campaign.id, actor)
            found = await snapshots(session, await campaign_characters(session, campaign), with_links=False)
        return [(character.name, actions.square(character)) for character in found
                if gm or (character.owner_id == actor.user_id and not character.gm_run)]  # fmt: skip
