"""Every command the bot marks as the GMs' (`bot.gm_only`), of every ruleset, used by a player: refused as the GMs',
privately, and nothing changes. The commands come from the bot's command tree, so a new one is covered as soon as it
exists; their options are filled in from their declared types, with the player's own character and camp for the
names, so that nothing but the GM check stands in the way, and again with another player's character. Every other
command, used by the player naming another player's character wherever it takes one: never refused as the GMs' (a
command that is the GMs' without the mark fails here), and refused, changing nothing, wherever the character named
is the one the player acts as.

The same for buttons, read from every message the bot posted: a player pressing a GM's button is refused; and
nothing from another server reaches this one's campaigns: every button id pressed there, every command used there
with this server's names, and every autocomplete there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from sqlalchemy import func, select

from bot.db.models import Campaign, Commitment, Event
from bot.emulator.models import Channel, Message, User, iter_components
from bot.rulesets.registry import RULESETS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.every_ruleset import (
    ATTACHMENT,
    BOOLEAN,
    BUTTON,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    STRING,
    USER,
    campaign_of_every_ruleset,
    gm_marked,
    leaves,
    own_character,
)
from tests.e2e.harness import Harness, running_harness

REFUSED = "Only a GM of this campaign can do that."
ELSEWHERE = "This command belongs to"
CAMP_OPTIONS = frozenset({"camp", "first", "second", "other", "at_base_of"})
# The options that name someone else's character on purpose: whom one looks at, attacks or aims at.
ON_ANOTHER = frozenset({("character show", "name"), ("check", "against"), ("attack", "target"), ("odds", "attacker"),
                        ("odds", "defender"), ("grail cast", "target"), ("grail aim", "target")})  # fmt: skip


@dataclass(frozen=True)
class Table:
    harness: Harness
    gm: User
    player: User
    channels: dict[str, Channel]
    names: dict[str, str]
    # Another player's character in each campaign, by ruleset.
    rivals: dict[str, str]
    # Another server, whose owner runs a campaign of every ruleset there.
    stranger: User
    elsewhere: dict[str, Channel]


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("authorization")) as url,
        running_harness(url) as harness,
    ):
        gm, player = harness.emulator.add_user("gm"), harness.emulator.add_user("player")
        channels, names = await campaign_of_every_ruleset(harness, gm, player)
        rival = harness.emulator.add_user("rival")
        guild = harness.emulator.world.guild_of(next(iter(channels.values())))
        assert guild is not None
        harness.emulator.add_member(guild, rival)
        rivals = {ruleset: await own_character(harness, rival, channel, ruleset, name="Sakura Matou")
                  for ruleset, channel in channels.items()}  # fmt: skip
        await harness.slash(gm, channels["grail_anka"], "anka camp", name="Red", members=names["grail_anka"])
        await harness.slash(gm, channels["grail_anka"], "anka camp", name="Blue", members=names["grail_anka"])
        stranger = harness.emulator.add_user("stranger")
        other_guild = harness.emulator.add_guild("Elsewhere", owner=stranger)
        elsewhere = {}
        for ruleset in channels:
            elsewhere[ruleset] = harness.emulator.add_channel(other_guild, ruleset)
            await harness.slash(stranger, elsewhere[ruleset], "campaign start", ruleset=ruleset, name="Elsewhere")
        yield Table(harness, gm, player, channels, names, rivals, stranger, elsewhere)


def _commands(table: Table, *, gms: bool) -> list[tuple[str, list[dict[str, Any]]]]:
    """(the command's full name, its options) of every command synced that is the GMs' (or, not `gms`, is not)."""
    marked = gm_marked(table.harness)
    synced = leaves(table.harness.emulator.commands())
    assert marked <= {name for name, _, _ in synced}
    return [(name, options) for name, _, options in synced if (name in marked) == gms]


def _given(options: list[dict[str, Any]], table: Table, ruleset: str, character: str) -> dict[str, object]:
    """Every option filled in, `character` wherever a character goes."""
    given = {option["name"]: _value(option, table, ruleset) for option in options}
    return {key: character if value == table.names[ruleset] else value for key, value in given.items()}


def _value(option: dict[str, Any], table: Table, ruleset: str) -> object:
    if option.get("choices"):
        return option["choices"][0]["value"]
    kind = option["type"]
    if kind == STRING:
        return "Red" if option["name"] in CAMP_OPTIONS else table.names[ruleset]
    if kind in (INTEGER, NUMBER):
        return min(max(option.get("min_value", 1), 1), option.get("max_value", 1))
    if kind == BOOLEAN:
        return True
    if kind in (USER, MENTIONABLE):
        return table.player
    if kind == ATTACHMENT:
        return ("sheet.yaml", b"name: x\n")
    raise AssertionError(f"no value for option type {kind}")


async def _events(table: Table) -> int:
    """How many events the first server's campaigns have logged."""
    assert table.harness.bot is not None
    guild_id = next(iter(table.channels.values())).guild_id
    async with table.harness.bot.database.read() as session:
        counted = select(func.count(Event.id)).join(Campaign, Campaign.id == Event.campaign_id)
        return int(await session.scalar(counted.where(Campaign.guild_id == guild_id)) or 0)


@pytest.mark.parametrize("whose", ["own", "rival's"])
async def test_every_gm_command_of_every_ruleset_refuses_a_player(table: Table, whose: str) -> None:
    commands = _commands(table, gms=True)
    assert len(commands) >= 30
    refused = 0
    for name, options in commands:
        for ruleset, channel in table.channels.items():
            character = table.names[ruleset] if whose == "own" else table.rivals[ruleset]
            before = await _events(table)
            record = await table.harness.emulator.slash(
                table.player, channel, name, _given(options, table, ruleset, character)
            )
            reply = record.reply
            assert record.error is None, (name, ruleset, record.error)
            assert reply is not None and reply.ephemeral, (name, ruleset, reply)
            assert reply.content.startswith((REFUSED, ELSEWHERE)), (name, ruleset, reply.content)
            assert await _events(table) == before, (name, ruleset)
            refused += reply.content.startswith(REFUSED)
    assert refused >= len(commands)  # each refused as the GMs' in at least one ruleset's campaign


async def _takes_characters(table: Table, channel: Channel, name: str, options: list[dict[str, Any]]) -> list[str]:
    """The options of a command that take a character: those whose suggestions are the campaign's characters."""
    taking = []
    for option in options:
        if option.get("autocomplete"):
            offered = await table.harness.emulator.autocomplete(table.gm, channel, name, {option["name"]: ""},
                                                                option["name"])  # fmt: skip
            if any(choice["value"] in table.rivals.values() for choice in offered):
                taking.append(option["name"])
    return taking


async def test_every_other_command_naming_another_players_character(table: Table) -> None:
    """Not the GMs' (the mark is missing on no command that refuses as theirs); and refused, changing nothing,
    wherever the other player's character is named as the one the player acts as."""
    emulator = table.harness.emulator
    acted_as = 0
    for name, options in _commands(table, gms=False):
        for ruleset, channel in table.channels.items():
            taking = await _takes_characters(table, channel, name, options)
            before = await _events(table)
            record = await emulator.slash(table.player, channel, name, _given(options, table, ruleset,
                                                                              table.rivals[ruleset]))  # fmt: skip
            assert record.error is None, (name, ruleset, record.error)
            assert all(not reply.content.startswith(REFUSED) for reply in record.replies), (name, ruleset)
            if any((name, option) not in ON_ANOTHER for option in taking):
                assert record.reply is not None and record.reply.ephemeral, (name, ruleset, record.reply)
                assert await _events(table) == before, (name, ruleset, record.reply.content)
                acted_as += 1
    assert acted_as >= 40  # say, me, character use, edit and delete, a Servant's seal... in every campaign


def _custom_ids(table: Table) -> list[tuple[str, Message]]:
    """Every button the bot posted in the first server's campaigns, with the message that carries it."""
    emulator = table.harness.emulator
    found = []
    for channel in table.channels.values():
        for message in emulator.messages:
            if message.channel_id == channel.id and not message.deleted:
                found += [(component["custom_id"], message) for component in iter_components(message.components)
                          if component.get("type") == BUTTON and "custom_id" in component]  # fmt: skip
    return found


def _for_the_gms(label: str, message: Message) -> bool:
    """A button only GMs may use: marked "(GM)", or on a prompt addressed to the GMs."""
    return label.endswith("(GM)") or message.content.startswith("GMs")


async def test_every_gm_button_refuses_a_player(table: Table) -> None:
    emulator = table.harness.emulator
    pressed = 0
    for custom_id, message in _custom_ids(table):
        label = next(component.get("label", "") for component in iter_components(message.components)
                     if component.get("custom_id") == custom_id)  # fmt: skip
        if not _for_the_gms(label, message):
            continue
        before = await _events(table)
        # Pressed on a message the player sees, whether or not the GMs' own prompt is visible to them.
        shown = emulator.last_message(next(iter(table.channels.values())), visible_to=table.player)
        record = await emulator.press(table.player, shown, custom_id)
        assert record.reply is not None and record.reply.ephemeral, (label, record)
        assert await _events(table) == before, label
        assert table.harness.current(message).buttons() == message.buttons(), label
        pressed += 1
    assert pressed >= 4  # the GMs' approvals of held sheets, at least


async def test_no_button_of_this_server_works_from_another(table: Table) -> None:
    emulator = table.harness.emulator
    buttons = _custom_ids(table)
    assert len(buttons) >= 4
    for ruleset, channel in table.elsewhere.items():
        shown = emulator.last_message(channel, visible_to=table.stranger)
        for custom_id, _ in buttons:
            before = await _events(table)
            record = await emulator.press(table.stranger, shown, custom_id)
            assert record.reply is not None and record.reply.ephemeral, (ruleset, custom_id, record)
            assert await _events(table) == before, (ruleset, custom_id)


async def test_no_command_or_autocomplete_of_another_server_reaches_this_ones_campaigns(
    table: Table, hidden: dict[str, str]
) -> None:
    """The other server's GM uses every command there, with this server's names (a marked character the GMs run
    here, where the ruleset has one); nothing here changes, no reply there shows the marked sheet, and no
    autocomplete there offers anything of this server's."""
    emulator = table.harness.emulator
    ours = set(table.names.values()) | set(hidden.values()) | {"Red", "Blue"}
    commands = leaves(emulator.commands())
    assert len(commands) >= 60
    before = await _events(table)
    for name, _, options in commands:
        for ruleset, channel in table.elsewhere.items():
            given = {option["name"]: _value(option, table, ruleset) for option in options if option.get("required")}
            mine = hidden.get(ruleset, table.names[ruleset])
            given = {key: table.stranger if value is table.player else mine if value == table.names[ruleset] else value
                     for key, value in given.items()}  # fmt: skip
            # Not waiting for quiet after each: what a command does after its answer is checked once, at the end.
            record = await emulator.slash(table.stranger, channel, name, given, settle=False)
            assert record.error is None, (name, ruleset, record.error)
            assert all(MARKER not in reply.text() for reply in record.replies), (name, ruleset)
            for option in options:
                if option.get("autocomplete"):
                    typed = {option["name"]: ""}
                    choices = await emulator.autocomplete(
                        table.stranger, channel, name, typed, option["name"], settle=False
                    )
                    offered = {str(choice["name"]) for choice in choices} | {str(choice["value"]) for choice in choices}
                    assert not offered & ours, (name, option["name"], offered & ours)
    await emulator.settle()
    assert await _events(table) == before


MARKER = "Zq7 Hidden Blade"


def _with_marker(data: Any) -> int:
    """Name every named thing inside the sheet (weapons, skills...) with the marker; how many were."""
    if isinstance(data, list):
        return sum(_with_marker(item) for item in data)
    if not isinstance(data, dict):
        return 0
    marked = 0
    for key, value in data.items():
        if key == "name" and isinstance(value, str):
            data[key] = MARKER
            marked += 1
        else:
            marked += _with_marker(value)
    return marked


@pytest.fixture(scope="module")
async def hidden(table: Table) -> dict[str, str]:
    """In every ruleset whose template names weapons or skills, a character the GMs run with the marker in those
    names, by ruleset."""
    harness = table.harness
    found: dict[str, str] = {}
    for ruleset, channel in table.channels.items():
        play = RULESETS[ruleset].play
        assert play is not None
        template = (await harness.slash(table.gm, channel, "character template", kind=play.kinds[0])).reply
        data = yaml.safe_load(template.attachments[0].data) or {}
        sheet = {key: value for key, value in data.items() if key != "name"}
        if not _with_marker(sheet):
            continue
        name = f"Shade {ruleset}"[:40]
        text = yaml.safe_dump({"kind": play.kinds[0], **sheet, "name": name}, allow_unicode=True).encode()
        created = await harness.slash(table.gm, channel, "character import", file=("npc.yaml", text), npc=True)
        assert (created.error is None and MARKER not in created.reply.text()) or created.reply.ephemeral
        found[ruleset] = name
    assert len(found) >= 2, found
    return found


# A secret roll's total, which no player but the roller may read before the campaign ends.
SECRET_TOTAL = 917363


@pytest.fixture(scope="module")
async def secrets(table: Table) -> list[str]:
    """What the players may not read yet, in every ruleset's campaign: a GM's secret roll's total; and where the
    ruleset commits its decisions' numbers (grail_anka), the nonce of a decision whose window a GM closed (so that
    only a GM's anchor reveals it)."""
    harness = table.harness
    kept = [str(SECRET_TOTAL)]
    for ruleset, channel in table.channels.items():
        rolled = await harness.slash(table.gm, channel, "roll", dice=f"1d1+{SECRET_TOTAL - 1}", secret=True)
        assert rolled.reply.ephemeral and str(SECRET_TOTAL) in rolled.reply.text(), rolled.reply.text()
        if ruleset != "grail_anka":
            continue
        await harness.slash(table.gm, channel, "anka check", rate=50, purpose="Sealed fate")
        window = harness.emulator.last_message(channel, visible_to=table.gm)
        closed = await harness.emulator.click(table.gm, window, "Close the window")
        assert closed.error is None, closed.error
        assert harness.bot is not None
        async with harness.bot.database.read() as session:
            nonce = await session.scalar(select(Commitment.nonce).order_by(Commitment.id.desc()).limit(1))
        assert nonce is not None
        kept.append(nonce)
    assert len(kept) == 2, kept
    return kept


async def test_what_the_gms_run_stays_hidden_from_every_command_a_player_has(
    table: Table, hidden: dict[str, str], secrets: list[str]
) -> None:
    """A player uses every command that is not the GMs', naming the GMs' marked character wherever a name goes: no
    reply, post, DM, log or export the player can see shows the marker, a GM's secret roll or a decision's secret
    before its reveal."""
    harness, emulator = table.harness, table.harness.emulator

    used = 0
    for command, options in _commands(table, gms=False):
        for ruleset, name in hidden.items():
            given = {option["name"]: _value(option, table, ruleset) for option in options}
            given = {key: name if value == table.names[ruleset] else value for key, value in given.items()}
            await emulator.slash(table.player, table.channels[ruleset], command, given, settle=False)
            used += 1
    await emulator.settle()
    for ruleset, name in hidden.items():  # and a GM deletes it: the log keeps its sheet for the GMs
        deleted = await harness.slash(table.gm, table.channels[ruleset], "character delete", name=name)
        assert deleted.error is None and MARKER not in deleted.reply.text()
    for ruleset in hidden:
        logs: tuple[tuple[str, dict[str, str]], ...] = (("log show", {}), ("log export", {"format": "json"}))
        for log_command, log_options in logs:
            reply = await emulator.slash(table.player, table.channels[ruleset], log_command, log_options)
            for kept in (MARKER, *secrets):
                assert all(kept.encode() not in attachment.data for attachment in reply.reply.attachments), kept
    seen = [message for channel in table.channels.values() for message in emulator.visible_to(table.player, channel)]
    seen += emulator.dms(table.player)
    leaked = [message.text()[:120] for message in seen for kept in (MARKER, *secrets) if kept in message.text()]
    assert leaked == []
    assert used >= 100
