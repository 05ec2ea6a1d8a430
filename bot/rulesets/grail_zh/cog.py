"""Commands only the Chinese d20 game has: /grail defend, transfer, ritual and rest."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.app import Fatebot, Interaction, call_of
from bot.cogs.exchanges import respond
from bot.rulesets.grail_zh.service import GrailService


@app_commands.guild_only()
class GrailCog(commands.GroupCog, group_name="grail", group_description="The Chinese d20 game: stances and MP"):
    def __init__(self, bot: Fatebot, service: GrailService) -> None:
        self.bot = bot
        self.grail = service
        super().__init__()

    @app_commands.command(name="defend", description="Take the Defend stance until your next turn")
    async def defend(self, interaction: Interaction) -> None:
        progress = await self.grail.act(call_of(interaction), "stance.defend", "exchange.defend",
                                        lambda play, scene: play.defend(scene))  # fmt: skip
        await respond(interaction, progress)

    @app_commands.command(name="transfer", description="A Master gives MP to its Servant: each 1 MP gives it 2")
    @app_commands.describe(amount="MP the Master pays")
    async def transfer(self, interaction: Interaction, amount: app_commands.Range[int, 1, 1000]) -> None:
        progress = await self.grail.act(call_of(interaction), "mp.transfer", "exchange.transfer",
                                        lambda play, scene: play.transfer(scene, amount))  # fmt: skip
        await respond(interaction, progress)

    @app_commands.command(name="ritual", description="The daily ritual: the Servant recovers half its MP")
    @app_commands.describe(reverse="Instead, MP the Master recovers, 10 of the Servant's for each")
    async def ritual(self, interaction: Interaction, reverse: app_commands.Range[int, 1, 100] | None = None) -> None:
        progress = await self.grail.act(call_of(interaction), "mp.ritual", "exchange.ritual",
                                        lambda play, scene: play.ritual(scene, reverse))  # fmt: skip
        await respond(interaction, progress)

    @app_commands.command(name="rest", description="A Master rests 8 hours and recovers all its MP (once a day)")
    async def rest(self, interaction: Interaction) -> None:
        progress = await self.grail.act(call_of(interaction), "mp.rest", "exchange.rest",
                                        lambda play, scene: play.rest(scene))  # fmt: skip
        await respond(interaction, progress)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(GrailCog(bot, GrailService(bot.database, bot.clock)))
