"""/log: the campaign's recent events, and the whole log as a file."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output, pages
from bot.errors import UserError
from bot.export import FORMATS, scratch_folder, write_export
from bot.interactions import Interaction, actor_of, place_of, translator
from bot.render import fall_line, log_line, open_wait_line, pool_label
from bot.services.log import since_moment
from bot.transcript import TRANSCRIPT_FORMATS, Reader

if TYPE_CHECKING:
    from bot.app import Fatebot

EVENTS_PER_PAGE = 15
RECAP_COLOUR = discord.Colour.green()
# The newest events a recap shows, after its summary.
RECAP_LATEST = 10
# Events read and written at a time by an export.
EXPORT_PAGE = 2000
LOG_PAGES = "log"
# An export names at most this many users (each may cost one request to Discord); the rest keep their ids.
NAMED_USERS = 100
EXPORT_MOMENT = "error.export_moment"


@app_commands.guild_only()
class LogCog(commands.GroupCog, group_name="log", group_description="The campaign's log of rolls and changes"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="show", description="Show the campaign's log, newest first, a page at a time")
    async def show(self, interaction: Interaction) -> None:
        await pages.show(interaction, LOG_PAGES)

    @app_commands.command(name="recap", description="What happened since you last played, or since a date")
    @app_commands.describe(since="From when: 2d, 12h, 2026-12-01 or 2026-12-01 18:30 (default: your last move)")
    async def recap(self, interaction: Interaction, since: app_commands.Range[str, 1, 40] | None = None) -> None:
        tr = translator(interaction)
        moment = None
        if since is not None:
            zone = (await self.bot.reminders.settings(interaction.user.id)).time_zone
            moment = since_moment(since, self.bot.clock(), zone)
        recap = await self.bot.logs.recap(place_of(interaction), actor_of(interaction), moment, RECAP_LATEST)
        waits = await self.bot.reminders.waiting_on(interaction.guild_id or 0, interaction.user.id)
        scoped = tr.scoped(recap.campaign.ruleset)
        lines = [tr("recap.counts", events=recap.events, rolls=recap.rolls)]
        for name, pools in recap.changes.items():
            changed = " · ".join(f"{pool_label(scoped, pool)} {net:+d}" for pool, net in pools.items())
            lines.append(tr("recap.character", name=name, changes=changed))
        if not recap.changes:
            lines.append(tr("recap.no_changes"))
        lines.extend(fall_line(scoped, fall) for fall in recap.falls)
        mine = [wait for wait in waits if wait.campaign_id == recap.campaign.id]
        lines.append(tr("recap.waiting", count=len(mine)) if mine else tr("recap.nothing_waiting"))
        lines.extend(open_wait_line(tr, wait, with_campaign=False) for wait in mine)
        if recap.latest:
            renderer = self.bot.rulesets[recap.campaign.ruleset].renderer
            lines.append(tr("recap.latest"))
            lines.extend(log_line(scoped, entry, renderer) for entry in recap.latest)
        embed = discord.Embed(
            title=tr("recap.title", name=recap.campaign.name),
            colour=RECAP_COLOUR,
            description=tr("recap.since", since=f"<t:{int(recap.since.timestamp())}:f>") + "\n" + "\n".join(lines),
        )
        await output.reply(interaction, embed=embed, ephemeral=True)

    @app_commands.command(name="export", description="Download the whole log of a campaign as a file")
    @app_commands.rename(file_format="format")
    @app_commands.describe(
        file_format="File format",
        campaign="Which campaign (default: this channel's)",
        since="From when: 2d, 12h, 2026-12-01 or 2026-12-01 18:30 (default: the beginning)",
        until="Up to when, written the same way (default: now)",
    )
    @app_commands.choices(
        file_format=[
            app_commands.Choice(name=locale_str(name.upper(), key=f"choice.format.{name}"), value=name)
            for name in FORMATS
        ]
    )
    async def export(
        self,
        interaction: Interaction,
        file_format: app_commands.Choice[str],
        campaign: str | None = None,
        since: app_commands.Range[str, 1, 40] | None = None,
        until: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        tr = translator(interaction)
        campaign_id = None
        if campaign is not None:
            if not campaign.isdigit():
                raise UserError("error.unknown_campaign")
            campaign_id = int(campaign)
        zone = (await self.bot.reminders.settings(interaction.user.id)).time_zone
        now = self.bot.clock()
        start = since_moment(since, now, zone, EXPORT_MOMENT) if since is not None else None
        end = since_moment(until, now, zone, EXPORT_MOMENT) if until is not None else None
        if start is not None and end is not None and end < start:
            raise UserError("error.export_range", since=since, until=until)
        await output.defer(interaction, ephemeral=True)
        exportable = await self.bot.logs.exportable(place_of(interaction), actor_of(interaction), campaign_id)
        actor_ids = await self.bot.logs.actor_ids(exportable, NAMED_USERS)
        exportable = replace(
            exportable, user_names=await self._names(interaction.guild, actor_ids), since=start, until=end
        )
        reader, span = None, None
        if file_format.value in TRANSCRIPT_FORMATS:
            ruleset = self.bot.rulesets.get(exportable.campaign.ruleset)
            renderer = ruleset.renderer if ruleset is not None else None
            reader = Reader(tr.scoped(exportable.campaign.ruleset), renderer, zone)
            span = await self.bot.logs.span(exportable)
        with scratch_folder() as folder:
            pages_of = self.bot.logs.rows(exportable, EXPORT_PAGE)
            path, count = await write_export(exportable, pages_of, file_format.value, Path(folder), reader, span)
            text = tr("log.exported", name=exportable.campaign.name, count=count)
            await output.reply(interaction, text, paths=[path], ephemeral=True)

    async def _names(self, guild: discord.Guild | None, user_ids: list[int]) -> dict[int, str]:
        """How the server shows each user (their nickname there, else their name); someone gone keeps only an id."""

        async def name_of(user_id: int) -> str | None:
            try:
                if guild is not None:
                    member = guild.get_member(user_id) or await guild.fetch_member(user_id)
                    return member.display_name
            except discord.HTTPException:
                pass
            try:
                return (self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)).name
            except discord.HTTPException:
                return None

        names = await asyncio.gather(*(name_of(user_id) for user_id in user_ids))
        return {user_id: name for user_id, name in zip(user_ids, names, strict=True) if name is not None}

    @export.autocomplete("campaign")
    async def campaign_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        tr = translator(interaction)
        choices: list[app_commands.Choice[str]] = []
        for found in await self.bot.campaigns.in_guild(interaction.guild_id):
            channel = getattr(self.bot.get_channel(found.channel_id), "name", str(found.channel_id))
            status_key = "log.choice_active" if found.is_active else "log.choice_ended"
            label = tr(status_key, name=found.name, channel=channel)
            if current.lower() in label.lower():
                choices.append(app_commands.Choice(name=label, value=str(found.id)))
        return output.fit_choices(choices)


@pages.source(LOG_PAGES)
async def log_page(interaction: Interaction, number: int) -> pages.Page:
    """A page of the log: its events oldest to newest, the first page holding the newest."""
    campaign_log, count = await interaction.client.logs.page(
        place_of(interaction), actor_of(interaction), number, EVENTS_PER_PAGE
    )
    tr = translator(interaction, campaign_log.campaign.ruleset)
    ruleset = interaction.client.rulesets.get(campaign_log.campaign.ruleset)
    renderer = ruleset.renderer if ruleset else None
    lines = [log_line(tr, entry, renderer) for entry in campaign_log.entries]
    embed = discord.Embed(
        title=tr("log.title", name=campaign_log.campaign.name),
        description="\n".join(output.shorten(line, pages.LINE_LIMIT) for line in lines) or tr("log.empty"),
    )
    return pages.Page(embed, pages.clamp(number, count), count, tr)


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(pages.PageButton)
    await bot.add_cog(LogCog(bot))
