"""Commands only Fate/Points has: /fate spend and /fate presence, and /odds."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.app import Fatebot, Interaction, actor_of, place_of, translator
from bot.cogs.characters import character_choices
from bot.cogs.play import action_choices, rank_choices
from bot.render import mention
from bot.views import PersistentButton
from rules.fate_points import DEFENCE_CHOICES, STATS
from rules.fate_points.fate_points import FATE_USES

FATE_COLOUR = discord.Colour.purple()


class FateDecisionButton(PersistentButton, template=r"fate:(?P<pending_id>[0-9]+):(?P<decision>approve|deny)"):
    """A GM's answer to a Fate/Point request."""

    prefix = "fate"

    async def clicked(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        decision = await interaction.client.fate.decide(
            interaction.guild_id or 0, int(self.fields["pending_id"]), actor_of(interaction),
            approve=self.fields["decision"] == "approve",
        )  # fmt: skip
        key = "fate.approved" if decision.approved else "fate.denied"
        await interaction.response.edit_message(
            content=tr(key, name=decision.master, use=tr(f"fate.use.{decision.use}"), stat=decision.stat or "",
                       user=mention(interaction.user.id)),
            view=None,
        )  # fmt: skip


def decision_view(interaction: Interaction, pending_id: int) -> discord.ui.View:
    tr = translator(interaction)
    view = discord.ui.View(timeout=None)
    view.add_item(
        FateDecisionButton(tr("fate.approve"), discord.ButtonStyle.success, pending_id=pending_id, decision="approve")
    )
    view.add_item(
        FateDecisionButton(tr("fate.deny"), discord.ButtonStyle.secondary, pending_id=pending_id, decision="deny")
    )
    return view


@app_commands.guild_only()
class FateCog(commands.GroupCog, group_name="fate", group_description="Fate/Points: spend points, Servant presence"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="spend", description="Spend one of your Master's Fate/Points on the next roll")
    @app_commands.describe(use="What the point does", stat="The stat to boost (for a boost)")
    @app_commands.choices(
        use=[
            app_commands.Choice(name=locale_str(english, key=f"fate.use.{use}"), value=use)
            for use, english in zip(FATE_USES, ("Roll against a Servant", "Boost a stat to a Servant's"), strict=True)
        ],
        stat=[app_commands.Choice(name=locale_str(stat, key=f"stat.{stat}"), value=stat) for stat in STATS],
    )
    async def spend(
        self, interaction: Interaction, use: app_commands.Choice[str], stat: app_commands.Choice[str] | None = None
    ) -> None:
        tr = translator(interaction)
        request = await self.bot.fate.request_spend(
            place_of(interaction), actor_of(interaction), use.value, stat.value if stat else None,
            interaction.channel_id or 0,
        )  # fmt: skip
        use_text = tr(f"fate.use.{request.use}")
        if request.pending_id is None:
            await interaction.response.send_message(
                tr("fate.spent", name=request.master, use=use_text, stat=request.stat or "")
            )
            return
        await interaction.response.send_message(
            tr("fate.requested", name=request.master, use=use_text, stat=request.stat or "",
               user=mention(interaction.user.id)),
            view=decision_view(interaction, request.pending_id),
        )  # fmt: skip

    @app_commands.command(name="presence", description="Say whether a Master's Servant is at their side (GM only)")
    @app_commands.describe(master="The Master", present="Is the Servant with them?")
    async def presence(self, interaction: Interaction, master: str, present: bool) -> None:
        name = await self.bot.fate.set_presence(place_of(interaction), actor_of(interaction), master, present)
        key = "fate.servant_present" if present else "fate.servant_absent"
        await interaction.response.send_message(translator(interaction)(key, name=name))

    @presence.autocomplete("master")
    async def master_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


class OddsCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    @app_commands.command(name="odds", description="The exact chance that an attack hits, for each defence")
    @app_commands.describe(
        attacker="Who attacks", defender="Who defends", action="The attack and weapon",
        attacks="Attacks declared this round", rank="Hold back to this rank",
    )  # fmt: skip
    @app_commands.guild_only()
    async def odds(
        self, interaction: Interaction, attacker: str, defender: str, action: str,
        attacks: app_commands.Range[int, 1, 10] = 1, rank: str | None = None,
    ) -> None:  # fmt: skip
        tr = translator(interaction)
        attacking, defending, chances = await self.bot.fate.odds(
            place_of(interaction), attacker, defender, action, attacks, rank
        )
        lines = [
            tr("odds.line", choice=tr(f"choice.{choice}"), percent=f"{float(chance) * 100:.2f}",
               fraction=f"{chance.numerator}/{chance.denominator}")
            for choice, chance in chances.items()
            if choice in DEFENCE_CHOICES
        ]  # fmt: skip
        embed = discord.Embed(
            title=tr("odds.title", attacker=attacking.name, defender=defending.name),
            description="\n".join(lines),
            colour=FATE_COLOUR,
        )
        embed.set_footer(text=tr("odds.footer"))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @odds.autocomplete("attacker")
    @odds.autocomplete("defender")
    async def fighter_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @odds.autocomplete("action")
    async def odds_actions(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await action_choices(self.bot, interaction, current, attacker=interaction.namespace.attacker)

    @odds.autocomplete("rank")
    async def odds_ranks(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return rank_choices(current)


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(FateDecisionButton)
    await bot.add_cog(FateCog(bot))
    await bot.add_cog(OddsCog(bot))
