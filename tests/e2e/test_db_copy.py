"""`fatebot db copy --to URL`: a server's SQLite database, with a campaign of every ruleset in the middle of an
exchange, copied into an empty PostgreSQL (or SQLite) database, row for row; the bot started on the copy answers the
prompts posted before the move, and makes new rows after the copied ones. A copy into a database that holds rows
already, or from one that is not there, is refused and writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.bench import set_the_tables, the_players
from bot.cli import EXIT_USAGE, main
from bot.db.engine import create_engine
from bot.db.models import Base, Campaign
from bot.rulesets.registry import RULESETS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.declared import Declared
from tests.e2e.harness import running_harness


async def every_row(url: str) -> dict[str, list[dict[str, Any]]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return {
                table.name: [
                    dict(row)
                    for row in (await connection.execute(select(table).order_by(*table.primary_key.columns)))
                    .mappings()
                    .all()
                ]
                for table in Base.metadata.sorted_tables
            }
    finally:
        await engine.dispose()


def copy(source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("DATABASE_URL", source)
    return main(["db", "copy", "--to", target])


@pytest.mark.parametrize("target_backend", BACKENDS)
async def test_a_sqlite_database_moves_with_every_campaign_and_plays_on(
    target_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = f"sqlite:///{tmp_path / 'source.sqlite3'}"
    async with running_harness(source) as harness, fresh_database_url(target_backend, tmp_path) as target:
        emulator = harness.emulator
        players = the_players(emulator, rival_locale="ja")
        await harness.start_bot()
        for ruleset in RULESETS:
            players.add_channels(ruleset, 1)
        await set_the_tables(players)
        fights = [Declared(players, ruleset, players.channels[ruleset][0]) for ruleset in RULESETS]
        for fight in fights:
            await fight.open_until_answerable()
        await harness.stop_bot()

        assert await asyncio.to_thread(copy, source, target, monkeypatch) == 0
        said = capsys.readouterr().out
        assert "copied" in said and "campaigns 4" in said, said
        before, after = await every_row(source), await every_row(target)
        assert {name: len(rows) for name, rows in after.items()} == {name: len(rows) for name, rows in before.items()}
        assert after == before

        assert await asyncio.to_thread(copy, source, target, monkeypatch) == EXIT_USAGE
        assert "holds rows already" in capsys.readouterr().err
        assert await every_row(target) == after

        harness.database_url = target
        await harness.start_bot()
        for fight in fights:
            answer = fight.answer()
            assert answer is not None
            record = await answer
            # A click may answer by changing its prompt, with no reply of its own; a refusal would be a reply.
            assert record.acknowledged and record.error is None, fight.ruleset
            assert not any(reply.ephemeral for reply in record.replies), [reply.content for reply in record.replies]
            await fight.see_through()
        channel = emulator.add_channel(players.guild, "after-the-move")
        started = await emulator.slash(players.gm, channel, "campaign start", {"ruleset": "fate_points", "name": "New"})
        assert not started.reply.ephemeral, started.reply.content
        newest = max(int(row["id"]) for row in before["campaigns"])
        engine = create_engine(target)
        try:
            async with engine.connect() as connection:
                made = await connection.scalar(select(Campaign.id).where(Campaign.channel_id == channel.id))
        finally:
            await engine.dispose()
        assert made is not None and made > newest


def test_a_copy_from_nowhere_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.sqlite3"
    assert copy(f"sqlite:///{tmp_path / 'missing.sqlite3'}", f"sqlite:///{target}", monkeypatch) == EXIT_USAGE
    assert "There is no database at" in capsys.readouterr().err
    assert not target.exists()
    source = f"sqlite:///{tmp_path / 'same.sqlite3'}"
    assert copy(source, source, monkeypatch) == EXIT_USAGE
    assert "is the database being copied" in capsys.readouterr().err
