"""The schema comes from migrations, and concurrent changes neither lose nor double an update."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from bot.db.atomic import (
    PoolLimitError,
    answer_wait,
    apply_pool_delta,
    lock_campaign,
    resolve_wait,
    set_pool,
    set_pool_maximum,
)
from bot.db.engine import Database
from bot.db.models import (
    ANSWERED,
    PENDING,
    SUPERSEDED,
    Base,
    Campaign,
    Character,
    Exchange,
    Membership,
    ResourcePool,
    WaitRow,
)
from bot.services.characters import active_character
from bot.services.common import Actor, Place, active_campaign
from tests.databases import BACKENDS, migrated_database

_spare_channel_ids = itertools.count(10_000)


@pytest.fixture(scope="module", params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("db")) as db:
        yield db


async def _campaign(database: Database, channel_id: int) -> int:
    async with database.write() as session:
        campaign = Campaign(guild_id=1, channel_id=channel_id, name="c", ruleset="fate_points")
        session.add(campaign)
        await session.flush()
        return campaign.id


async def _pool(database: Database, current: int, maximum: int | None) -> int:
    campaign_id = await _campaign(database, channel_id=next(_spare_channel_ids))
    async with database.write() as session:
        character = Character(campaign_id=campaign_id, owner_id=7, name="Saber", kind="servant")
        session.add(character)
        await session.flush()
        pool = ResourcePool(character_id=character.id, name="hp", current=current, maximum=maximum)
        session.add(pool)
        await session.flush()
        return pool.id


async def test_migrations_match_models(database: Database) -> None:
    def diff(connection: object) -> list[object]:
        context = MigrationContext.configure(connection)  # type: ignore[arg-type]
        return list(compare_metadata(context, Base.metadata))

    async with database.engine.connect() as connection:
        assert await connection.run_sync(diff) == []


async def test_one_active_campaign_per_channel(database: Database) -> None:
    await _campaign(database, channel_id=42)
    with pytest.raises(IntegrityError):
        await _campaign(database, channel_id=42)
    async with database.write() as session:
        campaign = (await session.execute(select(Campaign).where(Campaign.channel_id == 42))).scalar_one()
        campaign.status = "ended"
    await _campaign(database, channel_id=42)


async def test_timestamps_come_back_timezone_aware(database: Database) -> None:
    campaign_id = await _campaign(database, channel_id=43)
    async with database.read() as session:
        campaign = await session.get(Campaign, campaign_id)
        assert campaign is not None
        assert campaign.created_at.tzinfo is not None


async def test_fifty_concurrent_adjustments_add_up(database: Database) -> None:
    pool_id = await _pool(database, current=100, maximum=None)

    async def adjust(delta: int) -> None:
        async with database.write() as session:
            await apply_pool_delta(session, pool_id, delta)

    deltas = [(-1) ** index * (index % 7 + 1) for index in range(50)]
    await asyncio.gather(*(adjust(delta) for delta in deltas))
    async with database.read() as session:
        pool = await session.get(ResourcePool, pool_id)
        assert pool is not None
        assert pool.current == 100 + sum(deltas)


async def test_strict_delta_refuses_to_leave_the_range(database: Database) -> None:
    pool_id = await _pool(database, current=5, maximum=10)
    async with database.write() as session:
        with pytest.raises(PoolLimitError):
            await apply_pool_delta(session, pool_id, -6)
        with pytest.raises(PoolLimitError):
            await apply_pool_delta(session, pool_id, 6)
        assert (await apply_pool_delta(session, pool_id, 5)).current == 10


async def test_clamped_delta_stays_in_range(database: Database) -> None:
    pool_id = await _pool(database, current=5, maximum=10)
    async with database.write() as session:
        assert (await apply_pool_delta(session, pool_id, 50, clamp=True)).current == 10
        assert (await apply_pool_delta(session, pool_id, -50, clamp=True)).current == 0


async def test_set_pool_and_its_maximum_stay_in_range(database: Database) -> None:
    pool_id = await _pool(database, current=5, maximum=10)
    async with database.write() as session:
        assert (await set_pool(session, pool_id, 99)).current == 10
        assert (await set_pool(session, pool_id, -3)).current == 0
        assert (await set_pool(session, pool_id, 8)).current == 8
        lowered = await set_pool_maximum(session, pool_id, 6)
        assert (lowered.current, lowered.maximum) == (6, 6)
        raised = await set_pool_maximum(session, pool_id, None)
        assert (raised.current, raised.maximum) == (6, None)


async def _waits(database: Database, channel_id: int, waits: list[tuple[int, str]]) -> tuple[int, list[int]]:
    """A campaign with an exchange waiting on these (step, key) waits: the campaign's id and the waits'."""
    campaign_id = await _campaign(database, channel_id=channel_id)
    async with database.write() as session:
        exchange = Exchange(campaign_id=campaign_id, kind="attack", title={}, state={}, channel_id=channel_id)
        session.add(exchange)
        await session.flush()
        rows = [
            WaitRow(exchange_id=exchange.id, campaign_id=campaign_id, step=step, key=key, channel_id=channel_id)
            for step, key in waits
        ]
        session.add_all(rows)
        await session.flush()
        return campaign_id, [row.id for row in rows]


async def test_ten_concurrent_resolutions_succeed_once(database: Database) -> None:
    campaign_id, (wait_id,) = await _waits(database, 44, [(1, "defence")])

    async def resolve(choice: int) -> bool:
        async with database.write() as session:
            await lock_campaign(session, campaign_id)
            return await resolve_wait(session, wait_id, ANSWERED, {"choice": choice}, datetime.now(UTC))

    outcomes = await asyncio.gather(*(resolve(choice) for choice in range(10)))
    assert outcomes.count(True) == 1
    async with database.read() as session:
        stored = await session.get(WaitRow, wait_id)
        assert stored is not None
        assert stored.status == ANSWERED
        assert stored.answer == {"choice": outcomes.index(True)}


async def test_ten_concurrent_answers_succeed_once_and_supersede_the_rest_of_the_step(database: Database) -> None:
    campaign_id, (answered, sibling, later) = await _waits(database, 45, [(1, "defence"), (1, "cancel"), (2, "later")])

    async def answer(choice: int) -> list[int] | None:
        async with database.write() as session:
            await lock_campaign(session, campaign_id)
            wait = await session.get(WaitRow, answered)
            assert wait is not None
            moved = await answer_wait(session, wait, ANSWERED, {"choice": choice}, SUPERSEDED, datetime.now(UTC))
            return None if moved is None else [row[0] for row in moved]

    outcomes = await asyncio.gather(*(answer(choice) for choice in range(10)))
    assert [outcome for outcome in outcomes if outcome is not None] == [[sibling]]
    async with database.read() as session:
        stored = {wait.id: wait for wait in await session.scalars(select(WaitRow).where(WaitRow.id.in_(
            [answered, sibling, later])))}  # fmt: skip
    winner = next(choice for choice, outcome in enumerate(outcomes) if outcome is not None)
    assert (stored[answered].status, stored[answered].answer) == (ANSWERED, {"choice": winner})
    assert (stored[sibling].status, stored[sibling].answer) == (SUPERSEDED, None)
    assert stored[later].status == PENDING  # another step's wait is not this answer's


async def test_ten_concurrent_changes_of_an_active_characters_state_add_up(database: Database) -> None:
    """Each change reads the acting character with its campaign, locked, and writes the state back whole (as a
    step's state changes are): none may read the character as it stood before another's change committed."""
    channel_id = next(_spare_channel_ids)
    campaign_id = await _campaign(database, channel_id)
    async with database.write() as session:
        character = Character(campaign_id=campaign_id, owner_id=7, name="Saber", kind="servant", state={"count": 0})
        session.add(character)
        await session.flush()
        session.add(Membership(campaign_id=campaign_id, user_id=7, role="player", active_character_id=character.id))
        character_id = character.id

    async def count_one() -> None:
        async with database.write() as session:
            campaign = await active_campaign(session, Place(1, channel_id), lock=True, member=Actor(7))
            acting = await active_character(session, campaign, Actor(7))
            await asyncio.sleep(0.01)  # the others queue behind the lock meanwhile
            await session.execute(
                update(Character).where(Character.id == acting.id).values(state={"count": acting.state["count"] + 1})
            )

    await asyncio.gather(*(count_one() for _ in range(10)))
    async with database.read() as session:
        stored = await session.get(Character, character_id)
        assert stored is not None and stored.state == {"count": 10}
