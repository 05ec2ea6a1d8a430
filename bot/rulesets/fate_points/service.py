"""What only Fate/Points has, applied to stored state: the prana economy, Fate/Point spends (approved by a GM
when the option says so), the GM's rulings, and a Servant's presence beside its Master.

Every action is a step run by the shared exchange engine, so it is applied, logged and, for an approval,
waited for like any other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character
from bot.errors import UserError
from bot.render import mention
from bot.rulesets.base import ACTOR, Scene
from bot.rulesets.fate_points.play import CONTRACT, MASTER, PAIR_MASTER, PAIR_SERVANT, FatePointsPlay
from bot.services.campaigns import campaign_options
from bot.services.characters import active_character, controls, find_character, linked
from bot.services.common import Call, Clock, active_campaign, is_gm, require_gm
from bot.services.exchanges import Cast, ExchangeEngine, Progress, StepOf, turn_of
from bot.services.held import refuse_fallen
from bot.services.play import refuse_out_of_turn
from bot.services.snapshots import ruleset_play
from rules.exchange import Step, Text
from rules.fate_points import FatePointsOptions

RULESET_ID = "fate_points"
P = ParamSpec("P")


def fate_play(campaign: Campaign) -> FatePointsPlay:
    return ruleset_play(campaign, RULESET_ID, FatePointsPlay)


class FateService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.engine = ExchangeEngine(clock)

    async def _run(
        self, session: AsyncSession, campaign: Campaign, kind: str, cast: dict[str, list[Character]], step_of: StepOf,
        call: Call, *, by_player: bool = True,
    ) -> Progress:  # fmt: skip
        """A step of the cast; a player's (not a GM's ruling) is refused when someone in it is out of play."""
        title = Text(f"exchange.{kind}", {"name": next(iter(cast.values()))[0].name})
        play = fate_play(campaign)

        def step(scene: Scene) -> Step:
            if by_player:
                refuse_fallen(play, campaign.ruleset, [fighter for role in cast for fighter in scene.roles[role]])
            return step_of(scene)

        return await self.engine.run(
            session, campaign, kind=kind, title=title, cast=Cast(cast), step_of=step, dice=call.dice,
            actor_id=call.actor.user_id, channel_id=call.channel_id,
        )  # fmt: skip

    async def _own(self, session: AsyncSession, call: Call) -> tuple[Campaign, FatePointsPlay, Character]:
        """The channel's Fate/Points campaign, locked, and the actor's active character."""
        campaign = await active_campaign(session, call.place, lock=True)
        play = fate_play(campaign)
        return campaign, play, await active_character(session, campaign, call.actor)

    async def _own_step(
        self, call: Call, kind: str, method: Callable[Concatenate[FatePointsPlay, Scene, P], Step],
        *args: P.args, **kwargs: P.kwargs,
    ) -> Progress:  # fmt: skip
        """A step of the actor's active character."""
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, call)
            await refuse_out_of_turn(session, campaign, play, character, call.actor)
            return await self._run(
                session, campaign, kind, {ACTOR: [character]}, lambda scene: method(play, scene, *args, **kwargs), call
            )

    async def _gm_step(
        self, call: Call, name: str, kind: str, method: Callable[Concatenate[FatePointsPlay, Scene, P], Step],
        *args: P.args, **kwargs: P.kwargs,
    ) -> Progress:  # fmt: skip
        """A GM's ruling on the named character."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            play = fate_play(campaign)
            await require_gm(session, campaign.id, call.actor)
            character = await find_character(session, campaign, name)
            return await self._run(
                session,
                campaign,
                kind,
                {ACTOR: [character]},
                lambda scene: method(play, scene, *args, **kwargs),
                call,
                by_player=False,
            )

    async def _pair(self, session: AsyncSession, character: Character) -> tuple[Character, Character]:
        """The Master and Servant of a contract, from either of them."""
        mine = await linked(session, character, CONTRACT, reverse=character.kind == MASTER)
        if not mine:
            raise UserError("error.no_pair", name=character.name).within(RULESET_ID)
        return (character, mine[0]) if character.kind == MASTER else (mine[0], character)

    async def transfer(self, call: Call, amount: int) -> Progress:
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, call)
            await refuse_out_of_turn(session, campaign, play, character, call.actor)
            master, servant = await self._pair(session, character)
            cast = {ACTOR: [character], PAIR_MASTER: [master], PAIR_SERVANT: [servant]}
            return await self._run(
                session, campaign, "fate.transfer", cast, lambda scene: play.transfer(scene, amount), call
            )

    async def regenerate(self, call: Call, hp_points: int, confirm: bool) -> Progress:
        return await self._own_step(call, "fate.regen", FatePointsPlay.regenerate, hp_points, confirm)

    async def activate(self, call: Call, name: str, use_extra: bool, confirm: bool) -> Progress:
        return await self._own_step(call, "fate.activate", FatePointsPlay.activate, name, use_extra, confirm)

    async def move(self, call: Call) -> Progress:
        async with self.database.read() as session:
            if not turn_of(await active_campaign(session, call.place)).in_combat:
                raise UserError("error.no_combat")
        return await self._own_step(call, "fate.move", FatePointsPlay.move)

    async def set_passive(self, call: Call, enabled: bool) -> Progress:
        """The player's choice for their Servant: replenish passively from the Master over time, or not."""
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, call)
            _, servant = await self._pair(session, character)
            return await self._run(
                session, campaign, "fate.passive", {PAIR_SERVANT: [servant]},
                lambda scene: play.set_passive(scene, enabled), call,
            )  # fmt: skip

    async def rest(self, call: Call, name: str) -> Progress:
        return await self._gm_step(call, name, "fate.rest", FatePointsPlay.rest)

    async def rule_phantasm(
        self, call: Call, servant: str, phantasm: str, defences: str | None, damage: int | None
    ) -> Progress:
        return await self._gm_step(call, servant, "fate.np_ruling", FatePointsPlay.rule_phantasm, phantasm, defences,
                                   damage)  # fmt: skip

    async def god_hand(self, call: Call, name: str, minimum: str | None) -> Progress:
        return await self._gm_step(call, name, "fate.god_hand", FatePointsPlay.god_hand, minimum)

    async def set_ex_cost(self, call: Call, name: str, cost: int, phantasm: str | None) -> Progress:
        return await self._gm_step(call, name, "fate.ex_cost", FatePointsPlay.set_ex_cost, cost, phantasm)

    async def set_compatibility(self, call: Call, name: str, modifier: int) -> Progress:
        return await self._gm_step(call, name, "fate.compatibility", FatePointsPlay.set_compatibility, modifier)

    async def set_presence(self, call: Call, name: str, present: bool) -> Progress:
        return await self._gm_step(call, name, "fate.presence", FatePointsPlay.set_presence, present)

    async def spend(self, call: Call, use: str, stat: str | None) -> Progress:
        """A Fate/Point of the actor's Master: spent at once, or a request that waits for a GM's approval."""
        async with self.database.write() as session:
            campaign, play, character = await self._own(session, call)
            masters = [character] if character.kind == MASTER else await linked(session, character, CONTRACT)
            master = masters[0] if masters else None
            if master is None or not await controls(session, campaign, master, call.actor):
                raise UserError("error.no_master_of_yours").within(RULESET_ID)
            options = campaign_options(campaign)
            assert isinstance(options, FatePointsOptions)
            needs_gm = options.fp_needs_gm_ok and not await is_gm(session, campaign.id, call.actor)

            def spent(scene: Scene) -> Step:
                if needs_gm:
                    return play.request_fate_point(scene, use, stat, mention(call.actor.user_id))
                return play.spend_fate_point(scene, use, stat)

            return await self._run(session, campaign, "fate.spend", {ACTOR: [master]}, spent, call)
