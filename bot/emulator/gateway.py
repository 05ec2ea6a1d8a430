"""The gateway half of the emulator: one websocket session per shard, with RESUME support.

A guild lives on shard `(guild_id >> 22) % shard_count`, as on Discord; events without a guild (DMs) go to
shard 0. A shard's events go to its most recently identified (or resumed) live connection; a session keeps a
backlog of its events so a RESUME after a drop replays what the client missed. Each shard takes one
connection at a time: a second IDENTIFY for a shard that is connected is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Final

from aiohttp import WSMsgType, web

from bot.emulator.models import JSON
from bot.emulator.rest import Activity
from bot.emulator.world import World
from bot.shards import shard_of

log = logging.getLogger(__name__)

OP_DISPATCH: Final = 0
OP_HEARTBEAT: Final = 1
OP_IDENTIFY: Final = 2
OP_RESUME: Final = 6
OP_RECONNECT: Final = 7
OP_REQUEST_MEMBERS: Final = 8
OP_INVALID_SESSION: Final = 9
OP_HELLO: Final = 10
OP_HEARTBEAT_ACK: Final = 11

HEARTBEAT_INTERVAL_MS: Final = 41_250
_BACKLOG: Final = 2_000

CLOSE_AUTHENTICATION_FAILED: Final = 4004
CLOSE_ALREADY_AUTHENTICATED: Final = 4005
CLOSE_INVALID_SHARD: Final = 4010
CLOSE_SHARDING_REQUIRED: Final = 4011


@dataclass
class Session:
    id: str
    shard_id: int
    seq: int = 0
    backlog: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=_BACKLOG))


class Connection:
    """One websocket; frames go out through a queue so `World` can dispatch synchronously."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.session: Session | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, frame: str) -> None:
        self.queue.put_nowait(frame)

    async def writer(self) -> None:
        while (frame := await self.queue.get()) is not None:
            if self.ws.closed:
                return
            await self.ws.send_str(frame)


class ShardLink:
    """One shard: its session, and the connection that carries it now."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.current: Connection | None = None
        # The socket was dropped under the bot (`drop`) and its session may still be resumed: what users do
        # meanwhile waits in the backlog, as Discord keeps it for a client that comes back.
        self.dropped = False

    @property
    def live(self) -> bool:
        current = self.current
        return current is not None and current.session is self.session and not current.ws.closed


class Gateway:
    def __init__(self, world: World, activity: Activity, shard_count: int = 1) -> None:
        if shard_count < 1:
            raise ValueError("a gateway has at least one shard")
        self.world = world
        self.activity = activity
        self.url = ""
        self.shard_count = shard_count
        self.shards = {shard_id: ShardLink() for shard_id in range(shard_count)}
        self.connections: set[Connection] = set()
        self.sessions: dict[str, Session] = {}
        self.identify_count = 0
        # IDENTIFYs refused because their shard (or their connection) already has a session.
        self.refused_count = 0
        self.resume_count = 0
        world.dispatch = self.dispatch

    def shard_for_guild(self, guild_id: int | None) -> ShardLink:
        return self.shards[0 if guild_id is None else shard_of(guild_id, self.shard_count)]

    @property
    def live(self) -> bool:
        """Every shard is connected."""
        return all(link.live for link in self.shards.values())

    @property
    def any_live(self) -> bool:
        return any(link.live for link in self.shards.values())

    def reachable(self, guild_id: int | None) -> bool:
        """The guild's shard is connected, or was dropped and may resume (its events wait in the backlog)."""
        link = self.shard_for_guild(guild_id)
        return link.live or link.dropped

    # ------------------------------------------------------------ outgoing

    def dispatch(self, event: str, data: JSON) -> None:
        guild_id = data.get("id") if event == "GUILD_CREATE" else data.get("guild_id")
        link = self.shard_for_guild(int(guild_id) if guild_id is not None else None)
        session = link.session
        if session is None:
            return
        connection = link.current if link.current is not None and link.current.session is session else None
        # While the client is away the event still joins the backlog, so a RESUME replays it.
        self._send_event(connection, session, event, data)

    def _send_event(self, connection: Connection | None, session: Session, event: str, data: JSON) -> None:
        session.seq += 1
        frame = json.dumps({"op": OP_DISPATCH, "t": event, "s": session.seq, "d": data})
        session.backlog.append((session.seq, frame))
        if connection is not None:
            connection.send(frame)
        self.activity.touch()

    def _send(self, connection: Connection, op: int, data: Any) -> None:
        connection.send(json.dumps({"op": op, "d": data, "s": None, "t": None}))

    def _chosen(self, shard_id: int | None) -> list[ShardLink]:
        return list(self.shards.values()) if shard_id is None else [self.shards[shard_id]]

    def send_reconnect(self, shard_id: int | None = None) -> None:
        for link in self._chosen(shard_id):
            if link.current is not None:
                self._send(link.current, OP_RECONNECT, None)

    def invalidate_session(self, *, resumable: bool, shard_id: int | None = None) -> None:
        for link in self._chosen(shard_id):
            connection = link.current
            if connection is None:
                continue
            if not resumable and connection.session is not None:
                self.sessions.pop(connection.session.id, None)
                link.session = None
            self._send(connection, OP_INVALID_SESSION, resumable)

    async def drop(self, code: int, shard_id: int | None = None) -> None:
        """Close the live sockets (of every shard, or of one) without warning, the way a network failure would."""
        for link in self._chosen(shard_id):
            connection = link.current
            if connection is not None:
                link.dropped = connection.session is not None
                await connection.ws.close(code=code)

    async def close_all(self) -> None:
        for connection in list(self.connections):
            connection.queue.put_nowait(None)
            await connection.ws.close(code=1001)

    # ------------------------------------------------------------ incoming

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        connection = Connection(ws)
        self.connections.add(connection)
        writer = asyncio.create_task(connection.writer())
        self._send(connection, OP_HELLO, {"heartbeat_interval": HEARTBEAT_INTERVAL_MS})
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    frame = json.loads(message.data)
                except json.JSONDecodeError:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                if isinstance(frame, dict):
                    await self._receive(connection, frame)
        finally:
            self.connections.discard(connection)
            connection.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer
            for link in self.shards.values():
                if link.current is connection:
                    link.current = None
        return ws

    async def _receive(self, connection: Connection, frame: JSON) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == OP_HEARTBEAT:
            self._send(connection, OP_HEARTBEAT_ACK, None)
        elif op == OP_IDENTIFY and isinstance(data, dict):
            await self._identify(connection, data)
        elif op == OP_RESUME and isinstance(data, dict):
            await self._resume(connection, data)
        elif op == OP_REQUEST_MEMBERS and isinstance(data, dict):
            self._members_chunk(connection, data)
        else:
            log.debug("gateway ignored op %s", op)

    async def _identify(self, connection: Connection, data: JSON) -> None:
        if data.get("token") != self.world.bot_token:
            await connection.ws.close(code=CLOSE_AUTHENTICATION_FAILED, message=b"Authentication failed.")
            return
        shard_id = await self._shard_to_identify(connection, data.get("shard"))
        if shard_id is None:
            return
        world = self.world
        world.intents = int(data.get("intents") or 0)
        link = self.shards[shard_id]
        session = Session(world.token("session"), shard_id)
        self.sessions[session.id] = session
        connection.session = session
        link.current, link.session, link.dropped = connection, session, False
        guilds = [guild for guild in world.guilds.values() if shard_of(guild.id, self.shard_count) == shard_id]
        ready: JSON = {
            "v": 10,
            "user": {**world.user_payload(world.bot_user), "verified": True, "mfa_enabled": False},
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url,
            "guilds": [{"id": str(guild.id), "unavailable": True} for guild in guilds],
            "application": {"id": str(world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "presences": [],
        }
        if isinstance(data.get("shard"), list):
            ready["shard"] = [shard_id, self.shard_count]
        self._send_event(connection, session, "READY", ready)
        for guild in guilds:
            self._send_event(connection, session, "GUILD_CREATE", world.guild_payload(guild))
        self.identify_count += 1

    async def _shard_to_identify(self, connection: Connection, shard: object) -> int | None:
        """The shard an IDENTIFY asks for, or None once the connection is closed with Discord's reason."""
        if shard is None and self.shard_count == 1:
            shard = [0, 1]
        if shard is None:
            await connection.ws.close(code=CLOSE_SHARDING_REQUIRED, message=b"Sharding required.")
            return None
        valid = (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(part, int) for part in shard)
            and shard[1] == self.shard_count
            and 0 <= shard[0] < self.shard_count
        )
        if not valid:
            await connection.ws.close(code=CLOSE_INVALID_SHARD, message=b"Invalid shard.")
            return None
        assert isinstance(shard, list)
        shard_id = int(shard[0])
        if connection.session is not None or self.shards[shard_id].live:
            self.refused_count += 1
            await connection.ws.close(code=CLOSE_ALREADY_AUTHENTICATED, message=b"Already authenticated.")
            return None
        return shard_id

    async def _resume(self, connection: Connection, data: JSON) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if data.get("token") != self.world.bot_token or session is None:
            self._send(connection, OP_INVALID_SESSION, False)
            return
        link = self.shards[session.shard_id]
        if link.session is not session:  # a newer IDENTIFY took the shard over
            self._send(connection, OP_INVALID_SESSION, False)
            return
        connection.session = session
        link.current, link.dropped = connection, False
        seen = int(data.get("seq") or 0)
        for seq, frame in list(session.backlog):
            if seq > seen:
                connection.send(frame)
        self._send_event(connection, session, "RESUMED", {})
        self.resume_count += 1

    def _members_chunk(self, connection: Connection, data: JSON) -> None:
        session = connection.session
        guild_id = str(data.get("guild_id", ""))
        guild = self.world.guilds.get(int(guild_id)) if guild_id.isdigit() else None
        if session is None or guild is None:
            return
        members = [self.world.member_payload(guild, self.world.users[m]) for m in guild.member_ids]
        chunk: JSON = {"guild_id": str(guild.id), "members": members, "chunk_index": 0, "chunk_count": 1}
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._send_event(connection, session, "GUILD_MEMBERS_CHUNK", chunk)
