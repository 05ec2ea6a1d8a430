"""What a campaign's database holds against what its log says: the account every fault and crash test checks.

Every pool must equal its value at a baseline plus the changes the log says were applied to it since (a step's
pool deltas, named by the roles of their stored exchange, and a GM's awards); every wait answered or expired
must have exactly one event saying so; and an exchange still open must still wait for someone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import (
    ANSWERED,
    EXCHANGE_OPEN,
    EXPIRED,
    PENDING,
    Campaign,
    Character,
    Event,
    Exchange,
    ExchangeRole,
    ResourcePool,
    WaitRow,
)  # fmt: skip
from rules.exchange import member


@dataclass(frozen=True)
class Ledger:
    """What the database holds: each pool's value, and what the log says happened to pools and waits."""

    pools: dict[tuple[str, str], int]
    # Since the baseline the ledger was read against.
    logged_changes: Counter[tuple[str, str]]
    resolved_waits: int
    logged_resolutions: int
    pending_waits: int
    # Each wait still pending, as "key (subject)", for a failure to show.
    pending: tuple[str, ...]
    # Open exchanges with no wait pending: a step applied without its pause, or a pause without its waits.
    stuck_exchanges: int
    rolls: int
    last_event: int


async def read_ledger(database_url: str, campaign_id: int, *, since_event: int = 0) -> Ledger:
    database = Database.from_url(database_url)
    try:
        async with database.read() as session:
            rows = await session.execute(
                select(Character.id, Character.name).where(Character.campaign_id == campaign_id)
            )
            names: dict[int, str] = dict(rows.all())
            pools = {
                (names[character_id], pool): current
                for character_id, pool, current in await session.execute(
                    select(ResourcePool.character_id, ResourcePool.name, ResourcePool.current).where(
                        ResourcePool.character_id.in_(names)
                    )
                )
            }
            events = list(await session.scalars(select(Event).where(Event.campaign_id == campaign_id)))
            roles: dict[int, dict[str, str]] = {}
            for exchange_id, role, position, character_id in await session.execute(
                select(
                    ExchangeRole.exchange_id, ExchangeRole.role, ExchangeRole.position, ExchangeRole.character_id
                ).where(ExchangeRole.character_id.in_(names))
            ):
                if character_id is not None:
                    roles.setdefault(exchange_id, {})[member(role, position)] = names[character_id]
            waits = (
                await session.execute(
                    select(WaitRow.exchange_id, WaitRow.status, WaitRow.key, WaitRow.subject).where(
                        WaitRow.campaign_id == campaign_id
                    )
                )
            ).all()
            open_exchanges = set(
                await session.scalars(
                    select(Exchange.id).where(Exchange.campaign_id == campaign_id, Exchange.status == EXCHANGE_OPEN)
                )
            )
    finally:
        await database.dispose()
    changes: Counter[tuple[str, str]] = Counter()
    for event in events:
        if event.id <= since_event:
            continue
        if event.kind == "gm.award":
            changes[(event.payload["name"], event.payload["resource"])] += event.payload["applied"]
        for effect in event.payload.get("effects", ()):
            assert effect["type"] not in ("pool_set", "pool_maximum"), f"a scene for deltas only set {effect}"
            if effect["type"] == "pool_delta":
                # Each pool change the log shows names its character by a role of a stored exchange; one held at
                # the pool's bound says what it applied.
                who = roles[event.payload["exchange"]][effect["who"]]
                changes[(who, effect["pool"])] += effect.get("applied", effect["delta"])
    waiting = {exchange_id for exchange_id, status, _, _ in waits if status == PENDING}
    return Ledger(
        pools,
        changes,
        resolved_waits=sum(status in (ANSWERED, EXPIRED) for _, status, _, _ in waits),
        logged_resolutions=sum(event.kind in ("wait.answered", "wait.expired") for event in events),
        pending_waits=sum(status == PENDING for _, status, _, _ in waits),
        pending=tuple(f"{key} ({subject})" for _, status, key, subject in waits if status == PENDING),
        stuck_exchanges=len(open_exchanges - waiting),
        rolls=sum(event.kind == "roll" for event in events),
        last_event=max(event.id for event in events),
    )


def assert_accounts_for(baseline: Ledger, now: Ledger) -> None:
    """`now` (read since `baseline`) holds nothing the log does not account for, and lost nothing it does."""
    assert now.pools.keys() == baseline.pools.keys()
    for key, value in now.pools.items():
        assert value == baseline.pools[key] + now.logged_changes[key], (key, value, baseline.pools[key])
    assert now.resolved_waits == now.logged_resolutions
    assert now.stuck_exchanges == 0


async def campaign_in(database_url: str, channel_id: int) -> int:
    """The id of the campaign a channel holds (the tests read its ledger by it)."""
    database = Database.from_url(database_url)
    try:
        async with database.read() as session:
            campaign_id = await session.scalar(select(Campaign.id).where(Campaign.channel_id == channel_id))
    finally:
        await database.dispose()
    assert campaign_id is not None
    return campaign_id
