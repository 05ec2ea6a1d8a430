"""`fatebot bench --stored N`: the bench's database, filled first with N other campaigns, as a server's after
months of play: each with a GM's and a player's characters (with resource pools) and their memberships, an open
wait on the player's character, and a log.

The rows go in with SQLAlchemy Core, table by table, in chunks of a few thousand (one executemany each) and one
transaction for each table, the way `fatebot db copy` writes; the ids come back from the database (RETURNING),
so that PostgreSQL's sequences stay ahead of them for the bench's own campaigns.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.copy import bulk_engine
from bot.db.engine import is_sqlite
from bot.db.migrate import upgrade
from bot.db.models import (
    PENDING,
    ROLE_GM,
    ROLE_PLAYER,
    Base,
    Campaign,
    Character,
    Event,
    Exchange,
    ExchangeRole,
    Membership,
    ResourcePool,
    WaitRow,
)
from bot.rulesets.registry import RULESETS
from bot.services.held import SHEET_APPROVAL, SUBJECT, approval_step
from rules.exchange import Text, Wait

ROWS_PER_CHUNK: Final = 5_000
# Far below the snowflakes Discord (and the emulator) give: no stored campaign shares a channel with the bench's.
STORED_GUILD_ID: Final = 1_000
FIRST_STORED_CHANNEL_ID: Final = 1_000_000
CAMPAIGNS_PER_GUILD: Final = 50
GM_ID, PLAYER_ID = 2_000, 2_001
EVENTS_PER_CAMPAIGN: Final = 100


def stored_wait() -> Wait:
    """A GM's approval of a sheet, as the bot opens one; stored as new, so no reminder of it falls due in the bench."""
    pause = approval_step("Hero", ["name"]).pause
    assert pause is not None
    return pause.waits[0]


@dataclass(frozen=True)
class Filled:
    rows: dict[str, int]
    seconds: float

    @property
    def total(self) -> int:
        return sum(self.rows.values())


async def _insert(
    engine: AsyncEngine, model: type[Base], rows: Iterable[dict[str, Any]], *, ids: bool = False
) -> list[int]:
    """The rows in chunks, in one transaction; with `ids`, their ids in the rows' order. The rows may be a
    generator: a million events are never all in memory at once."""
    made: list[int] = []
    async with engine.begin() as connection:
        remaining = iter(rows)
        while chunk := list(itertools.islice(remaining, ROWS_PER_CHUNK)):
            if ids:
                statement = insert(model).returning(model.__table__.c.id, sort_by_parameter_order=True)
                made.extend((await connection.execute(statement, chunk)).scalars())
            else:
                await connection.execute(insert(model), chunk)
    return made


def kind(ruleset: str) -> str:
    play = RULESETS[ruleset].play
    assert play is not None
    return play.kinds[0]


def pool_names(ruleset: str) -> tuple[str, ...]:
    """Two of the ruleset's pools, each stored character's."""
    play = RULESETS[ruleset].play
    assert play is not None
    return tuple(play.pool_names)[:2]


async def fill(database_url: str, campaigns: int, events_per_campaign: int = EVENTS_PER_CAMPAIGN) -> Filled:
    """Migrate the database and store `campaigns` other campaigns in it, with `events_per_campaign` events each."""
    started = time.perf_counter()
    engine = bulk_engine(database_url)
    rulesets = list(RULESETS)
    now = datetime.now(UTC)
    try:
        await upgrade(engine)
        campaign_rows = [
            {
                "guild_id": STORED_GUILD_ID + number // CAMPAIGNS_PER_GUILD,
                "channel_id": FIRST_STORED_CHANNEL_ID + number,
                "name": f"Stored {number}",
                "ruleset": rulesets[number % len(rulesets)],
                "created_at": now,
            }
            for number in range(campaigns)
        ]
        campaign_ids = await _insert(engine, Campaign, campaign_rows, ids=True)
        character_rows = [
            {
                "campaign_id": campaign_id,
                "owner_id": owner,
                "name": name,
                "kind": kind(str(row["ruleset"])),
                "created_at": now,
            }
            for campaign_id, row in zip(campaign_ids, campaign_rows, strict=True)
            for owner, name in ((GM_ID, "Rival"), (PLAYER_ID, "Hero"))
        ]
        character_ids = await _insert(engine, Character, character_rows, ids=True)
        rulesets_of = [str(row["ruleset"]) for row in campaign_rows for _ in ("Rival", "Hero")]
        pool_rows = [
            {"character_id": character_id, "name": name, "current": 3, "maximum": 5, "minimum": 0}
            for character_id, ruleset in zip(character_ids, rulesets_of, strict=True)
            for name in pool_names(ruleset)
        ]
        await _insert(engine, ResourcePool, pool_rows)
        # Each campaign's GM playing the rival and its player the hero, as the bot's own campaigns have them.
        membership_rows = [
            {
                "campaign_id": campaign_id,
                "user_id": user_id,
                "role": role,
                "active_character_id": character_ids[2 * number + seat],
                "joined_at": now,
            }
            for number, campaign_id in enumerate(campaign_ids)
            for seat, (user_id, role) in enumerate(((GM_ID, ROLE_GM), (PLAYER_ID, ROLE_PLAYER)))
        ]
        await _insert(engine, Membership, membership_rows)
        exchange_rows = [
            {
                "campaign_id": campaign_id,
                "kind": SHEET_APPROVAL,
                "title": Text("exchange.sheet_approval", {"name": "Hero"}).to_dict(),
                "state": {},
                "channel_id": row["channel_id"],
                "created_at": now,
            }
            for campaign_id, row in zip(campaign_ids, campaign_rows, strict=True)
        ]
        exchange_ids = await _insert(engine, Exchange, exchange_rows, ids=True)
        role_rows = [  # the hero whose sheet waits for approval
            {"exchange_id": exchange_id, "role": SUBJECT, "position": 0, "character_id": character_ids[2 * number + 1]}
            for number, exchange_id in enumerate(exchange_ids)
        ]
        await _insert(engine, ExchangeRole, role_rows)
        wait = stored_wait()
        wait_rows = [
            {
                "exchange_id": exchange_id,
                "campaign_id": campaign_id,
                "step": 0,
                "key": wait.key,
                "spec": wait.to_dict(),
                "audience_ids": [PLAYER_ID],
                "status": PENDING,
                "channel_id": row["channel_id"],
                "message_id": row["channel_id"],  # posted: the bench waits for no stored prompt
                "created_at": now,
            }
            for exchange_id, campaign_id, row in zip(exchange_ids, campaign_ids, campaign_rows, strict=True)
        ]
        await _insert(engine, WaitRow, wait_rows)
        event_rows = (
            {
                "campaign_id": campaign_id,
                "created_at": now - timedelta(minutes=events_per_campaign - number),
                "actor_id": PLAYER_ID,
                "kind": "roll",
                "payload": {"dice": "1d20+5", "total": number % 20 + 6},
                "secret": False,
            }
            for campaign_id in campaign_ids
            for number in range(events_per_campaign)
        )
        await _insert(engine, Event, event_rows)
        await _settle(engine)
    finally:
        await engine.dispose()
    os.sync()  # the fill's writes on the disk, not still in flight under the bench's first commits
    rows = {
        "campaigns": len(campaign_rows),
        "characters": len(character_rows),
        "resource_pools": len(pool_rows),
        "memberships": len(membership_rows),
        "exchanges": len(exchange_rows),
        "exchange_roles": len(role_rows),
        "waits": len(wait_rows),
        "events": len(campaign_ids) * events_per_campaign,
    }
    return Filled(rows, time.perf_counter() - started)


async def _settle(engine: AsyncEngine) -> None:
    """The database as months of play leave it rather than as a bulk load does: on SQLite its write-ahead log
    copied into the database and emptied, on PostgreSQL the tables' statistics taken (as autovacuum would)."""
    async with engine.connect() as connection:
        if is_sqlite(engine):
            await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        else:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.exec_driver_sql("ANALYZE")


async def fill_elsewhere(database_url: str, campaigns: int, events_per_campaign: int) -> Filled:
    """`fill`, in a process of its own: the memory it takes is never counted in the bench's."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        database_url,
        str(campaigns),
        str(events_per_campaign),
        stdout=asyncio.subprocess.PIPE,
    )
    output, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"filling the stored database failed (exit status {child.returncode})")
    told = json.loads(output)
    return Filled(told["rows"], told["seconds"])


async def stored_count(database_url: str) -> tuple[int, int]:
    """The stored campaigns in the database, and their events."""
    engine = bulk_engine(database_url)
    try:
        async with engine.connect() as connection:
            stored = Campaign.channel_id.between(FIRST_STORED_CHANNEL_ID, FIRST_STORED_CHANNEL_ID + 10**12)
            count = await connection.scalar(select(func.count()).select_from(Campaign).where(stored))
            events = await connection.scalar(
                select(func.count()).select_from(Event).join(Campaign, Event.campaign_id == Campaign.id).where(stored)
            )
        return int(count or 0), int(events or 0)
    finally:
        await engine.dispose()


if __name__ == "__main__":  # `fill_elsewhere`'s child: the database's URL, campaigns and events per campaign
    url, count, per_campaign = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    made = asyncio.run(fill(url, count, per_campaign))
    print(json.dumps({"rows": made.rows, "seconds": made.seconds}))
