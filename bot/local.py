"""`fatebot local`: the real bot against the built-in Discord emulator, interactively or from a script.

A line is `wait SPAN` (`30m`, `12h`, `1d6h`): that much time passes, for the bot and the emulated Discord alike,
and what falls due meanwhile (deadlines, reminders) happens before the next line. Any other line is
`USER[@LOCALE] [#CHANNEL[/THREAD]]: ACTION`, where ACTION is one of
  /command [subcommand] option:value option:"two words"   run a command (`option:<sheet.yaml` attaches a file)
  click LABEL                                             press a button on the newest message showing it
  submit [FIELD:]"text" ...                               fill in and send the newest form shown to USER
  complete /command [subcommand] option:partial           show what the bot offers for that option
  say TEXT                                                post a plain message in the channel
Users and channels are created on first use, the first user owns the server, `@name` in a value names a
user already seen, `\n` in a submitted text is a line break, and `#` starts a comment line.
Interactively, the campaign is kept in its own database (`fatebot-local.sqlite3` here) with the ids of the
server, its channels and users beside it: the next run continues it; `--fresh` starts over. Every file the bot
sends (pictures, templates, exports) is written in a folder beside that database, or in `--files DIR`.
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
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from discord.ext import tasks
from sqlalchemy import make_url

from bot.app import DEADLINE_POLL_SECONDS, Fatebot, point_at
from bot.console import Printer
from bot.db.engine import Database
from bot.emulator import Emulator, EmulatorError
from bot.emulator.models import EVERYONE, Attachment, BotOutput, Channel, Guild, InteractionRecord, Message, User
from bot.services.log import typed_span
from rules.dice import DiceSource, SeededDice, SystemDice

GUILD_NAME = "Local server"
# Where an interactive run keeps its world, in the folder it runs in: not the bot's own database.
LOCAL_DATABASE = Path("fatebot-local.sqlite3")
LOCAL_IDS = Path("fatebot-local.ids.json")
# Beside it, the files the bot sent (there too when an interactive run names a database that is no file).
LOCAL_FILES = Path("fatebot-local-files")
DEFAULT_CHANNEL = "general"
# With --seed the bot's clock starts here and moves one minute per script line, so logs repeat exactly.
SCRIPT_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
# A scripted run does what the bot's loops do after each line itself (`run_due_jobs`): they never come round.
SCRIPT_DEADLINES_NEVER_POLLED = 365 * 24 * 3600.0
_MENTION = re.compile(r"<(@!?|@&|#)(\d+)>|<t:(-?\d+)(?::([tTdDfFR]))?>")
# The bot's loops (cog, loop) that act on time passing, in the order they come round: a wait past its deadline
# is answered before it could be reminded of.
DUE_JOBS = (("ExchangesCog", "deadlines"), ("RemindersCog", "notices"))
# Discord's component types: a text input, and a label around one (newer forms).
_TEXT_INPUT = 4
_LABEL = 18
_FIELD = re.compile(r"([\w-]+):(?! )(.*)", re.DOTALL)
_TIME_STYLES = {"t": "%H:%M", "T": "%H:%M:%S", "d": "%Y-%m-%d", "D": "%Y-%m-%d"}
# What an attachment's name keeps when written: letters, digits, `.`, `-` and `_`; nothing that names a folder.
_UNSAFE_IN_NAME = re.compile(r"[^\w.-]+")
FILE_NAME_LIMIT = 100
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
    # `submit`: the form's fields by name, "" for the one left unnamed.
    submit: dict[str, str] | None = None
    # `complete`: the option being typed (the last one given).
    complete: str | None = None
    # `say`: a plain message the user posts.
    say: str | None = None


@dataclass(frozen=True)
class Wait:
    """`wait SPAN`: time passing, on the bot's clock and the emulator's alike."""

    number: int
    span: timedelta


def parse_line(number: int, text: str) -> Step | Wait | None:
    """One script line as a step or a wait; None for blank and comment lines."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    first, _, after = stripped.partition(" ")
    if first == "wait":
        return _wait(number, after)
    match = _LINE.match(stripped)
    if match is None:
        raise ScriptError(
            number, f"cannot read {stripped!r}: expected 'USER [#CHANNEL]: /command ...', 'click LABEL' or 'wait 12h'"
        )
    action = match["action"].strip()
    where = (number, match["user"], match["locale"], match["channel"] or DEFAULT_CHANNEL, match["thread"])
    word, _, rest = action.partition(" ")
    if word == "click":
        return Step(*where, click=rest.strip())
    if word == "say":
        return Step(*where, say=rest.strip())
    if word == "submit":
        return Step(*where, submit=_form_values(number, rest))
    if word == "complete":
        command, options = _command(number, rest.strip())
        if not options:
            raise ScriptError(number, "complete needs the option being typed, as option:partial")
        return Step(*where, command=command, options=options, complete=list(options)[-1])
    command, options = _command(number, action)
    return Step(*where, command=command, options=options)


def _wait(number: int, typed: str) -> Wait:
    span = typed_span(typed)
    if span is None or span <= timedelta():
        raise ScriptError(number, f"cannot wait {typed.strip()!r}: give the time to pass as 30m, 12h or 1d6h")
    return Wait(number, span)


def _tokens(number: int, text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as error:
        raise ScriptError(number, str(error)) from error


def _command(number: int, action: str) -> tuple[str, dict[str, str]]:
    if not action.startswith("/"):
        raise ScriptError(number, f"expected a /command, 'click', 'submit', 'complete' or 'say', got {action!r}")
    tokens = _tokens(number, action[1:])
    path = [token for token in tokens if ":" not in token]
    options = dict(token.split(":", 1) for token in tokens if ":" in token)
    if not path or tokens[: len(path)] != path:
        raise ScriptError(number, "the command and subcommand come before the options")
    return " ".join(path), options


def _form_values(number: int, text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for token in _tokens(number, text):
        named = _FIELD.match(token)
        # `sheet:text` names a field; text of its own with a colon ("kind: master") does not.
        name, value = (named[1], named[2]) if named else ("", token)
        if name in values:
            raise ScriptError(number, "only one field may go unnamed" if not name else f"field {name!r} twice")
        values[name] = value.replace("\\n", "\n")
    return values


class KnownIds:
    """The ids an earlier run gave the server, its channels and users (by name), and the newest id it gave, kept
    in a file beside its database: the campaign stored under them is found again. Without a file, none."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        stored = json.loads(path.read_text(encoding="utf-8")) if path is not None and path.exists() else {}
        self.ids: dict[str, int] = {name: int(value) for name, value in stored.get("ids", {}).items()}
        self.owner: str | None = stored.get("owner")
        self.last = int(stored.get("last", 0))

    def save(self, last: int) -> None:
        if self.path is not None:
            data = {"owner": self.owner, "last": max(self.last, last), "ids": self.ids}
            self.path.write_text(json.dumps(data, indent=1), encoding="utf-8")


class LocalClock:
    """The bot's time: `base` (the wall clock, or a script's own) moved on by every `wait` so far."""

    def __init__(self, base: Callable[[], datetime]) -> None:
        self.base = base
        self.waited = timedelta()

    def now(self) -> datetime:
        return self.base() + self.waited


def saved_name(attachment: Attachment) -> str:
    """The name an attachment is written under: its own without any folder (so it stays in the folder it is
    written in) or anything but letters, digits, `.`, `-` and `_`, behind its id (two `card.png` never meet)."""
    name = PurePosixPath(attachment.filename.replace("\\", "/")).name
    kept = _UNSAFE_IN_NAME.sub("_", name)[-FILE_NAME_LIMIT:].strip(".")
    return f"{attachment.id}-{kept or 'file'}"


class AttachmentFolder:
    """Where the files the bot sends are written, each once (an edit keeping a file writes nothing new); no folder,
    none."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def write(self, message: Message) -> list[str]:
        """The paths the message's attachments are at."""
        if self.folder is None:
            return []
        paths = []
        for attachment in message.attachments:
            path = self.folder / saved_name(attachment)
            if not path.exists():
                path.write_bytes(attachment.data)
            paths.append(str(path))
        return paths


def files_beside(database_url: str) -> Path | None:
    """The folder beside a SQLite database's file for the files the bot sent (`local.sqlite3`: `local-files`)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    database = Path(url.database)
    return database.with_name(f"{database.stem}-files")


class LocalWorld:
    """The emulated server: users and channels appear as the script first names them, with the ids an earlier run
    gave them (`known`)."""

    def __init__(
        self,
        emulator: Emulator,
        files_from: Path,
        bot: Fatebot,
        clock: LocalClock,
        attachments: AttachmentFolder,
        known: KnownIds | None = None,
    ) -> None:
        self.emulator = emulator
        self.bot = bot
        self.clock = clock
        self.attachments = attachments
        self.known = known or KnownIds(None)
        emulator.ids_after(self.known.last)
        # Where `option:<PATH` finds its file: the script's folder, or the current one interactively.
        self.files_from = files_from
        self.guild: Guild | None = None
        self.users: dict[str, User] = {}
        self.channels: dict[str, Channel] = {}
        # The newest form the bot opened for each user, until it is submitted.
        self.forms: dict[str, InteractionRecord] = {}

    def user(self, name: str, locale: str | None) -> User:
        """The script's user by name; a locale given (`bob@ja:`) becomes their client's from then on, as a user
        switching Discord's language: every later command, click and form reports it."""
        if name not in self.users:
            if self.guild is None:  # the server's owner is who first spoke, in this run or the first one
                owner = self.known.owner or name
                self.known.owner = owner
                self.users[owner] = self._new_user(owner, locale if owner == name else None)
                guild_id = self.known.ids.get("guild")
                self.guild = self.emulator.add_guild(GUILD_NAME, owner=self.users[owner], given_id=guild_id)
                self.known.ids["guild"] = self.guild.id
            if name not in self.users:
                self.users[name] = self._new_user(name, locale)
                self.emulator.add_member(self.guild, self.users[name])
        elif locale is not None:
            self.users[name] = self.emulator.set_locale(self.users[name], locale)
        return self.users[name]

    def _new_user(self, name: str, locale: str | None) -> User:
        user = self.emulator.add_user(name, locale=locale or "en-US", given_id=self.known.ids.get(f"user:{name}"))
        self.known.ids[f"user:{name}"] = user.id
        return user

    def channel(self, name: str, thread: str | None) -> Channel:
        assert self.guild is not None
        if name not in self.channels:
            given = self.known.ids.get(f"channel:{name}")
            self.channels[name] = self.emulator.add_channel(self.guild, name, given_id=given)
            self.known.ids[f"channel:{name}"] = self.channels[name].id
        if thread is None:
            return self.channels[name]
        key = f"{name}/{thread}"
        if key not in self.channels:
            given = self.known.ids.get(f"channel:{key}")
            self.channels[key] = self.emulator.add_thread(self.channels[name], thread, given_id=given)
            self.known.ids[f"channel:{key}"] = self.channels[key].id
        return self.channels[key]

    async def let_time_pass(self, span: timedelta) -> None:
        """`span` on the bot's clock and the emulator's alike, then what the bot's loops do with what fell due."""
        self.clock.waited += span
        self.emulator.clock.advance(span.total_seconds())
        await run_due_jobs(self)

    def channel_label(self, channel_id: int) -> str:
        for label, channel in self.channels.items():
            if channel.id == channel_id:
                return label
        return "dm"

    def user_name(self, user_id: int) -> str:
        return next((name for name, user in self.users.items() if user.id == user_id), str(user_id))

    def readable(self, text: str | None) -> str | None:
        """Mentions, channels and times as a reader sees them in Discord: `@alice`, `#general`, a UTC time."""
        if not text:
            return text

        def replace(found: re.Match[str]) -> str:
            kind, target, stamp, style = found.groups()
            if stamp is not None:
                moment = datetime.fromtimestamp(int(stamp), UTC)
                return moment.strftime(_TIME_STYLES.get(style or "f", "%Y-%m-%d %H:%M")) + " UTC"
            if kind == "#":
                return f"#{self.channel_label(int(target))}"
            if kind == "@&":
                return "@role"
            return f"@{self.user_name(int(target))}"

        return _MENTION.sub(replace, text)


def output_record(world: LocalWorld, step: int, output: BotOutput, paths: list[str]) -> list[dict[str, Any]]:
    """The JSON objects for one bot output: one per user who sees a private message, one `*` for a public one;
    `paths` are where its files were written."""
    message = output.message
    if message.visible_to is EVERYONE:
        viewers = ["*"]
    else:
        viewers = sorted(world.user_name(user_id) for user_id in message.visible_to)
    readable = world.readable
    embeds = [
        {
            "title": readable(embed.get("title")),
            "description": readable(embed.get("description")),
            "fields": [
                {"name": readable(item.get("name")), "value": readable(item.get("value"))}
                for item in embed.get("fields") or []
            ],
            "footer": readable((embed.get("footer") or {}).get("text")),
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
            # Who a post in character (through the bot's webhook) is by; None for the bot's own messages.
            "speaker": message.author.name if message.webhook_id is not None else None,
            "content": readable(message.content),
            "embeds": embeds,
            "buttons": message.buttons(),
            "files": [attachment.filename for attachment in message.attachments],
            "paths": paths,
        }
        for viewer in viewers
    ]


@dataclass(frozen=True)
class FormField:
    """A text input of a form: `name` (from its label) is what `submit NAME:"text"` calls it."""

    name: str
    custom_id: str
    label: str
    text: str


@dataclass(frozen=True)
class Form:
    """A form the bot opened for `user`."""

    user: str
    title: str
    fields: list[FormField]


@dataclass(frozen=True)
class Choices:
    """What the bot offers while `user` types `option`: (shown name, value sent) pairs."""

    user: str
    option: str
    offered: list[tuple[str, str]]


async def perform(world: LocalWorld, step: Step | Wait) -> Form | Choices | None:
    """Run one step, or let time pass; a form it opened or the choices it asked for, to be shown."""
    if isinstance(step, Wait):
        await world.let_time_pass(step.span)
        return None
    user = world.user(step.user, step.locale)
    channel = world.channel(step.channel, step.thread)
    if step.click is not None:
        message = _newest_with_button(world.emulator.visible_to(user, channel), step.click)
        if message is None:
            raise ScriptError(
                step.number, f"no message in #{step.channel} that {step.user} sees has a button {step.click!r}"
            )
        return _opened(world, step.user, await world.emulator.click(user, message, step.click))
    if step.submit is not None:
        return _opened(world, step.user, await _submit(world, step, user))
    if step.say is not None:
        await world.emulator.post(user, channel, step.say)
        return None
    assert step.command is not None
    options = {name: _option_value(world, step, value) for name, value in step.options.items()}
    if step.complete is not None:
        offered = await world.emulator.autocomplete(user, channel, step.command, options, step.complete)
        return Choices(step.user, step.complete, [(str(choice["name"]), str(choice["value"])) for choice in offered])
    return _opened(world, step.user, await world.emulator.slash(user, channel, step.command, options))


def _option_value(world: LocalWorld, step: Step, value: str) -> object:
    if value.startswith("@") and len(value) > 1:
        if value[1:] not in world.users:
            raise ScriptError(step.number, f"unknown user {value}")
        return world.users[value[1:]]
    if value.startswith("<") and len(value) > 1:
        path = world.files_from / value[1:]
        try:
            return (path.name, path.read_bytes())
        except OSError as error:
            raise ScriptError(step.number, f"cannot attach {value[1:]}: {error.strerror or error}") from error
    return value


def _opened(world: LocalWorld, user_name: str, record: InteractionRecord) -> Form | None:
    if record.modal is None:
        return None
    world.forms[user_name] = record
    return Form(user_name, str(record.modal.get("title") or ""), _form_fields(record.modal))


def _form_fields(modal: dict[str, Any]) -> list[FormField]:
    inputs = []
    for component in modal.get("components") or []:
        if component.get("type") == _LABEL:
            inputs.append((str(component.get("label") or ""), component.get("component") or {}))
        inputs += [(str(child.get("label") or ""), child) for child in component.get("components") or []]
    fields = []
    for label, item in inputs:
        if item.get("type") == _TEXT_INPUT:
            custom_id = str(item.get("custom_id") or "")
            name = re.sub(r"\W+", "-", label.lower()).strip("-") or custom_id
            fields.append(FormField(name, custom_id, label, str(item.get("value") or "")))
    return fields


async def _submit(world: LocalWorld, step: Step, user: User) -> InteractionRecord:
    assert step.submit is not None
    form = world.forms.pop(step.user, None)
    if form is None or form.modal is None:
        raise ScriptError(step.number, f"no form is open for {step.user}")
    fields = _form_fields(form.modal)
    values: dict[str, str] = {}
    for name, value in step.submit.items():
        if not name:
            continue
        found = next((field for field in fields if name.lower() in (field.name, field.custom_id.lower())), None)
        if found is None:
            known = ", ".join(field.name for field in fields)
            raise ScriptError(step.number, f"the form has no field {name!r} (it has: {known})")
        values[found.custom_id] = value
    if "" in step.submit:
        left = [field.custom_id for field in fields if field.custom_id not in values]
        if len(left) != 1:
            raise ScriptError(step.number, "name the field the text is for: the form has several")
        values[left[0]] = step.submit[""]
    return await world.emulator.submit_modal(user, form, values)


def _newest_with_button(messages: list[Message], label: str) -> Message | None:
    return next((message for message in reversed(messages) if label in message.buttons()), None)


@contextlib.asynccontextmanager
async def running_bot(
    database_url: str,
    dice: DiceSource,
    clock: LocalClock,
    seed: int | None,
    files_from: Path,
    attachments: AttachmentFolder,
    *,
    scripted: bool = False,
    known: KnownIds | None = None,
) -> AsyncIterator[LocalWorld]:
    """The emulator and the real bot connected to it, for as long as the block runs."""
    async with Emulator(seed=seed) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        database = Database.from_url(database_url)
        # The emulator is a sandbox: the bot reads plain messages there as a server allowing it would let it. A
        # script's clock moves with its lines, so its deadlines are looked at after each line rather than on the
        # wall clock's schedule, and its output repeats exactly.
        bot = Fatebot(
            database,
            dice,
            clock=clock.now,
            guild_ready_timeout=0.05,
            read_messages=True,
            deadline_poll_seconds=SCRIPT_DEADLINES_NEVER_POLLED if scripted else DEADLINE_POLL_SECONDS,
        )
        task = asyncio.create_task(bot.start(emulator.bot_token))
        try:
            await emulator.wait_ready()
            yield LocalWorld(emulator, files_from, bot, clock, attachments, known)
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await database.dispose()
            restore()


async def play_script(
    lines: list[str], database_url: str, seed: int | None, out: TextIO, files_from: Path, attachments: AttachmentFolder
) -> None:
    steps = [step for number, text in enumerate(lines, start=1) if (step := parse_line(number, text))]
    current = 0

    def script_time() -> datetime:
        return SCRIPT_EPOCH + timedelta(minutes=current)

    dice: DiceSource = SeededDice(seed) if seed is not None else SystemDice()
    scripted = seed is not None
    clock = LocalClock(script_time if scripted else _utcnow)
    async with running_bot(database_url, dice, clock, seed, files_from, attachments, scripted=scripted) as world:
        printer = Printer(out)

        def emit(record: dict[str, Any]) -> None:
            printer.line(json.dumps(record, ensure_ascii=False))

        def show(output: BotOutput) -> None:
            if _is_shown(world, output):
                for record in output_record(world, current, output, world.attachments.write(output.message)):
                    emit(record)

        world.emulator.add_listener(show)
        for step in steps:
            current = step.number
            try:
                shown = await perform(world, step)
            except EmulatorError as error:
                raise ScriptError(step.number, str(error)) from error
            if shown is not None:
                emit({"step": step.number, **_shown_record(shown)})
            if scripted and isinstance(step, Step):  # a wait has run them already
                await run_due_jobs(world)
            printer.check()


async def run_due_jobs(world: LocalWorld) -> None:
    """What the bot's loops do when they come round, at this point: every wait whose time is up (on the bot's
    clock) gets its default answer, then every reminder due is sent, each posted as the bot posts it."""
    for cog, loop_name in DUE_JOBS:
        await world.emulator.settle()
        # Found by name: discord.py loads each extension's module afresh, so its cog is no class imported here.
        loop = getattr(world.bot.get_cog(cog), loop_name, None)
        assert isinstance(loop, tasks.Loop), f"the bot has no loop {cog}.{loop_name}"
        await loop()
    await world.emulator.settle()


def _shown_record(shown: Form | Choices) -> dict[str, Any]:
    if isinstance(shown, Form):
        fields = [{"name": field.name, "label": field.label, "text": field.text} for field in shown.fields]
        return {"user": shown.user, "form": {"title": shown.title, "fields": fields}}
    choices = [{"name": name, "value": value} for name, value in shown.offered]
    return {"user": shown.user, "complete": shown.option, "choices": choices}


def _describe_shown(shown: Form | Choices) -> str:
    if isinstance(shown, Form):
        lines = [f"(a form for {shown.user}) {shown.title}"]
        for field in shown.fields:
            lines.append(f'{field.label} (submit {field.name}:"..."), now:')
            lines += [f"  {line}" for line in field.text.splitlines()]
        return "\n  ".join(lines)
    offered = [name if name == value else f"{name} (send {value})" for name, value in shown.offered]
    return f"(choices for {shown.user}, {shown.option}) " + (", ".join(offered) or "none")


def _is_shown(world: LocalWorld, output: BotOutput) -> bool:
    """The bot's messages and edits and its posts in character (the emulator reports only the posts of webhooks the
    bot made), without the "thinking" placeholder a deferred reply shows first."""
    message = output.message
    by_bot = message.author.id == world.emulator.bot_user.id or message.webhook_id is not None
    return output.kind != "delete" and by_bot and not message.loading


def _utcnow() -> datetime:
    return datetime.now(UTC)


async def run_local(
    *, script: Path | None, seed: int | None, database_url: str | None, fresh: bool = False, files: Path | None = None
) -> int:
    folder = files or _files_folder(database_url, scripted=script is not None)
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"cannot write files in {folder}: {error.strerror or error}", file=sys.stderr)
            return 2
    attachments = AttachmentFolder(folder)
    if script is None:
        if fresh and database_url is not None:
            print(
                "--fresh starts over in the local database; to start over elsewhere, name an empty one", file=sys.stderr
            )
            return 2
        if fresh:
            journals = (LOCAL_DATABASE.with_name(f"{LOCAL_DATABASE.name}{suffix}") for suffix in ("-wal", "-shm"))
            for path in (LOCAL_DATABASE, *journals, LOCAL_IDS):
                path.unlink(missing_ok=True)
        return await _interactive(database_url, seed, attachments)
    try:
        lines = (await asyncio.to_thread(script.read_text, encoding="utf-8")).splitlines()
    except OSError as error:
        print(f"cannot read the script: {error}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"cannot read the script: it is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as directory:
        url = database_url or f"sqlite:///{Path(directory) / 'local.sqlite3'}"
        try:
            await play_script(lines, url, seed, sys.stdout, script.parent, attachments)
        except ScriptError as error:
            print(f"script error: {error}", file=sys.stderr)
            return 1
    return 0


def _files_folder(database_url: str | None, *, scripted: bool) -> Path | None:
    """Where the files the bot sends go unless a folder is named: beside the database's file. A script's temporary
    database is gone after it, so a script writes them only to a folder named."""
    if database_url is None:
        return None if scripted else LOCAL_FILES
    return files_beside(database_url) or (None if scripted else LOCAL_FILES)


def _describe(world: LocalWorld, output: BotOutput, paths: list[str]) -> str:
    for record in output_record(world, 0, output, paths):
        audience = "everyone" if record["user"] == "*" else f"only {record['user']}"
        parts = [f"[{record['channel']}] ({audience}{', edited' if record['edit'] else ''})"]
        if record["speaker"]:
            parts.append(f"{record['speaker']}: {record['content'] or ''}")
        elif record["content"]:
            parts.append(record["content"])
        for embed in record["embeds"]:
            parts.extend(str(embed[key]) for key in ("title", "description") if embed[key])
            parts.extend(f"{item['name']}: {item['value']}" for item in embed["fields"])
            if embed["footer"]:
                parts.append(str(embed["footer"]))
        if record["buttons"]:
            parts.append(" ".join(f"[{label}]" for label in record["buttons"]))
        if record["files"]:
            parts.append("files: " + ", ".join(record["paths"] or record["files"]))
        return "\n  ".join(parts)
    return ""


async def _interactive(database_url: str | None, seed: int | None, attachments: AttachmentFolder) -> int:
    dice: DiceSource = SeededDice(seed) if seed is not None else SystemDice()
    printer = Printer(sys.stdout)
    printer.line(__doc__)
    known = KnownIds(LOCAL_IDS if database_url is None else None)
    if database_url is None and known.ids:
        printer.line(f"Continuing the world kept in {LOCAL_DATABASE} (run with --fresh to start over).")
    printer.line("Example:  alice: /campaign start ruleset:fate_points name:Fuyuki    (Ctrl-D to quit)\n")
    printer.check()
    url = database_url or f"sqlite:///{LOCAL_DATABASE}"
    async with running_bot(url, dice, LocalClock(_utcnow), seed, Path.cwd(), attachments, known=known) as world:

        def show(output: BotOutput) -> None:
            if _is_shown(world, output):
                printer.line(_describe(world, output, world.attachments.write(output.message)))

        world.emulator.add_listener(show)
        number = 0
        while line := await asyncio.to_thread(sys.stdin.readline):
            number += 1
            try:
                step = parse_line(number, line)
                shown = await perform(world, step) if step is not None else None
                if shown is not None:
                    printer.line(_describe_shown(shown))
            except (ScriptError, EmulatorError) as error:
                printer.line(f"error: {error}")
            world.known.save(world.emulator.last_id)
            printer.check()
    return 0
