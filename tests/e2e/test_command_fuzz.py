"""Every command of every ruleset, from the command tree the bot synced, with options made up from their declared
types (long, odd and hostile text, numbers at and around their bounds, names that exist and names that do not),
by a GM and by a player, in every ruleset's campaign: the bot never fails with its generic error, never sends
what Discord would reject, and always answers. `FUZZ_ROUNDS` (default 2) sets how many rounds of every command
and `FUZZ_SEED` which made-up values: more rounds and other seeds run a longer search."""

from __future__ import annotations

import logging
import os
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

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

ROUNDS = int(os.environ.get("FUZZ_ROUNDS", "2"))
SEED = int(os.environ.get("FUZZ_SEED", "20261202"))
GENERIC_ERRORS = ("Something went wrong", "The change was saved, but its reply failed")
# Ends nothing by itself (a confirmation button follows), but a round without a campaign tests little.
SKIPPED = frozenset({"campaign start"})
ODD_TEXT = ["", " ", "\u200b", "<@1>", "@everyone", "`", "**x**", "1d20+5", "-1", "9" * 30, "名前", "Ｘ",
            "🙂" * 3, "a" * 99, "\n", "null", "[]", "{}", "&a *a", "!!binary", "'", '"', "\\",
            "DROP TABLE campaigns"]  # fmt: skip


@dataclass(frozen=True)
class Table:
    harness: Harness
    users: tuple[User, User]
    channels: dict[str, Channel]
    names: dict[str, list[str]]


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("fuzz")) as url,
        running_harness(url) as harness,
    ):
        gm, player = harness.emulator.add_user("gm"), harness.emulator.add_user("player", locale="ja")
        channels, names = await campaign_of_every_ruleset(harness, gm, player)
        yield Table(harness, (gm, player), channels, {ruleset: [name] for ruleset, name in names.items()})


def _text(option: dict[str, Any], names: list[str], chance: random.Random) -> str:
    longest = int(option.get("max_length", 100))
    pick = chance.random()
    if pick < 0.35 and names:
        return chance.choice(names)
    if pick < 0.75:
        text = chance.choice(ODD_TEXT)
    else:
        text = "".join(chance.choice("aあ字Z9 _-,.:|") for _ in range(chance.randint(1, longest)))
    return text[:longest] or "x"


def _value(option: dict[str, Any], table: Table, ruleset: str, chance: random.Random) -> object:
    if option.get("choices"):
        return chance.choice(option["choices"])["value"]
    kind = option["type"]
    if kind == STRING:
        return _text(option, table.names[ruleset], chance)
    if kind in (INTEGER, NUMBER):
        low, high = option.get("min_value", -(2**31)), option.get("max_value", 2**31 - 1)
        return chance.choice([low, high, 0 if low <= 0 <= high else low, chance.randint(int(low), int(high))])
    if kind == BOOLEAN:
        return chance.random() < 0.5
    if kind in (USER, MENTIONABLE):
        return chance.choice(table.users)
    if kind == ATTACHMENT:
        return ("sheet.yaml", chance.choice([b"name: x\n", b"- [\n", b"kind: master\nname: \xff\n", b"a: &a [*a]\n"]))
    raise AssertionError(f"no value for option type {kind}")


async def test_every_command_survives_made_up_options(table: Table, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # everything the bot and discord.py log, at their most talkative
    chance = random.Random(SEED)
    commands = [(name, options) for name, _, options in leaves(table.harness.emulator.commands())
                if name not in SKIPPED]  # fmt: skip
    assert len(commands) >= 80
    sent = 0
    for _ in range(ROUNDS):
        for name, options in commands:
            ruleset = chance.choice(list(table.channels))
            user = chance.choice(table.users)
            given = {option["name"]: _value(option, table, ruleset, chance) for option in options
                     if option.get("required") or chance.random() < 0.5}  # fmt: skip
            record = await table.harness.emulator.slash(user, table.channels[ruleset], name, given)
            sent += 1
            assert record.error is None, (name, given, record.error)
            assert record.reply is not None or record.modal is not None, (name, given)
            if record.reply is not None:
                assert not record.reply.text().startswith(GENERIC_ERRORS), (name, ruleset, given, record.reply.text())
    assert sent == ROUNDS * len(commands)
    assert caplog.records and table.harness.emulator.bot_token not in caplog.text  # the token never in a log line
