"""A bot stopped before its shard has connected exits.

discord.py tries a shard's refused first connection again every 5 s for ever, and its `close()` cannot reach a
shard not yet launched: a bot told to stop (SIGTERM) while its first connection was under way went on trying, and
its process never ended. Here the connection fails as it does once the bot has closed its HTTP session.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yarl

from bot.app import Fatebot
from bot.db.engine import Database
from rules.dice import FixedDice

GATEWAY = yarl.URL("wss://gateway.invalid")
# discord.py waits 5 s before it tries a shard again.
RETRY_SECONDS = 5.0


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Fatebot]:
    database = Database.from_url(f"sqlite:///{tmp_path / 'shutdown.sqlite3'}")
    async with Fatebot(database, FixedDice([]), shard_count=1) as built:
        yield built
    await database.dispose()


async def test_a_bot_closed_before_its_shard_launches_does_not_connect(bot: Fatebot) -> None:
    attempts: list[str] = []

    async def connect(url: str, **_: Any) -> Any:
        attempts.append(url)
        raise OSError("the session is closed")

    bot.http.ws_connect = connect  # type: ignore[method-assign]
    await bot.close()
    await asyncio.wait_for(bot.launch_shard(GATEWAY, 0, initial=True), timeout=1.0)
    assert attempts == []


async def test_a_bot_closed_while_its_shard_connects_stops_trying(bot: Fatebot) -> None:
    attempts: list[str] = []

    async def connect(url: str, **_: Any) -> Any:
        attempts.append(url)
        await bot.close()  # the stop arrives during the handshake, which fails with the closed session
        raise OSError("the session is closed")

    bot.http.ws_connect = connect  # type: ignore[method-assign]
    await asyncio.wait_for(bot.launch_shard(GATEWAY, 0, initial=True), timeout=RETRY_SECONDS + 5.0)
    assert len(attempts) == 1
