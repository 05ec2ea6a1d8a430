"""`fatebot db copy --to URL`: every row of the bot's database into another, empty one, as when a server's
campaigns move from SQLite to PostgreSQL.

The copy is SQLAlchemy Core, table by table in the order of their foreign keys, in batches, within one transaction
on the target: the target holds the whole copy or nothing. Each row keeps its id, so links, buttons already posted
(their custom ids carry wait ids) and the log stay as they were; PostgreSQL's id sequences are then moved past the
copied ids. The source is only read, and must be at the schema's newest version, the target is migrated to it
first; a target that holds any row already is refused, so nothing is ever merged or overwritten.

pg_dump and pgloader would each do part of this; neither reads SQLite into this schema's types (time zones,
JSON) without a mapping of their own, which is what the models already are.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Integer, Table, func, insert, select, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.db.backup import BackupError
from bot.db.engine import create_engine, failure_text, is_sqlite
from bot.db.migrate import alembic_config, known_revision, upgrade
from bot.db.models import Base

ROWS_PER_BATCH: Final = 1_000


class CopyRefused(BackupError):
    """A copy refused before anything was written, with the code of its message."""


@dataclass(frozen=True)
class Copied:
    source: str
    target: str
    rows: dict[str, int]


def shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def bulk_engine(url: str) -> AsyncEngine:
    """An engine without the timeouts that keep commands quick: bulk writes (a copy, a bench's fill) take longer."""
    if make_url(url).get_backend_name() == "postgresql":
        return create_engine(url, connect_args={"server_settings": {}})
    return create_engine(url)


async def copy_database(source_url: str, target_url: str) -> Copied:
    """Copy every row of the database at `source_url` into the empty one at `target_url`."""
    if make_url(source_url) == make_url(target_url):
        raise CopyRefused("same_database", shown(target_url))
    source, target = bulk_engine(source_url), bulk_engine(target_url)
    try:
        await _check_source(source, source_url)
        try:
            await upgrade(target)
        except Exception as error:  # unreachable, refused credentials, no such database: said as it is
            raise CopyRefused("target_unusable", f"{shown(target_url)}: {failure_text(error)}") from error
        counts: dict[str, int] = {}
        async with source.connect() as reading, target.begin() as writing:
            if not is_sqlite(source):  # one snapshot for every table (SQLite's one read transaction is one)
                await reading.execution_options(isolation_level="REPEATABLE READ")
            for table in Base.metadata.sorted_tables:
                if await writing.scalar(select(func.count()).select_from(table)):
                    raise CopyRefused("target_not_empty", f"{shown(target_url)} ({table.name})")
            for table in Base.metadata.sorted_tables:
                counts[table.name] = await _copy_table(table, reading, writing)
            if not is_sqlite(target):
                await _move_sequences(writing)
        return Copied(shown(source_url), shown(target_url), counts)
    finally:
        await source.dispose()
        await target.dispose()


async def _check_source(source: AsyncEngine, url: str) -> None:
    database = source.url.database
    # SQLite would make an empty file where none is: the source is looked for first.
    if is_sqlite(source) and database and not await asyncio.to_thread(Path(database).exists):
        raise CopyRefused("no_source", shown(url))
    try:
        async with source.connect() as connection:
            version = await connection.run_sync(_revision)
    except Exception as error:  # whatever stops the source being read is said as it is
        raise CopyRefused("source_unusable", f"{shown(url)}: {failure_text(error)}") from error
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if version is None:
        raise CopyRefused("not_fatebot", shown(url))
    if not known_revision(version):
        raise CopyRefused("source_ahead", shown(url))
    if version != head:
        raise CopyRefused("source_behind", shown(url))


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def _copy_table(table: Table, reading: AsyncConnection, writing: AsyncConnection) -> int:
    """The table's rows in batches, each read after the last key of the one before (an offset would read the
    table again for every batch)."""
    (key,) = table.primary_key.columns
    copied, last = 0, None
    while True:
        batch = select(table).order_by(key).limit(ROWS_PER_BATCH)
        rows = (await reading.execute(batch if last is None else batch.where(key > last))).mappings().all()
        if not rows:
            return copied
        await writing.execute(insert(table), [dict(row) for row in rows])
        copied += len(rows)
        last = rows[-1][key.name]


async def _move_sequences(writing: AsyncConnection) -> None:
    """Each table's id sequence past the largest id copied, so the next row made gets a new one."""
    for table in Base.metadata.sorted_tables:
        for column in table.primary_key.columns:
            if isinstance(column.type, Integer) and column.autoincrement in (True, "auto"):
                await writing.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                        f"COALESCE(MAX({column.name}), 1), MAX({column.name}) IS NOT NULL) FROM {table.name}"
                    )
                )
