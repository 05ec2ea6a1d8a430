"""What only Crest Magia has, applied to stored state: Destiny Point spends (a GM decides the narrative ones) and
a GM's standing boons, banes and modifiers.

Every spend is a step run by the shared exchange engine, so it is applied, logged and, for an approval,
waited for like any other.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Campaign, Character
from bot.errors import UserError
from bot.services.characters import campaign_characters, find_character
from bot.services.common import Call
from bot.services.exchanges import Progress
from bot.services.held import out_of_play, refuse_held
from bot.services.ruleset_service import Roles, RulesetService
from rules.crest_magia import healing
from rules.crest_magia.destiny import NARRATIVE_USES
from rules.crest_magia.fight import crest_options
from rules.crest_magia.healing import HEALER
from rules.crest_magia.play import RULESET_ID, CrestMagiaPlay
from rules.exchange import Step, Text
from rules.play import ACTOR, EVERYONE, Scene


class CrestService(RulesetService[CrestMagiaPlay]):
    ruleset = RULESET_ID
    play_type = CrestMagiaPlay

    async def spend(
        self, call: Call, use: str, stat: str | None, to: str | None, amount: int | None, note: str | None
    ) -> Progress:
        """A Destiny Point of the actor's active character: spent at once, or (a narrative use by a player) a
        request the GMs approve. A dead character spends nothing; a dying one may still pull itself back."""

        def refuse(play: CrestMagiaPlay, scene: Scene) -> None:
            spender = scene.one(ACTOR)
            refuse_held(spender)
            if play.out_of_play(spender) == "dead":
                raise out_of_play(RULESET_ID, spender, "dead")

        def asked(play: CrestMagiaPlay, scene: Scene) -> Step | None:
            return play.request_destiny(scene, use, note, call.actor.user_id) if use in NARRATIVE_USES else None

        return await self.own_step(
            call,
            "destiny.spend",
            lambda play, scene: play.spend_destiny(scene, use, stat, to, amount, note),
            title="exchange.destiny",
            refuse=refuse,
            asked=asked,
        )

    async def set_standing(self, call: Call, name: str | None, boons: int, banes: int, modifier: int) -> Progress:
        """A GM's standing boons, banes and modifier on one character, or (no name) on everyone in the campaign."""
        role = ACTOR if name is not None else EVERYONE

        async def everyone(session: AsyncSession, campaign: Campaign, character: Character | None) -> Roles:
            characters = await campaign_characters(session, campaign)
            if not characters:
                raise UserError("error.standing_no_characters").within(RULESET_ID)
            return {EVERYONE: characters}

        return await self.gm_step(
            call,
            "standing.set",
            lambda play, scene: play.set_standing(scene, role, boons, banes, modifier),
            name=name,
            title="exchange.standing" if name is not None else Text("exchange.standing_everyone"),
            cast=everyone if name is None else None,
        )

    async def heal(self, call: Call, name: str, amount: int | None, healer_name: str | None) -> Progress:
        """A GM's healing of a character, by an amount or by a healer's roll; the healed one places the HP."""

        async def roles(session: AsyncSession, campaign: Campaign, character: Character | None) -> Roles:
            assert character is not None
            found = {ACTOR: [character]}
            if healer_name is not None:
                found[HEALER] = [await find_character(session, campaign, healer_name)]
            return found

        return await self.gm_step(
            call,
            "heal",
            lambda play, scene: healing.heal(scene, amount, crest_options(scene.options)),
            name=name,
            cast=roles,
        )
