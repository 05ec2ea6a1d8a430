"""Hostile input at the boundary: files that would stall the bot, names past their limit, forged buttons."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import pytest
import yaml
from sqlalchemy import insert, select
from sqlalchemy.engine import make_url

from bot.db.engine import Database
from bot.db.models import Campaign, Event
from bot.emulator.models import EVERYONE, Channel, Message, User
from bot.emulator.world import CALLBACK_DEFERRED_UPDATE
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness
from tests.hostile_files import ALIAS_BOMB


@dataclass(frozen=True)
class Gate:
    harness: Harness
    channel: Channel
    gm: User
    bob: User
    mei: User


@pytest.fixture(scope="module", params=BACKENDS)
async def gate(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gate]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("bounds")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, bob, mei = emulator.add_user("kirei"), emulator.add_user("bob"), emulator.add_user("mei", locale="zh-CN")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei):
            emulator.add_member(guild, player)
        channel = emulator.add_channel(guild, "gate")
        await harness.start_bot()
        await harness.slash(gm, channel, "campaign start", ruleset="fate_points", name="Gate")
        yield Gate(harness, channel, gm, bob, mei)


async def _import(gate: Gate, user: User, text: str) -> str:
    record = await gate.harness.slash(user, gate.channel, "character import", file=("sheet.yaml", text.encode()))
    assert record.error is None, record.error
    return record.reply.content


async def _sheet(gate: Gate, player: User, kind: str, **fields: object) -> str:
    template = (await gate.harness.slash(player, gate.channel, "character template", kind=kind)).reply
    data = yaml.safe_load(template.attachments[0].data) | fields
    return await _import(gate, player, yaml.safe_dump(data, allow_unicode=True))


async def _master(gate: Gate, **fields: object) -> str:
    return await _sheet(gate, gate.bob, "master", **fields)


async def test_an_alias_bomb_is_refused_while_others_are_answered(gate: Gate) -> None:
    assert len(ALIAS_BOMB.encode()) < 1024
    refused, rolled = await asyncio.gather(
        _import(gate, gate.bob, ALIAS_BOMB),
        gate.harness.slash(gate.mei, gate.channel, "roll", dice="1d20"),
    )
    assert refused == "The file uses a YAML alias or anchor (line 1): write each value out instead."
    assert rolled.error is None and rolled.reply.visible_to is EVERYONE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: master\nname: " + "[" * 400 + "]" * 400, "The file nests too deeply (line 2): at most 12 levels."),
        ("kind: master\nname: !!binary aGVsbG8=\n", "The file uses a YAML type the bot does not read (`binary`"),
        ("kind: master\n? [1, 2]\n: x\n", "Every field name in the file must be text."),
        ("kind: servant\nname: Saber\nmaster: Rin\nservant_class: [Saber]\n", "`servant_class`"),
    ],
)
async def test_malformed_files_get_a_clear_refusal(gate: Gate, text: str, expected: str) -> None:
    if "servant" in text:
        await _master(gate, name="Rin")
    assert expected in await _import(gate, gate.bob, text)


@pytest.mark.parametrize("length", [101, 10_000])
async def test_a_name_past_its_limit_is_refused_the_same_on_every_backend(gate: Gate, length: int) -> None:
    refused = await _master(gate, name="N" * length)
    assert (
        refused
        == "The character was not created. Fix these fields and try again:\n• `name`: too long: at most 100 characters"
    )
    roster = (await gate.harness.slash(gate.gm, gate.channel, "character list")).reply
    assert "N" * 100 not in roster.text()


async def test_a_name_that_could_pass_for_another_is_refused_wherever_names_are_given(gate: Gate) -> None:
    refused = await _master(gate, name="Rin\u200b")
    assert "`name`: a name cannot hold line breaks or invisible characters (U+200B)" in refused
    started = await gate.harness.slash(gate.gm, gate.channel, "campaign start", ruleset="fate_points",
                                       name="Two\nlines")  # fmt: skip
    assert started.reply.ephemeral and "(U+000A)" in started.reply.content


async def test_a_forged_button_gets_a_clear_answer(gate: Gate) -> None:
    anything = (await gate.harness.slash(gate.gm, gate.channel, "roll", dice="1d20")).reply
    for custom_id in ("wait:" + "9" * 40 + ":dodge", "waitcancel:" + "9" * 40, "wait:123456:dodge"):
        pressed = await gate.harness.emulator.press(gate.bob, anything, custom_id)
        assert pressed.reply.ephemeral
        assert pressed.reply.content in ("That button no longer leads anywhere.", "That no longer waits for an answer.")


async def test_a_reply_that_fails_after_the_change_says_the_change_was_saved(gate: Gate) -> None:
    harness = gate.harness
    await _master(gate, name="Sola")
    harness.emulator.refuse_next("POST", r"/interactions/\d+/[^/]+/callback$")
    record = await harness.slash(gate.gm, gate.channel, "gm award", character="Sola", resource="fate_points", amount=2)
    assert record.reply.ephemeral
    assert record.reply.content.startswith("The change was saved, but its reply failed (error ")
    assert "Do not repeat the command." in record.reply.content
    roster = (await harness.slash(gate.gm, gate.channel, "character list")).reply.text()
    assert "Fate/Points 2" in roster.split("**Sola**")[1].splitlines()[0]


async def test_a_failure_before_any_change_says_nothing_changed_and_gives_an_id(gate: Gate) -> None:
    harness = gate.harness
    harness.emulator.refuse_next("POST", r"/interactions/\d+/[^/]+/callback$")
    record = await harness.slash(gate.gm, gate.channel, "campaign info")
    assert record.reply.content.startswith("Something went wrong and nothing was changed (error ")


@contextlib.asynccontextmanager
async def _campaigns_locked_elsewhere(url: str) -> AsyncIterator[None]:
    """Another process holds the campaigns' lock (SQLite: the write lock; PostgreSQL: the rows)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        connection = sqlite3.connect(str(parsed.database), isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            connection.execute("ROLLBACK")
            connection.close()
        return
    other = await asyncpg.connect(parsed.set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        transaction = other.transaction()
        await transaction.start()
        await other.execute("SELECT id FROM campaigns FOR UPDATE")
        yield
        await transaction.rollback()
    finally:
        await other.close()


async def test_a_lock_held_elsewhere_gives_busy_in_time_and_changes_nothing(gate: Gate) -> None:
    harness = gate.harness
    await _master(gate, name="Waver")
    async with _campaigns_locked_elsewhere(harness.database_url):
        record = await harness.slash(gate.gm, gate.channel, "gm award", character="Waver", resource="hp", amount=-1)
    assert record.error is None  # answered within Discord's deadline
    assert record.reply.ephemeral
    assert (
        record.reply.content == "The campaign is busy with another change: nothing was changed, try again in a moment."
    )
    log = (await harness.slash(gate.gm, gate.channel, "log show")).reply.text()
    assert "Waver's hp" not in log


async def test_a_command_waiting_for_a_lock_leaves_the_bot_free_for_others(gate: Gate) -> None:
    harness = gate.harness
    await _master(gate, name="Kayneth")
    async with _campaigns_locked_elsewhere(harness.database_url):
        award = asyncio.ensure_future(
            harness.slash(gate.gm, gate.channel, "gm award", character="Kayneth", resource="hp", amount=-1)
        )
        looked = await harness.slash(gate.mei, gate.channel, "campaign info")
        assert not award.done()
        await award
    assert looked.answered_at is not None and looked.dispatched_at is not None
    assert looked.answered_at - looked.dispatched_at < 0.5
    assert "Gate" in looked.reply.text()


async def _in_a_fight(gate: Gate) -> tuple[Channel, Message]:
    """A new campaign where mei's Archer has attacked bob's Rider: the channel and bob's defence prompt."""
    harness = gate.harness
    guild = harness.emulator.world.guild_of(gate.channel)
    assert guild is not None
    channel = harness.new_channel(guild)
    await harness.slash(gate.gm, channel, "campaign start", ruleset="fate_points", name="Locked Fight")
    fight = Gate(harness, channel, gate.gm, gate.bob, gate.mei)
    for player, master, servant in ((gate.mei, "Rin", "Archer"), (gate.bob, "Sakura", "Rider")):
        await _sheet(fight, player, "master", name=master)
        await harness.approve_sheet(gate.gm, channel, master)
        await _sheet(fight, player, "servant", name=servant, master=master, servant_class=servant)
        await harness.approve_sheet(gate.gm, channel, servant)
        await harness.slash(player, channel, "character use", name=servant)
    attacked = await harness.slash(gate.mei, channel, "attack", target="Rider", action="melee|Invisible Air")
    assert attacked.error is None, attacked.replies
    prompt = next(m for m in reversed(harness.emulator.visible_to(gate.bob, channel)) if "Dodge" in m.buttons())
    return channel, prompt


async def test_a_click_that_waits_for_a_lock_is_deferred_then_refused_and_can_be_clicked_again(gate: Gate) -> None:
    harness = gate.harness
    _, prompt = await _in_a_fight(gate)
    async with _campaigns_locked_elsewhere(harness.database_url):
        waited = await harness.emulator.click(gate.bob, prompt, "Dodge")
        # A deferred click shows nothing while it waits: the refusal comes as a followup.
        await waited.until(lambda: bool(waited.replies), seconds=5)
    assert waited.error is None  # acknowledged within Discord's deadline
    assert waited.response_type == CALLBACK_DEFERRED_UPDATE
    refusal = waited.replies[-1]
    assert refusal.ephemeral
    assert refusal.content == "The campaign is busy with another change: nothing was changed, try again in a moment."
    assert "Dodge" in harness.current(prompt).buttons()

    answered = await harness.emulator.click(gate.bob, harness.current(prompt), "Dodge")
    assert answered.error is None
    assert "Dodge" not in harness.current(prompt).buttons()


async def test_long_lists_and_sheets_fit_in_every_message(gate: Gate) -> None:
    """Many characters with the longest names, a sheet with forty weapons, a fight of all of them, time passing
    for twenty pairs: every message fits, and every list pages."""
    harness = gate.harness
    guild = harness.emulator.world.guild_of(gate.channel)
    assert guild is not None
    channel = harness.new_channel(guild)
    await harness.slash(gate.gm, channel, "campaign start", ruleset="fate_points", name="L" * 100)
    sweep = Gate(harness, channel, gate.gm, gate.bob, gate.mei)
    rejected = len(harness.emulator.rejections)
    masters = [f"{index:02d}" + "M" * 98 for index in range(20)]
    weapons = [{"name": f"{index:02d}" + "W" * 98, "type": "sword"} for index in range(40)]
    for index, name in enumerate(masters):
        await _master(sweep, name=name, **({"weapons": weapons} if index == 0 else {}))
        template = (await harness.slash(gate.bob, channel, "character template", kind="servant")).reply
        servant = yaml.safe_load(template.attachments[0].data) | {"name": f"{index:02d}" + "S" * 98, "master": name}
        joined = await harness.slash(
            gate.bob, channel, "character import", file=("s.yaml", yaml.safe_dump(servant).encode())
        )
        assert joined.reply.visible_to is EVERYONE, joined.reply.content
    sheet = (await harness.slash(gate.bob, channel, "character show", name=masters[0])).reply
    assert masters[0] in sheet.text()
    first = (await harness.slash(gate.gm, channel, "character list")).reply
    assert first.buttons() == ["◀", "▶"]
    turned = await harness.emulator.click(gate.gm, first, "▶")
    assert turned.error is None
    assert "Page 2 of" in harness.current(first).text()
    order = ", ".join(masters[:9])
    assert (await harness.slash(gate.gm, channel, "combat start", order=order)).error is None
    assert (await harness.slash(gate.gm, channel, "combat status")).error is None
    await harness.slash(gate.gm, channel, "combat end")
    passed = await harness.slash(gate.gm, channel, "campaign time", hours=3)
    assert passed.error is None and len(passed.replies) >= 1
    log = (await harness.slash(gate.gm, channel, "log show")).reply
    assert log.buttons() == ["◀", "▶"]
    assert harness.emulator.rejections[rejected:] == []


async def test_an_export_of_a_hundred_thousand_events_arrives_while_others_are_answered(gate: Gate) -> None:
    harness = gate.harness
    guild = harness.emulator.world.guild_of(gate.channel)
    assert guild is not None
    channel = harness.new_channel(guild)
    await harness.slash(gate.gm, channel, "campaign start", ruleset="fate_points", name="Archive")
    database = Database.from_url(harness.database_url)
    try:
        async with database.write() as session:
            campaign_id = await session.scalar(select(Campaign.id).where(Campaign.channel_id == channel.id))
            now = datetime.now(UTC)
            rows = [
                {"campaign_id": campaign_id, "created_at": now, "actor_id": gate.bob.id, "kind": "roll",
                 "payload": {"expression": "1d20", "label": f"roll {index}", "total": index % 20 + 1},
                 "secret": False}
                for index in range(100_000)
            ]  # fmt: skip
            await session.execute(insert(Event), rows)
    finally:
        await database.dispose()
    exported, rolled = await asyncio.gather(
        harness.slash(gate.gm, channel, "log export", format="json"),
        harness.slash(gate.mei, gate.channel, "roll", dice="1d20"),
    )
    assert rolled.error is None and rolled.reply.visible_to is EVERYONE
    assert exported.error is None
    reply = exported.replies[-1]
    assert reply.ephemeral
    (attachment,) = reply.attachments
    assert attachment.filename.endswith(".json.gz")
    document = json.loads(gzip.decompress(attachment.data))
    assert len(document["events"]) == 100_001  # the campaign's start, and the rolls
    assert harness.emulator.rejections == [] or all(r.status != 413 for r in harness.emulator.rejections)


UNKEPT = "The file holds a character the bot cannot keep"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'kind: master\nname: Nul\nnotes: "a\\0b"\n', f"{UNKEPT} (U+0000, line 3): remove it."),
        (b"kind: master\nname: Nul\nnotes: a\x00b\n", f"{UNKEPT} (U+0000, line 3): remove it."),
        (b"\x00" * 64, f"{UNKEPT} (U+0000, line 1): remove it."),
        (b"\xef\xbb\xbf\x00", f"{UNKEPT} (U+0000, line 1): remove it."),
        ("kind: master\nname: Nul\nnotes: \ufffe\n".encode(), f"{UNKEPT} (U+FFFE, line 3): remove it."),
        (b'kind: master\nname: Nul\nnotes: "\\ud800"\n', f"{UNKEPT} (U+D800, line 3): remove it."),
        (b"kind: master\nname: \xed\xa0\x80\n", "The file must be UTF-8 text (YAML or JSON)."),
    ],
)
async def test_a_file_of_any_bytes_is_refused_in_words_and_creates_nothing(
    gate: Gate, content: bytes, expected: str
) -> None:
    record = await gate.harness.slash(gate.bob, gate.channel, "character import", file=("sheet.yaml", content))
    assert record.error is None and record.reply.ephemeral
    assert record.reply.content == expected
    assert "Nul" not in (await gate.harness.slash(gate.gm, gate.channel, "character list")).reply.text()


async def test_a_form_holding_a_character_no_database_keeps_is_refused_in_words(gate: Gate) -> None:
    opened = await gate.harness.slash(gate.mei, gate.channel, "character create", kind="master")
    assert opened.modal is not None
    submitted = await gate.harness.emulator.submit_modal(
        gate.mei, opened, {"角色卡（YAML）": "kind: master\nname: Form\nnotes: a\x00b\n"}
    )
    assert submitted.reply.ephemeral
    assert submitted.reply.content == "文件中有机器人无法保存的字符（U+0000，第 3 行）：请删除它。"
    assert "Form" not in (await gate.harness.slash(gate.gm, gate.channel, "character list")).reply.text()


@pytest.mark.parametrize(
    ("command", "options", "code"),
    [
        ("roll", {"dice": "1d20", "label": "Str\x00"}, "U+0000"),
        ("roll", {"dice": "1d20\x00"}, "U+0000"),
        ("roll", {"dice": "1d20", "label": "half \ud800"}, "U+D800"),
        ("character edit", {"name": "Nobody", "field": "notes", "value": "a\x00b"}, "U+0000"),
        ("campaign set", {"option": "fp\x00", "value": "x"}, "U+0000"),
    ],
)
async def test_typed_text_no_database_keeps_is_refused_in_words_and_changes_nothing(
    gate: Gate, command: str, options: dict[str, str], code: str
) -> None:
    before = (await gate.harness.slash(gate.gm, gate.channel, "log show")).reply.text()
    record = await gate.harness.slash(gate.gm, gate.channel, command, **options)
    assert record.error is None and record.reply.ephemeral
    assert record.reply.content == (
        f"What you typed holds a character the bot cannot keep ({code}): remove it and try again."
    )
    assert (await gate.harness.slash(gate.gm, gate.channel, "log show")).reply.text() == before
