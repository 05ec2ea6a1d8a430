"""SQLite for the async engine, run on the event loop's own thread: `sqlite+inline://`.

The asyncio extension of SQLAlchemy drives a driver from a greenlet and awaits each of its calls. aiosqlite
answers each call from a thread of its own, and SQLAlchemy's adapter makes four calls per statement (open a
cursor, execute, fetch, close): four thread hops, about 0.6 ms a statement on a small machine, several times
the statement itself. A command that reads a character sheet and writes a result runs twenty statements.

This dialect is the standard `sqlite3` driver, called directly: a local statement takes tens of
microseconds, less than one hop, so running it on the loop costs other commands nothing. (SQLAlchemy checks
that an async driver awaited something; each statement passes through one await that is already done.) What could block
the loop is SQLite waiting for a lock, so it never waits: the busy timeout is zero, and a write transaction
that finds the database locked (by another process, since writers of this one queue on
`Database.write`) retries with `asyncio.sleep` until the usual busy timeout has passed. Readers never wait
in WAL mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from typing import Any, Final

from sqlalchemy import Table, pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL, Dialect
from sqlalchemy.exc import MissingGreenlet
from sqlalchemy.util import await_

DRIVER: Final = "inline"
_FIRST_PAUSE: Final = 0.002
_LONGEST_PAUSE: Final = 0.05


async def _nothing() -> None:
    return None


class _Cursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        _pass_through_an_await()
        return super().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> _Cursor:
        _pass_through_an_await()
        return super().executemany(sql, seq_of_parameters)

    async def _async_soft_close(self) -> None:
        """What the asyncio extension asks of an async driver's cursor once a result is complete: nothing to do
        here, the rows are read from this same thread whenever they are wanted."""


def _pass_through_an_await() -> None:
    with contextlib.suppress(MissingGreenlet):  # used outside the asyncio extension: nothing to satisfy
        await_(_nothing())


class _Connection(sqlite3.Connection):
    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    driver = DRIVER
    is_async = True
    supports_statement_cache = True

    def connect(self, *cargs: Any, **cparams: Any) -> Any:
        cparams.setdefault("factory", _Connection)
        return super().connect(*cargs, **cparams)

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        # The asyncio pool: a command waiting for a connection waits without blocking the loop.
        return pool.AsyncAdaptedQueuePool if cls._is_url_file_db(url) else pool.StaticPool


def _pauses(patience_seconds: float) -> Iterator[float]:
    """How long to pause before each new try at a locked database, growing, until patience runs out."""
    deadline = time.monotonic() + patience_seconds
    pause = _FIRST_PAUSE
    while time.monotonic() + pause <= deadline:
        yield pause
        pause = min(pause * 2, _LONGEST_PAUSE)


def _try_begin(connection: sqlite3.Connection, statement: str) -> bool:
    """Run `statement` (a BEGIN): False while another process holds the database."""
    try:
        connection.execute(statement)
    except sqlite3.OperationalError as error:
        if is_locked(error):
            return False
        raise
    return True


def begin_waiting(connection: sqlite3.Connection, statement: str, patience_seconds: float) -> None:
    """Run `statement` (a BEGIN); while the database is locked, pause the calling greenlet, not the loop.
    Raises the locked error once patience runs out."""
    for pause in _pauses(patience_seconds):
        if _try_begin(connection, statement):
            return
        await_(asyncio.sleep(pause))
    connection.execute(statement)


class PreparedInsert:
    """An INSERT of whole rows into one table, compiled once and run on the driver's own connection.

    For a transaction that is only an insert (a batch of events), SQLAlchemy's engine, pool and greenlet
    cost about fifteen times the insert itself. The statement and each column's conversion (JSON, UTC
    timestamps) still come from SQLAlchemy, so rows are stored exactly as the ORM stores them."""

    def __init__(self, table: Table, dialect: Dialect) -> None:
        self.columns = [column for column in table.columns if not column.primary_key]
        names = ", ".join(dialect.identifier_preparer.quote(column.name) for column in self.columns)
        marks = ", ".join("?" for _ in self.columns)
        self.statement = f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) VALUES ({marks})"
        # The dialect's own form of each type: a TypeDecorator asked directly would convert with its generic
        # impl, which leaves a datetime to sqlite3's own text ("...+00:00"), not SQLAlchemy's.
        self.converters = [
            (column.name, column.type.dialect_impl(dialect).bind_processor(dialect)) for column in self.columns
        ]

    def parameters(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple([row[name] if convert is None else convert(row[name]) for name, convert in self.converters])

    async def run(self, connection: sqlite3.Connection, rows: list[dict[str, Any]], patience_seconds: float) -> None:
        """Insert the rows in one IMMEDIATE transaction; the locked error once patience runs out."""
        parameters = [self.parameters(row) for row in rows]
        for pause in _pauses(patience_seconds):
            if _try_begin(connection, "BEGIN IMMEDIATE"):
                break
            await asyncio.sleep(pause)
        else:
            connection.execute("BEGIN IMMEDIATE")
        try:
            connection.executemany(self.statement, parameters)
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")


def is_locked(error: sqlite3.OperationalError) -> bool:
    return error.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def register() -> None:
    registry.register(f"sqlite.{DRIVER}", __name__, InlineSQLiteDialect.__name__)


def driver_connection(dbapi_connection: Any) -> sqlite3.Connection:
    assert isinstance(dbapi_connection, sqlite3.Connection)
    return dbapi_connection
