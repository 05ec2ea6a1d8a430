"""Every command of every ruleset, from the command tree the bot synced, with options made up from their declared
types (long, odd and hostile text, numbers at and around their bounds, names that exist and names that do not),
by a GM and by a player, in every ruleset's campaign, drawn by hypothesis strategies built from each option's
declared type: the bot never fails with its generic error, never sends what Discord would reject, and always
answers. `FUZZ_ROUNDS` (default 2) sets how many rounds of every command and `FUZZ_SEED` hypothesis's seed:
more rounds and other seeds run a longer search."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

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
from tests.hostile_files import WHOLE_FILES, hostile_bytes
from tests.sizes import size

ROUNDS = size("FUZZ_ROUNDS", 2, 20)
SEED = size("FUZZ_SEED", 20261202, 7)
GENERIC_ERRORS = ("Something went wrong", "The change was saved, but its reply failed")
# Ends nothing by itself (a confirmation button follows), but a round without a campaign tests little.
SKIPPED = frozenset({"campaign start"})
ODD_TEXT = ["", " ", "\u200b", "<@1>", "@everyone", "`", "**x**", "1d20+5", "-1", "9" * 30, "名前", "Ｘ",
            "🙂" * 3, "a" * 99, "\n", "null", "[]", "{}", "&a *a", "!!binary", "'", '"', "\\",
            "DROP TABLE campaigns", "\x00", "a\x00b", "\ud800", "x\udfff"]  # fmt: skip


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


SHEET = b"kind: master\nname: Rin\n"
ODD_FILES = [b"name: x\n", b"- [\n", b"kind: master\nname: \xff\n", b"a: &a [*a]\n", *WHOLE_FILES]


def text_for(option: dict[str, Any], names: list[str]) -> st.SearchStrategy[str]:
    """Text for a string option: the campaign's names, odd and hostile text, or anything up to its length."""
    longest = int(option.get("max_length", 100))
    made_up = st.one_of(
        st.sampled_from(ODD_TEXT), st.text(max_size=longest), st.text("aあ字Z9 _-,.:|", max_size=longest)
    )
    return st.one_of(st.sampled_from(names), made_up).map(lambda text: text[:longest] or "x")


def value_for(option: dict[str, Any], table: Table, ruleset: str) -> st.SearchStrategy[object]:
    """A value for an option, from its declared type, bounds and choices as the command tree gives them."""
    if option.get("choices"):
        return st.sampled_from([choice["value"] for choice in option["choices"]])
    kind = option["type"]
    if kind == STRING:
        return text_for(option, table.names[ruleset])
    if kind in (INTEGER, NUMBER):
        low, high = int(option.get("min_value", -(2**31))), int(option.get("max_value", 2**31 - 1))
        return st.one_of(st.sampled_from([low, high, min(max(0, low), high)]), st.integers(low, high))
    if kind == BOOLEAN:
        return st.booleans()
    if kind in (USER, MENTIONABLE):
        return st.sampled_from(table.users)
    if kind == ATTACHMENT:
        return st.tuples(st.just("sheet.yaml"), st.one_of(st.sampled_from(ODD_FILES), hostile_bytes(SHEET)))
    raise AssertionError(f"no value for option type {kind}")


@st.composite
def options_for(draw: st.DrawFn, options: list[dict[str, Any]], table: Table, ruleset: str) -> dict[str, object]:
    """The required options and some of the others, each with a made-up value."""
    given = [option for option in options if option.get("required") or draw(st.booleans())]
    return {option["name"]: draw(value_for(option, table, ruleset)) for option in given}


# Each example is a round of every command through the emulator, in one long-lived session whose state the
# earlier rounds changed: nothing to shrink against, so hypothesis only generates (a failure names the command,
# the campaign and the options it drew).
@seed(SEED)
@settings(max_examples=ROUNDS, phases=[Phase.generate], database=None, deadline=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(data=st.data())
async def test_every_command_survives_made_up_options(
    table: Table, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    caplog.set_level(logging.DEBUG)  # everything the bot and discord.py log, at their most talkative
    commands = [(name, options) for name, _, options in leaves(table.harness.emulator.commands())
                if name not in SKIPPED]  # fmt: skip
    assert len(commands) >= 80
    for name, options in commands:
        ruleset = data.draw(st.sampled_from(sorted(table.channels)), label="campaign")
        user = data.draw(st.sampled_from(table.users), label="user")
        given = data.draw(options_for(options, table, ruleset), label=f"/{name}")
        record = await table.harness.emulator.slash(user, table.channels[ruleset], name, given)
        assert record.error is None, (name, given, record.error)
        if record.modal is None:  # a form opened is an answer; else a reply (`reply` raises without one)
            assert not record.reply.text().startswith(GENERIC_ERRORS), (name, ruleset, given, record.reply.text())
    assert caplog.records and table.harness.emulator.bot_token not in caplog.text  # the token never in a log line
