"""The `fatebot` command: run, health, invite, local, bench, db upgrade, db backup, db restore, db copy.

This module reads the command line alone: `fatebot health`, which a container runs every 30 seconds, answers
from here with the standard library and its settings; every other command is run by `bot.cli_commands`, which
imports the bot (Discord, the database and the rulesets, about a second).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from bot.health_check import HealthSettings, check_health

EXIT_UNREACHABLE = 1
EXIT_UNFIT = 1
EXIT_USAGE = 2

SettingsModel = TypeVar("SettingsModel", bound=BaseSettings)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fatebot", description="A Discord bot for play-by-post Holy Grail War campaigns"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="connect to Discord (needs DISCORD_TOKEN)")
    commands.add_parser("health", help="ask the bot running here whether it is fit (needs HEALTH_PORT); exit 0 if so")
    invite = commands.add_parser(
        "invite", help="print the URL that adds the bot to a server, with the permissions it needs"
    )
    invite.add_argument("--application-id", type=int, help="the application's id (by default read from DISCORD_TOKEN)")
    local = commands.add_parser("local", help="run the bot against the built-in Discord emulator; no token needed")
    local.add_argument("--script", type=Path, help="play a script and print one JSON object per bot message")
    local.add_argument("--seed", type=int, help="seed the dice and ids so that the output repeats exactly")
    local.add_argument(
        "--database", help="database URL (default: fatebot-local.sqlite3 here, or a temporary one with --script)"
    )
    local.add_argument("--fresh", action="store_true", help="start over: forget the world an earlier run kept")
    local.add_argument(
        "--files",
        type=Path,
        metavar="DIR",
        help="write the files the bot sends here (default: a folder beside the database file; with --script and no"
        " --database, none unless named)",
    )
    local.add_argument("--verbose", action="store_true", help="show the bot's logs (on stderr)")
    _add_bench_arguments(
        commands.add_parser("bench", help="time a mix of every ruleset's commands through the emulator")
    )
    database = commands.add_parser("db", help="database maintenance")
    database_commands = database.add_subparsers(dest="db_command", required=True)
    database_commands.add_parser("upgrade", help="apply every pending migration")
    saving = database_commands.add_parser("backup", help="copy the SQLite database to FILE, even while the bot runs")
    saving.add_argument("file", type=Path, help="the backup to write (a new file)")
    loading = database_commands.add_parser("restore", help="replace the SQLite database's content with a backup")
    loading.add_argument("file", type=Path, help="a backup written by `fatebot db backup`")
    loading.add_argument("--yes", action="store_true", help="confirm: everything stored now is replaced")
    copying = database_commands.add_parser(
        "copy", help="copy every row of the database into another, empty one (SQLite to PostgreSQL); stop the bot first"
    )
    copying.add_argument("--to", required=True, dest="target", metavar="URL", help="the database to fill (no rows yet)")
    return parser


def _add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--channels", type=int, default=10, help="campaigns of each ruleset (default 10)")
    parser.add_argument("--rounds", type=int, default=50, help="each command timed one at a time (default 50)")
    parser.add_argument(
        "--database", help="an empty or scratch database to bench on (default: a new temporary SQLite file)"
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=0,
        help="run the bot in this many processes of its own, one shard each (more than one needs PostgreSQL); "
        "default: in the bench's own process",
    )
    parser.add_argument(
        "--stored",
        type=int,
        default=0,
        metavar="N",
        help="bench again on a database that first holds N other campaigns, with characters, waits and a log",
    )
    parser.add_argument(
        "--stored-events",
        type=int,
        default=100,
        metavar="PER_CAMPAIGN",
        help="events in the log of each stored campaign (default 100)",
    )


def read_settings(model: type[SettingsModel]) -> SettingsModel | None:
    """The settings from the environment and `.env`; None, each problem said on stderr, if they do not read."""
    try:
        return model()
    except ValidationError as error:
        for problem in error.errors():
            name = "_".join(str(part) for part in problem["loc"]).upper() or "settings"
            print(f"{name}: {problem.get('ctx', {}).get('error', problem['msg'])}", file=sys.stderr)
    except UnicodeDecodeError as error:  # the environment itself cannot be undecodable: only .env can be
        print(f".env is not UTF-8 text (byte {error.start} cannot be read): save it as UTF-8.", file=sys.stderr)
    return None


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    if arguments.command == "health":
        settings = read_settings(HealthSettings)
        return EXIT_USAGE if settings is None else _health(settings)
    # Imported here, not above: the bot's modules are what `fatebot health` must not wait for.
    from bot.cli_commands import run_command  # noqa: PLC0415

    return run_command(arguments)


def _health(settings: HealthSettings) -> int:
    if settings.health_port is None:
        print("HEALTH_PORT is not set: the bot answers health checks only on the port it names.", file=sys.stderr)
        return EXIT_USAGE
    fit, report = check_health(settings.health_host, settings.health_port)
    print(report)
    return 0 if fit else EXIT_UNFIT
