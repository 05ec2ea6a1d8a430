"""Commands only the anka game has: /anka camp, join, camps, formation, talisman, base, battle, strength, check,
verify, seal, vanish and kill; /anchor; and, when the bot may read messages, anchors posted as plain numbers."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import output
from bot.errors import UserError
from bot.exchange_views import publish, respond
from bot.gm_only import gm_command
from bot.i18n import Translator
from bot.interactions import (
    Interaction,
    NameText,
    actor_of,
    call_of,
    character_choices,
    place_of,
    public_translator,
    translator,
)
from bot.rulesets.grail_anka.pictures import versus_board
from bot.rulesets.grail_anka.service import RULESET_ID, AnkaService, MemberView, Odds
from bot.services.common import Actor, Place
from bot.workers import WORKERS
from rules.grail_anka import checks, fight
from rules.grail_anka.anchors import anchor_in
from rules.grail_anka.model import PARAMS, Talisman
from rules.grail_anka.render import rate_lines
from rules.text import LABEL_LIMIT

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)

NameList = app_commands.Range[str, 1, 1000]
Rate = app_commands.Range[int, -100, 200]
TALISMAN_NAMES = {
    "illusion": "Illusion talisman",
    "illusion_kai": "Improved illusion talisman",
    "substitute": "Substitute talisman",
    "substitute_kai": "Improved substitute talisman",
}


PARAM_CHOICES = [
    app_commands.Choice(name=locale_str(name, key=f"anka.param.{param}"), value=param)
    for param, name in zip(PARAMS, ("STR", "END", "AGI", "MAG", "LUK", "NP"), strict=True)
]


def member_line(tr: Translator, member: MemberView) -> str:
    """One member of a camp: its kind and place, its fatigue or seals, whether it lost its Master, and what it
    risks (for its own camp and the GMs)."""
    parts = [tr(f"kind.{member.kind}")]
    if member.place:
        parts.append(tr(f"anka.place_word.{member.place}"))
    if member.fate:
        parts.append(tr(f"anka.fate_word.{member.fate}"))
    if member.fatigue is not None and not member.fate:
        parts.append(tr("anka.status.fatigue", fatigue=member.fatigue))
    if member.seals is not None and not member.fate:
        parts.append(tr("anka.status.seals", seals=member.seals))
    if member.masterless_turns is not None:
        parts.append(tr("anka.status.masterless", turns=member.masterless_turns))
    if member.vanish_if_lost is not None:
        parts.append(tr("anka.status.if_lost", chance=member.vanish_if_lost))
    if member.vanish_next_turn is not None:
        parts.append(tr("anka.status.next_turn", chance=member.vanish_next_turn))
    return tr("anka.member_line", name=member.name, details=tr("anka.separator").join(parts))


def names(text: str | None) -> list[str]:
    return [name.strip() for name in (text or "").split(",") if name.strip()]


BOARD = "board.png"
BOARD_COLOUR = discord.Colour.dark_red()


def formation_lines(tr: Translator, odds: Odds) -> list[str]:
    sides = zip((odds.side_a, odds.side_b), odds.formations, strict=True)
    return [
        tr("anka.formation", side=side, main=main, subs=subs, companions=companions)
        for side, (main, subs, companions) in sides
    ]


def battle_board(tr: Translator, title: str, odds: Odds) -> bytes:
    """The two camps face to face: the chosen parameters compared, what makes the rate, and each reading's chance
    (a check the rules decide without a roll has no chances to show)."""
    result = odds.rated.result
    rows = [
        (tr(f"anka.param.{param}"), odds.rated.strength_a[param], odds.rated.strength_b[param])
        for param in result.chosen
    ]
    rated = [tr.text(line) for line in rate_lines(fight.win_rate(odds.side_a, odds.side_b, odds.rated))[len(rows) :]]
    notes = formation_lines(tr, odds) + rated
    chances = (
        []
        if result.automatic
        else [
            (tr(f"anka.reading.{reading}"), float(chance))
            for reading, chance in checks.chances(result.rate or 0).items()
        ]
    )
    return versus_board(title, (odds.side_a, odds.side_b), rows, notes[:-1] if chances else notes, chances, tr.language)


@app_commands.guild_only()
class AnkaCog(commands.GroupCog, group_name="anka", group_description="The anka game: camps, battles and decisions"):
    def __init__(self, bot: Fatebot, service: AnkaService) -> None:
        self.bot = bot
        self.anka = service
        super().__init__()

    @gm_command(name="camp", description="Found a camp of characters")
    @app_commands.describe(
        name="The camp's name",
        members="Its characters, separated by commas",
        gm_run="Whether the GMs run this camp (they answer its choices)",
    )
    async def camp(self, interaction: Interaction, name: NameText, members: NameList, gm_run: bool = False) -> None:
        language = await self.anka.create_camp(call_of(interaction), name, names(members), gm_run=gm_run)
        tr = public_translator(interaction, language, RULESET_ID)
        await output.reply(interaction, tr("anka.camp_created", name=name, members=", ".join(names(members))))

    @gm_command(name="join", description="Add a character to a camp")
    @app_commands.describe(camp="The camp", character="Who joins it")
    async def join(self, interaction: Interaction, camp: NameText, character: NameText) -> None:
        language = await self.anka.join_camp(call_of(interaction), camp, character)
        tr = public_translator(interaction, language, RULESET_ID)
        await output.reply(interaction, tr("anka.camp_joined", camp=camp, name=character))

    @app_commands.command(name="camps", description="The camps and their members")
    async def camps(self, interaction: Interaction) -> None:
        tr = translator(interaction, RULESET_ID)
        lines = []
        for camp in await self.anka.camps(place_of(interaction), actor_of(interaction)):
            lines.append(tr("anka.camp_heading", name=camp.name))
            if camp.game_over is not None:
                lines.append(tr("anka.camp_out_game_over", who=camp.game_over))
            elif camp.out:
                lines.append(tr("anka.camp_out"))
            if camp.extra_actions is not None and not camp.out:  # an out camp keeps them for its return
                lines.append(tr("anka.camp_extra_actions", count=camp.extra_actions))
            if camp.gm_run:
                lines.append(tr("anka.camp_gm_run"))
            lines += [member_line(tr, member) for member in camp.members]
            if camp.action:
                lines.append(tr("anka.camp_declared", action=tr(f"anka.action.{camp.action}")))
            if camp.talismans:
                held = ", ".join(tr(f"anka.talisman.{kind}") + f" ×{count}" for kind, count in camp.talismans.items())
                lines.append(tr("anka.camp_talismans", talismans=held))
            if camp.base:
                lines.append(tr("anka.camp_base", base=camp.base))
        await output.reply(interaction, "\n".join(lines) or tr("anka.no_camps"), ephemeral=True)

    @app_commands.command(name="formation", description="Set a camp's formation for its next battle")
    @app_commands.describe(
        camp="The camp",
        main="Its main fighter",
        subs="Up to two subs, separated by commas",
        companions="Companions, separated by commas",
    )
    async def formation(
        self,
        interaction: Interaction,
        camp: NameText,
        main: NameText,
        subs: NameList | None = None,
        companions: NameList | None = None,
    ) -> None:
        name, chief, seconds, others = await self.anka.formation(
            call_of(interaction), camp, main, names(subs), names(companions)
        )
        tr = translator(interaction, RULESET_ID)
        text = tr(
            "anka.formation_set",
            camp=name,
            main=chief,
            subs=", ".join(seconds) or "—",
            companions=", ".join(others) or "—",
        )
        await output.reply(interaction, text, ephemeral=True)

    @gm_command(name="talisman", description="Set how many talismans of a kind a camp holds")
    @app_commands.describe(camp="The camp", kind="Which talisman", count="How many it holds now")
    @app_commands.choices(
        kind=[
            app_commands.Choice(name=locale_str(label, key=f"anka.talisman.{value}"), value=value)
            for value, label in TALISMAN_NAMES.items()
        ]
    )
    async def talisman(
        self,
        interaction: Interaction,
        camp: NameText,
        kind: app_commands.Choice[str],
        count: app_commands.Range[int, 0, 99],
    ) -> None:
        name, before, now = await self.anka.set_talismans(call_of(interaction), camp, Talisman(kind.value), count)
        tr = translator(interaction, RULESET_ID)
        text = tr("anka.talismans_set", camp=name, talisman=tr(f"anka.talisman.{kind.value}"), before=before, now=now)
        await output.reply(interaction, text, ephemeral=True)

    @gm_command(name="base", description="Record a camp's base, or clear it")
    @app_commands.describe(camp="The camp", base="Where its base is (leave out: it has none)")
    async def base(
        self, interaction: Interaction, camp: NameText, base: app_commands.Range[str, 1, LABEL_LIMIT] | None = None
    ) -> None:
        name = await self.anka.set_base(call_of(interaction), camp, base)
        tr = translator(interaction, RULESET_ID)
        text = tr("anka.base_set", camp=name, base=base) if base else tr("anka.base_cleared", camp=name)
        await output.reply(interaction, text, ephemeral=True)

    @app_commands.command(name="battle", description="Start a battle between two camps (the first one initiates)")
    @app_commands.describe(
        first="The camp that initiates: it goes first",
        second="The camp it meets",
        at_base_of="If the battle is at one camp's base: that camp",
    )
    async def battle(
        self, interaction: Interaction, first: NameText, second: NameText, at_base_of: NameText | None = None
    ) -> None:
        progress = await self.anka.start_battle(call_of(interaction), first, second, at_base_of=at_base_of)
        await respond(interaction, progress)

    @app_commands.command(name="strength", description="A camp's strength per parameter in its formation")
    @app_commands.describe(camp="Your camp (a GM: any)")
    async def strength(self, interaction: Interaction, camp: NameText) -> None:
        name, values = await self.anka.strengths(place_of(interaction), actor_of(interaction), camp)
        tr = translator(interaction, RULESET_ID)
        shown = ", ".join(
            tr("anka.param_value", param=tr(f"anka.param.{param}"), value=values[param]) for param in PARAMS
        )
        await output.reply(interaction, tr("anka.strength", camp=name, values=shown), ephemeral=True)

    @gm_command(name="odds", description="The win rate two camps' formations would give")
    @app_commands.describe(
        first="The camp that would initiate",
        second="The camp it would meet",
        param1="A parameter compared",
        param2="Another",
        param3="The third",
    )
    @app_commands.choices(param1=PARAM_CHOICES, param2=PARAM_CHOICES, param3=PARAM_CHOICES)
    async def odds(
        self,
        interaction: Interaction,
        first: NameText,
        second: NameText,
        param1: app_commands.Choice[str],
        param2: app_commands.Choice[str],
        param3: app_commands.Choice[str],
    ) -> None:
        chosen = [param1.value, param2.value, param3.value]
        odds = await self.anka.odds(place_of(interaction), actor_of(interaction), first, second, chosen)
        tr = translator(interaction, RULESET_ID)
        title = tr("anka.odds_title", a=odds.side_a, b=odds.side_b)
        shown = rate_lines(fight.win_rate(odds.side_a, odds.side_b, odds.rated))
        lines = formation_lines(tr, odds) + [tr.text(line) for line in shown]
        board = await WORKERS.run(interaction.user.id, battle_board, tr, title, odds)
        picture = output.Picture(BOARD, board, "\n".join([title, *lines]))
        embed = discord.Embed(title=title, description="\n".join(lines), colour=BOARD_COLOUR)
        await output.reply(interaction, embed=embed.set_image(url=picture.url), ephemeral=True, pictures=[picture])

    @gm_command(name="check", description="Open a check at a success rate, decided by an anchor")
    @app_commands.describe(rate="The success rate in percent", purpose="What is being checked")
    async def check(
        self, interaction: Interaction, rate: Rate, purpose: app_commands.Range[str, 1, LABEL_LIMIT]
    ) -> None:
        progress = await self.anka.check(call_of(interaction), rate, purpose)
        await respond(interaction, progress)

    @app_commands.command(
        name="verify", description="Hash a revealed decision again and compare it with its commitment"
    )
    @app_commands.describe(decision="The decision's id")
    async def verify(self, interaction: Interaction, decision: app_commands.Range[str, 1, 40]) -> None:
        verified = await self.anka.verify(place_of(interaction), decision)
        tr = translator(interaction, RULESET_ID)
        if not verified.revealed:
            text = tr("anka.verify_pending", id=verified.key, digest=verified.digest)
        else:
            key = "anka.verify_ok" if verified.matches else "anka.verify_mismatch"
            text = tr(key, id=verified.key, digest=verified.digest, input=verified.hashed or "")
        await output.reply(interaction, text, ephemeral=True)

    @verify.autocomplete("decision")
    async def decision_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            found = await self.anka.decisions(place_of(interaction), current)
        except UserError:
            return []
        return output.fit_choices(app_commands.Choice(name=key, value=key) for key in found)

    @app_commands.command(name="seal", description="Spend a command seal: your Servant recovers 6 fatigue")
    @app_commands.describe(servant="Your Servant")
    async def seal(self, interaction: Interaction, servant: NameText) -> None:
        progress = await self.anka.recover(call_of(interaction), servant)
        await respond(interaction, progress)

    @gm_command(name="vanish", description="Mark a Servant vanished, or back in play")
    @app_commands.describe(character="The Servant", on="Vanished (default) or back")
    async def vanish(self, interaction: Interaction, character: NameText, on: bool = True) -> None:
        progress = await self.anka.set_fate(call_of(interaction), character, "vanished", on)
        await respond(interaction, progress)

    @gm_command(name="kill", description="Mark a Master or another character dead, or alive")
    @app_commands.describe(character="Who", on="Dead (default) or alive")
    async def kill(self, interaction: Interaction, character: NameText, on: bool = True) -> None:
        progress = await self.anka.set_fate(call_of(interaction), character, "dead", on)
        await respond(interaction, progress)

    @app_commands.command(name="action", description="Declare your camp's action for this turn (rest recovers fatigue)")
    @app_commands.describe(camp="Your camp", action="Rest, or another action", note="What it does, in a few words")
    @app_commands.choices(
        action=[
            app_commands.Choice(name=locale_str("Rest", key="anka.action.rest"), value="rest"),
            app_commands.Choice(name=locale_str("Another action", key="anka.action.other"), value="other"),
        ]
    )
    async def action(
        self,
        interaction: Interaction,
        camp: NameText,
        action: app_commands.Choice[str],
        note: app_commands.Range[str, 1, LABEL_LIMIT] | None = None,
    ) -> None:
        name, turn, left = await self.anka.declare_action(call_of(interaction), camp, action.value, note)
        tr = translator(interaction, RULESET_ID)  # a camp's plans are its own
        said = tr("anka.action_declared", camp=name, turn=turn, action=tr(f"anka.action.{action.value}"))
        said += f" ({note})" if note else ""
        if left is not None:
            said += "\n" + tr("anka.extra_actions_after", count=left)
        await output.reply(interaction, said, ephemeral=True)

    @gm_command(name="relation", description="Two camps allied, in ceasefire, or hostile again")
    @app_commands.describe(camp="A camp", other="The other camp", relation="How they stand")
    @app_commands.choices(
        relation=[
            app_commands.Choice(name=locale_str(label, key=f"anka.relation.{value}"), value=value)
            for value, label in (("allied", "Allied"), ("ceasefire", "Ceasefire"), ("hostile", "Hostile"))
        ]
    )
    async def relation(
        self, interaction: Interaction, camp: NameText, other: NameText, relation: app_commands.Choice[str]
    ) -> None:
        first, second, language = await self.anka.set_relation(call_of(interaction), camp, other, relation.value)
        tr = public_translator(interaction, language, RULESET_ID)
        await output.reply(
            interaction,
            tr("anka.relation_set", camp=first, other=second, relation=tr(f"anka.relation.{relation.value}")),
        )

    @gm_command(name="standing", description="Count a camp in the war or out of it, or by its members")
    @app_commands.describe(camp="The camp", standing="In, out, or by its members (a living Master or Servant)")
    @app_commands.choices(
        standing=[
            app_commands.Choice(name=locale_str(label, key=f"anka.standing.{value}"), value=value)
            for value, label in (("auto", "By its members"), ("active", "In the war"), ("out", "Out of the war"))
        ]
    )
    async def standing(self, interaction: Interaction, camp: NameText, standing: app_commands.Choice[str]) -> None:
        name = await self.anka.set_standing(call_of(interaction), camp, standing.value)
        tr = translator(interaction, RULESET_ID)
        text = tr("anka.standing_set", camp=name, standing=tr(f"anka.standing.{standing.value}"))
        await output.reply(interaction, text, ephemeral=True)

    @gm_command(name="finale", description="Begin the war's final processing")
    @app_commands.describe(extra_actions="Extra actions the camps get first (default none)")
    async def finale(self, interaction: Interaction, extra_actions: app_commands.Range[int, 0, 10] = 0) -> None:
        name, camps, language, begun = await self.anka.finale(call_of(interaction), extra_actions)
        tr = public_translator(interaction, language, RULESET_ID)
        key = "anka.finale_now" if begun else "anka.finale_after_actions"
        await output.reply(interaction, tr(key, campaign=name, camps=", ".join(camps) or "—", count=extra_actions))

    @gm_command(name="protagonist", description="Mark a protagonist: their death ends the game")
    @app_commands.describe(character="Who", on="A protagonist (default) or not")
    async def protagonist(self, interaction: Interaction, character: NameText, on: bool = True) -> None:
        name = await self.anka.set_protagonist(call_of(interaction), character, on)
        tr = translator(interaction, RULESET_ID)
        await output.reply(
            interaction, tr("anka.protagonist_on" if on else "anka.protagonist_off", name=name), ephemeral=True
        )

    @app_commands.command(name="contract", description="A Servant and a Master agree to a new contract")
    @app_commands.describe(servant="The Servant", master="Its new Master")
    async def contract(self, interaction: Interaction, servant: NameText, master: NameText) -> None:
        progress = await self.anka.contract(call_of(interaction), servant, master)
        await respond(interaction, progress)

    @app_commands.command(name="order", description="Spend a command seal on the story, as a GM allows")
    @app_commands.describe(master="Your Master", reason="What the command does")
    async def order(
        self, interaction: Interaction, master: NameText, reason: app_commands.Range[str, 1, LABEL_LIMIT]
    ) -> None:
        progress = await self.anka.order(call_of(interaction), master, reason)
        await respond(interaction, progress)

    @join.autocomplete("character")
    @formation.autocomplete("main")
    @seal.autocomplete("servant")
    @vanish.autocomplete("character")
    @kill.autocomplete("character")
    @protagonist.autocomplete("character")
    @contract.autocomplete("servant")
    @contract.autocomplete("master")
    @order.autocomplete("master")
    async def any_character(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


class AnchorCog(commands.Cog):
    """Anchors: `/anchor`, and numbers posted in the channel when the bot may read messages."""

    def __init__(self, bot: Fatebot, service: AnkaService) -> None:
        self.bot = bot
        self.anka = service

    @app_commands.command(name="anchor", description="Give the anchor number of an open decision")
    @app_commands.describe(number="A number from 1 to 100", decision="Which decision, when several are open")
    @app_commands.guild_only()
    async def anchor(
        self,
        interaction: Interaction,
        number: app_commands.Range[int, 1, 100],
        decision: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        progress = await self.anka.anchor(
            place_of(interaction), actor_of(interaction), number, self.bot.dice, decision=decision
        )
        await respond(interaction, progress)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A plain message that holds one number anchors the channel's open decision, if its author may; anything
        else is chatter (R2)."""
        if message.author.bot or message.guild is None:
            return
        number = anchor_in(message.content)
        if number is None:
            return
        channel = message.channel
        parent = getattr(channel, "parent_id", None) if isinstance(channel, discord.Thread) else None
        place = Place(message.guild.id, parent or channel.id)
        try:
            if not await self.anka.anchor_open(place):
                return
            actor = Actor(
                message.author.id, getattr(getattr(message.author, "guild_permissions", None), "manage_guild", False)
            )
            progress = await self.anka.anchor(place, actor, number, self.bot.dice)
        except UserError:
            return  # not eligible: chatter, skipped
        await publish(self.bot, progress)


async def setup(bot: Fatebot) -> None:
    service = AnkaService(bot.database, bot.clock, bot.engine)
    await bot.add_cog(AnkaCog(bot, service))
    await bot.add_cog(AnchorCog(bot, service))
