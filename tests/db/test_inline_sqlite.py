"""SQLite runs on the loop's own thread, whatever SQLite URL a configuration names."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

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


def rows_in_the_database_file(path: Path, copy: Path) -> int:
    """The rows of `t` that the database file holds without its log: those a checkpoint has copied."""
    shutil.copyfile(path, copy)
    connection = sqlite3.connect(copy)
    try:
        found = connection.execute("SELECT name FROM sqlite_master WHERE name = 't'").fetchone()
        return connection.execute("SELECT count(*) FROM t").fetchone()[0] if found else 0
    finally:
        connection.close()


async def test_checkpoints_are_made_off_the_loop_after_the_writes(tmp_path: Path) -> None:
    """Commits never copy the log into the database on the loop's thread, even far past SQLite's 1,000 pages;
    the checkpointer does, from a thread of its own, a moment after the writes."""
    path = tmp_path / "wal.sqlite3"
    database = Database.from_url(f"sqlite:///{path}")
    checkpointer = database.checkpointer
    assert checkpointer is not None
    checkpointer.delay = 2.0
    try:
        started = asyncio.get_running_loop().time()
        async with database.write() as session:
            await session.execute(text("CREATE TABLE t (payload BLOB)"))
        for _ in range(30):  # 30 transactions of 50 pages each
            async with database.write() as session:
                await session.execute(text("INSERT INTO t VALUES (:payload)"), [{"payload": bytes(4000)}] * 50)
        assert rows_in_the_database_file(path, tmp_path / "before.sqlite3") == 0
        assert checkpointer.last is None
        assert asyncio.get_running_loop().time() - started < checkpointer.delay  # else the above proves nothing

        await checkpointer.settled()
        assert checkpointer.last is not None
        frames, copied = checkpointer.last
        assert frames == copied >= 1500
        assert rows_in_the_database_file(path, tmp_path / "after.sqlite3") == 1500
    finally:
        await database.dispose()
