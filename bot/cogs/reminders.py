"""/waiting and /reminders, and the loop that sends reminders of unanswered waits and the GMs' daily digest."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands, tasks

from bot import output
from bot.app import Fatebot, Interaction, campaign_translator, translator
from bot.db.models import REMIND_DM, REMIND_OFF, REMIND_PING
from bot.i18n import ENGLISH, Translator, catalog
from bot.render import mention, open_wait_line, waited_on
from bot.services.reminders import Due, Settings, time_zones_like

log = logging.getLogger(__name__)

AUTOCOMPLETE_LIMIT = 25
# The reminder loop looks this many times less often than the deadlines: a reminder is hours late or not at all.
REMINDER_POLL_FACTOR = 12
REMIND_BY_CHOICES = [
    app_commands.Choice(name=locale_str(catalog(ENGLISH)[f"reminders.by.{by}"], key=f"reminders.by.{by}"), value=by)
    for by in (REMIND_PING, REMIND_DM, REMIND_OFF)
]


def settings_text(tr: Translator, settings: Settings) -> str:
    lines = [tr("reminders.now", by=tr(f"reminders.by.{settings.remind_by}"), zone=settings.time_zone)]
    if settings.quiet_from is not None and settings.quiet_to is not None:
        lines.append(tr("reminders.quiet", start=f"{settings.quiet_from:02d}:00", end=f"{settings.quiet_to:02d}:00"))
    else:
        lines.append(tr("reminders.no_quiet"))
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
        self, interaction: Interaction, by: app_commands.Choice[str] | None = None,
        time_zone: app_commands.Range[str, 1, 64] | None = None,
        quiet_from: app_commands.Range[int, 0, 23] | None = None,
        quiet_to: app_commands.Range[int, 0, 23] | None = None, no_quiet_hours: bool = False,
    ) -> None:  # fmt: skip
        tr = translator(interaction)
        reminders = self.bot.reminders
        if by is None and time_zone is None and quiet_from is None and quiet_to is None and not no_quiet_hours:
            settings = await reminders.settings(interaction.user.id)
            await output.reply(interaction, settings_text(tr, settings), ephemeral=True)
            return
        settings = await reminders.change_settings(
            interaction.user.id, str(interaction.locale), remind_by=by.value if by else None, time_zone=time_zone,
            quiet_from=quiet_from, quiet_to=quiet_to, clear_quiet=no_quiet_hours,
        )  # fmt: skip
        await output.reply(interaction, tr("reminders.changed") + "\n" + settings_text(tr, settings), ephemeral=True)

    @reminders.autocomplete("time_zone")
    async def time_zone_choices(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=zone, value=zone) for zone in time_zones_like(typed, AUTOCOMPLETE_LIMIT)]

    @tasks.loop(seconds=60.0)
    async def notices(self) -> None:
        try:
            for due in await self.bot.reminders.claim_due(self.bot.own_shards):
                await self.deliver(due)
        except Exception:  # one failing notice must not stop every later one
            log.exception("sending reminders failed")

    @notices.before_loop
    async def before_notices(self) -> None:
        await self.bot.wait_until_ready()

    def _reader(self, due: Due, ruleset: str | None) -> Translator:
        """The language of the one reminded: as last seen, else as they last set their reminders, else the server's."""
        wait = due.waits[0]
        guild = self.bot.get_guild(wait.guild_id)
        fallback = guild.preferred_locale if guild is not None else None
        return Translator.for_locale(self.bot.user_locales.get(due.user_id) or due.locale or fallback, ruleset)

    async def deliver(self, due: Due) -> None:
        """One notice: a ping in the campaign's channel, or a DM; sent with its nonce, then marked sent."""
        wait = due.waits[0]
        try:
            if due.by == REMIND_PING and not due.digest:
                guild = self.bot.get_guild(wait.guild_id)
                tr = campaign_translator(due.campaign_language, guild.preferred_locale if guild else None,
                                         wait.ruleset)  # fmt: skip
                text = tr(
                    "reminder.ping", user=mention(due.user_id), line=open_wait_line(tr, wait, with_campaign=False)
                )
                pinged = discord.AllowedMentions(users=[discord.Object(due.user_id)])
                await output.post(self.bot.get_partial_messageable(wait.channel_id), text, mentions=pinged,
                                  nonce=due.nonce)  # fmt: skip
            else:
                user = self.bot.get_user(due.user_id) or await self.bot.fetch_user(due.user_id)
                await output.post(user, self._dm_text(due), nonce=due.nonce)
        except discord.Forbidden:
            log.warning("could not remind user %s (closed DMs or no access): given up", due.user_id)
            await self.bot.reminders.mark_sent(due.notice_id, given_up=True)
            return
        except discord.HTTPException:
            log.warning("a reminder to user %s failed: tried again at the next look", due.user_id, exc_info=True)
            return
        await self.bot.reminders.mark_sent(due.notice_id)

    def _dm_text(self, due: Due) -> str:
        wait = due.waits[0]
        tr = self._reader(due, None)
        if not due.digest:
            scoped = tr.scoped(wait.ruleset)
            return scoped("reminder.dm", campaign=wait.campaign_name, title=scoped.text(wait.title),
                          who=waited_on(scoped, wait), since=f"<t:{int(wait.created_at.timestamp())}:R>",
                          link=wait.link or "")  # fmt: skip
        stuck = tr.duration(hours=due.reminder_hours) if due.reminder_hours else tr.duration(days=1)
        lines = [tr("digest.header", campaign=wait.campaign_name, count=len(due.waits), duration=stuck)]
        lines.extend(open_wait_line(tr, stuck_wait, with_campaign=False) for stuck_wait in due.waits)
        return "\n".join(lines)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(RemindersCog(bot))
