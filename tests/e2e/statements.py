"""The SQL statements the bot runs for what a test does, counted from outside: a move's cost, held by a test."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from sqlalchemy import event

from bot.db.engine import Database

# The bot's background loops (deadlines, reminders) run in tasks of these names, whatever a test does meanwhile.
BACKGROUND_TASKS = "discord-ext-tasks:"


@contextlib.contextmanager
def statements_run(database: Database) -> Iterator[list[str]]:
    """Every statement the bot sends its database while the block runs, but for its background loops'."""
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, _parameters: Any, _context: Any, _many: bool) -> None:
        task = asyncio.current_task()
        if task is None or not task.get_name().startswith(BACKGROUND_TASKS):
            statements.append(" ".join(statement.split()))

    engine = database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", seen)
