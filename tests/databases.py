"""Fresh, migrated databases for tests: SQLite always, PostgreSQL when TEST_DATABASE_URL names a server."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.db.engine import Database, create_engine
from bot.db.migrate import upgrade

POSTGRES_ADMIN_URL = os.environ.get("TEST_DATABASE_URL")
BACKENDS = ["sqlite", "postgresql"] if POSTGRES_ADMIN_URL else ["sqlite"]


@asynccontextmanager
async def fresh_database_url(backend: str, directory: Path) -> AsyncIterator[str]:
    """A URL of an empty database that is dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{directory / f'{uuid.uuid4().hex}.sqlite3'}"
        return
    assert POSTGRES_ADMIN_URL is not None
    name = f"fatebot_test_{uuid.uuid4().hex[:12]}"
    # Creating and dropping databases is not a command: no timeouts.
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT", connect_args={"server_settings": {}})
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


@asynccontextmanager
async def migrated_database(backend: str, directory: Path) -> AsyncIterator[Database]:
    async with fresh_database_url(backend, directory) as url:
        database = Database.from_url(url)
        try:
            await upgrade(database.engine)
            yield database
        finally:
            await database.dispose()
