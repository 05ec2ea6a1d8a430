"""/waiting and /reminders, and the loop that sends reminders of unanswered waits and the GMs' daily digest."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands, tasks

from bot import output
from bot.db.models import REMIND_DM, REMIND_OFF, REMIND_PING
from bot.i18n import ENGLISH, Translator, mention
from bot.interactions import Interaction, campaign_translator, translator
from bot.render import open_wait_line, waited_on
from bot.services.reminders import Due, Settings, Stuck, time_zones_like

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)

# The reminder loop looks this many times less often than the deadlines: a reminder is hours late or not at all.
REMINDER_POLL_FACTOR = 12
# One notice's sending may take this long (a slow or rate-limited Discord) before the next is sent: the one cut
# short is sent again at the next look, with its nonce.
NOTICE_SECONDS = 30.0
REMIND_BY_CHOICES = [
    app_commands.Choice(name=locale_str(Translator(ENGLISH)(f"reminders.by.{by}"), key=f"reminders.by.{by}"), value=by)
    for by in (REMIND_PING, REMIND_DM, REMIND_OFF)
]


def settings_text(tr: Translator, settings: Settings) -> str:
    lines = [tr("reminders.now", by=tr(f"reminders.by.{settings.remind_by}"), zone=settings.time_zone)]
    if settings.quiet_from is not None and settings.quiet_to is not None:
        lines.append(tr("reminders.quiet", start=f"{settings.quiet_from:02d}:00", end=f"{settings.quiet_to:02d}:00"))
    else:
        lines.append(tr("reminders.no_quiet"))
    return "\n".join(lines)


def digest_text(tr: Translator, stuck: Sequence[Stuck]) -> str:
    """A GM's digest: a section per campaign, each wait on a line of its own, for the output layer to split."""
    lines = [tr("digest.title")]
    for part in stuck:
        duration = tr.duration(days=part.after.days, hours=part.after.seconds // 3600)
        lines.append(tr("digest.header", campaign=part.campaign_name, count=len(part.waits), duration=duration))
        lines.extend(open_wait_line(tr, wait, with_campaign=False) for wait in part.waits)
    return "\n".join(lines)


class RemindersCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.notices.change_interval(seconds=self.bot.deadline_poll_seconds * REMINDER_POLL_FACTOR)
        self.notices.start()

    async def cog_unload(self) -> None:
        self.notices.cancel()

    @app_commands.command(name="waiting", description="What waits for your answer in this server's campaigns")
    @app_commands.guild_only()
    async def waiting(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        waits = await self.bot.reminders.waiting_on(interaction.guild_id or 0, interaction.user.id)
        if not waits:
            await output.reply(interaction, tr("waiting.nothing_yours"), ephemeral=True)
            return
        lines = [tr("waiting.yours", count=len(waits))]
        lines.extend(open_wait_line(tr, wait, with_campaign=True) for wait in waits)
        await output.reply(interaction, "\n".join(lines), ephemeral=True)

    @app_commands.command(name="reminders", description="How the bot reminds you of what waits for you, and when not")
    @app_commands.describe(
        by="In the campaign's channel, by direct message, or never",
        time_zone="Your time zone, such as Europe/Paris or Asia/Tokyo",
        quiet_from="Quiet hours start at this hour (0-23) of your time zone",
        quiet_to="Quiet hours end at this hour (0-23)",
        no_quiet_hours="Remove your quiet hours",
    )
    @app_commands.choices(by=REMIND_BY_CHOICES)
    async def reminders(
        self,
        interaction: Interaction,
        by: app_commands.Choice[str] | None = None,
        time_zone: app_commands.Range[str, 1, 64] | None = None,
        quiet_from: app_commands.Range[int, 0, 23] | None = None,
        quiet_to: app_commands.Range[int, 0, 23] | None = None,
        no_quiet_hours: bool = False,
    ) -> None:
        tr = translator(interaction)
        reminders = self.bot.reminders
        if by is None and time_zone is None and quiet_from is None and quiet_to is None and not no_quiet_hours:
            settings = await reminders.settings(interaction.user.id)
            await output.reply(interaction, settings_text(tr, settings), ephemeral=True)
            return
        settings = await reminders.change_settings(
            interaction.user.id,
            str(interaction.locale),
            remind_by=by.value if by else None,
            time_zone=time_zone,
            quiet_from=quiet_from,
            quiet_to=quiet_to,
            clear_quiet=no_quiet_hours,
        )
        await output.reply(interaction, tr("reminders.changed") + "\n" + settings_text(tr, settings), ephemeral=True)

    @reminders.autocomplete("time_zone")
    async def time_zone_choices(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=zone, value=zone) for zone in time_zones_like(typed, output.CHOICES_LIMIT)]

    @tasks.loop(seconds=60.0)
    async def notices(self) -> None:
        try:
            claimed = await self.bot.reminders.claim_due(self.bot.own_shards)
        except Exception:  # the loop must go on: the next look claims what this one could not
            log.exception("looking for reminders failed")
            return
        for due in claimed:
            try:
                async with asyncio.timeout(NOTICE_SECONDS):
                    await self.deliver(due)
            except Exception:  # one failing notice must not stop the next ones
                wait_id = due.wait.wait_id if due.wait is not None else None
                log.exception(
                    "sending a %s failed (campaigns %s, wait %s, user %s): tried again at the next look",
                    due.kind,
                    ", ".join(map(str, due.campaign_ids)),
                    wait_id,
                    due.user_id,
                )

    @notices.before_loop
    async def before_notices(self) -> None:
        await self.bot.wait_until_ready()

    def _reader(self, due: Due) -> Translator:
        """The language of the one reminded: as last seen, else as they last set their reminders, else the server's."""
        guild = self.bot.get_guild(due.guild_id)
        fallback = guild.preferred_locale if guild is not None else None
        return Translator.for_locale(self.bot.user_locales.get(due.user_id) or due.locale or fallback)

    async def deliver(self, due: Due) -> None:
        """One notice: a ping in the campaign's channel, or a DM; a DM Discord refuses becomes a ping in the
        channel, claimed once in its place and sent at once."""
        instead = await self._send(due)
        if instead is not None:
            await self._send(instead)

    async def _send(self, due: Due) -> Due | None:
        """The notice sent with its nonce, then marked sent; or, its DM refused, the ping claimed in its place."""
        try:
            if due.by == REMIND_PING:
                await self._ping(due)
            else:
                user = self.bot.get_user(due.user_id) or await self.bot.fetch_user(due.user_id)
                await output.post(user, self._dm_text(due), nonce=due.nonce)
        except discord.Forbidden:
            if due.by == REMIND_PING:
                log.warning("could not ping user %s in channel %s (no access): given up", due.user_id, due.channel_id)
                await self.bot.reminders.mark_sent(due.notice_id, given_up=True)
                return None
            log.info("user %s takes no direct messages: pinged in channel %s instead", due.user_id, due.channel_id)
            return await self.bot.reminders.in_channel_instead(due)
        except discord.HTTPException:
            log.warning("a %s to user %s failed: tried again at the next look", due.kind, due.user_id, exc_info=True)
            return None
        await self.bot.reminders.mark_sent(due.notice_id, campaign_ids=due.campaign_ids)
        return None

    async def _ping(self, due: Due) -> None:
        """In the campaign's language: the reminder, or for a digest a DM could not carry only that it could not
        (what is stuck is the GMs' alone: it is never shown in the channel)."""
        guild = self.bot.get_guild(due.guild_id)
        tr = campaign_translator(
            due.campaign_language,
            guild.preferred_locale if guild else None,
            due.wait.ruleset if due.wait is not None else None,
        )
        user = mention(due.user_id)
        if due.wait is None:
            text = tr("digest.dms_closed", user=user)
        else:
            line = open_wait_line(tr, due.wait, with_campaign=False)
            text = tr("reminder.ping_dms_closed" if due.instead_of_dm else "reminder.ping", user=user, line=line)
        pinged = discord.AllowedMentions(users=[discord.Object(due.user_id)])
        await output.post(self.bot.get_partial_messageable(due.channel_id), text, mentions=pinged, nonce=due.nonce)

    def _dm_text(self, due: Due) -> str:
        tr = self._reader(due)
        wait = due.wait
        if wait is not None:
            scoped = tr.scoped(wait.ruleset)
            return scoped(
                "reminder.dm",
                campaign=wait.campaign_name,
                title=scoped.text(wait.title),
                who=waited_on(scoped, wait),
                since=f"<t:{int(wait.created_at.timestamp())}:R>",
                link=wait.link or "",
            )
        return digest_text(tr, due.stuck)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(RemindersCog(bot))
