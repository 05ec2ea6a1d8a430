"""A write transaction's events, held until it commits and inserted then in one statement.

An event added to the session goes in with the flush that the transaction's next read brings: an exchange move
that logs an answer, reads its scene, then logs its step paid one INSERT for each event. Held in the session,
they go in together, in the order recorded, just before the commit. A read of the log in the same transaction
inserts them first, so it sees them as it always did; rolled back, they are dropped with the rest. Inside a
savepoint (begun with `savepoint`, which inserts those held first) an event is added to the session as before,
so that the savepoint's rollback takes it back.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final, cast

from sqlalchemy import Table, event, insert
from sqlalchemy.ext.asyncio import AsyncSession, AsyncSessionTransaction
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.util import find_tables

from bot.db.models import Event

HELD: Final = "held_events"
_EVENTS: Final = cast(Table, Event.__table__)


class WriteSession(Session):
    """The session of a write transaction: the events recorded in it are held until it commits (`hold`)."""


def hold(session: Session, row: dict[str, Any]) -> None:
    """Record an event (an `events` row without its id) in the transaction."""
    if not isinstance(session, WriteSession) or session.in_nested_transaction():
        if session.info.get(HELD):  # they would go in after this one, or with a savepoint rolled back
            raise RuntimeError("a savepoint began with events held: begin it with `savepoint`")
        session.add(Event(**row))
        return
    session.info.setdefault(HELD, []).append(row)


@asynccontextmanager
async def savepoint(session: AsyncSession) -> AsyncIterator[AsyncSessionTransaction]:
    """`session.begin_nested()`, the events held so far inserted first: the savepoint's rollback must not take
    them back, and the events recorded in it must come after them."""
    await session.run_sync(_insert_held)
    async with session.begin_nested() as nested:
        yield nested


def _insert_held(session: Session) -> None:
    rows = session.info.pop(HELD, None)
    if rows:
        session.execute(insert(_EVENTS), rows)


@event.listens_for(WriteSession, "before_commit")
def _before_commit(session: Session) -> None:
    _insert_held(session)


@event.listens_for(WriteSession, "do_orm_execute")
def _before_reading_the_log(state: ORMExecuteState) -> None:
    if state.session.info.get(HELD) and state.is_select and _reads_the_log(state.statement):
        _insert_held(state.session)


# By the statement: most of a move's statements are built once, and walking one costs as much as running it.
@functools.lru_cache(maxsize=512)
def _reads_the_log(statement: object) -> bool:
    return isinstance(statement, ClauseElement) and _EVENTS in find_tables(statement)


@event.listens_for(WriteSession, "after_transaction_end")
def _after_transaction(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # committed (inserted already) or rolled back: none is left for the next
        session.info.pop(HELD, None)
