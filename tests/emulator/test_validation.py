"""Discord's strictness, checked over raw HTTP (no bot needed) and on the validators directly."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from jsonschema import Draft202012Validator, validators

from bot.emulator import COMMAND_SIZE_LIMIT, Clock, Emulator
from bot.emulator.openapi import SPEC_DIRECTORY, SPEC_FILE, DiscordValidator, containers, description
from bot.emulator.rest import API_PREFIX, Activity, RestApi
from bot.emulator.world import World

JSON = dict[str, Any]


class Api:
    def __init__(self, emu: Emulator, session: aiohttp.ClientSession) -> None:
        self.emu = emu
        self.session = session
        self.channel_id = 0

    async def call(self, method: str, path: str, body: object = None, *, auth: bool = True) -> tuple[int, Any]:
        headers = {"Authorization": f"Bot {self.emu.bot_token}"} if auth else {}
        async with self.session.request(method, self.emu.api_base + path, json=body, headers=headers) as response:
            if response.status == 204:
                return response.status, None
            assert response.headers["Content-Type"] == "application/json"
            return response.status, await response.json()

    async def put_commands(self, commands: list[JSON]) -> tuple[int, Any]:
        return await self.call("PUT", f"/applications/{self.emu.application_id}/commands", commands)

    async def send(self, body: JSON) -> tuple[int, Any]:
        return await self.call("POST", f"/channels/{self.channel_id}/messages", body)


@pytest_asyncio.fixture(scope="module")
async def api() -> AsyncIterator[Api]:
    async with Emulator(seed=5) as emu, aiohttp.ClientSession() as session:
        owner = emu.add_user("owner")
        guild = emu.add_guild("Alpha", owner=owner)
        client = Api(emu, session)
        client.channel_id = emu.add_channel(guild, "general").id
        yield client


def command(**overrides: object) -> JSON:
    return {"name": "roll", "description": "Roll dice", "type": 1, **overrides}


def option(name: str = "sides", **overrides: object) -> JSON:
    return {"name": name, "description": "An option", "type": 4, **overrides}


async def test_auth_and_unknown_routes(api: Api) -> None:
    assert await api.call("GET", "/users/@me", auth=False) == (401, {"message": "401: Unauthorized", "code": 0})
    assert await api.call("GET", "/nothing/here") == (404, {"message": "404: Not Found", "code": 0})
    status, me = await api.call("GET", "/users/@me")
    assert status == 200 and me["id"] == str(api.emu.bot_user.id) and me["bot"] is True


async def test_valid_commands_sync_and_keep_their_ids(api: Api) -> None:
    status, first = await api.put_commands([command(options=[option()])])
    assert status == 200 and first[0]["application_id"] == str(api.emu.application_id)
    _, second = await api.put_commands([command(description="Roll some dice")])
    assert second[0]["id"] == first[0]["id"]
    assert api.emu.commands()[0]["description"] == "Roll some dice"


async def test_localized_names_need_only_differ_among_siblings_in_one_locale(api: Api) -> None:
    """One name in two locales, or in two sub-commands' options, or a localization equal to its own default."""
    same = {"ja": "数", "zh-CN": "数"}
    subs = [option(sub, type=1, options=[option("n", name_localizations=same)]) for sub in ("one", "two")]
    status, body = await api.put_commands([
        command(name_localizations={"ja": "roll"}, options=subs),
        command(name="anchor", name_localizations={"ja": "安価番号", "zh-CN": "安価番号"}),
    ])  # fmt: skip
    assert status == 200, body


BAD_COMMANDS: list[tuple[str, list[JSON], tuple[str, ...]]] = [
    ("uppercase name", [command(name="Roll")], ("0", "name")),
    ("space in name", [command(name="roll dice")], ("0", "name")),
    ("33 char name", [command(name="r" * 33)], ("0", "name")),
    ("empty description", [command(description="")], ("0", "description")),
    ("101 char description", [command(description="d" * 101)], ("0", "description")),
    ("bad zh-CN name", [command(name_localizations={"zh-CN": "掷 骰子"})], ("0", "name_localizations", "zh-CN")),
    ("unknown locale", [command(name_localizations={"xx": "roll"})], ("0", "name_localizations", "xx")),
    (
        "long localized description",
        [command(description_localizations={"fr": "x" * 101})],
        ("0", "description_localizations", "fr"),
    ),
    ("26 options", [command(options=[option(f"o{i}") for i in range(26)])], ("0", "options")),
    (
        "26 choices",
        [command(options=[option(choices=[{"name": str(i), "value": i} for i in range(26)])])],
        ("0", "options", "0", "choices"),
    ),
    (
        "101 char choice name",
        [command(options=[option(choices=[{"name": "c" * 101, "value": 1}])])],
        ("0", "options", "0", "choices", "0", "name"),
    ),
    (
        "required after optional",
        [command(options=[option("a"), option("b", required=True)])],
        ("0", "options", "1", "required"),
    ),
    (
        "subcommand inside subcommand",
        [command(options=[option("sub", type=1, options=[option("inner", type=1)])])],
        ("0", "options", "0", "options", "0"),
    ),
    (
        "subcommand mixed with options",
        [command(options=[option("sub", type=1), option("plain")])],
        ("0", "options"),
    ),
    ("duplicate option names", [command(options=[option("a"), option("a")])], ("0", "options", "1", "name")),
    ("duplicate command names", [command(), command()], ("1", "name")),
    (
        "two commands under one ja name",
        [command(name_localizations={"ja": "安価"}), command(name="anchor", name_localizations={"ja": "安価"})],
        ("1", "name_localizations", "ja"),
    ),
    (
        "a ja name that is another command's name",
        [command(), command(name="anchor", name_localizations={"ja": "roll"})],
        ("1", "name_localizations", "ja"),
    ),
    (
        "two options under one ja name",
        [command(options=[option("a", name_localizations={"ja": "数"}), option("b", name_localizations={"ja": "数"})])],
        ("0", "options", "1", "name_localizations", "ja"),
    ),
    (
        "a ja option name that is another option's name",
        [command(options=[option("a"), option("b", name_localizations={"ja": "a"})])],
        ("0", "options", "1", "name_localizations", "ja"),
    ),
    (
        "autocomplete with choices",
        [command(options=[option(autocomplete=True, choices=[{"name": "one", "value": 1}])])],
        ("0", "options", "0", "autocomplete"),
    ),
    (
        "too large",
        [
            command(
                options=[
                    option(
                        f"o{i}", type=3, description="d" * 100, choices=[{"name": "n" * 100, "value": "v" * 100}] * 25
                    )
                    for i in range(2)
                ]
            )
        ],
        ("0",),
    ),
]


@pytest.mark.parametrize(
    ("payload", "path"), [(p, path) for _, p, path in BAD_COMMANDS], ids=[n for n, *_ in BAD_COMMANDS]
)
async def test_invalid_commands_are_rejected_with_50035(api: Api, payload: list[JSON], path: tuple[str, ...]) -> None:
    before = api.emu.commands()
    status, body = await api.put_commands(payload)
    assert status == 400 and body["code"] == 50035 and body["message"] == "Invalid Form Body"
    node = body["errors"]
    for key in path:
        node = node[key]
    assert node["_errors"], body
    assert api.emu.commands() == before


def test_size_limit_is_the_documented_one() -> None:
    assert COMMAND_SIZE_LIMIT == 8000


def _select(count: int, *, value: str | None = None, **bounds: int) -> JSON:
    """A row holding a string select of `count` options (each of `value`, if given)."""
    options = [{"label": f"o{index}", "value": value or f"v{index}"} for index in range(count)]
    return {"type": 1, "components": [{"type": 3, "custom_id": "s", "options": options, **bounds}]}


BAD_MESSAGES: list[tuple[str, JSON, int, str]] = [
    ("2001 chars", {"content": "x" * 2001}, 50035, "content"),
    ("11 embeds", {"embeds": [{"title": str(i)} for i in range(11)]}, 50035, "embeds"),
    ("257 char title", {"embeds": [{"title": "t" * 257}]}, 50035, "embeds"),
    ("4097 char description", {"embeds": [{"description": "d" * 4097}]}, 50035, "embeds"),
    ("1025 char field", {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, 50035, "embeds"),
    ("2049 char footer", {"embeds": [{"footer": {"text": "f" * 2049}}]}, 50035, "embeds"),
    ("257 char author", {"embeds": [{"author": {"name": "a" * 257}}]}, 50035, "embeds"),
    ("6001 total", {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]}, 50035, "embeds"),
    (
        "6 rows",
        {
            "components": [
                {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": f"r{i}"}]}
                for i in range(6)
            ]
        },
        50035,
        "components",
    ),
    (
        "6 buttons",
        {
            "components": [
                {
                    "type": 1,
                    "components": [{"type": 2, "style": 1, "label": "x", "custom_id": f"b{i}"} for i in range(6)],
                }
            ]
        },
        50035,
        "components",
    ),
    (
        "81 char label",
        {"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "l" * 81, "custom_id": "b"}]}]},
        50035,
        "components",
    ),
    (
        "duplicate custom_id",
        {"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "same"}] * 2}]},
        50035,
        "components",
    ),
    (
        "101 char custom_id",
        {"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "c" * 101}]}]},
        50035,
        "components",
    ),
    ("empty", {"content": ""}, 50006, ""),
    ("picks more than offered", {"components": [_select(2, max_values=3)]}, 50035, "components"),
    ("picks fewer at most than at least", {"components": [_select(3, min_values=3, max_values=2)]}, 50035,
     "components"),
    ("an option's value twice", {"components": [_select(2, value="same")]}, 50035, "components"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "code", "field"), [b[1:] for b in BAD_MESSAGES], ids=[b[0] for b in BAD_MESSAGES])
async def test_invalid_messages_are_rejected(api: Api, body: JSON, code: int, field: str) -> None:
    count = len(api.emu.messages)
    status, error = await api.send(body)
    assert (status, error["code"]) == (400, code)
    if field:
        assert field in error["errors"]
    assert len(api.emu.messages) == count
    assert api.emu.rejections[-1].code == code


async def test_limits_are_inclusive(api: Api) -> None:
    body = {
        "content": "x" * 2000,
        "embeds": [{"title": "t" * 256, "description": "d" * 1744}],
        "components": [
            {
                "type": 1,
                "components": [{"type": 2, "style": 1, "label": "l" * 80, "custom_id": f"{r}{c}"} for c in range(5)],
            }
            for r in range(5)
        ],
    }
    status, message = await api.send(body)
    assert status == 200 and message["content"] == "x" * 2000


async def test_allowed_mentions_rules(api: Api) -> None:
    user = api.emu.add_user("pinged")
    api.emu.add_member(api.emu.world.guilds[next(iter(api.emu.world.guilds))], user)
    mention = f"hi <@{user.id}>"
    cases: list[tuple[JSON | None, set[int]]] = [
        (None, {user.id}),
        ({"parse": []}, set()),
        ({"parse": [], "users": [str(user.id)]}, {user.id}),
    ]
    for allowed, expected in cases:
        body: JSON = {"content": mention}
        if allowed is not None:
            body["allowed_mentions"] = allowed
        status, _ = await api.send(body)
        assert status == 200
        assert api.emu.messages[-1].notified == expected
    status, error = await api.send({"content": mention, "allowed_mentions": {"parse": ["users"], "users": ["1"]}})
    assert (status, error["code"]) == (400, 50035)


async def test_interaction_and_webhook_errors(api: Api) -> None:
    emu = api.emu
    status, body = await api.call("POST", "/interactions/123/nope/callback", {"type": 4, "data": {"content": "x"}})
    assert (status, body["code"]) == (404, 10062)
    status, body = await api.call("POST", f"/webhooks/{emu.application_id}/nope?wait=true", {"content": "x"})
    assert (status, body["code"]) == (401, 50027)


def _form(*boxes: JSON, labelled: bool = False) -> JSON:
    """A modal answer of text boxes, each in a row of its own or (`labelled`) in a label."""
    rows = [{"type": 18, "label": "Sheet", "component": box} if labelled else {"type": 1, "components": [box]}
            for box in boxes]  # fmt: skip
    return {"type": 9, "data": {"title": "Form", "custom_id": "form", "components": rows}}


def _box(custom_id: str = "sheet", **bounds: object) -> JSON:
    return {"type": 4, "custom_id": custom_id, "style": 2, **bounds}


BAD_FORMS: list[tuple[str, JSON, tuple[str | int, ...]]] = [
    ("prefilled past its most", _form(_box(label="Sheet", max_length=10, value="x" * 11)),
     (0, "components", 0, "value")),
    ("prefilled short of its least", _form(_box(label="Sheet", min_length=5, value="x")),
     (0, "components", 0, "value")),
    ("least past most", _form(_box(label="Sheet", min_length=10, max_length=5)), (0, "components", 0, "min_length")),
    ("labelled, prefilled past its most", _form(_box(max_length=3, value="long"), labelled=True),
     (0, "component", "value")),
    ("a custom id twice", _form(_box(label="A"), _box(label="B")), ()),
]  # fmt: skip


async def _form_answer(api: Api, form: JSON) -> tuple[int, Any]:
    channel = api.emu.world.channels[api.channel_id]
    guild = api.emu.world.guild_of(channel)
    assert guild is not None
    filler = api.emu.add_user("filler")
    api.emu.add_member(guild, filler)
    record, _ = api.emu.world.new_interaction(
        interaction_type=2, user=filler, channel=channel, data={"name": "form"}, locale=None
    )
    return await api.call("POST", f"/interactions/{record.id}/{record.token}/callback", form)


@pytest.mark.parametrize(("form", "where"), [case[1:] for case in BAD_FORMS], ids=[case[0] for case in BAD_FORMS])
async def test_a_form_discord_refuses_is_refused(api: Api, form: JSON, where: tuple[str | int, ...]) -> None:
    status, error = await _form_answer(api, form)
    assert (status, error["code"]) == (400, 50035)
    node = error["errors"]["data"]["components"]
    for key in where:
        node = node[str(key)]
    assert node["_errors"], error


async def test_forms_and_selects_at_their_bounds_are_taken(api: Api) -> None:
    full = _form(_box(label="Sheet", min_length=2, max_length=10, value="x" * 10), _box("other", label="Other"))
    assert (await _form_answer(api, full))[0] in (200, 204)
    labelled = _form(_box(min_length=1, max_length=4, value="four"), labelled=True)
    assert (await _form_answer(api, labelled))[0] in (200, 204)
    status, _ = await api.send({"components": [_select(25, min_values=25, max_values=25)]})
    assert status == 200


async def test_dm_channel_and_attachment_download(api: Api) -> None:
    emu = api.emu
    stranger = emu.add_user("stranger")
    status, channel = await api.call("POST", "/users/@me/channels", {"recipient_id": str(stranger.id)})
    assert status == 200 and channel["type"] == 1
    status, error = await api.call("POST", f"/channels/{channel['id']}/messages", {"content": "hi"})
    # The bot shares no guild with this user, so Discord refuses the DM.
    assert (status, error["code"]) == (403, 50007)
    attachment = emu.world.store_file("a.txt", b"abc")
    async with api.session.get(attachment.url) as response:
        assert await response.read() == b"abc"


# ---------------------------------------------------------------- Discord's OpenAPI description


def _refusal(errors: JSON) -> JSON:
    return {"message": "Invalid Form Body", "code": 50035, "errors": errors}


def _error(code: str, message: str) -> JSON:
    return {"_errors": [{"code": code, "message": message}]}


def _button(**overrides: object) -> JSON:
    return {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "b", **overrides}]}


# Bodies only the description refuses: each breaks a type, an enum, a union or a required field it declares.
BAD_BY_DESCRIPTION: list[tuple[str, str, str, object, JSON]] = [
    ("boolean", "POST", "/channels/{channel}/messages", {"content": "hi", "tts": "yes"},
     {"tts": _error("BASE_TYPE_BOOLEAN", "Must be either true or false.")}),
    ("integer", "POST", "/channels/{channel}/messages", {"embeds": [{"title": "t", "color": "red"}]},
     {"embeds": {"0": {"color": _error("NUMBER_TYPE_COERCE", 'Value "red" is not int.')}}}),
    ("enum", "POST", "/channels/{channel}/messages", {"components": [_button(style=9)]},
     {"components": {"0": {"components": {"0": {"style": _error(
         "ENUM_TYPE_COERCE", 'Value "9" is not a valid enum value.')}}}}}),
    ("union", "POST", "/channels/{channel}/messages", {"content": "x", "components": [{"type": 99}]},
     {"components": {"0": _error(
         "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1, 9, 10, 12, 13, 14, 17).')}}),
    ("array", "PATCH", "/channels/{channel}/messages/{message}", {"embeds": "x"},
     {"embeds": _error("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")}),
    ("required", "POST", "/channels/{channel}/messages", {"content": "x", "message_reference": {}},
     {"message_reference": {"message_id": _error("BASE_TYPE_REQUIRED", "This field is required")}}),
    ("snowflake", "POST", "/channels/{channel}/messages",
     {"content": "x", "allowed_mentions": {"parse": [], "users": ["12a"]}},
     {"allowed_mentions": {"users": {"0": _error("NUMBER_TYPE_COERCE", 'Value "12a" is not snowflake.')}}}),
    ("snowflake in a DM", "POST", "/users/@me/channels", {"recipient_id": "me"},
     {"recipient_id": _error("NUMBER_TYPE_COERCE", 'Value "me" is not snowflake.')}),
    ("option type", "PUT", "/applications/{application}/commands", [command(options=[option(type=99)])],
     {"0": {"options": {"0": _error(
         "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).')}}}),
    ("bounds of one field", "POST", "/channels/{channel}/messages", {"components": [_button(custom_id="")]},
     {"components": {"0": {"components": {"0": {"custom_id": _error(
         "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")}}}}}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "template", "body", "errors"), [case[1:] for case in BAD_BY_DESCRIPTION],
    ids=[case[0] for case in BAD_BY_DESCRIPTION],
)  # fmt: skip
async def test_bodies_the_description_refuses_get_discords_error(
    api: Api, method: str, template: str, body: object, errors: JSON
) -> None:
    _, posted = await api.send({"content": "to edit"})
    path = template.format(channel=api.channel_id, message=posted["id"], application=api.emu.application_id)
    messages, commands = [(m.content, m.embeds) for m in api.emu.messages], api.emu.commands()
    assert await api.call(method, path, body) == (400, _refusal(errors))
    assert [(m.content, m.embeds) for m in api.emu.messages] == messages
    assert api.emu.commands() == commands
    assert api.emu.rejections[-1].errors == errors


async def test_ids_as_integers_and_integers_as_text_are_accepted(api: Api) -> None:
    user = api.emu.add_user("numbered")
    api.emu.add_member(api.emu.world.guilds[next(iter(api.emu.world.guilds))], user)
    status, channel = await api.call("POST", "/users/@me/channels", {"recipient_id": user.id})
    assert status == 200 and channel["recipients"][0]["id"] == str(user.id)
    _, first = await api.send({"content": "first"})
    body = {
        "content": f"<@{user.id}>",
        "allowed_mentions": {"parse": [], "users": [user.id]},
        "message_reference": {"message_id": int(first["id"]), "channel_id": api.channel_id},
        "embeds": [{"title": "t", "color": "255"}],
        "attachments": [{"id": 0, "filename": "a.txt"}],
    }
    status, _ = await api.send(body)
    assert status == 200
    assert api.emu.messages[-1].notified == {user.id}


def test_the_vendored_description_is_the_one_named() -> None:
    folder = resources.files("bot.emulator").joinpath(SPEC_DIRECTORY)
    source = folder.joinpath("README.md").read_text(encoding="utf-8")
    assert "repository: https://github.com/discord/discord-api-spec" in source
    assert re.search(r"commit: [0-9a-f]{40}\b", source)
    blob = re.search(r"git blob ([0-9a-f]{40})", source)
    data = folder.joinpath(SPEC_FILE).read_bytes()
    assert blob and hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() == blob.group(1)
    assert folder.joinpath("LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    found = description().find("POST", "/channels/1/messages")
    assert found is not None and found.operation_id == "create_message" and found.schema is not None
    original = description().find("PATCH", "/webhooks/1/token/messages/@original")
    assert original is not None and original.template.endswith("/messages/@original")


def test_every_route_of_the_emulator_is_an_operation_of_the_description() -> None:
    """A route the description lacks would take any body unchecked."""
    routes = RestApi(World(clock=Clock(), seed=1, bot_token="t"), Activity(), str).routes()
    api_routes = [route for route in routes if route.path.startswith(API_PREFIX)]
    for route in api_routes:
        path = re.sub(r"\{\w+\}", "1", route.path.removeprefix(API_PREFIX))
        assert description().find(route.method, path) is not None, (route.method, route.path)


LEAF_VALUES: list[object] = [
    None, True, False, 0, 1, -1, 25, 26, 2**53, 2**64, 16777216, 1.5, -0.5,
    "", "x", "12", "-3", "1.5", "true", "x" * 33, "x" * 101, "x" * 4001, [], [1], {}, {"a": 1},
]  # fmt: skip


def test_the_shortcut_for_plain_properties_admits_what_jsonschema_admits() -> None:
    """Every property schema of the description, with values around its bounds and of every JSON type, is
    judged the same with the shortcut as by jsonschema's own `properties`."""
    reference = validators.create(
        meta_schema=Draft202012Validator.META_SCHEMA,
        validators={**DiscordValidator.VALIDATORS, "properties": Draft202012Validator.VALIDATORS["properties"]},
        type_checker=DiscordValidator.TYPE_CHECKER,
    )
    request_schemas = [operation.schema for found in description().operations.values() for _, operation in found]
    schemas = {
        id(schema): schema
        for node in containers(request_schemas)
        if isinstance(node, dict) and isinstance(node.get("properties"), dict)
        for schema in node["properties"].values()
    }
    assert len(schemas) > 100
    for schema in schemas.values():
        wrapper = {"type": "object", "properties": {"field": schema}}
        fast, plain = DiscordValidator(wrapper), reference(wrapper)
        for value in LEAF_VALUES:
            assert fast.is_valid({"field": value}) == plain.is_valid({"field": value}), (schema, value)
