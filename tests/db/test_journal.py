"""Group commit: rolls arriving together share transactions, and none is acknowledged before it is durable."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Table, func, select

from bot.db.engine import COMMITTED, Database
from bot.db.journal import BATCH_LIMIT, EventJournal, NewEvent
from bot.db.models import Campaign, Event
from tests.databases import BACKENDS, migrated_database

_channel_ids = itertools.count(1)


@pytest.fixture(scope="module", params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("journal")) as db:
        yield db


class CountedInserts:
    """Wraps `Database.insert_rows`: how many transactions, and optionally fail the first ones."""

    def __init__(self, database: Database, failures: int = 0) -> None:
        self.original = database.insert_rows
        self.batches: list[int] = []
        self.failures = failures

    async def __call__(self, table: Table, rows: list[dict[str, Any]]) -> None:
        self.batches.append(len(rows))
        await asyncio.sleep(0)  # as a real write would, let other commands arrive meanwhile
        if self.failures:
            self.failures -= 1
            raise RuntimeError("the disk is full")
        await self.original(table, rows)


async def _campaign(database: Database) -> int:
    async with database.write() as session:
        campaign = Campaign(guild_id=1, channel_id=next(_channel_ids), name="c", ruleset="fate_points")
        session.add(campaign)
        await session.flush()
        return campaign.id


def _fresh_command() -> contextvars.Context:
    """The context of a new interaction: nothing committed yet (this test's own setup did commit)."""
    context = contextvars.copy_context()
    context.run(COMMITTED.set, False)
    return context


def _roll(campaign_id: int, number: int) -> NewEvent:
    return NewEvent(campaign_id, "roll", 7, {"label": f"roll {number}"}, datetime.now(UTC))


async def _stored(database: Database, campaign_id: int) -> int:
    async with database.read() as session:
        count = await session.scalar(select(func.count()).where(Event.campaign_id == campaign_id))
    return count or 0


async def test_a_burst_of_rolls_is_written_in_a_few_transactions(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_id = await _campaign(database)
    inserts = CountedInserts(database)
    monkeypatch.setattr(database, "insert_rows", inserts)
    journal = EventJournal(database)
    await asyncio.gather(*(journal.append(_roll(campaign_id, number)) for number in range(BATCH_LIMIT + 200)))
    assert await _stored(database, campaign_id) == BATCH_LIMIT + 200
    assert sum(inserts.batches) == BATCH_LIMIT + 200
    # The first roll goes alone; everything that arrived during its commit goes in the next ones.
    assert inserts.batches[0] == 1
    assert len(inserts.batches) <= 3
    assert max(inserts.batches) <= BATCH_LIMIT


async def test_a_lone_roll_is_written_at_once_by_its_own_command(database: Database) -> None:
    campaign_id = await _campaign(database)
    journal = EventJournal(database)
    context = _fresh_command()
    await asyncio.create_task(journal.append(_roll(campaign_id, 0)), context=context)
    assert context[COMMITTED] is True
    assert await _stored(database, campaign_id) == 1


async def test_a_failed_flush_fails_every_roll_in_it_and_the_next_ones_go_through(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_id = await _campaign(database)
    inserts = CountedInserts(database, failures=2)
    monkeypatch.setattr(database, "insert_rows", inserts)
    journal = EventJournal(database)
    contexts = [_fresh_command() for _ in range(20)]
    outcomes = await asyncio.gather(
        *(
            asyncio.create_task(journal.append(_roll(campaign_id, number)), context=context)
            for number, context in enumerate(contexts)
        ),
        return_exceptions=True,
    )
    failed = sum(inserts.batches[:2])
    assert failed >= 2
    assert [isinstance(outcome, RuntimeError) for outcome in outcomes].count(True) == failed
    # A roll is acknowledged (and its command knows it committed) exactly when its event is stored.
    assert [context[COMMITTED] for context in contexts] == [outcome is None for outcome in outcomes]
    assert await _stored(database, campaign_id) == 20 - failed

    await journal.append(_roll(campaign_id, 20))
    await journal.drain()
    assert await _stored(database, campaign_id) == 21 - failed


async def test_a_journalled_event_reads_back_as_the_orm_stores_it(database: Database) -> None:
    campaign_id = await _campaign(database)
    moment = datetime(2026, 12, 1, 12, 30, 15, 123456, tzinfo=UTC)
    payload = {"label": "潜行", "total": 17, "roll": {"dice": [12, 5], "kept": [True, False]}, "comment": None}
    await EventJournal(database).append(NewEvent(campaign_id, "roll", 2**62, payload, moment, secret=True))
    async with database.read() as session:
        stored = await session.scalar(select(Event).where(Event.campaign_id == campaign_id))
    assert stored is not None
    assert (stored.kind, stored.actor_id, stored.payload, stored.secret) == ("roll", 2**62, payload, True)
    assert stored.created_at == moment
