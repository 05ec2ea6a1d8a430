"""Two bot processes, one shard each, on one PostgreSQL database: each serves the guilds of its shard, and what
no interaction starts (deadlines, reminders) is done once, by the process of the guild's shard, even when that
process is killed while it is due and started again.

The emulator runs two shards; the players have a server on each, with a Fate/Points campaign (reminders every
hour) and a grail_zh one (a reaction that waits with a deadline) in each. The bots run as `fatebot run` in
processes of their own (`BotProcess`); time passing is the waits' deadlines and start times moved back in the
database, since the processes keep the system's clock.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pytest
from sqlalchemy import select

from bot.bench import BotProcess, Players, answered, set_the_tables, the_players
from bot.db.engine import Database
from bot.db.models import EXPIRED, PENDING, Campaign, Event, Notice, WaitRow
from bot.emulator import Emulator
from bot.emulator.models import Channel, Message
from bot.health_check import check_health
from bot.shards import shard_of
from tests.databases import POSTGRES_ADMIN_URL, fresh_database_url
from tests.e2e.declared import Declared
from tests.e2e.harness import free_port
from tests.e2e.ledger import Ledger, assert_accounts_for, campaign_in, read_ledger

pytestmark = pytest.mark.skipif(
    POSTGRES_ADMIN_URL is None, reason="processes share a PostgreSQL database: set TEST_DATABASE_URL"
)

SHARDS = 2
# Each process looks for deadlines this often, and for reminders every 12 looks (3 s).
POLL_SECONDS = 0.25
REMINDER_LOOK_SECONDS = POLL_SECONDS * 12
PATIENCE_SECONDS = 30.0
# A stopped twin ends within discord.py's 5 s between tries and its close; beyond this the test fails, not hangs.
TWIN_STOPS_WITHIN_SECONDS = 15.0
CRASH_SEED = 3
REMINDED = "fate_points"
REMINDER = re.compile(r"reminder|リマインダー|提醒")
TIMED = "grail_zh"


@dataclass
class Fleet:
    players: Players
    url: str
    processes: list[BotProcess]
    health_ports: list[int]
    # The test's own connection to the processes' database, to read what they did and to move time back.
    database: Database

    @property
    def emulator(self) -> Emulator:
        return self.players.emulator

    def shard_of(self, channel: Channel) -> int:
        assert channel.guild_id is not None
        return shard_of(channel.guild_id, SHARDS)


@pytest.fixture(scope="module")
async def fleet(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Fleet]:
    directory = tmp_path_factory.mktemp("shards")
    async with fresh_database_url("postgresql", directory) as url, Emulator(seed=17, shard_count=SHARDS) as emulator:
        players = the_players(emulator, rival_locale="ja")
        for ruleset in (REMINDED, TIMED):
            players.add_channels(ruleset, SHARDS)  # one campaign of each in each server
        ports = [free_port() for _ in range(SHARDS)]
        processes = [
            BotProcess(emulator, url, directory, shard_ids=(shard,),
                       settings={"DEADLINE_POLL_SECONDS": str(POLL_SECONDS), "HEALTH_PORT": str(port)})
            for shard, port in enumerate(ports)
        ]  # fmt: skip
        database = Database.from_url(url)
        try:
            await asyncio.gather(*(process.start() for process in processes))
            await emulator.wait_ready()
            await set_the_tables(players)
            yield Fleet(players, url, processes, ports, database)
        finally:
            for process in processes:
                await process.stop()
            await database.dispose()


async def health(fleet: Fleet, shard: int) -> tuple[bool, dict[str, Any]]:
    fit, report = await asyncio.to_thread(check_health, "127.0.0.1", fleet.health_ports[shard])
    return fit, json.loads(report)


async def soon(check: Callable[[], Awaitable[bool]]) -> None:
    """Wait until the check holds (it may read the database), for up to `PATIENCE_SECONDS`."""
    async with asyncio.timeout(PATIENCE_SECONDS):
        # What the bot processes do reaches this one through the database and the emulator, with no event to
        # wait on: it is looked at again and again.
        while not await check():  # noqa: ASYNC110
            await asyncio.sleep(POLL_SECONDS)


async def reminded(fleet: Fleet, channel: Channel) -> None:
    async def seen() -> bool:
        return bool(reminders_in(fleet, channel))

    await soon(seen)


async def test_each_process_serves_the_guilds_of_its_shard(fleet: Fleet) -> None:
    emulator, players = fleet.emulator, fleet.players
    assert {fleet.shard_of(channel) for channel in players.every_channel} == set(range(SHARDS))
    for shard in range(SHARDS):
        fit, report = await health(fleet, shard)
        assert fit, report
        assert report["shard_count"] == SHARDS
        shown = report["shards"][str(shard)]
        assert list(report["shards"]) == [str(shard)] and shown["connected"] and shown["guilds"] == 1, report
    # Commands in every campaign of both servers at once: each answered once, by the process of its shard (the
    # emulator sends a guild's interactions on its shard's connection only).
    records = await asyncio.gather(
        *(emulator.slash(players.player, channel, "roll", {"dice": "1d20+5"}, settle=False)
          for channel in players.every_channel for _ in range(3))
    )  # fmt: skip
    for record in records:
        await record.until(lambda record=record: answered(record), 10)  # type: ignore[misc]
        assert len(record.replies) == 1 and not record.reply.ephemeral, record.reply.content


async def test_a_second_process_for_a_shard_already_run_is_refused(
    fleet: Fleet, tmp_path_factory: pytest.TempPathFactory
) -> None:
    emulator = fleet.emulator
    identified, refused = emulator.gateway.identify_count, emulator.gateway.refused_count
    twin = BotProcess(emulator, fleet.url, tmp_path_factory.mktemp("twin"), shard_ids=(0,))
    try:
        await twin.start()  # the shard is live already: this returns at once

        async def turned_away() -> bool:
            return emulator.gateway.refused_count > refused

        await soon(turned_away)
        assert emulator.gateway.identify_count == identified
        assert twin.process is not None and twin.process.returncode is None  # it keeps trying, with a backoff
    finally:
        # Stopped once turned away, it exits (one stopped during its first connection used to try for ever:
        # tests/bot/test_shutdown.py holds that case).
        try:
            async with asyncio.timeout(TWIN_STOPS_WITHIN_SECONDS):
                await twin.stop()
        except TimeoutError:
            assert twin.process is not None
            twin.process.kill()  # not `kill()`: that waits for the shard, which the fleet's process holds
            await twin.process.wait()
            raise
    fit, report = await health(fleet, 0)
    assert fit, report
    assert (await emulator.slash(fleet.players.player, fleet.players.channels[REMINDED][0], "roll",
                                 {"dice": "1d6"})).replies[0].ephemeral is False  # fmt: skip


@dataclass(frozen=True)
class Due:
    """The waits a test made due, by the shard of their campaign."""

    deadlines: dict[int, set[int]]
    reminders: dict[int, set[int]]


async def open_waits(fleet: Fleet) -> None:
    """In every server: a Fate/Points attack waiting for its defence (reminders every hour), and a grail_zh hit
    waiting for the defender's reaction (with a deadline)."""
    players = fleet.players
    for channel in players.channels[REMINDED]:
        await fleet.emulator.slash(players.gm, channel, "campaign reminders", {"hours": 1})
        fight = Declared(players, REMINDED, channel)
        await fight.made(list(fight.exchange.moves[:-1]))
        assert fight.prompt() is not None
    for channel in players.channels[TIMED]:
        await Declared(players, TIMED, channel).open_until_answerable()


async def make_due(fleet: Fleet) -> Due:
    """Every pending wait with a deadline past it, and every wait of the reminded campaigns open for longer than
    their reminder delay."""
    now = datetime.now(UTC)
    due = Due({shard: set() for shard in range(SHARDS)}, {shard: set() for shard in range(SHARDS)})
    async with fleet.database.write() as session:
        pending = select(WaitRow, Campaign).join(Campaign, Campaign.id == WaitRow.campaign_id)
        for wait, campaign in (await session.execute(pending.where(WaitRow.status == PENDING))).all():
            shard = shard_of(campaign.guild_id, SHARDS)
            if wait.deadline_at is not None:
                wait.deadline_at = now - timedelta(seconds=1)
                due.deadlines[shard].add(wait.id)
            elif campaign.ruleset == REMINDED:
                wait.created_at = now - timedelta(minutes=90)
                due.reminders[shard].add(wait.id)
    return due


async def statuses(fleet: Fleet, wait_ids: set[int]) -> dict[int, str]:
    async with fleet.database.read() as session:
        rows = await session.execute(select(WaitRow.id, WaitRow.status).where(WaitRow.id.in_(wait_ids)))
        return dict(rows.all())


async def notices(fleet: Fleet) -> list[Notice]:
    async with fleet.database.read() as session:
        return list(await session.scalars(select(Notice)))


async def expiries(fleet: Fleet) -> Counter[int]:
    """How many times the log says each campaign's waits ran out of time."""
    async with fleet.database.read() as session:
        return Counter(await session.scalars(select(Event.campaign_id).where(Event.kind == "wait.expired")))


def reminders_in(fleet: Fleet, channel: Channel) -> list[Message]:
    players = fleet.players
    shown = fleet.emulator.visible_to(players.defender, channel)
    return [
        message for message in shown if players.defender.id in message.notified and REMINDER.search(message.content)
    ]


async def test_deadlines_and_reminders_due_while_a_process_is_down_are_each_handled_once(fleet: Fleet) -> None:
    players, emulator = fleet.players, fleet.emulator
    campaigns = {channel.id: await campaign_in(fleet.url, channel.id) for channel in players.every_channel}
    baselines: dict[int, Ledger] = {cid: await read_ledger(fleet.url, cid) for cid in campaigns.values()}
    await open_waits(fleet)
    killed, survivor = 1, 0
    await fleet.processes[killed].kill()
    due = await make_due(fleet)
    assert all(due.deadlines[shard] and due.reminders[shard] for shard in range(SHARDS)), due

    # The survivor handles its own shard's, with commands coming in meanwhile, and leaves the other's alone.
    survivor_channels = [channel for channel in players.every_channel if fleet.shard_of(channel) == survivor]
    rolls = await asyncio.gather(
        *(emulator.slash(players.player, channel, "roll", {"dice": "2d6"}) for channel in survivor_channels)
    )
    await soon(partial(_all_status, fleet, due.deadlines[survivor], EXPIRED))
    for channel in players.channels[REMINDED]:
        if fleet.shard_of(channel) == survivor:
            await reminded(fleet, channel)
    for record in rolls:
        assert answered(record) and not record.reply.ephemeral
    await asyncio.sleep(REMINDER_LOOK_SECONDS + 1)  # long enough for the survivor to look at everything twice
    assert await _all_status(fleet, due.deadlines[killed], PENDING)
    assert not {notice.wait_id for notice in await notices(fleet)} & due.reminders[killed]

    # Started again, the process is killed at once, at a random moment of its first looks at what is due; then
    # started once more.
    await fleet.processes[killed].start()
    await asyncio.sleep(random.Random(CRASH_SEED).uniform(0, 2 * POLL_SECONDS))
    await fleet.processes[killed].kill()
    await fleet.processes[killed].start()
    await soon(partial(_all_status, fleet, due.deadlines[killed], EXPIRED))
    for channel in players.channels[REMINDED]:
        await reminded(fleet, channel)
    await asyncio.sleep(REMINDER_LOOK_SECONDS + 1)  # a second copy of anything would show by now
    await emulator.settle()

    expired = await expiries(fleet)
    for channel in players.channels[TIMED]:
        campaign_id = campaigns[channel.id]
        waits = {wait for shard in range(SHARDS) for wait in due.deadlines[shard]}
        mine = await _waits_of(fleet, campaign_id, waits)
        assert expired[campaign_id] == len(mine), (channel.name, expired[campaign_id], mine)
    for channel in players.channels[REMINDED]:
        assert len(reminders_in(fleet, channel)) == 1, [m.content for m in reminders_in(fleet, channel)]
    claimed = await notices(fleet)
    assert all(notice.sent_at is not None for notice in claimed)
    reminder_keys = Counter((notice.wait_id, notice.user_id) for notice in claimed if notice.wait_id is not None)
    assert set(reminder_keys) == {
        (wait, players.defender.id) for shard in range(SHARDS) for wait in due.reminders[shard]
    }
    assert set(reminder_keys.values()) == {1}
    digests = [message for message in emulator.dms(players.gm) if "Stuck in **Bench**" in message.content]
    # One digest for all the GM's campaigns, on both shards, though one process was down when it was due.
    assert len(digests) == 1, [m.content for m in digests]
    for channel in players.channels[REMINDED]:
        assert f"/{channel.id}/" in digests[0].content, digests[0].content
    for campaign_id, baseline in baselines.items():
        assert_accounts_for(baseline, await read_ledger(fleet.url, campaign_id, since_event=baseline.last_event))


async def _all_status(fleet: Fleet, wait_ids: set[int], status: str) -> bool:
    return set((await statuses(fleet, wait_ids)).values()) == {status}


async def _waits_of(fleet: Fleet, campaign_id: int, wait_ids: set[int]) -> set[int]:
    async with fleet.database.read() as session:
        chosen = select(WaitRow.id).where(WaitRow.campaign_id == campaign_id, WaitRow.id.in_(wait_ids))
        return set(await session.scalars(chosen))
