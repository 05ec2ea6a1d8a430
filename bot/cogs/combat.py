"""/combat: a fight's turn order, turns and rounds, and who still has which actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import output
from bot.exchange_views import close_prompts, post_prompts, step_message
from bot.gm_only import gm_command
from bot.i18n import Translator
from bot.interactions import Interaction, actor_of, call_of, place_of, public_translator, translator
from bot.render import pools_text
from bot.rulesets.base import Ruleset
from bot.services.combat import CombatReport

if TYPE_CHECKING:
    from bot.app import Fatebot

COMBAT_COLOUR = discord.Colour.orange()
CURRENT_MARK = "▶"


def report_embed(tr: Translator, ruleset: Ruleset, report: CombatReport, title_key: str) -> discord.Embed:
    play = ruleset.play
    lines = []
    for fighter in report.order:
        mark = CURRENT_MARK if report.current is not None and fighter.id == report.current.id else "・"
        actions = report.actions.get(fighter.id)
        shown = (
            tr("combat.no_actions_counted")
            if actions is None
            else (" · ".join(tr.text(action) for action in actions) or tr("combat.no_actions_left"))
        )
        if fighter.id in report.fates:  # out of the fight: what it could do no longer matters
            shown = tr(f"fallen.{report.fates[fighter.id]}", name=fighter.name)
        # The GMs' characters keep their pools to themselves, as in /character list.
        shows = play is None or play.pools_shown(fighter, report.viewer, gm=report.for_gm)
        pools = pools_text(tr, fighter.pools) if shows else tr("combat.pools_hidden")
        lines.append(tr("combat.line", mark=mark, name=fighter.name, actions=shown, pools=pools))
    embed = discord.Embed(
        title=tr(title_key, round=report.round_number),
        description="\n".join(lines) or tr("combat.no_fight"),
        colour=COMBAT_COLOUR,
    )
    effects = []
    for applied in report.applied:
        content, step_embed = step_message(tr, ruleset.renderer, applied)
        if content:
            effects.append(content)
        elif step_embed is not None:
            # A clock hook's step in full: its title, every die it rolled, and what it did.
            notes = tr("step.notes")
            parts = [
                step_embed.title,
                step_embed.description,
                *(
                    field.value if field.name == notes else f"{field.name}: {field.value}"
                    for field in step_embed.fields
                ),
            ]
            effects += [part for part in parts if part]
    if effects:
        embed.add_field(name=tr("combat.turn_effects"), value="\n".join(effects), inline=False)
    if report.current is not None:
        embed.set_footer(text=tr("combat.turn_of", name=report.current.name))
    return embed


@app_commands.guild_only()
class CombatCog(commands.GroupCog, group_name="combat", group_description="Fights: turn order, turns and rounds"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @gm_command(name="start", description="Start a fight with this turn order")
    @app_commands.describe(order="Character names in turn order, separated by commas")
    async def start(self, interaction: Interaction, order: app_commands.Range[str, 1, 1000]) -> None:
        names = [name.strip() for name in order.split(",") if name.strip()]
        report = await self.bot.combat.start(call_of(interaction), names)
        await self._show(interaction, report, "combat.started")

    @gm_command(name="next", description="Pass to the next character's turn")
    async def next_turn(self, interaction: Interaction) -> None:
        report = await self.bot.combat.next_turn(call_of(interaction))
        await self._show(interaction, report, "combat.round")

    @gm_command(name="round", description="Start the next round")
    async def next_round(self, interaction: Interaction) -> None:
        report = await self.bot.combat.next_turn(call_of(interaction), whole_round=True)
        await self._show(interaction, report, "combat.round")

    @app_commands.command(name="status", description="The turn order and the actions each character has left")
    async def status(self, interaction: Interaction) -> None:
        report = await self.bot.combat.status(place_of(interaction), actor_of(interaction))
        title_key = "combat.round" if report.in_combat else "combat.no_fight_title"
        tr = translator(interaction, report.ruleset)
        await output.reply(
            interaction, embed=report_embed(tr, self.bot.rulesets[report.ruleset], report, title_key), ephemeral=True
        )

    @gm_command(name="end", description="End the fight and the scene")
    async def end(self, interaction: Interaction) -> None:
        round_number, progress = await self.bot.combat.end(call_of(interaction))
        tr = public_translator(interaction, progress.language, progress.ruleset)
        lines = [tr("combat.ended", round=round_number)]
        lines += [content for applied in progress.steps if (content := step_message(tr, progress.renderer, applied)[0])]
        await output.reply(interaction, "\n".join(lines))
        await close_prompts(self.bot, tr, progress.closed, skip=None)
        await post_prompts(self.bot, progress, interaction.guild_locale)

    async def _show(self, interaction: Interaction, report: CombatReport, title_key: str) -> None:
        """The fight as it stands, then any prompt a hook opened (a reaction at the start of a turn...)."""
        tr = public_translator(interaction, report.language, report.ruleset)
        await output.reply(interaction, embed=report_embed(tr, self.bot.rulesets[report.ruleset], report, title_key))
        for progress in report.progress:
            await close_prompts(self.bot, tr, progress.closed, skip=None)
            await post_prompts(self.bot, progress, interaction.guild_locale)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(CombatCog(bot))
