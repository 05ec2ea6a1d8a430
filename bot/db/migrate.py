"""Alembic configured in code, so migrations run from any directory and inside a running loop."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

import migrations
from bot.db.engine import create_engine, is_sqlite

# The advisory lock that queues migrations on PostgreSQL: any number fixed for the project.
MIGRATION_LOCK = 0x666174_65626F74


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.attributes["connection"] = connection
    return config


class NewerSchema(Exception):
    """The database is at a revision this version of the bot does not know: a newer version migrated it."""

    def __init__(self, revision: str) -> None:
        super().__init__(revision)
        self.revision = revision


def known_revision(revision: str) -> bool:
    """Whether `revision` is one of this version's migrations."""
    try:
        ScriptDirectory.from_config(alembic_config()).get_revision(revision)
    except CommandError:
        return False
    return True


def _upgrade(connection: Connection, revision: str) -> None:
    current = MigrationContext.configure(connection).get_current_revision()
    if current is not None and not known_revision(current):
        raise NewerSchema(current)
    command.upgrade(alembic_config(connection), revision)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database to `revision`.

    On PostgreSQL, processes that start together on one database migrate one after the other (a transaction
    lock taken first): the second finds the work done.

    SQLite alters a table by copying it, dropping the original and renaming the copy; with foreign keys
    enforced, dropping the original would cascade to every row that points at it (a character's pools,
    its links). So SQLite migrates on a connection of its own with foreign keys off, then checks them.
    """
    if not is_sqlite(engine):
        async with engine.begin() as connection:
            # A migration may rewrite a large table: the timeouts that keep commands quick do not apply.
            await connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
            await connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            await connection.run_sync(_upgrade, revision)
        return
    migrating = create_engine(engine.url.render_as_string(hide_password=False), foreign_keys=False)
    try:
        async with migrating.begin() as connection:
            await connection.run_sync(_upgrade, revision)
            broken = (await connection.exec_driver_sql("PRAGMA foreign_key_check")).all()
            if broken:
                raise RuntimeError(f"the migration left rows pointing nowhere: {broken[:5]}")
    finally:
        await migrating.dispose()
