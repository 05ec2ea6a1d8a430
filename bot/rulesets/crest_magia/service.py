"""What only Crest Magia has, applied to stored state: Destiny Point spends (a GM decides the narrative ones) and
a GM's standing boons, banes and modifiers.

Every spend is a step run by the shared exchange engine, so it is applied, logged and, for an approval,
waited for like any other.
"""

from __future__ import annotations

from bot.db.engine import Database
from bot.db.models import Campaign
from bot.errors import UserError
from bot.render import mention
from bot.rulesets.base import ACTOR, EVERYONE, Scene
from bot.rulesets.crest_magia import healing
from bot.rulesets.crest_magia.fight import crest_options
from bot.rulesets.crest_magia.healing import HEALER
from bot.rulesets.crest_magia.play import RULESET_ID, CrestMagiaPlay
from bot.services.characters import active_character, campaign_characters, find_character
from bot.services.common import Call, Clock, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress
from bot.services.held import out_of_play, refuse_held
from bot.services.snapshots import ruleset_play
from rules.crest_magia.destiny import NARRATIVE_USES
from rules.exchange import Step, Text


def crest_play(campaign: Campaign) -> CrestMagiaPlay:
    return ruleset_play(campaign, RULESET_ID, CrestMagiaPlay)


class CrestService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def spend(
        self, call: Call, use: str, stat: str | None, to: str | None, amount: int | None, note: str | None
    ) -> Progress:
        """A Destiny Point of the actor's active character: spent at once, or (a narrative use by a player) a
        request the GMs approve. A dead character spends nothing; a dying one may still pull itself back."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = crest_play(campaign)
            character = await active_character(session, campaign, call.actor)
            needs_gm = use in NARRATIVE_USES and not await is_gm(session, campaign.id, call.actor)

            def spent(scene: Scene) -> Step:
                spender = scene.one(ACTOR)
                refuse_held(spender)
                if play.out_of_play(spender) == "dead":
                    raise out_of_play(RULESET_ID, spender, "dead")
                if needs_gm:
                    return play.request_destiny(scene, use, note, mention(call.actor.user_id))
                return play.spend_destiny(scene, use, stat, to, amount, note)

            return await self.engine.run(
                session, campaign, kind="destiny.spend", title=Text("exchange.destiny", {"name": character.name}),
                cast=Cast({ACTOR: [character]}), step_of=spent, dice=call.dice, actor_id=call.actor.user_id,
                channel_id=call.channel_id,
            )  # fmt: skip

    async def set_standing(self, call: Call, name: str | None, boons: int, banes: int, modifier: int) -> Progress:
        """A GM's standing boons, banes and modifier on one character, or (no name) on everyone in the campaign."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = crest_play(campaign)
            await require_gm(session, campaign.id, call.actor)
            if name is None:
                role, characters = EVERYONE, await campaign_characters(session, campaign)
                if not characters:
                    raise UserError("error.standing_no_characters").within(RULESET_ID)
                title = Text("exchange.standing_everyone")
            else:
                character = await find_character(session, campaign, name)
                role, characters = ACTOR, [character]
                title = Text("exchange.standing", {"name": character.name})
            return await self.engine.run(
                session, campaign, kind="standing.set", title=title, cast=Cast({role: characters}),
                step_of=lambda scene: play.set_standing(scene, role, boons, banes, modifier), dice=call.dice,
                actor_id=call.actor.user_id, channel_id=call.channel_id,
            )  # fmt: skip

    async def heal(self, call: Call, name: str, amount: int | None, healer_name: str | None) -> Progress:
        """A GM's healing of a character, by an amount or by a healer's roll; the healed one places the HP."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            crest_play(campaign)  # refused in another ruleset's campaign
            await require_gm(session, campaign.id, call.actor)
            character = await find_character(session, campaign, name)
            roles = {ACTOR: [character]}
            if healer_name is not None:
                roles[HEALER] = [await find_character(session, campaign, healer_name)]
            return await self.engine.run(
                session, campaign, kind="heal", title=Text("exchange.heal", {"name": character.name}),
                cast=Cast(roles), step_of=lambda scene: healing.heal(scene, amount, crest_options(scene.options)),
                dice=call.dice, actor_id=call.actor.user_id, channel_id=call.channel_id,
            )  # fmt: skip
