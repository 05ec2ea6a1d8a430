"""Commands only Fate/Points has: /fate (Fate/Points, prana, the GM's rulings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output
from bot.errors import UserError
from bot.exchange_views import respond
from bot.gm_only import gm_command
from bot.interactions import Interaction, NameText, WordText, actor_of, call_of, character_choices, place_of
from bot.rulesets.fate_points.service import FateService
from rules.fate_points import STATS
from rules.fate_points.fate_points import FATE_USES

if TYPE_CHECKING:
    from bot.app import Fatebot


@app_commands.guild_only()
class FateCog(commands.GroupCog, group_name="fate", group_description="Fate/Points: spend points, Servant presence"):
    def __init__(self, bot: Fatebot, service: FateService) -> None:
        self.bot = bot
        self.fate = service
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
        progress = await self.fate.spend(call_of(interaction), use.value, stat.value if stat else None)
        await respond(interaction, progress)

    @gm_command(name="presence", description="Say whether a Master's Servant is at their side")
    @app_commands.describe(master="The Master", present="Is the Servant with them?")
    async def presence(self, interaction: Interaction, master: NameText, present: bool) -> None:
        progress = await self.fate.set_presence(call_of(interaction), master, present)
        await respond(interaction, progress)

    @app_commands.command(name="transfer", description="Move prana from a Master to their Servant (General action)")
    @app_commands.describe(amount="How much prana (capped by compatibility, the Master's prana and the Servant's room)")
    async def transfer(self, interaction: Interaction, amount: app_commands.Range[int, 1, 1000]) -> None:
        progress = await self.fate.transfer(call_of(interaction), amount)
        await respond(interaction, progress)

    @app_commands.command(name="regen", description="Your Servant turns prana into HP (General action in a fight)")
    @app_commands.describe(hp="HP to heal", confirm="Confirm spending the last prana (the Servant dies)")
    async def regen(
        self, interaction: Interaction, hp: app_commands.Range[int, 1, 1000], confirm: bool = False
    ) -> None:
        progress = await self.fate.regenerate(call_of(interaction), hp, confirm)
        await respond(interaction, progress)

    @app_commands.command(name="activate", description="Activate a Noble Phantasm or skill (General or Extra action)")
    @app_commands.describe(
        name="The Noble Phantasm or skill",
        extra="Use the Extra action instead of the General one",
        confirm="Confirm spending the last prana (a Servant dies)",
    )
    async def activate(
        self, interaction: Interaction, name: NameText, extra: bool = False, confirm: bool = False
    ) -> None:
        progress = await self.fate.activate(call_of(interaction), name, extra, confirm)
        await respond(interaction, progress)

    @app_commands.command(name="move", description="Spend your Move action in a fight")
    async def move(self, interaction: Interaction) -> None:
        progress = await self.fate.move(call_of(interaction))
        await respond(interaction, progress)

    @gm_command(name="rest", description="A Master rests or eats: prana refills")
    @app_commands.describe(master="The Master")
    async def rest(self, interaction: Interaction, master: NameText) -> None:
        progress = await self.fate.rest(call_of(interaction), master)
        await respond(interaction, progress)

    @app_commands.command(
        name="passive", description="Whether your Servant replenishes prana from your Master over time"
    )
    @app_commands.describe(enabled="On (the default) or off")
    async def passive(self, interaction: Interaction, enabled: bool) -> None:
        progress = await self.fate.set_passive(call_of(interaction), enabled)
        await respond(interaction, progress)

    @gm_command(name="np-rule", description="Rule how a Noble Phantasm is defended and its damage")
    @app_commands.describe(
        servant="Whose Noble Phantasm",
        phantasm="The Noble Phantasm",
        defences="Allowed defences: normal, none, or a list such as block, dodge",
        damage="Damage of a hit (optional)",
    )
    async def rule_phantasm(
        self,
        interaction: Interaction,
        servant: NameText,
        phantasm: NameText,
        defences: app_commands.Range[str, 1, 200] = "normal",
        damage: app_commands.Range[int, 0, 1000] | None = None,
    ) -> None:
        progress = await self.fate.rule_phantasm(call_of(interaction), servant, phantasm, defences, damage)
        await respond(interaction, progress)

    @gm_command(name="god-hand", description="NPs below this rank have no effect on a character")
    @app_commands.describe(character="Who is protected", rank="The minimum rank (none removes it)")
    async def god_hand(self, interaction: Interaction, character: NameText, rank: WordText) -> None:
        minimum = None if rank.strip().lower() in ("none", "-", "") else rank.strip().upper()
        progress = await self.fate.god_hand(call_of(interaction), character, minimum)
        await respond(interaction, progress)

    @gm_command(name="ex-cost", description="The mana cost of an EX rank: attacks, or one EX NP")
    @app_commands.describe(
        servant="Whose EX rank",
        cost="Mana per attack at the EX stat, or the NP's activation cost",
        phantasm="An EX Noble Phantasm (leave out for attacks at an EX stat)",
    )
    async def ex_cost(
        self,
        interaction: Interaction,
        servant: NameText,
        cost: app_commands.Range[int, 0, 1000],
        phantasm: NameText | None = None,
    ) -> None:
        progress = await self.fate.set_ex_cost(call_of(interaction), servant, cost, phantasm)
        await respond(interaction, progress)

    @gm_command(name="compatibility", description="The GM's modifier to a Master's compatibility")
    @app_commands.describe(master="The Master", modifier="Added to the rolled compatibility (0 removes it)")
    async def compatibility(
        self, interaction: Interaction, master: NameText, modifier: app_commands.Range[int, -50, 50]
    ) -> None:
        progress = await self.fate.set_compatibility(call_of(interaction), master, modifier)
        await respond(interaction, progress)

    @activate.autocomplete("name")
    async def activatable(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            shown = await self.bot.characters.show(place_of(interaction), actor_of(interaction), None)
        except UserError:
            return []
        file = shown.character.sheet["file"]
        names = [np["name"] for np in file.get("noble_phantasms", [])]
        names += [
            a["name"] for a in file.get("skills") or file.get("magecraft") or [] if a.get("mana_cost") is not None
        ]
        return output.fit_choices(
            app_commands.Choice(name=name, value=name) for name in names if current.lower() in name.lower()
        )

    @rest.autocomplete("master")
    @rule_phantasm.autocomplete("servant")
    @ex_cost.autocomplete("servant")
    @compatibility.autocomplete("master")
    @god_hand.autocomplete("character")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @presence.autocomplete("master")
    async def master_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


async def setup(bot: Fatebot) -> None:
    service = FateService(bot.database, bot.clock, bot.engine)
    await bot.add_cog(FateCog(bot, service))
