"""SQLite runs on the loop's own thread, whatever SQLite URL a configuration names."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest
from sqlalchemy import Table, func, select, text

from bot.db import inline_sqlite
from bot.db.checkpoint import WalCheckpointer
from bot.db.engine import LONG_WAIT, Database, create_engine
from bot.db.migrate import upgrade
from bot.db.models import Campaign, Event


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


async def test_a_checkpoint_that_fails_leaves_the_next_and_the_close_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "failing.sqlite3"
    sqlite3.connect(path).close()
    checkpointer = WalCheckpointer(str(path), delay=0.01)
    copy_log = checkpointer._copy_log
    failures = iter([RuntimeError("the worker thread is gone"), sqlite3.OperationalError("disk I/O error")])

    def failing_first() -> tuple[int, int]:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return copy_log()

    monkeypatch.setattr(checkpointer, "_copy_log", failing_first)
    try:
        for _ in range(3):
            checkpointer.wrote()
            await checkpointer.settled()
        assert checkpointer.last is not None
    finally:
        await checkpointer.close()


async def test_events_written_in_a_batch_are_stored_as_the_orm_stores_them(tmp_path: Path) -> None:
    """A timestamp's text is the same whichever path wrote it, so that comparing timestamps in SQL (a recap's
    "since") finds the same events; before, a batch stored sqlite3's own "...+00:00" and sorted after its equal."""
    database = Database.from_url(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    moment = datetime(2026, 12, 2, 14, 32, 18, 259702, tzinfo=UTC)
    try:
        await upgrade(database.engine)
        async with database.write() as session:
            campaign = Campaign(guild_id=1, channel_id=2, name="x", ruleset="fate_points")
            session.add(campaign)
            await session.flush()
            session.add(Event(campaign_id=campaign.id, kind="by the orm", actor_id=1, payload={}, created_at=moment))
        row = {"campaign_id": campaign.id, "kind": "in a batch", "actor_id": 1, "payload": {}, "created_at": moment,
               "secret": False}  # fmt: skip
        await database.insert_rows(cast(Table, Event.__table__), [row])
        async with database.read() as session:
            stored = (await session.execute(text("SELECT created_at FROM events ORDER BY id"))).scalars().all()
            later = await session.scalar(select(func.count()).select_from(Event).where(Event.created_at > moment))
        assert stored[0] == stored[1] == "2026-12-02 14:32:18.259702"
        assert later == 0
    finally:
        await database.dispose()


async def test_the_migration_brings_earlier_batches_to_the_same_text(tmp_path: Path) -> None:
    database = Database.from_url(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    try:
        await upgrade(database.engine, "0006")
        async with database.engine.begin() as connection:
            await connection.execute(text("INSERT INTO campaigns (guild_id, channel_id, name, ruleset, options, "
                                          "session_number, turn_number, round_number, combat, status, created_at) "
                                          "VALUES (1, 2, 'x', 'fate_points', '{}', 1, 1, 1, '{}', 'active', "
                                          "'2026-12-01 10:00:00.000000')"))  # fmt: skip
            event = text("INSERT INTO events (campaign_id, kind, actor_id, payload, secret, created_at) "
                         "VALUES (1, 'roll', 1, '{}', 0, :at)")  # fmt: skip
            for written in ("2026-12-02 14:32:18.259702+00:00", "2026-12-02 14:32:19+00:00"):
                await connection.execute(event, {"at": written})
        await upgrade(database.engine)
        async with database.engine.connect() as connection:
            stored = (await connection.execute(text("SELECT created_at FROM events ORDER BY id"))).scalars().all()
        assert stored == ["2026-12-02 14:32:18.259702", "2026-12-02 14:32:19.000000"]
    finally:
        await database.dispose()
