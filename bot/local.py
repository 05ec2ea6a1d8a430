"""`fatebot local`: the real bot against the built-in Discord emulator, interactively or from a script.

A script line is `USER[@LOCALE] [#CHANNEL[/THREAD]]: /command [subcommand] option:value option:"two words"`
or `USER [#CHANNEL[/THREAD]]: click LABEL`. Users and channels are created on first use, the first user
owns the server, `@name` in a value names a user already seen, and `#` starts a comment line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from bot.app import Fatebot, point_at
from bot.db.engine import Database
from bot.emulator import Emulator, EmulatorError
from bot.emulator.models import EVERYONE, BotOutput, Channel, Guild, Message, User
from bot.settings import Settings
from rules.dice import DiceSource, SeededDice, SystemDice

GUILD_NAME = "Local server"
DEFAULT_CHANNEL = "general"
# With --seed the bot's clock starts here and moves one minute per script line, so logs repeat exactly.
SCRIPT_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
_LINE = re.compile(
    r"^(?P<user>[^\s@#:]+)(?:@(?P<locale>[A-Za-z]{2,3}(?:-[A-Za-z]{2})?))?"
    r"(?:\s+#(?P<channel>[^\s/:]+)(?:/(?P<thread>[^\s:]+))?)?\s*:\s*(?P<action>.+)$"
)


class ScriptError(Exception):
    def __init__(self, line_number: int, message: str) -> None:
        super().__init__(f"line {line_number}: {message}")


@dataclass(frozen=True)
class Step:
    number: int
    user: str
    locale: str | None
    channel: str
    thread: str | None
    command: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    click: str | None = None


def parse_line(number: int, text: str) -> Step | None:
    """One script line as a step; None for blank and comment lines."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    match = _LINE.match(stripped)
    if match is None:
        raise ScriptError(
            number, f"cannot read {stripped!r}: expected 'USER [#CHANNEL]: /command ...' or 'click LABEL'"
        )
    action = match["action"].strip()
    channel: str = match["channel"] or DEFAULT_CHANNEL
    thread: str | None = match["thread"]
    if action.startswith("click "):
        label = action.removeprefix("click ").strip()
        return Step(number, match["user"], match["locale"], channel, thread, click=label)
    if not action.startswith("/"):
        raise ScriptError(number, f"expected a /command or 'click LABEL', got {action!r}")
    try:
        tokens = shlex.split(action[1:])
    except ValueError as error:
        raise ScriptError(number, str(error)) from error
    path = [token for token in tokens if ":" not in token]
    options = dict(token.split(":", 1) for token in tokens if ":" in token)
    if not path or tokens[: len(path)] != path:
        raise ScriptError(number, "the command and subcommand come before the options")
    return Step(number, match["user"], match["locale"], channel, thread, command=" ".join(path), options=options)


class LocalWorld:
    """The emulated server: users and channels appear as the script first names them."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self.guild: Guild | None = None
        self.users: dict[str, User] = {}
        self.locales: dict[str, str] = {}
        self.channels: dict[str, Channel] = {}

    def user(self, name: str, locale: str | None) -> User:
        if name not in self.users:
            user = self.emulator.add_user(name, locale=locale or "en-US")
            self.users[name] = user
            if self.guild is None:
                self.guild = self.emulator.add_guild(GUILD_NAME, owner=user)
            else:
                self.emulator.add_member(self.guild, user)
        if locale is not None:
            self.locales[name] = locale
        return self.users[name]

    def channel(self, name: str, thread: str | None) -> Channel:
        assert self.guild is not None
        if name not in self.channels:
            self.channels[name] = self.emulator.add_channel(self.guild, name)
        if thread is None:
            return self.channels[name]
        key = f"{name}/{thread}"
        if key not in self.channels:
            self.channels[key] = self.emulator.add_thread(self.channels[name], thread)
        return self.channels[key]

    def channel_label(self, channel_id: int) -> str:
        for label, channel in self.channels.items():
            if channel.id == channel_id:
                return label
        return "dm"

    def user_name(self, user_id: int) -> str:
        return next((name for name, user in self.users.items() if user.id == user_id), str(user_id))


def output_record(world: LocalWorld, step: int, output: BotOutput) -> list[dict[str, Any]]:
    """The JSON objects for one bot output: one per user who sees a private message, one `*` for a public one."""
    message = output.message
    if message.visible_to is EVERYONE:
        viewers = ["*"]
    else:
        viewers = sorted(world.user_name(user_id) for user_id in message.visible_to)
    embeds = [
        {
            "title": embed.get("title"),
            "description": embed.get("description"),
            "fields": [{"name": item.get("name"), "value": item.get("value")} for item in embed.get("fields") or []],
            "footer": (embed.get("footer") or {}).get("text"),
        }
        for embed in message.embeds
    ]
    return [
        {
            "step": step,
            "user": viewer,
            "channel": world.channel_label(message.channel_id),
            "ephemeral": message.ephemeral,
            "edit": output.kind == "edit",
            "content": message.content,
            "embeds": embeds,
            "buttons": message.buttons(),
            "files": [attachment.filename for attachment in message.attachments],
        }
        for viewer in viewers
    ]


async def perform(world: LocalWorld, step: Step) -> None:
    user = world.user(step.user, step.locale)
    channel = world.channel(step.channel, step.thread)
    if step.click is not None:
        message = _newest_with_button(world.emulator.visible_to(user, channel), step.click)
        if message is None:
            raise ScriptError(
                step.number, f"no message in #{step.channel} that {step.user} sees has a button {step.click!r}"
            )
        await world.emulator.click(user, message, step.click)
        return
    assert step.command is not None
    options: dict[str, object] = {}
    for name, value in step.options.items():
        if value.startswith("@") and len(value) > 1:
            if value[1:] not in world.users:
                raise ScriptError(step.number, f"unknown user {value}")
            options[name] = world.users[value[1:]]
        else:
            options[name] = value
    await world.emulator.slash(user, channel, step.command, options, locale=world.locales.get(step.user))


def _newest_with_button(messages: list[Message], label: str) -> Message | None:
    return next((message for message in reversed(messages) if label in message.buttons()), None)


@contextlib.asynccontextmanager
async def running_bot(
    database_url: str, dice: DiceSource, clock: Callable[[], datetime], seed: int | None
) -> AsyncIterator[LocalWorld]:
    """The emulator and the real bot connected to it, for as long as the block runs."""
    async with Emulator(seed=seed) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        database = Database.from_url(database_url)
        bot = Fatebot(database, dice, clock=clock, guild_ready_timeout=0.05)
        task = asyncio.create_task(bot.start(emulator.bot_token))
        try:
            await emulator.wait_ready()
            yield LocalWorld(emulator)
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await database.dispose()
            restore()


async def play_script(lines: list[str], database_url: str, seed: int | None, out: TextIO) -> None:
    steps = [step for number, text in enumerate(lines, start=1) if (step := parse_line(number, text))]
    current = 0

    def clock() -> datetime:
        return SCRIPT_EPOCH + timedelta(minutes=current)

    dice: DiceSource = SeededDice(seed) if seed is not None else SystemDice()
    async with running_bot(database_url, dice, clock if seed is not None else _utcnow, seed) as world:

        def show(output: BotOutput) -> None:
            if _is_shown(world, output):
                for record in output_record(world, current, output):
                    print(json.dumps(record, ensure_ascii=False), file=out, flush=True)

        world.emulator.add_listener(show)
        for step in steps:
            current = step.number
            try:
                await perform(world, step)
            except EmulatorError as error:
                raise ScriptError(step.number, str(error)) from error


def _is_shown(world: LocalWorld, output: BotOutput) -> bool:
    """The bot's messages and edits, without the "thinking" placeholder a deferred reply shows first."""
    message = output.message
    return output.kind != "delete" and message.author.id == world.emulator.bot_user.id and not message.loading


def _utcnow() -> datetime:
    return datetime.now(UTC)


async def run_local(settings: Settings, *, script: Path | None, seed: int | None, database_url: str | None) -> int:
    if script is None:
        return await _interactive(database_url or settings.database_url, seed)
    try:
        lines = (await asyncio.to_thread(script.read_text, encoding="utf-8")).splitlines()
    except OSError as error:
        print(f"cannot read the script: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as directory:
        url = database_url or f"sqlite:///{Path(directory) / 'local.sqlite3'}"
        try:
            await play_script(lines, url, seed, sys.stdout)
        except ScriptError as error:
            print(f"script error: {error}", file=sys.stderr)
            return 1
    return 0


def _describe(world: LocalWorld, output: BotOutput) -> str:
    for record in output_record(world, 0, output):
        audience = "everyone" if record["user"] == "*" else f"only {record['user']}"
        parts = [f"[{record['channel']}] ({audience}{', edited' if record['edit'] else ''})"]
        if record["content"]:
            parts.append(record["content"])
        for embed in record["embeds"]:
            parts.extend(str(embed[key]) for key in ("title", "description") if embed[key])
            parts.extend(f"{item['name']}: {item['value']}" for item in embed["fields"])
            if embed["footer"]:
                parts.append(str(embed["footer"]))
        if record["buttons"]:
            parts.append(" ".join(f"[{label}]" for label in record["buttons"]))
        if record["files"]:
            parts.append("files: " + ", ".join(record["files"]))
        return "\n  ".join(parts)
    return ""


async def _interactive(database_url: str, seed: int | None) -> int:
    dice: DiceSource = SeededDice(seed) if seed is not None else SystemDice()
    print(__doc__)
    print("Example:  alice: /campaign start ruleset:fate_points name:Fuyuki    (Ctrl-D to quit)\n")
    async with running_bot(database_url, dice, _utcnow, seed) as world:
        world.emulator.add_listener(
            lambda output: print(_describe(world, output)) if _is_shown(world, output) else None
        )
        number = 0
        while line := await asyncio.to_thread(sys.stdin.readline):
            number += 1
            try:
                step = parse_line(number, line)
                if step is not None:
                    await perform(world, step)
            except (ScriptError, EmulatorError) as error:
                print(f"error: {error}")
    return 0
