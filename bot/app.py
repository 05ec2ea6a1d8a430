"""The bot: shared resources, extensions, the command tree and its one error handler."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import discord
import yarl
from cachetools import LRUCache
from discord import app_commands
from discord.ext import commands

from bot import output
from bot.db.engine import COMMITTED, Busy, Database
from bot.db.migrate import upgrade
from bot.errors import SheetRefused, UserError, new_error_id
from bot.i18n import CommandTranslator, Translator, Worded, remember_command_ids
from bot.rulesets.registry import RULESETS
from bot.services.campaigns import CampaignService
from bot.services.characters import CharacterService
from bot.services.combat import CombatService
from bot.services.common import Actor, Call, Clock, Place, system_clock
from bot.services.dialogue import DialogueService
from bot.services.exchanges import ExchangeEngine, ExchangeService
from bot.services.log import LogService
from bot.services.play import PlayService
from bot.services.reminders import ReminderService
from bot.services.rolls import RollService
from bot.services.sides import SideService
from bot.shards import EVERY_GUILD, Shards
from bot.storable import unstorable_character
from rules.dice import DiceError, DiceSource
from rules.exchange import Text
from rules.sheets import SheetProblem
from rules.text import NAME_LIMIT

log = logging.getLogger(__name__)

SHARED_EXTENSIONS = (
    "bot.cogs.campaign",
    "bot.cogs.roll",
    "bot.cogs.log",
    "bot.cogs.characters",
    "bot.cogs.exchanges",
    "bot.cogs.play",
    "bot.cogs.combat",
    "bot.cogs.reminders",
    "bot.cogs.dialogue",
)
# A problem of a file takes at most this share of its message: one as long as a message leaves room for others.
PROBLEM_SHARE = 4
# How often the bot looks for waits whose deadline has passed.
DEADLINE_POLL_SECONDS = 5.0
# Users whose language the bot remembers, the most recently seen first.
USER_LOCALES_KEPT = 50_000


def ruleset_extensions() -> tuple[str, ...]:
    """Each ruleset's own commands, each loaded on its own."""
    return tuple(ruleset.extension for ruleset in RULESETS.values() if ruleset.extension)


def extensions() -> tuple[str, ...]:
    """The shared commands, then each ruleset's own."""
    return SHARED_EXTENSIONS + ruleset_extensions()


# A name typed into a command: as long as the names the bot stores (`rules.text`), so whatever is typed
# fits every message that repeats it.
NameText = app_commands.Range[str, 1, NAME_LIMIT]
# A word that picks among a few (a kind, a stat, an option key, a rank).
WordText = app_commands.Range[str, 1, 40]


def point_at(api_base: str, gateway_url: str) -> Callable[[], None]:
    """Send discord.py's REST and gateway traffic to another Discord-compatible server; returns the undo."""
    previous = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)

    def restore() -> None:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = previous

    return restore


class Fatebot(commands.AutoShardedBot):
    """The bot. It runs the shards it is given (`shard_ids` of `shard_count`), or every shard Discord
    recommends; other processes may run the others, on the same database."""

    def __init__(
        self,
        database: Database,
        dice: DiceSource,
        *,
        shard_count: int | None = None,
        shard_ids: tuple[int, ...] | None = None,
        command_guild_ids: tuple[int, ...] = (),
        clock: Clock = system_clock,
        guild_ready_timeout: float = 2.0,
        deadline_poll_seconds: float = DEADLINE_POLL_SECONDS,
        read_messages: bool = False,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            # Everything the bot does starts from an interaction: it asks for no message events (in a busy server
            # they would be most of its traffic) and keeps no message cache, unless it was allowed to read plain
            # messages (a ruleset may take answers from them; it needs the message content intent).
            intents=discord.Intents(guilds=True, guild_messages=read_messages, message_content=read_messages),
            max_messages=None,
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=FatebotTree,
            guild_ready_timeout=guild_ready_timeout,
            shard_count=shard_count,
            # discord.py's stubs want a list, though None (every shard) is its default.
            shard_ids=list(shard_ids) if shard_ids is not None else None,  # type: ignore[arg-type]
        )
        self.database = database
        self.dice = dice
        self.clock = clock
        self.command_guild_ids = command_guild_ids
        # One engine for the process: every service that runs exchanges runs them through it.
        self.engine = ExchangeEngine(clock)
        self.campaigns = CampaignService(database, clock)
        self.rolls = RollService(database, clock)
        self.logs = LogService(database)
        self.characters = CharacterService(database, clock, self.engine)
        self.play = PlayService(database, clock, self.engine)
        self.combat = CombatService(database, clock, self.engine)
        self.exchanges = ExchangeService(database, clock, self.engine)
        self.sides = SideService(database, clock)
        self.reminders = ReminderService(database, clock)
        self.dialogue = DialogueService(database, clock)
        self.deadline_poll_seconds = deadline_poll_seconds
        # Each user's Discord language as last seen, for messages addressed to someone who did not invoke them.
        # Safe to lose (a restart, another process): the reminder settings and the server's language stand in.
        self.user_locales: LRUCache[int, discord.Locale] = LRUCache(USER_LOCALES_KEPT)

    async def setup_hook(self) -> None:
        await upgrade(self.database.engine)
        self.database.listen_to_other_processes()
        await self.tree.set_translator(CommandTranslator())
        for extension in SHARED_EXTENSIONS:
            await self.load_extension(extension)
        for extension in ruleset_extensions():
            try:
                await self.load_extension(extension)
            except commands.ExtensionError:
                # One ruleset's broken commands must not take the shared ones and every other ruleset's down.
                log.exception("the commands of %s failed to load: the bot runs without them", extension)
        await self.sync_commands()

    @property
    def own_shards(self) -> Shards:
        """The shards this process runs (known once it has connected; before, every guild counts as its own)."""
        if self.shard_count is None:
            return EVERY_GUILD
        return Shards(self.shard_count, tuple(self.shard_ids or range(self.shard_count)))

    async def close(self) -> None:
        await super().close()
        # Rolls still being written finish before the database closes.
        await self.rolls.journal.drain()

    def translator_for(self, user_id: int, fallback: discord.Locale | None, ruleset: str | None = None) -> Translator:
        return Translator.for_locale(self.user_locales.get(user_id, fallback), ruleset)

    async def sync_commands(self) -> None:
        """Every command to Discord (globally, or to each of `command_guild_ids`); their ids make the mentions."""
        if not self.command_guild_ids:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
            remember_command_ids((command.name, command.id) for command in synced)
            return
        everywhere: list[tuple[str, int]] = []
        for guild_id in self.command_guild_ids:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild_id)
            everywhere += [(command.name, command.id) for command in synced]
        remember_command_ids(everywhere)


Interaction = discord.Interaction[Fatebot]


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
        problems = [tr("sheet.problem_line", field=problem.field, problem=problem_text(tr, problem))
                    for problem in error.problems]  # fmt: skip
        return problems_text(tr, tr(error.key), problems)
    if isinstance(error, UserError):
        key = error.key if error.fallback is None or tr.has(error.key) else error.fallback
        shown = {name: tr.text(value) if isinstance(value, Text) else value.words(tr) if isinstance(value, Worded)
                 else value for name, value in error.params.items()}  # fmt: skip
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


def typed_texts(options: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Every text typed into a command's options, its subcommands' included."""
    for option in options:
        if isinstance(option.get("value"), str):
            yield option["value"]
        yield from typed_texts(option.get("options", ()))


class FatebotTree(app_commands.CommandTree[Fatebot]):
    async def interaction_check(self, interaction: Interaction, /) -> bool:
        """Every command starts here; text that no database could keep is refused before any command sees it."""
        if interaction.type is not discord.InteractionType.application_command:
            return True
        begin(interaction)
        data: Mapping[str, Any] = interaction.data or {}
        unstorable = (unstorable_character(text) for text in typed_texts(data.get("options", ())))
        code = next((code for code in unstorable if code is not None), None)
        if code is not None:
            await report_error(interaction, UserError("error.text_character", code=code))
            return False
        return True

    async def on_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await report_error(interaction, original)
