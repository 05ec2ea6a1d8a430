"""The emulated Discord state and the operations the REST API performs on it.

Everything here is synchronous and raises `ApiError` for requests Discord would reject; the REST
layer only parses HTTP and the gateway layer only moves JSON.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from bot.emulator.clock import Clock
from bot.emulator.models import (
    DM_CHANNEL,
    EPHEMERAL_FLAG,
    EVERYONE,
    JSON,
    LOADING_FLAG,
    PUBLIC_THREAD,
    TEXT_CHANNEL,
    ApiFailure,
    Attachment,
    BotOutput,
    Channel,
    EmulatorError,
    Guild,
    InteractionRecord,
    Message,
    Snowflakes,
    User,
    Visibility,
    Webhook,
    mentioned_ids,
)
from bot.emulator.validation import (
    ApiError,
    form_error,
    validate_choices,
    validate_commands,
    validate_message,
    validate_modal,
)

log = logging.getLogger(__name__)

# Permission bits (Discord's permission reference).
_VIEW_CHANNEL: Final = 1 << 10
_SEND_MESSAGES: Final = 1 << 11
EVERYONE_PERMISSIONS: Final = (
    1  # create instant invite
    | 1 << 6  # add reactions
    | _VIEW_CHANNEL
    | _SEND_MESSAGES
    | 1 << 14  # embed links
    | 1 << 15  # attach files
    | 1 << 16  # read message history
    | 1 << 18  # use external emojis
    | 1 << 20  # connect
    | 1 << 21  # speak
    | 1 << 26  # change nickname
    | 1 << 31  # use application commands
    | 1 << 35  # create public threads
    | 1 << 38  # send messages in threads
)
MANAGE_WEBHOOKS: Final = 1 << 29
BOT_PERMISSIONS: Final = (
    EVERYONE_PERMISSIONS
    | 1 << 13  # manage messages
    | 1 << 17  # mention everyone
    | 1 << 34  # manage threads
    | 1 << 36  # create private threads
    | MANAGE_WEBHOOKS
)
ALL_PERMISSIONS: Final = (1 << 51) - 1

ATTACHMENT_SIZE_LIMIT: Final = 10 * 1024 * 1024
CALLBACK_DEADLINE: Final = timedelta(seconds=3)
TOKEN_LIFETIME: Final = timedelta(minutes=15)

INTERACTION_APPLICATION_COMMAND: Final = 2
INTERACTION_COMPONENT: Final = 3
INTERACTION_AUTOCOMPLETE: Final = 4
INTERACTION_MODAL_SUBMIT: Final = 5

CALLBACK_MESSAGE: Final = 4
CALLBACK_DEFERRED_MESSAGE: Final = 5
CALLBACK_DEFERRED_UPDATE: Final = 6
CALLBACK_UPDATE_MESSAGE: Final = 7
CALLBACK_AUTOCOMPLETE: Final = 8
CALLBACK_MODAL: Final = 9

# Which callback types Discord accepts for each interaction type.
_ALLOWED_CALLBACKS: Final = {
    INTERACTION_APPLICATION_COMMAND: {CALLBACK_MESSAGE, CALLBACK_DEFERRED_MESSAGE, CALLBACK_MODAL},
    INTERACTION_COMPONENT: {
        CALLBACK_MESSAGE,
        CALLBACK_DEFERRED_MESSAGE,
        CALLBACK_DEFERRED_UPDATE,
        CALLBACK_UPDATE_MESSAGE,
        CALLBACK_MODAL,
    },
    INTERACTION_AUTOCOMPLETE: {CALLBACK_AUTOCOMPLETE},
    INTERACTION_MODAL_SUBMIT: {
        CALLBACK_MESSAGE,
        CALLBACK_DEFERRED_MESSAGE,
        CALLBACK_DEFERRED_UPDATE,
        CALLBACK_UPDATE_MESSAGE,
    },
}

_MESSAGE_CONTENT_INTENT: Final = 1 << 15
_GUILD_MESSAGES_INTENT: Final = 1 << 9
_DIRECT_MESSAGES_INTENT: Final = 1 << 12


# How long Discord remembers a message's nonce for `enforce_nonce` ("a few minutes").
NONCE_SECONDS = 5 * 60


@dataclass(frozen=True)
class UploadedFile:
    """One `files[n]` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str | None


def iso(moment: datetime) -> str:
    return moment.isoformat()


class World:
    def __init__(self, *, clock: Clock, seed: int | None, bot_token: str) -> None:
        self.clock = clock
        self.bot_token = bot_token
        self.ids = Snowflakes(clock, seed)
        self._rng = random.Random(seed)
        self._seeded = seed is not None
        self.base_url = ""
        self.application_id = self.ids.next()
        self.bot_user = User(self.ids.next(), "Fatebot", bot=True)
        self.users: dict[int, User] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: list[Message] = []
        self._messages_by_id: dict[int, Message] = {}
        self.webhooks: dict[int, Webhook] = {}
        # Permissions a server's admins took from the bot's role, by guild.
        self.bot_denied: dict[int, int] = {}
        # Messages sent with `enforce_nonce`, by channel and nonce: Discord answers a repeat with the first.
        self._sent_nonces: dict[tuple[int, str], Message] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.files: dict[int, Attachment] = {}
        self.global_commands: list[JSON] = []
        self.guild_commands: dict[int, list[JSON]] = {}
        self._command_ids: dict[tuple[int | None, int, str], int] = {}
        self.sync_count = 0
        self.dm_channels: dict[int, Channel] = {}
        self.closed_dms: set[int] = set()
        self.rejections: list[ApiFailure] = []
        self.intents = 0
        self.listeners: list[Callable[[BotOutput], None]] = []
        self.dispatch: Callable[[str, JSON], None] = lambda _event, _data: None

    # ------------------------------------------------------------ helpers

    def token(self, prefix: str) -> str:
        if self._seeded:
            return f"{prefix}-{self._rng.getrandbits(128):032x}"
        return f"{prefix}-{secrets.token_urlsafe(24)}"

    def guild_of(self, channel: Channel) -> Guild | None:
        return None if channel.guild_id is None else self.guilds[channel.guild_id]

    def message(self, message_id: int) -> Message | None:
        return self._messages_by_id.get(message_id)

    def file_url(self, attachment_id: int, filename: str) -> str:
        return f"{self.base_url}/attachments/{attachment_id}/{filename}"

    def store_file(self, filename: str, data: bytes, content_type: str | None = None) -> Attachment:
        attachment_id = self.ids.next()
        attachment = Attachment(
            attachment_id, filename, data, self.file_url(attachment_id, filename), content_type=content_type
        )
        self.files[attachment_id] = attachment
        return attachment

    def permissions(self, guild: Guild | None, user: User) -> int:
        if guild is None:
            return EVERYONE_PERMISSIONS
        if user.id == guild.owner_id:
            return ALL_PERMISSIONS
        if user.id == self.bot_user.id:
            return BOT_PERMISSIONS & ~self.bot_denied.get(guild.id, 0)
        return EVERYONE_PERMISSIONS

    def _emit(self, kind: Literal["create", "edit", "delete"], message: Message) -> None:
        if not self.listeners:
            return
        hook = self.webhooks.get(message.webhook_id or 0)
        if message.author.id != self.bot_user.id and (hook is None or hook.creator_id != self.bot_user.id):
            return
        output = BotOutput(kind, message.snapshot())
        for listener in list(self.listeners):
            listener(output)

    # ------------------------------------------------------------ payloads

    def user_payload(self, user: User) -> JSON:
        return {
            "id": str(user.id),
            "username": user.name,
            "discriminator": "0",
            "global_name": None if user.bot else user.name,
            "avatar": None,
            "bot": user.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "locale": user.locale,
        }

    def member_payload(self, guild: Guild, user: User, *, with_user: bool = True, permissions: bool = False) -> JSON:
        payload: JSON = {
            "roles": [str(guild.bot_role_id)] if user.id == self.bot_user.id else [],
            "nick": None,
            "avatar": None,
            "joined_at": iso(guild.member_joined[user.id]),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user_payload(user)
        if permissions:
            payload["permissions"] = str(self.permissions(guild, user))
        return payload

    def channel_payload(self, channel: Channel) -> JSON:
        if channel.type == DM_CHANNEL:
            recipient = self.users[channel.recipient_id or 0]
            return {
                "id": str(channel.id),
                "type": DM_CHANNEL,
                "last_message_id": None,
                "recipients": [self.user_payload(recipient)],
                "flags": 0,
            }
        payload: JSON = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "position": channel.position,
            "permission_overwrites": [],
            "parent_id": None if channel.parent_id is None else str(channel.parent_id),
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if channel.type == PUBLIC_THREAD:
            # Thread timestamps only have to parse; nothing in the emulator depends on them.
            created = self.clock.now()
            payload.update(
                owner_id=str(channel.owner_id),
                message_count=0,
                member_count=1,
                total_message_sent=0,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": iso(created),
                    "locked": False,
                    "create_timestamp": iso(created),
                },
            )
        return payload

    def role_payloads(self, guild: Guild) -> list[JSON]:
        def role(role_id: int, name: str, permissions: int, position: int, tags: JSON | None) -> JSON:
            payload: JSON = {
                "id": str(role_id),
                "name": name,
                "color": 0,
                "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
                "hoist": False,
                "icon": None,
                "unicode_emoji": None,
                "position": position,
                "permissions": str(permissions),
                "managed": tags is not None,
                "mentionable": False,
                "flags": 0,
            }
            if tags is not None:
                payload["tags"] = tags
            return payload

        return [
            role(guild.id, "@everyone", EVERYONE_PERMISSIONS, 0, None),
            role(guild.bot_role_id, self.bot_user.name, BOT_PERMISSIONS, 1, {"bot_id": str(self.bot_user.id)}),
        ]

    def guild_payload(self, guild: Guild) -> JSON:
        channels = [self.channels[c] for c in guild.channel_ids]
        members = [self.member_payload(guild, self.users[m]) for m in guild.member_ids]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": guild.locale,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": self.role_payloads(guild),
            "max_members": 500000,
            "max_video_channel_users": 25,
            "application_id": None,
            "unavailable": False,
            "large": False,
            "lazy": True,
            "joined_at": iso(guild.joined_at),
            "member_count": len(members),
            "members": members,
            "channels": [self.channel_payload(c) for c in channels if not c.is_thread],
            "threads": [self.channel_payload(c) for c in channels if c.is_thread],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def attachment_payload(self, attachment: Attachment) -> JSON:
        payload: JSON = {
            "id": str(attachment.id),
            "filename": attachment.filename,
            "size": attachment.size,
            "url": attachment.url,
            "proxy_url": attachment.url,
        }
        if attachment.content_type is not None:
            payload["content_type"] = attachment.content_type
        if attachment.description is not None:
            payload["description"] = attachment.description
        return payload

    def message_payload(self, message: Message, *, gateway: bool = False) -> JSON:
        payload: JSON = {
            "id": str(message.id),
            "channel_id": str(message.channel_id),
            "type": message.type,
            "content": message.content,
            "author": self.user_payload(message.author),
            "embeds": [{"type": "rich", **embed} for embed in message.embeds],
            "components": message.components,
            "attachments": [self.attachment_payload(a) for a in message.attachments],
            "mentions": [self.user_payload(self.users[u]) for u in sorted(message.mentions) if u in self.users],
            "mention_roles": [],
            "mention_everyone": "@everyone" in message.content,
            "pinned": False,
            "tts": False,
            "timestamp": iso(message.created_at),
            "edited_timestamp": None if message.edited_at is None else iso(message.edited_at),
            "flags": message.flags,
        }
        if message.guild_id is not None:
            payload["guild_id"] = str(message.guild_id)
            guild = self.guilds[message.guild_id]
            if gateway and guild.has_member(message.author.id):
                payload["member"] = self.member_payload(guild, message.author, with_user=False)
        if message.webhook_id is not None:
            payload["webhook_id"] = str(message.webhook_id)
        if message.interaction_id is not None and message.interaction_user is not None:
            payload["webhook_id"] = str(self.application_id)
            payload["application_id"] = str(self.application_id)
            record = self.interactions[message.interaction_id]
            metadata: JSON = {
                "id": str(message.interaction_id),
                "type": message.interaction_type,
                "user": self.user_payload(message.interaction_user),
                "authorizing_integration_owners": self._integration_owners(record.channel),
            }
            if record.type == INTERACTION_APPLICATION_COMMAND:
                metadata["name"] = record.data.get("name", "")
            if record.message is not None:
                metadata["interacted_message_id"] = str(record.message.id)
            if record.original_message_id is not None and record.original_message_id != message.id:
                metadata["original_response_message_id"] = str(record.original_message_id)
            payload["interaction_metadata"] = metadata
        return payload

    def _integration_owners(self, channel: Channel) -> JSON:
        # Guild installs are owned by the guild ("0" = GUILD_INSTALL); in DMs Discord reports "0" too.
        return {"0": str(channel.guild_id or 0)}

    # ------------------------------------------------------------ world changes

    def _id(self, given: int | None) -> int:
        return self.ids.next() if given is None else self.ids.taken(given)

    def add_user(self, name: str, locale: str, given_id: int | None = None) -> User:
        user = User(self._id(given_id), name, locale=locale)
        self.users[user.id] = user
        return user

    def set_locale(self, user: User, locale: str) -> User:
        if user.id not in self.users:
            raise EmulatorError(f"{user.name} was not created by this emulator")
        updated = replace(self.users[user.id], locale=locale)
        self.users[user.id] = updated
        return updated

    def add_guild(
        self, name: str, owner: User, locale: str, on_shard: tuple[int, int] | None = None, given_id: int | None = None
    ) -> Guild:
        """A new guild; `on_shard` (shard, shard count) picks an id that routes to that shard."""
        now = self.clock.now()
        guild_id = self._id(given_id) if on_shard is None else self.ids.next_on_shard(*on_shard)
        guild = Guild(guild_id, name, owner.id, joined_at=now, locale=locale)
        guild.bot_role_id = self.ids.next()
        self.guilds[guild.id] = guild
        for user in (self.bot_user, owner):
            if not guild.has_member(user.id):
                guild.member_ids.append(user.id)
                guild.member_joined[user.id] = now
        self.dispatch("GUILD_CREATE", self.guild_payload(guild))
        return guild

    def add_member(self, guild: Guild, user: User) -> None:
        if user.id not in self.users:
            raise EmulatorError(f"{user.name} was not created by this emulator")
        if guild.has_member(user.id):
            return
        guild.member_ids.append(user.id)
        guild.member_joined[user.id] = self.clock.now()
        self.dispatch("GUILD_MEMBER_ADD", {"guild_id": str(guild.id), **self.member_payload(guild, user)})

    def add_channel(self, guild: Guild, name: str, given_id: int | None = None) -> Channel:
        position = sum(1 for c in guild.channel_ids if not self.channels[c].is_thread)
        channel = Channel(self._id(given_id), name, TEXT_CHANNEL, guild.id, position=position)
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        self.dispatch("CHANNEL_CREATE", self.channel_payload(channel))
        return channel

    def add_thread(self, parent: Channel, name: str, owner: User | None, given_id: int | None = None) -> Channel:
        if parent.guild_id is None or parent.type != TEXT_CHANNEL:
            raise EmulatorError("threads can only be created in guild text channels")
        owner_id = (owner or self.bot_user).id
        thread = Channel(
            self._id(given_id), name, PUBLIC_THREAD, parent.guild_id, parent_id=parent.id, owner_id=owner_id
        )
        self.channels[thread.id] = thread
        self.guilds[parent.guild_id].channel_ids.append(thread.id)
        self.dispatch("THREAD_CREATE", {**self.channel_payload(thread), "newly_created": True})
        return thread

    def dm_channel(self, user: User) -> Channel:
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = Channel(self.ids.next(), user.name, DM_CHANNEL, None, recipient_id=user.id)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def shares_guild(self, user: User) -> bool:
        return any(g.has_member(user.id) for g in self.guilds.values())

    # ------------------------------------------------------------ messages

    def _notified(
        self, content: str, allowed: object, channel: Channel, visible: Visibility, author: User
    ) -> frozenset[int]:
        mentioned = mentioned_ids(content)
        if isinstance(allowed, dict):
            parse = allowed.get("parse") or []
            users_ok = mentioned if "users" in parse else mentioned & {int(u) for u in allowed.get("users") or []}
            everyone_ok = "everyone" in parse
        else:
            # No allowed_mentions at all means Discord parses every mention in the content.
            users_ok = mentioned
            everyone_ok = True
        guild = self.guild_of(channel)
        audience: set[int]
        audience = (set(guild.member_ids) if guild is not None else set()) if visible is EVERYONE else set(visible)
        if channel.type == DM_CHANNEL and channel.recipient_id is not None and visible is EVERYONE:
            audience = {channel.recipient_id}
        targets = set(users_ok)
        if everyone_ok and ("@everyone" in content or "@here" in content):
            targets |= audience
        targets &= audience
        targets.discard(author.id)
        return frozenset(targets)

    def _attachments_for(
        self, payload: JSON, files: list[UploadedFile], existing: list[Attachment] | None
    ) -> list[Attachment]:
        described = {
            int(a["id"]): a
            for a in payload.get("attachments") or []
            if isinstance(a, dict) and str(a.get("id", "")).isdigit()
        }
        kept: list[Attachment] = []
        if existing is not None:
            kept = [a for a in existing if a.id in described] if "attachments" in payload else list(existing)
        new: list[Attachment] = []
        for upload in files:
            if len(upload.data) > ATTACHMENT_SIZE_LIMIT:
                raise ApiError(413, 40005, "Request entity too large")
            attachment = self.store_file(upload.filename, upload.data, upload.content_type)
            meta = described.get(upload.index)
            if meta is not None and isinstance(meta.get("description"), str):
                attachment.description = meta["description"]
            new.append(attachment)
        return kept + new

    def _create_message(
        self,
        *,
        channel: Channel,
        author: User,
        payload: JSON,
        files: list[UploadedFile],
        visible: Visibility,
        record: InteractionRecord | None,
        message_type: int = 0,
        flags: int = 0,
        webhook: Webhook | None = None,
    ) -> Message:
        content = str(payload.get("content") or "")
        message = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=content,
            created_at=self.clock.now(),
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            attachments=self._attachments_for(payload, files, None),
            flags=flags | (int(payload.get("flags") or 0) & ~(EPHEMERAL_FLAG | LOADING_FLAG)),
            visible_to=visible,
            mentions=mentioned_ids(content),
            type=message_type,
            webhook_id=webhook.id if webhook is not None else None,
            avatar_url=str(payload["avatar_url"]) if webhook is not None and payload.get("avatar_url") else None,
        )
        message.notified = self._notified(content, payload.get("allowed_mentions"), channel, visible, author)
        if record is not None:
            message.interaction_id = record.id
            message.interaction_type = record.type
            message.interaction_user = record.user
            record.replies.append(message)
        self.messages.append(message)
        self._messages_by_id[message.id] = message
        self._emit("create", message)
        if self._bot_receives(message):
            self.dispatch("MESSAGE_CREATE", self._message_event(message))
        return message

    def _bot_receives(self, message: Message) -> bool:
        """Whether the bot hears of the message: never of an ephemeral one, and of others only with the intent
        for messages of servers or of DMs."""
        if message.ephemeral:
            return False
        wanted = _GUILD_MESSAGES_INTENT if message.guild_id is not None else _DIRECT_MESSAGES_INTENT
        return bool(self.intents & wanted)

    def _message_event(self, message: Message) -> JSON:
        payload = self.message_payload(message, gateway=True)
        bot_mentioned = self.bot_user.id in message.mentions
        own = message.author.id == self.bot_user.id
        if not (own or bot_mentioned or message.guild_id is None or self.intents & _MESSAGE_CONTENT_INTENT):
            # Without the privileged message-content intent Discord blanks other people's messages.
            payload.update(content="", embeds=[], attachments=[], components=[])
        return payload

    def _edit_message(self, message: Message, payload: JSON, files: list[UploadedFile], *, fill: bool) -> None:
        validate_message(payload, file_count=len(files), partial=True)
        merged = {
            "content": payload.get("content", message.content),
            "embeds": payload.get("embeds", message.embeds),
            "components": payload.get("components", message.components),
        }
        attachments = self._attachments_for(payload, files, message.attachments)
        result = {k: v for k, v in merged.items() if v is not None}
        validate_message({**result, "flags": message.flags}, file_count=len(attachments), partial=False)
        message.content = str(merged["content"] or "")
        message.embeds = list(merged["embeds"] or [])
        message.components = list(merged["components"] or [])
        message.attachments = attachments
        message.mentions = mentioned_ids(message.content)
        if fill:
            # Completing a deferred "thinking" reply behaves like sending it: its mentions ping.
            message.flags &= ~LOADING_FLAG
            channel = self.channels[message.channel_id]
            message.notified = self._notified(
                message.content, payload.get("allowed_mentions"), channel, message.visible_to, message.author
            )
        else:
            message.edited += 1
            message.edited_at = self.clock.now()
        self._emit("edit", message)
        if self._bot_receives(message):
            self.dispatch("MESSAGE_UPDATE", self._message_event(message))

    def _delete_message(self, message: Message) -> None:
        message.deleted = True
        self._emit("delete", message)
        if self._bot_receives(message):
            event: JSON = {"id": str(message.id), "channel_id": str(message.channel_id)}
            if message.guild_id is not None:
                event["guild_id"] = str(message.guild_id)
            self.dispatch("MESSAGE_DELETE", event)

    def post_user_message(self, user: User, channel: Channel, content: str, files: list[UploadedFile]) -> Message:
        guild = self.guild_of(channel)
        if guild is not None and not guild.has_member(user.id):
            raise EmulatorError(f"{user.name} is not a member of {guild.name}")
        if channel.type == DM_CHANNEL and channel.recipient_id != user.id:
            raise EmulatorError(f"{user.name} cannot post in another user's DM channel")
        payload: JSON = {"content": content}
        validate_message(payload, file_count=len(files), partial=False)
        visible: Visibility = EVERYONE if guild is not None else frozenset({user.id})
        return self._create_message(
            channel=channel, author=user, payload=payload, files=files, visible=visible, record=None
        )

    # ------------------------------------------------------------ REST: channels and users

    def _channel(self, channel_id: int) -> Channel:
        channel = self.channels.get(channel_id)
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _channel_message(self, channel_id: int, message_id: int) -> Message:
        self._channel(channel_id)
        message = self._messages_by_id.get(message_id)
        if message is None or message.deleted or message.channel_id != channel_id or message.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    def get_channel(self, channel_id: int) -> JSON:
        return self.channel_payload(self._channel(channel_id))

    def send_channel_message(self, channel_id: int, payload: JSON, files: list[UploadedFile]) -> JSON:
        channel = self._channel(channel_id)
        visible: Visibility = EVERYONE
        if channel.type == DM_CHANNEL:
            recipient = self.users[channel.recipient_id or 0]
            if recipient.id in self.closed_dms or not self.shares_guild(recipient):
                raise ApiError(403, 50007, "Cannot send messages to this user")
            visible = frozenset({recipient.id})
        validate_message(payload, file_count=len(files), partial=False)
        nonce = payload.get("nonce")
        seen_key = (channel.id, str(nonce))
        if payload.get("enforce_nonce") and nonce is not None:
            earlier = self._sent_nonces.get(seen_key)
            if earlier is not None and (self.clock.now() - earlier.created_at).total_seconds() < NONCE_SECONDS:
                return self.message_payload(earlier)
        message = self._create_message(
            channel=channel, author=self.bot_user, payload=payload, files=files, visible=visible, record=None
        )
        if payload.get("enforce_nonce") and nonce is not None:
            self._sent_nonces[seen_key] = message
        return self.message_payload(message)

    def edit_channel_message(self, channel_id: int, message_id: int, payload: JSON, files: list[UploadedFile]) -> JSON:
        message = self._channel_message(channel_id, message_id)
        if message.author.id != self.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._edit_message(message, payload, files, fill=False)
        return self.message_payload(message)

    def delete_channel_message(self, channel_id: int, message_id: int) -> None:
        self._delete_message(self._channel_message(channel_id, message_id))

    def get_channel_message(self, channel_id: int, message_id: int) -> JSON:
        return self.message_payload(self._channel_message(channel_id, message_id))

    def get_channel_messages(self, channel_id: int, *, limit: int, before: int | None, after: int | None) -> list[JSON]:
        self._channel(channel_id)
        found = [
            m
            for m in self.messages
            if m.channel_id == channel_id
            and not m.deleted
            and not m.ephemeral
            and (before is None or m.id < before)
            and (after is None or m.id > after)
        ]
        # Discord returns newest first; with `after` it returns the oldest ones after that id.
        chosen = found[:limit] if after is not None and before is None else found[-limit:]
        return [self.message_payload(m) for m in reversed(chosen)]

    def open_dm(self, recipient_id: int) -> JSON:
        user = self.users.get(recipient_id)
        if user is None or user.bot:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return self.channel_payload(self.dm_channel(user))

    def get_user(self, user_id: int) -> JSON:
        user = self.users.get(user_id)
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return self.user_payload(user)

    def _guild(self, guild_id: int) -> Guild:
        guild = self.guilds.get(guild_id)
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def get_guild(self, guild_id: int) -> JSON:
        payload = self.guild_payload(self._guild(guild_id))
        for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at", "member_count"):
            payload.pop(key)
        return payload

    def get_guild_channels(self, guild_id: int) -> list[JSON]:
        guild = self._guild(guild_id)
        return [self.channel_payload(self.channels[c]) for c in guild.channel_ids if not self.channels[c].is_thread]

    def get_member(self, guild_id: int, user_id: int) -> JSON:
        guild = self._guild(guild_id)
        if not guild.has_member(user_id):
            raise ApiError(404, 10007, "Unknown Member")
        return self.member_payload(guild, self.users[user_id])

    # ------------------------------------------------------------ REST: commands

    def _check_application(self, application_id: int) -> None:
        if application_id != self.application_id:
            raise ApiError(403, 50001, "Missing Access")

    def put_commands(self, application_id: int, guild_id: int | None, body: list[JSON] | None) -> list[JSON]:
        self._check_application(application_id)
        if guild_id is not None:
            self._guild(guild_id)
        commands = validate_commands(body)
        stored: list[JSON] = []
        for command in commands:
            key = (guild_id, int(command.get("type", 1)), str(command["name"]))
            command_id = self._command_ids.get(key)
            if command_id is None:
                command_id = self._command_ids[key] = self.ids.next()
            full: JSON = {
                "type": 1,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "nsfw": False,
                **command,
                "id": str(command_id),
                "application_id": str(self.application_id),
                "version": str(self.ids.next()),
            }
            if guild_id is not None:
                full["guild_id"] = str(guild_id)
            stored.append(full)
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        self.sync_count += 1
        return stored

    def get_commands(self, application_id: int, guild_id: int | None) -> list[JSON]:
        self._check_application(application_id)
        if guild_id is None:
            return self.global_commands
        self._guild(guild_id)
        return self.guild_commands.get(guild_id, [])

    # ------------------------------------------------------------ interactions

    def new_interaction(
        self,
        *,
        interaction_type: int,
        user: User,
        channel: Channel,
        data: JSON,
        locale: str | None,
        message: Message | None = None,
    ) -> tuple[InteractionRecord, JSON]:
        record = InteractionRecord(
            id=self.ids.next(),
            token=self.token("itok"),
            type=interaction_type,
            user=user,
            channel=channel,
            created_at=self.clock.now(),
            data=data,
            # The world's copy is authoritative: a test may hold a User from before set_locale().
            locale=locale or self.users.get(user.id, user).locale,
            message=message,
        )
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        guild = self.guild_of(channel)
        payload: JSON = {
            "id": str(record.id),
            "application_id": str(self.application_id),
            "type": interaction_type,
            "token": record.token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": {**self.channel_payload(channel), "permissions": str(self.permissions(guild, user))},
            "app_permissions": str(self.permissions(guild, self.bot_user)),
            "locale": record.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": self._integration_owners(channel),
            "context": 0 if guild is not None else 1,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if guild is not None:
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
            payload["guild_locale"] = guild.locale
            payload["member"] = self.member_payload(guild, user, permissions=True)
        else:
            payload["user"] = self.user_payload(user)
        if message is not None:
            payload["message"] = self.message_payload(message)
        return record, payload

    def record_failure(self, failure: ApiFailure, record: InteractionRecord | None) -> None:
        self.rejections.append(failure)
        if record is not None:
            record.errors.append(failure)
            record.note_change(answered=False)
        log.info("emulator rejected %s %s: %s %s", failure.method, failure.path, failure.code, failure.message)

    def interaction_by_id(self, interaction_id: int) -> InteractionRecord | None:
        return self.interactions.get(interaction_id)

    def interaction_by_token(self, token: str) -> InteractionRecord | None:
        return self._by_token.get(token)

    def interaction_callback(self, interaction_id: int, token: str, body: JSON, files: list[UploadedFile]) -> JSON:
        record = self.interactions.get(interaction_id)
        if record is None or record.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        if record.acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if self.clock.now() - record.created_at > CALLBACK_DEADLINE:
            raise ApiError(404, 10062, "Unknown interaction")
        callback_type = body.get("type")
        if callback_type not in _ALLOWED_CALLBACKS[record.type] or (
            callback_type in (CALLBACK_DEFERRED_UPDATE, CALLBACK_UPDATE_MESSAGE) and record.message is None
        ):
            raise form_error(("type",), "INTERACTION_CALLBACK_TYPE_INVALID", "Invalid interaction callback type")
        data: Any = body.get("data") or {}
        if not isinstance(data, dict):
            raise form_error(("data",), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        message: Message | None = None
        if callback_type == CALLBACK_MESSAGE:
            validate_message(data, file_count=len(files), partial=False)
            message = self._reply(record, data, files, flags=int(data.get("flags") or 0) & EPHEMERAL_FLAG)
        elif callback_type == CALLBACK_DEFERRED_MESSAGE:
            flags = (int(data.get("flags") or 0) & EPHEMERAL_FLAG) | LOADING_FLAG
            message = self._reply(record, {}, [], flags=flags)
        elif callback_type in (CALLBACK_DEFERRED_UPDATE, CALLBACK_UPDATE_MESSAGE):
            assert record.message is not None  # checked with the callback type above
            if callback_type == CALLBACK_UPDATE_MESSAGE:
                self._edit_message(record.message, data, files, fill=False)
            message = record.message
            record.original_message_id = message.id
        elif callback_type == CALLBACK_AUTOCOMPLETE:
            record.choices = validate_choices(data)
        else:
            record.modal = validate_modal(data)
        record.response_type = int(callback_type)
        record.note_change(
            answered=callback_type not in (CALLBACK_DEFERRED_MESSAGE, CALLBACK_DEFERRED_UPDATE), acknowledged=True
        )
        interaction: JSON = {
            "id": str(record.id),
            "type": record.type,
            "response_message_loading": callback_type == CALLBACK_DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(message is not None and message.ephemeral),
        }
        resource: JSON = {"type": callback_type}
        if message is not None:
            interaction["response_message_id"] = str(message.id)
            resource["message"] = self.message_payload(message)
        return {"interaction": interaction, "resource": resource}

    def _reply(self, record: InteractionRecord, payload: JSON, files: list[UploadedFile], *, flags: int) -> Message:
        visible: Visibility = frozenset({record.user.id}) if flags & EPHEMERAL_FLAG else EVERYONE
        if record.channel.type == DM_CHANNEL:
            visible = frozenset({record.user.id})
        message_type = 20 if record.type == INTERACTION_APPLICATION_COMMAND else 0
        message = self._create_message(
            channel=record.channel,
            author=self.bot_user,
            payload=payload,
            files=files,
            visible=visible,
            record=record,
            message_type=message_type,
            flags=flags,
        )
        if record.original_message_id is None:
            record.original_message_id = message.id
        return message

    # ------------------------------------------------------------ channel webhooks

    def webhook_payload(self, hook: Webhook) -> JSON:
        return {
            "id": str(hook.id),
            "type": 1,
            "guild_id": str(hook.guild_id),
            "channel_id": str(hook.channel_id),
            "name": hook.name,
            "avatar": None,
            "token": hook.token,
            "application_id": None,
            "user": self.user_payload(self.users.get(hook.creator_id, self.bot_user)),
        }

    def _managing_webhooks(self, channel_id: int) -> Channel:
        channel = self._channel(channel_id)
        if channel.guild_id is None or channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if not self.permissions(self.guild_of(channel), self.bot_user) & MANAGE_WEBHOOKS:
            raise ApiError(403, 50013, "Missing Permissions")
        return channel

    def create_webhook(self, channel_id: int, payload: JSON) -> JSON:
        channel = self._managing_webhooks(channel_id)
        name = str(payload.get("name") or "")
        # Discord refuses names outside 1-80 characters and names with "clyde" or "discord" in them.
        if not 1 <= len(name) <= 80 or "clyde" in name.lower() or "discord" in name.lower():
            raise ApiError(400, 50035, "Invalid Form Body")
        assert channel.guild_id is not None
        hook = Webhook(self.ids.next(), secrets.token_hex(34), channel.id, channel.guild_id, name, self.bot_user.id)
        self.webhooks[hook.id] = hook
        return self.webhook_payload(hook)

    def channel_webhooks(self, channel_id: int) -> list[JSON]:
        channel = self._managing_webhooks(channel_id)
        return [self.webhook_payload(hook) for hook in self.webhooks.values() if hook.channel_id == channel.id]

    def delete_webhook(self, webhook_id: int) -> None:
        """A webhook deleted (by a server admin, say): whatever held its token can no longer post with it."""
        if self.webhooks.pop(webhook_id, None) is None:
            raise ApiError(404, 10015, "Unknown Webhook")

    def _hook(self, webhook_id: int, token: str) -> Webhook:
        hook = self.webhooks.get(webhook_id)
        if hook is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if hook.token != token:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return hook

    def execute_webhook(
        self, webhook_id: int, token: str, payload: JSON, files: list[UploadedFile], thread_id: int | None
    ) -> JSON:
        hook = self._hook(webhook_id, token)
        channel = self._channel(hook.channel_id)
        if thread_id is not None:
            thread = self._channel(thread_id)
            if thread.parent_id != hook.channel_id:
                raise ApiError(400, 220001, "Webhook can only create threads in forum channels")
            channel = thread
        validate_message(payload, file_count=len(files), partial=False)
        username = str(payload.get("username") or hook.name)
        if not 1 <= len(username) <= 80 or "clyde" in username.lower() or "discord" in username.lower():
            raise ApiError(400, 50035, "Invalid Form Body")
        author = User(hook.id, username, bot=True)
        message = self._create_message(
            channel=channel, author=author, payload=payload, files=files, visible=EVERYONE, record=None, webhook=hook
        )
        return self.message_payload(message)

    def _posted_by_hook(self, webhook_id: int, token: str, message_ref: str) -> Message:
        hook = self._hook(webhook_id, token)
        message = self._messages_by_id.get(int(message_ref)) if message_ref.isdigit() else None
        if message is None or message.deleted or message.webhook_id != hook.id:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    def _webhook(self, application_id: int, token: str) -> InteractionRecord:
        if application_id != self.application_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        record = self._by_token.get(token)
        if record is None or self.clock.now() - record.created_at > TOKEN_LIFETIME:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if not record.acknowledged:
            raise ApiError(404, 10015, "Unknown Webhook")
        return record

    def _webhook_message(self, record: InteractionRecord, message_ref: str) -> Message:
        if message_ref == "@original":
            message_id = record.original_message_id
        else:
            message_id = int(message_ref) if message_ref.isdigit() else None
        message = None if message_id is None else self._messages_by_id.get(message_id)
        if message is None or message.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        if message.interaction_id != record.id and message.id != record.original_message_id:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    def _pending_original(self, record: InteractionRecord) -> Message | None:
        if record.response_type != CALLBACK_DEFERRED_MESSAGE or record.original_message_id is None:
            return None
        original = self._messages_by_id[record.original_message_id]
        return original if original.loading and not original.deleted else None

    def followup(
        self, application_id: int, token: str, payload: JSON, files: list[UploadedFile], thread_id: int | None = None
    ) -> JSON:
        if application_id in self.webhooks:
            return self.execute_webhook(application_id, token, payload, files, thread_id)
        record = self._webhook(application_id, token)
        validate_message(payload, file_count=len(files), partial=False)
        pending = self._pending_original(record)
        if pending is not None:
            # Discord turns the first followup after a deferred reply into that reply.
            self._edit_message(pending, payload, files, fill=True)
            record.note_change(answered=True)
            return self.message_payload(pending)
        message = self._reply(record, payload, files, flags=int(payload.get("flags") or 0) & EPHEMERAL_FLAG)
        record.note_change(answered=True)
        return self.message_payload(message)

    def get_webhook_message(self, application_id: int, token: str, message_ref: str) -> JSON:
        if application_id in self.webhooks:
            return self.message_payload(self._posted_by_hook(application_id, token, message_ref))
        record = self._webhook(application_id, token)
        return self.message_payload(self._webhook_message(record, message_ref))

    def edit_webhook_message(
        self, application_id: int, token: str, message_ref: str, payload: JSON, files: list[UploadedFile]
    ) -> JSON:
        if application_id in self.webhooks:
            posted = self._posted_by_hook(application_id, token, message_ref)
            self._edit_message(posted, payload, files, fill=False)
            return self.message_payload(posted)
        record = self._webhook(application_id, token)
        message = self._webhook_message(record, message_ref)
        self._edit_message(message, payload, files, fill=message.loading)
        record.note_change(answered=True)
        return self.message_payload(message)

    def delete_webhook_message(self, application_id: int, token: str, message_ref: str) -> None:
        if application_id in self.webhooks:
            self._delete_message(self._posted_by_hook(application_id, token, message_ref))
            return
        record = self._webhook(application_id, token)
        self._delete_message(self._webhook_message(record, message_ref))
