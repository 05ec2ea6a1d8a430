"""How long the bot takes to answer its hottest commands, against the smallest possible discord.py bot.

Run from the project root: `python -m benchmarks.bot_bench [--rounds N] [--channels N]`. It runs on SQLite,
and also on PostgreSQL when TEST_DATABASE_URL names a server (as for the tests).

Everything happens in one process and one emulator. The floor is a bare `discord.Client` whose `/noop`
answers "ok" at once: what discord.py and the emulator cost by themselves. Then the bot plays Fate/Points in
many channels, each with a campaign and two characters, and is timed on `/roll 1d20+5`, `/check stat:STR`,
`/attack` and the defender's click on Dodge: first one command at a time (sequential), then one command in
every channel at the same moment (a burst). Each figure runs from the moment the emulator sends the
interaction to the moment the user sees an answer (a reply or an edited message, not "thinking..."); "> 3 s"
counts a burst's answers later than Discord's 3 seconds, "no ack" those that had not even said "thinking..." by
then (what a user sees as "The application did not respond"). The floor is measured before and after the bot,
in the same way, and the ratios use the mean of the two.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.app import Fatebot, point_at
from bot.bench import Figures, burst, figures, running, sequential, the_players
from bot.db.engine import Database
from bot.emulator import Emulator
from bot.emulator.floor import FloorBot
from bot.emulator.models import Channel, Guild, InteractionRecord, Message, User
from rules.dice import SystemDice
from tests.databases import BACKENDS, fresh_database_url


@dataclass
class Table:
    emulator: Emulator
    guild: Guild
    gm: User
    attacker: User
    defender: User
    channels: list[Channel]


async def measure_floor(table: Table, rounds: int) -> tuple[Figures, Figures]:
    async def noop(channel: Channel) -> InteractionRecord:
        return await table.emulator.slash(table.attacker, channel, "noop", settle=False)

    async with running(FloorBot(), table.emulator):
        await sequential(table.channels, noop, 20)
        alone = figures("noop", await sequential(table.channels, noop, rounds))
        together = figures("noop", await burst(table.channels, noop))
    return alone, together


async def enlist(table: Table, player: User, channel: Channel, master: str, servant: str, sheets: Any) -> None:
    emulator = table.emulator
    for kind, name in (("master", master), ("servant", servant)):
        data = dict(sheets[kind], name=name)
        if kind == "servant":
            data.update(master=master, servant_class=servant)
        text = yaml.safe_dump(data, allow_unicode=True).encode()
        created = await emulator.slash(player, channel, "character import", {"file": ("sheet.yaml", text)})
        assert not created.reply.ephemeral, created.reply.content
        # The template's skills and Noble Phantasm are the GM's to set: the sheet waits for the GM's approval.
        await emulator.click(table.gm, emulator.last_message(channel, visible_to=table.gm), "Approve")
    await emulator.slash(player, channel, "character use", {"name": servant})


async def set_the_table(table: Table) -> None:
    emulator = table.emulator

    async def start(channel: Channel) -> None:
        await emulator.slash(table.gm, channel, "campaign start", {"ruleset": "fate_points", "name": "Bench"})

    first = table.channels[0]
    await start(first)
    sheets: dict[str, Any] = {}
    for kind in ("master", "servant"):
        template = await emulator.slash(table.attacker, first, "character template", {"kind": kind})
        sheets[kind] = yaml.safe_load(template.reply.attachments[0].data)

    async def campaign(channel: Channel) -> None:
        if channel is not first:
            await start(channel)
        await enlist(table, table.attacker, channel, "Rin", "Archer", sheets)
        await enlist(table, table.defender, channel, "Sakura", "Rider", sheets)

    # A few channels at a time: fast, and never a burst that would itself be measured.
    for batch in range(0, len(table.channels), 8):
        await asyncio.gather(*(campaign(channel) for channel in table.channels[batch : batch + 8]))


def prompt_in(table: Table, channel: Channel) -> Message:
    """The newest message in the channel that asks the defender to answer."""
    shown = table.emulator.visible_to(table.defender, channel)
    return next(message for message in reversed(shown) if "Dodge" in message.buttons())


async def measure_bot(table: Table, rounds: int) -> list[tuple[Figures, Figures]]:
    emulator = table.emulator

    async def roll(channel: Channel) -> InteractionRecord:
        return await emulator.slash(table.attacker, channel, "roll", {"dice": "1d20+5"}, settle=False)

    async def check(channel: Channel) -> InteractionRecord:
        return await emulator.slash(table.attacker, channel, "check", {"stat": "STR"}, settle=False)

    async def attack(channel: Channel) -> InteractionRecord:
        options = {"target": "Rider", "action": "melee|Invisible Air"}
        return await emulator.slash(table.attacker, channel, "attack", options, settle=False)

    async def dodge(channel: Channel) -> InteractionRecord:
        return await emulator.click(table.defender, prompt_in(table, channel), "Dodge", settle=False)

    async def new_round(channels: list[Channel]) -> None:
        await asyncio.gather(*(emulator.slash(table.gm, channel, "combat round") for channel in channels))

    results = []
    for name, send in (("/roll", roll), ("/check", check)):
        await sequential(table.channels, send, 20)
        alone = figures(name, await sequential(table.channels, send, rounds))
        together = figures(name, await burst(table.channels, send))
        results.append((alone, together))

    # A character attacks once a round: one attack in each channel, answered, then a new round everywhere;
    # the same again all at once. (So the attacks timed one at a time are at most one per channel.)
    attacks: list[InteractionRecord] = []
    dodges: list[InteractionRecord] = []
    for channel in table.channels[:rounds]:
        attacks.append(await attack(channel))
        await emulator.settle(quiet_for=0.01)
        dodges.append(await dodge(channel))
        await emulator.settle(quiet_for=0.01)
    await new_round(table.channels)
    attacked_together = await burst(table.channels, attack)
    await emulator.settle()  # the prompts follow the answers
    dodged_together = await burst(table.channels, dodge)
    await emulator.settle()
    results.append((figures("/attack", attacks), figures("/attack", attacked_together)))
    results.append((figures("Dodge click", dodges), figures("Dodge click", dodged_together)))
    return results


def report(backend: str, floors: list[tuple[Figures, Figures]], bot: list[tuple[Figures, Figures]]) -> None:
    floor_alone = statistics.mean(alone.median for alone, _ in floors)
    floor_together = statistics.mean(together.median for _, together in floors)
    print(f"\n{backend}: milliseconds from sending an interaction to its answer")
    print(f"{'':14} {'sequential':>32}   {'one in every channel at once':>40}")
    columns = f"{'median':>8} {'p99':>8} {'x floor':>8}"
    print(f"{'command':14} {columns}   {columns} {'> 3 s':>6} {'no ack':>6}")
    for number, (alone, together) in enumerate(floors):
        label = "floor before" if number == 0 else "floor after"
        print(
            f"{label:14} {alone.median:8.2f} {alone.p99:8.2f} {'':8}   "
            f"{together.median:8.2f} {together.p99:8.2f} {'':8} {together.late:6} {together.unacknowledged:6}"
        )
    for alone, together in bot:
        print(
            f"{alone.name:14} {alone.median:8.2f} {alone.p99:8.2f} {alone.median / floor_alone:7.2f}x   "
            f"{together.median:8.2f} {together.p99:8.2f} {together.median / floor_together:7.2f}x {together.late:6} "
            f"{together.unacknowledged:6}"
        )


async def run(backend: str, rounds: int, channel_count: int, directory: Path) -> None:
    async with Emulator(seed=3) as emulator:
        restore = point_at(emulator.api_base, emulator.gateway_url)
        try:
            players = the_players(emulator)
            channels = [emulator.add_channel(players.guild, f"scene-{number}") for number in range(channel_count)]
            table = Table(emulator, players.guild, players.gm, players.player, players.defender, channels)
            floors = [await measure_floor(table, rounds)]
            async with fresh_database_url(backend, directory) as url:
                database = Database.from_url(url)
                bot = Fatebot(database, SystemDice(), guild_ready_timeout=0.05)
                try:
                    async with running(bot, emulator):
                        await set_the_table(table)
                        measured = await measure_bot(table, rounds)
                finally:
                    await database.dispose()
            floors.append(await measure_floor(table, rounds))
        finally:
            restore()
    report(backend, floors, measured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=200, help="commands timed one at a time (default 200)")
    parser.add_argument("--channels", type=int, default=200, help="campaigns, and the size of a burst (200)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        for backend in BACKENDS:
            asyncio.run(run(backend, arguments.rounds, arguments.channels, Path(directory)))


if __name__ == "__main__":
    main()
