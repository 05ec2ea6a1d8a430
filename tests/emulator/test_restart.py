"""Connections over time: restarts with a new Bot instance, RECONNECT/RESUME, dropped sockets, op 9."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest_asyncio

from bot.emulator import Channel, Emulator, User
from tests.emulator.testbot import MiniBot, running


@dataclass
class World:
    emu: Emulator
    alice: User
    general: Channel


@pytest_asyncio.fixture(scope="module")
async def world() -> AsyncIterator[World]:
    async with Emulator(seed=3) as emu:
        alice = emu.add_user("alice")
        guild = emu.add_guild("Alpha", owner=alice)
        yield World(emu, alice, emu.add_channel(guild, "general"))


async def test_persistent_view_survives_a_restart_with_a_new_bot(world: World) -> None:
    emu = world.emu
    async with running(MiniBot(), emu):
        panel = (await emu.slash(world.alice, world.general, "panel")).reply
    assert not emu.connected
    async with running(MiniBot(), emu) as second:
        assert second.ready_count == 1
        emu.clock.advance(20 * 60)
        click = await emu.click(world.alice, panel, "Join")
        assert click.error is None and click.reply.content == "alice joined"


async def test_reconnect_resume_and_invalid_session(world: World) -> None:
    emu = world.emu
    async with running(MiniBot(), emu) as bot:
        await emu.send_reconnect()
        assert (await emu.slash(world.alice, world.general, "roll")).reply.content == "rolled d6"

        await emu.disconnect_bot()
        assert (await emu.slash(world.alice, world.general, "roll", {"sides": 8})).reply.content == "rolled d8"
        await emu.settle()
        assert bot.resumed_count == 2

        identified = emu.gateway.identify_count
        await emu.invalidate_session()
        assert emu.gateway.identify_count == identified + 1
        assert (await emu.slash(world.alice, world.general, "roll", {"sides": 10})).reply.content == "rolled d10"


async def test_events_missed_while_disconnected_are_replayed_on_resume(world: World) -> None:
    emu = world.emu
    async with running(MiniBot(), emu) as bot:
        await emu.gateway.drop(4000)
        # Added while the socket is down: only a RESUME replay can deliver it.
        lounge = emu.add_channel(emu.world.guilds[world.general.guild_id or 0], "lounge")
        await emu.wait_connected()
        await emu.settle()
        assert bot.get_channel(lounge.id) is not None


async def test_same_seed_gives_the_same_ids() -> None:
    def script(emu: Emulator) -> list[int]:
        user = emu.add_user("u")
        guild = emu.add_guild("g", owner=user)
        channel = emu.add_channel(guild, "c")
        return [emu.bot_user.id, emu.application_id, user.id, guild.id, channel.id]

    assert script(Emulator(seed=11)) == script(Emulator(seed=11))
    assert script(Emulator(seed=11)) != script(Emulator(seed=12))
