"""Commands only Crest Magia has: /destiny, and /standing and /heal for the GMs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.exchange_views import respond
from bot.gm_only import gm_command
from bot.interactions import Interaction, NameText, call_of, character_choices
from bot.rulesets.crest_magia.service import CrestService
from rules.crest_magia.destiny import DESTINY_USES
from rules.crest_magia.model import STATS
from rules.crest_magia.play import MAX_BOONS

if TYPE_CHECKING:
    from bot.app import Fatebot

# The uses a player asks for with this command; a reroll and an intercept come with the roll they change.
SPENT_HERE = tuple(use for use in DESTINY_USES if use not in ("reroll", "intercept"))
USE_NAMES = {
    "remove_consequence": "Remove a consequence",
    "restore_hp": "Restore an HP pool",
    "reallocate_hp": "Move HP",
    "combine_action": "Combine actions",
    "act_out_of_turn": "Act out of turn",
    "other": "Something else (GM)",
}


@app_commands.guild_only()
class DestinyCog(commands.GroupCog, group_name="destiny", group_description="Crest Magia: Destiny Points"):
    def __init__(self, bot: Fatebot, service: CrestService) -> None:
        self.bot = bot
        self.crest = service
        super().__init__()

    @app_commands.command(name="spend", description="Spend a Destiny Point of your active character")
    @app_commands.describe(
        use="What the point does",
        stat="The pool to restore, or to move HP from",
        to="The pool to move HP to",
        amount="How much HP to move",
        note="What you do (for the GM)",
    )
    @app_commands.choices(
        use=[
            app_commands.Choice(name=locale_str(USE_NAMES[use], key=f"destiny.use.{use}"), value=use)
            for use in SPENT_HERE
        ],
        stat=[app_commands.Choice(name=locale_str(stat, key=f"stat.{stat}"), value=stat) for stat in STATS],
        to=[app_commands.Choice(name=locale_str(stat, key=f"stat.{stat}"), value=stat) for stat in STATS],
    )
    async def spend(
        self,
        interaction: Interaction,
        use: app_commands.Choice[str],
        stat: app_commands.Choice[str] | None = None,
        to: app_commands.Choice[str] | None = None,
        amount: app_commands.Range[int, 1, 12] | None = None,
        note: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        progress = await self.crest.spend(
            call_of(interaction), use.value, stat.value if stat else None, to.value if to else None, amount, note
        )
        await respond(interaction, progress)


BoonCount = app_commands.Range[int, 0, MAX_BOONS]


@app_commands.guild_only()
class StandingCog(commands.GroupCog, group_name="standing", group_description="Crest Magia: a GM's standing boons"):
    """Boons, banes and modifiers a GM sets in advance, because in play by post the GM is rarely there when a
    player rolls: they count on every roll of the character (or of everyone) until a GM clears them."""

    def __init__(self, bot: Fatebot, service: CrestService) -> None:
        self.bot = bot
        self.crest = service
        super().__init__()

    @gm_command(name="set", description="Boons, banes and a modifier on every roll until cleared")
    @app_commands.describe(
        character="Whose rolls (everyone's in the campaign when left out)",
        boons="Boons on each action roll",
        banes="Banes on each action roll",
        modifier="Added to each action roll, defences included",
    )
    async def set_(
        self,
        interaction: Interaction,
        character: NameText | None = None,
        boons: BoonCount = 0,
        banes: BoonCount = 0,
        modifier: app_commands.Range[int, -20, 20] = 0,
    ) -> None:
        progress = await self.crest.set_standing(call_of(interaction), character, boons, banes, modifier)
        await respond(interaction, progress)

    @gm_command(name="clear", description="Remove standing boons, banes and modifier")
    @app_commands.describe(character="Whose (everyone's in the campaign when left out)")
    async def clear(self, interaction: Interaction, character: NameText | None = None) -> None:
        progress = await self.crest.set_standing(call_of(interaction), character, 0, 0, 0)
        await respond(interaction, progress)

    @set_.autocomplete("character")
    @clear.autocomplete("character")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


@app_commands.guild_only()
class HealingCog(commands.Cog):
    def __init__(self, bot: Fatebot, service: CrestService) -> None:
        self.bot = bot
        self.crest = service

    @gm_command(name="heal", description="Crest Magia: heal a character's HP pools")
    @app_commands.describe(
        character="Who is healed (they place the HP, pool by pool)",
        amount="How many HP (left out: the healer rolls 2d6 + healing crest rank or Medicine)",
        healer="Who heals, when the HP are rolled",
    )
    async def heal(
        self,
        interaction: Interaction,
        character: NameText,
        amount: app_commands.Range[int, 1, 100] | None = None,
        healer: NameText | None = None,
    ) -> None:
        progress = await self.crest.heal(call_of(interaction), character, amount, healer)
        await respond(interaction, progress)

    @heal.autocomplete("character")
    @heal.autocomplete("healer")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


async def setup(bot: Fatebot) -> None:
    service = CrestService(bot.database, bot.clock, bot.engine)
    await bot.add_cog(DestinyCog(bot, service))
    await bot.add_cog(StandingCog(bot, service))
    await bot.add_cog(HealingCog(bot, service))
