"""Exports are written a page at a time: memory holds a page, whatever the length of the log."""

from __future__ import annotations

import csv
import json
import tracemalloc
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

from bot.db.models import Campaign
from bot.export import write_export
from bot.services.log import Exportable, ExportRow

EVENTS = 40_000
PAGE = 2000


async def _pages(events: int = EVENTS) -> AsyncIterator[list[ExportRow]]:
    moment = datetime(2026, 12, 1, tzinfo=UTC)
    for start in range(0, events, PAGE):
        yield [
            (index, moment, "roll", 7, index % 10 == 0, json.dumps({"label": f"roll {index}", "total": index % 20}))
            for index in range(start, start + PAGE)
        ]


def _campaign() -> Campaign:
    return Campaign(id=3, guild_id=1, channel_id=2, name="Long War", ruleset="fate_points", status="active")


async def test_a_long_export_keeps_memory_flat_and_every_event(tmp_path: Path) -> None:
    exportable = Exportable(_campaign(), actor_id=8, sees_secrets=False, user_names={7: 'Émile "the roller"'})
    tracemalloc.start()
    try:
        path, count = await write_export(exportable, _pages(), "json", tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == EVENTS
    # The file is 8 MB; memory holds a page or two of it.
    assert peak < 4 * 1024 * 1024, f"peak {peak} bytes"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert len(document["events"]) == EVENTS
    assert document["users"] == {"7": 'Émile "the roller"'}
    assert document["events"][0]["actor_id"] == "7" and document["events"][0]["actor"] == 'Émile "the roller"'
    secret = document["events"][10]
    assert secret["redacted"] is True and secret["payload"] == {"label": "roll 10"}
    assert document["events"][11]["payload"] == {"label": "roll 11", "total": 11}


async def test_csv_has_a_row_per_event(tmp_path: Path) -> None:
    exportable = Exportable(_campaign(), actor_id=7, sees_secrets=False, user_names={7: "bob, the roller"})
    path, count = await write_export(exportable, _pages(3 * PAGE), "csv", tmp_path)
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["id", "created_at", "kind", "actor_id", "actor", "secret", "redacted", "payload"]
    assert len(rows) == count + 1 == 3 * PAGE + 1
    assert rows[1][3:5] == ["7", "bob, the roller"]
    assert rows[11][6] == "False"  # the roller sees their own secret result
