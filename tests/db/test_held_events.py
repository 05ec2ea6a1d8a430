"""A write transaction's events go in together when it commits, in the order recorded; a read of the log in the
transaction sees them first; a rollback, or a savepoint's, drops what it recorded."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.held_events import savepoint
from bot.db.models import Campaign, Event
from bot.services.common import record_event
from tests.databases import BACKENDS, migrated_database
from tests.e2e.statements import statements_run

NOW = datetime(2026, 12, 4, tzinfo=UTC)


@pytest.fixture(scope="module", params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("held-events")) as db:
        yield db


async def _campaign(database: Database) -> int:
    """A campaign of its own for each test (in a channel of its own)."""
    async with database.write() as session:
        channel_id = (await session.scalar(select(func.count()).select_from(Campaign)) or 0) + 2
        campaign = Campaign(guild_id=1, channel_id=channel_id, name="Log", ruleset="fate_points", created_at=NOW)
        session.add(campaign)
        await session.flush()
        return campaign.id


def _record(session: AsyncSession, campaign_id: int, kind: str) -> None:
    record_event(session, campaign_id, kind, actor_id=None, payload={"said": kind}, created_at=NOW)


async def _kinds(database: Database, campaign_id: int) -> list[str]:
    async with database.read() as session:
        return list(
            await session.scalars(select(Event.kind).where(Event.campaign_id == campaign_id).order_by(Event.id))
        )


async def test_a_transactions_events_go_in_together_in_the_order_recorded(database: Database) -> None:
    campaign_id = await _campaign(database)
    with statements_run(database) as statements:
        async with database.write() as session:
            for kind in ("first", "second", "third"):
                _record(session, campaign_id, kind)
    assert [s for s in statements if s.startswith("INSERT INTO events")] == [statements[-1]], statements
    assert await _kinds(database, campaign_id) == ["first", "second", "third"]


async def test_a_read_of_the_log_in_the_transaction_sees_its_events(database: Database) -> None:
    campaign_id = await _campaign(database)
    async with database.write() as session:
        _record(session, campaign_id, "first")
        counted = await session.scalar(select(func.count()).select_from(Event).where(Event.campaign_id == campaign_id))
        _record(session, campaign_id, "second")
    assert counted == 1
    assert await _kinds(database, campaign_id) == ["first", "second"]


async def test_a_rollback_drops_the_events_and_a_savepoints_drops_its_own(database: Database) -> None:
    campaign_id = await _campaign(database)
    with pytest.raises(RuntimeError):
        async with database.write() as session:
            _record(session, campaign_id, "lost")
            raise RuntimeError("the command failed")
    async with database.write() as session:
        _record(session, campaign_id, "before")
        with pytest.raises(RuntimeError):
            async with savepoint(session):
                _record(session, campaign_id, "undone")
                raise RuntimeError("the undo failed")
        async with savepoint(session):
            _record(session, campaign_id, "kept")
        _record(session, campaign_id, "after")
    assert await _kinds(database, campaign_id) == ["before", "kept", "after"]
