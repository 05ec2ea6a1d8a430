"""SQLite's WAL checkpoints, made off the event loop.

Left to itself, SQLite copies its write-ahead log back into the database inside whichever commit takes the
log past 1,000 pages. Here every commit runs on the event loop's own thread (`inline_sqlite`), so that one
commit would stall every command for the length of a checkpoint and its fsyncs (a Dodge click at the 99th
percentile took 125 ms in `benchmarks/bot_bench.py`). The bot's own connections therefore turn automatic
checkpoints off, and a checkpointer copies the log from a worker thread on a connection of its own, a moment
after the writes. It checkpoints PASSIVE: it never waits for a reader or a writer, nor makes one wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from typing import Final

log = logging.getLogger(__name__)

# Writes within this long of each other share one checkpoint.
CHECKPOINT_DELAY_SECONDS: Final = 1.0


class WalCheckpointer:
    """Checkpoints one SQLite file's log a moment after it was written to, one checkpoint at a time."""

    def __init__(self, path: str, *, delay: float = CHECKPOINT_DELAY_SECONDS) -> None:
        self.path = path
        self.delay = delay
        # What the latest checkpoint reported: frames in the log, and frames copied into the database.
        self.last: tuple[int, int] | None = None
        self._connection: sqlite3.Connection | None = None
        self._pending: asyncio.Task[None] | None = None
        self._copying = False
        self._written_since = False
        self._closed = False

    def wrote(self) -> None:
        """A transaction committed: a checkpoint follows within `delay` seconds."""
        if self._closed:
            return
        self._written_since = True
        if self._pending is None or self._pending.done():
            self._pending = asyncio.create_task(self._checkpoint_soon())

    async def _checkpoint_soon(self) -> None:
        # Writes made while a checkpoint copies may come after the point it copies to: another one follows.
        while self._written_since and not self._closed:
            await asyncio.sleep(self.delay)
            self._written_since = False
            self._copying = True
            try:
                self.last = await asyncio.to_thread(self._copy_log)
            except Exception:
                # The log stays as it is and the next write tries again; SQLite also checkpoints when it closes. Any
                # failure, not only SQLite's: one escaping would end this task with it, and `close` would raise it.
                log.warning("WAL checkpoint of %s failed", self.path, exc_info=True)
            finally:
                self._copying = False

    def _copy_log(self) -> tuple[int, int]:
        if self._connection is None:
            # One thread at a time uses it (checkpoints never overlap), though not always the same thread.
            self._connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        _busy, frames, copied = self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return frames, copied

    async def settled(self) -> None:
        """Until the checkpoints that writes so far call for are made."""
        if self._pending is not None:
            await self._pending

    async def close(self) -> None:
        """No more checkpoints: one that is copying finishes first, and the connection is closed."""
        self._closed = True
        if self._pending is not None:
            if not self._copying:  # a thread must not be left using the connection closed below
                self._pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pending
        if self._connection is not None:
            self._connection.close()
            self._connection = None
