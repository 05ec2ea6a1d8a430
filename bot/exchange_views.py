"""Exchanges on Discord, for every ruleset: steps shown, waits posted as prompts with buttons, answers,
sub-choices, GM cancels, and what a passed deadline did.

A prompt is a channel message of its own that pings whoever it waits for; its buttons carry the wait's
id, so they work days later and after a restart. When a command's step shows nothing but its wait (a
request for a GM's approval), the prompt is the command's reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot import output
from bot.errors import WaitClosed
from bot.i18n import Translator, mention
from bot.interactions import Interaction, actor_of, campaign_translator, public_translator, translator
from bot.render import changed_pools, rolls_text
from bot.services.exchanges import Applied, Closed, Fallen, Progress, Prompt, WaitView
from bot.services.requests import decision_notes
from bot.shards import EVERY_GUILD, Shards
from bot.views import PersistentButton
from rules.exchange import Text, Wait
from rules.play import Renderer

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)

# How long posting what one deadline did may take before the next deadline's outcome is posted: the wait is saved
# by then, and a post cut short is logged like one that failed.
DEADLINE_POST_SECONDS = 30.0
STEP_COLOUR = discord.Colour.red()
TONES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def fallen_lines(tr: Translator, fallen: Sequence[Fallen]) -> list[str]:
    return [tr(f"fallen.{item.fate}", name=item.name) for item in fallen]


def text_of(tr: Translator, value: Text | str) -> str:
    return tr.text(value) if isinstance(value, Text) else value


def step_message(tr: Translator, renderer: Renderer, applied: Applied) -> tuple[str | None, discord.Embed | None]:
    """A step as Discord shows it: an embed when its report has a title, else plain lines; (None, None) when
    there is nothing to show."""
    report = renderer.report(applied.outcomes)
    # A roll that followed a request of the GMs opens with their decision, whichever ruleset rolls it.
    decided = decision_notes(applied.outcomes)
    report = replace(report, notes=decided + report.notes) if decided else report
    # A post is everyone's: the rolls of a character whose sheet is hidden show their terms summed.
    rolls = rolls_text(tr, tuple(roll.folded() if roll.by in applied.hidden else roll for roll in applied.rolls))
    notes = [tr.text(note) for note in report.notes] + fallen_lines(tr, applied.fallen)
    public = {name: changed for name, changed in applied.pools.items() if name not in applied.hidden}
    pools = changed_pools(tr, public) if report.pools else []
    at = report.notes.index(report.rolls_before) if report.rolls_before in report.notes else 0
    body = notes[:at] + ([rolls] if rolls else []) + notes[at:]
    if report.title is None:
        lines = body + ([f"{name}: {shown}" for name, shown in pools] if body else [])
        return ("\n".join(lines) or None), None
    description = "\n".join(body) if report.notes_body else rolls
    embed = discord.Embed(title=tr.text(report.title), description=description or None, colour=STEP_COLOUR)
    for label, value in report.fields:
        embed.add_field(name=tr.text(label), value=text_of(tr, value))
    if notes and not report.notes_body:
        embed.add_field(name=tr("step.notes"), value="\n".join(notes), inline=False)
    for name, shown in pools:
        embed.add_field(name=name, value=shown)
    return None, embed


def summary_text(tr: Translator, closed: Closed) -> str:
    """How a wait ended, in words worded for its kind of exchange where its ruleset has them."""
    return worded_summary(tr, closed.summary, closed.kind)


def worded_summary(tr: Translator, summary: Text, kind: str) -> str:
    key = tr.first(f"{summary.key}.{kind}", summary.key)
    return tr.text(Text(key, summary.params))


def audience_mention(tr: Translator, audience_ids: Sequence[int]) -> str:
    """Whom a prompt addresses, at its start: its users, or the GMs where it names nobody."""
    return " ".join(mention(user_id) for user_id in audience_ids) if audience_ids else tr("wait.gms_addressed")


def question_text(tr: Translator, wait: Wait, audience: str) -> str:
    """A wait's question, addressed to `audience`."""
    return tr.text(Text(wait.prompt.key, {**wait.prompt.params, "audience": audience}))


def prompt_text(tr: Translator, prompt: Prompt) -> str:
    audience = audience_mention(tr, prompt.audience_ids)
    asked = question_text(tr, prompt.wait, audience)
    # Whoever a prompt waits for is pinged by the mention at its start, where its own words do not name them.
    if pinging(prompt).users and audience not in asked:
        asked = tr("wait.addressed", audience=audience, prompt=asked)
    lines = [asked]
    if prompt.deadline is not None and prompt.wait.default is not None:
        default = prompt.wait.option(prompt.wait.default)
        lapse = prompt.wait.lapse or (default.label if default else None)
        chosen = tr.text(lapse) if lapse else prompt.wait.default
        lines.append(tr("wait.deadline", time=f"<t:{int(prompt.deadline.timestamp())}:R>", default=chosen))
    if prompt.wait.value is not None:
        lines.append(tr("wait.number", minimum=prompt.wait.value.minimum, maximum=prompt.wait.value.maximum))
    return "\n".join(lines)


class WaitButton(PersistentButton, template=r"wait:(?P<wait_id>[0-9]+):(?P<option>[a-z0-9_]+)"):
    """An answer to a wait, by whoever it waits for or a GM."""

    prefix = "wait"

    async def clicked(self, interaction: Interaction) -> None:
        bot = interaction.client
        try:
            progress = await bot.exchanges.answer(
                interaction.guild_id or 0,
                int(self.fields["wait_id"]),
                actor_of(interaction),
                self.fields["option"],
                bot.dice,
            )
        except WaitClosed as closed:
            await retire_prompt(interaction, closed)
            raise
        await show_answer(interaction, progress)


async def retire_prompt(interaction: Interaction, closed: WaitClosed) -> None:
    """A prompt in the channel still offering buttons for a wait answered already (the bot stopped between the
    answer and the prompt's edit) says how it ended, as it would have: a click racing the answer writes the same."""
    message = interaction.message
    if closed.summary is None or message is None or message.flags.ephemeral or not message.components:
        return
    tr = public_translator(interaction, closed.language, closed.ruleset)
    with contextlib.suppress(discord.HTTPException):
        await output.rewrite(message, worded_summary(tr, closed.summary, closed.kind))


# The group of a button that offers every option of a wait privately (the choices of a character the GMs run).
EVERY_OPTION = "_every"
# What a page of a wait's buttons shows when it is no group's: every option and the GM's cancel (a prompt,
# /gm pending), or every option alone (`EVERY_OPTION`).
WITH_CANCEL = "_with_cancel"


async def shown_wait(interaction: Interaction, wait_id: int) -> tuple[Translator, WaitView]:
    """A wait as its clicker may see it, and the clicker's words in its ruleset."""
    view = await interaction.client.exchanges.view(interaction.guild_id or 0, wait_id, actor_of(interaction))
    return translator(interaction).scoped(view.ruleset), view


class WaitGroupButton(PersistentButton, template=r"waitgroup:(?P<wait_id>[0-9]+):(?P<group>[a-z0-9_]+)"):
    """Options grouped behind one button (Parry, then AGI or LUK): offered privately as a second choice."""

    prefix = "waitgroup"

    async def clicked(self, interaction: Interaction) -> None:
        tr, view = await shown_wait(interaction, int(self.fields["wait_id"]))
        if self.fields["group"] == EVERY_OPTION:
            await output.reply(
                interaction, tr("wait.private_choice"), view=wait_view(tr, view.wait_id, view.wait), ephemeral=True
            )
            return
        group = next((group for group in view.wait.groups if group.key == self.fields["group"]), None)
        if group is None:
            await output.reply(interaction, tr("wait.unknown_choice", choice=self.fields["group"]), ephemeral=True)
            return
        await output.reply(
            interaction,
            tr.text(group.question),
            view=wait_view(tr, view.wait_id, view.wait, group=group.key),
            ephemeral=True,
        )


class WaitCancelButton(PersistentButton, template=r"waitcancel:(?P<wait_id>[0-9]+)"):
    """A GM's cancel of the whole exchange a wait belongs to."""

    prefix = "waitcancel"

    async def clicked(self, interaction: Interaction) -> None:
        bot = interaction.client
        progress = await bot.exchanges.cancel(
            interaction.guild_id or 0, int(self.fields["wait_id"]), actor_of(interaction), bot.dice
        )
        await show_answer(interaction, progress)


def cancel_view(tr: Translator, wait_id: int) -> discord.ui.View:
    """The GM's cancel alone: for a wait whose options no longer read."""
    view = discord.ui.View(timeout=None)
    view.add_item(WaitCancelButton(tr("wait.cancel"), discord.ButtonStyle.danger, wait_id=wait_id))
    return view


def prompt_view(tr: Translator, prompt: Prompt) -> discord.ui.View:
    """A prompt's buttons in the channel. A character the GMs run answers through one button that opens its
    choices privately: their labels (its skills, its crests) would tell the table its sheet."""
    if prompt.wait.audience.kind == "character" and not prompt.audience_ids:
        view = discord.ui.View(timeout=None)
        view.add_item(
            WaitGroupButton(
                tr("wait.answer_privately"), discord.ButtonStyle.primary, wait_id=prompt.wait_id, group=EVERY_OPTION
            )
        )
        view.add_item(WaitCancelButton(tr("wait.cancel"), discord.ButtonStyle.danger, wait_id=prompt.wait_id))
        return view
    return wait_view(tr, prompt.wait_id, prompt.wait, with_cancel=True)


def wait_view(
    tr: Translator, wait_id: int, wait: Wait, *, group: str | None = None, with_cancel: bool = False, page: int = 0
) -> discord.ui.View:
    """The buttons of a wait: its options in the order its ruleset gives them (the best first), one button per
    group of options, and the GM's cancel (not on a choice for the GMs themselves, which they decide anyway; but on
    a number they wait for, which no choice ends). Options too many for one message are shown a `page` at a time."""
    shown = group or (WITH_CANCEL if with_cancel else EVERY_OPTION)
    with_cancel = with_cancel and (wait.audience.kind != "gms" or wait.value is not None)
    choices: list[discord.ui.Item[Any]] = []
    shown_groups: set[str] = set()
    for option in wait.options:
        if group is not None and option.group != group:
            continue
        if group is None and option.group is not None:
            if option.group not in shown_groups:
                shown_groups.add(option.group)
                label = next(entry.label for entry in wait.groups if entry.key == option.group)
                choices.append(WaitGroupButton(tr.text(label), TONES[option.tone], wait_id=wait_id, group=option.group))
            continue
        choices.append(WaitButton(tr.text(option.label), TONES[option.tone], wait_id=wait_id, option=option.key))
    kept = [WaitCancelButton(tr("wait.cancel"), discord.ButtonStyle.danger, wait_id=wait_id)] if with_cancel else []

    def turn(number: int, count: int) -> discord.ui.Item[Any]:
        return WaitPageButton(
            tr("wait.more", page=number + 1, count=count),
            discord.ButtonStyle.secondary,
            wait_id=wait_id,
            shown=shown,
            page=number,
        )

    return output.paged_view(choices, kept, page, turn)


class WaitPageButton(
    PersistentButton, template=r"waitpage:(?P<wait_id>[0-9]+):(?P<shown>[a-z0-9_]+):(?P<page>[0-9]{1,4})"
):
    """The next page of a wait's buttons, for whoever may answer it: privately under a public prompt, in place on
    a private page. An option on any page is answered as on the first."""

    prefix = "waitpage"

    async def clicked(self, interaction: Interaction) -> None:
        tr, view = await shown_wait(interaction, int(self.fields["wait_id"]))
        shown = self.fields["shown"]
        group = None if shown in (WITH_CANCEL, EVERY_OPTION) else shown
        if group is not None and all(entry.key != group for entry in view.wait.groups):
            await output.reply(interaction, tr("wait.unknown_choice", choice=group), ephemeral=True)
            return
        buttons = wait_view(
            tr, view.wait_id, view.wait, group=group, with_cancel=shown == WITH_CANCEL, page=int(self.fields["page"])
        )
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            await output.update(interaction, view=buttons)
        else:
            await output.reply(interaction, tr("wait.private_choice"), view=buttons, ephemeral=True)


async def close_prompts(bot: Fatebot, tr: Translator, closed: Sequence[Closed], *, skip: int | None) -> None:
    """Prompts whose wait ended lose their buttons and say how it ended. A prompt someone deleted meanwhile
    costs nothing: the outcome is posted anyway."""
    for ended in closed:
        if ended.message_id is None or ended.message_id == skip:
            continue
        message = bot.get_partial_messageable(ended.channel_id).get_partial_message(ended.message_id)
        with contextlib.suppress(discord.HTTPException):
            await output.rewrite(message, summary_text(tr, ended))


async def post_prompts(bot: Fatebot, progress: Progress, guild_locale: discord.Locale | None) -> None:
    """Each opened wait as a message of its own that pings whoever may answer it; and each whisper to its player."""
    await deliver_whispers(bot, progress, guild_locale)
    ended = {closed.wait_id for closed in progress.closed}
    # A prompt is public like the rest of the campaign: in its language, whoever it pings.
    tr = campaign_translator(progress.language, guild_locale, progress.ruleset)
    for prompt in progress.opened:
        if prompt.wait_id in ended:
            continue
        channel = bot.get_partial_messageable(prompt.channel_id)
        message = await output.post(
            channel,
            prompt_text(tr, prompt),
            view=prompt_view(tr, prompt),
            mentions=pinging(prompt),
        )
        await bot.exchanges.attach_message(prompt.wait_id, message.id)


async def deliver_whispers(bot: Fatebot, progress: Progress, guild_locale: discord.Locale | None) -> None:
    """What some characters alone noticed (or what the rules leave to the GMs), to their players (or the GMs) in a
    direct message, in each one's language; one that cannot be delivered (closed DMs) is logged and lost, as the
    player chose."""
    for applied in progress.steps:
        for user_ids, text in applied.whispers:
            for user_id in user_ids:
                tr = bot.translator_for(user_id, guild_locale, progress.ruleset)
                try:
                    user = bot.get_user(user_id) or await bot.fetch_user(user_id)
                    await output.post(user, tr.text(text))
                except discord.HTTPException:
                    log.warning("could not whisper to user %s", user_id, exc_info=True)


def pinging(prompt: Prompt) -> discord.AllowedMentions:
    """Mentions that notify whoever the prompt waits for and no one else; an offer open to every player of the
    campaign (stepping into someone else's fight) notifies no one."""
    user_ids = () if prompt.wait.audience.kind == "players" else prompt.audience_ids
    return discord.AllowedMentions(users=[discord.Object(user) for user in user_ids])


def step_messages(tr: Translator, progress: Progress) -> list[tuple[str | None, discord.Embed | None]]:
    shown = [step_message(tr, progress.renderer, applied) for applied in progress.steps]
    return [(content, embed) for content, embed in shown if content is not None or embed is not None]


def joined(messages: Sequence[tuple[str | None, discord.Embed | None]]) -> tuple[str | None, list[discord.Embed]]:
    """Several steps' messages as one reply, in the order they happened: the lines before the first embed as its
    text, then every step as an embed (the lines of a step after an embed become one of their own)."""
    first = next((index for index, (_, embed) in enumerate(messages) if embed is not None), len(messages))
    lines = [content for content, _ in messages[:first] if content]
    embeds = [
        embed if embed is not None else discord.Embed(description=content, colour=STEP_COLOUR)
        for content, embed in messages[first:]
        if embed is not None or content
    ]
    return ("\n".join(lines) or None), embeds


async def respond(interaction: Interaction, progress: Progress, *, private: bool = False) -> None:
    """A command's reply: its steps, then its prompts. A step that shows nothing but one wait is answered by
    the prompt itself (a request for a GM's approval), in the command's reply. A `private` reply (a GM's ruling
    that the table must not learn) is the user's alone, in their language."""
    bot = interaction.client
    tr = (
        translator(interaction, progress.ruleset)
        if private
        else public_translator(interaction, progress.language, progress.ruleset)
    )
    messages = step_messages(tr, progress)
    ended = {closed.wait_id for closed in progress.closed}
    opened = [prompt for prompt in progress.opened if prompt.wait_id not in ended]
    if not messages and len(opened) == 1:
        prompt = opened[0]
        await output.reply(
            interaction,
            prompt_text(tr, prompt),
            view=prompt_view(tr, prompt),
            mentions=pinging(prompt),
        )
        reply = await interaction.original_response()
        await bot.exchanges.attach_message(prompt.wait_id, reply.id)
        await deliver_whispers(bot, progress, interaction.guild_locale)
        return
    content, embeds = joined(messages) if messages else (tr("step.nothing_happened"), [])
    await output.reply(interaction, content, embeds=embeds, ephemeral=private)
    await close_prompts(bot, tr, progress.closed, skip=None)
    await post_prompts(bot, progress, interaction.guild_locale)


async def show_answer(interaction: Interaction, progress: Progress) -> None:
    """After a click: the clicked message says how its wait ended, the new steps are posted for all to see,
    other prompts of the exchange close, and the next waits are posted."""
    bot = interaction.client
    if progress.recorded:
        await output.reply(
            interaction, translator(interaction, progress.ruleset)("wait.answer_recorded"), ephemeral=True
        )
        return
    tr = public_translator(interaction, progress.language, progress.ruleset)
    clicked = interaction.message.id if interaction.message else None
    summary = progress.answered or (progress.closed[0] if progress.closed else None)
    if summary is not None:
        # A private choice (a group's options) is its answerer's alone, in their language.
        private = interaction.message is not None and interaction.message.flags.ephemeral
        summary_tr = translator(interaction, progress.ruleset) if private else tr
        await output.update(interaction, summary_text(summary_tr, summary))
    else:
        await output.acknowledge(interaction)
    if messages := step_messages(tr, progress):
        content, embeds = joined(messages)
        await output.reply(interaction, content, embeds=embeds)
    await close_prompts(bot, tr, progress.closed, skip=clicked)
    await post_prompts(bot, progress, interaction.guild_locale)


async def pass_deadlines(bot: Fatebot, shards: Shards = EVERY_GUILD) -> None:
    """Every wait of `shards`' guilds whose time is up gets its default answer, and each one's outcome is posted as
    soon as it is saved. Each post is tried on its own (the service tries each wait on its own), for a bounded time:
    one that fails or hangs (a slow or rate-limited Discord) is logged, and the next is posted."""
    async for progress in bot.exchanges.expire_due(bot.dice, shards):
        try:
            async with asyncio.timeout(DEADLINE_POST_SECONDS):
                await publish(bot, progress)
        except Exception:
            waits = ", ".join(str(closed.wait_id) for closed in progress.closed)
            log.exception(
                "posting what the deadline did in campaign %s failed (waits %s; saved all the same)",
                progress.campaign_id,
                waits,
            )


async def publish(bot: Fatebot, progress: Progress) -> None:
    """What happened without anyone clicking (a deadline passed), posted in the campaign's channel."""
    channel = bot.get_channel(progress.channel_id)
    guild = getattr(channel, "guild", None)
    locale = guild.preferred_locale if guild is not None else None
    tr = campaign_translator(progress.language, locale, progress.ruleset)
    if messages := step_messages(tr, progress):
        content, embeds = joined(messages)
        await output.post(bot.get_partial_messageable(progress.channel_id), content, embeds=embeds)
    await close_prompts(bot, tr, progress.closed, skip=None)
    await post_prompts(bot, progress, locale)
