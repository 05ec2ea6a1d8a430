"""State changes that must never lose or double an update under concurrency."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, Row, Select, Update, bindparam, case, null, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import PENDING, Campaign, ResourcePool, WaitRow


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


async def lock_campaign_of_wait(session: AsyncSession, wait_id: int) -> Campaign | None:
    """`lock_campaign` for the campaign of a wait, found and locked in one statement."""
    return (await session.execute(_LOCK_CAMPAIGN_OF_WAIT, {"wait_id": wait_id})).scalar_one_or_none()


def _pool_delta(*, clamp: bool) -> Update:
    new_value: Any = ResourcePool.current + bindparam("delta", type_=Integer)
    statement = update(ResourcePool).where(ResourcePool.id == bindparam("pool_id"))
    if clamp:
        floored = case((new_value < ResourcePool.minimum, ResourcePool.minimum), else_=new_value)
        new_value = case(
            (ResourcePool.maximum.is_not(None) & (floored > ResourcePool.maximum), ResourcePool.maximum),
            else_=floored,
        )
    else:
        statement = statement.where(
            new_value >= ResourcePool.minimum,
            ResourcePool.maximum.is_(None) | (new_value <= ResourcePool.maximum),
        )
    return (
        statement.values(current=new_value)
        .returning(ResourcePool.current, ResourcePool.maximum)
        .execution_options(synchronize_session=False)
    )


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
    columns = WaitRow.__table__.c
    return (
        update(WaitRow)
        .where(*which, WaitRow.status == PENDING)
        .values(
            status=bindparam("new_status", type_=columns.status.type),
            answer=bindparam("new_answer", type_=columns.answer.type),
            resolved_at=bindparam("moved_at", type_=columns.resolved_at.type),
        )
        .execution_options(synchronize_session=False)
    )


_RESOLVE_WAIT = _waits_moved(WaitRow.id == bindparam("wait_id")).returning(WaitRow.id)


def _step_settled() -> Update:
    """The answered wait and its siblings, the other waits of its exchange's step still pending, moved in one
    statement: the answered one to its status with its answer, the others to the siblings' status."""
    columns = WaitRow.__table__.c
    answered = WaitRow.id == bindparam("wait_id")
    return (
        update(WaitRow)
        .where(
            WaitRow.exchange_id == bindparam("of_exchange"),
            WaitRow.step == bindparam("at_step"),
            WaitRow.status == PENDING,
        )
        .values(
            status=case(
                (answered, bindparam("new_status", type_=columns.status.type)),
                else_=bindparam("siblings_status", type_=columns.status.type),
            ),
            answer=case((answered, bindparam("new_answer", type_=columns.answer.type)), else_=null()),
            resolved_at=bindparam("moved_at", type_=columns.resolved_at.type),
        )
        .returning(WaitRow.id, WaitRow.channel_id, WaitRow.message_id, WaitRow.spec)
        .execution_options(synchronize_session=False)
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
    result = await session.execute(
        update(WaitRow)
        .where(WaitRow.id == wait_id, WaitRow.status == PENDING)
        .values(failures=WaitRow.failures + 1, error_id=error_id)
        .returning(WaitRow.failures)
        .execution_options(synchronize_session=False)
    )
    return result.scalar_one_or_none()


async def set_pool(session: AsyncSession, pool_id: int, value: int) -> PoolChange:
    """Set a pool's current value, held within its range, in one UPDATE ... RETURNING."""
    floored = case((ResourcePool.minimum > value, ResourcePool.minimum), else_=value)
    held = case(
        (ResourcePool.maximum.is_not(None) & (floored > ResourcePool.maximum), ResourcePool.maximum), else_=floored
    )
    result = await session.execute(
        update(ResourcePool)
        .where(ResourcePool.id == pool_id)
        .values(current=held)
        .returning(ResourcePool.current, ResourcePool.maximum)
        .execution_options(synchronize_session=False)
    )
    row = result.one()
    return PoolChange(pool_id, row.current, row.maximum)


async def set_pool_maximum(session: AsyncSession, pool_id: int, maximum: int | None) -> PoolChange:
    """Give a pool a new maximum; a current value above it comes down to it, in the same statement."""
    current: Any = ResourcePool.current
    if maximum is not None:
        current = case((ResourcePool.current > maximum, maximum), else_=ResourcePool.current)
    result = await session.execute(
        update(ResourcePool)
        .where(ResourcePool.id == pool_id)
        .values(maximum=maximum, current=current)
        .returning(ResourcePool.current, ResourcePool.maximum)
        .execution_options(synchronize_session=False)
    )
    row = result.one()
    return PoolChange(pool_id, row.current, row.maximum)
