"""Load: many conflicting commands on one campaign, and commands in many campaigns at once, on SQLite and
PostgreSQL.

Nothing is lost or doubled: every award the bot said it made is in its pool and in the log once, and every award
it refused as busy is in neither. Every command is acknowledged within Discord's 3 seconds: answered, or deferred
("thinking...") and answered after.

CI sends `LOAD_COMMANDS` (200) conflicting awards and runs `LOAD_CAMPAIGNS` (50) campaigns;
`LOAD_COMMANDS=1000 LOAD_CAMPAIGNS=200 pytest tests/e2e/test_load.py` is the full size.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from bot.emulator.models import EVERYONE, Channel, Guild, InteractionRecord, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness
from tests.e2e.ledger import assert_accounts_for, campaign_in, read_ledger
from tests.sizes import size

LOAD_COMMANDS = size("LOAD_COMMANDS", 200, 1000)
LOAD_CAMPAIGNS = size("LOAD_CAMPAIGNS", 50, 200)
DISCORD_DEADLINE_SECONDS = 3.0
# How long the slowest answer of a burst may take after its "thinking...": Discord allows 15 minutes.
ANSWER_PATIENCE_SECONDS = 120.0
BUSY = "The campaign is busy with another change: nothing was changed, try again in a moment."


@dataclass(frozen=True)
class Crowd:
    harness: Harness
    guild: Guild
    gm: User
    bob: User
    master: dict[str, Any]


@pytest.fixture(scope="module", params=BACKENDS)
async def crowd(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Crowd]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("load")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, bob = emulator.add_user("kirei"), emulator.add_user("bob")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        emulator.add_member(guild, bob)
        await harness.start_bot()
        lobby = harness.new_channel(guild)
        await harness.slash(gm, lobby, "campaign start", ruleset="fate_points")
        template = await harness.slash(bob, lobby, "character template", kind="master")
        yield Crowd(harness, guild, gm, bob, yaml.safe_load(template.reply.attachments[0].data))


async def campaign_with_rin(crowd: Crowd) -> tuple[Channel, int]:
    """A new campaign in a channel of its own, where bob plays Rin, a Master with Fate/Points to be awarded."""
    harness = crowd.harness
    channel = harness.new_channel(crowd.guild)
    await harness.slash(crowd.gm, channel, "campaign start", ruleset="fate_points")
    text = yaml.safe_dump({**crowd.master, "name": "Rin"}, allow_unicode=True).encode()
    created = await harness.slash(crowd.bob, channel, "character import", file=("sheet.yaml", text))
    assert not created.reply.ephemeral, created.reply.content
    if harness.last(channel, crowd.gm).buttons():  # held for a GM's approval
        await harness.approve_sheet(crowd.gm, channel, "Rin")
    return channel, await campaign_in(harness.database_url, channel.id)


async def award(crowd: Crowd, channel: Channel) -> InteractionRecord:
    options = {"character": "Rin", "resource": "fate_points", "amount": 1}
    return await crowd.harness.emulator.slash(
        crowd.gm, channel, "gm award", options, timeout=ANSWER_PATIENCE_SECONDS, settle=False
    )


def final_reply(record: InteractionRecord) -> str:
    """The text the user is left with: the answer that replaced "thinking...", or the reply itself."""
    answers = [reply for reply in record.replies if not reply.loading]
    assert answers, f"interaction {record.id} was never answered"
    return answers[-1].text()


def assert_in_time(records: list[InteractionRecord]) -> None:
    late = [
        record
        for record in records
        if record.acknowledged_at is None
        or record.dispatched_at is None
        or record.acknowledged_at - record.dispatched_at > DISCORD_DEADLINE_SECONDS
    ]
    assert late == [], f"{len(late)} of {len(records)} not acknowledged within Discord's 3 seconds"


def made(records: list[InteractionRecord]) -> int:
    """How many awards the bot said it made; every other one must have said the campaign was busy."""
    replies = [final_reply(record) for record in records]
    assert all(reply == BUSY or "Rin" in reply for reply in replies), {reply[:80] for reply in replies}
    return sum(reply != BUSY for reply in replies)


async def test_conflicting_awards_on_one_campaign_are_each_made_once_or_refused_as_busy(crowd: Crowd) -> None:
    channel, campaign_id = await campaign_with_rin(crowd)
    url = crowd.harness.database_url
    baseline = await read_ledger(url, campaign_id)
    records = await asyncio.gather(*(award(crowd, channel) for _ in range(LOAD_COMMANDS)))
    await crowd.harness.emulator.settle()
    assert_in_time(records)
    now = await read_ledger(url, campaign_id, since_event=baseline.last_event)
    assert_accounts_for(baseline, now)
    awarded = made(records)
    assert now.pools[("Rin", "fate_points")] == baseline.pools[("Rin", "fate_points")] + awarded
    assert awarded >= LOAD_COMMANDS // 2, f"only {awarded} of {LOAD_COMMANDS} were made"


async def test_a_command_in_every_one_of_many_campaigns_at_once(crowd: Crowd) -> None:
    campaigns = [await campaign_with_rin(crowd) for _ in range(LOAD_CAMPAIGNS)]
    url = crowd.harness.database_url
    baselines = [await read_ledger(url, campaign_id) for _, campaign_id in campaigns]
    emulator = crowd.harness.emulator
    rolls = [
        emulator.slash(crowd.bob, channel, "roll", {"dice": "1d20+5"}, timeout=ANSWER_PATIENCE_SECONDS, settle=False)
        for channel, _ in campaigns
    ]
    awards = [award(crowd, channel) for channel, _ in campaigns]
    records = await asyncio.gather(*rolls, *awards)
    await emulator.settle()
    assert_in_time(records)
    rolled, awarded = records[: len(campaigns)], records[len(campaigns) :]
    assert all("1d20" in final_reply(record) and record.replies[-1].visible_to is EVERYONE for record in rolled)
    for (_, campaign_id), baseline, record in zip(campaigns, baselines, awarded, strict=True):
        now = await read_ledger(url, campaign_id, since_event=baseline.last_event)
        assert_accounts_for(baseline, now)
        assert now.rolls == baseline.rolls + 1
        assert now.pools[("Rin", "fate_points")] == baseline.pools[("Rin", "fate_points")] + made([record])
