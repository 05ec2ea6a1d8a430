"""SQLite runs on the loop's own thread, whatever SQLite URL a configuration names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.db import inline_sqlite
from bot.db.engine import LONG_WAIT, Database, create_engine


@pytest.mark.parametrize("scheme", ["sqlite", "sqlite+aiosqlite", "sqlite+pysqlite"])
async def test_every_sqlite_url_uses_the_inline_driver(tmp_path: Path, scheme: str) -> None:
    engine = create_engine(f"{scheme}:///{tmp_path / 'x.sqlite3'}")
    try:
        assert engine.dialect.driver == inline_sqlite.DRIVER
        async with engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
    finally:
        await engine.dispose()


async def test_a_writer_joining_a_long_queue_is_told_at_once(tmp_path: Path) -> None:
    """In a burst, a command queueing for its turn behind more than half a second of others' turns hears of it
    as it joins the queue (and defers its answer then); the first ones, with little ahead of them, do not."""
    database = Database.from_url(f"sqlite:///{tmp_path / 'queue.sqlite3'}")
    told: list[int] = []

    async def writer(number: int) -> None:
        LONG_WAIT.set(lambda: told.append(number))
        async with database.write():
            await asyncio.sleep(0.05)  # a turn of 50 ms

    try:
        for number in range(3):  # the running estimate learns how long a turn lasts
            await writer(-number - 1)
        assert told == []
        await asyncio.gather(*(writer(number) for number in range(30)))
    finally:
        await database.dispose()
    assert told and min(told) >= 5 and told == sorted(told)
