"""Whether a SQLite database is open somewhere: each process of the bot that opens the database holds a shared lock
on a file beside it (`fatebot.sqlite3.lock`) until it closes it, and a restore needs that lock alone. So a restore
refuses while a bot runs (whose memory would go on holding what it read before), and a bot that starts during a
restore waits the few seconds the restore takes. The operating system lets a lock go with its process, so a bot
that was killed leaves nothing to clean up.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import portalocker


class InUse(Exception):
    """Some process has the database open."""


def lock_file(database: Path) -> Path:
    """Beside the file itself: a database named through a link or another path is held by the same lock."""
    real = database.resolve()
    return real.with_name(f"{real.name}.lock")


class Hold:
    """A process's shared hold on a database, from its opening to `release`."""

    def __init__(self, database: Path) -> None:
        """Waits while a restore has the database alone."""
        self._handle: BinaryIO | None = lock_file(database).open("ab")
        try:
            portalocker.lock(self._handle, portalocker.LockFlags.SHARED)
        except BaseException:
            self._handle.close()
            raise

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file lets its lock go
            self._handle = None


@contextmanager
def alone(database: Path) -> Iterator[None]:
    """The database to oneself for the block; `InUse` at once if any process holds it."""
    with lock_file(database).open("ab") as handle:
        try:
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.AlreadyLocked as error:
            raise InUse(str(database)) from error
        yield
