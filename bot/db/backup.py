"""Backups of a SQLite database, online: SQLite's own backup API copies a consistent snapshot page by page while
the bot goes on writing (each step of the copy holds the file's lock only briefly). PostgreSQL has `pg_dump` and
`pg_restore` for the same (see the README).

No library is needed: the standard `sqlite3` module has the backup API; this module only adds the checks around
it (the file is SQLite, the copy is whole and carries the schema's version).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Final

from sqlalchemy.engine import make_url

from bot.db.in_use import InUse, alone
from bot.db.migrate import known_revision

# Pages copied per step: small steps let the bot's writes in between.
PAGES_PER_STEP: Final = 256


class BackupError(Exception):
    """A backup or a restore refused, with the code of its message."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code, detail)
        self.code = code
        self.detail = detail


def sqlite_file(url: str) -> Path:
    """The file a SQLite URL names; BackupError for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise BackupError("not_sqlite", parsed.get_backend_name())
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("in_memory")
    return Path(parsed.database)


def _reading(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _check(path: Path) -> str:
    """A whole SQLite file with the bot's schema in it; the schema's revision."""
    try:
        with closing(_reading(path)) as connection:
            (verdict,) = connection.execute("PRAGMA integrity_check").fetchone()
            if verdict != "ok":
                raise BackupError("damaged", str(verdict))
            if connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'").fetchone() is None:
                raise BackupError("not_fatebot", str(path))
            revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as error:
        raise BackupError("not_sqlite_file", str(error)) from error
    if revision is None:
        raise BackupError("not_fatebot", str(path))
    return str(revision[0])


def backup(url: str, target: Path) -> Path:
    """Copy the database to `target` (a new file, in folders made for it), consistent even while the bot writes."""
    source = sqlite_file(url)
    if not source.exists():
        raise BackupError("no_database", str(source))
    if target.exists():
        raise BackupError("target_exists", str(target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        writing = sqlite3.connect(target)
    except (OSError, sqlite3.Error) as error:
        raise BackupError("target_unwritable", f"{target} ({error})") from error
    # Half a copy, or a copy of something that is not the bot's database, would pass for a backup and block the
    # next try: the file goes again.
    try:
        with closing(writing), closing(_reading(source)) as reading:
            reading.backup(writing, pages=PAGES_PER_STEP)
            # The copy is one file, without the write-ahead log the database it was taken from keeps beside it.
            writing.execute("PRAGMA journal_mode=DELETE")
        _check(target)
    except sqlite3.Error as error:
        target.unlink(missing_ok=True)
        raise BackupError("source_unreadable", f"{source} ({error})") from error
    except BackupError as error:
        target.unlink(missing_ok=True)
        if error.code == "not_fatebot":
            raise BackupError("source_not_fatebot", str(source)) from error
        raise BackupError("source_unreadable", f"{source} ({error.detail})") from error
    return source


def restore(url: str, copy: Path) -> Path:
    """Replace the database's whole content with a backup's. Refused while any process has the database open: a
    running bot would go on with what it read before, mixed with what was restored."""
    target = sqlite_file(url)
    if not copy.exists():
        raise BackupError("no_backup", str(copy))
    if target.exists() and copy.samefile(target):  # SQLite's backup from a file into itself never ends
        raise BackupError("restore_itself", str(copy))
    revision = _check(copy)
    if not known_revision(revision):
        raise BackupError("newer", str(copy))
    try:
        with alone(target), closing(_reading(copy)) as reading, closing(sqlite3.connect(target)) as writing:
            reading.backup(writing, pages=PAGES_PER_STEP)
    except InUse as error:
        raise BackupError("in_use", str(target)) from error
    except (OSError, sqlite3.Error) as error:
        raise BackupError("target_unwritable", f"{target} ({error})") from error
    return target
