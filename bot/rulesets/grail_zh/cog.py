"""Commands only the Chinese d20 game has: /grail defend, move, place, where, search, conceal, status, contradict,
spirit, cast, aim, boost, plus, territory, transfer, ritual and rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output
from bot.exchange_views import respond
from bot.gm_only import gm_command
from bot.interactions import Interaction, NameText, actor_of, call_of, character_choices, place_of, translator
from bot.rulesets.grail_zh.pictures import grid_map
from bot.rulesets.grail_zh.service import RULESET_ID, GrailService
from bot.services.exchanges import Progress
from bot.workers import WORKERS
from rules.grail_zh.actions import SECTOR_SQUARES as SECTOR
from rules.grail_zh.upkeep import SECRET_STATUSES

if TYPE_CHECKING:
    from bot.app import Fatebot

Square = app_commands.Range[int, 0, 99]
SPELLS = {
    "heal": "Healing",
    "shield": "Protection",
    "suggest": "Suggestion",
    "alarm": "Alarm barrier",
    "teleport": "Teleport",
    "flight": "Flight",
    "reinforce": "Reinforcement",
    "familiar": "Familiars",
    "puppets": "Puppet soldiers",
}
STATUS_NAMES = {"defend": "Defend stance", "unaware": "Unaware of its attackers", "spirit_form": "Spirit form"}
SectorIndex = app_commands.Range[int, -100, 100]


def kept_secret(progress: Progress) -> bool:
    """Whether a step is the actor's and the GMs' alone (a concealed character's move): answered privately."""
    return any(getattr(outcome, "secret", False) is True for step in progress.steps for outcome in step.outcomes)


MAP = "map.png"
MAP_COLOUR = discord.Colour.dark_gold()


@app_commands.guild_only()
class GrailCog(commands.GroupCog, group_name="grail", group_description="The Chinese d20 game: stances and MP"):
    def __init__(self, bot: Fatebot, service: GrailService) -> None:
        self.bot = bot
        self.grail = service
        super().__init__()

    @app_commands.command(name="defend", description="Take the Defend stance until your next turn")
    async def defend(self, interaction: Interaction) -> None:
        progress = await self.grail.act(
            call_of(interaction), "stance.defend", "exchange.defend", lambda play, scene: play.defend(scene), turn=True
        )
        await respond(interaction, progress)

    @app_commands.command(name="move", description="Move your active character to a square (a move action)")
    @app_commands.describe(
        x="Column in the sector, 0-99",
        y="Row in the sector, 0-99",
        run="Run: farther, but no standard action and no defence until your next turn",
        sector_x="The sector's column (default 0)",
        sector_y="The sector's row",
    )
    async def move(
        self,
        interaction: Interaction,
        x: Square,
        y: Square,
        run: bool = False,
        sector_x: SectorIndex = 0,
        sector_y: SectorIndex = 0,
    ) -> None:
        progress = await self.grail.act(
            call_of(interaction),
            "character.moved",
            "exchange.move",
            lambda play, scene: play.move(scene, x, y, (sector_x, sector_y), run=run),
            turn=True,
        )
        await respond(interaction, progress, private=kept_secret(progress))

    @gm_command(name="place", description="Set a character's square")
    @app_commands.describe(
        character="Who", x="Column, 0-99", y="Row, 0-99", sector_x="Sector column", sector_y="Sector row"
    )
    async def place(
        self,
        interaction: Interaction,
        character: NameText,
        x: Square,
        y: Square,
        sector_x: SectorIndex = 0,
        sector_y: SectorIndex = 0,
    ) -> None:
        progress = await self.grail.rule_on(
            call_of(interaction),
            character,
            "character.placed",
            "exchange.place",
            lambda play, scene: play.place(scene, x, y, (sector_x, sector_y)),
        )
        await respond(interaction, progress, private=kept_secret(progress))

    @gm_command(name="status", description="Set or clear a character's status")
    @app_commands.describe(character="Who", status="Which status", on="On (default) or off")
    @app_commands.choices(
        status=[
            app_commands.Choice(name=locale_str(label, key=f"status.{name}"), value=name)
            for name, label in STATUS_NAMES.items()
        ]
    )
    async def status(
        self, interaction: Interaction, character: NameText, status: app_commands.Choice[str], on: bool = True
    ) -> None:
        progress = await self.grail.rule_on(
            call_of(interaction),
            character,
            "status.set",
            "exchange.status",
            lambda play, scene: play.status(scene, status.value, on),
        )
        await respond(interaction, progress, private=status.value in SECRET_STATUSES)

    @app_commands.command(name="spirit", description="A Servant turns to spirit form (a whole turn), or leaves it")
    @app_commands.describe(leave="Leave spirit form instead (free)")
    async def spirit(self, interaction: Interaction, leave: bool = False) -> None:
        progress = await self.grail.act(
            call_of(interaction),
            "spirit.form",
            "exchange.spirit",
            lambda play, scene: play.spirit_form(scene, leave),
            turn=True,
            everyone=True,
        )
        await respond(interaction, progress)

    @app_commands.command(name="cast", description="Cast a spell: healing, protection, alarm, teleport, flight...")
    @app_commands.describe(
        spell="The spell",
        target="On whom (default: yourself)",
        amount="MP into a healing or a protection; a reinforcement's rank; how many familiars or puppets",
        modifier="A suggestion's difficulty the GM gave, -10..10",
        x="Teleport: the column, 0-99",
        y="Teleport: the row, 0-99",
        sector_x="Teleport: the sector's column",
        sector_y="Teleport: the sector's row",
        keep="Keep a protection up past its time with MP",
        confirm="Spend a Master's last MP",
        item="Reinforcement: the item that becomes a Noble Phantasm; familiars or puppets: what to call them",
    )
    @app_commands.choices(
        spell=[
            app_commands.Choice(name=locale_str(label, key=f"spell.{name}"), value=name)
            for name, label in SPELLS.items()
        ]
    )
    async def cast(
        self,
        interaction: Interaction,
        spell: app_commands.Choice[str],
        target: NameText | None = None,
        amount: app_commands.Range[int, 1, 1000] | None = None,
        modifier: app_commands.Range[int, -10, 10] = 0,
        x: Square | None = None,
        y: Square | None = None,
        sector_x: SectorIndex = 0,
        sector_y: SectorIndex = 0,
        keep: bool = False,
        confirm: bool = False,
        item: NameText | None = None,
    ) -> None:
        params = {
            "amount": amount,
            "modifier": modifier,
            "x": x,
            "y": y,
            "sector_x": sector_x,
            "sector_y": sector_y,
            "keep": keep,
            "confirm": confirm,
            "item": item,
        }
        progress = await self.grail.cast(call_of(interaction), spell.value, params, target)
        await respond(interaction, progress)

    @app_commands.command(name="search", description="Look for others in your sector (privately)")
    async def search(self, interaction: Interaction) -> None:
        progress = await self.grail.act(
            call_of(interaction),
            "map.search",
            "exchange.search",
            lambda play, scene: play.search(scene),
            turn=True,
            everyone=True,
        )
        await respond(interaction, progress, private=True)

    @app_commands.command(name="conceal", description="Presence Concealment: hide, out of a fight (privately)")
    @app_commands.describe(leave="Leave concealment instead")
    async def conceal(self, interaction: Interaction, leave: bool = False) -> None:
        progress = await self.grail.act(
            call_of(interaction), "map.concealment", "exchange.conceal", lambda play, scene: play.conceal(scene, leave)
        )
        await respond(interaction, progress, private=True)

    @app_commands.command(name="aim", description="A trickster aims the sniper rifle: +1 to the shot per round")
    @app_commands.describe(target="Whom it aims at", rounds="Rounds of aim at once, out of a fight (in one: 1)")
    async def aim(
        self, interaction: Interaction, target: NameText, rounds: app_commands.Range[int, 1, 100] = 1
    ) -> None:
        progress = await self.grail.act(
            call_of(interaction),
            "sniper.aim",
            "exchange.aim",
            lambda play, scene: play.aim(scene, rounds),
            turn=True,
            opponent=target,
        )
        await respond(interaction, progress)

    @gm_command(name="contradict", description="Two abilities contradict: which prevails")
    @app_commands.describe(
        character="Whose ability",
        ability="Its skill, Noble Phantasm or stat",
        opponent="Whose ability it meets",
        against="The opponent's skill, Noble Phantasm or stat",
    )
    async def contradict(
        self, interaction: Interaction, character: NameText, ability: NameText, opponent: NameText, against: NameText
    ) -> None:
        progress = await self.grail.rule_on(
            call_of(interaction),
            character,
            "mystery.contradiction",
            "exchange.contradiction",
            lambda play, scene: play.contradict(scene, ability, against),
            opponent=opponent,
        )
        await respond(interaction, progress)

    @app_commands.command(name="boost", description="Rank Boost: raise its stat for this fight (once a fight)")
    @app_commands.describe(ranks="Ranks to add, up to the skill's rank")
    async def boost(self, interaction: Interaction, ranks: app_commands.Range[int, 0, 10]) -> None:
        progress = await self.grail.act(
            call_of(interaction), "skill.rank_boost", "exchange.boost", lambda play, scene: play.boost(scene, ranks)
        )
        await respond(interaction, progress)

    @app_commands.command(name="plus", description='Turn on a "+" of a stat or a skill for 10 minutes (once a day)')
    @app_commands.describe(target='The stat (STR, END, AGI, MAG, LUK) or the skill that carries the "+"')
    async def plus(self, interaction: Interaction, target: app_commands.Range[str, 1, 100]) -> None:
        progress = await self.grail.act(
            call_of(interaction), "plus.on", "exchange.plus", lambda play, scene: play.plus(scene, target)
        )
        await respond(interaction, progress)

    @app_commands.command(name="territory", description="Territory Creation: build your territory around your square")
    async def territory(self, interaction: Interaction) -> None:
        progress = await self.grail.act(
            call_of(interaction), "skill.territory", "exchange.territory", lambda play, scene: play.territory(scene)
        )
        await respond(interaction, progress)

    @app_commands.command(name="where", description="Where your characters stand (a GM sees everyone)")
    async def where(self, interaction: Interaction) -> None:
        everyone, squares = await self.grail.squares(place_of(interaction), actor_of(interaction))
        tr = translator(interaction, RULESET_ID)
        lines = [
            tr(
                "where.square",
                name=name,
                sx=square[0] // SECTOR,
                sy=square[1] // SECTOR,
                x=square[0] % SECTOR,
                y=square[1] % SECTOR,
            )
            if square
            else tr("where.nowhere", name=name)
            for name, square in squares
        ]
        placed = [(name, square[0], square[1]) for name, square in squares if square]
        if not placed:
            await output.reply(interaction, "\n".join(lines) or tr("where.none"), ephemeral=True)
            return
        title = tr("where.map_title_everyone" if everyone else "where.map_title")
        drawn = await WORKERS.run(
            interaction.user.id,
            grid_map,
            title,
            placed,
            SECTOR,
            tr.language,
            more=lambda count: tr("where.more", count=count),
        )
        picture = output.Picture(MAP, drawn, "\n".join(lines))
        embed = discord.Embed(title=title, description="\n".join(lines), colour=MAP_COLOUR).set_image(url=picture.url)
        await output.reply(interaction, embed=embed, ephemeral=True, pictures=[picture])

    @place.autocomplete("character")
    @status.autocomplete("character")
    @aim.autocomplete("target")
    @cast.autocomplete("target")
    @contradict.autocomplete("character")
    @contradict.autocomplete("opponent")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @app_commands.command(name="transfer", description="A Master gives MP to its Servant: each 1 MP gives it 2")
    @app_commands.describe(amount="MP the Master pays")
    async def transfer(self, interaction: Interaction, amount: app_commands.Range[int, 1, 1000]) -> None:
        progress = await self.grail.act(
            call_of(interaction), "mp.transfer", "exchange.transfer", lambda play, scene: play.transfer(scene, amount)
        )
        await respond(interaction, progress)

    @app_commands.command(name="ritual", description="The daily ritual: the Servant recovers half its MP")
    @app_commands.describe(reverse="Instead, MP the Master recovers, 10 of the Servant's for each")
    async def ritual(self, interaction: Interaction, reverse: app_commands.Range[int, 1, 100] | None = None) -> None:
        progress = await self.grail.act(
            call_of(interaction), "mp.ritual", "exchange.ritual", lambda play, scene: play.ritual(scene, reverse)
        )
        await respond(interaction, progress)

    @app_commands.command(name="rest", description="A Master rests 8 hours and recovers all its MP (once a day)")
    async def rest(self, interaction: Interaction) -> None:
        progress = await self.grail.act(
            call_of(interaction), "mp.rest", "exchange.rest", lambda play, scene: play.rest(scene)
        )
        await respond(interaction, progress)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(GrailCog(bot, GrailService(bot.database, bot.clock, bot.engine)))
