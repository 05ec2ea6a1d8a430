"""The test ruleset's own commands: /engine start, strike, duel, side, draft and number."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands
from sqlalchemy import select

from bot import output
from bot.db.engine import Database
from bot.db.models import Side
from bot.exchange_views import respond
from bot.gm_only import gm_command
from bot.interactions import Interaction, actor_of, call_of, place_of
from bot.services.characters import active_character, find_character
from bot.services.common import Call, active_campaign
from bot.services.exchanges import Cast, ExchangeEngine, Progress, StepOf
from bot.services.snapshots import play_of
from rules.exchange import Text
from rules.play import ATTACKER, DEFENDER
from tests.e2e.engine_ruleset.play import ALLY, FIRST, REACTIONS, SECOND, SHIELD, EnginePlay

if TYPE_CHECKING:
    from bot.app import Fatebot


class EngineService:
    def __init__(self, database: Database, engine: ExchangeEngine) -> None:
        self.database = database
        self.engine = engine

    async def run(
        self, call: Call, kind: str, roles: dict[str, str], sides: dict[str, str], step_of: StepOf
    ) -> Progress:
        async with self.database.write() as session:
            campaign = await active_campaign(session, call.place, lock=True)
            cast = Cast()
            if kind in ("strike", "duel"):
                cast.roles[ATTACKER] = [await active_character(session, campaign, call.actor)]
            for role, name in roles.items():
                cast.roles[role] = [await find_character(session, campaign, name)]
            for role, name in sides.items():
                side = await session.scalar(select(Side).where(Side.campaign_id == campaign.id, Side.name == name))
                assert side is not None
                cast.sides[role] = side
            assert isinstance(play_of(self.engine.rulesets, campaign), EnginePlay)
            return await self.engine.run(
                session, campaign, kind=f"engine.{kind}", title=Text("engine.title", {"kind": kind}), cast=cast,
                step_of=step_of, dice=call.dice, actor_id=call.actor.user_id, channel_id=call.channel_id,
            )  # fmt: skip


@app_commands.guild_only()
class EngineCog(commands.GroupCog, group_name="engine", group_description="Exchanges that test the engine"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        self.service = EngineService(bot.database, bot.engine)
        super().__init__()

    @property
    def play(self) -> EnginePlay:
        play = self.bot.rulesets["engine_test"].play
        assert isinstance(play, EnginePlay)
        return play

    async def _run(
        self, interaction: Interaction, kind: str, step_of: StepOf, roles: dict[str, str] | None = None,
        sides: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        progress = await self.service.run(call_of(interaction), kind, roles or {}, sides or {}, step_of)
        await respond(interaction, progress)

    @app_commands.command(name="start", description="Start an engine-test campaign here")
    async def start(self, interaction: Interaction) -> None:
        campaign = await self.bot.campaigns.start(place_of(interaction), actor_of(interaction), "engine_test", "Arena")
        await output.reply(interaction, str(campaign.id))

    @app_commands.command(name="strike", description="Shape 1: resolves at once, an ally may react in time")
    async def strike(self, interaction: Interaction, target: str, ally: str, reaction: str = SHIELD) -> None:
        step_of = partial(self.play.strike, reaction=REACTIONS[reaction])
        await self._run(interaction, "strike", step_of, {DEFENDER: target, ALLY: ally})

    @app_commands.command(name="duel", description="Shape 2: attack, defence, withstand, overflow")
    async def duel(self, interaction: Interaction, target: str) -> None:
        await self._run(interaction, "duel", self.play.duel, {DEFENDER: target})

    @app_commands.command(name="side", description="Form a side of characters")
    async def side(self, interaction: Interaction, name: str, members: str) -> None:
        names = [(member.strip(), "member") for member in members.split(",") if member.strip()]
        await self.bot.sides.create(place_of(interaction), actor_of(interaction), name, names)
        await output.reply(interaction, name)

    @app_commands.command(name="draft", description="Shape 3: sides pick in turn, a number, a commitment")
    async def draft(self, interaction: Interaction, first: str, second: str) -> None:
        await self._run(interaction, "draft", self.play.draft, sides={FIRST: first, SECOND: second})

    @app_commands.command(name="number", description="Answer the wait that asks for a number")
    async def number(self, interaction: Interaction, value: int) -> None:
        progress = await self.bot.exchanges.answer_value(
            place_of(interaction), actor_of(interaction), value, self.bot.dice, key="number"
        )
        await respond(interaction, progress)

    @gm_command(name="marked", description="The GMs' by its mark alone: its own code checks no one")
    async def marked(self, interaction: Interaction) -> None:
        await output.reply(interaction, "ran")


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(EngineCog(bot))
