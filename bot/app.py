"""The bot: shared resources, extensions, the command tree and its one error handler."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import discord
import yarl
from cachetools import LRUCache
from discord import app_commands
from discord.ext import commands

from bot.db.engine import Database
from bot.db.migrate import upgrade
from bot.errors import UserError
from bot.i18n import CommandTranslator, Translator, remember_command_ids
from bot.interactions import Interaction, begin, report_error
from bot.rulesets.base import Ruleset
from bot.rulesets.registry import RULESETS
from bot.services.campaigns import CampaignService
from bot.services.characters import CharacterService
from bot.services.combat import CombatService
from bot.services.common import Clock, system_clock
from bot.services.dialogue import DialogueService
from bot.services.exchanges import ExchangeEngine, ExchangeService
from bot.services.log import LogService
from bot.services.play import PlayService
from bot.services.reminders import ReminderService
from bot.services.rolls import RollService
from bot.services.sides import SideService
from bot.shards import EVERY_GUILD, Shards
from bot.storable import unstorable_character
from rules.dice import DiceSource

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
    "bot.cogs.help",
)
# How often the bot looks for waits whose deadline has passed.
DEADLINE_POLL_SECONDS = 5.0
# Users whose language the bot remembers, the most recently seen first.
USER_LOCALES_KEPT = 50_000


def ruleset_extensions(rulesets: Mapping[str, Ruleset]) -> tuple[str, ...]:
    """Each ruleset's own commands, each loaded on its own."""
    return tuple(ruleset.extension for ruleset in rulesets.values() if ruleset.extension)


def extensions(rulesets: Mapping[str, Ruleset] = RULESETS) -> tuple[str, ...]:
    """The shared commands, then each ruleset's own."""
    return SHARED_EXTENSIONS + ruleset_extensions(rulesets)


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
        rulesets: Mapping[str, Ruleset] = RULESETS,
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
        # The rule systems this bot serves: its services, commands and output reach them here, so the registry is
        # named by the app alone and whoever builds a bot may hand it others.
        self.rulesets = rulesets
        # One engine for the process: every service that runs exchanges runs them through it.
        self.engine = ExchangeEngine(clock, rulesets)
        self.campaigns = CampaignService(database, clock, rulesets)
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
        for extension in ruleset_extensions(self.rulesets):
            try:
                await self.load_extension(extension)
            except commands.ExtensionError:
                # One ruleset's broken commands must not take the shared ones and every other ruleset's down.
                log.exception("the commands of %s failed to load: the bot runs without them", extension)
        await self.sync_commands()

    async def launch_shard(self, gateway: yarl.URL, shard_id: int, *, initial: bool = False) -> None:
        # discord.py tries a shard's failed first connection again every 5 s for ever, closed or not, and its
        # close() cannot reach a shard not yet connected: a bot stopped then (SIGTERM while Discord is out of
        # reach, or while another process holds the shard) would never exit. Each try comes through here.
        if self.is_closed():
            return
        await super().launch_shard(gateway, shard_id, initial=initial)

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
