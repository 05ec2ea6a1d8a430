"""Every command the bot describes as the GMs', of every ruleset, used by a player: refused as the GMs', privately,
and nothing changes. The commands come from the command tree the bot synced, so a new one is covered as soon as it
exists; their options are filled in from their declared types, with the player's own character and camp for the
names, so that nothing but the GM check stands in the way."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.db.models import Event
from bot.emulator.models import Channel, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.every_ruleset import (
    ATTACHMENT,
    BOOLEAN,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    STRING,
    USER,
    campaign_of_every_ruleset,
    leaves,
)
from tests.e2e.harness import Harness, running_harness

GM_ONLY = re.compile(r"\(GMs? only[;)]|\(GM\)$")
REFUSED = "Only a GM of this campaign can do that."
ELSEWHERE = "This command belongs to"
CAMP_OPTIONS = frozenset({"camp", "first", "second", "other", "at_base_of"})


@dataclass(frozen=True)
class Table:
    harness: Harness
    gm: User
    player: User
    channels: dict[str, Channel]
    names: dict[str, str]


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("authorization")) as url,
        running_harness(url) as harness,
    ):
        gm, player = harness.emulator.add_user("gm"), harness.emulator.add_user("player")
        channels, names = await campaign_of_every_ruleset(harness, gm, player)
        await harness.slash(gm, channels["grail_anka"], "anka camp", name="Red", members=names["grail_anka"])
        await harness.slash(gm, channels["grail_anka"], "anka camp", name="Blue", members=names["grail_anka"])
        yield Table(harness, gm, player, channels, names)


def _gm_commands(commands: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(the command's full name, its options) of every command described as the GMs'."""
    return [(name, options) for name, description, options in leaves(commands) if GM_ONLY.search(description)]


def _value(option: dict[str, Any], table: Table, ruleset: str) -> object:
    if option.get("choices"):
        return option["choices"][0]["value"]
    kind = option["type"]
    if kind == STRING:
        return "Red" if option["name"] in CAMP_OPTIONS else table.names[ruleset]
    if kind in (INTEGER, NUMBER):
        return min(max(option.get("min_value", 1), 1), option.get("max_value", 1))
    if kind == BOOLEAN:
        return True
    if kind in (USER, MENTIONABLE):
        return table.player
    if kind == ATTACHMENT:
        return ("sheet.yaml", b"name: x\n")
    raise AssertionError(f"no value for option type {kind}")


async def _events(table: Table) -> int:
    assert table.harness.bot is not None
    async with table.harness.bot.database.read() as session:
        return int(await session.scalar(select(func.count(Event.id))) or 0)


async def test_every_gm_command_of_every_ruleset_refuses_a_player(table: Table) -> None:
    commands = _gm_commands(table.harness.emulator.commands())
    assert len(commands) >= 30
    refused = 0
    for name, options in commands:
        for ruleset, channel in table.channels.items():
            given = {option["name"]: _value(option, table, ruleset) for option in options}
            before = await _events(table)
            record = await table.harness.emulator.slash(table.player, channel, name, given)
            reply = record.reply
            assert record.error is None, (name, ruleset, record.error)
            assert reply is not None and reply.ephemeral, (name, ruleset, reply)
            assert reply.content.startswith((REFUSED, ELSEWHERE)), (name, ruleset, reply.content)
            assert await _events(table) == before, (name, ruleset)
            refused += reply.content.startswith(REFUSED)
    assert refused >= len(commands)  # each refused as the GMs' in at least one ruleset's campaign
