"""The anka game through the emulator: camps and formations, battles step by step with committed decisions and
anchors (by /anchor and by plain messages, chatter skipped), cancels in response, assassination, the aftermath
with command seals, talismans and vanishing, every revealed decision verified; ja, en and zh-CN players.

The tests read a decision's secret from the database to pick the anchor that gives the value they need: what no
player can do, and what makes each branch of the rules reachable on purpose."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from bot.db.models import Commitment
from bot.emulator.models import Channel, Guild, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness


@dataclass(frozen=True)
class Table:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    ken: User  # ja
    mei: User  # zh-CN
    bob: User  # en
    kirei: User  # a spectator


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("anka")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, bob, kirei = emulator.add_user("gm"), emulator.add_user("bob"), emulator.add_user("kirei")
        ken, mei = emulator.add_user("ken", locale="ja"), emulator.add_user("mei", locale="zh-CN")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (ken, mei, bob, kirei):
            emulator.add_member(guild, player)
        harness.read_messages = True
        await harness.start_bot()
        yield Table(harness, guild, emulator.add_channel(guild, "lobby"), gm, ken, mei, bob, kirei)


@pytest.fixture
async def table(server: Table) -> Table:
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset="grail_anka", name="Anka")
    return replace(server, channel=channel)


def params(*values: int) -> dict[str, int]:
    return dict(zip(("str", "end", "agi", "mag", "luk", "np"), values, strict=True))


SABER = {
    "name": "Saber",
    "master": "Ma",
    "servant_class": "Saber",
    "level": 12,
    "params": params(45, 40, 35, 20, 30, 50),
}
MA = {"name": "Ma", "level": 5, "params": params(10, 10, 15, 35, 20, 0)}
BERSERKER = {
    "name": "Berserker", "master": "Mb1", "servant_class": "Berserker", "level": 15,
    "params": params(55, 50, 30, 10, 15, 35),
    "skills": [
        {"name": "Rage", "kind": "normal", "timing": "setup", "category": "fury", "fatigue_cost": 1,
         "effect": {"win_rate_delta": 10}},
        {"name": "Mad Roar", "kind": "normal", "timing": "main", "fatigue_cost": 1},
    ],
}  # fmt: skip
ASSASSIN = {
    "name": "Assassin", "master": "Mb2", "servant_class": "Assassin", "level": 8,
    "params": params(25, 20, 45, 15, 25, 25),
    "skills": [{"name": "Zabaniya", "timing": "setup", "tags": ["assassination"], "effect": {"success_rate": 20}}],
}  # fmt: skip
MB1 = {"name": "Mb1", "level": 4, "params": params(5, 10, 10, 30, 15, 0)}
MB2 = {"name": "Mb2", "level": 3, "params": params(5, 5, 5, 20, 10, 0)}


async def _create(table: Table, user: User, kind: str, data: dict[str, Any]) -> None:
    """A player's character: its file waits for the GM's approval (parameters are the GM's to enter, D1)."""
    text = yaml.safe_dump({"kind": kind, **data}, allow_unicode=True).encode()
    held = (await table.harness.slash(user, table.channel, "character import", file=("sheet.yaml", text))).reply
    assert not held.ephemeral, held.content
    await table.harness.approve_sheet(table.gm, table.channel, data["name"])


async def _camps(table: Table) -> None:
    """W1's camps: ken's Saber and Ma against mei's Berserker and Mb1 with bob's Assassin and Mb2."""
    harness = table.harness
    for user, kind, data in (
        (table.ken, "master", MA), (table.ken, "servant", SABER), (table.mei, "master", MB1),
        (table.mei, "servant", BERSERKER), (table.bob, "master", MB2), (table.bob, "servant", ASSASSIN),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    await harness.slash(table.gm, table.channel, "anka camp", name="Sakura Gate", members="Saber, Ma")
    await harness.slash(
        table.gm, table.channel, "anka camp", name="Emiya House", members="Berserker, Mb1, Assassin, Mb2"
    )
    for name, amount in (("Saber", 2), ("Berserker", 4), ("Assassin", 1)):
        await harness.slash(table.gm, table.channel, "gm award", character=name, resource="fatigue", amount=amount)


async def _secret(table: Table, key: str) -> int:
    assert table.harness.bot is not None
    async with table.harness.bot.database.read() as session:
        stored = await session.scalar(select(Commitment).where(Commitment.key == key))
        assert stored is not None
        return int(stored.secret)


async def _open_decision(table: Table) -> str:
    """The decision the channel's open anchor prompt is for."""
    prompt = await _last_anchor_prompt(table)
    return prompt.content.split("`")[1]


async def _last_anchor_prompt(table: Table) -> Message:
    return await _prompt(table, table.gm, "Extend the window")


async def _anchor_for(table: Table, value: int) -> int:
    """The anchor that makes the open decision's value `value`."""
    secret = await _secret(table, await _open_decision(table))
    return (value - secret) % 100 or 100


async def _say_anchor(table: Table, user: User, number: int) -> None:
    """Post a number as a plain message and wait until the bot took it (it answers no interaction, so nothing
    tells the emulator when it is done)."""
    harness = table.harness
    taken = f"Anchor {number} by <@{user.id}>"
    before = harness.seen_by(table.gm, table.channel).count(taken)
    await harness.emulator.post(user, table.channel, str(number))
    await harness.eventually(lambda: harness.seen_by(table.gm, table.channel).count(taken) > before)
    await harness.emulator.settle(quiet_for=0.2)  # and until it closed the old prompts and posted the new ones


async def _say_chatter(table: Table, user: User, text: str) -> None:
    """Post a message the bot must skip; give it the time to look at it, since it answers nothing."""
    await table.harness.emulator.post(user, table.channel, text)
    await table.harness.emulator.settle(quiet_for=0.2)


async def _prompt(table: Table, user: User, button: str) -> Message:
    """The newest message the user sees with that button; the bot posts a step's prompts after its messages, so
    wait for it to be there."""
    harness = table.harness

    def newest() -> Message | None:
        shown = harness.emulator.visible_to(user, table.channel)
        return next((m for m in reversed(shown) if button in m.buttons()), None)

    await harness.eventually(lambda: newest() is not None)
    found = newest()
    assert found is not None
    return found


async def _use(table: Table, user: User, group: str, choice: str) -> None:
    """Open a group button's private choices and pick one."""
    emulator = table.harness.emulator
    question = (await emulator.click(user, await _prompt(table, user, group), group)).reply
    assert question.ephemeral
    answered = await emulator.click(user, question, choice)
    assert answered.error is None, answered.error


async def _verify_all(table: Table) -> int:
    """Every revealed decision of the campaign checks out against its commitment, as sha256sum would."""
    assert table.harness.bot is not None
    async with table.harness.bot.database.read() as session:
        keys = list(await session.scalars(select(Commitment.key).where(Commitment.revealed_at.is_not(None))))
    checked = 0
    for key in keys:
        reply = (await table.harness.slash(table.bob, table.channel, "anka verify", decision=key)).reply
        if "checks out" not in reply.content:
            continue  # another campaign's decision
        hashed, digest = reply.content.split("`")[3], reply.content.split("`")[5]
        assert hashlib.sha256(hashed.encode()).hexdigest() == digest
        checked += 1
    return checked


async def test_a_battle_between_two_camps_from_setup_to_aftermath(table: Table) -> None:
    harness, emulator = table.harness, table.harness.emulator
    await _camps(table)
    await harness.slash(table.gm, table.channel, "anka talisman", camp="Sakura Gate", kind="illusion", count=1)
    formed = (await harness.slash(table.ken, table.channel, "anka formation", camp="Sakura Gate", main="Saber",
                                  subs="Ma")).reply  # fmt: skip
    assert formed.ephemeral and "メイン Saber" in formed.content
    refused = (await harness.slash(table.ken, table.channel, "anka formation", camp="Emiya House",
                                   main="Berserker")).reply  # fmt: skip
    assert refused.ephemeral and "あなたの陣営ではありません" in refused.content
    await harness.slash(table.mei, table.channel, "anka formation", camp="Emiya House", main="Berserker",
                        subs="Assassin, Mb1")  # fmt: skip
    strength = (await harness.slash(table.ken, table.channel, "anka strength", camp="Sakura Gate")).reply
    assert "【筋】50" in strength.content and "【宝】50" in strength.content  # W1

    odds = (await harness.slash(table.gm, table.channel, "anka odds", first="Sakura Gate", second="Emiya House",
                                param1="np", param2="str", param3="mag")).reply  # fmt: skip
    assert odds.ephemeral and "→ **60%**" in odds.text()  # W3
    assert "critical 1.0%, success 59.0%, failure 39.0%, fumble 1.0%" in odds.text()
    assert "Sakura Gate: main Saber; subs Ma; companions —" in odds.text()  # the formations compared
    (board,) = odds.attachments  # the camps face to face, with the same facts as its alt text
    assert board.data.startswith(b"\x89PNG") and board.description is not None and "→ 60%" in board.description
    assert not any(mark in board.description for mark in ("**", "__", "~~", "`"))  # alt text is plain text
    players_may_not = (
        await harness.slash(
            table.ken,
            table.channel,
            "anka odds",
            first="Sakura Gate",
            second="Emiya House",
            param1="np",
            param2="str",
            param3="mag",
        )
    ).reply
    assert players_may_not.ephemeral and "→" not in players_may_not.content
    started = (await harness.slash(table.ken, table.channel, "anka battle", first="Sakura Gate",
                                   second="Emiya House")).reply  # fmt: skip
    assert "Battle: Sakura Gate (first) against Emiya House" in started.text()
    # Setup: Sakura Gate has no setup skill; Emiya House's Berserker uses Rage, which ken cancels with his talisman.
    await _use(table, table.mei, "Use a skill…", "Berserker：Rage（●通常技能）")
    await _use(table, table.ken, "Cancel it…", "幻惑符")
    seen = harness.seen_by(table.bob, table.channel)
    assert "Berserker's Rage is cancelled by Sakura Gate's Illusion talisman" in seen
    # Then bob's Assassin tries Zabaniya: nothing can cancel it any more, so its assassination check is committed.
    await _use(table, table.bob, "Use a skill…", "Assassin: Zabaniya (normal skill)")
    decision = await _open_decision(table)
    anchor = await _anchor_for(table, 50)
    # Plain messages: chatter is skipped (no number, two numbers, a number out of range), the GM may not anchor.
    await _say_chatter(table, table.kirei, "who goes first?")
    await _say_chatter(table, table.kirei, "between 4 and 5")
    await _say_chatter(table, table.gm, str(anchor))
    await _say_chatter(table, table.kirei, "150")
    assert await _open_decision(table) == decision
    await _say_anchor(table, table.kirei, anchor)
    seen = harness.seen_by(table.bob, table.channel)
    assert f"Anchor {anchor} by <@{table.kirei.id}> for `{decision}`" in seen
    assert "Assassination by Assassin: 50 against 20%: failure" in seen

    # Parameters: Sakura Gate picks NP, Emiya House STR (W2); the bot restarts in between.
    emulator.clock.advance(5 * 3600)  # play by post: the next answer comes hours later
    await emulator.click(table.ken, await _prompt(table, table.ken, "NP"), "NP")
    await harness.restart()
    emulator.clock.advance(9 * 3600)
    await emulator.click(table.bob, await _prompt(table, table.bob, "STR"), "STR")
    # The third parameter: a decision whose value 42 picks MAG from END, AGI, MAG, LUK; kirei anchored last time.
    anchor = await _anchor_for(table, 42)
    twice = (await harness.slash(table.kirei, table.channel, "anchor", number=anchor)).reply
    assert twice.ephemeral and "someone else gives this one" in twice.content
    await harness.slash(table.mei, table.channel, "anchor", number=anchor)
    assert "The third parameter: MAG." in harness.seen_by(table.bob, table.channel)

    # Main: Berserker roars (fatigue 4 -> 5, not counted in this battle's rate); the rate is W3's 60%.
    await _use(table, table.mei, "Use a skill…", "Berserker：Mad Roar（●通常技能）")
    seen = harness.seen_by(table.bob, table.channel)
    assert "Sakura Gate: 2 advantages, 1 disadvantage: 70%; total strength -13, level -3, fatigue +6" in seen
    assert "→ **60%**" in seen
    # The decision: 61 loses for Sakura Gate (W4's boundary).
    await harness.slash(table.kirei, table.channel, "anchor", number=await _anchor_for(table, 61))
    seen = harness.seen_by(table.bob, table.channel)
    assert "The battle's check: 61 against 60%: failure" in seen
    assert "Emiya House defeats Sakura Gate (the check)" in seen

    # Aftermath: Saber's way out, offered to ken with the odds; he spends one of Ma's command seals.
    fate = await _prompt(table, table.ken, "One command seal: retreat (3 left)")
    assert "Face the vanish check (60.0% to survive)" in fate.buttons()
    await emulator.click(table.ken, fate, "One command seal: retreat (3 left)")
    # The winners' fatigue table: Berserker and Assassin, one anchor each, in order.
    first = await _open_decision(table)
    await _say_anchor(table, table.ken, await _anchor_for(table, 76))
    second = await _open_decision(table)
    assert second != first
    await _say_chatter(table, table.ken, "5")  # ken anchored the one before: chatter
    assert await _open_decision(table) == second
    await _say_anchor(table, table.mei, await _anchor_for(table, 9))
    seen = harness.seen_by(table.bob, table.channel)
    assert "Berserker: fatigue table 6 (quite tired): +2 → fatigue 7" in seen  # 4 + 1 (Mad Roar) + 2
    assert "Assassin: fatigue table 9 (used too much strength): +5 → fatigue 6" in seen
    assert "Saber retreats (1 command seal): fatigue 5." in seen
    assert "Ma: retreating with the camp's Servants." in seen
    assert "The battle is over: Emiya House won" in seen
    sheet = (await harness.slash(table.ken, table.channel, "character list")).reply.text()
    assert "command seals 2/3" in sheet or "令呪 2/3" in sheet
    assert await _verify_all(table) >= 5
    # R18 outside a battle: only Ma's player spends Ma's seals, and only on Ma's own Servant (D24).
    stolen = (await harness.slash(table.bob, table.channel, "anka seal", servant="Saber")).reply
    assert stolen.ephemeral and "not your Servant" in stolen.content
    sealed = (await harness.slash(table.ken, table.channel, "anka seal", servant="Saber")).reply.text()
    assert "Ma spends a command seal: Saber's fatigue 5 → 0 (1 left)" in sealed
    await harness.slash(table.gm, table.channel, "anka kill", character="Ma")
    dead = (await harness.slash(table.ken, table.channel, "anka seal", servant="Saber")).reply
    assert dead.ephemeral and "Ma" in dead.content and "死亡" in dead.content
    not_gm = (await harness.slash(table.ken, table.channel, "anka kill", character="Berserker")).reply
    assert not_gm.ephemeral


LANCER = {"name": "Lancer", "master": "Kotomine", "servant_class": "Lancer", "level": 20,
          "params": params(90, 90, 90, 90, 90, 90)}  # fmt: skip
KOTOMINE = {"name": "Kotomine", "level": 10, "params": params(40, 40, 40, 40, 40, 0)}


async def _npc(table: Table, kind: str, data: dict[str, Any]) -> None:
    text = yaml.safe_dump({"kind": kind, **data}, allow_unicode=True).encode()
    made = (await table.harness.slash(table.gm, table.channel, "character import", file=("npc.yaml", text),
                                      npc=True)).reply  # fmt: skip
    assert data["name"] in made.text() and not made.ephemeral, made.text()


async def test_a_lost_battle_against_a_gm_camp_saved_by_a_talisman_and_a_vanishing(table: Table) -> None:
    """W8 and W13 in play: the players' camp is side A against a GM-run camp, loses without a roll, Berserker
    escapes on a substitute talisman, Assassin (whose Master has one stroke left) faces its vanish check and
    vanishes; the camp, beaten at home, loses its base."""
    harness, emulator = table.harness, table.harness.emulator
    berserker, assassin = {**BERSERKER, "skills": []}, {**ASSASSIN, "skills": []}
    for user, kind, data in ((table.mei, "master", MB1), (table.mei, "servant", berserker),
                             (table.bob, "master", MB2), (table.bob, "servant", assassin)):  # fmt: skip
        await _create(table, user, kind, data)
    await _npc(table, "master", KOTOMINE)
    await _npc(table, "servant", LANCER)
    gm = table.gm
    mixed = (await harness.slash(gm, table.channel, "anka camp", name="Church", members="Lancer, Mb1",
                                 gm_run=True)).reply  # fmt: skip
    assert mixed.ephemeral and "Mb1 is a player's character" in mixed.content
    await harness.slash(gm, table.channel, "anka camp", name="Church", members="Lancer, Kotomine", gm_run=True)
    twin = (await harness.slash(gm, table.channel, "anka camp", name=" church ", members="Mb1")).reply
    assert twin.ephemeral and "already a camp called church" in twin.content
    await harness.slash(gm, table.channel, "anka camp", name="Emiya House", members="Berserker, Assassin, Mb1, Mb2")
    await harness.slash(gm, table.channel, "anka talisman", camp="Emiya House", kind="substitute", count=1)
    await harness.slash(gm, table.channel, "anka base", camp="Emiya House", base="Emiya residence")
    await harness.slash(gm, table.channel, "gm award", character="Mb2", resource="command_seals", amount=-2)
    await harness.slash(gm, table.channel, "gm award", character="Assassin", resource="fatigue", amount=1)
    await harness.slash(gm, table.channel, "campaign set", option="batch_anchor", value="true")
    refused = (await harness.slash(table.bob, table.channel, "anka formation", camp="Church", main="Lancer")).reply
    assert refused.ephemeral and "not your camp" in refused.content
    await harness.slash(gm, table.channel, "anka formation", camp="Church", main="Lancer", subs="Kotomine")
    await harness.slash(table.bob, table.channel, "anka formation", camp="Emiya House", main="Berserker",
                        subs="Assassin", companions="Mb1")  # fmt: skip

    await harness.slash(gm, table.channel, "anka battle", first="Church", second="Emiya House",
                        at_base_of="Emiya House")  # fmt: skip
    # Against a GM-run camp the players' side picks first (R5.3), then the GMs for the Church.
    await emulator.click(table.mei, await _prompt(table, table.mei, "STR"), "STR")
    pick = await _prompt(table, gm, "END")
    stranger = await emulator.click(table.mei, pick, "END")
    assert stranger.reply is not None and stranger.reply.ephemeral  # the Church's choice is the GMs'
    await emulator.click(gm, pick, "END")
    await _say_anchor(table, table.kirei, await _anchor_for(table, 7))
    seen = harness.seen_by(table.mei, table.channel)
    assert "Emiya House is at a disadvantage in all three: it loses without a roll." in seen
    assert "Church defeats Emiya House (the table alone, without a roll)" in seen

    # Berserker's way out is mei's to choose, Assassin's bob's.
    fate = await _prompt(table, table.mei, "Substitute talisman (1 left)")
    not_yours = await emulator.click(table.bob, fate, "Substitute talisman (1 left)")
    assert not_yours.reply is not None and not_yours.reply.ephemeral
    await emulator.click(table.mei, fate, "Substitute talisman (1 left)")
    fate = await _prompt(table, table.bob, "Face the vanish check (65.0% to survive)")
    assert "One command seal: retreat (1 left)" in fate.buttons()
    await emulator.click(table.bob, fate, "Face the vanish check (65.0% to survive)")
    # One anchor for both decisions (batch_anchor): Lancer's fatigue table and Assassin's vanish check.
    ids = (await _last_anchor_prompt(table)).content.split("`")[1::2]
    assert len(ids) == 2
    anchor = (90 - await _secret(table, ids[1])) % 100 or 100
    await harness.slash(table.ken, table.channel, "anchor", number=anchor)
    seen = harness.seen_by(table.bob, table.channel)
    assert "Assassin's vanish check: 90 against 65% to survive: vanishes" in seen
    assert "Assassin vanishes for good." in seen
    assert "Berserker retreats (Substitute talisman): fatigue 3." in seen
    assert "Mb1: retreating with the camp's Servants." in seen
    assert "Emiya House loses its base (Emiya residence)." in seen
    camps = (await harness.slash(table.mei, table.channel, "anka camps")).reply.content
    assert "Emiya residence" not in camps and "Assassin" in camps
    gone = (await harness.slash(table.bob, table.channel, "anka formation", camp="Emiya House",
                                main="Assassin")).reply  # fmt: skip
    assert gone.ephemeral and "Assassin" in gone.content
    assert await _verify_all(table) >= 2


async def test_checks_windows_fallbacks_and_who_may_anchor(table: Table) -> None:
    harness, emulator = table.harness, table.harness.emulator
    gm = table.gm
    await _create(table, table.ken, "master", MA)
    # A Master may hold several Servants (R20); the GM enters and edits parameters (D1), letters on the scale.
    for name in ("Caster", "Rider"):
        await _create(table, table.ken, "servant", {**SABER, "name": name, "servant_class": name})
    roster = (await harness.slash(table.ken, table.channel, "character list")).reply.text()
    assert "Caster" in roster and "Rider" in roster
    edited = (await harness.slash(gm, table.channel, "character edit", name="Ma", field="params.str",
                                  value="A+")).reply  # fmt: skip
    assert "params.str" in edited.text() or "A+" in edited.text(), edited.text()
    shown = (await harness.slash(gm, table.channel, "character show", name="Ma")).reply.text()
    assert "STR 55" in shown
    not_player = (await harness.slash(table.ken, table.channel, "character edit", name="Ma", field="params.str",
                                      value="EX")).reply  # fmt: skip
    assert not_player.ephemeral
    not_gm = (await harness.slash(table.ken, table.channel, "anka check", rate=50, purpose="Find the church")).reply
    assert not_gm.ephemeral
    opened = (await harness.slash(gm, table.channel, "anka check", rate=50, purpose="Find the church")).reply
    decision = opened.text().split("`")[1]
    # Before the reveal, nobody reads the secret: not the log, not the export, not a verify.
    assert harness.bot is not None
    async with harness.bot.database.read() as session:
        stored = await session.scalar(select(Commitment).where(Commitment.key == decision))
        assert stored is not None
        nonce, digest = stored.nonce, stored.digest
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert nonce not in log
    exported = (await harness.slash(gm, table.channel, "log export", format="json")).reply
    assert any(digest.encode() in file.data for file in exported.attachments)  # the export is readable text
    assert all(nonce.encode() not in file.data for file in exported.attachments)
    pending = (await harness.slash(table.ken, table.channel, "anka verify", decision=decision)).reply
    assert "not revealed yet" in pending.content or "まだ公開されていません" in pending.content
    assert nonce not in pending.content
    # A player may not close the window; the window passes with nobody anchoring: the default keeps waiting.
    closing = await emulator.click(table.ken, (await _last_anchor_prompt(table)), "Close the window")
    assert closing.reply is not None and closing.reply.ephemeral
    emulator.clock.advance(601)
    await harness.eventually(lambda: "has passed without an anchor" in harness.seen_by(table.ken, table.channel))
    await _say_anchor(table, table.ken, await _anchor_for(table, 1))
    seen = harness.seen_by(table.ken, table.channel)
    assert "Check “Find the church”: 01 against 50%: critical" in seen
    # A GM who closes a window nobody answered gives the anchor; the players may not.
    await harness.slash(gm, table.channel, "anka check", rate=30, purpose="Sneak past")
    await emulator.click(gm, (await _last_anchor_prompt(table)), "Close the window")
    late = (await harness.slash(table.bob, table.channel, "anchor", number=10)).reply
    assert late.ephemeral and "a GM gives this anchor" in late.content
    await harness.slash(gm, table.channel, "anchor", number=await _anchor_for(table, 0))
    assert "“Sneak past”: 00 against 30%: fumble" in harness.seen_by(table.ken, table.channel)
    # With the bot_random fallback, the bot draws the anchor when the window passes, and shows the die.
    await harness.slash(gm, table.channel, "campaign set", option="anchor_fallback", value="bot_random")
    await harness.slash(gm, table.channel, "anka check", rate=99, purpose="Stay awake")
    emulator.clock.advance(601)
    await harness.eventually(lambda: "the bot drew 1 anchor " in harness.seen_by(table.ken, table.channel))
    seen = harness.seen_by(table.ken, table.channel)
    assert "drawn anchor: 1d100" in seen and "“Stay awake”:" in seen
    # Two decisions open at once: a number goes to the older one, unless it names the other.
    one = (await harness.slash(gm, table.channel, "anka check", rate=10, purpose="One")).reply.text().split("`")[1]
    two = (await harness.slash(gm, table.channel, "anka check", rate=10, purpose="Two")).reply.text().split("`")[1]
    await harness.slash(table.ken, table.channel, "anchor", number=5)
    assert f"Anchor 5 by <@{table.ken.id}> for `{one}`" in harness.seen_by(table.ken, table.channel)
    taken = (await harness.slash(table.mei, table.channel, "anchor", number=6, decision=one)).reply
    assert taken.ephemeral and "已有安价" in taken.content
    await harness.slash(table.mei, table.channel, "anchor", number=6, decision=two)
    assert f"Anchor 6 by <@{table.mei.id}> for `{two}`" in harness.seen_by(table.ken, table.channel)
    nothing = (await harness.slash(table.ken, table.channel, "anka verify", decision="nope")).reply
    assert nothing.ephemeral and "nope" in nothing.content
    assert await _verify_all(table) >= 3
    shared = (await harness.slash(table.ken, table.channel, "check")).reply
    assert shared.ephemeral and "/anka check" in shared.content
    # A GM sees an open window as waiting for a number, and may cancel it from there.
    await harness.slash(gm, table.channel, "anka check", rate=10, purpose="Left open")
    listed = await harness.slash(gm, table.channel, "gm pending")
    line = next(reply for reply in listed.replies if "Left open" in reply.content)
    assert "a number from 1 to 100" in line.content and "Cancel (GM)" in line.buttons()
    # Once the campaign ended, its decisions can still be checked.
    await harness.slash(gm, table.channel, "campaign end")
    await emulator.click(gm, harness.last(table.channel, gm), "End the campaign")
    after = (await harness.slash(table.bob, table.channel, "anka verify", decision=one)).reply
    assert after.ephemeral and "checks out" in after.content


def _anka_file(name: str, level: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "level": level, "params": params(30, 30, 30, 30, 30, 30), **extra}


async def test_a_war_of_three_camps_over_several_turns(table: Table) -> None:
    """R17-R23 over two turns: a camp rests, a Master's death leaves two Servants masterless, one takes a new
    Master in another camp with both players' consent, the other vanishes at the turn's end; a camp that lost its
    Servant stays in play; with two camps left, the finale."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    for user, kind, data in (
        (table.ken, "master", _anka_file("Shirou", 3)),
        (table.ken, "servant", _anka_file("Saber", 12, master="Shirou")),
        (table.bob, "master", _anka_file("Rin", 4)), (table.bob, "servant", _anka_file("Archer", 11, master="Rin")),
        (table.mei, "master", _anka_file("Shinji", 2)),
        (table.mei, "servant", _anka_file("Rider", 10, master="Shinji")),
        (table.mei, "servant", _anka_file("Hassan", 9, master="Shinji")),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    for name, members in (("Emiya", "Shirou, Saber"), ("Tohsaka", "Rin, Archer"), ("Matou", "Shinji, Rider, Hassan")):
        await harness.slash(gm, table.channel, "anka camp", name=name, members=members)
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="fatigue", amount=2)
    await harness.slash(gm, table.channel, "gm award", character="Archer", resource="fatigue", amount=3)

    # Turn 1: Tohsaka rests; Shinji dies, and his two Servants are masterless.
    declared = (await harness.slash(table.bob, table.channel, "anka action", camp="Tohsaka", action="rest")).reply
    assert "Tohsaka declares its action for turn 1: Rest" in declared.content
    elsewhere = (await harness.slash(table.bob, table.channel, "anka action", camp="Emiya", action="rest")).reply
    assert elsewhere.ephemeral
    await harness.slash(gm, table.channel, "anka kill", character="Shinji")
    status = (await harness.slash(table.mei, table.channel, "anka camps")).reply.content
    assert "Rider：从者，未参战，疲劳度 0，失去御主 0 回合" in status
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "Turn 1 ends" in ended
    assert ended.index("Rider has had no Master for 1 turn:") < ended.index("Saber: fatigue 2 → 1")
    assert "Archer: fatigue 3 → 1 (rest)" in ended
    # The masterless checks are decisions like any other: Rider survives at 95%, Hassan draws 00 and vanishes.
    await harness.slash(table.ken, table.channel, "anchor", number=await _anchor_for(table, 10))
    await harness.slash(table.bob, table.channel, "anchor", number=await _anchor_for(table, 0))
    seen = harness.seen_by(table.ken, table.channel)
    assert "Rider's vanish check: 10 against 95% to survive: survives" in seen
    assert "Hassan's vanish check: 00 against 95% to survive: vanishes" in seen and "Hassan vanishes for good." in seen
    assert "final processing" not in seen  # three camps are still in the war: Matou has Rider

    # R20: Rider takes Rin as its Master, with both players' consent; it leaves Matou for Tohsaka.
    asked = (await harness.slash(table.bob, table.channel, "anka contract", servant="Rider", master="Rin")).reply
    assert f"<@{table.mei.id}>: Rider and Rin would make a new contract" in asked.text()
    refused = await emulator.click(table.ken, harness.current(asked), "Agree")
    assert refused.reply is not None and refused.reply.ephemeral
    await emulator.click(table.mei, harness.current(asked), "Agree")
    assert "Rider is now Rin's Servant (camp: Tohsaka)" in harness.seen_by(table.bob, table.channel)
    # Rin's player plays Rider from now on: its sheet is his to read, its ways out his to choose.
    sheet = (await harness.slash(table.bob, table.channel, "character show", name="Rider")).reply.text()
    assert "Level" in sheet
    status = (await harness.slash(table.bob, table.channel, "anka camps")).reply.content
    assert "Rider: Servant, away, fatigue 0" in status and "Master for" not in status.split("Rider")[1].splitlines()[0]
    # R18's story use: a GM allows it, and one stroke goes.
    await harness.slash(table.bob, table.channel, "anka order", master="Rin", reason="Rider, obey me")
    await emulator.click(gm, harness.last(table.channel, gm), "Allow")
    assert "Rin spends a command seal: “Rider, obey me” (2 left)" in harness.seen_by(table.bob, table.channel)

    # Saber vanishes, but Emiya keeps Shirou, a living Master: it stays in the war (D17). Matou has no one left.
    await harness.slash(gm, table.channel, "anka vanish", character="Saber")
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "Turn 2 ends" in ended and "Rider: fatigue" not in ended  # Rider was at 0
    assert "Two camps remain (Emiya, Tohsaka): the final processing may begin" in ended
    status = (await harness.slash(table.bob, table.channel, "anka camps")).reply.content
    assert "**Matou**\n  out of the war\n" in status and "**Emiya**\n  out" not in status
    opened = (await harness.slash(gm, table.channel, "anka finale", extra_actions=1)).reply.content
    assert "each camp gets 1 extra action (Emiya, Tohsaka)" in opened
    # Out of time (R21): past `max_turns` nothing moves any more, the turns neither.
    await harness.slash(gm, table.channel, "campaign set", option="max_turns", value="3")
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "Turn 3 was the last: the war is out of time." in ended
    late = (await harness.slash(table.bob, table.channel, "anka action", camp="Tohsaka", action="rest")).reply
    assert late.ephemeral and "The war is over" in late.content
    again = (await harness.slash(gm, table.channel, "campaign turn")).reply
    assert again.ephemeral and "The war is over" in again.content
    assert "turn 5 begins" not in harness.seen_by(gm, table.channel)
    assert await _verify_all(table) >= 2


async def _japanese_table(table: Table, name: str) -> User:
    """The campaign speaks Japanese, and a second Japanese player sits at it."""
    emulator = table.harness.emulator
    player = emulator.add_user(name, locale="ja")
    emulator.add_member(table.guild, player)
    await table.harness.slash(table.gm, table.channel, "campaign language", language="ja")
    return player


async def _emiya_and_tohsaka(table: Table) -> User:
    """A Japanese table with two camps in formation: ken's 衛宮 (士郎, セイバー) and taro's 遠坂 (凛, アーチャー)."""
    harness, gm = table.harness, table.gm
    taro = await _japanese_table(table, "taro")
    for user, kind, data in (
        (table.ken, "master", _anka_file("士郎", 3)), (table.ken, "servant", _anka_file("セイバー", 12, master="士郎")),
        (taro, "master", _anka_file("凛", 4)), (taro, "servant", _anka_file("アーチャー", 11, master="凛")),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    await harness.slash(gm, table.channel, "anka camp", name="衛宮", members="士郎, セイバー")
    await harness.slash(gm, table.channel, "anka camp", name="遠坂", members="凛, アーチャー")
    await harness.slash(table.ken, table.channel, "anka formation", camp="衛宮", main="セイバー")
    await harness.slash(taro, table.channel, "anka formation", camp="遠坂", main="アーチャー")
    return taro


async def test_a_protagonists_death_ends_its_players_game(table: Table) -> None:
    """R21 at a Japanese table: 桜 was hanako's protagonist; her death ends hanako's game: every command and answer
    of her camp is refused in words and the camp is out of the war (marked so in /anka camps), while 士郎 keeps
    the war going. Ruled alive again, 桜 brings the camp back; then the GM begins the final processing at once
    (R22): the game stops."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    hanako = await _japanese_table(table, "hanako")
    for user, kind, data in (
        (hanako, "master", _anka_file("桜", 3)), (hanako, "servant", _anka_file("ライダー", 10, master="桜")),
        (table.ken, "master", _anka_file("士郎", 3)), (table.ken, "servant", _anka_file("セイバー", 12, master="士郎")),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    await harness.slash(gm, table.channel, "anka camp", name="間桐", members="桜, ライダー")
    await harness.slash(gm, table.channel, "anka camp", name="衛宮", members="士郎, セイバー")
    for name in ("桜", "士郎"):
        await harness.slash(gm, table.channel, "anka protagonist", character=name)
    await harness.slash(hanako, table.channel, "anka formation", camp="間桐", main="ライダー")
    await harness.slash(table.ken, table.channel, "anka formation", camp="衛宮", main="セイバー")
    # Her death waits for the end of her camp's battle (or its cancel): a battle of a camp out of the game would
    # wait on answers it may no longer give.
    await harness.slash(hanako, table.channel, "anka battle", first="間桐", second="衛宮")
    fighting = (await harness.slash(gm, table.channel, "anka kill", locale="ja", character="桜")).reply
    assert fighting.ephemeral and "間桐 は戦闘中です" in fighting.content
    await emulator.click(gm, await _prompt(table, gm, "取り消し（GM）"), "取り消し（GM）")
    battles = harness.seen_by(table.ken, table.channel).count("戦闘：")
    # Before 桜 dies, ken offers ライダー a contract with 士郎: hanako's consent is awaited.
    asked = (await harness.slash(table.ken, table.channel, "anka contract", servant="ライダー", master="士郎")).reply

    killed = (await harness.slash(gm, table.channel, "anka kill", character="桜")).reply.text()
    assert f"桜 は主人公でした：<@{hanako.id}> はゲームオーバー。" in killed
    assert "間桐 はゲームオーバーで脱落しました" in killed
    over = "間桐 はゲームオーバーです（主人公 桜 が死亡）"
    for command, options in (
        ("anka battle", {"first": "間桐", "second": "衛宮"}), ("anka action", {"camp": "間桐", "action": "rest"}),
        ("anka formation", {"camp": "間桐", "main": "ライダー"}),
    ):  # fmt: skip
        refused = (await harness.slash(hanako, table.channel, command, **options)).reply
        assert refused.ephemeral and over in refused.content, (command, refused.content)
    consent = await emulator.click(hanako, harness.current(asked), "同意する")
    assert consent.reply is not None and consent.reply.ephemeral and over in consent.reply.content
    attacked = (await harness.slash(table.ken, table.channel, "anka battle", first="衛宮", second="間桐")).reply
    assert attacked.ephemeral and over in attacked.content
    assert harness.seen_by(table.ken, table.channel).count("戦闘：") == battles  # no battle opened
    camps = (await harness.slash(table.ken, table.channel, "anka camps")).reply.content
    assert "ゲームオーバーで脱落（主人公 桜 が死亡）" in camps.split("**間桐**")[1].split("**衛宮**")[0]

    back = (await harness.slash(gm, table.channel, "anka kill", character="桜", on=False)).reply.text()
    assert "間桐 はゲームに復帰しました。" in back
    rested = (await harness.slash(hanako, table.channel, "anka action", camp="間桐", action="rest")).reply
    assert rested.ephemeral and "間桐 がターン 1 の行動を宣言" in rested.content
    begun = (await harness.slash(gm, table.channel, "anka finale")).reply.content
    assert "最終処理に移行します：ゲームの進行を停止しました" in begun and "間桐, 衛宮" in begun
    stopped = "最終処理中です：ゲームの進行は停止しています"
    for user, command, options in (
        (hanako, "anka action", {"camp": "間桐", "action": "rest"}), (gm, "campaign turn", {}),
        (table.ken, "anka battle", {"first": "衛宮", "second": "間桐"}), (gm, "anka finale", {}),
    ):  # fmt: skip
        refused = (await harness.slash(user, table.channel, command, locale="ja", **options)).reply
        assert refused.ephemeral and stopped in refused.content, (command, refused.content)


async def test_the_last_protagonists_death_waits_for_its_battle_and_is_undone(table: Table) -> None:
    """R21 with one protagonist, 士郎, who stays away from his camp's battle: his death waits for the battle's end
    as any protagonist's does (the war's end would leave the battle moving); recorded, it ends the whole war and
    marks his camp; ruled alive again, the war goes on."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    taro = await _emiya_and_tohsaka(table)
    await harness.slash(gm, table.channel, "anka protagonist", character="士郎")
    await harness.slash(taro, table.channel, "anka battle", first="遠坂", second="衛宮")
    fighting = (await harness.slash(gm, table.channel, "anka kill", locale="ja", character="士郎")).reply
    assert fighting.ephemeral and "衛宮 は戦闘中です" in fighting.content
    await emulator.click(gm, await _prompt(table, gm, "取り消し（GM）"), "取り消し（GM）")

    killed = (await harness.slash(gm, table.channel, "anka kill", character="士郎")).reply.text()
    assert "士郎 は最後の主人公でした：キャンペーン全体がゲームオーバー。" in killed
    camps = (await harness.slash(taro, table.channel, "anka camps")).reply.content
    assert "ゲームオーバーで脱落（主人公 士郎 が死亡）" in camps.split("**衛宮**")[1]
    over = (await harness.slash(taro, table.channel, "anka action", camp="遠坂", action="rest")).reply
    assert over.ephemeral and "戦争は終わりました" in over.content

    back = (await harness.slash(gm, table.channel, "anka kill", character="士郎", on=False)).reply.text()
    assert "衛宮 はゲームに復帰しました。" in back and "戦争を再開します" in back
    rested = (await harness.slash(taro, table.channel, "anka action", camp="遠坂", action="rest")).reply
    assert rested.ephemeral and "遠坂 がターン 1 の行動を宣言" in rested.content
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply
    assert not ended.ephemeral and "ターン 1 終了" in ended.text()


async def test_a_servant_takes_no_new_master_while_its_camp_fights(table: Table) -> None:
    """R20 beside a battle: 士郎 dies away from his camp's battle, leaving セイバー masterless as she fights; 遠坂's
    offer of 凛 as her Master waits for the battle's end (the camps stay as they fought); an offer still open
    keeps the two camps from a new battle until it is answered."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    taro = await _emiya_and_tohsaka(table)
    await harness.slash(taro, table.channel, "anka battle", first="遠坂", second="衛宮")
    await harness.slash(gm, table.channel, "anka kill", character="士郎")
    asked = (await harness.slash(taro, table.channel, "anka contract", servant="セイバー", master="凛")).reply
    assert asked.ephemeral and "衛宮 は戦闘中です：契約は戦闘の後で結んでください" in asked.content
    await emulator.click(gm, await _prompt(table, gm, "取り消し（GM）"), "取り消し（GM）")

    offer = (await harness.slash(taro, table.channel, "anka contract", servant="セイバー", master="凛")).reply
    fight = (await harness.slash(taro, table.channel, "anka battle", first="遠坂", second="衛宮")).reply
    assert fight.ephemeral and "遠坂 には回答待ちの契約の申し出があります" in fight.content
    await emulator.click(table.ken, harness.current(offer), "同意する")
    camps = (await harness.slash(taro, table.channel, "anka camps")).reply.content
    assert "セイバー：サーヴァント" in camps.split("**遠坂**")[1].split("**衛宮**")[0]


async def test_the_final_processing_begins_once_each_camp_took_its_extra_actions(table: Table) -> None:
    """R22 at a Japanese table: the GM grants two extra actions per camp; each camp's turn action counts one (once a
    turn), a battle it would start one more; the turns' ends count down instead of offering the finale, and the
    final processing begins at the end of the turn in which the last was taken: nothing moves any more but the
    GMs' checks, and it is not opened twice."""
    harness, gm = table.harness, table.gm
    taro = await _emiya_and_tohsaka(table)

    granted = (await harness.slash(gm, table.channel, "anka finale", extra_actions=2)).reply.content
    assert "各陣営に追加行動を 2 回ずつ認めます（衛宮, 遠坂）" in granted
    twice = (await harness.slash(gm, table.channel, "anka finale", locale="ja", extra_actions=1)).reply
    assert twice.ephemeral and "追加行動の猶予中です（残り：衛宮 2 回・遠坂 2 回）" in twice.content
    camps = (await harness.slash(taro, table.channel, "anka camps")).reply.content
    assert "最終処理前の追加行動：残り 2 回" in camps
    for user, camp, action, left in ((table.ken, "衛宮", "rest", 1), (table.ken, "衛宮", "other", 1),
                                     (taro, "遠坂", "other", 1)):  # fmt: skip
        declared = (await harness.slash(user, table.channel, "anka action", camp=camp, action=action)).reply
        assert f"最終処理前の追加行動：残り {left} 回。" in declared.content  # changing one's mind takes none
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "最終処理前の追加行動の残り：衛宮 1 回・遠坂 1 回" in ended and "最終処理に入れます" not in ended

    for user, camp in ((table.ken, "衛宮"), (taro, "遠坂")):
        declared = (await harness.slash(user, table.channel, "anka action", camp=camp, action="other")).reply
        assert "最終処理前の追加行動：残り 0 回。" in declared.content
    spent = (await harness.slash(taro, table.channel, "anka battle", first="遠坂", second="衛宮")).reply
    assert spent.ephemeral and "遠坂 は最終処理前の追加行動を使い切りました" in spent.content
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "追加行動が終わりました：ゲームの進行を停止し、最終処理に移行します。残り陣営：衛宮, 遠坂" in ended
    stopped = "最終処理中です"
    for user, command, options in (
        (taro, "anka battle", {"first": "遠坂", "second": "衛宮"}), (table.ken, "anka action",
                                                                     {"camp": "衛宮", "action": "rest"}),
        (gm, "campaign turn", {}), (gm, "anka finale", {}),
    ):  # fmt: skip
        refused = (await harness.slash(user, table.channel, command, locale="ja", **options)).reply
        assert refused.ephemeral and stopped in refused.content, (command, refused.content)
    check = (await harness.slash(gm, table.channel, "anka check", rate=50, purpose="聖杯の行方")).reply
    assert not check.ephemeral and "聖杯の行方" in check.text()  # the final processing's own checks go on


async def test_a_camp_back_in_the_war_during_the_extra_actions_has_as_many_as_the_others(table: Table) -> None:
    """R22 with R21: 遠坂 is out of the game when the GM grants one extra action per camp; 凛 ruled alive again, it
    takes one action and no more, as the camps that never left."""
    harness, gm = table.harness, table.gm
    taro = await _emiya_and_tohsaka(table)
    for name in ("士郎", "凛"):
        await harness.slash(gm, table.channel, "anka protagonist", character=name)
    await harness.slash(gm, table.channel, "anka kill", character="凛")
    granted = (await harness.slash(gm, table.channel, "anka finale", extra_actions=1)).reply.content
    assert "各陣営に追加行動を 1 回ずつ認めます（衛宮）" in granted

    await harness.slash(gm, table.channel, "anka kill", character="凛", on=False)
    declared = (await harness.slash(taro, table.channel, "anka action", camp="遠坂", action="other")).reply
    assert "最終処理前の追加行動：残り 0 回。" in declared.content
    spent = (await harness.slash(taro, table.channel, "anka battle", first="遠坂", second="衛宮")).reply
    assert spent.ephemeral and "遠坂 は最終処理前の追加行動を使い切りました" in spent.content


async def test_several_decisions_share_one_window_that_says_what_its_end_does(table: Table) -> None:
    """R2 at a Japanese table: a turn's end commits three masterless checks, one request: each prompt gives the
    same deadline, the lists of open waits name who gives the number, and once an anchor came the prompt says that
    the window's end shifts up; when it ends, the prompt says so and the rest take the last anchor."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="ja")
    await _create(table, table.ken, "master", _anka_file("士郎", 3))
    for name in ("ランサー", "キャスター", "アサシン"):
        await _create(table, table.ken, "servant", _anka_file(name, 9, master="士郎"))
    await harness.slash(gm, table.channel, "anka kill", character="士郎")
    await harness.slash(gm, table.channel, "campaign turn")

    def deadline(prompt: Message) -> int:
        return int(prompt.content.split("<t:")[1].split(":")[0])

    first = await _prompt(table, gm, "延長する")
    assert "受付時間が過ぎても、最初の有効な数字を採用します" in first.content
    closes = deadline(first)
    await emulator.settle(quiet_for=0.2)
    waiting = (await harness.slash(table.ken, table.channel, "campaign waiting")).reply.content
    assert "GM 以外の参加者の安価（1～100 の数字）を待っています" in waiting and "GMたち" not in waiting
    prompts = [first]
    for user, number in ((table.mei, 10), (table.bob, 20)):
        emulator.clock.advance(60)
        await harness.slash(user, table.channel, "anchor", number=number)
        prompts.append(await _prompt(table, gm, "延長する"))
        assert prompts[-1].id != prompts[-2].id
        assert abs(deadline(prompts[-1]) - closes) <= 2  # one window for the request, not one per anchor
        left = 3 - len(prompts) + 1
        assert f"残り {left} 件には最後に受け付けた安価を使います（上にずらします）" in prompts[-1].content
    emulator.clock.advance(600)
    await harness.eventually(lambda: "時間切れ" in harness.current(prompts[-1]).content)
    closed = harness.current(prompts[-1]).content
    assert "残り 1 件には最後に受け付けた安価を使います（上にずらします）" in closed
    assert "最初の有効な数字を採用します" not in closed
    read = [f"{name} の消滅判定：" for name in ("ランサー", "キャスター", "アサシン")]  # all three, the last shifted up
    await harness.eventually(lambda: all(line in harness.seen_by(table.ken, table.channel) for line in read))


async def test_every_term_of_a_win_rate_is_shown_passive_skills_too(table: Table) -> None:
    """T3 in /anka odds, read by a Japanese GM: Saber's passive 単独行動 (+2) and Berserker's 狂化 (+5) are two
    lines of their own beside the net skill term, and the title says that passive skills count."""
    harness = table.harness
    alone = {"name": "単独行動", "timing": "passive", "effect": {"win_rate_delta": 2}}
    madness = {"name": "狂化", "timing": "passive", "effect": {"win_rate_delta": 5}}
    for user, kind, data in (
        (table.ken, "master", MA), (table.ken, "servant", {**SABER, "skills": [alone]}),
        (table.mei, "master", MB1), (table.mei, "servant", {**BERSERKER, "skills": [madness]}),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    await harness.slash(table.gm, table.channel, "anka camp", name="Sakura Gate", members="Saber, Ma")
    await harness.slash(table.gm, table.channel, "anka camp", name="Emiya House", members="Berserker, Mb1")
    await harness.slash(table.ken, table.channel, "anka formation", camp="Sakura Gate", main="Saber", subs="Ma")
    await harness.slash(table.mei, table.channel, "anka formation", camp="Emiya House", main="Berserker", subs="Mb1")
    odds = (await harness.slash(table.gm, table.channel, "anka odds", locale="ja", first="Sakura Gate",
                                second="Emiya House", param1="np", param2="str", param3="mag")).reply  # fmt: skip
    shown = odds.text()
    assert "Sakura Gate と Emiya House が戦った場合（常時スキルのみ）" in shown and "スキル抜き" not in shown
    assert "スキル -3" in shown
    assert "スキル内訳：Saber（Sakura Gate）の 単独行動（常時）：勝率 +2%" in shown
    assert "スキル内訳：Berserker（Emiya House）の 狂化（常時）：勝率 +5%" in shown


def _deadline(prompt: Message) -> int:
    """The time a prompt's window closes, as its Discord timestamp gives it."""
    return int(prompt.content.split("<t:")[1].split(":")[0])


async def test_a_japanese_table_mentions_its_commands_and_shows_what_to_hash(table: Table) -> None:
    """Posts name commands as clickable mentions with the name a Japanese client lists them under; the GM's
    「延長する」 moves the deadline itself back; each reveal shows the exact text its commitment hashes, campaign id
    included; /odds speaks of win rates; a template's example names are the campaign's language's."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="ja")
    ids = {command["name"]: command["id"] for command in emulator.commands()}
    opened = (await harness.slash(gm, table.channel, "anka check", rate=50, purpose="教会を探す")).reply
    decision = opened.text().split("`")[1]
    prompt = await _prompt(table, gm, "延長する")
    assert f"</anchor:{ids['anchor']}>（/安価）でも出せます。" in prompt.content

    closes = _deadline(prompt)
    emulator.clock.advance(300)
    await emulator.click(gm, prompt, "延長する")
    extended = await _prompt(table, gm, "延長する")
    # Not 300 + 600 from the click; what is left of a window is counted in whole seconds, rounded up.
    assert extended.id != prompt.id and closes + 600 <= _deadline(extended) <= closes + 601
    assert "安価の締め切りを受付時間 1 回分延ばしました。" in harness.seen_by(table.ken, table.channel)

    await harness.slash(table.ken, table.channel, "anchor", number=(7 - await _secret(table, decision)) % 100 or 100)
    seen = harness.seen_by(table.ken, table.channel)
    assert "→ 下二桁 **07**" in seen
    hashed = seen.split("ハッシュ元 `")[1].split("`")[0]
    assert hashed.startswith("anka-v1|") and f"|{decision}|" in hashed
    async with harness.bot.database.read() as session:  # type: ignore[union-attr]
        stored = await session.scalar(select(Commitment).where(Commitment.key == decision))
    assert stored is not None and hashlib.sha256(hashed.encode()).hexdigest() == stored.digest

    await _create(table, table.ken, "master", _anka_file("凛", 4))
    checked = (await harness.slash(table.ken, table.channel, "check")).reply
    assert f"</anka check:{ids['anka']}>（/安価聖杯 判定）" in checked.content
    odds = (await harness.slash(table.ken, table.channel, "odds", attacker="凛", defender="凛", action="剣")).reply
    assert odds.ephemeral and "勝率" in odds.content and "命中率" not in odds.content
    assert f"</anka odds:{ids['anka']}>" in odds.content
    for reader, note in ((table.ken, "オプション「ランク表」"), (table.bob, "“Rank scale” option")):
        template = (await harness.slash(reader, table.channel, "character template", kind="servant")).reply
        text = template.attachments[0].data.decode()
        assert note in text and "name: アーチャー" in text and "master: 凛" in text and "千里眼" in text
        assert "Archer" not in text and "Clairvoyance" not in text


async def test_a_japanese_battle_at_a_camps_base_told_in_order(table: Table) -> None:
    """A battle at a Japanese table, at 間桐's base: the header says where it is and what 間桐 risks; members out of
    the formation are 非参戦; with `server_rng`, the d4 comes after the pick it follows; the skill that gives way
    names the Noble Phantasm that took priority; a post's lines are its body, with no 「補足」 heading; the win
    without a roll reads without nested brackets."""
    harness, emulator, gm = table.harness, table.harness.emulator, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="ja")
    await harness.slash(gm, table.channel, "campaign set", option="random_param_source", value="server_rng")
    sword = {"name": "約束された勝利の剣", "kind": "np", "timing": "main", "category": "光",
             "effect": {"win_rate_delta": 10}}  # fmt: skip
    might = {"name": "怪力", "timing": "main", "category": "光", "effect": {"win_rate_delta": 5}}
    for user, kind, data in (
        (table.ken, "master", _anka_file("士郎", 3)),
        (table.ken, "servant", {**_anka_file("セイバー", 12, master="士郎"), "params": params(*[90] * 6),
                                "skills": [sword]}),
        (table.mei, "master", _anka_file("慎二", 2)),
        (table.mei, "servant", {**_anka_file("ライダー", 10, master="慎二"), "params": params(*[10] * 6),
                                "skills": [might]}),
    ):  # fmt: skip
        await _create(table, user, kind, data)
    await harness.slash(gm, table.channel, "anka camp", name="衛宮", members="士郎, セイバー")
    await harness.slash(gm, table.channel, "anka camp", name="間桐", members="慎二, ライダー")
    await harness.slash(gm, table.channel, "anka base", camp="間桐", base="間桐邸")
    await harness.slash(table.ken, table.channel, "anka formation", camp="衛宮", main="セイバー")
    await harness.slash(table.mei, table.channel, "anka formation", camp="間桐", main="ライダー")
    camps = (await harness.slash(table.ken, table.channel, "anka camps")).reply.content
    assert "士郎：マスター、非参戦" in camps and "不参加" not in camps

    started = (await harness.slash(table.ken, table.channel, "anka battle", first="衛宮", second="間桐",
                                   at_base_of="間桐")).reply  # fmt: skip
    (embed,) = started.embeds
    assert embed["title"] == "戦闘：衛宮（先攻）対 間桐" and not embed.get("fields")  # its lines are its body
    assert "戦場は 間桐 の拠点「間桐邸」：間桐 が敗れて撤退すれば、拠点を失います。" in embed["description"]
    assert "補足" not in started.text()
    await emulator.click(table.ken, await _prompt(table, table.ken, "【筋】"), "【筋】")
    await emulator.click(table.mei, await _prompt(table, table.mei, "【耐】"), "【耐】")
    seen = harness.seen_by(table.ken, table.channel)
    picked, drawn = seen.index("間桐 は 【耐】 を選択。"), seen.index(": 1d4 [")
    assert picked < drawn < seen.index("3 つ目のパラメーター：")

    await _use(table, table.ken, "スキルを使う…", "セイバー：約束された勝利の剣（○宝具）")
    await _use(table, table.mei, "スキルを使う…", "ライダー：怪力（●通常技能）")  # her private list: in Chinese
    await harness.eventually(lambda: "判定なし" in harness.seen_by(table.ken, table.channel))
    seen = harness.seen_by(table.ken, table.channel)
    assert "ライダー の 怪力 は効果なし：同系統の セイバー の宝具 約束された勝利の剣 が優先されます。" in seen
    assert "衛宮 が 間桐 に勝利（戦闘結果表により判定なし）" in seen and "（判定なし（" not in seen
