"""A recap reads its campaign's log by index: finding its reader's last event, or counting from a moment, never
walks the whole log (SQLite's plan for every statement it runs searches an index narrowed past the campaign)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event

from bot.db.engine import Database
from bot.db.models import Campaign, Event
from bot.services.common import Actor, Place
from bot.services.log import LogService
from tests.databases import migrated_database

START = datetime(2026, 12, 1, tzinfo=UTC)
READER, OTHER = 7, 8


@pytest.fixture(scope="module")
async def database(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    async with migrated_database("sqlite", tmp_path_factory.mktemp("log-reads")) as db:
        async with db.write() as session:
            campaign = Campaign(guild_id=1, channel_id=2, name="Long", ruleset="fate_points", created_at=START)
            session.add(campaign)
            await session.flush()
            session.add_all(
                Event(
                    campaign_id=campaign.id,
                    kind="campaign.turn",
                    actor_id=READER if number % 50 == 0 else OTHER,
                    payload={},
                    created_at=START + timedelta(minutes=number),
                )
                for number in range(500)
            )
        yield db


async def _plans_of_a_recap(database: Database, since: datetime | None) -> list[str]:
    """SQLite's query plan of each statement on the events table that the recap ran."""
    statements: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        if "FROM events" in statement and statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    engine = database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        await LogService(database).recap(Place(1, 2), Actor(READER), since, latest=5)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    async with database.engine.connect() as connection:
        explained = [
            (await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)).all()
            for statement, parameters in statements
        ]
    return [" / ".join(str(row[-1]) for row in rows) for rows in explained]


@pytest.mark.parametrize("since", [None, START + timedelta(hours=7)], ids=["since the last move", "since a moment"])
async def test_a_recap_reads_the_log_by_index(database: Database, since: datetime | None) -> None:
    plans = await _plans_of_a_recap(database, since)
    assert plans, "the recap read the log"
    for plan in plans:  # each search narrows the campaign's events by the reader or the moment, not by it alone
        assert "SCAN events" not in plan and "(campaign_id=?)" not in plan, plan
