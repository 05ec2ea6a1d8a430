"""The things the emulator keeps: users, guilds, channels, messages and interactions."""

from __future__ import annotations

import asyncio
import enum
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final, Literal

from bot.emulator.clock import Clock

JSON = dict[str, Any]

DISCORD_EPOCH_MS: Final = 1_420_070_400_000
# Seeded ids start from a fixed instant so that the same script yields the same ids on every run.
SEEDED_BASE_MS: Final = 1_735_689_600_000  # 2025-01-01T00:00:00Z

TEXT_CHANNEL: Final = 0
DM_CHANNEL: Final = 1
PUBLIC_THREAD: Final = 11

EPHEMERAL_FLAG: Final = 1 << 6
LOADING_FLAG: Final = 1 << 7


class EmulatorError(Exception):
    """A mistake in how a test drives the emulator (unknown command, option, button label ...)."""


class Audience(enum.Enum):
    """Visibility sentinel: every member of the message's guild can see it."""

    EVERYONE = "everyone"


EVERYONE: Final = Audience.EVERYONE
Visibility = frozenset[int] | Literal[Audience.EVERYONE]


class Snowflakes:
    """Discord-shaped ids that sort by creation order."""

    def __init__(self, clock: Clock, seed: int | None) -> None:
        self._clock = clock
        self._seed = seed
        self._last = 0
        self._counter = 0

    def next(self) -> int:
        self._counter += 1
        if self._seed is not None:
            worker = self._seed % 1024
            value = ((SEEDED_BASE_MS - DISCORD_EPOCH_MS + self._counter) << 22) | (worker << 12)
        else:
            ms = int(self._clock.now().timestamp() * 1000) - DISCORD_EPOCH_MS
            value = (ms << 22) | (self._counter & 0xFFF)
        # Advancing the clock backwards is impossible, but ids minted in the same millisecond
        # still have to be strictly increasing.
        value = max(value, self._last + 1)
        self._last = value
        return value

    def taken(self, value: int) -> int:
        """An id given from outside (a world a run before made): later ids come after it."""
        self._last = max(self._last, value)
        return value

    @property
    def last(self) -> int:
        return self._last

    def next_on_shard(self, shard: int, shard_count: int) -> int:
        """The next id whose guild would live on `shard`: later by whole milliseconds until it does."""
        value = self.next()
        while (value >> 22) % shard_count != shard:
            value += 1 << 22
        self._last = value
        return value


@dataclass(frozen=True)
class User:
    # Identity is the id, as in Discord: a user whose locale changed is still the same user.
    id: int
    name: str = field(compare=False)
    locale: str = field(default="en-US", compare=False)
    bot: bool = field(default=False, compare=False)

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(frozen=True)
class Channel:
    id: int
    name: str
    type: int
    guild_id: int | None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient_id: int | None = None
    position: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type == PUBLIC_THREAD

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    joined_at: datetime
    locale: str = "en-US"
    member_ids: list[int] = field(default_factory=list)
    member_joined: dict[int, datetime] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    bot_role_id: int = 0

    def has_member(self, user_id: int) -> bool:
        return user_id in self.member_joined


@dataclass
class Attachment:
    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)


_BUTTON: Final = 2


def iter_components(components: list[JSON]) -> Iterator[JSON]:
    """Every component, depth first, through action rows, containers, sections and labels."""
    for component in components:
        yield component
        children = component.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from iter_components([child])


@dataclass
class Webhook:
    """A channel webhook: whoever holds its token posts in its channel under any name and avatar."""

    id: int
    token: str
    channel_id: int
    guild_id: int
    name: str
    creator_id: int


@dataclass
class Message:
    id: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str
    created_at: datetime
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    visible_to: Visibility = EVERYONE
    notified: frozenset[int] = frozenset()
    mentions: frozenset[int] = frozenset()
    interaction_id: int | None = None
    # Posted through a channel webhook: its id, and the avatar the post asked for.
    webhook_id: int | None = None
    avatar_url: str | None = None
    interaction_type: int | None = None
    interaction_user: User | None = None
    type: int = 0
    edited: int = 0
    edited_at: datetime | None = None
    deleted: bool = False

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL_FLAG)

    @property
    def loading(self) -> bool:
        """A deferred reply that still shows "thinking"."""
        return bool(self.flags & LOADING_FLAG)

    def buttons(self) -> list[str]:
        return [str(c.get("label", "")) for c in iter_components(self.components) if c.get("type") == _BUTTON]

    def button(self, label: str) -> JSON:
        for component in iter_components(self.components):
            if component.get("type") == _BUTTON and component.get("label") == label:
                return component
        raise EmulatorError(f"message {self.id} has no button {label!r}; its buttons are {self.buttons()}")

    def text(self) -> str:
        """Everything a reader sees as text: content, embed texts and text displays, one per line."""
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            parts.extend(str(embed[key]) for key in ("title", "description") if embed.get(key))
            author = embed.get("author") or {}
            if author.get("name"):
                parts.append(str(author["name"]))
            for embed_field in embed.get("fields") or []:
                parts.extend((str(embed_field.get("name", "")), str(embed_field.get("value", ""))))
            footer = embed.get("footer") or {}
            if footer.get("text"):
                parts.append(str(footer["text"]))
        parts.extend(str(c["content"]) for c in iter_components(self.components) if c.get("type") == 10)
        return "\n".join(parts)

    def is_visible_to(self, user_id: int, guild: Guild | None) -> bool:
        if self.deleted:
            return False
        if self.visible_to is EVERYONE:
            return guild is not None and guild.has_member(user_id)
        return user_id in self.visible_to

    def snapshot(self) -> Message:
        return replace(
            self,
            embeds=list(self.embeds),
            components=list(self.components),
            attachments=list(self.attachments),
        )


@dataclass(frozen=True)
class ApiFailure:
    """A request the emulator rejected the way Discord would."""

    method: str
    path: str
    status: int
    code: int
    message: str
    errors: JSON | None = None


@dataclass
class InteractionRecord:
    id: int
    token: str
    type: int
    user: User
    channel: Channel
    created_at: datetime
    data: JSON
    locale: str
    message: Message | None = None
    response_type: int | None = None
    replies: list[Message] = field(default_factory=list)
    errors: list[ApiFailure] = field(default_factory=list)
    modal: JSON | None = None
    choices: list[JSON] | None = None
    original_message_id: int | None = None
    # perf_counter() readings, for benchmarks: when the bot was sent the interaction, and when the user first
    # saw an answer (a reply, an edited message, choices or a modal; "thinking..." is not an answer).
    dispatched_at: float | None = None
    answered_at: float | None = None
    # When the bot first responded at all (a "thinking..." too): what Discord's 3-second deadline is about.
    acknowledged_at: float | None = None
    # Set at every change, so a waiter wakes exactly when there is something new to look at.
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)

    def note_change(self, *, answered: bool, acknowledged: bool = False) -> None:
        now = time.perf_counter()
        if acknowledged and self.acknowledged_at is None:
            self.acknowledged_at = now
        if answered and self.answered_at is None:
            self.answered_at = now
        self.changed.set()

    async def until(self, condition: Callable[[], bool], seconds: float) -> None:
        """Wait until `condition()` holds after some change to this record; TimeoutError after `seconds`."""
        async with asyncio.timeout(seconds):
            while not condition():
                self.changed.clear()
                await self.changed.wait()

    @property
    def error(self) -> ApiFailure | None:
        return self.errors[0] if self.errors else None

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None

    @property
    def reply(self) -> Message:
        """The first reply still there (the original response, or the first followup; a deleted "thinking"
        placeholder does not count)."""
        shown = [message for message in self.replies if not message.deleted]
        if not shown:
            raise EmulatorError(f"interaction {self.id} has no reply (errors: {self.errors})")
        return shown[0]


@dataclass(frozen=True)
class BotOutput:
    kind: Literal["create", "edit", "delete"]
    message: Message


_USER_MENTION: Final = re.compile(r"<@!?(\d{15,25})>")


def mentioned_ids(content: str) -> frozenset[int]:
    return frozenset(int(m) for m in _USER_MENTION.findall(content))
