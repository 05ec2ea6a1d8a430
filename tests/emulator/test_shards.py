"""The gateway's shards, spoken to as a sharded client would: a guild's events travel on the shard Discord's formula
names, each shard takes one connection, and an IDENTIFY that names no shard, a shard that does not exist or one
already connected is refused with Discord's close codes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.emulator import Channel, Emulator, EmulatorError, User
from bot.emulator.gateway import (
    CLOSE_ALREADY_AUTHENTICATED,
    CLOSE_INVALID_SHARD,
    CLOSE_SHARDING_REQUIRED,
    OP_DISPATCH,
    OP_HELLO,
    OP_IDENTIFY,
)
from bot.shards import shard_of

SHARDS = 2


@dataclass
class World:
    emu: Emulator
    alice: User
    channels: list[Channel]  # one in a guild of each shard


@pytest_asyncio.fixture(scope="module")
async def world() -> AsyncIterator[World]:
    async with Emulator(seed=8, shard_count=SHARDS) as emu:
        alice = emu.add_user("alice")
        guilds = [emu.add_guild(f"Guild {shard}", owner=alice, shard=shard) for shard in range(SHARDS)]
        async with (
            aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.bot_token}"}) as session,
            session.put(f"{emu.api_base}/applications/{emu.application_id}/commands",
                        json=[{"name": "anything", "description": "Anything at all", "type": 1}]) as synced,
        ):  # fmt: skip
            assert synced.status == 200, await synced.text()
        yield World(emu, alice, [emu.add_channel(guild, "general") for guild in guilds])


class Socket:
    """One raw gateway connection."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def frame(self) -> dict[str, Any]:
        message = await asyncio.wait_for(self.ws.receive(), 5)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        frame: dict[str, Any] = json.loads(message.data)
        return frame

    async def identify(self, world: World, shard: object) -> None:
        data: dict[str, Any] = {"token": world.emu.bot_token, "intents": 1, "properties": {}}
        if shard is not None:
            data["shard"] = shard
        await self.ws.send_json({"op": OP_IDENTIFY, "d": data})

    async def dispatched(self, event: str) -> dict[str, Any]:
        while True:
            frame = await self.frame()
            if frame["op"] == OP_DISPATCH and frame["t"] == event:
                data: dict[str, Any] = frame["d"]
                return data

    async def close_code(self) -> int | None:
        message = await asyncio.wait_for(self.ws.receive(), 5)
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), message
        return self.ws.close_code


@pytest_asyncio.fixture
async def connect(world: World) -> AsyncIterator[Any]:
    async with aiohttp.ClientSession() as session:
        opened: list[aiohttp.ClientWebSocketResponse] = []

        async def open_socket() -> Socket:
            ws = await session.ws_connect(world.emu.gateway_url)
            opened.append(ws)
            socket = Socket(ws)
            assert (await socket.frame())["op"] == OP_HELLO
            return socket

        yield open_socket
        for ws in opened:
            await ws.close()
        await world.emu.wait_disconnected()


def test_guilds_are_made_on_the_shard_asked_for(world: World) -> None:
    assert [shard_of(channel.guild_id or 0, SHARDS) for channel in world.channels] == list(range(SHARDS))


async def test_each_shard_is_sent_its_own_guilds_and_their_events(world: World, connect: Any) -> None:
    sockets = [await connect() for _ in range(SHARDS)]
    for shard, socket in enumerate(sockets):
        await socket.identify(world, [shard, SHARDS])
        ready = await socket.dispatched("READY")
        assert ready["shard"] == [shard, SHARDS]
        assert [int(guild["id"]) for guild in ready["guilds"]] == [world.channels[shard].guild_id]
        assert int((await socket.dispatched("GUILD_CREATE"))["id"]) == world.channels[shard].guild_id
    assert world.emu.connected
    for shard, socket in enumerate(sockets):
        await world.emu.slash(world.alice, world.channels[shard], "anything", wait=False, settle=False)
        interaction = await socket.dispatched("INTERACTION_CREATE")
        assert int(interaction["guild_id"]) == world.channels[shard].guild_id


async def test_a_guild_whose_shard_is_not_connected_cannot_be_used(world: World, connect: Any) -> None:
    socket = await connect()
    await socket.identify(world, [0, SHARDS])
    await socket.dispatched("READY")
    assert not world.emu.connected  # not every shard is
    with pytest.raises(EmulatorError, match="not connected"):
        await world.emu.slash(world.alice, world.channels[1], "anything", wait=False, settle=False)


async def test_a_second_identify_for_a_connected_shard_is_refused(world: World, connect: Any) -> None:
    first, second = await connect(), await connect()
    await first.identify(world, [1, SHARDS])
    await first.dispatched("READY")
    await second.identify(world, [1, SHARDS])
    assert await second.close_code() == CLOSE_ALREADY_AUTHENTICATED
    # The first connection keeps the shard and its events.
    await world.emu.slash(world.alice, world.channels[1], "anything", wait=False, settle=False)
    assert int((await first.dispatched("INTERACTION_CREATE"))["guild_id"]) == world.channels[1].guild_id


@pytest.mark.parametrize(
    ("shard", "code"),
    [(None, CLOSE_SHARDING_REQUIRED), ([SHARDS, SHARDS], CLOSE_INVALID_SHARD), ([0, SHARDS + 1], CLOSE_INVALID_SHARD),
     (["0", SHARDS], CLOSE_INVALID_SHARD)],
)  # fmt: skip
async def test_an_identify_without_a_shard_of_this_gateway_is_refused(
    world: World, connect: Any, shard: object, code: int
) -> None:
    socket = await connect()
    await socket.identify(world, shard)
    assert await socket.close_code() == code


async def test_the_recommended_shard_count_is_the_gateways(world: World) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            f"{world.emu.api_base}/gateway/bot", headers={"Authorization": f"Bot {world.emu.bot_token}"}
        ) as response,
    ):
        assert (await response.json())["shards"] == SHARDS
