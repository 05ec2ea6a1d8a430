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
    assert board.data.startswith(b"\x89PNG") and board.description is not None and "60%" in board.description
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
    assert "Sakura Gate: 2 advantage(s), 1 disadvantage(s): 70%; total strength -13, level -3, fatigue +6" in seen
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
    assert "Saber retreats (1 command seal(s)): fatigue 5." in seen
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
    await harness.eventually(lambda: "the bot drew 1 anchor(s)" in harness.seen_by(table.ken, table.channel))
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
    assert ended.index("Rider has had no Master for 1 turn(s)") < ended.index("Saber: fatigue 2 → 1")
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
    assert "Rider: Servant, away, fatigue 0" in status and "turn(s)" not in status.split("Rider")[1].splitlines()[0]
    # R18's story use: a GM allows it, and one stroke goes.
    await harness.slash(table.bob, table.channel, "anka order", master="Rin", reason="Rider, obey me")
    await emulator.click(gm, harness.last(table.channel, gm), "Allow")
    assert "Rin spends a command seal: “Rider, obey me” (2 left)" in harness.seen_by(table.bob, table.channel)

    # Saber vanishes, but Emiya keeps Shirou, a living Master: it stays in the war (D17). Matou has no one left.
    await harness.slash(gm, table.channel, "anka vanish", character="Saber")
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "Turn 2 ends" in ended and "Rider: fatigue" not in ended  # Rider was at 0
    assert "Two camps remain (Emiya, Tohsaka): the final processing may begin" in ended
    opened = (await harness.slash(gm, table.channel, "anka finale", extra_actions=1)).reply.content
    assert "after 1 extra action(s)" in opened and "Emiya, Tohsaka" in opened
    # Out of time (R21): past `max_turns` nothing moves any more.
    await harness.slash(gm, table.channel, "campaign set", option="max_turns", value="3")
    ended = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "Turn 3 was the last: the war is out of time." in ended
    late = (await harness.slash(table.bob, table.channel, "anka action", camp="Tohsaka", action="rest")).reply
    assert late.ephemeral and "The war is over" in late.content
    again = (await harness.slash(gm, table.channel, "campaign turn")).reply.text()
    assert "The war is over: it ran out of time." in again
    assert await _verify_all(table) >= 2
