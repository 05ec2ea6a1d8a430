"""Fate/Points through the emulator: characters from templates, an attack answered later by button.

Each test plays in a channel and campaign of its own, so the tests pass in any order and one at a time.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from bot.db.models import Event, WaitRow
from bot.emulator.models import EVERYONE, Channel, Guild, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness
from tests.e2e.statements import statements_run


@dataclass(frozen=True)
class War:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    bob: User
    mei: User
    ken: User


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[War]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("fate")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm = emulator.add_user("kirei")
        bob = emulator.add_user("bob")
        mei = emulator.add_user("mei", locale="zh-CN")
        ken = emulator.add_user("ken", locale="ja")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei, ken):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield War(harness, guild, emulator.add_channel(guild, "lobby"), gm, bob, mei, ken)


@pytest.fixture
async def war(server: War) -> War:
    """A new campaign in a channel of its own."""
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset="fate_points", name="Fifth War")
    return replace(server, channel=channel)


async def _pairs(war: War) -> None:
    """bob's Rin and Archer, mei's Sakura and Rider; each player acts with the Servant."""
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _enlist(war, war.mei, "Sakura", "Rider", "Rider")


async def _award_fate_points(war: War, name: str, amount: int) -> None:
    await war.harness.slash(war.gm, war.channel, "gm award", character=name, resource="fate_points", amount=amount)


async def _template(war: War, user: User, kind: str) -> dict[str, Any]:
    reply = (await war.harness.slash(user, war.channel, "character template", kind=kind)).reply
    assert reply.ephemeral
    data: dict[str, Any] = yaml.safe_load(reply.attachments[0].data)
    assert data["kind"] == kind
    return data


async def _import(war: War, user: User, data: dict[str, Any]) -> Message:
    text = yaml.safe_dump(data, allow_unicode=True)
    return (await war.harness.slash(user, war.channel, "character import", file=("sheet.yaml", text.encode()))).reply


async def _enlist(war: War, user: User, master: str, servant: str, servant_class: str) -> None:
    master_data = await _template(war, user, "master")
    master_data["name"] = master
    created = await _import(war, user, master_data)
    assert created.visible_to is EVERYONE, created.content
    await war.harness.approve_sheet(war.gm, war.channel, master)  # the template's magecraft sets GM values
    servant_data = await _template(war, user, "servant")
    servant_data.update(name=servant, master=master, servant_class=servant_class)
    created = await _import(war, user, servant_data)
    assert created.visible_to is EVERYONE, created.content
    await war.harness.approve_sheet(war.gm, war.channel, servant)
    await war.harness.slash(user, war.channel, "character use", name=servant)


async def test_a_refused_import_names_each_bad_field(war: War) -> None:
    data = await _template(war, war.bob, "master")
    data.update(name="Shinji", STR=9, hp=30, colour="red")
    reply = await _import(war, war.bob, data)
    assert reply.ephemeral
    for field in ("`STR`", "`hp`", "`colour`"):
        assert field in reply.content, reply.content
    roster = (await war.harness.slash(war.gm, war.channel, "character list")).reply
    assert "Shinji" not in roster.text()


async def test_stats_may_be_written_as_rank_letters(war: War) -> None:
    data = await _template(war, war.bob, "master")
    data.update(name="Waver", STR="e", END="D", AGI="C", MAG="A", LUK=4)
    created = await _import(war, war.bob, data)
    assert created.visible_to is EVERYONE, created.content
    sheet = (await war.harness.slash(war.bob, war.channel, "character show", name="Waver")).reply.text()
    assert "STR E (1) · END D (2) · AGI C (3) · MAG A (5) · LUK B (4)" in sheet
    data.update(name="Kayneth", STR="EX")
    refused = await _import(war, war.bob, data)
    assert refused.ephemeral
    assert "`STR`: EX is not a rank this stat can have" in refused.content


async def _hp(war: War, viewer: User, character: str) -> tuple[int, int]:
    sheet = (await war.harness.slash(viewer, war.channel, "character show", name=character)).reply
    pools = next(field["value"] for field in sheet.embeds[0]["fields"] if field["value"].startswith("HP "))
    current, maximum = pools.split(" · ")[0].removeprefix("HP ").split("/")
    return int(current), int(maximum)


async def test_characters_from_templates_attack_and_answer_later(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _enlist(war, war.mei, "Sakura", "Rider", "Rider")
    sheet = (await harness.slash(war.mei, war.channel, "character show", name="Rider")).reply
    assert sheet.embeds[0]["title"] == "Rider (Servant)"  # posted for all: the campaign's language
    hp_before, hp_max = await _hp(war, war.bob, "Rider")

    actions = await harness.emulator.autocomplete(
        war.bob, war.channel, "attack", {"target": "Rider", "action": ""}, "action"
    )
    assert "melee|Invisible Air" in [choice["value"] for choice in actions]
    # Archer (STR C=3, class melee 0) with a sword: natural 12 -> 12 - 3 = 9, paying 3 prana (rank C).
    harness.dice.queue([12])
    declared = (await harness.slash(war.bob, war.channel, "attack", target="Rider", action="melee|Invisible Air")).reply
    assert declared.visible_to is EVERYONE
    assert declared.embeds[0]["description"] == "attack: 1d20 [12] -3 (STR) = **9**"
    prompt = harness.last(war.channel, war.mei)
    assert war.mei.id in prompt.notified
    assert prompt.notified == frozenset({war.mei.id})
    assert prompt.buttons() == ["Block", "Dodge", "Parry", "Take the hit", "Cancel (GM)"]

    refused = await harness.emulator.click(war.ken, prompt, "Dodge")
    assert refused.reply.ephemeral
    assert refused.reply.content == "この攻撃に対応できるのは、防御側のプレイヤーかGMだけです。"

    await harness.restart()
    harness.emulator.clock.advance(16 * 60)
    # Rider dodges (AGI B=4, unarmed -3): natural 20 -> 13, not below 9: hit for 4 (sword) + 3 (STR) - 2 (END D).
    harness.dice.queue([20])
    answered = await harness.emulator.click(war.mei, prompt, "Dodge")
    assert answered.error is None
    result = answered.replies[-1]
    assert result.visible_to is EVERYONE
    assert result.embeds[0]["title"] == "Rider is hit by Archer: 5 damage"
    assert harness.current(prompt).buttons() == []
    assert await _hp(war, war.bob, "Rider") == (hp_before - 5, hp_max)
    log = (await harness.slash(war.gm, war.channel, "log show")).reply
    assert "Rider answered Archer's attack: Dodge **15**; hit for 5 damage to HP" in log.text()


# What a check, an attack and its answer cost the database, statements of their transactions and of posting their
# prompts (the scene read once, its changes, events and next wait written once). PostgreSQL reads what the campaign
# joins (the acting member, the wait answered) in a statement of its own once it is locked (`lock_holds_joined_rows`).
MOST_STATEMENTS = {"check": 3, "attack": 10, "answer": 7}
READ_AFTER_THE_LOCK = {"sqlite": 0, "postgresql": 1}


async def test_a_check_an_attack_and_its_answer_each_run_a_bounded_number_of_statements(war: War) -> None:
    await _pairs(war)
    harness = war.harness
    assert harness.bot is not None
    with statements_run(harness.bot.database) as check:
        checked = await harness.slash(war.bob, war.channel, "check", stat="STR")
    assert not checked.reply.ephemeral, checked.reply.content
    after_the_lock = READ_AFTER_THE_LOCK[harness.bot.database.engine.dialect.name]
    assert len(check) <= MOST_STATEMENTS["check"] + after_the_lock, "\n".join(check)
    harness.dice.queue([12, 20])
    with statements_run(harness.bot.database) as attack:
        await harness.slash(war.bob, war.channel, "attack", target="Rider", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.mei)
    with statements_run(harness.bot.database) as answer:
        answered = await harness.emulator.click(war.mei, prompt, "Dodge")
    assert answered.replies[-1].embeds[0]["title"] == "Rider is hit by Archer: 5 damage"
    assert len(attack) <= MOST_STATEMENTS["attack"] + after_the_lock, "\n".join(attack)
    assert len(answer) <= MOST_STATEMENTS["answer"] + after_the_lock, "\n".join(answer)


async def _mei_attacks(war: War, target: str, face: int) -> Message:
    """The two pairs; mei's Rider attacks bob's `target`, rolling `face`: bob's defence prompt."""
    await _pairs(war)
    war.harness.dice.queue([face])
    await war.harness.slash(war.mei, war.channel, "attack", target=target, action="melee|Invisible Air")
    return war.harness.last(war.channel, war.bob)


async def test_a_defender_with_several_weapons_chooses_the_one_it_blocks_with(war: War) -> None:
    harness = war.harness
    prompt = await _mei_attacks(war, "Rin", 18)
    await harness.emulator.click(war.bob, prompt, "Block")
    question = harness.last(war.channel, war.bob)
    assert question.content.endswith("Rin: Block with which weapon?")
    assert question.buttons()[:3] == ["The best weapon by the rules", "Gandr (magic)", "Azoth Dagger (dagger)"]
    harness.dice.queue([5])
    answered = await harness.emulator.click(war.bob, question, "Azoth Dagger (dagger)")
    assert answered.error is None
    assert "Block with which weapon?" not in harness.current(question).content  # the question is closed
    exported = (await harness.slash(war.gm, war.channel, "log export", format="json")).reply
    resolved = [e for e in json.loads(exported.attachments[0].data)["events"] if e["kind"] == "attack.resolved"]
    # Without the choice Rin would have blocked with the first weapon on her sheet, the magic Gandr.
    assert resolved[-1]["payload"]["result"]["weapon"] == "dagger"


async def test_a_weapons_type_reads_in_the_readers_words(war: War) -> None:
    harness = war.harness
    await harness.slash(war.gm, war.channel, "campaign language", language="zh-CN")
    await _enlist(war, war.mei, "Sakura", "Rider", "Rider")
    sheet = (await harness.slash(war.mei, war.channel, "character show", name="Sakura")).reply.text()
    assert "甘德咒（魔术）、阿佐特剑（短剑）" in sheet and "dagger" not in sheet, sheet
    await harness.slash(war.mei, war.channel, "character use", name="Sakura")
    offered = await harness.emulator.autocomplete(war.mei, war.channel, "attack", {"target": "Rider", "action": ""},
                                                  "action")  # fmt: skip
    assert {"name": "近战 · 阿佐特剑（短剑）", "value": "melee|阿佐特剑"} in offered, offered


async def test_parry_asks_for_the_stat_privately(war: War) -> None:
    harness = war.harness
    prompt = await _mei_attacks(war, "Archer", 12)
    assert prompt.buttons() == ["Block", "Dodge", "Parry", "Take the hit", "Cancel (GM)"]
    question = (await harness.emulator.click(war.bob, prompt, "Parry")).reply
    assert question.ephemeral
    assert question.buttons() == ["Parry (AGI)", "Parry (LUK)"]
    harness.dice.queue([1])
    answered = await harness.emulator.click(war.bob, question, "Parry (LUK)")
    assert "avoids the attack" in answered.replies[-1].embeds[0]["title"]
    assert harness.current(prompt).buttons() == []


async def test_a_double_click_resolves_once_and_the_gm_can_cancel(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    await _enlist(war, war.ken, "Kiritsugu", "Assassin", "Assassin")
    harness.dice.queue([15, 10])
    await harness.slash(war.ken, war.channel, "attack", target="Archer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.bob)
    first, second = await asyncio.gather(
        harness.emulator.click(war.bob, prompt, "Dodge"), harness.emulator.click(war.bob, prompt, "Dodge")
    )
    texts = [first.replies[-1].text(), second.replies[-1].text()]
    assert sum(text == "That attack has already been answered." for text in texts) == 1
    export = (await harness.slash(war.gm, war.channel, "log export", format="json")).reply
    resolved = [
        event for event in json.loads(export.attachments[0].data)["events"] if event["kind"] == "attack.resolved"
    ]
    # This campaign's only attack on Archer, answered by two clicks at once: resolved once.
    assert len([event for event in resolved if event["payload"]["defender"] == "Archer"]) == 1

    again = (await harness.slash(war.ken, war.channel, "attack", target="Archer", action="melee|Invisible Air")).reply
    assert again.ephemeral
    assert again.content == "このラウンドに宣言した 1 回の攻撃はすべて使いました。"
    next_round = (await harness.slash(war.gm, war.channel, "combat round")).reply
    assert next_round.embeds[0]["title"] == "Round 2"
    harness.dice.queue([15])
    await harness.slash(war.ken, war.channel, "attack", target="Archer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.gm)
    await harness.emulator.click(war.gm, prompt, "Cancel (GM)")
    assert harness.current(prompt).content == f"The attack was cancelled by {war.gm.mention}."
    assert harness.current(prompt).buttons() == []


async def test_gm_award_and_refusal(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    reply = (
        await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="fate_points", amount=2,
                            reason="good roleplay")
    ).reply  # fmt: skip
    assert reply.content == "Rin: Fate/Points +2 (now 2).\nReason: good roleplay"
    refused = (
        await harness.slash(war.bob, war.channel, "gm award", character="Rin", resource="fate_points", amount=5)
    ).reply
    assert refused.ephemeral
    assert refused.content == "Only a GM of this campaign can do that."
    too_many = (
        await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="fate_points", amount=-5)
    ).reply
    assert too_many.ephemeral
    assert "below zero" in too_many.content


async def test_an_award_past_a_limit_says_what_really_changed(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    current, maximum = await _hp(war, war.gm, "Rin")
    assert current == maximum
    hurt = (await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="hp", amount=-3)).reply
    assert hurt.content == f"Rin: HP -3 (now {maximum - 3}/{maximum})."
    healed = (await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="hp", amount=1000)).reply
    assert healed.content == f"Rin: HP +1000 asked, +3 applied: it stops at its limit (now {maximum}/{maximum})."
    log = (await harness.slash(war.gm, war.channel, "log export", format="json")).reply
    awards = [
        event["payload"] for event in json.loads(log.attachments[0].data)["events"] if event["kind"] == "gm.award"
    ]
    assert [(award["amount"], award["applied"]) for award in awards] == [(-3, -3), (1000, 3)]


async def test_a_check_names_its_stat_and_takes_it_in_any_case(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    harness.dice.queue([7])
    checked = (await harness.slash(war.bob, war.channel, "check", stat="agi")).reply
    assert checked.visible_to is EVERYONE
    assert checked.embeds[0]["title"].startswith("Archer checks AGI")
    assert "(AGI)" in checked.embeds[0]["description"]
    assert "()" not in checked.embeds[0]["description"]


async def test_a_players_check_modifier_waits_for_a_gm_and_a_gms_own_applies_at_once(war: War) -> None:
    harness, gm, bob = war.harness, war.gm, war.bob
    await _enlist(war, bob, "Rin", "Archer", "Archer")
    # A modifier is one "the GM may have approved": a player's is asked of the GMs, and nothing is rolled before.
    asked = (await harness.slash(bob, war.channel, "check", stat="agi", modifier=-5)).reply
    assert asked.buttons() == ["Grant", "Refuse"] and not asked.embeds
    assert "Archer asks, for the AGI" in asked.content and "check: modifier -5. Grant it?" in asked.content
    assert "Answers close" not in asked.content  # no deadline: it waits for a GM
    harness.dice.queue([7])
    granted = (await harness.emulator.click(gm, asked, "Grant")).replies[-1]
    assert granted.embeds[0]["title"].startswith("Archer checks AGI")
    assert "-5 (GM)" in granted.text() and "A GM granted what Archer asked for." in granted.text()
    log = (await harness.slash(gm, war.channel, "log show")).reply.text()
    assert f"{bob.mention} asked the GMs for Archer, for the AGI" in log and "check: modifier -5" in log
    assert f"{gm.mention} granted what Archer asked for: modifier -5" in log
    # The GM's own check, with a character the GMs run, asks no one.
    await _import_npc(war, "master", name="Kayneth")
    await harness.slash(gm, war.channel, "character use", name="Kayneth")
    harness.dice.queue([7])
    own = (await harness.slash(gm, war.channel, "check", stat="agi", modifier=5)).reply
    assert not own.buttons() and own.embeds[0]["title"] == "Kayneth checks AGI: 9"  # 7 - AGI 3 + 5


async def test_a_gm_can_force_a_defence(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    await harness.slash(war.gm, war.channel, "combat round")
    harness.dice.queue([12, 3])
    await harness.slash(war.mei, war.channel, "attack", target="Archer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.gm)
    forced = await harness.emulator.click(war.gm, prompt, "Block")
    assert "A GM chose this defence." in forced.replies[-1].text()


async def test_fate_points_lift_null_damage_with_gm_approval(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    await _award_fate_points(war, "Rin", 2)
    await harness.slash(war.gm, war.channel, "combat round")
    await harness.slash(war.bob, war.channel, "character use", name="Rin")
    # Rin (STR 2, dagger) hits Rider: a Master's attack cannot harm a Servant.
    harness.dice.queue([2])
    await harness.slash(war.bob, war.channel, "attack", target="Rider", action="melee|Azoth Dagger")
    prompt = harness.last(war.channel, war.mei)
    taken = (await harness.emulator.click(war.mei, prompt, "Take the hit")).replies[-1]
    assert "0 damage" in taken.embeds[0]["title"]
    assert "A Master's attack cannot harm a Servant." in taken.text()

    request = (await harness.slash(war.bob, war.channel, "fate spend", use="roll_vs_servant")).reply
    assert request.visible_to is EVERYONE
    assert request.buttons() == ["Approve", "Deny"]
    refused = await harness.emulator.click(war.bob, request, "Approve")
    assert refused.reply.content == "Only a GM of this campaign can do that."
    await harness.emulator.click(war.gm, request, "Approve")
    assert "approved" in harness.current(request).content
    roster = (await harness.slash(war.gm, war.channel, "character list")).reply
    assert "Fate/Points 1" in roster.text()

    await harness.slash(war.gm, war.channel, "combat round")
    harness.dice.queue([2])
    await harness.slash(war.bob, war.channel, "attack", target="Rider", action="melee|Azoth Dagger")
    prompt = harness.last(war.channel, war.mei)
    hit = (await harness.emulator.click(war.mei, prompt, "Take the hit")).replies[-1]
    # 3 (dagger) + 2 (STR) - 2 (Rider END D) = 3
    assert hit.embeds[0]["title"] == "Rider is hit by Rin: 3 damage"


async def test_a_servant_hits_a_lone_master_at_once_for_ten_times_the_base(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    await harness.slash(war.gm, war.channel, "combat round")
    absent = (await harness.slash(war.gm, war.channel, "fate presence", master="Rin", present=False)).reply
    assert "hit automatically" in absent.content
    harness.dice.queue([10])
    declared = (await harness.slash(war.mei, war.channel, "attack", target="Rin", action="melee|Invisible Air")).reply
    # Rider (STR D=2) with a sword on Rin (END 3): 4 x 10 + 2 - 3 = 39, more than any Master's HP.
    assert "Rin is hit by Rider: 39 damage" in declared.text()
    assert "Rin is down." in declared.text()
    assert harness.last(war.channel, war.bob).id == declared.id


async def test_odds_are_exact_for_each_defence(war: War) -> None:
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _enlist(war, war.ken, "Kiritsugu", "Assassin", "Assassin")
    reply = (
        await war.harness.slash(war.ken, war.channel, "odds", attacker="Assassin", defender="Archer",
                                action="melee|Invisible Air")
    ).reply  # fmt: skip
    assert reply.ephemeral
    lines = reply.embeds[0]["description"].splitlines()
    assert [line.split("：")[0] for line in lines] == ["ブロック", "回避", "受け流し（敏捷）", "受け流し（幸運）"]
    for line in lines:
        percent, fraction = line.split("**")[1].rstrip("%"), line.split("（")[-1].rstrip("）")
        numerator, denominator = (int(part) for part in fraction.split("/"))
        assert abs(float(percent) - 100 * numerator / denominator) <= 0.05 + 1e-9  # one decimal


async def test_the_form_path_creates_the_same_character(war: War) -> None:
    harness = war.harness
    form = await harness.slash(war.ken, war.channel, "character create", kind="master")
    assert form.modal is not None
    template = yaml.safe_load(form.modal["components"][0]["components"][0]["value"])
    template["name"] = "Illya"
    created = await harness.emulator.submit_modal(
        war.ken, form, {"キャラクターシート（YAML）": yaml.safe_dump(template)}
    )
    assert created.reply.visible_to is EVERYONE
    assert "Illya" in created.reply.embeds[0]["title"]
    assert "HP: 2d10 [" in created.reply.embeds[0]["description"]
    deleted = (await harness.slash(war.bob, war.channel, "character delete", name="Illya")).reply
    assert deleted.ephemeral
    assert deleted.content == "Illya is not your character."
    removed = (await harness.slash(war.ken, war.channel, "character delete", name="Illya")).reply
    assert removed.visible_to is EVERYONE
    roster = (await harness.slash(war.gm, war.channel, "character list")).reply
    assert "Illya" not in roster.text()


async def test_a_json_file_is_accepted_too(war: War) -> None:
    data = await _template(war, war.ken, "master")
    data["name"] = "Kariya"
    reply = (
        await war.harness.slash(
            war.ken, war.channel, "character import", file=("kariya.json", json.dumps(data).encode())
        )
    ).reply
    assert reply.visible_to is EVERYONE
    assert reply.embeds[0]["title"] == "Kariya joins the campaign (Master)"


async def _rin_with_fate_points(war: War, points: int) -> None:
    """bob plays Rin (and her Archer), who holds this many Fate/Points."""
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _award_fate_points(war, "Rin", points)
    await war.harness.slash(war.bob, war.channel, "character use", name="Rin")


async def test_a_boost_lasts_one_check_and_points_do_not_stack(war: War) -> None:
    harness = war.harness
    await _rin_with_fate_points(war, 2)
    request = (await harness.slash(war.bob, war.channel, "fate spend", use="boost_stat", stat="AGI")).reply
    await harness.emulator.click(war.gm, request, "Approve")
    second = (await harness.slash(war.bob, war.channel, "fate spend", use="roll_vs_servant")).reply
    assert second.ephemeral
    assert second.content == "Rin already has a Fate/Point effect waiting: use it first."
    # Rin's AGI 3 rises to a Servant's A (5) for one check: 10 - 5 = 5, then 10 - 3 = 7.
    harness.dice.queue([10, 10])
    boosted = (await harness.slash(war.bob, war.channel, "check", stat="AGI")).reply
    assert boosted.embeds[0]["title"] == "Rin checks AGI: 5"
    plain = (await harness.slash(war.bob, war.channel, "check", stat="AGI")).reply
    assert plain.embeds[0]["title"] == "Rin checks AGI: 7"


async def test_a_fate_point_request_reads_as_a_sentence_and_takes_a_stat_only_to_boost(war: War) -> None:
    harness = war.harness
    await _rin_with_fate_points(war, 2)
    refused = (await harness.slash(war.bob, war.channel, "fate spend", use="roll_vs_servant", stat="STR")).reply
    assert refused.ephemeral
    assert refused.content == "A Fate/Point spent this way takes no stat: leave `stat` out."
    boost = (await harness.slash(war.bob, war.channel, "fate spend", use="boost_stat", stat="MAG")).reply
    assert (
        boost.content == f"{war.bob.mention} asks to spend a Fate/Point of Rin: Boost MAG to a Servant's. A GM decides."
    )
    await harness.emulator.click(war.gm, boost, "Deny")
    assert harness.current(boost).content.endswith("denied the Fate/Point of Rin (Boost MAG to a Servant's).")
    request = (await harness.slash(war.bob, war.channel, "fate spend", use="roll_vs_servant")).reply
    assert request.content.endswith("Fate/Point of Rin: Roll against a Servant. A GM decides.")
    await harness.emulator.click(war.gm, request, "Approve")
    assert harness.current(request).content.endswith(
        "approved: Rin spends a Fate/Point (Roll against a Servant). It applies to their next roll."
    )


async def test_player_facing_text_never_shows_internal_names(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    lacking = (
        await harness.slash(war.gm, war.channel, "gm award", character="Archer", resource="fate_points", amount=1)
    ).reply
    assert lacking.content == "Archer has no Fate/Points to change."
    unknown = (
        await harness.slash(war.gm, war.channel, "gm award", character="Archer", resource="mood", amount=1)
    ).reply
    assert unknown.content == "Archer has no `mood` to change."
    no_such = (
        await harness.slash(war.gm, war.channel, "fate np-rule", servant="Rider", phantasm="Nope", defences="none")
    ).reply
    assert no_such.ephemeral
    assert no_such.content == "Rider has no Noble Phantasm called Nope."
    removed = (await harness.slash(war.gm, war.channel, "fate god-hand", character="Rider", rank="none")).reply
    assert removed.content == "Rider no longer has a minimum NP rank: every Noble Phantasm affects them."
    await harness.slash(war.bob, war.channel, "fate passive", enabled=False)
    harness.dice.queue([15])
    await harness.slash(war.bob, war.channel, "attack", target="Rider", action="melee|Invisible Air")
    log = (await harness.slash(war.gm, war.channel, "log show")).reply.text()
    assert "removed Rider's minimum NP rank" in log
    assert "Archer no longer replenishes prana as hours pass" in log
    assert "Archer attacks Rider (melee with Invisible Air)" in log
    for internal in ("None", "False", "True", "melee|", "fate_points"):
        assert internal not in log, internal


async def test_an_award_that_empties_a_servant_kills_it(war: War) -> None:
    await _enlist(war, war.ken, "Kiritsugu", "Assassin", "Assassin")
    reply = (
        await war.harness.slash(war.gm, war.channel, "gm award", character="Assassin", resource="hp", amount=-999)
    ).reply
    assert reply.content.endswith("Assassin has died and disappears.")


async def test_nothing_a_fallen_character_does_is_accepted(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.ken, "Kiritsugu", "Assassin", "Assassin")
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await harness.slash(war.gm, war.channel, "gm award", character="Assassin", resource="hp", amount=-999)
    for command, options in (
        ("fate activate", {"name": "Excalibur"}),
        ("check", {"stat": "STR"}),
        ("attack", {"target": "Archer", "action": "melee|Invisible Air"}),
        ("fate passive", {"enabled": False}),
    ):
        refused = (await harness.slash(war.ken, war.channel, command, **options)).reply
        assert refused.ephemeral, command
        assert refused.content == "Assassin は消滅しており、参加できません。", command
    await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="hp", amount=-999)
    await harness.slash(war.bob, war.channel, "character use", name="Rin")
    down = (await harness.slash(war.bob, war.channel, "fate transfer", amount=1)).reply
    assert down.content == "Rin is down and cannot take part."
    log = (await harness.slash(war.gm, war.channel, "log show")).reply.text()
    assert log.count("Assassin died") == 1
    assert log.count("Rin went down") == 1
    # A GM's ruling still reaches a fallen character: a rest for the Master who is down.
    rested = (await harness.slash(war.gm, war.channel, "fate rest", master="Rin")).reply
    assert rested.visible_to is EVERYONE, rested.content


async def test_a_gm_finds_and_cancels_a_waiting_attack_privately(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    nothing = (await harness.slash(war.gm, war.channel, "gm pending")).reply
    assert nothing.content == "Nothing is waiting for an answer."
    await harness.slash(war.gm, war.channel, "combat round")
    harness.dice.queue([11])
    await harness.slash(war.mei, war.channel, "attack", target="Archer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.bob)
    listed = await harness.slash(war.gm, war.channel, "gm pending")
    assert listed.replies[0].content == "Waiting for an answer (oldest first): 1."
    copy = listed.replies[1]
    assert copy.ephemeral
    assert copy.buttons()[-1] == "Cancel (GM)"
    await harness.emulator.click(war.gm, copy, "Cancel (GM)")
    assert harness.current(prompt).buttons() == []
    assert harness.current(prompt).content == f"The attack was cancelled by {war.gm.mention}."
    refused = (await harness.slash(war.bob, war.channel, "gm pending")).reply
    assert refused.content == "Only a GM of this campaign can do that."


async def _import_npc(war: War, kind: str, **fields: Any) -> Message:
    data = await _template(war, war.gm, kind)
    data.update(fields)
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    return (await war.harness.slash(war.gm, war.channel, "character import", file=("npc.yaml", text), npc=True)).reply


async def test_the_gms_run_an_npc_whose_sheet_stays_hidden_and_who_answers_by_itself(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    announced = await _import_npc(war, "master", name="Kayneth")
    assert announced.visible_to is EVERYONE
    assert announced.content == "A character run by the GMs joins the campaign: Kayneth (Master)."
    await _import_npc(war, "servant", name="Lancer", master="Kayneth", servant_class="Lancer")
    data = await _template(war, war.bob, "master")
    data["name"] = "Sneaky"
    text = yaml.safe_dump(data).encode()
    refused = (await harness.slash(war.bob, war.channel, "character import", file=("s.yaml", text), npc=True)).reply
    assert refused.content == "Only a GM of this campaign can do that."

    seen = (await harness.slash(war.bob, war.channel, "character show", name="Lancer")).reply
    assert seen.embeds[0]["description"] == "Run by the GMs"
    assert seen.embeds[0].get("fields", []) == []
    roster = (await harness.slash(war.bob, war.channel, "character list")).reply.text()
    assert "**Lancer** (Servant, Run by the GMs): hidden" in roster
    gm_view = (await harness.slash(war.gm, war.channel, "character show", name="Lancer")).reply
    assert gm_view.ephemeral
    assert any(field["name"] == "Pools" for field in gm_view.embeds[0]["fields"])

    harness.dice.queue([12])
    await harness.slash(war.bob, war.channel, "attack", target="Lancer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.gm)
    assert prompt.content.startswith("GMs, Archer attacks Lancer.")
    assert prompt.notified == frozenset()
    # The defences an NPC has would tell its sheet: the GM picks among them privately.
    assert prompt.buttons() == ["Answer (GM)", "Cancel (GM)"]
    not_bobs = await harness.emulator.click(war.bob, prompt, "Answer (GM)")
    assert not_bobs.reply.content == "Only a GM of this campaign can do that."
    choices = (await harness.emulator.click(war.gm, prompt, "Answer (GM)")).reply
    assert choices.ephemeral and "Dodge" in choices.buttons()
    harness.dice.queue([20])
    answered = await harness.emulator.click(war.gm, choices, "Dodge")
    assert harness.current(prompt).content == "The GMs answered for Lancer."
    assert "A GM chose this defence." not in answered.replies[-1].text()  # the GMs answer for their own
    posted = "\n".join(reply.text() for reply in answered.replies)
    assert "(hidden sheet)" in posted and "(AGI)" not in posted, posted

    preset = (await harness.slash(war.gm, war.channel, "gm auto", character="Lancer", wait="defence",
                                  answer="dodge")).reply  # fmt: skip
    assert preset.content == "Lancer now answers “Defence against every attack” with Dodge, without asking."
    not_npc = (await harness.slash(war.gm, war.channel, "gm auto", character="Archer", wait="defence",
                                   answer="dodge")).reply  # fmt: skip
    assert not_npc.ephemeral
    await harness.slash(war.gm, war.channel, "combat round")
    harness.dice.queue([12, 20])
    attacked = await harness.slash(war.bob, war.channel, "attack", target="Lancer", action="melee|Invisible Air")
    titles = [embed["title"] for reply in attacked.replies for embed in reply.embeds]
    assert titles[0] == "Archer attacks Lancer"
    assert titles[1].startswith("Lancer is hit by Archer") or titles[1] == "Lancer avoids the attack of Archer"
    assert harness.last(war.channel, war.gm).buttons() == []
    nothing = (await harness.slash(war.gm, war.channel, "gm pending")).reply
    assert nothing.content == "Nothing is waiting for an answer."


async def _last_defence_weapon(war: War) -> str:
    """The type of weapon the last defence was made with, from the GMs' export of the log."""
    exported = (await war.harness.slash(war.gm, war.channel, "log export", format="json")).reply
    events = json.loads(exported.attachments[0].data)["events"]
    (*_, resolved) = [event for event in events if event["kind"] == "attack.resolved"]
    weapon: str = resolved["payload"]["result"]["weapon"]
    return weapon


async def test_the_gms_choose_the_weapon_their_knight_defends_with(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _import_npc(war, "master", name="Kayneth")
    await _import_npc(
        war,
        "servant",
        name="Gawain",
        master="Kayneth",
        servant_class="Saber",
        weapons=[{"name": "Galatine", "type": "sword"}, {"name": "Tower Shield", "type": "shield"}],
    )
    # The GMs answer: Block, then which weapon, privately.
    harness.dice.queue([12])
    await harness.slash(war.bob, war.channel, "attack", target="Gawain", action="melee|Invisible Air")
    choices = (await harness.emulator.click(war.gm, harness.last(war.channel, war.gm), "Answer (GM)")).reply
    await harness.emulator.click(war.gm, choices, "Block")
    which = harness.last(war.channel, war.gm)
    assert which.buttons() == ["Answer (GM)", "Cancel (GM)"]  # the weapons would tell the sheet
    asked = (await harness.emulator.click(war.gm, which, "Answer (GM)")).reply
    assert asked.ephemeral
    assert asked.buttons()[:3] == ["The best weapon by the rules", "Galatine (sword)", "Tower Shield (shield)"]
    harness.dice.queue([20])
    await harness.emulator.click(war.gm, asked, "Tower Shield (shield)")
    assert await _last_defence_weapon(war) == "shield"

    # In advance: Block with the weapon the rules find best, the shield's -3 over the sword's -1 (T3).
    for wait, answer in (("defence", "block"), ("defence_weapon", "best")):
        preset = (await harness.slash(war.gm, war.channel, "gm auto", character="Gawain", wait=wait,
                                      answer=answer)).reply  # fmt: skip
        assert preset.ephemeral, preset.content
    assert preset.content == (
        "Gawain now answers “Weapon to block or parry with” with The best weapon by the rules, without asking."
    )
    await harness.slash(war.gm, war.channel, "combat round")
    harness.dice.queue([12, 20])
    await harness.slash(war.bob, war.channel, "attack", target="Gawain", action="melee|Invisible Air")
    assert harness.last(war.channel, war.gm).buttons() == []
    assert await _last_defence_weapon(war) == "shield"


async def test_sessions_turns_and_time_move_the_campaign_and_run_its_hooks(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    info = (await harness.slash(war.bob, war.channel, "campaign info")).reply
    assert "Session 1, turn 1" in info.text()
    await harness.slash(war.gm, war.channel, "campaign set", option="fp_needs_gm_ok", value="false")
    await harness.slash(war.gm, war.channel, "campaign set", option="fp_duration", value="scene")
    await _award_fate_points(war, "Rin", 1)
    await harness.slash(war.bob, war.channel, "character use", name="Rin")
    spent = (await harness.slash(war.bob, war.channel, "fate spend", use="boost_stat", stat="AGI")).reply
    assert spent.content.startswith("Rin spends a Fate/Point")

    refused = (await harness.slash(war.bob, war.channel, "campaign session")).reply
    assert refused.content == "Only a GM of this campaign can do that."
    session = (await harness.slash(war.gm, war.channel, "campaign session")).reply
    assert session.content == "Session 2 begins."
    # A scene-long boost ends with the session: Rin's AGI 3 is back (10 - 3 = 7).
    harness.dice.queue([10])
    plain = (await harness.slash(war.bob, war.channel, "check", stat="AGI")).reply
    assert plain.embeds[0]["title"] == "Rin checks AGI: 7"

    turn = (await harness.slash(war.gm, war.channel, "campaign turn")).reply
    assert turn.content == "Turn 1 ends; turn 2 begins."
    info = (await harness.slash(war.bob, war.channel, "campaign info")).reply
    assert "Session 2, turn 2" in info.text()
    days = (await harness.slash(war.gm, war.channel, "campaign time", days=1)).reply
    assert days.content.startswith("Time passes: 1 day.")
    nothing = (await harness.slash(war.gm, war.channel, "campaign time")).reply
    assert nothing.ephemeral
    log = (await harness.slash(war.gm, war.channel, "log show")).reply.text()
    assert f"{war.gm.mention} started session 2" in log
    assert f"{war.gm.mention} ended campaign turn 1" in log


def _sheet_value(sheet: Message, label: str) -> str:
    assert sheet.embeds, sheet.content
    return str(next(field["value"] for field in sheet.embeds[0]["fields"] if field["name"] == label))


async def test_a_gm_prices_ex_ranks_and_adjusts_compatibility(war: War) -> None:
    harness, gm = war.harness, war.gm
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _import_npc(war, "master", name="Tokiomi")
    await _import_npc(
        war, "servant", name="Gilgamesh", master="Tokiomi", servant_class="Archer", ex_stats={"STR": None},
        weapons=[{"name": "Gate", "type": "sword"}], noble_phantasms=[{"name": "Enuma Elish", "rank": "EX"},
                                                                      {"name": "Gate of Babylon", "rank": "B"}],
    )  # fmt: skip
    await harness.slash(gm, war.channel, "character use", name="Gilgamesh")
    unpriced = (await harness.slash(gm, war.channel, "attack", target="Archer", action="melee|Gate")).reply
    assert unpriced.ephemeral
    assert (
        unpriced.content == f"An attack at rank EX needs a mana cost from the GM ({harness.mention('fate ex-cost')})."
    )
    not_gm = (await harness.slash(war.bob, war.channel, "fate ex-cost", servant="Gilgamesh", cost=8)).reply
    assert not_gm.ephemeral
    priced = (await harness.slash(gm, war.channel, "fate ex-cost", servant="Gilgamesh", cost=8)).reply
    assert priced.content == "Attacks by Gilgamesh at an EX rank now cost 8 prana each."
    harness.dice.queue([15])
    attacked = (await harness.slash(gm, war.channel, "attack", target="Archer", action="melee|Gate")).reply
    assert attacked.visible_to is EVERYONE, attacked.content
    declared = [e for e in await _export_events(war) if e["kind"] == "attack.declared"]
    assert declared[-1]["payload"]["mana_cost"] == 8

    ranked = (
        await harness.slash(gm, war.channel, "fate ex-cost", servant="Gilgamesh", cost=40, phantasm="Gate of Babylon")
    ).reply
    assert ranked.content == "Gate of Babylon is rank B: its cost comes from its rank, only an EX rank needs the GM's."
    await harness.slash(gm, war.channel, "fate ex-cost", servant="Gilgamesh", cost=60, phantasm="enuma elish")
    sheet = (await harness.slash(gm, war.channel, "character show", name="Gilgamesh")).reply
    assert _sheet_value(sheet, "Noble Phantasms (rank, prana cost)") == "Enuma Elish (EX, 60), Gate of Babylon (B, 25)"

    before = int(_sheet_value((await harness.slash(war.bob, war.channel, "character show", name="Rin")).reply,
                              "Compatibility"))  # fmt: skip
    refused = (await harness.slash(war.bob, war.channel, "fate compatibility", master="Rin", modifier=3)).reply
    assert refused.ephemeral
    raised = (await harness.slash(gm, war.channel, "fate compatibility", master="Rin", modifier=3)).reply
    assert raised.content == f"Rin's compatibility is now {before + 3} (GM modifier +3)."
    lowered = (await harness.slash(gm, war.channel, "fate compatibility", master="Rin", modifier=-2)).reply
    assert lowered.content == f"Rin's compatibility is now {before - 2} (GM modifier -2)."
    sheet = (await harness.slash(war.bob, war.channel, "character show", name="Rin")).reply
    assert _sheet_value(sheet, "Compatibility") == str(before - 2)


async def _export_events(war: War) -> list[dict[str, Any]]:
    exported = (await war.harness.slash(war.gm, war.channel, "log export", format="json")).reply
    events: list[dict[str, Any]] = json.loads(exported.attachments[0].data)["events"]
    return events


async def test_values_only_a_gm_may_set_hold_a_players_sheet_until_a_gm_approves_it(war: War) -> None:
    harness, gm, bob = war.harness, war.gm, war.bob
    await _enlist(war, bob, "Rin", "Archer", "Archer")
    data = await _template(war, bob, "servant")
    data.update(
        name="Lancer", master="Rin", servant_class="Lancer", rank_steps={"STR": 1}, ex_stats={"AGI": None},
        skills=[{"name": "Battle Continuation", "roll_mods": {"attack:melee": -10, "damage": 20}}],
        noble_phantasms=[{"name": "Gae Bolg", "rank": "B", "gm_cost_adjust": -100}],
    )  # fmt: skip
    await harness.slash(gm, war.channel, "character delete", name="Archer")
    created = await _import(war, bob, data)
    assert created.visible_to is EVERYONE
    assert _sheet_value(created, "Waiting for a GM").startswith("The sheet sets values only a GM may set")
    prompt = harness.last(war.channel, gm)
    for shown in ("`ex_stats`: AGI EX", "`skills.0.roll_mods`: attack:melee -10, damage +20",
                  "`noble_phantasms.0`: Gae Bolg (B, 0)"):  # fmt: skip
        assert shown in prompt.content, prompt.content
    assert prompt.buttons() == ["Approve", "Reject"]

    await harness.slash(bob, war.channel, "character use", name="Lancer")
    waiting = (await harness.slash(bob, war.channel, "check", stat="STR")).reply
    assert waiting.ephemeral
    assert waiting.content == "Lancer's sheet is waiting for a GM's approval: Lancer cannot act yet."
    not_gm = await harness.emulator.click(bob, prompt, "Approve")
    assert not_gm.reply.ephemeral
    pending = await harness.slash(gm, war.channel, "gm pending")
    assert any("Lancer's sheet" in reply.text() for reply in pending.replies)

    await harness.emulator.click(gm, prompt, "Approve")
    assert harness.current(prompt).content == f"Lancer's sheet was approved by {gm.mention}: Lancer may act."
    checked = (await harness.slash(bob, war.channel, "check", stat="STR")).reply
    assert checked.visible_to is EVERYONE, checked.content

    data.update(name="Caster", servant_class="Caster", rank_steps={"MAG": 0, "STR": 1})
    await harness.slash(gm, war.channel, "character delete", name="Lancer")
    # A held sheet deleted before any GM decided: its prompt closes.
    await _import(war, bob, {**data, "name": "Assassin", "servant_class": "Assassin"})
    unanswered = harness.last(war.channel, gm)
    await harness.slash(bob, war.channel, "character delete", name="Assassin")
    assert harness.current(unanswered).buttons() == []
    assert harness.current(unanswered).content == (
        f"The character was deleted by {bob.mention}: there is no sheet left to approve."
    )
    await _import(war, bob, data)
    await harness.emulator.click(gm, harness.last(war.channel, gm), "Reject")
    await harness.slash(bob, war.channel, "character use", name="Caster")
    rejected = (await harness.slash(bob, war.channel, "check", stat="MAG")).reply
    delete = harness.mention("character delete")
    assert rejected.content == f"A GM rejected Caster's sheet: delete it with {delete} and import a corrected one."
    sheet = (await harness.slash(bob, war.channel, "character show", name="Caster")).reply
    assert _sheet_value(sheet, "Rejected by a GM").startswith("A GM rejected this sheet")
    log = (await harness.slash(gm, war.channel, "log show")).reply.text()
    assert f"{gm.mention} approved Lancer's sheet" in log and f"{gm.mention} rejected Caster's sheet" in log


async def test_a_sheet_without_gm_values_or_a_gms_own_is_not_held(war: War) -> None:
    harness = war.harness
    data = {"kind": "master", "name": "Waver", "STR": 2, "END": 3, "AGI": 3, "MAG": 4, "LUK": 3,
            "weapons": [{"name": "Gandr", "type": "magic"}]}  # fmt: skip
    created = await _import(war, war.bob, data)
    assert created.visible_to is EVERYONE
    assert all(field["name"] != "Waiting for a GM" for field in created.embeds[0]["fields"])
    by_gm = await _template(war, war.gm, "master")
    by_gm["name"] = "Kirei"
    created = await _import(war, war.gm, by_gm)
    assert all(field["name"] != "Waiting for a GM" for field in created.embeds[0]["fields"])
    await harness.slash(war.gm, war.channel, "character use", name="Kirei")
    checked = (await harness.slash(war.gm, war.channel, "check", stat="STR")).reply
    assert checked.visible_to is EVERYONE, checked.content


async def test_character_edit_lets_a_gm_change_any_field_and_a_player_only_names(war: War) -> None:
    harness, gm, bob = war.harness, war.gm, war.bob
    await _enlist(war, bob, "Rin", "Archer", "Archer")
    renamed = (
        await harness.slash(bob, war.channel, "character edit", name="Rin", field="weapons.0.name", value="Gandr Shot")
    ).reply
    assert renamed.visible_to is EVERYONE
    assert renamed.content == f'{bob.mention} changed `weapons.0.name` of Rin: "Gandr" → "Gandr Shot".'
    refusals = {
        ("bob", "STR", "5"): "Only a GM may change `STR` of Rin: it moves the rules' numbers. Ask your GM.",
        ("bob", "name", "Tohsaka"): f"`name` of Rin cannot be changed with {harness.mention('character edit')}.",
        ("mei", "weapons.0.name", "Mine"): "Rin 不是你的角色。",
        ("kirei", "STR", "9"): "Nothing was changed. The file would not be valid; fix these fields:\n"
                               "• `STR`: 9 is outside 1..5",
        ("kirei", "weapons.7.name", "X"): "The file has no field `weapons.7.name` to change.",
        ("kirei", "weapons.0.name", "Gandr Shot"): "`weapons.0.name` of Rin already has that value: nothing was "
                                                   "changed.",
    }  # fmt: skip
    users = {"bob": bob, "mei": war.mei, "kirei": gm}
    for (who, field, value), expected in refusals.items():
        refused = (await harness.slash(users[who], war.channel, "character edit", name="Rin", field=field,
                                       value=value)).reply  # fmt: skip
        assert refused.ephemeral, (field, refused.content)
        assert refused.content == expected, (field, refused.content)

    # A GM's edit is an advancement: STR rises past the 15-point budget of creation.
    await harness.slash(gm, war.channel, "character edit", name="Rin", field="STR", value="A")
    same = (await harness.slash(gm, war.channel, "character edit", name="Rin", field="STR", value="5")).reply
    assert same.content == "`STR` of Rin already has that value: nothing was changed."
    sheet = (await harness.slash(bob, war.channel, "character show", name="Rin")).reply
    assert _sheet_value(sheet, "Stats").startswith("STR A (5)")
    await harness.slash(gm, war.channel, "character edit", name="Archer", field="rank_steps.AGI", value="2")
    await harness.slash(gm, war.channel, "character edit", name="Archer", field="skills.0.roll_mods",
                        value='{"attack:melee": -2}')  # fmt: skip
    sheet = (await harness.slash(bob, war.channel, "character show", name="Archer")).reply
    assert "AGI A (5)" in _sheet_value(sheet, "Stats")
    assert "Mana Burst [attack:melee -2]" in _sheet_value(sheet, "Skills (modifiers, prana cost)")
    log = (await harness.slash(gm, war.channel, "log show")).reply.text()
    assert f"{gm.mention} changed `STR` of Rin: 2 → 5" in log  # as the file keeps it, typed `A`
    assert f"{bob.mention} changed `weapons.0.name` of Rin: Gandr → Gandr Shot" in log


async def test_a_campaign_speaks_one_language_in_public_and_each_reader_their_own_in_private(war: War) -> None:
    harness, gm, bob, mei = war.harness, war.gm, war.bob, war.mei
    await _pairs(war)
    refused = (await harness.slash(bob, war.channel, "campaign language", language="ja")).reply
    assert refused.ephemeral
    chosen = (await harness.slash(gm, war.channel, "campaign language", language="ja")).reply
    assert chosen.visible_to is EVERYONE
    assert chosen.content.startswith("Fifth War の公開メッセージは 日本語 になりました。")
    again = (await harness.slash(gm, war.channel, "campaign language", language="ja")).reply
    assert again.content == "The campaign already uses that language: nothing was changed."

    # bob writes in English and mei reads Chinese; the table reads Japanese.
    harness.dice.queue([12])
    declared = (await harness.slash(bob, war.channel, "attack", target="Rider", action="melee|Invisible Air")).reply
    assert declared.embeds[0]["title"] == "Archer が Rider を攻撃"
    prompt = harness.last(war.channel, mei)
    assert prompt.buttons() == ["ブロック", "回避", "受け流し", "攻撃を受ける", "取り消し（GM）"]
    wrong = await harness.emulator.click(bob, prompt, "回避")
    assert wrong.reply.ephemeral
    assert wrong.reply.content == "Only the defender's player or a GM can answer this attack."
    private = (await harness.slash(mei, war.channel, "campaign info")).reply
    assert private.ephemeral
    assert any(field["name"] == "语言" and field["value"] == "日本語" for field in private.embeds[0]["fields"])
    harness.dice.queue([20])
    answered = await harness.emulator.click(mei, prompt, "回避")
    assert answered.replies[-1].embeds[0]["title"].startswith("Rider は Archer の攻撃を受けた")

    await harness.slash(gm, war.channel, "campaign language", language="server")
    rolled = (await harness.slash(mei, war.channel, "roll", dice="1d6", label="luck")).reply
    assert rolled.visible_to is EVERYONE
    assert "luck" in rolled.text() and "掷骰" not in rolled.text()
    log = (await harness.slash(gm, war.channel, "log show")).reply.text()
    assert f"{gm.mention} set the language of public messages: the server's language → 日本語" in log


async def test_gm_settings_that_change_nothing_say_so_and_an_unset_damage_reads_as_the_rules(war: War) -> None:
    harness, gm = war.harness, war.gm
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    said = [(await harness.slash(gm, war.channel, "fate compatibility", master="Rin", modifier=modifier)).reply
            for modifier in (0, 3, 3)]  # no modifier yet, then the one just set  # fmt: skip
    assert [reply.ephemeral for reply in said] == [True, False, True]
    assert said[0].content == "Rin's compatibility modifier is +0 already: nothing was changed."
    assert said[2].content == "Rin's compatibility modifier is +3 already: nothing was changed."
    unset = (await harness.slash(gm, war.channel, "fate compatibility", master="Rin", modifier=0)).reply
    assert not unset.ephemeral
    logged = [e["payload"]["modifier"] for e in await _export_events(war) if e["kind"] == "fate.compatibility"]
    assert logged == [3, 0]

    ruled = (
        await harness.slash(gm, war.channel, "fate np-rule", servant="Archer", phantasm="Excalibur", defences="none")
    ).reply
    assert ruled.content == "GM ruling for Excalibur of Archer: no defence allowed; its damage is the rules' own."
    with_damage = (
        await harness.slash(gm, war.channel, "fate np-rule", servant="Archer", phantasm="Excalibur", damage=40)
    ).reply
    assert with_damage.content == "GM ruling for Excalibur of Archer: every defence allowed, damage 40."


async def test_an_award_against_a_bound_already_reached_is_refused_plainly(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    _, maximum = await _hp(war, war.gm, "Rin")
    await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="hp", amount=-maximum)
    for amount, total in ((-100, f"0/{maximum}"), (0, f"0/{maximum}")):
        refused = (
            await harness.slash(war.gm, war.channel, "gm award", character="Rin", resource="hp", amount=amount)
        ).reply
        assert refused.ephemeral
        assert refused.content == f"Rin's HP is {total}, at its limit already: nothing was changed."
    awards = [(e["payload"]["amount"], e["payload"]["applied"]) for e in await _export_events(war)
              if e["kind"] == "gm.award"]  # fmt: skip
    assert awards == [(-maximum, -maximum)]
    downs = [e for e in await _export_events(war) if e["kind"] == "character.down"]
    assert len(downs) == 1


async def test_a_master_without_servant_points_is_told_to_leave_the_steps_out(war: War) -> None:
    master = await _template(war, war.bob, "master")
    master.update(name="Rin", STR=3, END=3, AGI=3, MAG=3, LUK=3)  # MAG C: no Servant points (R2)
    await _import(war, war.bob, master)
    await war.harness.approve_sheet(war.gm, war.channel, "Rin")
    servant = await _template(war, war.bob, "servant")
    servant.update(name="Archer", master="Rin", servant_class="Archer", rank_steps={"MAG": 1})
    refused = await _import(war, war.bob, servant)
    assert refused.ephemeral
    assert "• `rank_steps.MAG`: 1 is a step, but there are no Servant points to spend: leave rank_steps empty" in (
        refused.content
    )
    assert "same sign" not in refused.content


async def test_an_activated_noble_phantasm_does_not_claim_to_modify_rolls(war: War) -> None:
    harness = war.harness
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await harness.slash(war.gm, war.channel, "gm award", character="Archer", resource="prana", amount=1000)
    phantasm = (await harness.slash(war.bob, war.channel, "fate activate", name="Excalibur")).reply
    assert phantasm.content.splitlines()[1] == (
        "Excalibur is released until their next attack or defence roll: an attack with it then pays no more prana."
    )
    await harness.slash(war.gm, war.channel, "gm award", character="Archer", resource="prana", amount=1000)
    await harness.slash(war.gm, war.channel, "combat start", order="Archer")
    in_fight = (await harness.slash(war.bob, war.channel, "fate activate", name="Excalibur")).reply
    assert (
        in_fight.content.splitlines()[1]
        == "Excalibur is released for the rest of this round: its attack pays no more prana."
    )
    await harness.slash(war.gm, war.channel, "combat round")
    skill = (await harness.slash(war.bob, war.channel, "fate activate", name="Mana Burst")).reply
    assert skill.content.splitlines()[1] == "Mana Burst applies to their rolls for the rest of this round."


async def test_a_parry_bonus_names_the_round_as_the_fight_counts_it(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    for _ in range(2):  # the campaign's clock moves before the fight: its first round is not round 1 inside
        await harness.slash(war.gm, war.channel, "combat round")
    await harness.slash(war.gm, war.channel, "combat start", order="Rider, Archer")
    harness.dice.queue([12])
    await harness.slash(war.mei, war.channel, "attack", target="Archer", action="melee|Invisible Air")
    prompt = harness.last(war.channel, war.bob)
    question = (await harness.emulator.click(war.bob, prompt, "Parry")).reply
    harness.dice.queue([1])
    answered = await harness.emulator.click(war.bob, question, "Parry (LUK)")
    assert "Successful parry: -1 to the defender's attacks in round 2." in answered.replies[-1].text()


async def test_the_prana_of_characters_the_gms_hide_stays_out_of_every_post(war: War) -> None:
    harness, gm = war.harness, war.gm
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _import_npc(war, "master", name="Kayneth")
    await _import_npc(war, "servant", name="Lancer", master="Kayneth", servant_class="Lancer")
    await _import_npc(war, "master", name="Kariya")
    await _import_npc(war, "servant", name="Lancelot", master="Kariya", servant_class="Berserker",
                      mad_enchantment=True)  # fmt: skip
    for name in ("Archer", "Lancer"):
        await harness.slash(gm, war.channel, "gm award", character=name, resource="prana", amount=-5)
    time = (await harness.slash(gm, war.channel, "campaign time", hours=1)).reply
    lines = time.content.splitlines()
    assert "Lancer replenishes prana from its Master." in lines
    assert any(line.startswith("Archer: +") for line in lines)  # a player's Servant is told in full
    assert "Lancelot replenishes prana from its Master." in lines

    await harness.slash(gm, war.channel, "character use", name="Lancer")
    activated = (await harness.slash(gm, war.channel, "fate activate", name="Excalibur")).reply
    assert activated.content == "Lancer activates Excalibur."
    await harness.slash(gm, war.channel, "character use", name="Kayneth")
    rested = (await harness.slash(gm, war.channel, "fate rest", master="Kayneth")).reply
    assert rested.content == "Kayneth rests: prana refills."
    started = (await harness.slash(gm, war.channel, "combat start", order="Lancelot, Archer")).reply
    assert "Mad Enchantment: Lancelot draws prana from its Master." in started.text()
    hidden_lines = [line for post in (time, activated, rested, started) for line in post.text().splitlines()
                    if any(name in line for name in ("Lancer", "Lancelot", "Kayneth", "Kariya"))]  # fmt: skip
    assert hidden_lines and not any(character.isdigit() for line in hidden_lines for character in line), hidden_lines
    players_log = (await harness.slash(war.bob, war.channel, "log show")).reply.text()
    assert "Turn of Lancelot: Mad Enchantment draws prana (how much is the GMs' to know)" in players_log
    assert "Lancer activated an ability (its cost is the GMs' to know)" in players_log
    gms_log = (await harness.slash(gm, war.channel, "log show")).reply.text()
    assert "Lancer activated Excalibur (34 prana)" in gms_log


async def test_an_attack_by_a_character_the_gms_hide_does_not_post_its_cost(war: War) -> None:
    harness, gm = war.harness, war.gm
    await _enlist(war, war.bob, "Rin", "Archer", "Archer")
    await _import_npc(war, "master", name="Kayneth")
    await _import_npc(war, "servant", name="Lancer", master="Kayneth", servant_class="Lancer")
    await harness.slash(gm, war.channel, "character use", name="Lancer")
    harness.dice.queue([12])
    declared = (await harness.slash(gm, war.channel, "attack", target="Archer", action="melee|Invisible Air")).reply
    assert [field["name"] for field in declared.embeds[0].get("fields", [])] == ["Attack", "Round"]  # no rank shown
    harness.dice.queue([12])
    own = (await harness.slash(war.bob, war.channel, "attack", target="Lancer", action="melee|Invisible Air")).reply
    assert [field["name"] for field in own.embeds[0]["fields"]][:3] == ["Attack", "Mana spent", "Round"]
    # Its roll shows the die and the score, its sheet's terms summed: no stat by name.
    assert "(STR)" not in declared.embeds[0]["description"], declared.embeds[0]["description"]
    assert "hidden sheet" in declared.embeds[0]["description"]
    assert "(STR)" in own.embeds[0]["description"]  # a player's sheet is the table's to read

    def lancers(events: list[dict[str, Any]]) -> dict[str, Any]:
        payload: dict[str, Any]
        (payload,) = [e["payload"] for e in events if e["kind"] == "attack.declared" and e["payload"]["attacker"]
                      == "Lancer"]  # fmt: skip
        return payload

    gms = lancers(await _export_events(war))
    assert gms["mana_cost"] > 0
    assert any(term["source"] == "stat:STR" for term in gms["rolls"][0]["modifiers"])
    gms_log = (await harness.slash(gm, war.channel, "log export", format="csv")).reply.attachments[0].data.decode()
    assert "stat:STR" in gms_log
    exported = (await harness.slash(war.bob, war.channel, "log export", format="json")).reply
    bobs = lancers(json.loads(exported.attachments[0].data)["events"])
    assert "mana_cost" not in bobs and "sheet_secrets" not in bobs, bobs
    assert [term["source"] for term in bobs["rolls"][0]["modifiers"]] == ["sheet"]
    assert bobs["rolls"][0]["total"] == gms["rolls"][0]["total"]


async def test_who_asked_for_a_fate_point_is_stored_by_id_and_shown_by_mention(war: War) -> None:
    harness = war.harness
    await _pairs(war)
    await _award_fate_points(war, "Rin", 1)
    await harness.slash(war.bob, war.channel, "character use", name="Rin")
    request = (await harness.slash(war.bob, war.channel, "fate spend", use="roll_vs_servant")).reply
    assert request.content.startswith(f"{war.bob.mention} asks to spend a Fate/Point of Rin")
    await harness.emulator.click(war.gm, request, "Approve")
    assert harness.current(request).content.startswith(f"{war.gm.mention} approved")
    assert harness.bot is not None
    async with harness.bot.database.read() as session:
        wait = await session.scalar(select(WaitRow).order_by(WaitRow.id.desc()).limit(1))
        assert wait is not None
        events = list(await session.scalars(select(Event).where(Event.campaign_id == wait.campaign_id)))
    assert wait.spec["prompt"]["params"]["user"] == {"user": war.bob.id}
    stored = json.dumps([wait.spec, *(event.payload for event in events)])
    assert "<@" not in stored
