"""/check and /attack for every ruleset, and the GM's /gm award, /gm pending and /gm auto."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import output
from bot.errors import UserError
from bot.exchange_views import (
    cancel_view,
    fallen_lines,
    joined,
    post_prompts,
    question_text,
    respond,
    step_messages,
    wait_view,
)
from bot.gm_only import gm_command
from bot.i18n import Translator
from bot.interactions import (
    Interaction,
    NameText,
    WordText,
    actor_of,
    call_of,
    character_choices,
    place_of,
    public_translator,
    translator,
)
from bot.parameters import suggestions
from bot.pictures import odds_chart
from bot.render import given_up_text
from bot.services.exchanges import UnreadableWait, WaitView
from bot.workers import WORKERS
from rules.play import AttackInput, CheckInput, CommandInput, Play, sendable

if TYPE_CHECKING:
    from bot.app import Fatebot

# One private message per open wait, each with its buttons: a handful is what a GM can act on at once.
PENDING_SHOWN = 5
NO_PRESET = "none"
ODDS_COLOUR = discord.Colour.purple()
CHART = "odds.png"


async def channel_play(bot: Fatebot, interaction: Interaction) -> tuple[Translator, Play] | None:
    """The channel's ruleset's mechanics, and the reader's translator with its words; None without them."""
    try:
        ruleset, play = await bot.characters.ruleset(place_of(interaction))
    except UserError:
        return None
    return translator(interaction, ruleset.id), play


def details_choices(
    tr: Translator, model: type[CommandInput], base: type[CommandInput], current: str
) -> list[app_commands.Choice[str]]:
    return output.fit_choices(
        app_commands.Choice(name=f"{value} — {tr(help_key)}" if help_key and tr.has(help_key) else value, value=value)
        for value, help_key in suggestions(model, base, current)
    )


async def action_choices(
    bot: Fatebot, interaction: Interaction, current: str, *, attacker: str | None = None
) -> list[app_commands.Choice[str]]:
    """The attacks a character can make (the user's active one unless named), offered by the channel's ruleset."""
    try:
        shown = await bot.characters.show(place_of(interaction), actor_of(interaction), attacker)
    except UserError:
        return []
    tr = translator(interaction, shown.campaign.ruleset)
    offered = sendable(shown.play.attack_actions(shown.character))
    labelled = [(tr.text(choice.label), choice.value) for choice in offered]
    return output.fit_choices(
        app_commands.Choice(name=label, value=value) for label, value in labelled if current.lower() in label.lower()
    )


def pending_parts(tr: Translator, view: WaitView | UnreadableWait) -> tuple[str, str, discord.ui.View]:
    """What /gm pending says of a wait, and its buttons: its title, whom it waits for, its options and the cancel;
    for a wait whose question no longer reads, that it does not and that it waits for the GMs, with the cancel."""
    if isinstance(view, UnreadableWait):
        return tr("wait.unreadable"), tr("wait.the_gms"), cancel_view(tr, view.wait_id)
    if view.subject:
        who = view.subject
    elif view.wait.value is not None:  # a number anyone may give (an anchor)
        who = tr("wait.a_number", minimum=view.wait.value.minimum, maximum=view.wait.value.maximum)
    else:
        who = tr("wait.any_player" if view.wait.audience.kind == "players" else "wait.the_gms")
    return tr.text(view.title), who, wait_view(tr, view.wait_id, view.wait, with_cancel=True)


def split_names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


class PlayCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    @app_commands.command(name="check", description="Roll a check with your active character")
    @app_commands.describe(
        stat="The stat to roll",
        target="The GM's target, if any",
        modifier="A modifier the GM gave",
        details="More of your ruleset's options, as name:value words (suggested as you type)",
        against="The character who opposes the check, where your ruleset has opposed checks",
    )
    @app_commands.guild_only()
    async def check(
        self,
        interaction: Interaction,
        stat: app_commands.Range[str, 1, 32] | None = None,
        target: app_commands.Range[int, -100, 100] | None = None,
        modifier: app_commands.Range[int, -20, 20] = 0,
        details: app_commands.Range[str, 1, 200] | None = None,
        against: NameText | None = None,
    ) -> None:
        given = {"stat": stat, "target": target, "modifier": modifier, "against": against}
        progress = await self.bot.play.check(call_of(interaction), given, details)
        await respond(interaction, progress)

    @check.autocomplete("stat")
    async def stat_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        if found is None:
            return []
        tr, play = found
        try:  # the active character's own stats, where its kind has fewer than the ruleset
            shown = await self.bot.characters.show(place_of(interaction), actor_of(interaction), None)
            stats = play.check_stats_of(shown.character)
        except UserError:
            stats = play.check_stats
        # Offered in the reader's words where the ruleset has them; sent as the rules write them.
        named = [(tr(f"stat.{stat}") if tr.has(f"stat.{stat}") else stat, stat) for stat in stats]
        typed = current.casefold()
        return output.fit_choices(
            app_commands.Choice(name=label, value=stat)
            for label, stat in named
            if typed in label.casefold() or typed in stat.casefold()
        )

    @check.autocomplete("against")
    async def opponent_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @check.autocomplete("details")
    async def check_details(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        return [] if found is None else details_choices(found[0], found[1].check_input, CheckInput, current)

    @app_commands.command(name="attack", description="Attack with your active character; the defender answers later")
    @app_commands.describe(
        target="Who you attack (several, separated by commas, where your ruleset allows)",
        action="How: the attack and weapon or Noble Phantasm (offered by your ruleset)",
        details="More of your ruleset's options, as name:value words (suggested as you type)",
    )
    @app_commands.guild_only()
    async def attack(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 500],
        action: app_commands.Range[str, 1, 100],
        details: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        given = {"targets": tuple(split_names(target)), "action": action}
        progress = await self.bot.play.attack(call_of(interaction), given, details)
        await respond(interaction, progress)

    @attack.autocomplete("target")
    async def target_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """A name for each target: the last one is completed, the ones before are kept."""
        *named, last = current.split(",") if current else [""]
        kept = ", ".join(name.strip() for name in named if name.strip())
        choices = await character_choices(self.bot, interaction, last.strip())
        if not kept:
            return choices
        return output.fit_choices(
            app_commands.Choice(name=f"{kept}, {choice.name}", value=f"{kept}, {choice.value}") for choice in choices
        )

    @attack.autocomplete("action")
    async def attack_actions(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await action_choices(self.bot, interaction, current)

    @app_commands.command(name="odds", description="The exact chance that an attack hits, for each defence")
    @app_commands.describe(
        attacker="Who attacks",
        defender="Who defends",
        action="The attack, as /attack takes it",
        details="The attack's other options, as /attack takes them",
    )
    @app_commands.guild_only()
    async def odds(
        self,
        interaction: Interaction,
        attacker: NameText,
        defender: NameText,
        action: app_commands.Range[str, 1, 100],
        details: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        ruleset, attacking, defending, found = await self.bot.play.odds(
            place_of(interaction), actor_of(interaction), attacker, defender, action, details
        )
        tr = translator(interaction, ruleset)
        lines = [
            tr(
                "odds.line",
                choice=tr.text(label),
                percent=tr.percent(chance),
                fraction=f"{chance.numerator}/{chance.denominator}",
            )
            for label, chance in found.lines
        ]
        embed = discord.Embed(
            title=tr("odds.title", attacker=attacking.name, defender=defending.name),
            description="\n".join(lines),
            colour=ODDS_COLOUR,
        )
        embed.set_footer(text=tr.text(found.footer))
        chances = [(tr.text(label), float(chance)) for label, chance in found.lines]
        chart = await WORKERS.run(interaction.user.id, odds_chart, embed.title or "", chances, tr.language)
        picture = output.Picture(CHART, chart, "\n".join(lines))
        embed.set_image(url=picture.url)
        await output.reply(interaction, embed=embed, ephemeral=True, pictures=[picture])

    @attack.autocomplete("details")
    @odds.autocomplete("details")
    async def attack_details(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        return [] if found is None else details_choices(found[0], found[1].attack_input, AttackInput, current)

    @odds.autocomplete("attacker")
    @odds.autocomplete("defender")
    async def odds_fighters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @odds.autocomplete("action")
    async def odds_actions(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await action_choices(self.bot, interaction, current, attacker=interaction.namespace.attacker)


@app_commands.guild_only()
class GmCog(commands.GroupCog, group_name="gm", group_description="Game master tools"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @gm_command(name="award", description="Give or take points or a pool's value")
    @app_commands.describe(
        character="Whose", resource="What to change", amount="How much (negative takes away)", reason="Why"
    )
    async def award(
        self,
        interaction: Interaction,
        character: NameText,
        resource: WordText,
        amount: app_commands.Range[int, -1000, 1000],
        reason: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        award = await self.bot.play.award(
            call_of(interaction), name=character, resource=resource, amount=amount, reason=reason
        )
        tr = public_translator(interaction, award.language, award.ruleset)
        total = f"{award.current}/{award.maximum}" if award.maximum is not None else str(award.current)
        said = {
            "name": award.character,
            "resource": tr(f"pool.{award.resource}"),
            "amount": f"{amount:+d}",
            "total": total,
        }
        if award.applied == amount:
            lines = [tr("gm.awarded", **said)]
        else:
            lines = [tr("gm.awarded_held", applied=f"{award.applied:+d}", **said)]
        if reason:
            lines.append(tr("gm.reason", reason=reason))
        # A fall, and what the rules made of the new value, are the table's to learn; the pools may stay the GMs'.
        told, embeds = joined(step_messages(tr, award.ruled))
        public = [*fallen_lines(tr, award.fallen), *([told] if told else [])]
        if not award.private:
            await output.reply(interaction, "\n".join([*lines, *public]), embeds=embeds)
        else:
            await output.reply(interaction, "\n".join(lines), ephemeral=True)
            if public or embeds:
                await output.reply(interaction, "\n".join(public) or None, embeds=embeds)
        await post_prompts(self.bot, award.ruled, interaction.guild_locale)

    @gm_command(name="pending", description="Everything still waiting for an answer: force or cancel it")
    async def pending(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        count, waiting = await self.bot.exchanges.pending(place_of(interaction), actor_of(interaction), PENDING_SHOWN)
        if not waiting:
            await output.reply(interaction, tr("gm.nothing_pending"), ephemeral=True)
            return
        lines = [tr("gm.pending_count", count=count)]
        if count > len(waiting):
            lines.append(tr("gm.pending_more", shown=len(waiting)))
        await output.reply(interaction, "\n".join(lines), ephemeral=True)
        for view in waiting:
            tr = tr.scoped(view.ruleset)
            title, who, buttons = pending_parts(tr, view)
            since = f"<t:{int(view.created_at.timestamp())}:R>"
            line = tr("gm.pending_line", id=view.wait_id, title=title, who=who, since=since)
            if isinstance(view, WaitView) and view.wait.audience.kind == "gms":
                # What the GMs decide (what a player asks of them) is said here too: its prompt may be long gone.
                line = f"{line}\n{question_text(tr, view.wait, tr('wait.gms_addressed'))}"
            if view.error_id is not None:
                line = f"{line}\n{given_up_text(tr, view.error_id)}"
            await output.reply(interaction, line, view=buttons, ephemeral=True)

    @gm_command(name="auto", description="Answer a wait in advance for a character the GMs run")
    @app_commands.describe(
        character="A character the GMs run", wait="What it is asked", answer="Its answer from now on (none: ask)"
    )
    async def auto(self, interaction: Interaction, character: NameText, wait: WordText, answer: WordText) -> None:
        chosen = None if answer == NO_PRESET else answer
        name, label, option, ruleset = await self.bot.characters.set_auto_answer(
            place_of(interaction), actor_of(interaction), character, wait, chosen
        )
        tr = translator(interaction, ruleset)
        # What the GMs' characters will do stays between the GMs.
        if option is None:
            await output.reply(interaction, tr("gm.auto_cleared", name=name, wait=tr.text(label)), ephemeral=True)
            return
        answered = tr("gm.auto_set", name=name, wait=tr.text(label), answer=tr.text(option))
        await output.reply(interaction, answered, ephemeral=True)

    @gm_command(name="reveal", description="Show a character's secret sheet to everyone, or hide it again")
    @app_commands.describe(character="Whose sheet", hide="Hide it again instead")
    async def reveal(self, interaction: Interaction, character: NameText, hide: bool = False) -> None:
        revealed = await self.bot.characters.reveal(
            place_of(interaction), actor_of(interaction), character, shown=not hide
        )
        tr = public_translator(interaction, revealed.language, revealed.ruleset)
        await output.reply(interaction, tr("gm.revealed" if revealed.shown else "gm.hidden", name=revealed.name))

    @award.autocomplete("character")
    @auto.autocomplete("character")
    @reveal.autocomplete("character")
    async def award_characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @award.autocomplete("resource")
    async def award_resources(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        if found is None:
            return []
        tr, play = found
        return output.fit_choices(
            app_commands.Choice(name=tr(f"pool.{name}"), value=name) for name in play.pool_names if current in name
        )

    @auto.autocomplete("wait")
    async def preset_waits(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        if found is None:
            return []
        tr, play = found
        labelled = [(tr.text(preset.label), preset.wait) for preset in play.presets]
        return output.fit_choices(
            app_commands.Choice(name=label, value=key) for label, key in labelled if current.lower() in label.lower()
        )

    @auto.autocomplete("answer")
    async def preset_answers(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await channel_play(self.bot, interaction)
        if found is None:
            return []
        tr, play = found
        preset = next((p for p in play.presets if p.wait == interaction.namespace.wait), None)
        if preset is None or not interaction.namespace.character:
            return []
        try:
            shown = await self.bot.characters.show(
                place_of(interaction), actor_of(interaction), interaction.namespace.character
            )
        except UserError:
            return []
        labelled = [(tr.text(choice.label), choice.value) for choice in play.preset_choices(preset, shown.character)]
        labelled.append((tr("gm.auto_none"), NO_PRESET))
        return output.fit_choices(
            app_commands.Choice(name=label, value=value)
            for label, value in labelled
            if current.lower() in label.lower()
        )


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(PlayCog(bot))
    await bot.add_cog(GmCog(bot))
