from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.emulator.models import Guild, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness


@dataclass(frozen=True)
class Table:
    """Two servers: alice owns the first and runs games there; bob, mei (zh-CN) and ken (ja) play."""

    harness: Harness
    guild: Guild
    other_guild: Guild
    alice: User
    bob: User
    mei: User
    ken: User
    stranger: User


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("e2e")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        alice = emulator.add_user("alice")
        bob = emulator.add_user("bob")
        mei = emulator.add_user("mei", locale="zh-CN")
        ken = emulator.add_user("ken", locale="ja")
        stranger = emulator.add_user("stranger")
        guild = emulator.add_guild("Fuyuki", owner=alice)
        for player in (bob, mei, ken):
            emulator.add_member(guild, player)
        other_guild = emulator.add_guild("Elsewhere", owner=stranger)
        emulator.add_member(other_guild, bob)
        await harness.start_bot()
        yield Table(harness, guild, other_guild, alice, bob, mei, ken, stranger)
