"""`Emulator`: the local Discord a real discord.py bot connects to, and the handle tests drive it with."""

# The agreed public API takes `timeout=` arguments (wait_ready, settle, slash ...); each one is a
# deadline for a polling wait that a caller's own asyncio.timeout could not express as simply.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import Final, Self

from aiohttp import web

from bot.emulator.clock import Clock
from bot.emulator.commands import build_command_data, check_permissions, find_command
from bot.emulator.gateway import Gateway
from bot.emulator.models import (
    JSON,
    ApiFailure,
    BotOutput,
    Channel,
    EmulatorError,
    Guild,
    InteractionRecord,
    Message,
    User,
    iter_components,
)
from bot.emulator.rest import API_PREFIX, RATE_LIMITED, Activity, Fault, RestApi
from bot.emulator.world import (
    CALLBACK_DEFERRED_MESSAGE,
    INTERACTION_APPLICATION_COMMAND,
    INTERACTION_AUTOCOMPLETE,
    INTERACTION_COMPONENT,
    INTERACTION_MODAL_SUBMIT,
    UploadedFile,
    World,
)

# Discord gives a bot 3 seconds to acknowledge; waiting longer (in real time) for a callback that
# the bot never sends would only slow a failing test down.
RESPONSE_WINDOW: Final = 3.0
_POLL: Final = 0.005
_BUTTON: Final = 2
_STRING_SELECT: Final = 3
_TEXT_INPUT: Final = 4
_LINK_STYLE: Final = 5


async def _wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() >= deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(_POLL)


class Emulator:
    """A Discord API + gateway on 127.0.0.1 with a scriptable world of users, guilds and channels."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        bot_token: str = "emulator-token",
        seed: int | None = None,
        shard_count: int = 1,
    ) -> None:
        self.clock = clock or Clock()
        self.world = World(clock=self.clock, seed=seed, bot_token=bot_token)
        self._activity = Activity()
        self.gateway = Gateway(self.world, self._activity, shard_count)
        self._rest = RestApi(self.world, self._activity, lambda: self.gateway_url, shard_count)
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self.api_base = ""
        self.gateway_url = ""

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self._runner is not None:
            raise EmulatorError("the emulator is already running")
        app = web.Application(middlewares=[self._rest.middleware], client_max_size=64 * 1024 * 1024)
        app.add_routes(self._rest.routes())
        app.router.add_get("/", self.gateway.handle)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        self._runner = runner
        self.base_url = f"http://127.0.0.1:{port}"
        self.api_base = f"{self.base_url}{API_PREFIX}"
        self.gateway_url = f"ws://127.0.0.1:{port}/"
        self.world.base_url = self.base_url
        self.gateway.url = self.gateway_url

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        await self.gateway.close_all()
        await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------ the world

    @property
    def bot_user(self) -> User:
        return self.world.bot_user

    @property
    def application_id(self) -> int:
        return self.world.application_id

    @property
    def bot_token(self) -> str:
        return self.world.bot_token

    @property
    def messages(self) -> list[Message]:
        return self.world.messages

    @property
    def interactions(self) -> list[InteractionRecord]:
        return list(self.world.interactions.values())

    @property
    def rejections(self) -> list[ApiFailure]:
        """Every request the emulator refused, in order (interaction ones are also on their record)."""
        return self.world.rejections

    @property
    def intents(self) -> int:
        """The intents the bot identified with."""
        return self.world.intents

    def add_user(self, name: str, *, locale: str = "en-US", given_id: int | None = None) -> User:
        """A new user; `given_id` keeps the id an earlier run gave them (later ids come after it)."""
        return self.world.add_user(name, locale, given_id)

    def set_locale(self, user: User, locale: str) -> User:
        """Change a user's client locale (what later interactions report); returns the updated User."""
        return self.world.set_locale(user, locale)

    def add_guild(
        self, name: str, *, owner: User, locale: str = "en-US", shard: int | None = None, given_id: int | None = None
    ) -> Guild:
        """A new guild with the bot in it; `shard` picks the shard its id routes to."""
        if shard is not None and not 0 <= shard < self.gateway.shard_count:
            raise EmulatorError(f"there is no shard {shard} of {self.gateway.shard_count}")
        on_shard = None if shard is None else (shard, self.gateway.shard_count)
        return self.world.add_guild(name, owner, locale, on_shard=on_shard, given_id=given_id)

    def add_member(self, guild: Guild, user: User) -> None:
        self.world.add_member(guild, user)

    def add_channel(self, guild: Guild, name: str, *, given_id: int | None = None) -> Channel:
        return self.world.add_channel(guild, name, given_id)

    def add_thread(
        self, parent: Channel, name: str, *, owner: User | None = None, given_id: int | None = None
    ) -> Channel:
        return self.world.add_thread(parent, name, owner, given_id)

    @property
    def last_id(self) -> int:
        """The newest id given so far: a later run of the same world gives ids after it."""
        return self.world.ids.last

    def ids_after(self, value: int) -> None:
        self.world.ids.taken(value)

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and `user` (created on first use, like Discord does)."""
        return self.world.dm_channel(user)

    def set_dms_open(self, user: User, is_open: bool) -> None:
        """Closed DMs make the bot's DM sends fail with 403 / 50007, like a user's privacy setting."""
        if is_open:
            self.world.closed_dms.discard(user.id)
        else:
            self.world.closed_dms.add(user.id)

    def commands(self, guild: Guild | None = None) -> list[JSON]:
        if guild is None:
            return list(self.world.global_commands)
        return list(self.world.guild_commands.get(guild.id, []))

    @property
    def sync_count(self) -> int:
        return self.world.sync_count

    def add_listener(self, callback: Callable[[BotOutput], None]) -> None:
        self.world.listeners.append(callback)

    def remove_listener(self, callback: Callable[[BotOutput], None]) -> None:
        self.world.listeners.remove(callback)

    # ------------------------------------------------------------ connection state

    @property
    def connected(self) -> bool:
        """Every shard is connected."""
        return self.gateway.live

    async def wait_connected(self, timeout: float = 10, *, shards: Iterable[int] | None = None) -> None:
        """The bot has identified (got READY and its guilds) on every shard, or on those named, on connections
        still open."""
        links = [self.gateway.shards[shard] for shard in shards] if shards is not None else None
        if links is None:
            await _wait_until(lambda: self.gateway.live, timeout, "the bot to identify")
        else:
            await _wait_until(lambda: all(link.live for link in links), timeout, "the bot to identify its shards")

    async def wait_shards_disconnected(self, shards: Iterable[int], timeout: float = 10) -> None:
        links = [self.gateway.shards[shard] for shard in shards]
        await _wait_until(lambda: not any(link.live for link in links), timeout, "the shards to disconnect")

    async def wait_disconnected(self, timeout: float = 10) -> None:
        """No bot connection is open (e.g. after `bot.close()`, before a new bot instance starts)."""
        await _wait_until(lambda: not self.gateway.any_live, timeout, "the bot to disconnect")

    async def wait_ready(self, timeout: float = 10) -> None:
        """Connected, and the bot has synced its commands at least once."""
        await _wait_until(
            lambda: self.gateway.live and self.world.sync_count > 0, timeout, "the bot to connect and sync commands"
        )

    async def send_reconnect(self, timeout: float = 10) -> None:
        """Send op 7 RECONNECT and wait until the bot has RESUMEd."""
        before = self.gateway.resume_count
        self.gateway.send_reconnect()
        await _wait_until(lambda: self.gateway.resume_count > before and self.gateway.live, timeout, "RESUME")

    async def invalidate_session(self, *, resumable: bool = False, timeout: float = 15) -> None:
        """Send op 9. Not resumable: the bot must IDENTIFY again (discord.py sleeps 5 s first unless
        `before_identify_hook` is overridden)."""
        gateway = self.gateway
        identified, resumed = gateway.identify_count, gateway.resume_count
        gateway.invalidate_session(resumable=resumable)
        await _wait_until(
            lambda: gateway.live and (gateway.identify_count > identified or gateway.resume_count > resumed),
            timeout,
            "the bot to reconnect after INVALID_SESSION",
        )

    async def disconnect_bot(self, code: int = 4000, timeout: float = 10, *, shard: int | None = None) -> None:
        """Drop the socket (of every shard, or of one) like a network failure; discord.py reconnects and
        RESUMEs."""
        gateway = self.gateway
        identified, resumed = gateway.identify_count, gateway.resume_count
        await gateway.drop(code, shard)
        await _wait_until(
            lambda: gateway.live and (gateway.identify_count > identified or gateway.resume_count > resumed),
            timeout,
            "the bot to reconnect",
        )

    # ------------------------------------------------------------ waiting for the bot

    async def settle(self, quiet_for: float = 0.05, timeout: float = 10) -> None:
        """Wait until the bot has no REST call in flight and has made none for `quiet_for` seconds."""
        loop = asyncio.get_running_loop()
        activity = self._activity
        start = loop.time()
        deadline = start + timeout
        while True:
            now = loop.time()
            # The quiet window starts no earlier than this call: whatever the test just did (set an
            # event, advance the clock) may only make the bot busy after its tasks get to run.
            quiet_since = max(activity.last, start)
            if activity.in_flight == 0 and now - quiet_since >= quiet_for:
                return
            if now >= deadline:
                raise TimeoutError(f"the bot did not go quiet within {timeout}s")
            await asyncio.sleep(min(max(quiet_for - (now - quiet_since), _POLL), deadline - now))

    async def _deliver(
        self, record: InteractionRecord, payload: JSON, *, wait: bool, timeout: float, settle: bool = True
    ) -> None:
        record.dispatched_at = time.perf_counter()
        self.world.dispatch("INTERACTION_CREATE", payload)
        if wait:
            # A bot that never answers is not an emulator error: the test sees an unanswered record.
            with contextlib.suppress(TimeoutError):
                await record.until(lambda: record.acknowledged or bool(record.errors), min(RESPONSE_WINDOW, timeout))
            if record.response_type == CALLBACK_DEFERRED_MESSAGE:
                # "Thinking..." is not an answer yet: the bot may pause (a database query) before it follows up.
                with contextlib.suppress(TimeoutError):
                    await record.until(
                        lambda: bool(record.errors) or any(not reply.loading for reply in record.replies), timeout
                    )
        if settle:
            await self.settle(timeout=timeout)

    def _check_access(self, user: User, channel: Channel) -> None:
        guild = self.world.guild_of(channel)
        if not self.gateway.reachable(None if guild is None else guild.id):
            raise EmulatorError("the bot is not connected to the emulator")
        if guild is not None and not guild.has_member(user.id):
            raise EmulatorError(f"{user.name} is not a member of {guild.name}")
        if guild is None and channel.recipient_id != user.id:
            raise EmulatorError(f"{user.name} cannot use another user's DM channel")

    # ------------------------------------------------------------ driving the bot as a user

    async def slash(
        self,
        user: User,
        channel: Channel,
        command: str,
        options: Mapping[str, object] | None = None,
        *,
        locale: str | None = None,
        wait: bool = True,
        timeout: float = 10,
        settle: bool = True,
    ) -> InteractionRecord:
        """Run a chat-input command. With `wait` (the default) it returns once the bot answered
        (or 3 s passed) and then went quiet; `wait=False` only waits for quiet. `settle=False` skips the wait
        for quiet, for a benchmark that sends the next command as soon as this one is answered."""
        self._check_access(user, channel)
        if not command.split():
            raise EmulatorError("empty command path")
        check_permissions(self.world, find_command(self.world, channel, command.split(maxsplit=1)[0]), user, channel)
        data = build_command_data(self.world, channel, command, options)
        record, payload = self.world.new_interaction(
            interaction_type=INTERACTION_APPLICATION_COMMAND, user=user, channel=channel, data=data, locale=locale
        )
        await self._deliver(record, payload, wait=wait, timeout=timeout, settle=settle)
        return record

    async def autocomplete(
        self,
        user: User,
        channel: Channel,
        command: str,
        options: Mapping[str, object],
        focused: str,
        *,
        locale: str | None = None,
        timeout: float = 10,
        settle: bool = True,
    ) -> list[JSON]:
        """The choices the bot offers while `user` types `options[focused]`."""
        self._check_access(user, channel)
        data = build_command_data(self.world, channel, command, options, focused=focused)
        record, payload = self.world.new_interaction(
            interaction_type=INTERACTION_AUTOCOMPLETE, user=user, channel=channel, data=data, locale=locale
        )
        await self._deliver(record, payload, wait=True, timeout=timeout, settle=settle)
        if record.choices is None:
            raise EmulatorError(f"the bot did not answer autocomplete for {focused!r} (errors: {record.errors})")
        return record.choices

    def _component_interaction(self, user: User, message: Message) -> Channel:
        channel = self.world.channels[message.channel_id]
        self._check_access(user, channel)
        if not message.is_visible_to(user.id, self.world.guild_of(channel)):
            raise EmulatorError(f"{user.name} cannot see message {message.id}")
        return channel

    async def click(
        self, user: User, message: Message, label: str, *, wait: bool = True, timeout: float = 10, settle: bool = True
    ) -> InteractionRecord:
        """Press the button labelled `label` on `message` (`wait` and `settle` as for `slash`)."""
        channel = self._component_interaction(user, message)
        button = message.button(label)
        if button.get("disabled"):
            raise EmulatorError(f"button {label!r} on message {message.id} is disabled")
        if button.get("style") == _LINK_STYLE or "custom_id" not in button:
            raise EmulatorError(f"button {label!r} is a link button; clicking it opens {button.get('url')}")
        data: JSON = {"custom_id": button["custom_id"], "component_type": _BUTTON}
        record, payload = self.world.new_interaction(
            interaction_type=INTERACTION_COMPONENT, user=user, channel=channel, data=data, locale=None, message=message
        )
        await self._deliver(record, payload, wait=wait, timeout=timeout, settle=settle)
        return record

    def refuse_next(self, method: str, path: str, *, status: int = 400, code: int = 50035, count: int = 1) -> Fault:
        """Refuse the next `count` REST requests matching `method` and the `path` pattern (as Discord refuses a
        message over its limits, or fails with a 5xx), to see what the bot does after a failed request."""
        return self._add_fault(Fault(method, re.compile(path), status, code, count))

    def rate_limit_next(
        self, method: str, path: str, *, retry_after: float, scope: str = "user", count: int = 1
    ) -> Fault:
        """Answer the next `count` matching requests with 429 and `retry_after` (seconds), as Discord does when a
        route's bucket (`scope` "user") or the bot's global limit (`scope` "global") is exhausted."""
        if scope not in ("user", "global", "shared"):
            raise EmulatorError(f"no rate limit scope {scope!r}")
        return self._add_fault(
            Fault(method, re.compile(path), RATE_LIMITED, count=count, retry_after=retry_after, scope=scope)
        )

    def slow_next(self, method: str, path: str, *, seconds: float, count: int = 1) -> Fault:
        """Handle the next `count` matching requests only after `seconds` (real time): a slow reply from Discord;
        an interaction callback held past Discord's 3 seconds arrives too late and is refused with 10062."""
        return self._add_fault(Fault(method, re.compile(path), count=count, delay=seconds))

    def _add_fault(self, fault: Fault) -> Fault:
        self._rest.faults.append(fault)
        return fault

    async def press(
        self, user: User, message: Message, custom_id: str, *, wait: bool = True, timeout: float = 10
    ) -> InteractionRecord:
        """Click a button with any `custom_id` on `message`, as if the message carried it (an old or mangled
        button): the bot must not trust what a button's id says."""
        channel = self._component_interaction(user, message)
        forged: JSON = {"type": _BUTTON, "style": 1, "label": "?", "custom_id": custom_id}
        data: JSON = {"custom_id": custom_id, "component_type": _BUTTON}
        # The message carries the button only in this interaction's copy: pressed again and again, it would
        # otherwise grow past Discord's five rows.
        shown = message.components
        message.components = [*shown, {"type": 1, "components": [forged]}]
        try:
            record, payload = self.world.new_interaction(
                interaction_type=INTERACTION_COMPONENT,
                user=user,
                channel=channel,
                data=data,
                locale=None,
                message=message,
            )
        finally:
            message.components = shown
        await self._deliver(record, payload, wait=wait, timeout=timeout)
        return record

    async def select(
        self,
        user: User,
        message: Message,
        select: str,
        values: Iterable[str],
        *,
        wait: bool = True,
        timeout: float = 10,
    ) -> InteractionRecord:
        """Choose `values` (option values) in the string select whose custom_id or placeholder is `select`."""
        channel = self._component_interaction(user, message)
        menus = [c for c in iter_components(message.components) if c.get("type") == _STRING_SELECT]
        menu = next((m for m in menus if select in (m.get("custom_id"), m.get("placeholder"))), None)
        if menu is None:
            names = [m.get("placeholder") or m.get("custom_id") for m in menus]
            raise EmulatorError(f"message {message.id} has no select {select!r}; it has {names}")
        chosen = list(values)
        offered = [str(o.get("value")) for o in menu.get("options") or []]
        unknown = [v for v in chosen if v not in offered]
        low, high = int(menu.get("min_values", 1)), int(menu.get("max_values", 1))
        if unknown or not low <= len(chosen) <= high or menu.get("disabled"):
            raise EmulatorError(f"select {select!r} accepts {low}-{high} of {offered}, not {chosen}")
        data: JSON = {"custom_id": menu["custom_id"], "component_type": _STRING_SELECT, "values": chosen}
        record, payload = self.world.new_interaction(
            interaction_type=INTERACTION_COMPONENT, user=user, channel=channel, data=data, locale=None, message=message
        )
        await self._deliver(record, payload, wait=wait, timeout=timeout)
        return record

    async def submit_modal(
        self,
        user: User,
        interaction: InteractionRecord,
        values: Mapping[str, str],
        *,
        wait: bool = True,
        timeout: float = 10,
    ) -> InteractionRecord:
        """Fill in and submit the modal the bot opened in answer to `interaction`.
        `values` are keyed by text input custom_id or label."""
        modal = interaction.modal
        if modal is None:
            raise EmulatorError(f"interaction {interaction.id} was not answered with a modal")
        if user.id != interaction.user.id:
            raise EmulatorError(f"the modal was shown to {interaction.user.name}, not {user.name}")
        self._check_access(user, interaction.channel)
        components, unused = _fill_modal(modal, dict(values))
        if unused:
            raise EmulatorError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unused)}")
        data: JSON = {"custom_id": modal["custom_id"], "components": components}
        record, payload = self.world.new_interaction(
            interaction_type=INTERACTION_MODAL_SUBMIT,
            user=user,
            channel=interaction.channel,
            data=data,
            locale=interaction.locale,
            message=interaction.message,
        )
        await self._deliver(record, payload, wait=wait, timeout=timeout)
        return record

    async def post(
        self,
        user: User,
        channel: Channel,
        content: str,
        *,
        files: Iterable[tuple[str, bytes]] = (),
        timeout: float = 10,
    ) -> Message:
        """`user` writes a message (MESSAGE_CREATE reaches the bot; content obeys the intent rules)."""
        uploads = [UploadedFile(i, name, data, None) for i, (name, data) in enumerate(files)]
        message = self.world.post_user_message(user, channel, content, uploads)
        await self.settle(timeout=timeout)
        return message

    # ------------------------------------------------------------ what users see

    def visible_to(self, user: User, channel: Channel | None = None) -> list[Message]:
        return [
            m
            for m in self.world.messages
            if (channel is None or m.channel_id == channel.id)
            and m.is_visible_to(user.id, self.world.guild_of(self.world.channels[m.channel_id]))
        ]

    def dms(self, user: User) -> list[Message]:
        channel = self.world.dm_channels.get(user.id)
        if channel is None:
            return []
        return [m for m in self.world.messages if m.channel_id == channel.id and not m.deleted]

    def last_message(self, channel: Channel, *, visible_to: User | None = None) -> Message:
        guild = self.world.guild_of(channel)
        for message in reversed(self.world.messages):
            if message.channel_id != channel.id or message.deleted:
                continue
            if visible_to is None or message.is_visible_to(visible_to.id, guild):
                return message
        who = "" if visible_to is None else f" visible to {visible_to.name}"
        raise EmulatorError(f"no message in #{channel.name}{who}")


def _fill_modal(modal: JSON, values: dict[str, str]) -> tuple[list[JSON], set[str]]:
    """The submitted components, in the shape discord.py sent them (action rows or labels)."""
    remaining = set(values)

    def leaf(component: JSON, label: str | None) -> JSON:
        custom_id = str(component.get("custom_id"))
        if component.get("type") != _TEXT_INPUT:
            return {"type": component.get("type"), "custom_id": custom_id, "values": []}
        names = [custom_id, label, component.get("label")]
        key = next((n for n in names if isinstance(n, str) and n in values), None)
        if key is not None:
            remaining.discard(key)
            value = values[key]
        else:
            value = str(component.get("value") or "")
        low, high = int(component.get("min_length") or 0), int(component.get("max_length") or 4000)
        if component.get("required", True) and not value:
            raise EmulatorError(f"modal input {custom_id!r} is required")
        if value and not low <= len(value) <= high:
            raise EmulatorError(f"modal input {custom_id!r} needs {low}-{high} characters, got {len(value)}")
        return {"type": _TEXT_INPUT, "custom_id": custom_id, "value": value}

    submitted: list[JSON] = []
    for component in modal.get("components") or []:
        if component.get("type") == 1:
            children = [leaf(c, None) for c in component.get("components") or []]
            submitted.append({"type": 1, "components": children})
        elif component.get("type") == 18 and isinstance(component.get("component"), dict):
            submitted.append({"type": 18, "component": leaf(component["component"], component.get("label"))})
    return submitted, remaining
