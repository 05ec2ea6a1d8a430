"""The bot process killed (SIGKILL) in the middle of a burst of mixed commands, and started again on the same
database, again and again.

The bot runs as `python -m bot run` in a process of its own, against the emulator in this one. Each round opens
a new round of combat in two Fate/Points fights, then sends at once: a defence click on a prompt posted before,
a new attack, a GM's award, and rolls in a campaign of every ruleset; after a random moment the process is
killed. Once a new process is up: the SQLite file passes its integrity check; every pool equals its value at the
start plus what the log says was applied to it, every wait resolved has exactly one event saying so, and no open
exchange is left without a wait (no step half applied); every prompt posted before the kill still answers; and
the GMs find in `/gm pending` whatever the kill kept from being posted, and answer it.

CI kills the bot `CRASH_ROUNDS` times (3) on each backend; `CRASH_ROUNDS=40 CRASH_SEED=5 pytest
tests/e2e/test_crashes.py` runs a longer search.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import sys
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.emulator import Emulator
from bot.emulator.models import Channel, InteractionRecord, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.fate_pairs import enlist
from tests.e2e.ledger import Ledger, assert_accounts_for, campaign_in, read_ledger

CRASH_ROUNDS = int(os.environ.get("CRASH_ROUNDS", "3"))
CRASH_SEED = int(os.environ.get("CRASH_SEED", "1"))
# Long enough for a burst's commits to be under way when the kill comes, at any moment of it.
LONGEST_BURST_SECONDS = 0.05
START_SECONDS = 60
ATTACK = {"target": "Rider", "action": "melee|Invisible Air"}
OTHER_RULESETS = ("crest_magia", "grail_zh", "grail_anka")


class BotProcess:
    """The bot as `fatebot run` runs it, in a process of its own, against the emulator."""

    def __init__(self, emulator: Emulator, database_url: str, directory: Path) -> None:
        self.emulator = emulator
        self.database_url = database_url
        self.directory = directory
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        environment = {
            **os.environ,
            "DISCORD_TOKEN": self.emulator.bot_token,
            "DISCORD_API_BASE": self.emulator.api_base,
            "DISCORD_GATEWAY_URL": self.emulator.gateway_url,
            "DATABASE_URL": self.database_url,
            "LOG_LEVEL": "WARNING",
        }
        self.starts += 1
        log = (self.directory / f"bot-{self.starts}.log").open("wb")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", env=environment, cwd=self.directory, stdout=log, stderr=log
        )
        log.close()
        await self.emulator.wait_connected(timeout=START_SECONDS)

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        await self.process.wait()
        await self.emulator.wait_disconnected()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()


@dataclass
class Fight:
    channel: Channel
    campaign_id: int
    baseline: Ledger | None = None


@dataclass
class World:
    emulator: Emulator
    bot: BotProcess
    gm: User
    bob: User
    mei: User
    fights: list[Fight]
    others: list[Channel]


async def answered(record: InteractionRecord) -> InteractionRecord:
    assert record.error is None, record.error
    return record


async def start_campaign(world: World, channel: Channel, ruleset: str) -> int:
    await answered(await world.emulator.slash(world.gm, channel, "campaign start", {"ruleset": ruleset}))
    return await campaign_in(world.bot.database_url, channel.id)


@pytest.fixture(scope="module", params=BACKENDS)
async def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    directory = tmp_path_factory.mktemp("crashes")
    async with fresh_database_url(request.param, directory) as url, Emulator(seed=5) as emulator:
        gm, bob, mei = emulator.add_user("kirei"), emulator.add_user("bob"), emulator.add_user("mei", locale="ja")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei):
            emulator.add_member(guild, player)
        bot = BotProcess(emulator, url, directory)
        await bot.start()
        try:
            fight_channels = [emulator.add_channel(guild, f"fight-{number}") for number in range(2)]
            others = [emulator.add_channel(guild, ruleset) for ruleset in OTHER_RULESETS]
            world = World(emulator, bot, gm, bob, mei, [], others)
            for channel in fight_channels:
                fight = Fight(channel, await start_campaign(world, channel, "fate_points"))
                await enlist(emulator, gm, channel, bob, "Rin", "Archer")
                await enlist(emulator, gm, channel, mei, "Sakura", "Rider")
                fight.baseline = await read_ledger(url, fight.campaign_id)
                world.fights.append(fight)
            for channel, ruleset in zip(others, OTHER_RULESETS, strict=True):
                await start_campaign(world, channel, ruleset)
            yield world
        finally:
            await bot.stop()


def open_prompts(world: World, channel: Channel) -> list[Message]:
    """The defence prompts in the channel that still offer their buttons."""
    return [message for message in world.emulator.visible_to(world.mei, channel) if "Dodge" in message.buttons()]


async def attack(world: World, fight: Fight) -> None:
    await answered(await world.emulator.slash(world.bob, fight.channel, "attack", ATTACK))


async def new_round(world: World) -> None:
    """A new round in every fight, the defender healed and the attacker's prana given back (held at their
    maximums), so that the fight goes on for as many rounds as the test kills the bot."""
    emulator = world.emulator
    for fight in world.fights:
        await answered(await emulator.slash(world.gm, fight.channel, "combat round"))
        for name, pool, amount in (("Rider", "hp", 10), ("Archer", "prana", 3)):
            options = {"character": name, "resource": pool, "amount": amount}
            await answered(await emulator.slash(world.gm, fight.channel, "gm award", options))


def burst(world: World) -> list[Coroutine[Any, Any, InteractionRecord]]:
    """Everything sent at once: each a dispatch the bot may or may not get to before it dies."""
    emulator = world.emulator
    first, second = world.fights
    (prompt,) = open_prompts(world, first.channel)
    sends = [
        emulator.click(world.mei, prompt, "Dodge", wait=False, settle=False),
        emulator.slash(world.bob, second.channel, "attack", ATTACK, wait=False, settle=False),
        emulator.slash(world.gm, first.channel, "gm award",
                       {"character": "Rin", "resource": "fate_points", "amount": 1}, wait=False, settle=False),
    ]  # fmt: skip
    for channel in [fight.channel for fight in world.fights] + world.others:
        for player in (world.bob, world.mei):
            sends.append(emulator.slash(player, channel, "roll", {"dice": "3d6+2"}, wait=False, settle=False))
    return sends


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


async def answer_everything(world: World) -> None:
    """Every prompt still showing its buttons answers (or says it was answered, when the kill came between the
    answer and the prompt's edit); what was never posted, the GMs answer from `/gm pending`."""
    emulator = world.emulator
    for fight in world.fights:
        for prompt in open_prompts(world, fight.channel):
            clicked = await emulator.click(world.mei, prompt, "Dodge")
            assert clicked.error is None, clicked.error
            current = next(message for message in emulator.messages if message.id == prompt.id)
            assert "Dodge" not in current.buttons() or clicked.reply.ephemeral
        listed = await emulator.slash(world.gm, fight.channel, "gm pending")
        for message in listed.replies:
            if "Dodge" in message.buttons():
                assert (await emulator.click(world.gm, message, "Dodge")).error is None


async def test_killed_mid_burst_and_restarted_the_bot_loses_and_doubles_nothing(world: World) -> None:
    rng = random.Random(CRASH_SEED)
    first = world.fights[0]
    for _ in range(CRASH_ROUNDS):
        await new_round(world)
        await attack(world, first)  # its prompt is answered in the burst
        sends = burst(world)
        rng.shuffle(sends)
        for send in sends:
            await send
        await asyncio.sleep(rng.uniform(0, LONGEST_BURST_SECONDS))
        await world.bot.kill()
        await world.bot.start()

        assert_intact(world.bot.database_url)
        await assert_accounted(world)
        await answer_everything(world)
        for ledger in await assert_accounted(world):
            assert ledger.pending_waits == 0
    rolled = await world.emulator.slash(world.bob, world.others[0], "roll", {"dice": "1d20"})
    assert rolled.error is None and "1d20" in rolled.reply.text()
