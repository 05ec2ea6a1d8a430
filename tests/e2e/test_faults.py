"""Discord failing under the bot mid-play, in every ruleset's exchange (as each declares it for `fatebot bench`),
thrown by the emulator's switches: a dropped connection, an invalid session, rate limits, server errors, slow
replies and a callback past Discord's 3 seconds.

After each fault the test checks what the players saw and the ledger (`tests/e2e/ledger.py`): every pool equals
what it was plus the changes the log says were applied to it, and every wait answered or expired has exactly one
event saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from bot.bench import Players, newest_id, set_the_tables, the_players
from bot.emulator.models import EVERYONE, InteractionRecord, Message
from bot.emulator.rest import Fault
from bot.rulesets.registry import RULESETS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.declared import ANSWERED_BY_A_CLICK, Declared
from tests.e2e.harness import Harness, running_harness
from tests.e2e.ledger import Ledger, assert_accounts_for, campaign_in, read_ledger

CALLBACK = r"/interactions/\d+/[^/]+/callback$"
# A click the bot acknowledged early (a busy machine) is answered through another route than the one a test refuses.
EARLY_ACKNOWLEDGMENTS_TOLERATED = 3
CHANNEL_MESSAGES = r"/channels/\d+/messages$"


@dataclass
class Campaign:
    declared: Declared
    campaign_id: int
    baseline: Ledger | None = None


@dataclass
class Table:
    harness: Harness
    players: Players
    campaigns: dict[str, Campaign]

    def __getitem__(self, ruleset: str) -> Campaign:
        return self.campaigns[ruleset]

    async def ledger(self, ruleset: str) -> Ledger:
        campaign = self.campaigns[ruleset]
        assert campaign.baseline is not None
        return await read_ledger(
            self.harness.database_url, campaign.campaign_id, since_event=campaign.baseline.last_event
        )

    async def assert_consistent(self, ruleset: str) -> Ledger:
        """Nothing lost or doubled since the table was set: pools are the log's sums, waits resolved once."""
        baseline = self.campaigns[ruleset].baseline
        assert baseline is not None
        now = await self.ledger(ruleset)
        assert_accounts_for(baseline, now)
        return now

    async def seen_through(self, ruleset: str) -> None:
        """The exchange answered to its end, and the log still accounts for everything, with nothing waiting."""
        await self.campaigns[ruleset].declared.see_through()
        assert (await self.assert_consistent(ruleset)).pending_waits == 0


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """A campaign of every ruleset, each set for the exchange it declares, with one bot."""
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("faults")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        players = the_players(emulator, rival_locale="ja")
        await harness.start_bot()
        for ruleset in RULESETS:
            players.channels[ruleset] = [emulator.add_channel(players.guild, ruleset)]
        await set_the_tables(players)
        campaigns = {}
        for ruleset, (channel,) in players.channels.items():
            campaigns[ruleset] = Campaign(Declared(players, ruleset, channel), await campaign_in(url, channel.id))
            campaigns[ruleset].baseline = await read_ledger(url, campaigns[ruleset].campaign_id)
        yield Table(harness, players, campaigns)


async def opened(table: Table, ruleset: str) -> Declared:
    """The ruleset's exchange made but for its last move, which something now waits for."""
    declared = table[ruleset].declared
    await declared.open_until_answerable()
    return declared


def answer(declared: Declared, *, wait: bool = True, settle: bool = True) -> Coroutine[Any, Any, InteractionRecord]:
    answering = declared.answer(wait=wait, settle=settle)
    assert answering is not None
    return answering


async def answered_once(table: Table, ruleset: str, prompt: Message | None, before: Ledger) -> None:
    """The answer was taken once: its prompt lost its buttons, the log accounts for everything and a wait more
    was resolved; then the exchange is answered to its end."""
    if prompt is not None:
        assert table.harness.current(prompt).buttons() == []
    assert (await table.assert_consistent(ruleset)).resolved_waits > before.resolved_waits
    await table.seen_through(ruleset)


def refused(record: InteractionRecord) -> bool:
    """Whether the bot answered privately (a click's answer may be an edit of its prompt alone)."""
    return any(message.ephemeral for message in record.replies)


def prompted(declared: Declared) -> bool:
    return declared.prompt() is not None


async def until_met(fault: Fault) -> None:
    """Until a request has met the fault (and, for a slow reply, is being held)."""
    await asyncio.wait_for(fault.arrived.wait(), 5)


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_an_answer_while_the_connection_is_down_is_replayed_and_answered_once(table: Table, ruleset: str) -> None:
    emulator = table.harness.emulator
    declared = await opened(table, ruleset)
    prompt = declared.prompt()
    before = await table.ledger(ruleset)
    await emulator.gateway.drop(4000)
    answered = await answer(declared)  # sent while the bot is away: RESUME replays it
    assert emulator.gateway.resume_count >= 1 and emulator.connected
    assert answered.error is None and answered.acknowledged and not refused(answered)
    await answered_once(table, ruleset, prompt, before)


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_after_an_invalid_session_the_bot_identifies_again_and_what_waits_still_answers(
    table: Table, ruleset: str
) -> None:
    emulator = table.harness.emulator
    declared = await opened(table, ruleset)
    identified = emulator.gateway.identify_count
    await emulator.invalidate_session(resumable=False)
    assert emulator.gateway.identify_count == identified + 1
    answered = await answer(declared)
    assert answered.error is None and not refused(answered)
    await table.seen_through(ruleset)


@pytest.mark.parametrize("scope", ["user", "global"])
async def test_rate_limits_are_waited_out_and_nothing_is_sent_twice(table: Table, scope: str) -> None:
    harness, emulator = table.harness, table.harness.emulator
    player = table.players.player
    for ruleset in RULESETS:
        declared = table[ruleset].declared
        rolls = (await table.ledger(ruleset)).rolls
        limited = emulator.rate_limit_next("POST", CALLBACK, retry_after=0.2, scope=scope)
        rolled = await harness.slash(player, declared.channel, "roll", dice="1d20+5")
        assert limited.met == 1 and rolled.error is None and len(rolled.replies) == 1
        assert rolled.reply.visible_to is EVERYONE and "1d20" in rolled.reply.text()
        assert (await table.assert_consistent(ruleset)).rolls == rolls + 1

    # A prompt is a message of the bot's own, on another route; it comes after its wait, when the command itself
    # has long answered. (An attack can miss and post nothing: then the next one meets the limit.)
    for ruleset in ANSWERED_BY_A_CLICK:
        declared = table[ruleset].declared
        after = newest_id(table.players, declared.channel)
        posts = emulator.rate_limit_next("POST", CHANNEL_MESSAGES, retry_after=0.2, scope=scope)
        for _ in range(6):
            await declared.made(list(declared.exchange.moves[:-1]))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(posts.arrived.wait(), 1)
            if posts.met:
                break
        await harness.eventually(partial(prompted, declared))
        assert posts.met == 1
        posted = [(message.content, tuple(message.buttons())) for message in emulator.visible_to(
            table.players.gm, declared.channel) if message.id > after and message.interaction_id is None]  # fmt: skip
        assert len(posted) == len(set(posted)), posted
        await table.seen_through(ruleset)


@pytest.mark.parametrize("status", [500, 502])
@pytest.mark.parametrize("ruleset", RULESETS)
async def test_server_errors_on_an_answer_are_retried_and_the_change_is_made_once(
    table: Table, ruleset: str, status: int
) -> None:
    emulator = table.harness.emulator
    declared = await opened(table, ruleset)
    prompt = declared.prompt()
    before = await table.ledger(ruleset)
    failing = emulator.refuse_next("POST", CALLBACK, status=status, code=0)
    answered = await answer(declared)
    assert failing.met == 1 and answered.error is None and not refused(answered)
    await answered_once(table, ruleset, prompt, before)


@pytest.mark.parametrize("ruleset", ANSWERED_BY_A_CLICK)
async def test_a_prompt_discord_would_not_post_is_reported_as_saved_and_answered_from_gm_pending(
    table: Table, ruleset: str
) -> None:
    harness, emulator = table.harness, table.harness.emulator
    declared = table[ruleset].declared
    await declared.made(declared.opening)
    failing = emulator.refuse_next("POST", CHANNEL_MESSAGES, status=503, code=0)
    played = declared.played
    user = table.players.seated(played.seat)
    made = await emulator.slash(user, declared.channel, played.command, played.options)
    if not failing.met:  # the attack missed: nothing to post, and the fault must not meet a later test's post
        failing.count = 0
        await table.seen_through(ruleset)
        return
    # The attack was rolled and saved; a prompt of it never reached the channel. The attacker is told so, not that
    # nothing changed, and the GMs find the wait where every wait is.
    warning = made.replies[-1]
    assert warning.ephemeral and "saved" in warning.content and "nothing was changed" not in warning.content
    pending = await harness.slash(table.players.gm, declared.channel, "gm pending")
    assert (
        len([message for message in pending.replies if message.buttons()])
        == (await table.ledger(ruleset)).pending_waits
    )
    await table.seen_through(ruleset)


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_an_answer_slowed_past_three_seconds_is_posted_in_the_channel(table: Table, ruleset: str) -> None:
    """An answer held on its way until Discord forgot the interaction: the change was made and logged, so the
    table reads it in a message of the bot's own; a click's late answer edits its prompt all the same."""
    emulator = table.harness.emulator
    declared = table[ruleset].declared
    rolls = (await table.ledger(ruleset)).rolls
    await emulator.settle(quiet_for=0.5)  # nothing else on its way, so that the held reply is the roll's
    held = emulator.slow_next("POST", CALLBACK, seconds=0.3)
    record = await emulator.slash(table.players.player, declared.channel, "roll", {"dice": "2d6", "label": "late"},
                                  wait=False, settle=False)  # fmt: skip
    await until_met(held)
    emulator.clock.advance(3.5)
    await emulator.settle()
    assert record.error is not None and record.error.code == 10062
    posted = emulator.last_message(declared.channel)
    assert posted.interaction_id is None and posted.visible_to is EVERYONE and "2d6" in posted.text()
    assert (await table.assert_consistent(ruleset)).rolls == rolls + 1

    await opened(table, ruleset)
    prompt = declared.prompt()
    before = await table.ledger(ruleset)
    await emulator.settle(quiet_for=0.5)
    held = emulator.slow_next("POST", CALLBACK, seconds=0.3)
    answered = await answer(declared, wait=False, settle=False)
    await until_met(held)
    emulator.clock.advance(3.5)
    await emulator.settle()
    assert answered.error is not None and answered.error.code == 10062
    await answered_once(table, ruleset, prompt, before)


@pytest.mark.parametrize("ruleset", ANSWERED_BY_A_CLICK)
async def test_a_prompt_left_with_its_buttons_after_its_answer_loses_them_at_the_next_click(
    table: Table, ruleset: str
) -> None:
    """The answer was saved, but Discord refused the click's reply, so the prompt still shows its buttons: the
    clicker is told the change was saved, and the next click retires the prompt."""
    harness, emulator = table.harness, table.harness.emulator
    for _ in range(EARLY_ACKNOWLEDGMENTS_TOLERATED + 1):
        declared = await opened(table, ruleset)
        prompt = declared.prompt()
        assert prompt is not None
        asked, label = prompt.content, next(label for label in declared.last.buttons if label in prompt.buttons())
        failing = emulator.refuse_next("POST", CALLBACK, status=400, code=50035)
        clicked = await answer(declared)
        assert failing.met == 1
        if harness.current(prompt).buttons():
            break
        # On a busy machine the bot acknowledged the click before answering it (`output.guard`), and that was the
        # reply refused: the answer then went through, and its prompt lost its buttons as usual. Not the case this
        # test is about: the exchange is seen through and another opened.
        assert not refused(clicked), clicked.replies[-1].content
        await table.seen_through(ruleset)
    else:
        pytest.fail(f"every click was acknowledged before its answer ({EARLY_ACKNOWLEDGMENTS_TOLERATED + 1} tries)")
    # mei reads Japanese: "the change was saved, but its reply failed ... /log show has what changed".
    assert clicked.reply.ephemeral and "変更は保存されました" in clicked.reply.content
    answered = (await table.ledger(ruleset)).resolved_waits

    again = await emulator.click(table.players.seated(declared.last.seat), prompt, label)
    assert again.reply.ephemeral and "済み" in again.reply.content  # already answered
    retired = harness.current(prompt)  # as if the first answer had edited it
    assert retired.buttons() == [] and retired.content != asked
    assert (await table.assert_consistent(ruleset)).resolved_waits == answered
    await table.seen_through(ruleset)
