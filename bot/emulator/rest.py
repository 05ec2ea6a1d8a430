"""The REST half of the emulator: Discord's HTTP routes under /api/v10 on top of `World`."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from aiohttp import BodyPartReader, hdrs, web

from bot.emulator.models import JSON, ApiFailure, InteractionRecord
from bot.emulator.openapi import validate_request
from bot.emulator.validation import ApiError
from bot.emulator.world import UploadedFile, World

API_PREFIX: Final = "/api/v10"
# Interaction callbacks and interaction webhooks authenticate with the token in the URL, and
# discord.py sends them without an Authorization header.
_TOKEN_AUTHENTICATED: Final = (f"{API_PREFIX}/interactions/", f"{API_PREFIX}/webhooks/")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_response(data: object, status: int = 200) -> web.Response:
    # discord.py compares Content-Type with `==`; aiohttp's json_response would add a charset.
    return web.Response(body=json.dumps(data).encode(), status=status, headers={hdrs.CONTENT_TYPE: "application/json"})


def error_response(status: int, code: int, message: str, errors: JSON | None = None) -> web.Response:
    return json_response(ApiError(status, code, message, errors).body(), status=status)


class Activity:
    """What `Emulator.settle` watches: REST calls in flight and when the bot last did anything."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.last = 0.0

    def touch(self) -> None:
        self.last = asyncio.get_running_loop().time()


# Discord's upload limit per file for a server without boosts.
ATTACHMENT_LIMIT: Final = 10 * 1024 * 1024


@dataclass(frozen=True)
class Body:
    """A request's JSON body, or a multipart body's `payload_json` and its files."""

    payload: Any
    files: list[UploadedFile]

    def object(self) -> tuple[JSON, list[UploadedFile]]:
        if not isinstance(self.payload, dict):
            raise ApiError(
                400,
                50035,
                "Invalid Form Body",
                {"_errors": [{"code": "DICT_TYPE_CONVERT", "message": "Only dictionaries may be used in a DictType"}]},
            )
        return self.payload, self.files


BODY: Final = web.RequestKey("body", Body)


async def _read_body(request: web.Request) -> Body:
    files: list[UploadedFile] = []
    payload: Any = {}
    if request.content_type == "multipart/form-data":
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            name = part.name or ""
            if name == "payload_json":
                payload = _parse_json(await part.text())
            elif name.startswith("files[") and name.endswith("]") and name[6:-1].isdigit():
                index = int(name[6:-1])
                data = bytes(await part.read(decode=False))
                if len(data) > ATTACHMENT_LIMIT:
                    raise ApiError(413, 40005, "Request entity too large")
                files.append(
                    UploadedFile(index, part.filename or f"file{index}", data, part.headers.get("Content-Type"))
                )
    elif request.can_read_body:
        payload = _parse_json(await request.text())
    return Body(payload, files)


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ApiError(400, 50109, "The request body contains invalid JSON.") from exc


def _flag(request: web.Request, name: str) -> bool:
    return request.query.get(name, "").lower() in ("1", "true")


def _int(request: web.Request, key: str) -> int:
    value = request.match_info[key]
    if not value.isdigit():
        raise ApiError(404, 0, "404: Not Found")
    return int(value)


@dataclass
class Fault:
    """The next `count` requests whose method and path match meet a fault (a test's switch): refused with
    `status` and `code`; with status 429, rate limited for `retry_after` seconds in `scope` (`user`, one route's
    bucket; `global`, every route); or, with `delay`, answered as usual after that many seconds (a slow reply)."""

    method: str
    path: re.Pattern[str]
    status: int = 0
    code: int = 0
    count: int = 1
    retry_after: float = 0.0
    scope: str = "user"
    delay: float = 0.0
    # How many requests met this fault, for a test to see that the bot came back after it; and an event set
    # by the first, for a test to act while a slow reply is held.
    met: int = 0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def response(self) -> web.Response:
        if self.status != RATE_LIMITED:
            return error_response(self.status, self.code, f"{self.status}: refused by the test")
        body = {
            "message": "You are being rate limited.",
            "retry_after": self.retry_after,
            "global": self.scope == "global",
            "code": 0,
        }
        # discord.py takes a 429 without `Via` for Cloudflare's ban and gives up; Discord's own carry it.
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, round(self.retry_after))),
            "X-RateLimit-Scope": self.scope,
        }
        if self.scope != "global":
            headers |= {
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(self.retry_after),
                "X-RateLimit-Bucket": "emulated",
            }
        response = json_response(body, status=RATE_LIMITED)
        response.headers.update(headers)
        return response


RATE_LIMITED: Final = 429


class RestApi:
    def __init__(self, world: World, activity: Activity, gateway_url: Callable[[], str], shard_count: int = 1) -> None:
        self.world = world
        self.activity = activity
        self._gateway_url = gateway_url
        self._shard_count = shard_count
        self.faults: list[Fault] = []

    def _fault(self, request: web.Request) -> Fault | None:
        for fault in self.faults:
            if fault.count > 0 and fault.method == request.method and fault.path.search(request.path):
                fault.count -= 1
                return fault
        return None

    def routes(self) -> list[web.RouteDef]:
        p = API_PREFIX
        return [
            web.get(f"{p}/users/@me", self.me),
            web.post(f"{p}/users/@me/channels", self.open_dm),
            web.get(f"{p}/users/{{uid}}", self.user),
            web.get(f"{p}/oauth2/applications/@me", self.application),
            web.get(f"{p}/gateway", self.gateway),
            web.get(f"{p}/gateway/bot", self.gateway_bot),
            web.get(f"{p}/applications/{{app}}/commands", self.get_commands),
            web.put(f"{p}/applications/{{app}}/commands", self.put_commands),
            web.get(f"{p}/applications/{{app}}/guilds/{{gid}}/commands", self.get_commands),
            web.put(f"{p}/applications/{{app}}/guilds/{{gid}}/commands", self.put_commands),
            web.post(f"{p}/interactions/{{iid}}/{{token}}/callback", self.callback),
            web.post(f"{p}/webhooks/{{app}}/{{token}}", self.followup),
            web.delete(f"{p}/webhooks/{{wid}}", self.delete_webhook),
            web.post(f"{p}/channels/{{cid}}/webhooks", self.create_webhook),
            web.get(f"{p}/channels/{{cid}}/webhooks", self.channel_webhooks),
            web.get(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self.get_webhook_message),
            web.patch(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self.edit_webhook_message),
            web.delete(f"{p}/webhooks/{{app}}/{{token}}/messages/{{mid}}", self.delete_webhook_message),
            web.get(f"{p}/channels/{{cid}}", self.channel),
            web.get(f"{p}/channels/{{cid}}/messages", self.channel_messages),
            web.post(f"{p}/channels/{{cid}}/messages", self.send_message),
            web.get(f"{p}/channels/{{cid}}/messages/{{mid}}", self.channel_message),
            web.patch(f"{p}/channels/{{cid}}/messages/{{mid}}", self.edit_message),
            web.delete(f"{p}/channels/{{cid}}/messages/{{mid}}", self.delete_message),
            web.post(f"{p}/channels/{{cid}}/typing", self.typing),
            web.get(f"{p}/guilds/{{gid}}", self.guild),
            web.get(f"{p}/guilds/{{gid}}/channels", self.guild_channels),
            web.get(f"{p}/guilds/{{gid}}/members/{{uid}}", self.member),
            web.get("/attachments/{aid}/{filename}", self.attachment),
        ]

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX):
            return await handler(request)
        self.activity.in_flight += 1
        self.activity.touch()
        try:
            if not request.path.startswith(_TOKEN_AUTHENTICATED) and (
                request.headers.get(hdrs.AUTHORIZATION) != f"Bot {self.world.bot_token}"
            ):
                return error_response(401, 0, "401: Unauthorized")
            if (fault := self._fault(request)) is not None:
                fault.met += 1
                fault.arrived.set()
                if not fault.delay:
                    return fault.response()
                await asyncio.sleep(fault.delay)
            try:
                request[BODY] = body = await _read_body(request)
                validate_request(request.method, request.path.removeprefix(API_PREFIX), body.payload)
                return await handler(request)
            except ApiError as exc:
                self._record(request, exc)
                return json_response(exc.body(), status=exc.status)
            except web.HTTPNotFound:
                return error_response(404, 0, "404: Not Found")
            except web.HTTPMethodNotAllowed:
                return error_response(405, 0, "405: Method Not Allowed")
        finally:
            self.activity.in_flight -= 1
            self.activity.touch()

    def _record(self, request: web.Request, exc: ApiError) -> None:
        record: InteractionRecord | None = None
        interaction_id = request.match_info.get("iid", "")
        if interaction_id.isdigit():
            record = self.world.interaction_by_id(int(interaction_id))
        elif "token" in request.match_info:
            record = self.world.interaction_by_token(request.match_info["token"])
        failure = ApiFailure(request.method, request.path, exc.status, exc.code, exc.message, exc.errors)
        self.world.record_failure(failure, record)

    # ------------------------------------------------------------ identity

    async def me(self, _request: web.Request) -> web.Response:
        return json_response({**self.world.user_payload(self.world.bot_user), "verified": True, "mfa_enabled": False})

    async def user(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_user(_int(request, "uid")))

    async def application(self, _request: web.Request) -> web.Response:
        world = self.world
        return json_response(
            {
                "id": str(world.application_id),
                "name": world.bot_user.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": world.user_payload(world.bot_user),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "summary": "",
                "bot": world.user_payload(world.bot_user),
            }
        )

    async def gateway(self, _request: web.Request) -> web.Response:
        return json_response({"url": self._gateway_url()})

    async def gateway_bot(self, _request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self._gateway_url(), "shards": self._shard_count, "session_start_limit": limit})

    async def open_dm(self, request: web.Request) -> web.Response:
        payload, _ = request[BODY].object()
        recipient = str(payload.get("recipient_id", ""))
        if not recipient.isdigit():
            raise ApiError(400, 50035, "Invalid Form Body")
        return json_response(self.world.open_dm(int(recipient)))

    # ------------------------------------------------------------ commands

    def _guild_id(self, request: web.Request) -> int | None:
        return _int(request, "gid") if "gid" in request.match_info else None

    async def get_commands(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_commands(_int(request, "app"), self._guild_id(request)))

    async def put_commands(self, request: web.Request) -> web.Response:
        body = request[BODY].payload
        return json_response(self.world.put_commands(_int(request, "app"), self._guild_id(request), body))

    # ------------------------------------------------------------ interactions

    async def callback(self, request: web.Request) -> web.Response:
        payload, files = request[BODY].object()
        result = self.world.interaction_callback(_int(request, "iid"), request.match_info["token"], payload, files)
        if not _flag(request, "with_response"):
            return web.Response(status=204)
        return json_response(result)

    async def followup(self, request: web.Request) -> web.Response:
        payload, files = request[BODY].object()
        thread = request.query.get("thread_id")
        message = self.world.followup(
            _int(request, "app"), request.match_info["token"], payload, files, int(thread) if thread else None
        )
        if not _flag(request, "wait"):
            return web.Response(status=204)
        return json_response(message)

    async def create_webhook(self, request: web.Request) -> web.Response:
        payload, _ = request[BODY].object()
        return json_response(self.world.create_webhook(_int(request, "cid"), payload))

    async def channel_webhooks(self, request: web.Request) -> web.Response:
        return json_response(self.world.channel_webhooks(_int(request, "cid")))

    async def delete_webhook(self, request: web.Request) -> web.Response:
        self.world.delete_webhook(_int(request, "wid"))
        return web.Response(status=204)

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        app, token, mid = _int(request, "app"), request.match_info["token"], request.match_info["mid"]
        return json_response(self.world.get_webhook_message(app, token, mid))

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        payload, files = request[BODY].object()
        app, token, mid = _int(request, "app"), request.match_info["token"], request.match_info["mid"]
        return json_response(self.world.edit_webhook_message(app, token, mid, payload, files))

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        app, token, mid = _int(request, "app"), request.match_info["token"], request.match_info["mid"]
        self.world.delete_webhook_message(app, token, mid)
        return web.Response(status=204)

    # ------------------------------------------------------------ channels

    async def channel(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_channel(_int(request, "cid")))

    async def channel_messages(self, request: web.Request) -> web.Response:
        def snowflake(name: str) -> int | None:
            value = request.query.get(name, "")
            return int(value) if value.isdigit() else None

        limit = request.query.get("limit", "50")
        count = min(max(int(limit), 1), 100) if limit.isdigit() else 50
        messages = self.world.get_channel_messages(
            _int(request, "cid"), limit=count, before=snowflake("before"), after=snowflake("after")
        )
        return json_response(messages)

    async def send_message(self, request: web.Request) -> web.Response:
        payload, files = request[BODY].object()
        return json_response(self.world.send_channel_message(_int(request, "cid"), payload, files))

    async def channel_message(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_channel_message(_int(request, "cid"), _int(request, "mid")))

    async def edit_message(self, request: web.Request) -> web.Response:
        payload, files = request[BODY].object()
        return json_response(
            self.world.edit_channel_message(_int(request, "cid"), _int(request, "mid"), payload, files)
        )

    async def delete_message(self, request: web.Request) -> web.Response:
        self.world.delete_channel_message(_int(request, "cid"), _int(request, "mid"))
        return web.Response(status=204)

    async def typing(self, request: web.Request) -> web.Response:
        self.world.get_channel(_int(request, "cid"))
        return web.Response(status=204)

    # ------------------------------------------------------------ guilds

    async def guild(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_guild(_int(request, "gid")))

    async def guild_channels(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_guild_channels(_int(request, "gid")))

    async def member(self, request: web.Request) -> web.Response:
        return json_response(self.world.get_member(_int(request, "gid"), _int(request, "uid")))

    # ------------------------------------------------------------ files

    async def attachment(self, request: web.Request) -> web.Response:
        aid = request.match_info["aid"]
        attachment = self.world.files.get(int(aid)) if aid.isdigit() else None
        if attachment is None or attachment.filename != request.match_info["filename"]:
            return error_response(404, 0, "404: Not Found")
        content_type = attachment.content_type or "application/octet-stream"
        return web.Response(body=attachment.data, headers={hdrs.CONTENT_TYPE: content_type})
