"""What a campaign's database holds against what its log says: the account every fault and crash test checks.

Every pool must equal its value at a baseline plus the changes the log says were applied to it since (a step's
pool deltas, named by the roles of their stored exchange, and a GM's awards); every wait answered or expired
must have exactly one event of its own saying so, and every other wait none; one step of an exchange is resumed
by one answer at most (its other waits are superseded); and an exchange still open must still wait for someone.
Each wait is held to its own events, not the waits' total to the events' total: an answer applied and logged
twice would otherwise pass beside another wait whose event went missing, and one applied again through a
superseded wait of the same step has an event of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Row, select

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

RESOLVED = (ANSWERED, EXPIRED)
RESOLUTION_EVENTS = ("wait.answered", "wait.expired")
# A wait as the ledger reads it: its id, exchange, step, status, key and subject.
WaitLine = Row[int, int, int, str, str, str | None]


@dataclass(frozen=True)
class Ledger:
    """What the database holds: each pool's value, and what the log says happened to pools and waits."""

    pools: dict[tuple[str, str], int]
    # Since the baseline the ledger was read against.
    logged_changes: Counter[tuple[str, str]]
    resolved_waits: int
    # Each wait resolved with other than one event of its own, or not resolved but with one; each event for a
    # wait the campaign does not have; each step of an exchange that several answers resumed.
    misaccounted: tuple[str, ...]
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
                    select(
                        WaitRow.id, WaitRow.exchange_id, WaitRow.step, WaitRow.status, WaitRow.key, WaitRow.subject
                    ).where(WaitRow.campaign_id == campaign_id)
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
    waiting = {wait.exchange_id for wait in waits if wait.status == PENDING}
    resolutions = Counter(event.payload["wait_id"] for event in events if event.kind in RESOLUTION_EVENTS)
    return Ledger(
        pools,
        changes,
        resolved_waits=sum(wait.status in RESOLVED for wait in waits),
        misaccounted=_misaccounted(waits, resolutions),
        pending_waits=sum(wait.status == PENDING for wait in waits),
        pending=tuple(f"{wait.key} ({wait.subject})" for wait in waits if wait.status == PENDING),
        stuck_exchanges=len(open_exchanges - waiting),
        rolls=sum(event.kind == "roll" for event in events),
        last_event=max(event.id for event in events),
    )


def _misaccounted(waits: Sequence[WaitLine], resolutions: Counter[int]) -> tuple[str, ...]:
    found = [
        f"wait #{wait.id} {wait.key} ({wait.subject}), {wait.status}: {resolutions[wait.id]} events"
        for wait in waits
        if resolutions[wait.id] != int(wait.status in RESOLVED)
    ]
    strangers = resolutions.keys() - {wait.id for wait in waits}
    found += [f"events for wait #{wait_id}, not the campaign's" for wait_id in sorted(strangers)]
    answers = Counter((wait.exchange_id, wait.step) for wait in waits if wait.status in RESOLVED)
    found += [f"exchange #{exchange} step {step}: {count} answers" for (exchange, step), count in answers.items()
              if count > 1]  # fmt: skip
    return tuple(found)


def assert_accounts_for(baseline: Ledger, now: Ledger) -> None:
    """`now` (read since `baseline`) holds nothing the log does not account for, and lost nothing it does."""
    assert now.pools.keys() == baseline.pools.keys()
    for key, value in now.pools.items():
        assert value == baseline.pools[key] + now.logged_changes[key], (key, value, baseline.pools[key])
    assert now.misaccounted == ()
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
