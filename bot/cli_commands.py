"""The `fatebot` commands that run the bot or its database: run, invite, local, bench and db (`bot.cli` reads
the command line and answers `fatebot health` itself)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sqlite3
import sys
from pathlib import Path

import aiohttp
import discord
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from bot.app import Fatebot, point_at
from bot.bench import run_bench
from bot.cli import EXIT_UNREACHABLE, EXIT_USAGE, read_settings
from bot.console import OutputLost
from bot.db.backup import BackupError, backup, restore
from bot.db.copy import CopyRefused, copy_database
from bot.db.engine import Database, failure_text
from bot.db.migrate import NewerSchema, upgrade
from bot.health import HealthServer
from bot.invite import PORTAL_NAMES, application_id, invite_url
from bot.local import run_local
from bot.settings import Settings, database_url_problem
from rules.dice import SystemDice


def run_command(arguments: argparse.Namespace) -> int:
    """Every command but `health`, parsed by `bot.cli`: its exit status."""
    settings = read_settings(Settings)
    if settings is None:
        return EXIT_USAGE
    # Logs go to stderr; `fatebot local` keeps them to warnings unless asked, so they do not drown the replies.
    quiet = (
        (arguments.command == "local" and not arguments.verbose)
        or arguments.command == "bench"
        or (arguments.command == "db" and arguments.db_command == "copy")
    )
    level = max(logging.WARNING, logging.getLevelName(settings.log_level)) if quiet else settings.log_level
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # The bot has no voice features, so discord.py's warnings about missing voice libraries are noise.
    logging.getLogger("discord.client").setLevel(max(logging.ERROR, logging.getLogger().level))
    given = getattr(arguments, "database", None)  # `local` and `bench` may name a database of their own
    # ...and `db copy` the database to fill: each URL given is checked as DATABASE_URL is
    for option, url in (("--database", given), ("--to", getattr(arguments, "target", None))):
        if url is not None and (unusable := database_url_problem(url)) is not None:
            print(f"{option}: {unusable}", file=sys.stderr)
            return EXIT_USAGE
    shown = make_url(given or settings.database_url).render_as_string(hide_password=True)
    try:
        return _command(arguments, settings)
    except NewerSchema as newer:
        print(
            f"The database at {shown} was migrated by a newer version of the bot (schema {newer.revision}): run that"
            " version, or restore a backup this one wrote.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except OutputLost as lost:
        print(f"Cannot write the output: {lost}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except DATABASE_FAILURES as error:
        print(f"Cannot use the database at {shown}: {failure_text(error)}", file=sys.stderr)
        return EXIT_UNREACHABLE


# What opening a database can meet: a server refusing or unknown, a role or database missing, a file in a folder
# that does not exist or cannot be written.
DATABASE_FAILURES = (SQLAlchemyError, sqlite3.Error, OSError)


def _command(arguments: argparse.Namespace, settings: Settings) -> int:
    if arguments.command == "run":
        try:
            return asyncio.run(_run(settings))
        except KeyboardInterrupt:  # Ctrl-C is how a GM stops a bot running in a terminal
            return 0
    if arguments.command == "invite":
        return _invite(settings, arguments.application_id)
    if arguments.command == "local":
        return asyncio.run(
            run_local(
                script=arguments.script,
                seed=arguments.seed,
                database_url=arguments.database,
                fresh=arguments.fresh,
                files=arguments.files,
            )
        )
    if arguments.command == "bench":
        if arguments.database is not None:  # a database that cannot be used is said before the bench starts
            asyncio.run(_upgrade(arguments.database))
        return asyncio.run(
            run_bench(
                channels=arguments.channels,
                rounds=arguments.rounds,
                database_url=arguments.database,
                processes=arguments.processes,
                stored=arguments.stored,
                stored_events=arguments.stored_events,
            )
        )
    if arguments.db_command == "backup":
        return _backup(settings, arguments.file)
    if arguments.db_command == "restore":
        return _restore(settings, arguments.file, confirmed=arguments.yes)
    if arguments.db_command == "copy":
        return asyncio.run(_copy(settings, arguments.target))
    print(f"database is up to date: {asyncio.run(_upgrade(settings.database_url))}")
    return 0


BACKUP_MESSAGES = {
    "not_sqlite": "`fatebot db backup` and `restore` work on SQLite; for {detail}, use pg_dump while the bots run and"
    " pg_restore with every bot stopped (see the README).",
    "in_use": "A bot or another fatebot command has {detail} open: stop it, then restore (nothing was restored).",
    "target_unwritable": "Cannot write {detail}: nothing was changed.",
    "source_unreadable": "Cannot read the database {detail}: no backup was written.",
    "in_memory": "An in-memory database has nothing to back up.",
    "no_database": "There is no database at {detail} yet.",
    "target_exists": "{detail} exists already: choose a new file, so that no backup is overwritten.",
    "no_backup": "There is no backup at {detail}.",
    "restore_itself": "{detail} is the database itself: name a backup to restore (nothing was restored).",
    "damaged": "The backup is damaged ({detail}): nothing was restored.",
    "not_fatebot": "{detail} is not a fatebot database: nothing was restored.",
    "not_sqlite_file": "That file is not a SQLite database ({detail}): nothing was restored.",
    "newer": "{detail} was written by a newer version of the bot: restore it with that version (nothing was restored).",
    "source_not_fatebot": "{detail} is not a fatebot database: no backup was written.",
}


def _backup(settings: Settings, target: Path) -> int:
    try:
        source = backup(settings.database_url, target)
    except BackupError as error:
        return _refused(error)
    print(f"backed up {source} to {target}")
    return 0


def _restore(settings: Settings, copy: Path, *, confirmed: bool) -> int:
    if not confirmed:
        print("A restore replaces everything stored now: stop the bot, then run it again with --yes.", file=sys.stderr)
        return EXIT_USAGE
    try:
        target = restore(settings.database_url, copy)
    except BackupError as error:
        return _refused(error)
    print(f"restored {copy} into {target}; `fatebot db upgrade` (or the bot, when it starts) migrates it if older")
    return 0


def _refused(error: BackupError) -> int:
    print(BACKUP_MESSAGES[error.code].format(detail=error.detail), file=sys.stderr)
    return EXIT_USAGE


COPY_MESSAGES = {
    "same_database": "{detail} is the database being copied: name another with --to.",
    "no_source": "There is no database at {detail} to copy.",
    "source_unusable": "The database to copy cannot be read: {detail}",
    "not_fatebot": "{detail} is not a fatebot database: nothing was copied.",
    "source_behind": "{detail} is older than this version of the bot: run `fatebot db upgrade` first.",
    "source_ahead": "{detail} was migrated by a newer version of the bot: copy it with that version.",
    "target_unusable": "The database to fill cannot be used: {detail}",
    "target_not_empty": "{detail} holds rows already: copy into an empty database, so that nothing is merged.",
}


async def _copy(settings: Settings, target_url: str) -> int:
    try:
        copied = await copy_database(settings.database_url, target_url)
    except CopyRefused as refused:
        print(COPY_MESSAGES[refused.code].format(detail=refused.detail), file=sys.stderr)
        return EXIT_USAGE
    tables = ", ".join(f"{name} {count}" for name, count in copied.rows.items() if count)
    print(f"copied {sum(copied.rows.values())} rows ({tables or 'none'}) from {copied.source} to {copied.target}")
    print(f"next: set DATABASE_URL={copied.target} and start the bot")
    return 0


async def _upgrade(url: str) -> str:
    """Migrate the database at `url`; its URL, as it may be shown."""
    database = Database.from_url(url)
    try:
        await upgrade(database.engine)
    finally:
        await database.dispose()
    return database.engine.url.render_as_string(hide_password=True)


async def _run(settings: Settings) -> int:
    if not settings.discord_token:
        print("DISCORD_TOKEN is not set: put it in .env or the environment (see .env.example).", file=sys.stderr)
        return EXIT_USAGE
    database = Database.from_url(settings.database_url)
    restore_endpoints = point_at(settings.discord_api_base, settings.discord_gateway_url)
    try:
        async with Fatebot(
            database,
            SystemDice(),
            command_guild_ids=settings.command_guild_ids,
            read_messages=settings.read_messages,
            shard_count=settings.shard_count,
            shard_ids=settings.shard_ids,
            deadline_poll_seconds=settings.deadline_poll_seconds,
        ) as bot:
            _close_on_signals(bot)
            health = HealthServer(bot)
            if settings.health_port is not None:
                try:
                    await health.start(settings.health_host, settings.health_port)
                except OSError as error:
                    where = f"{settings.health_host}:{settings.health_port} (HEALTH_HOST, HEALTH_PORT)"
                    print(f"Cannot answer health checks on {where}: {error}", file=sys.stderr)
                    return EXIT_USAGE
            try:
                await bot.start(settings.discord_token)
            finally:
                await health.stop()
    except discord.LoginFailure:
        print("Discord refused the token: check DISCORD_TOKEN.", file=sys.stderr)
        return EXIT_USAGE
    except aiohttp.ClientConnectionError as error:
        print(f"Cannot reach Discord at {settings.discord_api_base}: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    finally:
        await database.dispose()
        restore_endpoints()
    return 0


def _invite(settings: Settings, given: int | None) -> int:
    application = given if given is not None else application_id(settings.discord_token or "")
    if application is None:
        why = "is not a bot token" if settings.discord_token else "is not set"
        print(f"DISCORD_TOKEN {why}: give the application's id with --application-id.", file=sys.stderr)
        return EXIT_USAGE
    print(invite_url(application))
    print(f"Scopes: bot, applications.commands. Permissions: {', '.join(PORTAL_NAMES.values())}.")
    return 0


def _close_on_signals(bot: Fatebot) -> None:
    """Ctrl-C and SIGTERM (a container stopping) close the bot the way `close` does: gateway first, then
    the rolls still being written, then the database. Cancelling the main task instead, as asyncio.run does,
    can be swallowed by a gateway read finishing at that moment, and the bot would keep running."""
    if sys.platform == "win32":  # Windows' event loops take no signal handlers: Ctrl-C stops asyncio.run there
        return
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, lambda: loop.create_task(bot.close()))
