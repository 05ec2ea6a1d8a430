"""Each of an exchange move's statements two ways: as the bot ran it before (mostly through the session's ORM),
and as it runs it now.

Run from the project root: `python -m benchmarks.statements [rounds]`, on a new SQLite file and also on
PostgreSQL when TEST_DATABASE_URL names a server (as for the tests). In one write transaction of a migrated
database, the two ways of each pair alternate round by round, so both see the same machine state; it prints
each way's median in microseconds and their ratio. The pairs:

* a pool's UPDATE ... RETURNING, built on the model (the ORM's bulk-update handling) or on its table;
* two characters' pools, read as objects (refreshed) or as values;
* two characters as the rules see them, with a partner bound to one: their links (with the partner) and then
  every pool, or links and pools in one statement (`bot.services.snapshots`);
* an exchange stored by the session's flush, or by Core and handed to the session as stored;
* a step's two waits, flushed as objects or inserted in one INSERT ... RETURNING;
* an exchange's progress (handler, state, step), set on the object and flushed, or updated by Core.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, bindparam, case, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from bot.db.models import Campaign, Character, CharacterLink, Exchange, ResourcePool, WaitRow, table_of
from bot.services.snapshots import _CHARACTERS_READ
from tests.databases import BACKENDS, migrated_database

Way = Callable[[AsyncSession, int], Awaitable[object]]
NOW = datetime(2026, 12, 1, tzinfo=UTC)
POOL_NAMES = ("hp", "prana", "fate", "fatigue", "seals")
WARMUP = 50

_POOLS = table_of(ResourcePool)
_WAITS = table_of(WaitRow)
_EXCHANGES = table_of(Exchange)
_LINKS = table_of(CharacterLink)


async def _scene(session: AsyncSession) -> tuple[int, list[int], Exchange]:
    """A campaign with two characters of five pools each, a third bound to the first, and one exchange: the
    campaign's and the two characters' ids, and the exchange."""
    campaign = Campaign(guild_id=1, channel_id=1, name="Bench", ruleset="fate_points", created_at=NOW)
    session.add(campaign)
    await session.flush()
    characters = [
        Character(campaign_id=campaign.id, owner_id=owner, name=f"C{owner}", kind="servant", sheet={}, created_at=NOW)
        for owner in (1, 2, 3)
    ]
    session.add_all(characters)
    await session.flush()
    session.add(
        CharacterLink(
            campaign_id=campaign.id, character_id=characters[0].id, target_id=characters[2].id, relation="master"
        )
    )
    for character in characters:
        session.add_all(
            ResourcePool(character_id=character.id, name=name, current=3, maximum=None, minimum=0)
            for name in POOL_NAMES
        )
    exchange = Exchange(campaign_id=campaign.id, kind="bench", channel_id=1, created_at=NOW)
    session.add(exchange)
    await session.flush()
    return campaign.id, [character.id for character in characters[:2]], exchange


def _pairs(campaign_id: int, character_ids: list[int], exchange: Exchange) -> dict[str, tuple[Way, Way]]:
    exchange_id = exchange.id
    model_delta = (
        update(ResourcePool)
        .where(ResourcePool.id == bindparam("pool_id"))
        .values(current=ResourcePool.current + bindparam("delta", type_=Integer))
        .returning(ResourcePool.current, ResourcePool.maximum)
        .execution_options(synchronize_session=False)
    )
    table_delta = (
        update(_POOLS)
        .where(_POOLS.c.id == bindparam("pool_id"))
        .values(current=_POOLS.c.current + bindparam("delta", type_=Integer))
        .returning(_POOLS.c.current, _POOLS.c.maximum)
    )
    pool_objects = (
        select(ResourcePool)
        .where(ResourcePool.character_id.in_(bindparam("ids")))
        .order_by(ResourcePool.id)
        .execution_options(populate_existing=True)
    )
    pool_values = (
        select(_POOLS.c.id, _POOLS.c.character_id, _POOLS.c.name, _POOLS.c.current, _POOLS.c.maximum)
        .where(_POOLS.c.character_id.in_(bindparam("ids")))
        .order_by(_POOLS.c.id)
    )
    link = _LINKS.c
    other_end = case((link.character_id.in_(bindparam("bound_ids")), link.target_id), else_=link.character_id)
    links_then = (
        select(link.character_id, link.target_id, link.relation, Character)
        .join(Character, Character.id == other_end)
        .where(link.character_id.in_(bindparam("ids")) | link.target_id.in_(bindparam("target_ids")))
        .order_by(link.id)
    )
    every_pool = (
        select(*(_POOLS.c[name] for name in ("id", "character_id", "name", "current", "maximum", "minimum")))
        .where(_POOLS.c.character_id.in_(bindparam("ids")))
        .order_by(_POOLS.c.id)
    )
    store_exchange = insert(_EXCHANGES).returning(_EXCHANGES.c.id)
    open_waits = insert(_WAITS).returning(_WAITS.c.id, sort_by_parameter_order=True)
    progress = (
        update(_EXCHANGES)
        .where(_EXCHANGES.c.id == bindparam("exchange_id"))
        .values(handler=bindparam("new_handler"), state=bindparam("new_state"), step=bindparam("new_step"))
    )

    def exchange_values() -> dict[str, Any]:
        return {
            "campaign_id": campaign_id,
            "kind": "bench.attack",
            "title": {"key": "bench.title", "params": {"who": "C1"}},
            "handler": "bench.defend",
            "state": {"attacker": "C1", "rolls": [12, 20]},
            "step": 1,
            "status": "open",
            "channel_id": 1,
            "created_by": 1,
            "created_at": NOW,
            "closed_at": None,
        }

    def wait_values() -> list[dict[str, Any]]:
        spec = {"key": "defend", "options": [{"key": key, "label": {"key": f"bench.{key}"}} for key in "abcd"]}
        return [
            {
                "exchange_id": exchange_id,
                "campaign_id": campaign_id,
                "step": 1,
                "key": "defend",
                "spec": spec,
                "audience_ids": [owner],
                "subject": f"C{owner}",
                "status": "pending",
                "deadline_at": None,
                "answer": None,
                "channel_id": 1,
                "message_id": None,
                "created_at": NOW,
                "resolved_at": None,
                "failures": 0,
                "error_id": None,
            }
            for owner in (1, 2)
        ]

    async def delta_on_model(session: AsyncSession, _: int) -> object:
        return (await session.execute(model_delta, {"pool_id": 1, "delta": 0})).one()

    async def delta_on_table(session: AsyncSession, _: int) -> object:
        return (await session.execute(table_delta, {"pool_id": 1, "delta": 0})).one()

    async def pools_as_objects(session: AsyncSession, _: int) -> object:
        return list(await session.scalars(pool_objects, {"ids": character_ids}))

    async def pools_as_values(session: AsyncSession, _: int) -> object:
        return (await session.execute(pool_values, {"ids": character_ids})).all()

    async def links_then_pools(session: AsyncSession, _: int) -> object:
        every_end = {"ids": character_ids, "target_ids": character_ids, "bound_ids": character_ids}
        links = (await session.execute(links_then, every_end)).all()
        involved = {*character_ids, *(end.id for *_, end in links)}
        return links, (await session.execute(every_pool, {"ids": list(involved)})).all()

    async def links_and_pools(session: AsyncSession, _: int) -> object:
        return (await session.execute(_CHARACTERS_READ[True], {"ids": character_ids})).all()

    async def exchange_flushed(session: AsyncSession, _: int) -> object:
        exchange = Exchange(**exchange_values())
        session.add(exchange)
        await session.flush()
        return exchange.id

    async def exchange_by_core(session: AsyncSession, _: int) -> object:
        values = exchange_values()
        exchange = Exchange(id=(await session.execute(store_exchange, values)).scalar_one(), **values)
        make_transient_to_detached(exchange)
        session.add(exchange)
        return exchange.id

    async def waits_flushed(session: AsyncSession, _: int) -> object:
        rows = [WaitRow(**values) for values in wait_values()]
        session.add_all(rows)
        await session.flush()
        return [row.id for row in rows]

    async def waits_by_core(session: AsyncSession, _: int) -> object:
        values = wait_values()
        ids = (await session.execute(open_waits, values)).scalars()
        return [WaitRow(id=wait_id, **row) for wait_id, row in zip(ids, values, strict=True)]

    async def progress_flushed(session: AsyncSession, round_number: int) -> object:
        exchange.handler, exchange.state, exchange.step = f"step{round_number}", {"round": round_number}, round_number
        await session.flush()
        return exchange

    async def progress_by_core(session: AsyncSession, round_number: int) -> object:
        changes = {"handler": f"step{round_number}", "state": {"round": round_number}, "step": round_number}
        await session.execute(progress, {"exchange_id": exchange_id, **{f"new_{k}": v for k, v in changes.items()}})
        for name, value in changes.items():
            set_committed_value(exchange, name, value)
        return exchange

    return {
        "a pool's UPDATE ... RETURNING (model / table)": (delta_on_model, delta_on_table),
        "two characters' pools (objects / values)": (pools_as_objects, pools_as_values),
        "two characters and a partner (two / one statement)": (links_then_pools, links_and_pools),
        "an exchange stored (flush / Core)": (exchange_flushed, exchange_by_core),
        "a step's two waits stored (flush / one INSERT)": (waits_flushed, waits_by_core),
        "an exchange's progress (flush / Core)": (progress_flushed, progress_by_core),
    }


async def _timed(session: AsyncSession, way: Way, round_number: int) -> float:
    started = time.perf_counter()
    await way(session, round_number)
    return time.perf_counter() - started


async def run(backend: str, rounds: int, directory: Path) -> None:
    async with migrated_database(backend, directory) as database, database.write() as session:
        pairs = _pairs(*await _scene(session))
        print(f"\n{backend}: microseconds per statement, median of {rounds} rounds, the two ways alternating")
        print(f"{'':50s} {'before':>8s} {'now':>8s} {'ratio':>7s}")
        for label, (before, after) in pairs.items():
            for round_number in range(WARMUP):
                await before(session, round_number)
                await after(session, round_number)
            timings: tuple[list[float], list[float]] = ([], [])
            for round_number in range(rounds):
                timings[0].append(await _timed(session, before, round_number))
                timings[1].append(await _timed(session, after, round_number))
            was, now = (1e6 * statistics.median(taken) for taken in timings)
            print(f"{label:50s} {was:8.1f} {now:8.1f} {now / was:6.2f}x")
        await session.rollback()


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as directory:
        for backend in BACKENDS:
            asyncio.run(run(backend, rounds, Path(directory)))


if __name__ == "__main__":
    main()
