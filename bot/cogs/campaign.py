"""/campaign: bind a channel to a ruleset, name its GMs, set its options, end it."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.app import Fatebot, Interaction, actor_of, place_of, translator
from bot.errors import UserError
from bot.render import campaign_embed, mention, option_text
from bot.rulesets import RULESETS
from bot.views import PersistentButton
from rules.options import expected_values

RULESET_CHOICES = [
    app_commands.Choice(name=locale_str(english, key=f"ruleset.{ruleset_id}"), value=ruleset_id)
    for ruleset_id, english in (
        ("fate_points", "Fate/Points (d20 roll-under)"),
        ("grail_zh", "Fate/stay night d20 (Chinese rules)"),
        ("crest_magia", "Crest Magia (2d6 + stat die)"),
        ("grail_anka", "Holy Grail War anka (win-rate tables)"),
    )
]
AUTOCOMPLETE_LIMIT = 25


class EndCampaignButton(
    PersistentButton, template=r"campaign:end:(?P<decision>confirm|cancel):(?P<campaign_id>[0-9]+)"
):
    """Confirm or cancel ending a campaign."""

    prefix = "campaign:end"

    async def clicked(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        if self.fields["decision"] == "cancel":
            await interaction.response.edit_message(content=tr("campaign.end_cancelled"), view=None)
            return
        campaign = await interaction.client.campaigns.end(
            interaction.guild_id or 0, int(self.fields["campaign_id"]), actor_of(interaction)
        )
        await interaction.response.edit_message(content=tr("campaign.end_done"), view=None)
        await interaction.followup.send(tr("campaign.ended", name=campaign.name, user=mention(interaction.user.id)))


@app_commands.guild_only()
class CampaignCog(commands.GroupCog, group_name="campaign", group_description="Run a campaign in this channel"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="start", description="Start a campaign in this channel; you become its GM")
    @app_commands.describe(ruleset="The rule system", name="The campaign's name (default: the channel's name)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def start(
        self,
        interaction: Interaction,
        ruleset: app_commands.Choice[str],
        name: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        tr = translator(interaction)
        place = place_of(interaction)
        channel_name = getattr(self.bot.get_channel(place.channel_id), "name", None)
        campaign = await self.bot.campaigns.start(
            place, actor_of(interaction), ruleset.value, name or channel_name or str(place.channel_id)
        )
        await interaction.response.send_message(
            tr(
                "campaign.started",
                name=campaign.name,
                ruleset=tr(f"ruleset.{campaign.ruleset}"),
                user=mention(interaction.user.id),
            )
        )

    @app_commands.command(name="info", description="Show this channel's campaign")
    async def info(self, interaction: Interaction) -> None:
        summary = await self.bot.campaigns.summary(place_of(interaction))
        await interaction.response.send_message(embed=campaign_embed(translator(interaction), summary))

    @app_commands.command(name="end", description="End this channel's campaign (GM only; asks for confirmation)")
    async def end(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        campaign = await self.bot.campaigns.check_can_end(place_of(interaction), actor_of(interaction))
        view = discord.ui.View(timeout=None)
        for decision, style in (("confirm", discord.ButtonStyle.danger), ("cancel", discord.ButtonStyle.secondary)):
            view.add_item(
                EndCampaignButton(tr(f"campaign.end_{decision}"), style, decision=decision, campaign_id=campaign.id)
            )
        await interaction.response.send_message(
            tr("campaign.end_question", name=campaign.name), view=view, ephemeral=True
        )

    @app_commands.command(name="gm", description="Make someone a GM of this campaign, or remove them (GM only)")
    @app_commands.describe(user="Who", remove="Remove this GM instead of adding")
    async def gm(self, interaction: Interaction, user: discord.User, remove: bool = False) -> None:
        tr = translator(interaction)
        campaign = await self.bot.campaigns.set_gm(place_of(interaction), actor_of(interaction), user.id, remove=remove)
        key = "campaign.gm_removed" if remove else "campaign.gm_added"
        await interaction.response.send_message(tr(key, user=mention(user.id), name=campaign.name))

    @app_commands.command(name="set", description="Change one of the ruleset's options for this campaign (GM only)")
    @app_commands.describe(option="The option to change", value="Its new value (none clears an optional setting)")
    async def set_option(
        self, interaction: Interaction, option: app_commands.Range[str, 1, 64], value: app_commands.Range[str, 1, 64]
    ) -> None:
        tr = translator(interaction)
        change = await self.bot.campaigns.set_option(place_of(interaction), actor_of(interaction), option, value)
        await interaction.response.send_message(
            tr("campaign.option_set", option=change.option, old=option_text(change.old), new=option_text(change.new))
        )

    @set_option.autocomplete("option")
    async def option_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            _, options = await self.bot.campaigns.option_values(place_of(interaction))
        except UserError:
            return []
        return [
            app_commands.Choice(name=f"{name} = {option_text(value)}", value=name)
            for name, value in options.model_dump().items()
            if current.lower() in name
        ][:AUTOCOMPLETE_LIMIT]

    @set_option.autocomplete("value")
    async def option_values(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        option: Any = interaction.namespace.option
        try:
            campaign, _ = await self.bot.campaigns.option_values(place_of(interaction))
        except UserError:
            return []
        model = RULESETS[campaign.ruleset].options_model
        if option not in model.model_fields:
            return []
        suggestions = [value.strip() for value in expected_values(model, option).split("|")]
        return [
            app_commands.Choice(name=value, value=value)
            for value in suggestions
            if ".." not in value and value.startswith(current.lower())
        ][:AUTOCOMPLETE_LIMIT]


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(EndCampaignButton)
    await bot.add_cog(CampaignCog(bot))
