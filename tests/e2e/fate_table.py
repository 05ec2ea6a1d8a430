"""A Fate/Points campaign set as `fatebot bench` sets its tables: bob plays Rin and Archer (acting as Archer), mei
(reading Discord in Japanese) Sakura and Rider; one per test module that needs such a table."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bot.bench import Players, set_the_tables, the_players
from bot.emulator.models import Channel
from tests.databases import fresh_database_url
from tests.e2e.harness import Harness, running_harness


@dataclass
class Table:
    harness: Harness
    players: Players
    channel: Channel


@contextlib.asynccontextmanager
async def fate_points_table(backend: str, folder: Path) -> AsyncIterator[Table]:
    async with fresh_database_url(backend, folder) as url, running_harness(url) as harness:
        emulator = harness.emulator
        players = the_players(emulator, rival_locale="ja")
        await harness.start_bot()
        players.channels["fate_points"] = [emulator.add_channel(players.guild, "fuyuki")]
        await set_the_tables(players)
        yield Table(harness, players, players.channels["fate_points"][0])
