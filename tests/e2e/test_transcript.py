"""`/log export format:html` and `format:markdown` through the emulator: a transcript comes back as one file, named
for its format, in its reader's language, with a secret roll kept for the GMs."""

from __future__ import annotations

import json
import mimetypes
from collections.abc import AsyncIterator

import pytest

from tests.databases import BACKENDS
from tests.e2e.fate_table import Table, fate_points_table

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """A Fate/Points campaign where bob plays Archer and mei reads Japanese."""
    async with fate_points_table(request.param, tmp_path_factory.mktemp("transcript")) as table:
        yield table


async def test_a_transcript_comes_back_as_a_web_page(table: Table) -> None:
    harness, bob, gm = table.harness, table.players.player, table.players.gm
    await harness.slash(bob, table.channel, "say", text=f"I am the **bone** of my sword {HOSTILE}")
    harness.dice.queue([3, 5])
    await harness.slash(bob, table.channel, "roll", dice="2d6", label="trace")
    harness.dice.queue([77])
    await harness.slash(gm, table.channel, "roll", dice="1d100", label="ambush", secret=True)

    exported = (await harness.slash(bob, table.channel, "log export", format="html")).reply
    assert exported.ephemeral and len(exported.attachments) == 1
    (page,) = exported.attachments
    assert page.filename.endswith("-log.html") and mimetypes.guess_type(page.filename)[0] == "text/html"
    text = page.data.decode("utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Bench: transcript" in text
    assert "I am the <strong>bone</strong> of my sword &lt;img src=x onerror=alert(1)&gt;" in text
    assert "2d6 [3, 5]" in text and "ambush" in text and "1d100 [77]" not in text

    told = (await harness.slash(gm, table.channel, "log export", format="html")).reply
    assert "1d100 [77]" in told.attachments[0].data.decode("utf-8")


async def test_a_markdown_transcript_in_the_readers_language(table: Table) -> None:
    harness, mei = table.harness, table.players.defender
    exported = (await harness.slash(mei, table.channel, "log export", format="markdown")).reply
    (transcript,) = exported.attachments
    assert transcript.filename.endswith("-log.md")
    text = transcript.data.decode("utf-8")
    assert text.startswith("# Bench：セッションログ") and "**Archer**" in text and "&lt;img" in text


async def test_an_export_that_would_end_before_it_begins_is_refused(table: Table) -> None:
    harness, bob = table.harness, table.players.player
    refused = await harness.slash(bob, table.channel, "log export", format="html", since="1d", until="2d")
    assert refused.reply.ephemeral and not refused.reply.attachments
    assert refused.reply.content == "The export would end before it begins: 2d must come after 1d."
    typo = await harness.slash(bob, table.channel, "log export", format="csv", since="yesterday")
    assert "“yesterday” is not a moment the export can start or end at" in typo.reply.content

    everything = (await harness.slash(bob, table.channel, "log export", format="json", since="999d")).reply
    assert json.loads(everything.attachments[0].data)["events"]
    long_ago = (await harness.slash(bob, table.channel, "log export", format="json", until="2020-01-01")).reply
    assert json.loads(long_ago.attachments[0].data)["events"] == []
    empty = (await harness.slash(bob, table.channel, "log export", format="html", until="2020-01-01")).reply
    assert "Nothing was logged in this span." in empty.attachments[0].data.decode("utf-8")
