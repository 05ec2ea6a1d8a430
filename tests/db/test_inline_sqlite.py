"""SQLite runs on the loop's own thread, whatever SQLite URL a configuration names."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.db import inline_sqlite
from bot.db.engine import create_engine


@pytest.mark.parametrize("scheme", ["sqlite", "sqlite+aiosqlite", "sqlite+pysqlite"])
async def test_every_sqlite_url_uses_the_inline_driver(tmp_path: Path, scheme: str) -> None:
    engine = create_engine(f"{scheme}:///{tmp_path / 'x.sqlite3'}")
    try:
        assert engine.dialect.driver == inline_sqlite.DRIVER
        async with engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
    finally:
        await engine.dispose()
