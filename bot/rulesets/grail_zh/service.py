"""What only the Chinese d20 game has, applied to stored state: the Defend stance, MP between a Master and its
Servant, the ritual and a Master's rest. Each is a step run by the shared exchange engine: applied, logged, one
transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Campaign, Character
from bot.services.characters import campaign_characters, find_character
from bot.services.common import Actor, Call, Place, active_campaign, is_gm
from bot.services.exchanges import Progress
from bot.services.requests import OwnTerms, own_terms_asked
from bot.services.ruleset_service import Roles, RulesetService
from bot.services.snapshots import snapshots
from rules.exchange import Step, Text
from rules.grail_zh import actions
from rules.grail_zh.play import SPELL_KIND, GrailZhPlay
from rules.play import ACTOR, EVERYONE, OPPONENT, Scene

RULESET_ID = "grail_zh"


class GrailService(RulesetService[GrailZhPlay]):
    ruleset = RULESET_ID
    play_type = GrailZhPlay

    async def act(
        self,
        call: Call,
        kind: str,
        title_key: str,
        act: Callable[[GrailZhPlay, Scene], Step],
        *,
        turn: bool = False,
        opponent: str | None = None,
        everyone: bool = False,
        terms: OwnTerms | None = None,
    ) -> Progress:
        """One of the game's own actions by the actor's active character (at an `opponent`, for some; among
        `everyone`, for a search), which must be able to act (and, for an action of its turn in a fight, whose turn
        it must be). A player's action that gives `terms` only the GMs give waits for them to grant them."""

        async def roles(session: AsyncSession, campaign: Campaign, character: Character) -> Roles:
            found = {ACTOR: [character]}
            if opponent is not None:
                found[OPPONENT] = [await find_character(session, campaign, opponent)]
            if everyone:  # what the act looks for may be anyone in the campaign
                found[EVERYONE] = await campaign_characters(session, campaign)
            return found

        def asked(play: GrailZhPlay, scene: Scene) -> Step | None:
            if terms is None:
                return None
            return own_terms_asked(
                scene.one(ACTOR).name, terms, call.actor.user_id, scene, lambda tried: act(play, tried)
            )

        return await self.own_step(
            call, kind, act, title=title_key, turn=turn, cast=roles, asked=asked if terms is not None else None
        )

    async def cast(self, call: Call, spell: str, params: Mapping[str, Any], target: str | None) -> Progress:
        """A spell of the actor's active character, on its turn in a fight; a suggestion's difficulty is the GM's
        (R21: "GM mod"), so a player's waits for the GMs to grant it."""
        what = Text("request.on_spell", {"spell": Text(f"spell.{spell}")})
        terms = OwnTerms(SPELL_KIND, what, {**params, "spell": spell}, {"modifier": 0})
        return await self.act(
            call,
            SPELL_KIND,
            "exchange.spell",
            lambda play, scene: play.cast(scene, spell, params),
            turn=True,
            opponent=target,
            everyone=True,
            terms=terms,
        )

    async def rule_on(
        self,
        call: Call,
        name: str,
        kind: str,
        title_key: str,
        act: Callable[[GrailZhPlay, Scene], Step],
        *,
        opponent: str | None = None,
    ) -> Progress:
        """A GM's ruling on a named character (its square, its status), or between it and an `opponent`."""

        async def roles(session: AsyncSession, campaign: Campaign, character: Character | None) -> Roles:
            assert character is not None
            found = {ACTOR: [character]}
            if opponent is not None:
                found[OPPONENT] = [await find_character(session, campaign, opponent)]
            return found

        return await self.gm_step(call, kind, act, name=name, title=title_key, cast=roles)

    async def squares(self, place: Place, actor: Actor) -> tuple[bool, list[tuple[str, tuple[int, int] | None]]]:
        """Where the characters stand: every one for a GM, a player's own otherwise (positions are what each
        side knows); and whether they are every one (a GM's look)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            self.play_of(campaign)
            gm = await is_gm(session, campaign.id, actor)
            found = await snapshots(session, await campaign_characters(session, campaign), with_links=False)
        return gm, [
            (character.name, actions.square(character))
            for character in found
            if gm or (character.owner_id == actor.user_id and not character.gm_run)
        ]
