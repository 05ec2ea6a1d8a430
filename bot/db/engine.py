"""The engine factory and units of work.

SQLite serializes writers itself: a write transaction begins IMMEDIATE, so two commands never
read the same state and both write. PostgreSQL serializes a campaign's changes with
`SELECT ... FOR UPDATE` on the campaign row (see `atomic.lock_campaign`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

# Well under Discord's 3-second limit for answering an interaction: a command that waits this long for a
# lock, or runs a statement this long, gives up, changes nothing and says the campaign is busy.
SQLITE_BUSY_TIMEOUT_MS = 2000
POSTGRES_LOCK_TIMEOUT_MS = 2000
POSTGRES_STATEMENT_TIMEOUT_MS = 2500
# PostgreSQL's codes for "lock not available" and "statement timeout".
_BUSY_SQLSTATES = frozenset({"55P03", "57014"})
_BEGIN_MODE = "fatebot_begin"
# Set once a write transaction of the current command has committed: an error after it must not say that
# nothing changed. Each interaction runs in a task of its own, with its own copy of this.
COMMITTED: ContextVar[bool] = ContextVar("committed", default=False)


class Busy(Exception):
    """The database stayed locked past the timeouts; the transaction was rolled back."""


def is_busy(error: DBAPIError) -> bool:
    """A lock wait or statement that ran out of time (PostgreSQL), or a database still locked (SQLite)."""
    original = error.orig
    codes = {getattr(original, "sqlstate", None), getattr(getattr(original, "__cause__", None), "sqlstate", None)}
    return bool(codes & _BUSY_SQLSTATES) or "database is locked" in str(original)


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def create_engine(url: str, *, foreign_keys: bool = True, **kwargs: Any) -> AsyncEngine:
    """An engine for `url`; on SQLite, `foreign_keys` False is for migrations only (see `migrate.upgrade`)."""
    if make_url(url).get_backend_name() == "postgresql":
        settings = {
            "lock_timeout": str(POSTGRES_LOCK_TIMEOUT_MS),
            "statement_timeout": str(POSTGRES_STATEMENT_TIMEOUT_MS),
        }
        kwargs.setdefault("connect_args", {}).setdefault("server_settings", settings)
    engine = create_async_engine(url, **kwargs)
    if is_sqlite(engine):
        _configure_sqlite(engine, foreign_keys)
    return engine


def _configure_sqlite(engine: AsyncEngine, foreign_keys: bool) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the driver so that BEGIN is ours to emit (IMMEDIATE for writes).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(_BEGIN_MODE, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """Owns the engine; hands out one session per unit of work."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._reader = async_sessionmaker(engine, expire_on_commit=False)
        self._writer = async_sessionmaker(
            engine.execution_options(**{_BEGIN_MODE: "IMMEDIATE"}), expire_on_commit=False
        )

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(create_engine(url))

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One transaction that changes state: commits on success, rolls back on any error (`Busy` when the
        database stayed locked)."""
        try:
            async with self._writer() as session, session.begin():
                yield session
        except DBAPIError as error:
            if is_busy(error):
                raise Busy from error
            raise
        COMMITTED.set(True)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        try:
            async with self._reader() as session, session.begin():
                yield session
        except DBAPIError as error:
            if is_busy(error):
                raise Busy from error
            raise

    async def dispose(self) -> None:
        await self.engine.dispose()
