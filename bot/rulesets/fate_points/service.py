"""What only Fate/Points has, applied to stored state: the prana economy, Fate/Point spends (approved by a GM
when the option says so), the GM's rulings, and a Servant's presence beside its Master.

Every action is a step run by the shared exchange engine, so it is applied, logged and, for an approval,
waited for like any other.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Campaign, Character
from bot.errors import UserError
from bot.services.characters import controls, linked
from bot.services.common import Call, active_campaign
from bot.services.exchanges import Progress, turn_of
from bot.services.ruleset_service import Roles, RulesetService
from rules.exchange import Step
from rules.fate_points import FatePointsOptions
from rules.fate_points.play import CONTRACT, MASTER, PAIR_MASTER, PAIR_SERVANT, FatePointsPlay
from rules.play import ACTOR, Scene

RULESET_ID = "fate_points"


class FateService(RulesetService[FatePointsPlay]):
    ruleset = RULESET_ID
    play_type = FatePointsPlay

    async def _pair(self, session: AsyncSession, character: Character) -> tuple[Character, Character]:
        """The Master and Servant of a contract, from either of them."""
        mine = await linked(session, character, CONTRACT, reverse=character.kind == MASTER)
        if not mine:
            raise UserError("error.no_pair", name=character.name).within(RULESET_ID)
        return (character, mine[0]) if character.kind == MASTER else (mine[0], character)

    async def _pair_cast(self, session: AsyncSession, campaign: Campaign, character: Character) -> Roles:
        master, servant = await self._pair(session, character)
        return {ACTOR: [character], PAIR_MASTER: [master], PAIR_SERVANT: [servant]}

    async def transfer(self, call: Call, amount: int) -> Progress:
        return await self.own_step(
            call,
            "fate.transfer",
            lambda play, scene: play.transfer(scene, amount),
            turn=True,
            cast=self._pair_cast,
            in_play=(ACTOR, PAIR_MASTER, PAIR_SERVANT),
        )

    async def regenerate(self, call: Call, hp_points: int, confirm: bool) -> Progress:
        return await self.own_step(
            call, "fate.regen", lambda play, scene: play.regenerate(scene, hp_points, confirm), turn=True
        )

    async def activate(self, call: Call, name: str, use_extra: bool, confirm: bool) -> Progress:
        return await self.own_step(
            call, "fate.activate", lambda play, scene: play.activate(scene, name, use_extra, confirm), turn=True
        )

    async def move(self, call: Call) -> Progress:
        async with self.database.read() as session:
            if not turn_of(await active_campaign(session, call.place)).in_combat:
                raise UserError("error.no_combat")
        return await self.own_step(call, "fate.move", FatePointsPlay.move, turn=True)

    async def set_passive(self, call: Call, enabled: bool) -> Progress:
        """The player's choice for their Servant: replenish passively from the Master over time, or not."""

        async def servant_cast(session: AsyncSession, campaign: Campaign, character: Character) -> Roles:
            _, servant = await self._pair(session, character)
            return {PAIR_SERVANT: [servant]}

        return await self.own_step(
            call,
            "fate.passive",
            lambda play, scene: play.set_passive(scene, enabled),
            cast=servant_cast,
            in_play=(PAIR_SERVANT,),
        )

    async def rest(self, call: Call, name: str) -> Progress:
        return await self.gm_step(call, "fate.rest", FatePointsPlay.rest, name=name)

    async def rule_phantasm(
        self, call: Call, servant: str, phantasm: str, defences: str | None, damage: int | None
    ) -> Progress:
        return await self.gm_step(
            call,
            "fate.np_ruling",
            lambda play, scene: play.rule_phantasm(scene, phantasm, defences, damage),
            name=servant,
        )

    async def god_hand(self, call: Call, name: str, minimum: str | None) -> Progress:
        return await self.gm_step(call, "fate.god_hand", lambda play, scene: play.god_hand(scene, minimum), name=name)

    async def set_ex_cost(self, call: Call, name: str, cost: int, phantasm: str | None) -> Progress:
        return await self.gm_step(
            call, "fate.ex_cost", lambda play, scene: play.set_ex_cost(scene, cost, phantasm), name=name
        )

    async def set_compatibility(self, call: Call, name: str, modifier: int) -> Progress:
        return await self.gm_step(
            call, "fate.compatibility", lambda play, scene: play.set_compatibility(scene, modifier), name=name
        )

    async def set_presence(self, call: Call, name: str, present: bool) -> Progress:
        return await self.gm_step(
            call, "fate.presence", lambda play, scene: play.set_presence(scene, present), name=name
        )

    async def spend(self, call: Call, use: str, stat: str | None) -> Progress:
        """A Fate/Point of the actor's Master: spent at once, or a request that waits for a GM's approval."""

        async def master_cast(session: AsyncSession, campaign: Campaign, character: Character) -> Roles:
            masters = [character] if character.kind == MASTER else await linked(session, character, CONTRACT)
            if not masters or not await controls(session, campaign, masters[0], call.actor):
                raise UserError("error.no_master_of_yours").within(RULESET_ID)
            return {ACTOR: [masters[0]]}

        def needs_gm(play: FatePointsPlay, scene: Scene) -> Step | None:
            options = scene.options
            assert isinstance(options, FatePointsOptions)
            return play.request_fate_point(scene, use, stat, call.actor.user_id) if options.fp_needs_gm_ok else None

        return await self.own_step(
            call,
            "fate.spend",
            lambda play, scene: play.spend_fate_point(scene, use, stat),
            cast=master_cast,
            asked=needs_gm,
        )
