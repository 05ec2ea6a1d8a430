"""The channel-to-campaign directory: bounded, expiring, never storing an answer that raced a change, and told of
changes made by other processes; and the guilds of a process's shards, picked by the database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.db.directory import CampaignDirectory, Known
from bot.db.engine import Database
from bot.db.migrate import upgrade
from bot.db.models import Campaign
from bot.rulesets.registry import RULESETS
from bot.services.campaigns import CampaignService
from bot.services.common import Actor, Place, campaign_at, on_shards, system_clock
from bot.shards import Shards, shard_of
from tests.databases import BACKENDS, POSTGRES_ADMIN_URL, fresh_database_url, migrated_database


def test_a_lookup_that_raced_a_start_or_end_is_not_stored() -> None:
    directory = CampaignDirectory()
    generation = directory.generation  # a command reads the database: no campaign yet
    directory.forget(1, 10)  # meanwhile a campaign starts there and commits
    directory.remember(1, 10, None, generation)
    assert directory.get(1, 10) is None  # the stale "none" was not kept: the next command asks again
    directory.remember(1, 10, 5, directory.generation)
    assert directory.get(1, 10) == Known(5)


def test_the_least_recently_used_channel_goes_first() -> None:
    directory = CampaignDirectory(capacity=2)
    for channel in (10, 11):
        directory.remember(1, channel, channel, directory.generation)
    assert directory.get(1, 10) == Known(10)
    directory.remember(1, 12, 12, directory.generation)
    assert len(directory) == 2
    assert directory.get(1, 11) is None
    assert directory.get(1, 10) == Known(10)


def test_entries_expire() -> None:
    now = [1000.0]
    directory = CampaignDirectory(lifetime=300, clock=lambda: now[0])
    directory.remember(1, 10, None, directory.generation)
    now[0] += 299
    assert directory.get(1, 10) == Known(None)
    now[0] += 2
    assert directory.get(1, 10) is None
    assert len(directory) == 0


@pytest.mark.skipif(POSTGRES_ADMIN_URL is None, reason="processes tell each other through PostgreSQL")
async def test_a_campaign_started_by_one_process_is_seen_at_once_by_another(tmp_path: Path) -> None:
    async with fresh_database_url("postgresql", tmp_path) as url:
        starter, other = Database.from_url(url), Database.from_url(url)
        try:
            await upgrade(starter.engine)
            other.directory.remember(1, 99, None, other.directory.generation)
            other.listen_to_other_processes()
            # Listening starts by forgetting everything remembered before (what was told meanwhile is unknown).
            await _soon(lambda: other.directory.get(1, 99) is None)
            place = Place(1, 10)
            assert await campaign_at(other, place) == Known(None)  # remembered for minutes, but for a change
            started = await CampaignService(starter, system_clock, RULESETS).start(
                place, Actor(7), "fate_points", "Fuyuki"
            )
            await _soon(lambda: other.directory.get(1, 10) is None)
            assert await campaign_at(other, place) == Known(started.id)
        finally:
            await other.dispose()
            await starter.dispose()


async def _soon(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(5):
        # Nothing signals this process when another's notice has arrived: the directory is looked at again.
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_database_picks_the_guilds_of_a_processs_shards(backend: str, tmp_path: Path) -> None:
    guilds = [(number << 22) | 5 for number in range(12)]
    async with migrated_database(backend, tmp_path) as database:
        async with database.write() as session:
            for channel, guild in enumerate(guilds):
                session.add(Campaign(guild_id=guild, channel_id=channel, name="c", ruleset="fate_points"))
        for shards in (Shards(3, (1,)), Shards(3, (0, 2)), Shards(1, (0,)), Shards(4, (3,))):
            async with database.read() as session:
                found = set(
                    await session.scalars(select(Campaign.guild_id).where(on_shards(Campaign.guild_id, shards)))
                )
            assert found == {guild for guild in guilds if shard_of(guild, shards.count) in shards.ids}
