"""`fatebot bench`: how fast the bot answers a mix of every ruleset's commands, against the smallest possible bot.

Everything happens in one process and one emulator. The floor is a bare `discord.Client` whose `/noop` answers
"ok" at once: what discord.py and the emulator cost by themselves, measured before and after the bot. Then, for
every ruleset, `channels` campaigns, each with the characters of the ruleset's exchange (`Ruleset.bench`). The
mix: `/roll 1d20+5`, `/check` with the first stat the bot suggests (in the rulesets that have checks), `/character
show`, `/log show`, and the ruleset's exchange move by move: a GM's, the player's and the rival's commands and
the rival's button answers. Each is timed one at a time (`rounds` of each, over the channels in turn), then in a
burst: one in every channel at once. A figure runs from the moment the emulator sends the interaction to the
moment the user sees an answer (not "thinking..."); "> 3 s" counts a burst's answers after Discord's 3 seconds,
"no ack" those not even acknowledged by then.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import discord
import yaml
from sqlalchemy import bindparam, func, select

from bot.app import Fatebot, point_at
from bot.bench_stored import EVENTS_PER_CAMPAIGN, Filled, fill_elsewhere, stored_count
from bot.console import Printer
from bot.db.engine import Database
from bot.db.models import CAMPAIGN_ACTIVE, PENDING, Campaign, WaitRow
from bot.emulator import Emulator
from bot.emulator.floor import FloorBot
from bot.emulator.models import Channel, Guild, InteractionRecord, Message, User
from bot.rulesets.bench import BenchExchange, BenchMove
from bot.rulesets.registry import RULESETS
from rules.dice import SystemDice

if sys.platform != "win32":  # Windows has no getrusage
    import resource

DISCORD_DEADLINE_SECONDS = 3.0
# How long a burst's slowest answer may take before the run is called broken (Discord allows 15 minutes).
ANSWER_PATIENCE_SECONDS = 60.0
# How often the bench looks for a move's prompts in the database while the bot posts them.
PROMPT_POLL_SECONDS = 0.01
# Commands sent before timing begins, so that caches and compiled statements are warm.
WARM_UP = 5
# A bot process's start: Python, the migrations check, the gateway and the command sync.
PROCESS_START_SECONDS = 60


@dataclass(frozen=True)
class Figures:
    name: str
    milliseconds: list[float]
    # Answered after Discord's deadline, and (what users see as "did not respond") not even acknowledged by then.
    late: int
    unacknowledged: int

    @property
    def median(self) -> float:
        return statistics.median(self.milliseconds)

    def percentile(self, share: float) -> float:
        ordered = sorted(self.milliseconds)
        return ordered[min(len(ordered) - 1, int(len(ordered) * share))]

    @property
    def p95(self) -> float:
        return self.percentile(0.95)

    @property
    def p99(self) -> float:
        return self.percentile(0.99)


def answer_time(record: InteractionRecord) -> float:
    if record.answered_at is None or record.dispatched_at is None:
        raise RuntimeError(f"interaction {record.id} was never answered (errors: {record.errors})")
    return (record.answered_at - record.dispatched_at) * 1000


def acknowledged_late(record: InteractionRecord) -> bool:
    if record.acknowledged_at is None or record.dispatched_at is None:
        raise RuntimeError(f"interaction {record.id} was never acknowledged (errors: {record.errors})")
    return record.acknowledged_at - record.dispatched_at > DISCORD_DEADLINE_SECONDS


def figures(name: str, records: Sequence[InteractionRecord]) -> Figures:
    times = [answer_time(record) for record in records]
    late = sum(taken > DISCORD_DEADLINE_SECONDS * 1000 for taken in times)
    return Figures(name, times, late, sum(acknowledged_late(record) for record in records))


Send = Callable[[Channel], Awaitable[InteractionRecord]]


async def sequential(channels: Sequence[Channel], send: Send, rounds: int) -> list[InteractionRecord]:
    return [await send(channels[number % len(channels)]) for number in range(rounds)]


async def burst(channels: Sequence[Channel], send: Send) -> list[InteractionRecord]:
    records = list(await asyncio.gather(*(send(channel) for channel in channels)))
    # A command that deferred ("thinking...") has returned here; its answer may still be on the way.
    for record in records:
        await record.until(partial(answered, record), ANSWER_PATIENCE_SECONDS)
    return records


def answered(record: InteractionRecord) -> bool:
    return record.answered_at is not None


@contextlib.asynccontextmanager
async def running(client: discord.Client, emulator: Emulator) -> AsyncIterator[None]:
    task = asyncio.create_task(client.start(emulator.bot_token))
    await emulator.wait_ready()
    try:
        yield
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass(frozen=True)
class Floor:
    alone: Figures
    # A burst as large as the bench's: one in every channel of a ruleset at once.
    together: Figures


async def measure_floor(
    emulator: Emulator, user: User, channels: Sequence[Channel], rounds: int, burst_size: int
) -> Floor:
    """The floor's answers one at a time and in a burst (what every ratio divides by)."""

    async def noop(channel: Channel) -> InteractionRecord:
        return await emulator.slash(user, channel, "noop", settle=False)

    async with running(FloorBot(), emulator):
        await sequential(channels, noop, WARM_UP)
        alone = figures("noop", await sequential(channels, noop, rounds))
        return Floor(alone, figures("noop", await burst(channels[:burst_size], noop)))


@dataclass
class Players:
    emulator: Emulator
    guilds: list[Guild]
    gm: User
    player: User
    defender: User
    channels: dict[str, list[Channel]] = field(default_factory=dict)
    # The bench's own connection to the bot's database: after each move it waits until every prompt the move
    # opened is posted (see `prompts_posted`); without it, only until the bot goes quiet.
    database: Database | None = None

    @property
    def guild(self) -> Guild:
        return self.guilds[0]

    def add_channels(self, ruleset: str, count: int) -> list[Channel]:
        """`count` channels for the ruleset's campaigns, spread over the guilds in turn."""
        made = [
            self.emulator.add_channel(self.guilds[number % len(self.guilds)], f"{ruleset}-{number}")
            for number in range(count)
        ]
        self.channels.setdefault(ruleset, []).extend(made)
        return made

    def seated(self, seat: str) -> User:
        """Who sits in a bench exchange's seat (`BENCH_SEATS`)."""
        return {"player": self.player, "rival": self.defender, "gm": self.gm}[seat]

    @property
    def every_channel(self) -> list[Channel]:
        return [channel for channels in self.channels.values() for channel in channels]


def the_players(emulator: Emulator, *, rival_locale: str = "en-US") -> Players:
    """A GM's server on each shard of the emulator, with a player and the player's rival in each (who reads
    Discord in `rival_locale`)."""
    gm, player = emulator.add_user("kirei"), emulator.add_user("bob")
    defender = emulator.add_user("mei", locale=rival_locale)
    guilds = []
    for shard in range(emulator.gateway.shard_count):
        guild = emulator.add_guild("Fuyuki" if shard == 0 else f"Fuyuki {shard + 1}", owner=gm, shard=shard)
        emulator.add_member(guild, player)
        emulator.add_member(guild, defender)
        guilds.append(guild)
    return Players(emulator, guilds, gm, player, defender)


async def approve_if_held(players: Players, channel: Channel) -> None:
    """The GM approves the newest character of the channel when it waits for a GM's approval."""
    prompt = players.emulator.last_message(channel, visible_to=players.gm)
    if len(prompt.buttons()) == 2 and "Approve" in prompt.buttons():
        await players.emulator.click(players.gm, prompt, "Approve")


async def import_sheet(players: Players, player: User, channel: Channel, data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    created = await players.emulator.slash(player, channel, "character import", {"file": ("sheet.yaml", text)})
    if created.reply.ephemeral:
        raise RuntimeError(f"the bench's character was refused: {created.reply.content}")
    await approve_if_held(players, channel)


async def template(players: Players, channel: Channel, kind: str) -> dict[str, Any]:
    reply = await players.emulator.slash(players.player, channel, "character template", {"kind": kind})
    data: dict[str, Any] = yaml.safe_load(reply.reply.attachments[0].data) or {}
    return {"kind": kind, **data}


async def set_the_tables(players: Players) -> None:
    """A campaign in every channel, with the player's character, or the characters of the ruleset's exchange."""
    emulator = players.emulator
    for ruleset, channels in players.channels.items():
        play, exchange = RULESETS[ruleset].play, RULESETS[ruleset].bench
        assert play is not None
        for channel in channels:
            await emulator.slash(players.gm, channel, "campaign start", {"ruleset": ruleset, "name": "Bench"})
            if exchange is None or exchange.sheets is None:
                await import_sheet(players, players.player, channel, await template(players, channel, play.kinds[0]))
                continue
            for player, sheets in zip((players.player, players.defender), exchange.sheets, strict=True):
                for kind, fields in sheets:
                    await import_sheet(players, player, channel, {**await template(players, channel, kind), **fields})
                await emulator.slash(player, channel, "character use", {"name": sheets[-1][1]["name"]})


def span(records: Sequence[InteractionRecord]) -> float:
    """Seconds from the first of the records sent to the last answered."""
    sent = [record.dispatched_at for record in records if record.dispatched_at is not None]
    done = [record.answered_at for record in records if record.answered_at is not None]
    return max(done) - min(sent) if sent and done else 0.0


@dataclass(frozen=True)
class Row:
    ruleset: str
    alone: Figures
    together: Figures
    burst_seconds: float


async def check_stat(players: Players, channel: Channel) -> str | None:
    """The first stat the bot suggests for `/check`, where the ruleset's checks are `/check`'s."""
    choices = await players.emulator.autocomplete(players.player, channel, "check", {"stat": ""}, "stat")
    if not choices:
        return None
    stat = str(choices[0]["value"])
    tried = await players.emulator.slash(players.player, channel, "check", {"stat": stat})
    return None if tried.reply.ephemeral else stat


async def measure_ruleset(players: Players, ruleset: str, rounds: int) -> list[Row]:
    emulator, player = players.emulator, players.player
    channels = players.channels[ruleset]
    sends: list[tuple[str, Send]] = [
        ("/roll", lambda channel: emulator.slash(player, channel, "roll", {"dice": "1d20+5"}, settle=False))
    ]
    if (stat := await check_stat(players, channels[0])) is not None:
        sends.append(("/check", lambda channel: emulator.slash(player, channel, "check", {"stat": stat}, settle=False)))
    sends.append(("/character show", lambda channel: emulator.slash(player, channel, "character show", settle=False)))
    sends.append(("/log show", lambda channel: emulator.slash(player, channel, "log show", settle=False)))
    rows = []
    for name, send in sends:
        await sequential(channels, send, WARM_UP)
        alone = figures(name, await sequential(channels, send, rounds))
        together = await burst(channels, send)
        rows.append(Row(ruleset, alone, figures(name, together), span(together)))
    if (exchange := RULESETS[ruleset].bench) is not None:
        rows.extend(await measure_exchange(players, ruleset, exchange, channels, rounds))
    return rows


# More clicks than any exchange's answer takes: past it, the bench is going round in circles.
MOST_CLICKS = 12


def answerable(players: Players, user: User, channel: Channel, buttons: Sequence[str], after: int) -> Message | None:
    """The newest message for the user (pinging them, or theirs alone) in the channel since the message `after`
    that carries one of the buttons."""
    shown = players.emulator.visible_to(user, channel)
    return next(
        (
            message
            for message in reversed(shown)
            if message.id > after
            and (user.id in message.notified or message.ephemeral)
            and set(buttons) & set(message.buttons())
        ),
        None,
    )


# Built once: the bench polls it while the bot works, on the same event loop. By the channel's campaign, so a
# database that holds many other campaigns' open waits costs the poll (and the bot beside it) nothing more.
_CHANNELS_CAMPAIGN = (
    select(Campaign.id)
    .where(Campaign.channel_id == bindparam("channel_id"), Campaign.status == CAMPAIGN_ACTIVE)
    .scalar_subquery()
)
_UNPOSTED = (
    select(func.count())
    .select_from(WaitRow)
    .where(WaitRow.campaign_id == _CHANNELS_CAMPAIGN, WaitRow.status == PENDING, WaitRow.message_id.is_(None))
)


async def prompts_posted(players: Players, channel: Channel) -> None:
    """Until every wait open in the channel has its prompt posted. The bot posts a prompt after it answered the
    move, with a database write and the rendering between: on a loaded machine that gap outlasts the quiet in
    which `Emulator.settle` takes the bot to be done, and a bench that looked then would find no prompt to click."""
    if players.database is None:
        return
    deadline = time.perf_counter() + ANSWER_PATIENCE_SECONDS
    while True:
        async with players.database.read() as session:
            if not await session.scalar(_UNPOSTED, {"channel_id": channel.id}):
                return
        if time.perf_counter() > deadline:
            raise RuntimeError(f"a prompt in #{channel.name} was not posted within {ANSWER_PATIENCE_SECONDS:.0f} s")
        await asyncio.sleep(PROMPT_POLL_SECONDS)


def newest_id(players: Players, channel: Channel) -> int:
    return max((message.id for message in players.emulator.visible_to(players.gm, channel)), default=0)


async def make(players: Players, channel: Channel, move: BenchMove, after: int) -> list[InteractionRecord]:
    """The move in one channel, each of its interactions answered before the next, and the bot's posts after;
    its clicks are on messages of this exchange (posted after the message `after`)."""
    emulator = players.emulator
    user = players.seated(move.seat)
    records = []
    if move.command:
        records.append(await emulator.slash(user, channel, move.command, move.options, settle=False))
        await records[-1].until(partial(answered, records[-1]), ANSWER_PATIENCE_SECONDS)
        if records[-1].reply.ephemeral and not move.private_answer:
            raise RuntimeError(f"{move.name} was refused: {records[-1].reply.content}")
        await prompts_posted(players, channel)  # the prompts follow the answer
        await emulator.settle()
    while move.buttons and (prompt := answerable(players, user, channel, move.buttons, after)) is not None:
        if len(records) == MOST_CLICKS:
            raise RuntimeError(f"{move.name} still asks for a click after {MOST_CLICKS}: {prompt.content}")
        label = next(label for label in move.buttons if label in prompt.buttons())
        records.append(await emulator.click(user, prompt, label, settle=False))
        await records[-1].until(partial(answered, records[-1]), ANSWER_PATIENCE_SECONDS)
        await prompts_posted(players, channel)
        await emulator.settle()
    return records


async def measure_exchange(
    players: Players, ruleset: str, exchange: BenchExchange, channels: list[Channel], rounds: int
) -> list[Row]:
    """The exchange in each channel in turn, `rounds` times; then each of its moves in every channel at once."""
    alone: dict[str, list[InteractionRecord]] = {move.name: [] for move in exchange.moves}
    together: dict[str, list[InteractionRecord]] = {move.name: [] for move in exchange.moves}
    for number in range(rounds):
        channel = channels[number % len(channels)]
        after = newest_id(players, channel)
        for move in exchange.moves:
            alone[move.name].extend(await make(players, channel, move, after))
    afters = [newest_id(players, channel) for channel in channels]
    for move in exchange.moves:
        moves = (make(players, channel, move, after) for channel, after in zip(channels, afters, strict=True))
        made = await asyncio.gather(*moves)
        together[move.name].extend(record for records in made for record in records)
    return [
        Row(ruleset, figures(name, alone[name]), figures(name, together[name]), span(together[name]))
        for name in alone
        if alone[name] and together[name]
    ]


def report(backend: str, floors: list[Floor], rows: list[Row], usage: str) -> None:
    printer = Printer(sys.stdout)
    floor_alone = statistics.mean(floor.alone.median for floor in floors)
    floor_together = statistics.mean(floor.together.median for floor in floors)
    printer.line(f"\n{backend}: milliseconds from sending an interaction to its answer")
    printer.line(f"{'':33} {'one at a time':>35}  {'one in every channel at once':>44}")
    columns = f"{'p50':>8} {'p95':>8} {'p99':>8} {'x floor':>8}"
    printer.line(f"{'ruleset':13} {'command':19} {columns}  {columns} {'> 3 s':>6} {'no ack':>6}")
    for number, floor in enumerate(floors):
        label = "floor before" if number == 0 else "floor after"
        alone, together = floor.alone, floor.together
        printer.line(
            f"{'':13} {label:19} {alone.median:8.2f} {alone.p95:8.2f} {alone.p99:8.2f} {'':8}  "
            f"{together.median:8.2f} {together.p95:8.2f} {together.p99:8.2f}"
        )
    for row in rows:
        alone, together = row.alone, row.together
        printer.line(
            f"{row.ruleset:13} {alone.name:19} {alone.median:8.2f} {alone.p95:8.2f} {alone.p99:8.2f} "
            f"{alone.median / floor_alone:7.2f}x  {together.median:8.2f} {together.p95:8.2f} {together.p99:8.2f} "
            f"{together.median / floor_together:7.2f}x {together.late:6} {together.unacknowledged:6}"
        )
    commands = sum(len(row.together.milliseconds) for row in rows)
    seconds = sum(row.burst_seconds for row in rows)
    printer.line(f"bursts: {commands} commands in {seconds:.2f} s, {commands / seconds:.0f} a second")
    printer.line(usage)
    printer.check()


def usage_since(started: float, cpu_before: float, *, in_processes: bool) -> str:
    """What the run cost the machine: CPU seconds in this process (the emulator and the users, and the bot when
    it runs here) and in the bot's own processes, against the seconds it lasted; and the bot's peak memory."""
    wall = time.perf_counter() - started
    if sys.platform == "win32":  # Windows has no getrusage
        return f"run: {wall:.1f} s"
    here = cpu_seconds() - cpu_before
    if not in_processes:
        peak = peak_memory_mb()
        return f"cpu: {here:.1f} s in {wall:.1f} s (bot, emulator and users in this process); peak memory {peak:.0f} MB"
    bots = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        f"cpu: {here:.1f} s in this process (emulator and users), {bots.ru_utime + bots.ru_stime:.1f} s in the "
        f"bot's, in {wall:.1f} s; peak memory of a bot process {bots.ru_maxrss / 1024:.0f} MB"
    )


# Linux keeps a process's peak memory in VmHWM, which writing 5 to clear_refs starts again from the memory held
# now: each of the bench's runs in this process has its own peak. Elsewhere the peak is the process's so far.
PEAK_MEMORY_RESET = Path("/proc/self/clear_refs")
PROCESS_STATUS = Path("/proc/self/status")


def reset_peak_memory() -> None:
    with contextlib.suppress(OSError):
        PEAK_MEMORY_RESET.write_text("5")


def peak_memory_mb() -> float:
    with contextlib.suppress(OSError):
        for line in PROCESS_STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB (macOS bytes)


def cpu_seconds() -> float:
    if sys.platform == "win32":
        return 0.0
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


class BotProcess:
    """The bot as `fatebot run` runs it, in a process of its own, against the emulator: all the shards, or
    `shard_ids` of the emulator's shards."""

    def __init__(
        self,
        emulator: Emulator,
        database_url: str,
        directory: Path,
        *,
        shard_ids: tuple[int, ...] | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.emulator = emulator
        self.database_url = database_url
        self.directory = directory
        self.shard_ids = shard_ids
        self.settings = settings or {}
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0

    @property
    def name(self) -> str:
        return "bot" if self.shard_ids is None else "bot-" + "-".join(map(str, self.shard_ids))

    async def start(self) -> None:
        environment = {
            **os.environ,
            "DISCORD_TOKEN": self.emulator.bot_token,
            "DISCORD_API_BASE": self.emulator.api_base,
            "DISCORD_GATEWAY_URL": self.emulator.gateway_url,
            "DATABASE_URL": self.database_url,
            "LOG_LEVEL": "WARNING",
            **self.settings,
        }
        if self.shard_ids is not None:
            environment["SHARD_COUNT"] = str(self.emulator.gateway.shard_count)
            environment["SHARD_IDS"] = ",".join(map(str, self.shard_ids))
        self.starts += 1
        log = (self.directory / f"{self.name}-{self.starts}.log").open("wb")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", env=environment, cwd=self.directory, stdout=log, stderr=log
        )
        log.close()
        await self.emulator.wait_connected(timeout=PROCESS_START_SECONDS, shards=self.shard_ids)

    async def kill(self) -> None:
        """SIGKILL: the process stops at once, wherever it was."""
        assert self.process is not None
        self.process.kill()
        await self.process.wait()
        await self.emulator.wait_shards_disconnected(self.shard_ids or range(self.emulator.gateway.shard_count))

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()


@contextlib.asynccontextmanager
async def in_process(emulator: Emulator, database_url: str) -> AsyncIterator[None]:
    database = Database.from_url(database_url)
    try:
        async with running(Fatebot(database, SystemDice(), guild_ready_timeout=0.05), emulator):
            yield
    finally:
        await database.dispose()


@contextlib.asynccontextmanager
async def in_processes(emulator: Emulator, database_url: str, count: int) -> AsyncIterator[None]:
    """`count` bot processes, one shard each, on one database."""
    with tempfile.TemporaryDirectory() as directory:
        processes = [BotProcess(emulator, database_url, Path(directory), shard_ids=(shard,)) for shard in range(count)]
        try:
            for process in processes:
                await process.start()
            await emulator.wait_ready()
            yield
        finally:
            for process in processes:
                await process.stop()


async def bench(
    database_url: str, *, channels: int, rounds: int, backend: str, processes: int = 0, seed: int = 3
) -> list[Row]:
    """Run the bench on a migrated or empty database, print its table, and return its rows. `processes`: the bot
    runs in that many processes of its own, one shard each, rather than in this one."""
    reset_peak_memory()
    started, cpu_before = time.perf_counter(), cpu_seconds()
    async with Emulator(seed=seed, shard_count=max(processes, 1)) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        try:
            players = the_players(emulator)
            for ruleset in RULESETS:
                players.add_channels(ruleset, channels)
            player = players.player
            floors = [await measure_floor(emulator, player, players.every_channel, rounds, channels)]
            rows: list[Row] = []
            bots = in_processes(emulator, database_url, processes) if processes else in_process(emulator, database_url)
            players.database = Database.from_url(database_url)
            try:
                async with bots:
                    await set_the_tables(players)
                    for ruleset in RULESETS:
                        rows.extend(await measure_ruleset(players, ruleset, rounds))
            finally:
                await players.database.dispose()
            floors.append(await measure_floor(emulator, player, players.every_channel, rounds, channels))
        finally:
            restore()
    where = f"{backend}, {processes} bot process{'es' if processes > 1 else ''}" if processes else backend
    report(where, floors, rows, usage_since(started, cpu_before, in_processes=bool(processes)))
    return rows


def compare(empty: list[Row], stored: list[Row], filled: Filled, held: tuple[int, int], peaks: list[float]) -> None:
    """Each command's p50 on the empty database and on the stored one, side by side."""
    printer = Printer(sys.stdout)
    written = ", ".join(f"{count} {name}" for name, count in filled.rows.items())
    printer.line(f"\nstored: {filled.total} rows in {filled.seconds:.1f} s")
    printer.line(f"  {written}")
    printer.line(f"the stored run's database held {held[0]} other campaigns and {held[1]} of their events")
    printer.line(f"peak memory of this process in each run: {peaks[0]:.0f} MB empty, {peaks[1]:.0f} MB stored")
    printer.line(f"{'':34} {'p50 one at a time':>26}   {'p50 one in every channel at once':>34}")
    columns = f"{'empty':>8} {'stored':>8} {'ratio':>8}"
    printer.line(f"{'ruleset':13} {'command':20} {columns}   {columns}")
    stored_rows = {(row.ruleset, row.alone.name): row for row in stored}
    for row in empty:
        if (match := stored_rows.get((row.ruleset, row.alone.name))) is None:
            continue
        alone, together = row.alone.median, row.together.median
        alone_stored, together_stored = match.alone.median, match.together.median
        printer.line(
            f"{row.ruleset:13} {row.alone.name:20} {alone:8.2f} {alone_stored:8.2f} {alone_stored / alone:7.2f}x   "
            f"{together:8.2f} {together_stored:8.2f} {together_stored / together:7.2f}x"
        )
    printer.check()


async def bench_both(
    empty_url: str,
    stored_url: str,
    *,
    channels: int,
    rounds: int,
    backend: str,
    processes: int,
    stored: int,
    stored_events: int,
) -> None:
    """The bench on the empty database, then on one that holds `stored` other campaigns first."""
    empty = await bench(empty_url, channels=channels, rounds=rounds, backend=backend, processes=processes)
    peaks = [peak_memory_mb()]  # each run starts its own peak (`reset_peak_memory`): the fill's is in neither
    if not stored:
        return
    filled = await fill_elsewhere(stored_url, stored, stored_events)
    where = f"{backend}, {stored} other campaigns stored"
    # Other ids than the first run's: on a database given, its campaigns are still there, in channels of their own.
    full = await bench(stored_url, channels=channels, rounds=rounds, backend=where, processes=processes, seed=4)
    peaks.append(peak_memory_mb())
    compare(empty, full, filled, await stored_count(stored_url), peaks)


async def run_bench(
    *,
    channels: int,
    rounds: int,
    database_url: str | None,
    processes: int = 0,
    stored: int = 0,
    stored_events: int = EVENTS_PER_CAMPAIGN,
) -> int:
    if channels < 1 or rounds < 1 or processes < 0 or stored < 0 or stored_events < 0:
        print(
            "--channels and --rounds take a whole number from 1 up, --processes, --stored and --stored-events "
            "from 0 up.",
            file=sys.stderr,
        )
        return 2
    backend = "sqlite" if database_url is None else database_url.split(":", 1)[0].split("+", 1)[0]
    if processes > 1 and backend != "postgresql":
        print(
            "Several bot processes share one PostgreSQL database: give --database postgresql+asyncpg://...",
            file=sys.stderr,
        )
        return 2
    sizes = {"channels": channels, "rounds": rounds, "processes": processes}
    stores = {"stored": stored, "stored_events": stored_events}
    if database_url is not None:  # the stored campaigns join the empty run's in the one database given
        await bench_both(database_url, database_url, backend=backend, **sizes, **stores)
        return 0
    with tempfile.TemporaryDirectory() as directory:
        empty_url, stored_url = (f"sqlite:///{Path(directory) / name}" for name in ("bench.sqlite3", "stored.sqlite3"))
        await bench_both(empty_url, stored_url, backend="sqlite", **sizes, **stores)
    return 0
