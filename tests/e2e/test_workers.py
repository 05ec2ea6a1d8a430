"""No one player's pictures, files or exports stall everyone: through the emulator, a map of characters 200 sectors
apart is drawn as small maps around them; a player asking for many expensive pictures at once has two drawn and
is told, in their language, that the rest must wait, while a player on another server imports a character and
sees a map meanwhile; a picture that takes too long is answered so. One server and one bot for the module."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from PIL import Image

from bot.emulator.models import EVERYONE, Channel, InteractionRecord, User
from bot.i18n import Translator
from bot.rulesets.grail_zh.pictures import grid_map
from bot.workers import JOBS_PER_USER, WORKERS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness

FLOODED = "Kiritsugu"
MASTER = {"kind": "master", "master_type": "melee",
          "attributes": {"str": 4, "dex": 3, "con": 3, "int": 0, "wis": 0, "cha": 0}}  # fmt: skip
# A burst as a tester sent it: eight maps at once.
BURST = 8
BUSY_JA = Translator.for_locale("ja")("error.job_busy")


@dataclass(frozen=True)
class Servers:
    harness: Harness
    flooder: User
    flooders_channel: Channel
    neighbour: User
    neighbours_channel: Channel


def _sheet(name: str) -> tuple[str, bytes]:
    return "sheet.yaml", yaml.safe_dump({**MASTER, "name": name}).encode()


@pytest.fixture(scope="module", params=BACKENDS)
async def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Servers]:
    """The flooder runs a grail_zh campaign with two Masters of theirs 200 sectors apart; the neighbour plays on
    another server, with a Master of their own placed on its map."""
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("workers")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        flooder, neighbour = emulator.add_user("flooder", locale="ja"), emulator.add_user("neighbour")
        home, elsewhere = emulator.add_guild("Fuyuki", owner=flooder), emulator.add_guild("Elsewhere", owner=neighbour)
        await harness.start_bot()
        servers = Servers(harness, flooder, harness.new_channel(home), neighbour, harness.new_channel(elsewhere))
        for user, channel in ((flooder, servers.flooders_channel), (neighbour, servers.neighbours_channel)):
            await harness.slash(user, channel, "campaign start", ruleset="grail_zh", name="War")
        for name, sector in ((FLOODED, -100), ("Maiya", 100)):
            await harness.slash(flooder, servers.flooders_channel, "character import", file=_sheet(name))
            await harness.slash(flooder, servers.flooders_channel, "grail place", character=name, x=50, y=50,
                                sector_x=sector, sector_y=sector)  # fmt: skip
        await harness.slash(neighbour, servers.neighbours_channel, "character import", file=_sheet("Waver"))
        await harness.slash(neighbour, servers.neighbours_channel, "grail place", character="Waver", x=5, y=5)
        yield servers


@pytest.fixture
def held_maps(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The flooder's maps wait, each in its worker thread, until the returned gate opens (at the end of the test
    whatever happened); everyone else's are drawn as ever."""
    gate = threading.Event()

    def held(title: str, points: Sequence[tuple[str, int, int]], *args: Any, **kwargs: Any) -> bytes:
        if any(name == FLOODED for name, _, _ in points):
            gate.wait()
        return grid_map(title, points, *args, **kwargs)

    # The module the bot runs: it loads its extensions afresh, so it is not one a test could import beforehand.
    monkeypatch.setattr(sys.modules["bot.rulesets.grail_zh.cog"], "grid_map", held)
    yield gate
    gate.set()


def _map_of(record: InteractionRecord) -> Image.Image:
    (drawn,) = [attachment for reply in record.replies for attachment in reply.attachments]
    return Image.open(io.BytesIO(drawn.data))


async def test_characters_200_sectors_apart_are_two_small_maps(servers: Servers) -> None:
    where = await servers.harness.slash(servers.flooder, servers.flooders_channel, "grail where")
    # Two panels side by side: the old map was a square of 40,401 labelled sectors, 680 pixels high.
    assert _map_of(where).size == (640, 372)
    assert "（-100, -100）" in where.reply.text() and "（100, 100）" in where.reply.text()


async def test_a_burst_of_maps_is_refused_past_its_share_while_another_server_is_answered(
    servers: Servers, held_maps: threading.Event
) -> None:
    harness, flooder, neighbour = servers.harness, servers.flooder, servers.neighbour
    burst = [asyncio.ensure_future(harness.slash(flooder, servers.flooders_channel, "grail where"))
             for _ in range(BURST)]  # fmt: skip
    await harness.eventually(
        lambda: harness.seen_by(flooder, servers.flooders_channel).count(BUSY_JA) == BURST - JOBS_PER_USER
    )
    # The flooder's maps hold their two workers; another server's player is answered meanwhile.
    imported = await harness.slash(neighbour, servers.neighbours_channel, "character import", file=_sheet("Kayneth"))
    assert imported.reply.visible_to is EVERYONE and "Kayneth" in imported.reply.text()
    looked = await harness.slash(neighbour, servers.neighbours_channel, "grail where")
    assert _map_of(looked).width == 640
    assert not held_maps.is_set()
    held_maps.set()
    records = await asyncio.gather(*burst)
    refused = [record for record in records if record.replies and record.replies[0].content == BUSY_JA]
    assert len(refused) == BURST - JOBS_PER_USER and all(record.replies[0].ephemeral for record in refused)
    drawn = [record for record in records if record not in refused]
    await harness.eventually(lambda: all(reply.attachments for record in drawn for reply in record.replies[-1:]))
    assert all(_map_of(record).size == (640, 372) for record in drawn)


async def test_a_map_that_takes_too_long_is_answered_so(
    servers: Servers, held_maps: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WORKERS, "seconds", 0.5)
    record = await servers.harness.slash(servers.flooder, servers.flooders_channel, "grail where", locale="zh-CN")
    late = record.reply
    assert late.ephemeral and late.content == Translator.for_locale("zh-CN")("error.job_too_long")
    assert not late.attachments
