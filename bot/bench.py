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

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import discord
import yaml

from bot.app import Fatebot, point_at
from bot.db.engine import Database
from bot.emulator import Emulator
from bot.emulator.floor import FloorBot
from bot.emulator.models import Channel, Guild, InteractionRecord, Message, User
from bot.rulesets.base import BenchExchange, BenchMove
from bot.rulesets.registry import RULESETS
from rules.dice import SystemDice

if sys.platform != "win32":  # Windows has no getrusage
    import resource

DISCORD_DEADLINE_SECONDS = 3.0
# How long a burst's slowest answer may take before the run is called broken (Discord allows 15 minutes).
ANSWER_PATIENCE_SECONDS = 60.0
# Commands sent before timing begins, so that caches and compiled statements are warm.
WARM_UP = 5


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
    guild: Guild
    gm: User
    player: User
    defender: User
    channels: dict[str, list[Channel]] = field(default_factory=dict)

    def seated(self, seat: str) -> User:
        """Who sits in a bench exchange's seat (`BENCH_SEATS`)."""
        return {"player": self.player, "rival": self.defender, "gm": self.gm}[seat]

    @property
    def every_channel(self) -> list[Channel]:
        return [channel for channels in self.channels.values() for channel in channels]


def the_players(emulator: Emulator, *, rival_locale: str = "en-US") -> Players:
    """A GM's server with a player and the player's rival in it (who reads Discord in `rival_locale`)."""
    gm, player = emulator.add_user("kirei"), emulator.add_user("bob")
    defender = emulator.add_user("mei", locale=rival_locale)
    guild = emulator.add_guild("Fuyuki", owner=gm)
    emulator.add_member(guild, player)
    emulator.add_member(guild, defender)
    return Players(emulator, guild, gm, player, defender)


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
        sends.append(("/check", lambda channel: emulator.slash(player, channel, "check", {"stat": stat},
                                                               settle=False)))  # fmt: skip
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
        await emulator.settle()  # the prompts follow the answer
    while move.buttons and (prompt := answerable(players, user, channel, move.buttons, after)) is not None:
        if len(records) == MOST_CLICKS:
            raise RuntimeError(f"{move.name} still asks for a click after {MOST_CLICKS}: {prompt.content}")
        label = next(label for label in move.buttons if label in prompt.buttons())
        records.append(await emulator.click(user, prompt, label, settle=False))
        await records[-1].until(partial(answered, records[-1]), ANSWER_PATIENCE_SECONDS)
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


def report(backend: str, floors: list[Floor], rows: list[Row], peak_megabytes: float | None) -> None:
    floor_alone = statistics.mean(floor.alone.median for floor in floors)
    floor_together = statistics.mean(floor.together.median for floor in floors)
    print(f"\n{backend}: milliseconds from sending an interaction to its answer")
    print(f"{'':34} {'one at a time':>35}   {'one in every channel at once':>44}")
    columns = f"{'p50':>8} {'p95':>8} {'p99':>8} {'x floor':>8}"
    print(f"{'ruleset':13} {'command':20} {columns}   {columns} {'> 3 s':>6} {'no ack':>6}")
    for number, floor in enumerate(floors):
        label = "floor before" if number == 0 else "floor after"
        alone, together = floor.alone, floor.together
        print(
            f"{'':13} {label:20} {alone.median:8.2f} {alone.p95:8.2f} {alone.p99:8.2f} {'':8}   "
            f"{together.median:8.2f} {together.p95:8.2f} {together.p99:8.2f}"
        )
    for row in rows:
        alone, together = row.alone, row.together
        print(
            f"{row.ruleset:13} {alone.name:20} {alone.median:8.2f} {alone.p95:8.2f} {alone.p99:8.2f} "
            f"{alone.median / floor_alone:7.2f}x   {together.median:8.2f} {together.p95:8.2f} {together.p99:8.2f} "
            f"{together.median / floor_together:7.2f}x {together.late:6} {together.unacknowledged:6}"
        )
    commands = sum(len(row.together.milliseconds) for row in rows)
    seconds = sum(row.burst_seconds for row in rows)
    memory = f"{peak_megabytes:.0f} MB" if peak_megabytes is not None else "not known here"
    print(f"bursts: {commands} commands in {seconds:.2f} s, {commands / seconds:.0f} a second; peak memory {memory}")


def peak_memory_megabytes() -> float | None:
    """The process's peak resident memory, where the system tells it (not on Windows)."""
    if sys.platform == "win32":
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


async def bench(database_url: str, *, channels: int, rounds: int, backend: str) -> list[Row]:
    """Run the bench on a migrated or empty database, print its table, and return its rows."""
    async with Emulator(seed=3) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        try:
            players = the_players(emulator)
            for ruleset in RULESETS:
                players.channels[ruleset] = [
                    emulator.add_channel(players.guild, f"{ruleset}-{n}") for n in range(channels)
                ]
            player = players.player
            floors = [await measure_floor(emulator, player, players.every_channel, rounds, channels)]
            database = Database.from_url(database_url)
            rows: list[Row] = []
            try:
                bot = Fatebot(database, SystemDice(), guild_ready_timeout=0.05)
                async with running(bot, emulator):
                    await set_the_tables(players)
                    for ruleset in RULESETS:
                        rows.extend(await measure_ruleset(players, ruleset, rounds))
            finally:
                await database.dispose()
            floors.append(await measure_floor(emulator, player, players.every_channel, rounds, channels))
        finally:
            restore()
    report(backend, floors, rows, peak_memory_megabytes())
    return rows


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--channels", type=int, default=10, help="campaigns of each ruleset (default 10)")
    parser.add_argument("--rounds", type=int, default=50, help="each command timed one at a time (default 50)")
    parser.add_argument(
        "--database", help="an empty or scratch database to bench on (default: a new temporary SQLite file)"
    )


async def run_bench(*, channels: int, rounds: int, database_url: str | None) -> int:
    if channels < 1 or rounds < 1:
        print("--channels and --rounds take a whole number from 1 up.")
        return 2
    if database_url is not None:
        backend = database_url.split(":", 1)[0].split("+", 1)[0]
        await bench(database_url, channels=channels, rounds=rounds, backend=backend)
        return 0
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'bench.sqlite3'}"
        await bench(url, channels=channels, rounds=rounds, backend="sqlite")
    return 0
