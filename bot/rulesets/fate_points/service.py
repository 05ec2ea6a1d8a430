"""What only Fate/Points has, applied to stored state: the prana economy, Fate/Point spends (approved by a GM
when the option says so), the GM's rulings, a Servant's presence beside its Master, and exact attack odds.

Every action is a step run by the shared exchange engine, so it is applied, logged and, for an approval,
waited for like any other.
"""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.errors import UserError, rule_refused
from bot.render import mention
from bot.rulesets.base import ACTOR, CharacterSnapshot, Scene
from bot.rulesets.fate_points.play import CONTRACT, MASTER, PAIR_MASTER, PAIR_SERVANT, FatePointsPlay
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, find_character, linked, play_of, snapshot
from bot.services.common import Actor, Clock, Place, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress, StepOf, turn_of
from rules.dice import DiceSource
from rules.exchange import RuleError, Step, Text
from rules.fate_points import FatePointsOptions

RULESET_ID = "fate_points"


def fate_play(campaign: Campaign) -> FatePointsPlay:
    play = play_of(campaign)
    if not isinstance(play, FatePointsPlay):
        raise UserError("error.fate_points_only").within(RULESET_ID)
    return play


class FateService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def _run(
        self, session: AsyncSession, campaign: Campaign, kind: str, cast: dict[str, list[Character]],
        step_of: StepOf, dice: DiceSource, actor: Actor, channel_id: int,
    ) -> Progress:  # fmt: skip
        return await self.engine.run(
            session, campaign, kind=kind, title=Text(f"exchange.{kind}", {"name": next(iter(cast.values()))[0].name}),
            cast=Cast(cast), step_of=step_of, dice=dice, actor_id=actor.user_id, channel_id=channel_id,
        )  # fmt: skip

    async def _own(
        self, session: AsyncSession, place: Place, actor: Actor
    ) -> tuple[Campaign, FatePointsPlay, Character]:
        """The channel's Fate/Points campaign, locked, and the actor's active character."""
        campaign = await active_campaign(session, place, lock=True)
        play = fate_play(campaign)
        return campaign, play, await active_character(session, campaign, actor)

    async def _gm(
        self, session: AsyncSession, place: Place, actor: Actor, name: str
    ) -> tuple[Campaign, FatePointsPlay, Character]:
        """The channel's Fate/Points campaign, locked, for a GM-only change to the named character."""
        campaign = await active_campaign(session, place, lock=True)
        play = fate_play(campaign)
        await require_gm(session, campaign.id, actor)
        return campaign, play, await find_character(session, campaign, name)

    async def _pair(self, session: AsyncSession, character: Character) -> tuple[Character, Character]:
        """The Master and Servant of a contract, from either of them."""
        mine = await linked(session, character, CONTRACT, reverse=character.kind == MASTER)
        if not mine:
            raise UserError("error.no_pair", name=character.name)
        return (character, mine[0]) if character.kind == MASTER else (mine[0], character)

    async def transfer(self, place: Place, actor: Actor, amount: int, dice: DiceSource, channel_id: int) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            master, servant = await self._pair(session, character)
            cast = {ACTOR: [character], PAIR_MASTER: [master], PAIR_SERVANT: [servant]}
            return await self._run(session, campaign, "fate.transfer", cast, lambda scene: play.transfer(scene, amount),
                                   dice, actor, channel_id)  # fmt: skip

    async def regenerate(
        self, place: Place, actor: Actor, hp_points: int, confirm: bool, dice: DiceSource, channel_id: int
    ) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            return await self._run(
                session, campaign, "fate.regen", {ACTOR: [character]},
                lambda scene: play.regenerate(scene, hp_points, confirm), dice, actor, channel_id,
            )  # fmt: skip

    async def activate(
        self, place: Place, actor: Actor, name: str, use_extra: bool, confirm: bool, dice: DiceSource, channel_id: int
    ) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            return await self._run(
                session, campaign, "fate.activate", {ACTOR: [character]},
                lambda scene: play.activate(scene, name, use_extra, confirm), dice, actor, channel_id,
            )  # fmt: skip

    async def move(self, place: Place, actor: Actor, dice: DiceSource, channel_id: int) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            if not turn_of(campaign).in_combat:
                raise UserError("error.no_combat")
            return await self._run(session, campaign, "fate.move", {ACTOR: [character]}, play.move, dice, actor,
                                   channel_id)  # fmt: skip

    async def rest(self, place: Place, actor: Actor, name: str, dice: DiceSource, channel_id: int) -> Progress:
        async with self.database.write() as session:
            campaign, play, master = await self._gm(session, place, actor, name)
            return await self._run(session, campaign, "fate.rest", {PAIR_MASTER: [master]}, play.rest, dice, actor,
                                   channel_id)  # fmt: skip

    async def set_passive(
        self, place: Place, actor: Actor, enabled: bool, dice: DiceSource, channel_id: int
    ) -> Progress:
        """The player's choice for their Servant: replenish passively from the Master over time, or not."""
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            _, servant = await self._pair(session, character)
            return await self._run(
                session, campaign, "fate.passive", {PAIR_SERVANT: [servant]},
                lambda scene: play.set_passive(scene, enabled), dice, actor, channel_id,
            )  # fmt: skip

    async def rule_phantasm(
        self, place: Place, actor: Actor, servant_name: str, phantasm: str, defences: str | None, damage: int | None,
        dice: DiceSource, channel_id: int,
    ) -> Progress:  # fmt: skip
        async with self.database.write() as session:
            campaign, play, servant = await self._gm(session, place, actor, servant_name)
            return await self._run(
                session, campaign, "fate.np_ruling", {ACTOR: [servant]},
                lambda scene: play.rule_phantasm(scene, phantasm, defences, damage), dice, actor, channel_id,
            )  # fmt: skip

    async def god_hand(
        self, place: Place, actor: Actor, name: str, minimum: str | None, dice: DiceSource, channel_id: int
    ) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._gm(session, place, actor, name)
            return await self._run(
                session, campaign, "fate.god_hand", {ACTOR: [character]},
                lambda scene: play.god_hand(scene, minimum), dice, actor, channel_id,
            )  # fmt: skip

    async def set_presence(
        self, place: Place, actor: Actor, name: str, present: bool, dice: DiceSource, channel_id: int
    ) -> Progress:
        async with self.database.write() as session:
            campaign, play, master = await self._gm(session, place, actor, name)
            return await self._run(
                session, campaign, "fate.presence", {ACTOR: [master]},
                lambda scene: play.set_presence(scene, present), dice, actor, channel_id,
            )  # fmt: skip

    async def spend(
        self, place: Place, actor: Actor, use: str, stat: str | None, dice: DiceSource, channel_id: int
    ) -> Progress:
        """A Fate/Point of the actor's Master: spent at once, or a request that waits for a GM's approval."""
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, place, actor)
            masters = [character] if character.kind == MASTER else await linked(session, character, CONTRACT)
            master = masters[0] if masters else None
            if master is None or master.owner_id != actor.user_id:
                raise UserError("error.no_master_of_yours")
            options = campaign_options(campaign)
            assert isinstance(options, FatePointsOptions)
            needs_gm = options.fp_needs_gm_ok and not await is_gm(session, campaign.id, actor)

            def spent(scene: Scene) -> Step:
                if needs_gm:
                    return play.request_fate_point(scene, use, stat, mention(actor.user_id))
                return play.spend_fate_point(scene, use, stat)

            return await self._run(session, campaign, "fate.spend", {ACTOR: [master]}, spent, dice, actor, channel_id)

    async def odds(
        self, place: Place, attacker: str, defender: str, action: str, attacks: int, rank: str | None
    ) -> tuple[CharacterSnapshot, CharacterSnapshot, dict[str, Fraction]]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            play = fate_play(campaign)
            attacking = await snapshot(session, await find_character(session, campaign, attacker))
            defending = await snapshot(session, await find_character(session, campaign, defender))
            try:
                chances = play.odds(
                    attacking, defending, action, attacks, rank, campaign.round_number, campaign_options(campaign)
                )
            except RuleError as error:
                raise rule_refused(error, campaign.ruleset) from error
            return attacking, defending, chances
