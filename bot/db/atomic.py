"""State changes that must never lose or double an update under concurrency."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, Row, Select, Update, bindparam, case, null, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import PENDING, Campaign, ResourcePool, WaitRow, table_of

_POOLS = table_of(ResourcePool)
_WAITS = table_of(WaitRow)


class PoolLimitError(Exception):
    """The delta would take the pool out of its [minimum, maximum] range; nothing changed."""

    def __init__(self, pool_id: int, delta: int) -> None:
        super().__init__(f"pool {pool_id} cannot change by {delta}")
        self.pool_id = pool_id
        self.delta = delta


@dataclass(frozen=True)
class PoolChange:
    pool_id: int
    current: int
    maximum: int | None


# The statements of the hot path are built once, with their values as parameters: building a statement and its
# cache key costs about as much as running it on SQLite.
def _campaign_locked(campaign_id: Any, *, skip_locked: bool) -> Select[Campaign]:
    return (
        select(Campaign)
        .where(Campaign.id == campaign_id)
        .with_for_update(key_share=True, skip_locked=skip_locked)
        .execution_options(populate_existing=True)
    )


_LOCK_CAMPAIGN = {
    skip_locked: _campaign_locked(bindparam("campaign_id"), skip_locked=skip_locked) for skip_locked in (False, True)
}
_LOCK_CAMPAIGN_OF_WAIT = _campaign_locked(
    select(WaitRow.campaign_id).where(WaitRow.id == bindparam("wait_id")).scalar_subquery(), skip_locked=False
)


async def lock_campaign(session: AsyncSession, campaign_id: int, *, skip_locked: bool = False) -> Campaign | None:
    """Serialize the campaign's changes for the rest of the transaction.

    PostgreSQL locks the row (FOR NO KEY UPDATE: writers of the campaign queue, while rows that merely refer
    to it, such as a roll's event, go in without waiting); SQLite renders no FOR UPDATE, but its write
    transactions already began IMMEDIATE and hold the database's write lock. `skip_locked`: None at once,
    rather than a wait, when another transaction holds the campaign (PostgreSQL).
    """
    result = await session.execute(_LOCK_CAMPAIGN[skip_locked], {"campaign_id": campaign_id})
    return result.scalar_one_or_none()


def lock_holds_joined_rows(session: AsyncSession) -> bool:
    """Whether the rows a statement that locks the campaign joins to it are read as they stand once it is locked.
    On SQLite they are: its write transaction holds the whole database from its BEGIN. PostgreSQL locks the one
    row, and a statement that had to wait for it still sees every other row it joins as it stood before the wait
    (only the locked row is read again), so what must be current is read by a statement of its own after. Asked
    only in write transactions, where SQLite's began IMMEDIATE (`Database.write`)."""
    bind = session.bind
    return bind is not None and bind.dialect.name == "sqlite"


async def lock_campaign_of_wait(session: AsyncSession, wait_id: int) -> Campaign | None:
    """`lock_campaign` for the campaign of a wait, found and locked in one statement."""
    return (await session.execute(_LOCK_CAMPAIGN_OF_WAIT, {"wait_id": wait_id})).scalar_one_or_none()


def _pool_delta(*, clamp: bool) -> Update:
    pool = _POOLS.c
    new_value: Any = pool.current + bindparam("delta", type_=Integer)
    statement = update(_POOLS).where(pool.id == bindparam("pool_id"))
    if clamp:
        floored = case((new_value < pool.minimum, pool.minimum), else_=new_value)
        new_value = case((pool.maximum.is_not(None) & (floored > pool.maximum), pool.maximum), else_=floored)
    else:
        statement = statement.where(new_value >= pool.minimum, pool.maximum.is_(None) | (new_value <= pool.maximum))
    return statement.values(current=new_value).returning(pool.current, pool.maximum)


_POOL_DELTA = {clamp: _pool_delta(clamp=clamp) for clamp in (False, True)}


async def apply_pool_delta(session: AsyncSession, pool_id: int, delta: int, *, clamp: bool = False) -> PoolChange:
    """Add `delta` to a pool in one conditional UPDATE ... RETURNING.

    Strict (the default): refused with PoolLimitError when the result would leave the pool's range.
    Clamped: the result is held inside the range (healing past the maximum, damage past zero).
    """
    result = await session.execute(_POOL_DELTA[clamp], {"pool_id": pool_id, "delta": delta})
    row = result.one_or_none()
    if row is None:
        raise PoolLimitError(pool_id, delta)
    return PoolChange(pool_id, row.current, row.maximum)


def _waits_moved(*which: ColumnElement[bool]) -> Update:
    """Pending waits moved to a status, with an answer, at a moment (the parameters `new_status`, `new_answer`,
    `moved_at`)."""
    columns = _WAITS.c
    return (
        update(_WAITS)
        .where(*which, columns.status == PENDING)
        .values(
            status=bindparam("new_status", type_=columns.status.type),
            answer=bindparam("new_answer", type_=columns.answer.type),
            resolved_at=bindparam("moved_at", type_=columns.resolved_at.type),
        )
    )


_RESOLVE_WAIT = _waits_moved(_WAITS.c.id == bindparam("wait_id")).returning(_WAITS.c.id)


def _step_settled() -> Update:
    """The answered wait and its siblings, the other waits of its exchange's step still pending, moved in one
    statement: the answered one to its status with its answer, the others to the siblings' status."""
    columns = _WAITS.c
    answered = columns.id == bindparam("wait_id")
    return (
        update(_WAITS)
        .where(
            columns.exchange_id == bindparam("of_exchange"),
            columns.step == bindparam("at_step"),
            columns.status == PENDING,
        )
        .values(
            status=case(
                (answered, bindparam("new_status", type_=columns.status.type)),
                else_=bindparam("siblings_status", type_=columns.status.type),
            ),
            answer=case((answered, bindparam("new_answer", type_=columns.answer.type)), else_=null()),
            resolved_at=bindparam("moved_at", type_=columns.resolved_at.type),
        )
        .returning(columns.id, columns.channel_id, columns.message_id, columns.spec)
    )


_SETTLE_STEP = _step_settled()


async def resolve_wait(
    session: AsyncSession, wait_id: int, status: str, answer: dict[str, Any] | None, now: datetime
) -> bool:
    """Move a wait out of 'pending'; True for exactly one caller however many race."""
    moved = {"wait_id": wait_id, "new_status": status, "new_answer": answer, "moved_at": now}
    return (await session.execute(_RESOLVE_WAIT, moved)).one_or_none() is not None


async def answer_wait(
    session: AsyncSession,
    wait: WaitRow,
    status: str,
    answer: dict[str, Any] | None,
    siblings_status: str,
    now: datetime,
) -> Sequence[Row[int, int, int | None, dict[str, Any]]] | None:
    """Move a wait out of 'pending' with its answer and every other wait of its exchange's step still pending to
    `siblings_status`, in one UPDATE ... RETURNING: the id, channel, message and question of each sibling moved;
    None when the wait was no longer pending (one caller gets the wait however many race; the caller that gets
    None must roll back the siblings it moved)."""
    moved = {
        "wait_id": wait.id,
        "of_exchange": wait.exchange_id,
        "at_step": wait.step,
        "new_status": status,
        "siblings_status": siblings_status,
        "new_answer": answer,
        "moved_at": now,
    }
    rows = sorted((await session.execute(_SETTLE_STEP, moved)).all(), key=lambda row: row[0])
    if not any(row[0] == wait.id for row in rows):
        return None
    return [row for row in rows if row[0] != wait.id]


async def count_wait_failure(session: AsyncSession, wait_id: int, error_id: str) -> int | None:
    """Count one more failure against a pending wait, under this error id, in one UPDATE ... RETURNING: its
    failures now, or None when it is no longer pending."""
    wait = _WAITS.c
    result = await session.execute(
        update(_WAITS)
        .where(wait.id == wait_id, wait.status == PENDING)
        .values(failures=wait.failures + 1, error_id=error_id)
        .returning(wait.failures)
    )
    failures: int | None = result.scalar_one_or_none()
    return failures


async def set_pool(session: AsyncSession, pool_id: int, value: int) -> PoolChange:
    """Set a pool's current value, held within its range, in one UPDATE ... RETURNING."""
    pool = _POOLS.c
    floored = case((pool.minimum > value, pool.minimum), else_=value)
    held = case((pool.maximum.is_not(None) & (floored > pool.maximum), pool.maximum), else_=floored)
    result = await session.execute(
        update(_POOLS).where(pool.id == pool_id).values(current=held).returning(pool.current, pool.maximum)
    )
    row = result.one()
    return PoolChange(pool_id, row.current, row.maximum)


async def set_pool_maximum(session: AsyncSession, pool_id: int, maximum: int | None) -> PoolChange:
    """Give a pool a new maximum; a current value above it comes down to it, in the same statement."""
    pool = _POOLS.c
    current: Any = pool.current
    if maximum is not None:
        current = case((pool.current > maximum, maximum), else_=pool.current)
    result = await session.execute(
        update(_POOLS)
        .where(pool.id == pool_id)
        .values(maximum=maximum, current=current)
        .returning(pool.current, pool.maximum)
    )
    row = result.one()
    return PoolChange(pool_id, row.current, row.maximum)
