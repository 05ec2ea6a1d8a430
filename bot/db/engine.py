"""The engine factory and units of work.

SQLite runs through `inline_sqlite`, on the event loop's own thread. SQLite serializes writers itself: a
write transaction begins IMMEDIATE, so two commands never read the same state and both write. Within the
process, writers also queue for their turn on an asyncio lock, first come first served, so they never find
the database locked by each other. PostgreSQL serializes a campaign's changes with `SELECT ... FOR UPDATE`
on the campaign row (see `atomic.lock_campaign`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from sqlalchemy import Executable, Table, event, insert, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import PoolProxiedConnection, StaticPool

from bot.db import inline_sqlite
from bot.db.checkpoint import WalCheckpointer
from bot.db.directory import CampaignDirectory
from bot.db.held_events import WriteSession
from bot.db.in_use import Hold

# Well under Discord's 3-second limit for answering an interaction: a command that waits this long for a
# lock, or runs a statement this long, gives up, changes nothing and says the campaign is busy.
SQLITE_BUSY_TIMEOUT_MS = 2000
# Waiting in this process's queue for a turn to write: a command waiting this long has deferred its answer
# long before (see `output.guard`), so it may wait for a burst to drain rather than fail.
SQLITE_WRITE_QUEUE_SECONDS = 10.0
POSTGRES_LOCK_TIMEOUT_MS = 2000
POSTGRES_STATEMENT_TIMEOUT_MS = 2500
# PostgreSQL's codes for "lock not available" and "statement timeout".
_BUSY_SQLSTATES = frozenset({"55P03", "57014"})
_BEGIN_MODE = "fatebot_begin"
# Set once a write transaction of the current command has committed: an error after it must not say that
# nothing changed. Each interaction runs in a task of its own, with its own copy of this.
COMMITTED: ContextVar[bool] = ContextVar("committed", default=False)
# Called, where a command set it, when the command is about to queue for its turn to write behind others for
# longer than LONG_WAIT_SECONDS (in a burst): it defers its answer then rather than at its deadline, which a busy
# event loop would let pass (`output.guard`).
LONG_WAIT: ContextVar[Callable[[], None] | None] = ContextVar("long_wait", default=None)
LONG_WAIT_SECONDS = 0.5
# How much each new turn to write weighs in the running estimate of a turn's length.
_TURN_WEIGHT = 0.2
# Where a session finds its database's campaign directory (`session.info`).
DIRECTORY_KEY = "campaign_directory"
# The PostgreSQL channel on which processes sharing a database tell each other which channel to forget.
FORGET_CHANNEL = "fatebot_directory"
# How long a process waits before listening again after its listening connection was lost.
RELISTEN_SECONDS = 5.0

log = logging.getLogger(__name__)

inline_sqlite.register()


class Busy(Exception):
    """The database stayed locked past the timeouts; the transaction was rolled back."""


def is_busy(error: DBAPIError) -> bool:
    """A lock wait or statement that ran out of time (PostgreSQL), or a database still locked (SQLite)."""
    original = error.orig
    codes = {getattr(original, "sqlstate", None), getattr(getattr(original, "__cause__", None), "sqlstate", None)}
    return bool(codes & _BUSY_SQLSTATES) or "database is locked" in str(original)


def failure_text(error: BaseException) -> str:
    """What stopped a database being used, in the driver's own words on one line (without SQLAlchemy's wrapping)."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return " ".join(str(cause).split()) or type(cause).__name__


@contextmanager
def _locked_means_busy() -> Iterator[None]:
    """A database that stayed locked, or a statement out of time, as `Busy`; any other error as it is."""
    try:
        yield
    except DBAPIError as error:
        if is_busy(error):
            raise Busy from error
        raise
    except sqlite3.OperationalError as error:  # from the driver itself, not wrapped by SQLAlchemy
        if inline_sqlite.is_locked(error):
            raise Busy from error
        raise


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def create_engine(
    url: str, *, foreign_keys: bool = True, checkpoints_elsewhere: bool = False, **kwargs: Any
) -> AsyncEngine:
    """An engine for `url`; on SQLite, `foreign_keys` False is for migrations only (see `migrate.upgrade`), and
    `checkpoints_elsewhere` leaves the log's checkpoints to a `WalCheckpointer` instead of the commits.

    Any SQLite URL (`sqlite://`, and `sqlite+aiosqlite://` as earlier versions wrote it) is served by the
    inline driver."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        settings = {
            "lock_timeout": str(POSTGRES_LOCK_TIMEOUT_MS),
            "statement_timeout": str(POSTGRES_STATEMENT_TIMEOUT_MS),
        }
        kwargs.setdefault("connect_args", {}).setdefault("server_settings", settings)
    if parsed.get_backend_name() == "sqlite":
        parsed = parsed.set(drivername=f"sqlite+{inline_sqlite.DRIVER}")
    engine = create_async_engine(parsed, **kwargs)
    if is_sqlite(engine):
        _configure_sqlite(engine.sync_engine, foreign_keys, checkpoints_elsewhere)
    return engine


def sqlite_file(engine: AsyncEngine) -> str | None:
    """The file of a SQLite database on disk (None for PostgreSQL and for a database in memory)."""
    if not is_sqlite(engine) or isinstance(engine.pool, StaticPool):
        return None
    return engine.url.database


def _configure_sqlite(engine: Engine, foreign_keys: bool, checkpoints_elsewhere: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        connection = inline_sqlite.driver_connection(dbapi_connection)
        # Take transaction control from the driver so that BEGIN is ours to emit (IMMEDIATE for writes).
        connection.isolation_level = None
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        # Never wait inside SQLite, on the loop's thread: `begin_waiting` waits without blocking it.
        connection.execute("PRAGMA busy_timeout=0")
        connection.execute("PRAGMA synchronous=NORMAL")
        if checkpoints_elsewhere:
            connection.execute("PRAGMA wal_autocheckpoint=0")

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(_BEGIN_MODE, "DEFERRED")
        driver = inline_sqlite.driver_connection(connection.connection.dbapi_connection)
        # Raised from a listener, a locked error is not wrapped by SQLAlchemy: `_locked_means_busy` knows it.
        inline_sqlite.begin_waiting(driver, f"BEGIN {mode}", SQLITE_BUSY_TIMEOUT_MS / 1000)


class Database:
    """Owns the engine; hands out one session per unit of work."""

    def __init__(
        self, engine: AsyncEngine, checkpointer: WalCheckpointer | None = None, hold: Hold | None = None
    ) -> None:
        """`checkpointer`: where the engine's connections leave checkpoints to one (`create_engine`); `hold`: this
        process's hold on the database's file, let go when the database is disposed of."""
        self.engine = engine
        self.checkpointer = checkpointer
        self._hold = hold
        self.directory = CampaignDirectory()
        info = {DIRECTORY_KEY: self.directory}
        self._reader = async_sessionmaker(engine, expire_on_commit=False, info=info)
        self._writer = async_sessionmaker(
            engine.execution_options(**{_BEGIN_MODE: "IMMEDIATE"}),
            expire_on_commit=False,
            info=info,
            sync_session_class=WriteSession,
        )
        self._write_turn = asyncio.Lock() if is_sqlite(engine) else None
        self._queued_writers = 0
        self._turn_seconds = 0.01  # a running estimate of how long a turn to write lasts (a guess to start with)
        # PostgreSQL: one INSERT is atomic by itself, so a batch of rows goes in one round trip, without
        # BEGIN and COMMIT around it.
        self._row_writer = engine.execution_options(
            **({_BEGIN_MODE: "IMMEDIATE"} if is_sqlite(engine) else {"isolation_level": "AUTOCOMMIT"})
        )
        # A file database's rows are inserted on a connection of their own, kept for that (see `insert_rows`);
        # an in-memory one has a single connection that everyone shares.
        self._prepares_inserts = is_sqlite(engine) and not isinstance(engine.pool, StaticPool)
        self._inserts: dict[str, inline_sqlite.PreparedInsert] = {}
        self._insert_connection: PoolProxiedConnection | None = None
        self._listening: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str) -> Database:
        engine = create_engine(url, checkpoints_elsewhere=True)
        path = sqlite_file(engine)
        if path is None:
            return cls(engine)
        return cls(engine, WalCheckpointer(path), Hold(Path(path)))

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One transaction that changes state: commits on success, rolls back on any error (`Busy` when the
        database stayed locked)."""
        async with self._turn():
            with _locked_means_busy():
                async with self._writer() as session, session.begin():
                    yield session
        self._committed()

    async def insert_rows(self, table: Table, rows: list[dict[str, Any]]) -> None:
        """Insert many rows in one transaction of their own, with Core: for rows that are all a transaction
        does (a batch of events), without a session's cost. Raises `Busy` like `write`."""
        async with self._turn():
            with _locked_means_busy():
                if self._prepares_inserts:
                    await self._insert_prepared(table, rows)
                else:
                    async with self._row_writer.begin() as connection:
                        await connection.execute(insert(table), rows)
        self._committed()

    async def execute(self, statement: Executable, parameters: dict[str, Any]) -> None:
        """One Core statement in a transaction of its own, without a session's cost: for a change that is all a
        transaction does (a prompt's message id). Raises `Busy` like `write`."""
        async with self._turn():
            with _locked_means_busy():
                async with self._row_writer.begin() as connection:
                    await connection.execute(statement, parameters)
        self._committed()

    def _committed(self) -> None:
        COMMITTED.set(True)
        if self.checkpointer is not None:
            self.checkpointer.wrote()

    async def _insert_prepared(self, table: Table, rows: list[dict[str, Any]]) -> None:
        prepared = self._inserts.get(table.name)
        if prepared is None:
            prepared = self._inserts[table.name] = inline_sqlite.PreparedInsert(table, self.engine.dialect)
        if self._insert_connection is None:
            self._insert_connection = await self.engine.raw_connection()
        driver = inline_sqlite.driver_connection(self._insert_connection.driver_connection)
        await prepared.run(driver, rows, SQLITE_BUSY_TIMEOUT_MS / 1000)

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        """A turn to write. SQLite: this process's writers queue here, first come first served. PostgreSQL: they
        go at once and the server orders them, but writers of one campaign still wait for each other's row
        lock, so the writers under way count as a queue. Either way, a command about to wait behind more than
        `LONG_WAIT_SECONDS` of others' turns hears of it (`LONG_WAIT`) before it waits."""
        if self._write_turn is None:
            self._queued_writers += 1
            self._tell_of_a_long_wait()
            started = time.perf_counter()
            try:
                yield
            finally:
                self._queued_writers -= 1
                self._learn_turn(time.perf_counter() - started)
            return
        if self._write_turn.locked() or self._queued_writers:
            self._queued_writers += 1
            self._tell_of_a_long_wait()
            try:
                async with asyncio.timeout(SQLITE_WRITE_QUEUE_SECONDS):
                    await self._write_turn.acquire()
            except TimeoutError as error:
                raise Busy from error
            finally:
                self._queued_writers -= 1
        else:  # free, with nobody queued before: asyncio's lock is taken at once then, so no timer is needed
            await self._write_turn.acquire()
        started = time.perf_counter()
        try:
            yield
        finally:
            self._write_turn.release()
            self._learn_turn(time.perf_counter() - started)

    def _tell_of_a_long_wait(self) -> None:
        if self._queued_writers * self._turn_seconds > LONG_WAIT_SECONDS and (hook := LONG_WAIT.get()):
            hook()

    def _learn_turn(self, lasted: float) -> None:
        self._turn_seconds += _TURN_WEIGHT * (lasted - self._turn_seconds)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        with _locked_means_busy():
            async with self._reader() as session, session.begin():
                yield session

    async def forget_channel(self, guild_id: int, channel_id: int) -> None:
        """After a commit that changed a channel's campaign (or its language): the directory forgets the channel,
        here and, on PostgreSQL, in every process listening (`listen_to_other_processes`). The change is saved
        already, so a failure to tell the others is logged, not raised: their entries expire on their own."""
        self.directory.forget(guild_id, channel_id)
        if is_sqlite(self.engine):
            return
        try:
            async with self._row_writer.connect() as connection:
                await connection.execute(
                    text("SELECT pg_notify(:channel, :payload)"),
                    {"channel": FORGET_CHANNEL, "payload": f"{guild_id}:{channel_id}"},
                )
        except (DBAPIError, OSError):
            log.warning("could not tell other processes to forget channel %s", channel_id, exc_info=True)

    def listen_to_other_processes(self) -> None:
        """PostgreSQL: from now until `dispose`, forget the channels other processes tell of."""
        if not is_sqlite(self.engine) and self._listening is None:
            self._listening = asyncio.create_task(self._listen(), name="directory-listener")

    async def _listen(self) -> None:
        while True:
            try:
                await self._listen_until_lost()
            except Exception:  # asyncpg's own errors as well as SQLAlchemy's: the listener must outlive them all
                log.warning("listening for other processes' changes failed; trying again", exc_info=True)
            await asyncio.sleep(RELISTEN_SECONDS)

    async def _listen_until_lost(self) -> None:
        """Listen on one connection of the pool (asyncpg's), until the connection is lost."""
        lost = asyncio.Event()

        def heard(_connection: object, _pid: int, _channel: str, payload: str) -> None:
            guild_id, _, channel_id = payload.partition(":")
            if guild_id.isdigit() and channel_id.isdigit():
                self.directory.forget(int(guild_id), int(channel_id))

        async with self.engine.connect() as connection:
            listener = (await connection.get_raw_connection()).driver_connection
            assert listener is not None, "a connection just checked out is open"
            listener.add_termination_listener(lambda _connection: lost.set())
            await listener.add_listener(FORGET_CHANNEL, heard)
            # Whatever was told while nobody listened is unknown: nothing remembered before is trusted.
            self.directory.clear()
            try:
                await lost.wait()
            finally:
                if not listener.is_closed():
                    await listener.remove_listener(FORGET_CHANNEL, heard)

    async def dispose(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with suppress(asyncio.CancelledError):
                await self._listening
            self._listening = None
        if self.checkpointer is not None:
            await self.checkpointer.close()
        if self._insert_connection is not None:
            self._insert_connection.close()  # back to the pool, which closes it
            self._insert_connection = None
        await self.engine.dispose()
        if self._hold is not None:
            self._hold.release()
