"""Turning `emu.slash(user, channel, "campaign start", {...})` into an interaction `data` object.

The Discord client only lets a user send what the synced command allows, so everything the
client would refuse (unknown names, wrong types, out-of-range values, missing required options)
is an `EmulatorError` here rather than a request the bot ever sees.
"""

from __future__ import annotations

import math
import mimetypes
from collections.abc import Mapping
from typing import Final

from bot.emulator.models import JSON, Channel, EmulatorError, User
from bot.emulator.world import World

SUB_COMMAND: Final = 1
SUB_COMMAND_GROUP: Final = 2
STRING: Final = 3
INTEGER: Final = 4
BOOLEAN: Final = 5
USER: Final = 6
CHANNEL: Final = 7
ROLE: Final = 8
MENTIONABLE: Final = 9
NUMBER: Final = 10
ATTACHMENT: Final = 11

_TYPE_NAMES: Final = {
    STRING: "string",
    INTEGER: "integer",
    BOOLEAN: "boolean",
    USER: "user",
    CHANNEL: "channel",
    ROLE: "role",
    MENTIONABLE: "mentionable",
    NUMBER: "number",
    ATTACHMENT: "attachment",
}
# Discord's JavaScript clients cannot send integers beyond 2**53.
_MAX_SAFE_INTEGER: Final = 2**53


def find_command(world: World, channel: Channel, name: str) -> JSON:
    tables: list[list[JSON]] = []
    if channel.guild_id is not None:
        tables.append(world.guild_commands.get(channel.guild_id, []))
    tables.append(world.global_commands)
    for table in tables:
        for command in table:
            if command.get("type", 1) == 1 and command.get("name") == name:
                return command
    known = sorted({str(c["name"]) for table in tables for c in table if c.get("type", 1) == 1})
    raise EmulatorError(f"unknown command {name!r} in #{channel.name}; synced commands: {known}")


def _describe(option: JSON) -> str:
    return f"{option['name']!r} ({_TYPE_NAMES.get(int(option['type']), option['type'])})"


class _Builder:
    def __init__(self, world: World, channel: Channel, path: str) -> None:
        self.world = world
        self.channel = channel
        self.path = path
        self.resolved: dict[str, dict[str, JSON]] = {}

    def _fail(self, message: str) -> EmulatorError:
        return EmulatorError(f"/{self.path}: {message}")

    def _resolve(self, kind: str, key: int, payload: JSON) -> None:
        self.resolved.setdefault(kind, {})[str(key)] = payload

    def _choice(self, option: JSON, value: object) -> None:
        choices = option.get("choices")
        if choices and value not in [c.get("value") for c in choices]:
            allowed = [c.get("value") for c in choices]
            raise self._fail(f"option {option['name']!r} only accepts one of {allowed}, not {value!r}")

    def _bounds(self, option: JSON, value: float) -> None:
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self._fail(f"option {option['name']!r} must be between {low} and {high}, not {value!r}")

    def _user(self, option: JSON, value: object) -> str:
        user = self.world.users.get(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(user, User) or user.id not in self.world.users:
            raise self._fail(f"option {_describe(option)} needs a User from this emulator, not {value!r}")
        self._resolve("users", user.id, self.world.user_payload(user))
        guild = self.world.guild_of(self.channel)
        if guild is not None and guild.has_member(user.id):
            member = self.world.member_payload(guild, user, with_user=False, permissions=True)
            self._resolve("members", user.id, member)
        return str(user.id)

    def _channel(self, option: JSON, value: object) -> str:
        if not isinstance(value, Channel) or value.id not in self.world.channels:
            raise self._fail(f"option {_describe(option)} needs a Channel from this emulator, not {value!r}")
        allowed = option.get("channel_types")
        if allowed and value.type not in allowed:
            raise self._fail(f"option {option['name']!r} accepts channel types {allowed}, not {value.type}")
        if value.guild_id != self.channel.guild_id:
            raise self._fail(f"channel #{value.name} is not in this guild")
        payload = self.world.channel_payload(value)
        resolved: JSON = {
            key: payload[key] for key in ("id", "name", "type", "parent_id", "thread_metadata") if key in payload
        }
        guild = self.world.guild_of(value)
        resolved["permissions"] = str(self.world.permissions(guild, self.world.bot_user))
        self._resolve("channels", value.id, resolved)
        return str(value.id)

    def _attachment(self, option: JSON, value: object) -> str:
        if not (
            isinstance(value, tuple)
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], bytes | bytearray)
        ):
            raise self._fail(f"option {_describe(option)} needs a (filename, bytes) tuple, not {type(value).__name__}")
        # Discord tells an upload's type by its name, as `mimetypes` does.
        attachment = self.world.store_file(value[0], bytes(value[1]), mimetypes.guess_type(value[0])[0])
        payload = self.world.attachment_payload(attachment)
        payload["ephemeral"] = True
        self._resolve("attachments", attachment.id, payload)
        # A JSON-int value makes discord.py hand the command a bare Object instead of an Attachment.
        return str(attachment.id)

    def convert(self, option: JSON, value: object) -> object:
        kind = int(option["type"])
        if kind == STRING:
            if not isinstance(value, str):
                raise self._fail(f"option {_describe(option)} needs a str, not {value!r}")
            low, high = option.get("min_length"), option.get("max_length")
            if (low is not None and len(value) < low) or (high is not None and len(value) > high):
                raise self._fail(f"option {option['name']!r} must be {low}-{high} characters long")
            self._choice(option, value)
            return value
        if kind == INTEGER:
            number = self._integer(option, value)
            self._bounds(option, number)
            self._choice(option, number)
            return number
        if kind == NUMBER:
            real = self._number(option, value)
            self._bounds(option, real)
            self._choice(option, real)
            return real
        if kind == BOOLEAN:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise self._fail(f"option {_describe(option)} needs a bool, not {value!r}")
        if kind in (USER, MENTIONABLE):
            return self._user(option, value)
        if kind == CHANNEL:
            return self._channel(option, value)
        if kind == ATTACHMENT:
            return self._attachment(option, value)
        raise self._fail(f"option {_describe(option)}: this option type is not supported by the emulator")

    def _integer(self, option: JSON, value: object) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                raise self._fail(f"option {_describe(option)} needs an integer, not {value!r}") from None
        else:
            raise self._fail(f"option {_describe(option)} needs an integer, not {value!r}")
        if abs(number) > _MAX_SAFE_INTEGER:
            raise self._fail(f"option {option['name']!r} is out of Discord's integer range")
        return number

    def _number(self, option: JSON, value: object) -> float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            real = float(value)
        elif isinstance(value, str):
            try:
                real = float(value.strip())
            except ValueError:
                raise self._fail(f"option {_describe(option)} needs a number, not {value!r}") from None
        else:
            raise self._fail(f"option {_describe(option)} needs a number, not {value!r}")
        if not math.isfinite(real):
            raise self._fail(f"option {option['name']!r} needs a finite number")
        return real

    def options(self, declared: list[JSON], given: Mapping[str, object], focused: str | None) -> list[JSON]:
        by_name = {str(o["name"]): o for o in declared}
        for name in given:
            if name not in by_name:
                raise self._fail(f"unknown option {name!r}; options are {sorted(by_name)}")
        if focused is not None and focused not in given:
            raise self._fail(f"the focused option {focused!r} needs a (partial) value")
        result: list[JSON] = []
        for option in declared:
            name = str(option["name"])
            if name not in given:
                if option.get("required") and focused is None:
                    raise self._fail(f"missing required option {_describe(option)}")
                continue
            value = given[name]
            if name == focused:
                if not option.get("autocomplete"):
                    raise self._fail(f"option {name!r} was not synced with autocomplete")
                # What the user is typing is sent raw, even for integer and number options.
                result.append({"type": option["type"], "name": name, "value": str(value), "focused": True})
                continue
            result.append({"type": option["type"], "name": name, "value": self.convert(option, value)})
        return result


def build_command_data(
    world: World, channel: Channel, path: str, options: Mapping[str, object] | None, *, focused: str | None = None
) -> JSON:
    tokens = path.split()
    if not tokens:
        raise EmulatorError("empty command path")
    command = find_command(world, channel, tokens[0])
    builder = _Builder(world, channel, path)
    given: Mapping[str, object] = options or {}
    declared: list[JSON] = list(command.get("options") or [])
    nested: list[JSON] = []
    container = nested
    for depth, token in enumerate(tokens[1:], start=1):
        groups = [o for o in declared if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        match = next((o for o in groups if o.get("name") == token), None)
        if match is None:
            where = " ".join(tokens[:depth])
            raise EmulatorError(f"/{where} has no subcommand {token!r}; it has {sorted(o['name'] for o in groups)}")
        node: JSON = {"type": match["type"], "name": token, "options": []}
        container.append(node)
        container = node["options"]
        declared = list(match.get("options") or [])
    if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in declared):
        choices = sorted(str(o["name"]) for o in declared)
        raise EmulatorError(f"/{path} needs a subcommand: one of {choices}")
    container.extend(builder.options(declared, given, focused))
    data: JSON = {"id": command["id"], "name": command["name"], "type": 1, "options": nested}
    if "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    if builder.resolved:
        data["resolved"] = builder.resolved
    return data


def check_permissions(world: World, command: JSON, user: User, channel: Channel) -> None:
    """What the Discord client enforces before a user can even pick the command."""
    guild = world.guild_of(channel)
    contexts = command.get("contexts")
    context = 0 if guild is not None else 1
    if contexts is not None and context not in contexts:
        where = "guilds" if guild is not None else "DMs"
        raise EmulatorError(f"/{command['name']} cannot be used in {where} (contexts {contexts})")
    if guild is None and command.get("dm_permission") is False:
        raise EmulatorError(f"/{command['name']} cannot be used in DMs")
    required = command.get("default_member_permissions")
    if guild is None or required is None:
        return
    granted = world.permissions(guild, user)
    needed = int(required)
    if (needed == 0 and user.id != guild.owner_id) or needed & ~granted:
        raise EmulatorError(f"{user.name} lacks the permissions {needed} that /{command['name']} requires")
