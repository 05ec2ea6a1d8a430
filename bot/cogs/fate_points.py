"""Commands only Fate/Points has: /fate spend and /fate presence, and /odds."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.app import Fatebot, Interaction, actor_of, place_of, translator
from bot.cogs.characters import character_choices
from bot.cogs.play import action_choices, fallen_lines, rank_choices
from bot.errors import UserError
from bot.render import changed_pools, mention
from bot.services.fate import FateAction
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

    @app_commands.command(name="transfer", description="Move prana from a Master to their Servant (General action)")
    @app_commands.describe(amount="How much prana (capped by compatibility, the Master's prana and the Servant's room)")
    async def transfer(self, interaction: Interaction, amount: app_commands.Range[int, 1, 1000]) -> None:
        action = await self.bot.fate.transfer(place_of(interaction), actor_of(interaction), amount)
        await self._announce(interaction, "fate.transferred", action)

    @app_commands.command(name="regen", description="Your Servant turns prana into HP (General action in a fight)")
    @app_commands.describe(hp="HP to heal", confirm="Confirm spending the last prana (the Servant dies)")
    async def regen(
        self, interaction: Interaction, hp: app_commands.Range[int, 1, 1000], confirm: bool = False
    ) -> None:
        action = await self.bot.fate.regenerate(place_of(interaction), actor_of(interaction), hp, confirm)
        await self._announce(interaction, "fate.regenerated", action)

    @app_commands.command(name="activate", description="Activate a Noble Phantasm or skill (General or Extra action)")
    @app_commands.describe(
        name="The Noble Phantasm or skill", extra="Use the Extra action instead of the General one",
        confirm="Confirm spending the last prana (a Servant dies)",
    )  # fmt: skip
    async def activate(self, interaction: Interaction, name: str, extra: bool = False, confirm: bool = False) -> None:
        action = await self.bot.fate.activate(place_of(interaction), actor_of(interaction), name, extra, confirm)
        await self._announce(interaction, "fate.activated", action)

    @app_commands.command(name="move", description="Spend your Move action in a fight")
    async def move(self, interaction: Interaction) -> None:
        action = await self.bot.fate.move(place_of(interaction), actor_of(interaction))
        await self._announce(interaction, "fate.moved", action)

    @app_commands.command(name="rest", description="A Master rests or eats: prana refills (GM only)")
    @app_commands.describe(master="The Master")
    async def rest(self, interaction: Interaction, master: str) -> None:
        action = await self.bot.fate.rest(place_of(interaction), actor_of(interaction), master)
        await self._announce(interaction, "fate.rested", action)

    @app_commands.command(name="time", description="Hours pass out of combat: Servants replenish prana (GM only)")
    @app_commands.describe(hours="Full hours that pass")
    async def time(self, interaction: Interaction, hours: app_commands.Range[int, 1, 240]) -> None:
        tr = translator(interaction)
        actions = await self.bot.fate.pass_time(place_of(interaction), actor_of(interaction), hours)
        lines = [tr("fate.time_passed", hours=hours)]
        lines += [tr("fate.replenished", **action.applied.resolution.outcome, who=action.name) for action in actions]
        await interaction.response.send_message("\n".join(lines))

    @app_commands.command(
        name="passive", description="Whether your Servant replenishes prana from your Master over time"
    )
    @app_commands.describe(enabled="On (the default) or off")
    async def passive(self, interaction: Interaction, enabled: bool) -> None:
        name = await self.bot.fate.set_passive(place_of(interaction), actor_of(interaction), enabled)
        key = "fate.passive_on" if enabled else "fate.passive_off"
        await interaction.response.send_message(translator(interaction)(key, name=name))

    @app_commands.command(name="np-rule", description="Rule how a Noble Phantasm is defended and its damage (GM only)")
    @app_commands.describe(
        servant="Whose Noble Phantasm", phantasm="The Noble Phantasm",
        defences="Allowed defences: normal, none, or a list such as block, dodge", damage="Damage of a hit (optional)",
    )  # fmt: skip
    async def rule_phantasm(
        self, interaction: Interaction, servant: str, phantasm: str, defences: str = "normal",
        damage: app_commands.Range[int, 0, 1000] | None = None,
    ) -> None:  # fmt: skip
        name = await self.bot.fate.rule_phantasm(
            place_of(interaction), actor_of(interaction), servant, phantasm, defences, damage
        )
        shown = "—" if damage is None else str(damage)
        await interaction.response.send_message(
            translator(interaction)("fate.np_ruled", name=name, phantasm=phantasm, defences=defences, damage=shown)
        )

    @app_commands.command(name="god-hand", description="NPs below this rank have no effect on a character (GM only)")
    @app_commands.describe(character="Who is protected", rank="The minimum rank (none removes it)")
    async def god_hand(self, interaction: Interaction, character: str, rank: str) -> None:
        minimum = None if rank.strip().lower() in ("none", "-", "") else rank.strip().upper()
        name = await self.bot.fate.god_hand(place_of(interaction), actor_of(interaction), character, minimum)
        await interaction.response.send_message(
            translator(interaction)("fate.god_hand_set", name=name, rank=minimum or "—")
        )

    async def _announce(self, interaction: Interaction, key: str, action: FateAction) -> None:
        tr = translator(interaction)
        outcome = action.applied.resolution.outcome
        lines = [tr(key, **outcome, who=action.name)]
        lines += [f"{name}: {pools}" for name, pools in changed_pools(tr, action.applied.pools)]
        lines += fallen_lines(tr, action.applied.fallen)
        await interaction.response.send_message("\n".join(lines))

    @activate.autocomplete("name")
    async def activatable(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            _, character, _, _ = await self.bot.characters.show(place_of(interaction), actor_of(interaction), None)
        except UserError:
            return []
        file = character.sheet["file"]
        names = [np["name"] for np in file.get("noble_phantasms", [])]
        names += [
            a["name"] for a in file.get("skills") or file.get("magecraft") or [] if a.get("mana_cost") is not None
        ]
        return [app_commands.Choice(name=name, value=name) for name in names if current.lower() in name.lower()][:25]

    @rest.autocomplete("master")
    @rule_phantasm.autocomplete("servant")
    @god_hand.autocomplete("character")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

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
