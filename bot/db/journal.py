"""Group commit for events that are a command's only change (a roll): many commands, one transaction.

When rolls arrive together, each waiting for its own write transaction would queue them one commit at a
time. Here a command that finds no flush running writes at once, itself, everything waiting (its own event
among it); whatever arrives meanwhile is written by a follow-up flush, in a single INSERT of many rows. So a
lone roll costs no more than its own insert, and a burst costs a few transactions. `append` returns only once
its event is committed, so nothing is acknowledged before it is durable, and a failed flush fails every
command in it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table

from bot.db.engine import COMMITTED, Database
from bot.db.models import Event

_EVENTS = cast(Table, Event.__table__)
# Events written by one flush at most: one INSERT statement on every backend (SQLAlchemy sends up to 1,000
# rows in one), which PostgreSQL commits by itself; the rest wait for the next flush.
BATCH_LIMIT = 500


@dataclass(frozen=True)
class NewEvent:
    campaign_id: int
    kind: str
    actor_id: int | None
    payload: dict[str, Any]
    created_at: datetime
    secret: bool = False


class EventJournal:
    def __init__(self, database: Database) -> None:
        self.database = database
        self._waiting: list[tuple[NewEvent, asyncio.Future[None]]] = []
        self._flushing = False
        self._follow_up: asyncio.Task[None] | None = None

    async def append(self, event: NewEvent) -> None:
        """Write the event; returns once it is committed (raises what the flush raised, e.g. `Busy`)."""
        written = asyncio.get_running_loop().create_future()
        self._waiting.append((event, written))
        if not self._flushing:
            await self._flush()
        await written
        # Possibly committed by a flush in another task: this command's error reports must know it.
        COMMITTED.set(True)

    async def drain(self) -> None:
        """Wait for the flushes still running, if any (before the database is closed)."""
        while self._follow_up is not None and not self._follow_up.done():
            await asyncio.gather(self._follow_up, return_exceptions=True)

    async def _flush(self) -> None:
        self._flushing = True
        batch, self._waiting = self._waiting[:BATCH_LIMIT], self._waiting[BATCH_LIMIT:]
        try:
            await self.database.insert_rows(_EVENTS, [vars(event) for event, _ in batch])
        except BaseException as error:
            for _, written in batch:
                if written.done():
                    continue
                if isinstance(error, Exception):
                    written.set_exception(error)  # raised to each command, this one included, by its future
                else:  # cancelled with the bot: its commands end too, instead of waiting forever
                    written.cancel()
            if not isinstance(error, Exception):
                raise
        else:
            for _, written in batch:
                if not written.done():
                    written.set_result(None)
        finally:
            if self._waiting:
                self._follow_up = asyncio.create_task(self._flush())
            else:
                self._flushing = False
