"""State changes that must never lose or double an update under concurrency."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import PENDING, Campaign, PendingAction, ResourcePool


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


async def lock_campaign(session: AsyncSession, campaign_id: int) -> Campaign | None:
    """Serialize the campaign's changes for the rest of the transaction.

    PostgreSQL locks the row; SQLite renders no FOR UPDATE, but its write transactions already
    began IMMEDIATE and hold the database's write lock.
    """
    result = await session.execute(
        select(Campaign).where(Campaign.id == campaign_id).with_for_update().execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def apply_pool_delta(session: AsyncSession, pool_id: int, delta: int, *, clamp: bool = False) -> PoolChange:
    """Add `delta` to a pool in one conditional UPDATE ... RETURNING.

    Strict (the default): refused with PoolLimitError when the result would leave the pool's range.
    Clamped: the result is held inside the range (healing past the maximum, damage past zero).
    """
    new_value: Any = ResourcePool.current + delta
    statement = update(ResourcePool).where(ResourcePool.id == pool_id)
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
    result = await session.execute(
        statement.values(current=new_value)
        .returning(ResourcePool.current, ResourcePool.maximum)
        .execution_options(synchronize_session=False)
    )
    row = result.one_or_none()
    if row is None:
        raise PoolLimitError(pool_id, delta)
    return PoolChange(pool_id, row.current, row.maximum)


async def resolve_pending(session: AsyncSession, pending_id: int, status: str, resolution: dict[str, Any]) -> bool:
    """Move a pending action out of 'pending'; True for exactly one caller however many race."""
    result = await session.execute(
        update(PendingAction)
        .where(PendingAction.id == pending_id, PendingAction.status == PENDING)
        .values(status=status, resolution=resolution, resolved_at=datetime.now(UTC))
        .returning(PendingAction.id)
        .execution_options(synchronize_session=False)
    )
    return result.one_or_none() is not None
