"""/check, /attack with the defender's answer by button, and the GM's /gm award."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Fatebot, Interaction, actor_of, place_of, translator
from bot.cogs.characters import character_choices
from bot.errors import UserError
from bot.i18n import Translator
from bot.render import changed_pools, mention, rolls_text
from bot.services.play import Applied, AttackAnswered, AttackDeclared, Fallen
from bot.views import PersistentButton

AUTOCOMPLETE_LIMIT = 25
# One private message per waiting attack, each with its buttons: a handful is what a GM can act on.
PENDING_SHOWN = 5
ATTACK_COLOUR = discord.Colour.red()
CANCEL = "cancel"


def option_groups(options: Sequence[str]) -> dict[str, list[str]]:
    """Top-level buttons: options sharing a prefix (`parry_agi`, `parry_luk`) become one button with a sub-choice."""
    groups: dict[str, list[str]] = {}
    for option in options:
        head = option.split("_", 1)[0]
        groups.setdefault(head, []).append(option)
    return groups


class AnswerButton(PersistentButton, template=r"answer:(?P<pending_id>[0-9]+):(?P<option>[a-z_]+)"):
    """A defender's (or a GM's) answer to a pending attack, or a GM's cancel."""

    prefix = "answer"

    async def clicked(self, interaction: Interaction) -> None:
        bot = interaction.client
        tr = translator(interaction)
        guild_id, pending_id, option = interaction.guild_id or 0, int(self.fields["pending_id"]), self.fields["option"]
        if option == CANCEL:
            cancelled = await bot.play.cancel(guild_id, pending_id, actor_of(interaction))
            summary = tr("attack.cancelled", user=mention(interaction.user.id))
            await interaction.response.edit_message(content=summary, view=None)
            await close_prompt(interaction, cancelled.channel_id, cancelled.message_id, summary)
            return
        answered = await bot.play.answer(guild_id, pending_id, actor_of(interaction), option, bot.dice)
        summary = tr("attack.answered", name=answered.defender.name, choice=tr(f"choice.{answered.choice}"))
        await interaction.response.edit_message(content=summary, view=None)
        await interaction.followup.send(embed=resolution_embed(tr, answered))
        await close_prompt(interaction, answered.channel_id, answered.message_id, summary)


async def close_prompt(interaction: Interaction, channel_id: int, message_id: int | None, summary: str) -> None:
    """Answered from elsewhere (a private sub-choice, a GM's /gm pending): the public prompt loses its buttons
    too. The outcome is already posted, so a prompt someone deleted meanwhile costs nothing."""
    clicked_id = interaction.message.id if interaction.message else None
    if message_id is None or clicked_id == message_id:
        return
    prompt = interaction.client.get_partial_messageable(channel_id).get_partial_message(message_id)
    with contextlib.suppress(discord.HTTPException):
        await prompt.edit(content=summary, view=None)


class ChooseButton(PersistentButton, template=r"choose:(?P<pending_id>[0-9]+):(?P<head>[a-z]+)"):
    """An answer with a second step (Parry, then AGI or LUK): offers the sub-choices privately."""

    prefix = "choose"

    async def clicked(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        pending_id, head = int(self.fields["pending_id"]), self.fields["head"]
        options = await interaction.client.play.options_of(interaction.guild_id or 0, pending_id, actor_of(interaction))
        sub_options = [option for option in options if option.startswith(f"{head}_")]
        await interaction.response.send_message(
            tr(f"choice.{head}.question"), view=answer_view(tr, pending_id, sub_options, grouped=False), ephemeral=True
        )


def answer_view(
    tr: Translator, pending_id: int, options: Sequence[str], *, with_cancel: bool = False, grouped: bool = True
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    groups = option_groups(options) if grouped else {option: [option] for option in options}
    for head, members in groups.items():
        if len(members) > 1:
            view.add_item(ChooseButton(tr(f"choice.{head}"), pending_id=pending_id, head=head))
            continue
        style = discord.ButtonStyle.secondary if members[0] == "take" else discord.ButtonStyle.primary
        view.add_item(AnswerButton(tr(f"choice.{members[0]}"), style, pending_id=pending_id, option=members[0]))
    if with_cancel:
        view.add_item(
            AnswerButton(tr("choice.cancel"), discord.ButtonStyle.danger, pending_id=pending_id, option=CANCEL)
        )
    return view


def fallen_lines(tr: Translator, fallen: Sequence[Fallen]) -> list[str]:
    return [tr(f"fate.{item.fate}", name=item.name) for item in fallen]


def declared_embed(tr: Translator, declared: AttackDeclared) -> discord.Embed:
    outcome = declared.applied.resolution.outcome
    embed = discord.Embed(
        title=tr("attack.declared", attacker=declared.attacker.name, defender=declared.defender.name),
        description=rolls_text(tr, declared.applied.resolution.rolls),
        colour=ATTACK_COLOUR,
    )
    if outcome.get("mana_cost"):
        embed.add_field(name=tr("attack.mana_cost"), value=str(outcome["mana_cost"]))
    embed.add_field(name=tr("attack.round"), value=str(declared.round_number))
    notes = []
    if "hit" in outcome:  # resolved at once (an attack that cannot be defended)
        key = "attack.hit" if outcome["hit"] else "attack.avoided"
        notes.append(tr(key, attacker=declared.attacker.name, defender=declared.defender.name,
                        damage=outcome.get("damage", 0)))  # fmt: skip
        notes.extend(outcome_notes(tr, outcome))
    notes.extend(fallen_lines(tr, declared.applied.fallen))
    if notes:
        embed.add_field(name=tr("attack.notes"), value="\n".join(notes), inline=False)
    add_pool_fields(tr, embed, declared.applied)
    return embed


def add_pool_fields(tr: Translator, embed: discord.Embed, applied: Applied) -> None:
    """Each changed character's pools as they are now."""
    for name, pools in changed_pools(tr, applied.pools):
        embed.add_field(name=name, value=pools)


def outcome_notes(tr: Translator, outcome: dict[str, Any]) -> list[str]:
    return [tr(f"outcome.{flag}", **outcome) for flag in OUTCOME_FLAGS if outcome.get(flag)]


def resolution_embed(tr: Translator, answered: AttackAnswered) -> discord.Embed:
    outcome = answered.applied.resolution.outcome
    hit = bool(outcome.get("hit"))
    key = "attack.hit" if hit else "attack.avoided"
    embed = discord.Embed(
        title=tr(key, attacker=answered.attacker.name, defender=answered.defender.name,
                 damage=outcome.get("damage", 0)),
        description=rolls_text(tr, answered.applied.resolution.rolls) or None,
        colour=ATTACK_COLOUR,
    )  # fmt: skip
    notes = outcome_notes(tr, outcome)
    if answered.forced_by_gm:
        notes.append(tr("outcome.forced"))
    notes.extend(fallen_lines(tr, answered.applied.fallen))
    if notes:
        embed.add_field(name=tr("attack.notes"), value="\n".join(notes), inline=False)
    add_pool_fields(tr, embed, answered.applied)
    return embed


async def action_choices(
    bot: Fatebot, interaction: Interaction, current: str, *, attacker: str | None = None
) -> list[app_commands.Choice[str]]:
    """The attacks a character can make (the user's active one unless named), offered by the channel's ruleset."""
    try:
        place = place_of(interaction)
        play = await bot.characters.play(place)
        _, character, _, _ = await bot.characters.show(place, actor_of(interaction), attacker)
    except UserError:
        return []
    tr = translator(interaction)
    labelled = [(tr(choice.label_key, **choice.params), choice.value) for choice in play.attack_actions(character)]
    return [
        app_commands.Choice(name=label[:100], value=value)
        for label, value in labelled
        if current.lower() in label.lower()
    ][:AUTOCOMPLETE_LIMIT]


def rank_choices(current: str) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=rank, value=rank) for rank in ("A", "B", "C", "D", "E") if current.upper() in rank]


# Outcome flags worth a line of their own, in display order.
OUTCOME_FLAGS = (
    "auto_hit",
    "staggered",
    "repeat_penalty",
    "crit_bonus",
    "null_damage",
    "np_no_effect",
    "parry_bonus_round",
)


class PlayCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    @app_commands.command(name="check", description="Roll a check with your active character")
    @app_commands.describe(stat="The stat to roll", target="The GM's target, if any", modifier="A modifier the GM gave")
    @app_commands.guild_only()
    async def check(
        self, interaction: Interaction, stat: str, target: app_commands.Range[int, -100, 100] | None = None,
        modifier: app_commands.Range[int, -20, 20] = 0,
    ) -> None:  # fmt: skip
        tr = translator(interaction)
        done = await self.bot.play.check(
            place_of(interaction), actor_of(interaction), stat=stat, modifier=modifier, target=target,
            dice=self.bot.dice,
        )  # fmt: skip
        outcome = done.resolution.outcome
        title = tr("check.title", name=done.character.name, stat=stat, score=outcome.get("score", "?"))
        embed = discord.Embed(title=title, description=rolls_text(tr, done.resolution.rolls), colour=ATTACK_COLOUR)
        if outcome.get("success") is not None:
            embed.add_field(
                name=tr("check.target", target=target),
                value=tr("check.success" if outcome["success"] else "check.failure"),
            )
        await interaction.response.send_message(embed=embed)

    @check.autocomplete("stat")
    async def stat_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            play = await self.bot.characters.play(place_of(interaction))
        except UserError:
            return []
        return [app_commands.Choice(name=stat, value=stat) for stat in play.check_stats if current.upper() in stat]

    @app_commands.command(name="attack", description="Attack with your active character; the defender answers later")
    @app_commands.describe(
        target="Who you attack",
        action="How: the attack and weapon or Noble Phantasm (offered by your ruleset)",
        attacks="How many attacks you declare this round",
        rank="Hold back: attack at a lower rank to spend less mana",
        confirm="Confirm a spend that would leave your Servant with no mana (it dies)",
    )
    @app_commands.guild_only()
    async def attack(
        self, interaction: Interaction, target: str, action: str, attacks: app_commands.Range[int, 1, 10] = 1,
        rank: str | None = None, confirm: bool = False,
    ) -> None:  # fmt: skip
        tr = translator(interaction)
        channel_id = interaction.channel_id or 0
        declared = await self.bot.play.declare_attack(
            place_of(interaction), actor_of(interaction), target=target, action=action, attacks=attacks, rank=rank,
            confirm=confirm, dice=self.bot.dice, channel_id=channel_id,
        )  # fmt: skip
        await interaction.response.send_message(embed=declared_embed(tr, declared))
        if declared.pending_id is None:
            return
        owner = declared.defender.owner_id
        # The prompt speaks to the defender: in their language when the bot has seen it.
        defender_tr = self.bot.translator_for(owner, interaction.guild_locale)
        channel = interaction.channel
        assert isinstance(channel, discord.abc.Messageable)
        # A message of its own, not a reply: it outlives the interaction's 15-minute token.
        prompt = await channel.send(
            defender_tr("attack.prompt", user=mention(owner), defender=declared.defender.name,
                        attacker=declared.attacker.name),
            view=answer_view(defender_tr, declared.pending_id, declared.options, with_cancel=True),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(owner)]),
        )  # fmt: skip
        await self.bot.play.attach_message(declared.pending_id, prompt.id)

    @attack.autocomplete("target")
    async def target_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @attack.autocomplete("action")
    async def attack_actions(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await action_choices(self.bot, interaction, current)

    @attack.autocomplete("rank")
    async def attack_ranks(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return rank_choices(current)


@app_commands.guild_only()
class GmCog(commands.GroupCog, group_name="gm", group_description="Game master tools"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="award", description="Give or take points, HP or prana (GM only)")
    @app_commands.describe(
        character="Whose", resource="What to change", amount="How much (negative takes away)", reason="Why"
    )
    async def award(
        self, interaction: Interaction, character: str, resource: str, amount: app_commands.Range[int, -1000, 1000],
        reason: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:  # fmt: skip
        tr = translator(interaction)
        award = await self.bot.play.award(
            place_of(interaction), actor_of(interaction), name=character, resource=resource, amount=amount,
            reason=reason,
        )  # fmt: skip
        total = f"{award.current}/{award.maximum}" if award.maximum is not None else str(award.current)
        lines = [tr("gm.awarded", name=award.character, resource=tr(f"pool.{award.resource}"), amount=f"{amount:+d}",
                    total=total)]  # fmt: skip
        if reason:
            lines.append(tr("gm.reason", reason=reason))
        lines.extend(fallen_lines(tr, award.fallen))
        await interaction.response.send_message("\n".join(lines))

    @app_commands.command(name="pending", description="Attacks still waiting for an answer: force or cancel them (GM)")
    async def pending(self, interaction: Interaction) -> None:
        tr = translator(interaction)
        waiting = await self.bot.play.open_attacks(place_of(interaction), actor_of(interaction), PENDING_SHOWN)
        if not waiting:
            await interaction.response.send_message(tr("gm.nothing_pending"), ephemeral=True)
            return
        await interaction.response.send_message(tr("gm.pending_count", count=len(waiting)), ephemeral=True)
        for attack in waiting:
            await interaction.followup.send(
                tr("gm.pending_line", attacker=attack.attacker, defender=attack.defender, id=attack.pending_id),
                view=answer_view(tr, attack.pending_id, attack.options, with_cancel=True),
                ephemeral=True,
            )

    @award.autocomplete("character")
    async def award_characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    @award.autocomplete("resource")
    async def award_resources(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        tr = translator(interaction)
        try:
            play = await self.bot.characters.play(place_of(interaction))
        except UserError:
            return []
        return [app_commands.Choice(name=tr(f"pool.{name}"), value=name) for name in play.pool_names if current in name]


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(AnswerButton, ChooseButton)
    await bot.add_cog(PlayCog(bot))
    await bot.add_cog(GmCog(bot))
