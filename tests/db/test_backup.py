"""`fatebot db backup` and `restore`: a backup taken while the bot writes is a consistent snapshot, and a restore
brings it back whole."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import threading
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli import main
from bot.db.atomic import apply_pool_delta
from bot.db.backup import BackupError, backup, restore
from bot.db.engine import Database
from bot.db.in_use import Hold, alone
from bot.db.migrate import upgrade
from bot.db.models import Campaign, Character, ResourcePool
from bot.services.common import record_event

WRITES = 300


async def _database(path: Path) -> tuple[Database, int, int]:
    database = Database.from_url(f"sqlite:///{path}")
    await upgrade(database.engine)
    async with database.write() as session:
        campaign = Campaign(guild_id=1, channel_id=1, name="c", ruleset="fate_points")
        session.add(campaign)
        await session.flush()
        character = Character(campaign_id=campaign.id, owner_id=7, name="Saber", kind="servant")
        session.add(character)
        await session.flush()
        pool = ResourcePool(character_id=character.id, name="hp", current=0, maximum=None)
        session.add(pool)
        await session.flush()
        return database, campaign.id, pool.id


def _pool_and_log(path: Path) -> tuple[int, int]:
    """The pool's value, and the sum of the deltas the log says were applied to it."""
    with sqlite3.connect(path) as connection:
        (current,) = connection.execute("SELECT current FROM resource_pools").fetchone()
        (logged,) = connection.execute("SELECT count(*) FROM events WHERE kind = 'test.delta'").fetchone()
    return current, logged


async def test_a_backup_under_load_is_consistent_and_restores_whole(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    database, campaign_id, pool_id = await _database(live)

    async def write_one() -> None:
        async with database.write() as session:
            await apply_pool_delta(session, pool_id, 1)
            record_event(session, campaign_id, "test.delta", actor_id=None, payload={"delta": 1},
                         created_at=datetime.now(UTC))  # fmt: skip

    async def writes() -> None:
        for _ in range(WRITES):
            await write_one()
            await asyncio.sleep(0)

    copies = [tmp_path / f"copy{number}.sqlite3" for number in range(3)]
    try:
        writing = asyncio.create_task(writes())
        for copy in copies:  # while the writes go on, each copy taken at a different moment
            await asyncio.sleep(0.01)
            await asyncio.to_thread(backup, f"sqlite:///{live}", copy)
        await writing
    finally:
        await database.dispose()
    taken_at = []
    for copy in copies:
        current, logged = _pool_and_log(copy)
        assert current == logged  # never a half-applied transaction
        taken_at.append(current)
    assert any(0 < current < WRITES for current in taken_at), taken_at  # taken while the writes went on
    assert _pool_and_log(live) == (WRITES, WRITES)
    taken = _pool_and_log(copies[0])
    restored = tmp_path / "restored.sqlite3"
    restore(f"sqlite:///{restored}", copies[0])
    assert _pool_and_log(restored) == taken


def test_backups_refuse_what_they_cannot_do(tmp_path: Path) -> None:
    with pytest.raises(BackupError) as refused:
        backup("postgresql+asyncpg://postgres@127.0.0.1/x", tmp_path / "x")
    assert refused.value.code == "not_sqlite"
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("hello")
    with pytest.raises(BackupError) as refused:
        restore(f"sqlite:///{tmp_path / 'target.sqlite3'}", not_a_database)
    assert refused.value.code == "not_sqlite_file"


def test_the_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "backup", "saved.sqlite3"]) == 0
    assert main(["db", "backup", "saved.sqlite3"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["db", "restore", "saved.sqlite3"]) == 2
    assert "--yes" in capsys.readouterr().err
    assert main(["db", "restore", "saved.sqlite3", "--yes"]) == 0
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1/x")
    assert main(["db", "backup", "other.sqlite3"]) == 2
    assert "pg_dump" in capsys.readouterr().err


def _campaigns(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return [name for (name,) in connection.execute("SELECT name FROM campaigns")]


async def test_a_restore_is_refused_while_a_bot_runs_on_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    live = tmp_path / "bot.sqlite3"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{live}")
    assert await asyncio.to_thread(main, ["db", "upgrade"]) == 0
    assert await asyncio.to_thread(main, ["db", "backup", "empty.sqlite3"]) == 0
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "local", "--database", f"sqlite:///{live}", env=os.environ, cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert bot.stdin is not None and bot.stdout is not None
    try:
        bot.stdin.write(b"alice: /campaign start ruleset:fate_points name:Kept\n")
        await bot.stdin.drain()
        async with asyncio.timeout(60):
            while b"Kept" not in await bot.stdout.readline():
                pass
        capsys.readouterr()
        assert await asyncio.to_thread(main, ["db", "restore", "empty.sqlite3", "--yes"]) == 2
        assert capsys.readouterr().err == (
            f"A bot or another fatebot command has {live} open: stop it, then restore (nothing was restored).\n"
        )
        assert _campaigns(live) == ["Kept"]
    finally:
        bot.stdin.close()
        await asyncio.wait_for(bot.wait(), timeout=30)
    assert await asyncio.to_thread(main, ["db", "restore", "empty.sqlite3", "--yes"]) == 0
    assert _campaigns(live) == []


async def test_an_open_database_refuses_a_restore_until_disposed_of(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    database, _, _ = await _database(live)
    saved = tmp_path / "saved.sqlite3"
    backup(f"sqlite:///{live}", saved)
    try:
        with pytest.raises(BackupError) as refused:
            restore(f"sqlite:///{live}", saved)
        assert refused.value.code == "in_use"
    finally:
        await database.dispose()
    restore(f"sqlite:///{live}", saved)


@pytest.mark.parametrize("naming", ["link", "dotted"])
async def test_a_database_held_under_another_name_refuses_a_restore(naming: str, tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    database, _, _ = await _database(live)
    saved = tmp_path / "saved.sqlite3"
    backup(f"sqlite:///{live}", saved)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if naming == "link":
        (named := elsewhere / "bot.sqlite3").symlink_to(live)
    else:
        named = elsewhere / ".." / "live.sqlite3"
    try:
        with pytest.raises(BackupError) as refused:
            restore(f"sqlite:///{named}", saved)
        assert refused.value.code == "in_use"
    finally:
        await database.dispose()


async def test_a_process_killed_while_holding_the_database_does_not_block_a_restore(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    database, _, _ = await _database(live)
    saved = tmp_path / "saved.sqlite3"
    backup(f"sqlite:///{live}", saved)
    await database.dispose()
    holding = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import sys, time; from pathlib import Path; from bot.db.in_use import Hold;"
        "held = Hold(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)", str(live),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert holding.stdout is not None
    assert await asyncio.wait_for(holding.stdout.readline(), timeout=30) == b"held\n"
    with pytest.raises(BackupError):
        restore(f"sqlite:///{live}", saved)
    holding.kill()  # SIGKILL: the process cannot let anything go itself
    await holding.wait()
    restore(f"sqlite:///{live}", saved)


def test_a_database_opened_during_a_restore_waits_for_it(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    with alone(live):
        opening = threading.Thread(target=lambda: Hold(live).release())
        opening.start()
        opening.join(timeout=0.3)
        assert opening.is_alive()  # waiting for the restore's lock
    opening.join(timeout=5)
    assert not opening.is_alive()


def test_a_backup_makes_its_folder_and_is_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "backup", "backups/2026/fatebot.sqlite3"]) == 0
    assert [path.name for path in (tmp_path / "backups" / "2026").iterdir()] == ["fatebot.sqlite3"]
