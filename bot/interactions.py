"""What every command, click and form shares: who and where it comes from, the reader's language, and the
reply to an error."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot import output
from bot.db.engine import COMMITTED, Busy
from bot.errors import SheetRefused, UserError, new_error_id
from bot.i18n import Translator, Worded
from bot.services.common import Actor, Call, Place
from rules.dice import DiceError
from rules.sheets import SheetProblem
from rules.text import NAME_LIMIT

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)

# A problem of a file takes at most this share of its message: one as long as a message leaves room for others.
PROBLEM_SHARE = 4

# A name typed into a command: as long as the names the bot stores (`rules.text`), so whatever is typed
# fits every message that repeats it.
NameText = app_commands.Range[str, 1, NAME_LIMIT]
# A word that picks among a few (a kind, a stat, an option key, a rank).
WordText = app_commands.Range[str, 1, 40]


Interaction = discord.Interaction["Fatebot"]


def place_of(interaction: Interaction) -> Place:
    """The campaign's address: guild and channel, a thread counting as its parent channel."""
    channel = interaction.channel
    if interaction.guild_id is None or channel is None:
        raise UserError("error.guild_only")
    channel_id = channel.parent_id if isinstance(channel, discord.Thread) and channel.parent_id else channel.id
    return Place(interaction.guild_id, channel_id)


def actor_of(interaction: Interaction) -> Actor:
    return Actor(interaction.user.id, manages_guild=interaction.permissions.manage_guild)


def call_of(interaction: Interaction) -> Call:
    return Call(place_of(interaction), actor_of(interaction), interaction.client.dice, interaction.channel_id or 0)


def translator(interaction: Interaction, ruleset: str | None = None) -> Translator:
    """The reader's language, for what only they see; with a ruleset, its words too."""
    return Translator.for_locale(interaction.locale, ruleset)


def public_translator(interaction: Interaction, language: str | None, ruleset: str | None = None) -> Translator:
    """What everyone in a campaign's channel reads: the campaign's language, else the server's."""
    return campaign_translator(language, interaction.guild_locale, ruleset)


def campaign_translator(language: str | None, guild_locale: discord.Locale | None, ruleset: str | None) -> Translator:
    return Translator.for_locale(language or guild_locale, ruleset)


def problem_text(tr: Translator, problem: SheetProblem) -> str:
    """A problem of a file or of a command's details, in words. A wrong type is worded for the type expected
    ("must be a whole number"), not by its name in the code."""
    key = f"sheet.problem.{problem.code}"
    if problem.code == "wrong_type":
        key = tr.first(f"{key}.{problem.params.get('expected')}", key)
    return tr(key, **problem.params)


def problems_text(tr: Translator, heading: str, problems: Sequence[str]) -> str:
    """The heading and the problems, in one message: the whole lines that fit (each shortened to a share of it),
    then how many more there are, so a file wrong everywhere is answered once and none is left out unsaid."""
    room = output.CONTENT_LIMIT - len(heading) - len(tr("sheet.problems_more", count=len(problems))) - 2
    shown: list[str] = []
    for problem in problems:
        line = output.shorten(problem, output.CONTENT_LIMIT // PROBLEM_SHARE)
        if len(line) + 1 > room:
            break
        shown.append(line)
        room -= len(line) + 1
    more = [tr("sheet.problems_more", count=len(problems) - len(shown))] if len(shown) < len(problems) else []
    return "\n".join((heading, *shown, *more))


def error_text(tr: Translator, error: Exception) -> str | None:
    """The reply to an expected error in the reader's language; None for anything unexpected."""
    if isinstance(error, SheetRefused):
        problems = [
            tr("sheet.problem_line", field=problem.field, problem=problem_text(tr, problem))
            for problem in error.problems
        ]
        return problems_text(tr, tr(error.key), problems)
    if isinstance(error, UserError):
        key = error.key if error.fallback is None or tr.has(error.key) else error.fallback
        shown = {
            name: value.words(tr) if isinstance(value, Worded) else tr.param(value)
            for name, value in error.params.items()
        }
        return tr(key, **shown)
    if isinstance(error, DiceError):
        params = dict(error.params)
        if "position" in params:  # people count characters from one
            params["position"] = int(params["position"]) + 1
        if error.code == "syntax" and not params["found"]:  # at the end or before a space: nothing to quote
            return tr("dice.error.syntax_missing", **params)
        return tr(f"dice.error.{error.code}", **params)
    if isinstance(error, app_commands.NoPrivateMessage):
        return tr("error.guild_only")
    if isinstance(error, Busy):
        return tr("error.busy")
    return None


async def report_error(interaction: Interaction, error: Exception) -> None:
    """Answer an expected error in the user's language, privately; log anything unexpected with an id the
    reply gives too. After a commit, say that the change was saved: a retry would apply it twice. An interaction
    Discord dropped before its answer arrived can carry no reply at all: that is logged."""
    if isinstance(error, discord.NotFound) and error.code == output.UNKNOWN_INTERACTION:
        log.warning("interaction %s expired before it was answered (saved: %s)", interaction.id, COMMITTED.get())
        return
    tr = translator(interaction, error.ruleset if isinstance(error, UserError) else None)
    try:
        text = error_text(tr, error)
    except (KeyError, IndexError):  # a message the catalogs lack, or a parameter it lacks: a bug to fix
        log.exception("no catalog message for %r", error)
        text = None
    if text is None:
        error_id = new_error_id()
        log.error("command failed [error %s]", error_id, exc_info=error)
        text = tr("error.after_commit" if COMMITTED.get() else "error.unexpected", id=error_id)
    await output.reply(interaction, text, ephemeral=True)


def begin(interaction: Interaction) -> None:
    """Where every command, click and form the bot answers starts: the user's language is remembered (for what
    the bot sends them later, outside an interaction), and the reply's deadline is watched."""
    interaction.client.user_locales[interaction.user.id] = interaction.locale
    output.guard(interaction)


async def character_choices(bot: Fatebot, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        names = await bot.characters.names(place_of(interaction))
    except UserError:
        return []
    return output.fit_choices(
        app_commands.Choice(name=name, value=name) for name in names if current.lower() in name.lower()
    )
