"""The reminders' look, every minute, reads only the open waits old enough for a notice, by index: the waits of
many campaigns opened within the hour are never read (SQLite's plan searches the waits by status and age)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event

from bot.bench_stored import fill
from bot.db.engine import Database
from bot.services.reminders import ReminderService
from tests.databases import fresh_database_url

CAMPAIGNS = 300


@pytest.fixture(scope="module")
async def database(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    async with fresh_database_url("sqlite", tmp_path_factory.mktemp("notice-reads")) as url:
        await fill(url, CAMPAIGNS, 0)  # each campaign with a wait opened now
        database = Database.from_url(url)
        try:
            yield database
        finally:
            await database.dispose()


async def test_the_look_for_due_notices_reads_waits_by_status_and_age(database: Database) -> None:
    statements: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        if "FROM campaigns JOIN waits" in " ".join(statement.split()):
            statements.append((statement, parameters))

    engine = database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        claimed = await ReminderService(database, lambda: datetime.now(UTC)).claim_due()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert claimed == []
    assert statements, "the look read the open waits"
    async with database.engine.connect() as connection:
        for statement, parameters in statements:
            plan = " / ".join(
                str(row[-1]) for row in await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            )
            assert "SEARCH waits USING INDEX ix_waits_status_created_at (status=? AND created_at<?)" in plan, plan
