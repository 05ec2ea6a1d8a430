"""Commands only Crest Magia has: /destiny."""

from __future__ import annotations

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.app import Fatebot, Interaction, call_of
from bot.cogs.exchanges import respond
from bot.rulesets.crest_magia.service import CrestService
from rules.crest_magia.destiny import DESTINY_USES
from rules.crest_magia.model import STATS

# The uses a player asks for with this command; a reroll and an intercept come with the roll they change.
SPENT_HERE = tuple(use for use in DESTINY_USES if use not in ("reroll", "intercept"))
USE_NAMES = {
    "remove_consequence": "Remove a consequence", "restore_hp": "Restore an HP pool", "reallocate_hp": "Move HP",
    "combine_action": "Combine actions", "act_out_of_turn": "Act out of turn", "other": "Something else (GM)",
}  # fmt: skip


@app_commands.guild_only()
class DestinyCog(commands.GroupCog, group_name="destiny", group_description="Crest Magia: Destiny Points"):
    def __init__(self, bot: Fatebot, service: CrestService) -> None:
        self.bot = bot
        self.crest = service
        super().__init__()

    @app_commands.command(name="spend", description="Spend a Destiny Point of your active character")
    @app_commands.describe(
        use="What the point does", stat="The pool to restore, or to move HP from", to="The pool to move HP to",
        amount="How much HP to move", note="What you do (for the GM)",
    )  # fmt: skip
    @app_commands.choices(
        use=[app_commands.Choice(name=locale_str(USE_NAMES[use], key=f"destiny.use.{use}"), value=use)
             for use in SPENT_HERE],
        stat=[app_commands.Choice(name=locale_str(stat, key=f"stat.{stat}"), value=stat) for stat in STATS],
        to=[app_commands.Choice(name=locale_str(stat, key=f"stat.{stat}"), value=stat) for stat in STATS],
    )  # fmt: skip
    async def spend(
        self, interaction: Interaction, use: app_commands.Choice[str], stat: app_commands.Choice[str] | None = None,
        to: app_commands.Choice[str] | None = None, amount: app_commands.Range[int, 1, 12] | None = None,
        note: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:  # fmt: skip
        progress = await self.crest.spend(
            call_of(interaction), use.value, stat.value if stat else None, to.value if to else None, amount, note
        )
        await respond(interaction, progress)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(DestinyCog(bot, CrestService(bot.database, bot.clock)))
