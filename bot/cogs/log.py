"""/log: the campaign's recent events, and the whole log as a file."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output
from bot.app import Fatebot, Interaction, actor_of, place_of, translator
from bot.errors import UserError
from bot.export import FORMATS, export_log
from bot.render import log_line
from bot.rulesets.registry import RULESETS

RECENT_EVENTS = 15
EMBED_DESCRIPTION_LIMIT = 4096
AUTOCOMPLETE_LIMIT = 25


@app_commands.guild_only()
class LogCog(commands.GroupCog, group_name="log", group_description="The campaign's log of rolls and changes"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="show", description="Show the latest events of this channel's campaign")
    async def show(self, interaction: Interaction) -> None:
        campaign_log = await self.bot.logs.recent(place_of(interaction), actor_of(interaction), RECENT_EVENTS)
        tr = translator(interaction, campaign_log.campaign.ruleset)
        ruleset = RULESETS.get(campaign_log.campaign.ruleset)
        play = ruleset.play if ruleset else None
        lines = [log_line(tr, entry, play) for entry in campaign_log.entries]
        # The newest lines matter most: drop the oldest until the embed fits.
        while len("\n".join(lines)) > EMBED_DESCRIPTION_LIMIT:
            lines.pop(0)
        embed = discord.Embed(
            title=tr("log.title", name=campaign_log.campaign.name),
            description="\n".join(lines) or tr("log.empty"),
        )
        await output.reply(interaction, embed=embed, ephemeral=True)

    @app_commands.command(name="export", description="Download the whole log of a campaign as a file")
    @app_commands.rename(file_format="format")
    @app_commands.describe(file_format="File format", campaign="Which campaign (default: this channel's)")
    @app_commands.choices(
        file_format=[
            app_commands.Choice(name=locale_str(name.upper(), key=f"choice.format.{name}"), value=name)
            for name in FORMATS
        ]
    )
    async def export(
        self, interaction: Interaction, file_format: app_commands.Choice[str], campaign: str | None = None
    ) -> None:
        tr = translator(interaction)
        campaign_id = None
        if campaign is not None:
            if not campaign.isdigit():
                raise UserError("error.unknown_campaign")
            campaign_id = int(campaign)
        await interaction.response.defer(ephemeral=True, thinking=True)
        campaign_log = await self.bot.logs.export(place_of(interaction), actor_of(interaction), campaign_id)
        data = export_log(campaign_log, file_format.value)
        filename = f"campaign-{campaign_log.campaign.id}-log.{file_format.value}"
        await output.reply(
            interaction,
            tr("log.exported", name=campaign_log.campaign.name, count=len(campaign_log.entries)),
            files=[(filename, data)],
            ephemeral=True,
        )

    @export.autocomplete("campaign")
    async def campaign_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        tr = translator(interaction)
        choices = []
        for found in await self.bot.campaigns.in_guild(interaction.guild_id):
            channel = getattr(self.bot.get_channel(found.channel_id), "name", str(found.channel_id))
            status_key = "log.choice_active" if found.is_active else "log.choice_ended"
            label = tr(status_key, name=found.name, channel=channel)
            if current.lower() in label.lower():
                choices.append(app_commands.Choice(name=label[:100], value=str(found.id)))
        return choices[:AUTOCOMPLETE_LIMIT]


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(LogCog(bot))
