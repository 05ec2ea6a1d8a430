"""The gateway half of the emulator: one websocket session at a time, with RESUME support.

Events always go to the most recently identified (or resumed) live connection; a session keeps a
backlog of its events so a RESUME after a drop replays what the client missed.
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


@dataclass
class Session:
    id: str
    shard: list[int] | None
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


class Gateway:
    def __init__(self, world: World, activity: Activity) -> None:
        self.world = world
        self.activity = activity
        self.url = ""
        self.current: Connection | None = None
        self.session: Session | None = None
        self.connections: set[Connection] = set()
        self.sessions: dict[str, Session] = {}
        self.identify_count = 0
        self.resume_count = 0
        # The socket was dropped under the bot (`drop`) and its session may still be resumed: what users do
        # meanwhile waits in the backlog, as Discord keeps it for a client that comes back.
        self.dropped = False
        world.dispatch = self.dispatch

    # ------------------------------------------------------------ outgoing

    def dispatch(self, event: str, data: JSON) -> None:
        session = self.session
        if session is None:
            return
        connection = self.current if self.current is not None and self.current.session is session else None
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

    @property
    def live(self) -> bool:
        return self.current is not None and self.current.session is not None and not self.current.ws.closed

    def send_reconnect(self) -> None:
        if self.current is not None:
            self._send(self.current, OP_RECONNECT, None)

    def invalidate_session(self, *, resumable: bool) -> None:
        connection = self.current
        if connection is None:
            return
        if not resumable and connection.session is not None:
            self.sessions.pop(connection.session.id, None)
            self.session = None
        self._send(connection, OP_INVALID_SESSION, resumable)

    async def drop(self, code: int) -> None:
        """Close the live socket without warning, the way a network failure would."""
        connection = self.current
        if connection is not None:
            self.dropped = connection.session is not None
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
            if self.current is connection:
                self.current = None
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
            await connection.ws.close(code=4004, message=b"Authentication failed.")
            return
        world = self.world
        world.intents = int(data.get("intents") or 0)
        shard = data.get("shard")
        session = Session(world.token("session"), shard if isinstance(shard, list) else None)
        self.sessions[session.id] = session
        connection.session = session
        self.current = connection
        self.session = session
        ready: JSON = {
            "v": 10,
            "user": {**world.user_payload(world.bot_user), "verified": True, "mfa_enabled": False},
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url,
            "guilds": [{"id": str(g), "unavailable": True} for g in world.guilds],
            "application": {"id": str(world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "presences": [],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        self.dropped = False
        self._send_event(connection, session, "READY", ready)
        for guild in world.guilds.values():
            self._send_event(connection, session, "GUILD_CREATE", world.guild_payload(guild))
        self.identify_count += 1

    async def _resume(self, connection: Connection, data: JSON) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if data.get("token") != self.world.bot_token or session is None:
            self._send(connection, OP_INVALID_SESSION, False)
            return
        connection.session = session
        self.current = connection
        self.session = session
        seen = int(data.get("seq") or 0)
        for seq, frame in list(session.backlog):
            if seq > seen:
                connection.send(frame)
        self._send_event(connection, session, "RESUMED", {})
        self.resume_count += 1
        self.dropped = False

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
