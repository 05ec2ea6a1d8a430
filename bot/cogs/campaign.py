"""/campaign: bind a channel to a ruleset, name its GMs, set its options, end it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output
from bot.errors import UserError
from bot.exchange_views import close_prompts, post_prompts, step_messages
from bot.gm_only import gm_command
from bot.i18n import CHINESE, ENGLISH, JAPANESE, Translator, language_of, mention
from bot.interactions import Interaction, actor_of, call_of, place_of, public_translator, translator
from bot.options import option_description, option_name, stored_words, typed_option, typed_value, value_words
from bot.render import campaign_embed, open_wait_line, ruleset_name
from bot.rulesets.base import Ruleset
from bot.services.combat import Moment
from bot.views import PersistentButton
from rules.options import accepted

if TYPE_CHECKING:
    from bot.app import Fatebot


def ruleset_choices(rulesets: Mapping[str, Ruleset]) -> list[app_commands.Choice[str | int | float]]:
    return [
        app_commands.Choice(
            name=locale_str(Translator(ENGLISH)(ruleset.name_key), key=ruleset.name_key), value=ruleset.id
        )
        for ruleset in rulesets.values()
    ]


SERVER_LANGUAGE = "server"


class EndCampaignButton(
    PersistentButton, template=r"campaign:end:(?P<decision>confirm|cancel):(?P<campaign_id>[0-9]+)"
):
    """Confirm or cancel ending a campaign."""

    prefix = "campaign:end"

    async def clicked(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        if self.fields["decision"] == "cancel":
            await output.update(interaction, tr("campaign.end_cancelled"))
            return
        campaign = await interaction.client.campaigns.end(
            interaction.guild_id or 0, int(self.fields["campaign_id"]), actor_of(interaction)
        )
        await output.update(interaction, tr("campaign.end_done"))
        public = public_translator(interaction, campaign.language)
        await output.reply(interaction, public("campaign.ended", name=campaign.name, user=mention(interaction.user.id)))


def delay_text(tr: Translator, hours: int) -> str:
    """A campaign's reminder delay in words: a duration, or never."""
    return tr.duration(hours=hours) if hours else tr("campaign.reminders_never")


@app_commands.guild_only()
class CampaignCog(commands.GroupCog, group_name="campaign", group_description="Run a campaign in this channel"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()
        # A campaign starts in one of the rulesets the bot serves: the command is defined before there is a bot, so
        # its choices are given to this cog's own copy of it (discord.py has no public way to set them).
        offered = self.start._params["ruleset"]
        self.start._params["ruleset"] = replace(offered, choices=ruleset_choices(bot.rulesets))

    @app_commands.command(name="start", description="Start a campaign in this channel; you become its GM")
    @app_commands.describe(ruleset="The rule system", name="The campaign's name (default: the channel's name)")
    async def start(
        self,
        interaction: Interaction,
        ruleset: app_commands.Choice[str],
        name: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        place = place_of(interaction)
        channel_name = getattr(self.bot.get_channel(place.channel_id), "name", None)
        # The table plays in the language of the GM who starts it, where the server speaks another.
        own = language_of(interaction.locale)
        language = own if own != language_of(interaction.guild_locale) else None
        campaign = await self.bot.campaigns.start(
            place, actor_of(interaction), ruleset.value, name or channel_name or str(place.channel_id), language
        )
        tr = public_translator(interaction, campaign.language)
        started = tr(
            "campaign.started",
            name=campaign.name,
            ruleset=ruleset_name(tr, campaign.ruleset),
            user=mention(interaction.user.id),
        )
        spoken = tr("campaign.started_language", language=tr(f"campaign.language.{tr.language}"))
        await output.reply(interaction, f"{started}\n{spoken}")

    @app_commands.command(name="info", description="Show this channel's campaign")
    async def info(self, interaction: Interaction) -> None:
        summary = await self.bot.campaigns.summary(place_of(interaction))
        # A lookup only its asker needs: privately, in their own language.
        embed = campaign_embed(translator(interaction), summary, language_of(interaction.guild_locale))
        await output.reply(interaction, embed=embed, ephemeral=True)

    @gm_command(name="end", description="End this channel's campaign, once you confirm")
    async def end(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        campaign = await self.bot.campaigns.gm_campaign(place_of(interaction), actor_of(interaction))
        view = discord.ui.View(timeout=None)
        for decision, style in (("confirm", discord.ButtonStyle.danger), ("cancel", discord.ButtonStyle.secondary)):
            view.add_item(
                EndCampaignButton(tr(f"campaign.end_{decision}"), style, decision=decision, campaign_id=campaign.id)
            )
        await output.reply(interaction, tr("campaign.end_question", name=campaign.name), view=view, ephemeral=True)

    @gm_command(name="gm", description="Make someone a GM of this campaign, or remove them")
    @app_commands.describe(user="Who", remove="Remove this GM instead of adding")
    async def gm(self, interaction: Interaction, user: discord.User, remove: bool = False) -> None:
        campaign = await self.bot.campaigns.set_gm(place_of(interaction), actor_of(interaction), user.id, remove=remove)
        tr = public_translator(interaction, campaign.language)
        key = "campaign.gm_removed" if remove else "campaign.gm_added"
        await output.reply(interaction, tr(key, user=mention(user.id), name=campaign.name))

    @gm_command(name="set", description="Change one of the ruleset's options for this campaign")
    @app_commands.describe(option="The option to change", value="Its new value (none clears an optional setting)")
    async def set_option(
        self, interaction: Interaction, option: app_commands.Range[str, 1, 64], value: app_commands.Range[str, 1, 64]
    ) -> None:
        place = place_of(interaction)
        # Typed by its words or its code name, in the GM's language.
        campaign, options = await self.bot.campaigns.option_values(place)
        words, model = translator(interaction, campaign.ruleset), type(options)
        name = typed_option(words, model, option)
        change = await self.bot.campaigns.set_option(
            place, actor_of(interaction), name, typed_value(words, model, name, value)
        )
        tr = public_translator(interaction, change.campaign.language, change.campaign.ruleset)
        await output.reply(
            interaction,
            tr(
                "campaign.option_set",
                option=option_name(tr, change.option),
                old=stored_words(tr, change.option, change.old),
                new=stored_words(tr, change.option, change.new),
            ),
        )

    @app_commands.command(name="waiting", description="Every open wait of this campaign: who it waits for, since when")
    async def waiting(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        campaign, waits = await self.bot.reminders.campaign_waits(place_of(interaction), actor_of(interaction))
        if not waits:
            await output.reply(interaction, tr("waiting.nothing", name=campaign.name), ephemeral=True)
            return
        lines = [tr("waiting.campaign", name=campaign.name, count=len(waits))]
        lines.extend(open_wait_line(tr, wait, with_campaign=False) for wait in waits)
        await output.reply(interaction, "\n".join(lines), ephemeral=True)

    @gm_command(name="reminders", description="Remind whoever a wait waits for after this many hours; 0: never")
    @app_commands.describe(hours="Hours a wait stays unanswered before a reminder, and between reminders (0-168)")
    async def reminders(self, interaction: Interaction, hours: app_commands.Range[int, 0, 168]) -> None:
        campaign, old = await self.bot.reminders.set_delay(place_of(interaction), actor_of(interaction), hours)
        tr = public_translator(interaction, campaign.language)
        key = "campaign.reminders_off" if hours == 0 else "campaign.reminders_set"
        await output.reply(
            interaction, tr(key, name=campaign.name, duration=tr.duration(hours=hours), old=delay_text(tr, old))
        )

    @gm_command(name="session", description="Start the next session of play")
    async def session(self, interaction: Interaction) -> None:
        moment = await self.bot.combat.new_session(call_of(interaction))
        headline = public_translator(interaction, moment.progress.language)(
            "campaign.session_started", session=moment.session_number
        )
        await self._announce(interaction, moment, headline)

    @gm_command(name="turn", description="End the campaign's turn and begin the next")
    async def turn(self, interaction: Interaction) -> None:
        moment = await self.bot.combat.end_campaign_turn(call_of(interaction))
        tr = public_translator(interaction, moment.progress.language)
        await self._announce(
            interaction, moment, tr("campaign.turn_ended", ended=moment.turn_number - 1, turn=moment.turn_number)
        )

    @gm_command(name="time", description="Time passes in the story, in hours and days")
    @app_commands.describe(hours="Hours that pass", days="In-game days that pass")
    async def time(
        self,
        interaction: Interaction,
        hours: app_commands.Range[int, 0, 240] = 0,
        days: app_commands.Range[int, 0, 365] = 0,
    ) -> None:
        moment = await self.bot.combat.pass_time(call_of(interaction), hours, days)
        tr = public_translator(interaction, moment.progress.language)
        await self._announce(
            interaction, moment, tr("campaign.time_passed", duration=tr.duration(days=days, hours=hours))
        )

    async def _announce(self, interaction: Interaction, moment: Moment, headline: str) -> None:
        """The moment in one message: its headline, then what the ruleset did (one line per change)."""
        tr = public_translator(interaction, moment.progress.language, moment.ruleset)
        lines = [headline]
        embeds = []
        for content, embed in step_messages(tr, moment.progress):
            if content:
                lines.append(content)
            if embed is not None:
                embeds.append(embed)
        await output.reply(interaction, "\n".join(lines), embeds=embeds)
        await close_prompts(self.bot, tr, moment.progress.closed, skip=None)
        await post_prompts(self.bot, moment.progress, interaction.guild_locale)

    @gm_command(name="language", description="The language of the campaign's public messages")
    @app_commands.describe(language="A language, or the server's (the default)")
    @app_commands.choices(
        language=[
            app_commands.Choice(name=locale_str(english, key=f"choice.language.{value}"), value=value)
            for value, english in (
                (SERVER_LANGUAGE, "The server's language"),
                (ENGLISH, "English"),
                (JAPANESE, "日本語"),
                (CHINESE, "简体中文"),
            )
        ]
    )
    async def language(self, interaction: Interaction, language: app_commands.Choice[str]) -> None:
        chosen = None if language.value == SERVER_LANGUAGE else language.value
        campaign, _ = await self.bot.campaigns.set_language(place_of(interaction), actor_of(interaction), chosen)
        tr = public_translator(interaction, campaign.language)
        shown = tr(f"campaign.language.{language.value}")
        await output.reply(interaction, tr("campaign.language_set", name=campaign.name, language=shown))

    @set_option.autocomplete("option")
    async def option_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Each option by its name, its value now and what it does, in the GM's language."""
        try:
            campaign, options = await self.bot.campaigns.option_values(place_of(interaction))
        except UserError:
            return []
        tr = translator(interaction, campaign.ruleset)
        typed = current.casefold()
        shown = []
        for name, value in options.model_dump().items():
            label = option_name(tr, name)
            if typed in name or typed in label.casefold():
                described = option_description(tr, name)
                key = "campaign.option_choice_described" if described else "campaign.option_choice"
                shown.append(
                    app_commands.Choice(
                        name=tr(key, option=label, value=stored_words(tr, name, value), description=described or ""),
                        value=name,
                    )
                )
        return output.fit_choices(shown)

    @set_option.autocomplete("value")
    async def option_values(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            campaign, options = await self.bot.campaigns.option_values(place_of(interaction))
        except UserError:
            return []
        tr, model = translator(interaction, campaign.ruleset), type(options)
        option = typed_option(tr, model, str(interaction.namespace.option or ""))
        if option not in model.model_fields:
            return []
        typed = current.casefold()
        words = {value: value_words(tr, option, value) for value in accepted(model, option) if isinstance(value, str)}
        return output.fit_choices(
            app_commands.Choice(name=shown, value=value)
            for value, shown in words.items()
            if value.startswith(typed) or typed in shown.casefold()
        )


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(EndCampaignButton)
    await bot.add_cog(CampaignCog(bot))
