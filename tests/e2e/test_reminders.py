"""Whose move it is and reminders, through the emulator: `/campaign waiting`, `/waiting`, a campaign's reminder
delay, players' reminder settings (a ping or a DM, quiet hours in their time zone), reminders sent once per delay
and exactly once across restarts, in the channel once when the user's DMs are closed, the GMs' daily digest of what
is stuck (one for all the campaigns a GM runs), and one notice failing without stopping the next."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select, update

from bot.bench import Players, set_the_tables, the_players
from bot.db.models import PENDING, Campaign, Exchange, Notice, WaitRow
from bot.emulator import Emulator
from bot.emulator.models import Channel, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.declared import Declared
from tests.e2e.harness import Harness, running_harness

HOUR = 3600.0
CHANNEL_MESSAGES = r"/channels/\d+/messages$"
REMINDER = re.compile(r"reminder|リマインダー|提醒")
DIGEST_SECTION = "Stuck in **Bench**"
# The campaigns kirei runs, each with its own fight: a digest has something stuck in every one.
CAMPAIGNS = 3


@dataclass
class Table:
    harness: Harness
    players: Players
    fights: list[Declared]
    kibitzer: User

    @property
    def fight(self) -> Declared:
        return self.fights[0]

    @property
    def channel(self) -> Channel:
        return self.fight.channel


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """Fate/Points fights (bob's Archer against mei's Rider, who reads Japanese) in three campaigns of kirei's."""
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("reminders")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        players = the_players(emulator, rival_locale="ja")
        kibitzer = emulator.add_user("ken")
        emulator.add_member(players.guild, kibitzer)
        await harness.start_bot()
        channels = [emulator.add_channel(players.guild, f"fuyuki-{number}") for number in range(CAMPAIGNS)]
        players.channels["fate_points"] = channels
        await set_the_tables(players)
        yield Table(harness, players, [Declared(players, "fate_points", channel) for channel in channels], kibitzer)


def reminders_to(table: Table, user: User, channel: Channel | None = None) -> list[Message]:
    """The reminders that pinged the user in the channel (the first campaign's unless told)."""
    shown = table.harness.emulator.visible_to(user, channel or table.channel)
    return [message for message in shown if user.id in message.notified and REMINDER.search(message.content)]


def digests_to(table: Table, gm: User) -> list[Message]:
    return [message for message in table.harness.emulator.dms(gm) if DIGEST_SECTION in message.content]


def pings_to(table: Table, user: User) -> list[Message]:
    """Every message of the bot's that pinged the user in any of the campaigns' channels."""
    emulator = table.harness.emulator
    return [message for fight in table.fights for message in emulator.visible_to(user, fight.channel)
            if user.id in message.notified]  # fmt: skip


def dms_to(table: Table, user: User) -> list[Message]:
    return [message for message in table.harness.emulator.dms(user) if "**" in message.content]


async def an_attack_waiting_for_mei(fight: Declared) -> Message:
    await fight.made(list(fight.exchange.moves[:-1]))
    prompt = fight.prompt()
    assert prompt is not None
    return prompt


async def answered(table: Table) -> None:
    for fight in table.fights:
        await fight.see_through()


def to_the_next_day(emulator: Emulator) -> None:
    """The clock just past the next midnight (UTC): no GM has had that day's digest yet."""
    now = emulator.clock.now()
    midnight = datetime.combine(now.date() + timedelta(days=1), time(), UTC)
    emulator.clock.advance((midnight - now).total_seconds() + 60)


class Failures(logging.Handler):
    """The errors a logger logs, with an event set at the first: what the bot did without a message."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self.logged = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.logged.set()


@contextlib.contextmanager
def failures_of(name: str) -> Iterator[Failures]:
    failures = Failures()
    logger = logging.getLogger(name)
    logger.addHandler(failures)
    try:
        yield failures
    finally:
        logger.removeHandler(failures)


async def test_whose_move_it_is_for_the_table_and_for_each_player(table: Table) -> None:
    harness, mei, bob = table.harness, table.players.defender, table.players.player
    prompt = await an_attack_waiting_for_mei(table.fight)
    listed = (await harness.slash(table.kibitzer, table.channel, "campaign waiting")).reply
    assert listed.ephemeral
    assert "Waiting for an answer in Bench: 1" in listed.content
    assert f"Rider ({mei.mention})" in listed.content and "<t:" in listed.content
    link = f"https://discord.com/channels/{prompt.guild_id}/{prompt.channel_id}/{prompt.id}"
    assert link in listed.content
    mine = (await harness.slash(mei, table.channel, "waiting")).reply
    assert mine.ephemeral and "あなたの回答待ち：1件" in mine.content and "**Bench**" in mine.content
    assert link in mine.content
    nothing = (await harness.slash(bob, table.channel, "waiting")).reply
    assert nothing.content == "Nothing waits for your answer in this server's campaigns."

    # A prompt Discord would not post: the wait is the GMs' to see (in /gm pending and here), not the table's.
    await answered(table)
    await table.fight.made(table.fight.opening)
    harness.emulator.refuse_next("POST", CHANNEL_MESSAGES, status=503, code=0)
    played = table.fight.played
    await harness.emulator.slash(bob, table.channel, played.command, played.options)
    hidden = (await harness.slash(table.kibitzer, table.channel, "campaign waiting")).reply
    assert hidden.content == "Nothing waits for an answer in Bench."
    for_gm = (await harness.slash(table.players.gm, table.channel, "campaign waiting")).reply
    assert "Waiting for an answer in Bench: 1" in for_gm.content and "https://" not in for_gm.content
    await answered(table)
    assert (await harness.slash(mei, table.channel, "waiting")).reply.content.startswith("このサーバー")


async def test_a_wait_left_unanswered_pings_once_per_delay_then_by_dm_outside_quiet_hours(table: Table) -> None:
    harness, emulator, mei = table.harness, table.harness.emulator, table.players.defender
    await an_attack_waiting_for_mei(table.fight)
    before = len(reminders_to(table, mei))
    emulator.clock.advance(11 * HOUR)
    await emulator.settle(quiet_for=1.0)
    assert len(reminders_to(table, mei)) == before  # not yet: the campaign's delay is 12 hours
    emulator.clock.advance(1.5 * HOUR)
    await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 1)
    reminder = reminders_to(table, mei)[-1]
    assert reminder.notified == frozenset({mei.id})  # the one waited on, and no one else
    assert "Archer attacks Rider" in reminder.content and "https://discord.com/channels/" in reminder.content
    await emulator.settle(quiet_for=1.5)  # more looks at the same wait: no second reminder within the delay
    assert len(reminders_to(table, mei)) == before + 1

    # mei would rather have a DM, and keeps quiet hours in Tokyo around the time the next reminder falls due.
    tokyo_hour = (emulator.clock.now().hour + 9) % 24
    start, end = (tokyo_hour + 11) % 24, (tokyo_hour + 14) % 24
    settings = (await harness.slash(mei, table.channel, "reminders", by="dm", time_zone="asia/tokyo",
                                    quiet_from=start, quiet_to=end)).reply  # fmt: skip
    assert settings.ephemeral and "Asia/Tokyo" in settings.content
    assert f"{start:02d}:00〜{end:02d}:00" in settings.content
    emulator.clock.advance(12 * HOUR)  # the next reminder is due, in mei's quiet hours: nothing yet
    await emulator.settle(quiet_for=1.5)
    assert dms_to(table, mei) == []
    emulator.clock.advance(3 * HOUR)
    await harness.eventually(lambda: len(dms_to(table, mei)) == 1)
    dm = dms_to(table, mei)[0]
    assert dm.content.startswith("**Bench**からのリマインダー") and "Archer が Rider を攻撃" in dm.content
    assert len(reminders_to(table, mei)) == before + 1  # by DM now, not in the channel
    await harness.slash(mei, table.channel, "reminders", by="ping", no_quiet_hours=True)
    await answered(table)


async def test_the_shortest_delay_reminds_an_hour_after_the_wait_opened(table: Table) -> None:
    """The look for due notices reads only waits open at least an hour, the shortest delay a GM can set: a wait is
    still reminded of as soon as that hour is up."""
    harness, emulator, mei = table.harness, table.harness.emulator, table.players.defender
    await harness.slash(table.players.gm, table.channel, "campaign reminders", hours=1)
    await harness.slash(mei, table.channel, "reminders", by="ping", no_quiet_hours=True)
    try:
        await an_attack_waiting_for_mei(table.fight)
        before = len(reminders_to(table, mei))
        emulator.clock.advance(0.9 * HOUR)
        await emulator.settle(quiet_for=1.0)
        assert len(reminders_to(table, mei)) == before
        emulator.clock.advance(0.15 * HOUR)
        await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 1)
    finally:
        await harness.slash(table.players.gm, table.channel, "campaign reminders", hours=12)
        await answered(table)


async def test_a_reminder_is_sent_exactly_once_across_a_failed_send_and_restarts(table: Table) -> None:
    harness, emulator, mei = table.harness, table.harness.emulator, table.players.defender
    await an_attack_waiting_for_mei(table.fight)
    before = len(reminders_to(table, mei))
    failing = emulator.refuse_next("POST", CHANNEL_MESSAGES, status=503, code=0)
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: failing.met == 1)
    await harness.restart()  # the claimed reminder was not sent: the new bot sends it
    await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 1)

    # The bot stopped after sending the next one and before saving that it did: sent again with its nonce,
    # Discord keeps the first copy.
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 2)
    await restart_before_the_latest_was_marked_sent(table)
    assert len(reminders_to(table, mei)) == before + 2
    await answered(table)


async def latest_notice(table: Table) -> int:
    bot = table.harness.bot
    assert bot is not None
    async with bot.database.read() as session:
        latest = await session.scalar(select(func.max(Notice.id)).where(Notice.wait_id.is_not(None)))
    assert latest is not None
    return latest


async def restart_before_the_latest_was_marked_sent(table: Table) -> None:
    """As if the bot had stopped after sending the latest reminder and before saving that it did."""
    bot = table.harness.bot
    assert bot is not None
    async with bot.database.write() as session:
        await session.execute(update(Notice).where(Notice.id == (await latest_notice(table))).values(sent_at=None))
    await table.harness.restart()
    await table.harness.emulator.settle(quiet_for=1.5)


async def test_the_gms_get_a_daily_digest_and_may_turn_reminders_off(table: Table) -> None:
    harness, emulator, gm, mei = table.harness, table.harness.emulator, table.players.gm, table.players.defender
    refused = (await harness.slash(mei, table.channel, "campaign reminders", hours=1)).reply
    assert refused.ephemeral
    off = (await harness.slash(gm, table.channel, "campaign reminders", hours=0)).reply
    assert not off.ephemeral and "nobody is reminded" in off.content and "12 hours" in off.content
    await an_attack_waiting_for_mei(table.fight)
    before, digests = len(reminders_to(table, mei)), len(digests_to(table, gm))
    emulator.clock.advance(23 * HOUR)
    await emulator.settle(quiet_for=1.5)
    assert len(digests_to(table, gm)) == digests  # stuck for less than a day, with reminders off
    emulator.clock.advance(2 * HOUR)
    await harness.eventually(lambda: len(digests_to(table, gm)) == digests + 1)
    digest = digests_to(table, gm)[-1]
    assert "Archer attacks Rider" in digest.content and "1 day" in digest.content
    await emulator.settle(quiet_for=1.5)
    assert len(digests_to(table, gm)) == digests + 1  # once a day
    assert len(reminders_to(table, mei)) == before  # reminders are off
    on = (await harness.slash(gm, table.channel, "campaign reminders", hours=6)).reply
    assert "6 hours" in on.content and "never" in on.content
    await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 1)
    await answered(table)


async def test_a_gms_digest_comes_once_a_day_of_their_own_time_zone(table: Table) -> None:
    harness, emulator, gm = table.harness, table.harness.emulator, table.players.gm
    tokyo = ZoneInfo("Asia/Tokyo")
    await harness.slash(gm, table.channel, "reminders", time_zone="Asia/Tokyo")
    now = emulator.clock.now()
    midnight = datetime.combine(now.astimezone(tokyo).date() + timedelta(days=1), time(), tokyo)
    emulator.clock.advance((midnight - now).total_seconds() + 60)  # a Tokyo day with no digest yet
    await an_attack_waiting_for_mei(table.fight)
    digests = len(digests_to(table, gm))
    emulator.clock.advance(25 * HOUR)  # stuck, at 01:01 of the next Tokyo day
    await harness.eventually(lambda: len(digests_to(table, gm)) == digests + 1)
    # 10:01 in Tokyo: a new day in UTC, the same day for the GM.
    emulator.clock.advance(9 * HOUR)
    await emulator.settle(quiet_for=1.5)
    assert len(digests_to(table, gm)) == digests + 1
    emulator.clock.advance(14 * HOUR)  # just past the GM's next midnight
    await harness.eventually(lambda: len(digests_to(table, gm)) == digests + 2)
    await harness.slash(gm, table.channel, "reminders", time_zone="UTC")
    await answered(table)


async def test_settings_refuse_what_they_cannot_keep(table: Table) -> None:
    harness, mei = table.harness, table.players.defender
    unknown = (await harness.slash(mei, table.channel, "reminders", time_zone="Mars/Olympus")).reply
    assert unknown.ephemeral and "Mars/Olympus" in unknown.content and "タイムゾーン" in unknown.content
    half = (await harness.slash(mei, table.channel, "reminders", quiet_from=23)).reply
    assert half.ephemeral and "開始と終了" in half.content
    shown = (await harness.slash(mei, table.channel, "reminders")).reply
    assert "おやすみ時間なし" in shown.content
    zones = await harness.emulator.autocomplete(mei, table.channel, "reminders", {"time_zone": "tokyo"}, "time_zone")
    assert [choice["value"] for choice in zones] == ["Asia/Tokyo"]


async def test_a_recap_since_the_last_move_or_a_date(table: Table) -> None:
    harness, gm, bob, mei = table.harness, table.players.gm, table.players.player, table.players.defender
    # Rider at full health, whatever the earlier attacks did: the fight's own heal changes nothing since.
    await harness.slash(gm, table.channel, "gm award", character="Rider", resource="hp", amount=1000)
    await harness.slash(mei, table.channel, "roll", dice="1d20", label="my last move")
    harness.emulator.clock.advance(HOUR)
    await an_attack_waiting_for_mei(table.fight)
    await harness.slash(gm, table.channel, "gm award", character="Rider", resource="hp", amount=-5)
    await harness.slash(bob, table.channel, "roll", dice="2d6", label="while mei was away")
    recap = (await harness.slash(mei, table.channel, "log recap")).reply
    assert recap.ephemeral
    text = recap.text()
    assert "Benchの振り返り" in text
    assert "ロール2回" in text  # the attack's and bob's roll, not mei's own from before
    assert "**Rider**：体力 -5" in text and "Rider の 体力 を -5" in text  # a pool in words, not by its key
    assert "あなたの回答待ち：1件" in text and "Archer が Rider を攻撃" in text
    assert "while mei was away" in text and "my last move" not in text

    wider = (await harness.slash(mei, table.channel, "log recap", since="2h")).reply.text()
    assert "my last move" in wider
    bad = (await harness.slash(mei, table.channel, "log recap", since="last tuesday")).reply
    assert bad.ephemeral and "last tuesday" in bad.content
    await answered(table)


async def test_a_reminder_to_closed_dms_pings_in_the_channel_once_across_a_failed_send_and_restarts(
    table: Table,
) -> None:
    harness, emulator, mei = table.harness, table.harness.emulator, table.players.defender
    await harness.slash(table.players.gm, table.channel, "campaign reminders", hours=12)
    await harness.slash(mei, table.channel, "reminders", by="dm")
    emulator.set_dms_open(mei, False)
    await an_attack_waiting_for_mei(table.fight)
    before, dms = len(reminders_to(table, mei)), len(emulator.dms(mei))
    # The ping that stands in for the refused DM fails once: the bot restarts before trying it again.
    failing = emulator.refuse_next("POST", rf"/channels/{table.channel.id}/messages$", status=503, code=0)
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: failing.met == 1)
    await harness.restart()
    await harness.eventually(lambda: len(reminders_to(table, mei)) == before + 1)
    ping = reminders_to(table, mei)[-1]
    assert ping.notified == frozenset({mei.id}) and "cannot send you direct messages" in ping.content
    assert "Archer attacks Rider" in ping.content  # in the campaign's language, as every ping of the channel

    # Sent, and the bot stopped before saving that it was: sent again with its nonce, Discord keeps one copy;
    # and the refused DM is not tried again.
    await restart_before_the_latest_was_marked_sent(table)
    assert len(reminders_to(table, mei)) == before + 1
    assert len(emulator.dms(mei)) == dms
    emulator.set_dms_open(mei, True)
    await harness.slash(mei, table.channel, "reminders", by="ping")
    await answered(table)


async def test_a_gm_of_many_campaigns_gets_one_digest_of_them_all(table: Table) -> None:
    harness, emulator, gm = table.harness, table.harness.emulator, table.players.gm
    to_the_next_day(emulator)
    prompts = [await an_attack_waiting_for_mei(fight) for fight in table.fights]
    digests = len(digests_to(table, gm))
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: len(digests_to(table, gm)) > digests)
    await emulator.settle(quiet_for=1.5)
    sent = digests_to(table, gm)[digests:]
    assert len(sent) == 1, [message.content for message in sent]
    digest = sent[0].content
    assert digest.startswith("Your daily digest") and digest.count(DIGEST_SECTION) == CAMPAIGNS
    for prompt in prompts:  # each campaign's section links to its own prompt
        assert f"/{prompt.channel_id}/{prompt.id}" in digest
    await answered(table)


async def test_a_gm_whose_dms_are_closed_is_pinged_once_without_what_is_stuck(table: Table) -> None:
    harness, emulator, gm = table.harness, table.harness.emulator, table.players.gm
    to_the_next_day(emulator)
    emulator.set_dms_open(gm, False)
    await an_attack_waiting_for_mei(table.fight)
    dms, pinged = len(emulator.dms(gm)), len(pings_to(table, gm))
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: len(pings_to(table, gm)) == pinged + 1)
    await emulator.settle(quiet_for=1.5)
    assert len(pings_to(table, gm)) == pinged + 1
    told = pings_to(table, gm)[-1]
    assert told.channel_id == table.channel.id and told.notified == frozenset({gm.id})
    assert "could not reach you" in told.content and table.harness.mention("campaign waiting") in told.content
    for private in ("Archer", "Rider", "Stuck", "https://"):  # the digest is the GMs': nothing of it is shown
        assert private not in told.content
    assert len(emulator.dms(gm)) == dms
    emulator.set_dms_open(gm, True)
    await answered(table)


async def test_a_notice_failing_unexpectedly_does_not_stop_the_next(table: Table) -> None:
    harness, emulator, mei = table.harness, table.harness.emulator, table.players.defender
    first, second = table.fights[0], table.fights[1]
    for fight in (first, second):
        await harness.slash(table.players.gm, fight.channel, "campaign reminders", hours=12)
    await an_attack_waiting_for_mei(first)
    bot = harness.bot
    assert bot is not None
    async with bot.database.write() as session:
        campaign_id, wait_id, exchange_id = (await session.execute(
            select(Campaign.id, WaitRow.id, WaitRow.exchange_id).join(WaitRow, WaitRow.campaign_id == Campaign.id)
            .where(Campaign.channel_id == first.channel.id, WaitRow.status == PENDING)
        )).one()  # fmt: skip
        # A title stored by a version whose catalogs are gone: rendering its reminder raises a KeyError.
        title = await session.scalar(select(Exchange.title).where(Exchange.id == exchange_id))
        await session.execute(update(Exchange).where(Exchange.id == exchange_id).values(title={"key": "gone"}))
    emulator.clock.advance(180)
    await an_attack_waiting_for_mei(second)
    before = len(reminders_to(table, mei, second.channel))

    with failures_of("bot.cogs.reminders") as failures:
        emulator.clock.advance(12 * HOUR - 120)  # the first wait's reminder is due, and fails; not yet the second's
        async with asyncio.timeout(5):
            await failures.logged.wait()
        emulator.clock.advance(180)  # the second's is due, while the first is still tried at every look
        await harness.eventually(lambda: len(reminders_to(table, mei, second.channel)) == before + 1)
    failed = f"sending a reminder failed (campaigns {campaign_id}, wait {wait_id}, user {mei.id})"
    assert any(failed in record.getMessage() for record in failures.records), [r.getMessage() for r in failures.records]
    async with bot.database.write() as session:
        await session.execute(update(Exchange).where(Exchange.id == exchange_id).values(title=title))
    await answered(table)


async def test_an_offer_nothing_waits_on_is_never_reminded_of_nor_stuck(table: Table) -> None:
    """A Crest Magia attack: the attacker may reroll and any player may intercept, but only the defender's answer
    is waited on."""
    harness, emulator = table.harness, table.harness.emulator
    gm, bob, mei = table.players.gm, table.players.player, table.players.defender
    to_the_next_day(emulator)
    channel = harness.new_channel(table.players.guild)
    await harness.slash(gm, channel, "campaign start", ruleset="crest_magia", name="Crests")
    for user, name in ((bob, "Aiko"), (mei, "Bram")):
        template = (await harness.slash(user, channel, "character template", kind="bearer")).reply
        sheet = template.attachments[0].data.decode().replace("name: Aiko", f"name: {name}")
        await harness.slash(user, channel, "character import", file=("sheet.yaml", sheet.encode()))
    await harness.slash(bob, channel, "attack", target="Bram", action="Sword")
    seen = emulator.visible_to(mei, channel)
    defend = next(message for message in reversed(seen) if "Dexterity" in message.buttons())
    offers = [message for message in seen if {"Reroll (1 Destiny Point)", "Intercept (1 Destiny Point)"}
              & set(message.buttons())]  # fmt: skip
    assert len(offers) == 2
    digests = len(emulator.dms(gm))
    emulator.clock.advance(12.5 * HOUR)
    await harness.eventually(lambda: len(reminders_to(table, mei, channel)) == 1)
    await harness.eventually(lambda: len(emulator.dms(gm)) > digests)
    await emulator.settle(quiet_for=1.5)
    assert reminders_to(table, bob, channel) == []  # his reroll is his to take or leave
    digest = "\n".join(message.content for message in emulator.dms(gm)[digests:])
    assert "Stuck in **Crests**, unanswered for more than 12 hours: 1" in digest
    assert f"/{defend.channel_id}/{defend.id}" in digest
    assert not any(f"/{offer.channel_id}/{offer.id}" in digest for offer in offers)
    await harness.emulator.click(gm, defend, "Cancel (GM)")
