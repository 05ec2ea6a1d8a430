"""The bot process killed (SIGKILL) in the middle of a burst of mixed commands of every ruleset, and started again on
the same database, again and again.

The bot runs as `python -m bot run` in a process of its own, against the emulator in this one. Every ruleset has
two campaigns set as `fatebot bench` sets them, for the exchange the ruleset declares (`Ruleset.bench`: a GM's
moves, the player's command, the rival's answers). Each round makes, with the bot up, the GMs' opening moves in
both campaigns and the whole exchange but its last move in the first; then sends at once, for every ruleset, the
first interaction of that last move in the first campaign (a defence click, an anchor) and the player's command in
the second (an attack, an anchor), a GM's award, and rolls; after a random moment the process is killed. Once a
new process is up: the SQLite file passes its integrity check; every pool equals its value at the start plus what
the log says was applied to it, every wait resolved has exactly one event saying so, and no open exchange is left
without a wait (no step half applied); a command the kill left unanswered is sent again, as its player would;
every prompt posted before the kill still answers; and the GMs find in `/gm pending` whatever the kill kept from
being posted, and answer it, until nothing waits.

CI kills the bot `CRASH_ROUNDS` times (3) on each backend; `CRASH_ROUNDS=40 CRASH_SEED=5 pytest
tests/e2e/test_crashes.py` runs a longer search.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.bench import BotProcess, Players, answered, set_the_tables, the_players
from bot.emulator import Emulator
from bot.emulator.models import InteractionRecord
from bot.rulesets.bench import BenchMove
from bot.rulesets.registry import RULESETS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.declared import Declared
from tests.e2e.ledger import Ledger, assert_accounts_for, campaign_in, read_ledger
from tests.sizes import size

CRASH_ROUNDS = size("CRASH_ROUNDS", 3, 40)
CRASH_SEED = size("CRASH_SEED", 1, 5)
# Long enough for a burst's commits to be under way when the kill comes, at any moment of it.
LONGEST_BURST_SECONDS = 0.05


@dataclass
class Fight:
    """A campaign of a ruleset's exchange, and what its log accounted for when the test began."""

    declared: Declared
    campaign_id: int
    baseline: Ledger | None = None


@dataclass
class World:
    players: Players
    bot: BotProcess
    # Of each ruleset: the exchange made but for its last move, and the exchange only opened.
    pairs: list[tuple[Fight, Fight]] = field(default_factory=list)

    @property
    def fights(self) -> list[Fight]:
        return [fight for pair in self.pairs for fight in pair]


@pytest.fixture(scope="module", params=BACKENDS)
async def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    directory = tmp_path_factory.mktemp("crashes")
    async with fresh_database_url(request.param, directory) as url, Emulator(seed=5) as emulator:
        players = the_players(emulator, rival_locale="ja")
        bot = BotProcess(emulator, url, directory)
        await bot.start()
        try:
            for ruleset in RULESETS:
                players.channels[ruleset] = [emulator.add_channel(players.guild, f"{ruleset}-{n}") for n in range(2)]
            await set_the_tables(players)
            world = World(players, bot)
            for ruleset, channels in players.channels.items():
                first, second = [
                    Fight(Declared(players, ruleset, channel), await campaign_in(url, channel.id))
                    for channel in channels
                ]
                world.pairs.append((first, second))
            for fight in world.fights:
                fight.baseline = await read_ledger(url, fight.campaign_id)
            yield world
        finally:
            await bot.stop()


async def set_up_round(world: World) -> None:
    """With the bot up: the GMs' opening in both campaigns of each ruleset, and in the first the exchange but
    its last move."""
    for first, second in world.pairs:
        await second.declared.made(second.declared.opening)
        await first.declared.made(list(first.declared.exchange.moves[:-1]))


@dataclass
class Sent:
    """An interaction of the burst, and what to do again if the kill left it unanswered."""

    declared: Declared
    move: BenchMove
    record: InteractionRecord | None = None


def burst(world: World) -> tuple[list[Sent], list[Coroutine[Any, Any, InteractionRecord]]]:
    """Everything sent at once: each a dispatch the bot may or may not get to before it dies."""
    emulator, players = world.players.emulator, world.players
    sent: list[Sent] = []
    sends = []
    for first, second in world.pairs:
        answer = first.declared.answer(wait=False, settle=False)
        if answer is not None:
            sent.append(Sent(first.declared, first.declared.last))
            sends.append(remember(sent[-1], answer))
        played, user = second.declared.played, players.seated(second.declared.played.seat)
        sent.append(Sent(second.declared, played))
        command = emulator.slash(user, second.declared.channel, played.command, played.options, wait=False,
                                 settle=False)  # fmt: skip
        sends.append(remember(sent[-1], command))
    fate = next(first for first, _ in world.pairs if first.declared.ruleset == "fate_points")
    award = {"character": "Rin", "resource": "fate_points", "amount": 1}
    sends.append(emulator.slash(players.gm, fate.declared.channel, "gm award", award, wait=False, settle=False))
    for fight in world.fights:
        for player in (players.player, players.defender):
            roll = emulator.slash(player, fight.declared.channel, "roll", {"dice": "3d6+2"}, wait=False, settle=False)
            sends.append(roll)
    return sent, sends


async def remember(sent: Sent, interaction: Coroutine[Any, Any, InteractionRecord]) -> InteractionRecord:
    sent.record = await interaction
    return sent.record


def assert_intact(database_url: str) -> None:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        connection = sqlite3.connect(str(url.database))
        try:
            assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            connection.close()


async def assert_accounted(world: World) -> list[Ledger]:
    ledgers = []
    for fight in world.fights:
        assert fight.baseline is not None
        now = await read_ledger(world.bot.database_url, fight.campaign_id, since_event=fight.baseline.last_event)
        assert_accounts_for(fight.baseline, now)
        ledgers.append(now)
    return ledgers


async def answer_everything(world: World, sent: list[Sent]) -> None:
    """A command the kill left unanswered is sent again, as its player would; then each exchange goes on to its
    end: every prompt still showing its buttons answers (or says it was answered, when the kill came between the
    answer and the prompt's edit), and what was never posted, the GMs answer from `/gm pending`."""
    emulator, players = world.players.emulator, world.players
    for lost in sent:
        if lost.move.command and (lost.record is None or not answered(lost.record)):
            user = players.seated(lost.move.seat)
            again = await emulator.slash(user, lost.declared.channel, lost.move.command, lost.move.options)
            assert again.error is None, again.error
    for _, second in world.pairs:
        moves = list(second.declared.exchange.moves)
        await second.declared.made(moves[moves.index(second.declared.played) + 1 :])
    for fight in world.fights:
        await fight.declared.see_through()


async def test_killed_mid_burst_and_restarted_the_bot_loses_and_doubles_nothing(world: World) -> None:
    rng = random.Random(CRASH_SEED)
    for _ in range(CRASH_ROUNDS):
        await set_up_round(world)
        sent, sends = burst(world)
        rng.shuffle(sends)
        for send in sends:
            await send
        await asyncio.sleep(rng.uniform(0, LONGEST_BURST_SECONDS))
        await world.bot.kill()
        await world.bot.start()

        assert_intact(world.bot.database_url)
        await assert_accounted(world)
        await answer_everything(world, sent)
        for ledger in await assert_accounted(world):
            assert ledger.pending_waits == 0, ledger.pending
    channel = world.fights[-1].declared.channel
    rolled = await world.players.emulator.slash(world.players.player, channel, "roll", {"dice": "1d20"})
    assert rolled.error is None and "1d20" in rolled.reply.text()
