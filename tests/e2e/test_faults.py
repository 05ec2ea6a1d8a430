"""Discord failing under the bot mid-play, thrown by the emulator's switches: a dropped connection, an invalid
session, rate limits, server errors, slow replies and a callback past Discord's 3 seconds.

After each fault the test checks what the players saw and the ledger (`tests/e2e/ledger.py`): every pool equals
what it was plus the changes the log says were applied to it, and every wait answered or expired has exactly one
event saying so.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.emulator.models import EVERYONE, Channel, InteractionRecord, Message, User
from bot.emulator.rest import Fault
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.fate_pairs import enlist
from tests.e2e.harness import Harness, running_harness
from tests.e2e.ledger import Ledger, assert_accounts_for, campaign_in, read_ledger

CALLBACK = r"/interactions/\d+/[^/]+/callback$"
CHANNEL_MESSAGES = r"/channels/\d+/messages$"
ATTACK = {"target": "Rider", "action": "melee|Invisible Air"}


@dataclass
class Table:
    harness: Harness
    channel: Channel
    gm: User
    bob: User
    mei: User
    campaign_id: int
    baseline: Ledger | None = None

    async def ledger(self) -> Ledger:
        assert self.baseline is not None
        return await read_ledger(self.harness.database_url, self.campaign_id, since_event=self.baseline.last_event)

    async def assert_consistent(self) -> Ledger:
        """Nothing lost or doubled since the table was set: pools are the log's sums, waits resolved once."""
        assert self.baseline is not None
        now = await self.ledger()
        assert_accounts_for(self.baseline, now)
        return now


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("faults")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, bob, mei = emulator.add_user("kirei"), emulator.add_user("bob"), emulator.add_user("mei", locale="ja")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei):
            emulator.add_member(guild, player)
        channel = emulator.add_channel(guild, "faults")
        await harness.start_bot()
        await harness.slash(gm, channel, "campaign start", ruleset="fate_points", name="Faults")
        table = Table(harness, channel, gm, bob, mei, await campaign_in(url, channel.id))
        await enlist(emulator, gm, channel, bob, "Rin", "Archer")
        await enlist(emulator, gm, channel, mei, "Sakura", "Rider")
        table.baseline = await read_ledger(url, table.campaign_id)
        yield table


async def attack(table: Table) -> Message:
    """bob's Archer attacks mei's Rider in a new round: the defence prompt that waits for mei."""
    harness = table.harness
    assert (await harness.slash(table.gm, table.channel, "combat round")).error is None
    declared = await harness.slash(table.bob, table.channel, "attack", **ATTACK)
    assert declared.error is None and not declared.reply.ephemeral, declared.reply.content
    # A rate-limited post comes after its wait, when the command itself has long answered.
    await harness.eventually(lambda: prompt_for(table) is not None)
    prompt = prompt_for(table)
    assert prompt is not None
    return prompt


def prompt_for(table: Table) -> Message | None:
    shown = table.harness.emulator.visible_to(table.mei, table.channel)
    return next((message for message in reversed(shown) if "Dodge" in message.buttons()), None)


async def until_met(fault: Fault) -> None:
    """Until a request has met the fault (and, for a slow reply, is being held)."""
    await asyncio.wait_for(fault.arrived.wait(), 5)


async def dodge(table: Table, prompt: Message) -> InteractionRecord:
    return await table.harness.emulator.click(table.mei, prompt, "Dodge")


async def test_a_click_while_the_connection_is_down_is_replayed_and_answered_once(table: Table) -> None:
    emulator = table.harness.emulator
    prompt = await attack(table)
    before = await table.ledger()
    await emulator.gateway.drop(4000)
    clicked = await dodge(table, prompt)  # sent while the bot is away: RESUME replays it
    assert emulator.gateway.resume_count >= 1 and emulator.connected
    assert clicked.error is None and clicked.acknowledged
    assert "Dodge" not in table.harness.current(prompt).buttons()
    again = await emulator.click(table.mei, prompt, "Dodge") if table.harness.current(prompt).buttons() else None
    assert again is None or again.reply.ephemeral
    after = await table.assert_consistent()
    assert after.resolved_waits == before.resolved_waits + 1


async def test_after_an_invalid_session_the_bot_identifies_again_and_a_waiting_defence_still_works(
    table: Table,
) -> None:
    emulator = table.harness.emulator
    prompt = await attack(table)
    identified = emulator.gateway.identify_count
    await emulator.invalidate_session(resumable=False)
    assert emulator.gateway.identify_count == identified + 1
    clicked = await dodge(table, prompt)
    assert clicked.error is None
    assert "Dodge" not in table.harness.current(prompt).buttons()
    await table.assert_consistent()


@pytest.mark.parametrize("scope", ["user", "global"])
async def test_rate_limits_are_waited_out_and_nothing_is_sent_twice(table: Table, scope: str) -> None:
    harness, emulator = table.harness, table.harness.emulator
    rolls = (await table.ledger()).rolls
    limited = emulator.rate_limit_next("POST", CALLBACK, retry_after=0.2, scope=scope)
    rolled = await harness.slash(table.bob, table.channel, "roll", dice="1d20+5")
    assert limited.met == 1 and rolled.error is None and len(rolled.replies) == 1
    assert rolled.reply.visible_to is EVERYONE and "1d20" in rolled.reply.text()

    # The prompt of an attack is a message of the bot's own, on another route.
    posts = emulator.rate_limit_next("POST", CHANNEL_MESSAGES, retry_after=0.2, scope=scope)
    prompt = await attack(table)
    assert posts.met == 1
    assert len([message for message in emulator.messages if message.buttons() == prompt.buttons()
                and message.channel_id == table.channel.id and message.id >= prompt.id]) == 1  # fmt: skip
    assert (await dodge(table, prompt)).error is None
    ledger = await table.assert_consistent()
    assert ledger.rolls == rolls + 1


@pytest.mark.parametrize("status", [500, 502])
async def test_server_errors_on_a_reply_are_retried_and_the_change_is_made_once(table: Table, status: int) -> None:
    emulator = table.harness.emulator
    prompt = await attack(table)
    failing = emulator.refuse_next("POST", CALLBACK, status=status, code=0)
    clicked = await dodge(table, prompt)
    assert failing.met == 1 and clicked.error is None
    assert "Dodge" not in table.harness.current(prompt).buttons()
    await table.assert_consistent()


async def test_a_prompt_discord_would_not_post_is_reported_as_saved_and_answered_from_gm_pending(
    table: Table,
) -> None:
    harness, emulator = table.harness, table.harness.emulator
    assert (await harness.slash(table.gm, table.channel, "combat round")).error is None
    failing = emulator.refuse_next("POST", CHANNEL_MESSAGES, status=503, code=0)
    declared = await harness.slash(table.bob, table.channel, "attack", **ATTACK)
    assert failing.met == 1
    # The attack was rolled and saved; its prompt never reached the channel. The attacker is told so, not that
    # nothing changed, and the GMs find the wait where every wait is.
    warning = declared.replies[-1]
    assert warning.ephemeral and "saved" in warning.content and "nothing was changed" not in warning.content
    pending = await harness.slash(table.gm, table.channel, "gm pending")
    waiting = next(message for message in [pending.reply, *pending.replies] if "Dodge" in message.buttons())
    answered = await emulator.click(table.gm, waiting, "Dodge")
    assert answered.error is None
    await table.assert_consistent()


async def test_a_reply_slowed_past_three_seconds_is_posted_in_the_channel(table: Table) -> None:
    """A roll's answer held on its way until Discord forgot the interaction: the roll was made and logged, so
    the table reads it in a message of the bot's own; a click's late answer edits its prompt all the same."""
    harness, emulator = table.harness, table.harness.emulator
    rolls = (await table.ledger()).rolls
    held = emulator.slow_next("POST", CALLBACK, seconds=0.3)
    record = await emulator.slash(table.bob, table.channel, "roll", {"dice": "2d6", "label": "late"},
                                  wait=False, settle=False)  # fmt: skip
    await until_met(held)
    emulator.clock.advance(3.5)
    await emulator.settle()
    assert record.error is not None and record.error.code == 10062
    posted = emulator.last_message(table.channel)
    assert posted.interaction_id is None and posted.visible_to is EVERYONE and "2d6" in posted.text()

    prompt = await attack(table)
    held = emulator.slow_next("POST", CALLBACK, seconds=0.3)
    clicked = await emulator.click(table.mei, prompt, "Dodge", wait=False, settle=False)
    await until_met(held)
    emulator.clock.advance(3.5)
    await emulator.settle()
    assert clicked.error is not None and clicked.error.code == 10062
    assert "Dodge" not in harness.current(prompt).buttons()
    ledger = await table.assert_consistent()
    assert ledger.rolls == rolls + 1


async def test_a_prompt_left_with_its_buttons_after_its_answer_loses_them_at_the_next_click(table: Table) -> None:
    """The defence was rolled and saved, but Discord refused the click's answer, so the prompt still shows its
    buttons: the clicker is told the change was saved, and the next click retires the prompt."""
    harness, emulator = table.harness, table.harness.emulator
    prompt = await attack(table)
    refused = emulator.refuse_next("POST", CALLBACK, status=400, code=50035)
    clicked = await dodge(table, prompt)
    assert refused.met == 1
    # mei reads Japanese: "the change was saved, but its reply failed ... /log show has what changed".
    assert clicked.reply.ephemeral and "変更は保存されました" in clicked.reply.content
    assert "Dodge" in harness.current(prompt).buttons()
    answered = (await table.ledger()).resolved_waits

    again = await dodge(table, prompt)
    assert again.reply.ephemeral and again.reply.content == "その攻撃にはすでに対応済みです。"  # already answered
    retired = harness.current(prompt)  # as if the first answer had edited it, in the campaign's language
    assert retired.buttons() == [] and retired.content == "Rider answered: Dodge."
    assert (await table.assert_consistent()).resolved_waits == answered
