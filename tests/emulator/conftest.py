"""One emulator and one running test bot per module keeps the suite to a few seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest_asyncio

from bot.emulator import Channel, Emulator, Guild, User
from tests.emulator.testbot import MiniBot, running


@dataclass
class Scene:
    emu: Emulator
    bot: MiniBot
    alice: User
    bob: User
    carol: User
    alpha: Guild
    beta: Guild
    general: Channel
    table: Channel
    scene_thread: Channel
    beta_general: Channel


@pytest_asyncio.fixture(scope="module")
async def scene() -> AsyncIterator[Scene]:
    async with Emulator(seed=7) as emu:
        alice = emu.add_user("alice")
        bob = emu.add_user("bob", locale="fr")
        carol = emu.add_user("carol", locale="zh-CN")
        alpha = emu.add_guild("Alpha", owner=alice)
        emu.add_member(alpha, carol)
        beta = emu.add_guild("Beta", owner=bob)
        general = emu.add_channel(alpha, "general")
        table = emu.add_channel(alpha, "table")
        scene_thread = emu.add_thread(table, "scene-1")
        beta_general = emu.add_channel(beta, "general")
        bot = MiniBot()
        async with running(bot, emu):
            yield Scene(emu, bot, alice, bob, carol, alpha, beta, general, table, scene_thread, beta_general)
