"""/roll: any dice notation, in public or in secret to the GMs."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import output
from bot.i18n import language_of, mention
from bot.interactions import Interaction, actor_of, place_of, public_translator, translator
from bot.render import roll_embed
from rules.dice import RollResult

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)


class RollCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    @app_commands.command(name="roll", description="Roll dice: 1d20+5, 4d6kh3, 3d6!, 5d10>7, 6#4d6kh3...")
    @app_commands.describe(
        dice="The dice expression, for example 2d6+3 or 1d20+5 # stealth",
        label="What the roll is for",
        secret="Only you and the campaign's GMs see the result",
    )
    @app_commands.guild_only()
    async def roll(
        self,
        interaction: Interaction,
        dice: app_commands.Range[str, 1, 200],
        label: app_commands.Range[str, 1, 100] | None = None,
        secret: bool = False,
    ) -> None:
        tr = translator(interaction)
        name = interaction.user.display_name
        outcome = await self.bot.rolls.roll(
            place_of(interaction),
            actor_of(interaction),
            dice,
            self.bot.dice,
            label=label,
            secret=secret,
            reader_language=tr.language,
            server_language=language_of(interaction.guild_locale),
        )
        # In a campaign's channel everyone reads its language; elsewhere the roller's.
        public = public_translator(interaction, outcome.language) if outcome.campaign_id is not None else tr
        if not secret:
            await output.reply(interaction, embed=roll_embed(public, name, outcome.result, label, secret=False))
            return
        await output.reply(interaction, embed=roll_embed(tr, name, outcome.result, label, secret=True), ephemeral=True)
        shown_label = label or public("roll.no_label")
        await output.reply(
            interaction, public("roll.secret_public", user=mention(interaction.user.id), label=shown_label)
        )
        recipients = [gm_id for gm_id in outcome.gm_ids if gm_id != interaction.user.id]
        undelivered = [
            gm_id
            for gm_id in recipients
            if not await self._send_dm(gm_id, self._gm_embed(gm_id, interaction, outcome.result, label))
        ]
        if undelivered:
            await output.reply(
                interaction,
                tr("roll.secret_dm_failed", users=" ".join(mention(gm) for gm in undelivered)),
                ephemeral=True,
            )

    def _gm_embed(self, gm_id: int, interaction: Interaction, result: RollResult, label: str | None) -> discord.Embed:
        # A GM reads it in their own language once the bot has seen it, else in the server's.
        gm_tr = self.bot.translator_for(gm_id, interaction.guild_locale)
        embed = roll_embed(gm_tr, interaction.user.display_name, result, label, secret=True)
        embed.add_field(name=gm_tr("roll.secret_where"), value=f"<#{interaction.channel_id}>")
        return embed

    async def _send_dm(self, user_id: int, embed: discord.Embed) -> bool:
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await output.post(user, embeds=[embed])
        except discord.HTTPException:
            log.warning("could not DM user %s", user_id, exc_info=True)
            return False
        return True


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(RollCog(bot))
