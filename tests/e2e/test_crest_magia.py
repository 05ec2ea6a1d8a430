"""Crest Magia through the emulator: characters by the creation rules, checks with boons and criticals, and
Destiny Points at each session's start. Each test has a campaign of its own."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import yaml

from bot.emulator.models import EVERYONE, Channel, Guild, Message, User
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness


@dataclass(frozen=True)
class Table:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    aiko: User
    mei: User
    ken: User


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("crest")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, aiko = emulator.add_user("gm"), emulator.add_user("aiko")
        mei, ken = emulator.add_user("mei", locale="zh-CN"), emulator.add_user("ken", locale="ja")
        guild = emulator.add_guild("Academy", owner=gm)
        for player in (aiko, mei, ken):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield Table(harness, guild, emulator.add_channel(guild, "lobby"), gm, aiko, mei, ken)


@pytest.fixture
async def table(server: Table) -> Table:
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset="crest_magia", name="Crests")
    return replace(server, channel=channel)


async def _template(table: Table, user: User) -> dict[str, Any]:
    reply = (await table.harness.slash(user, table.channel, "character template", kind="bearer")).reply
    assert reply.ephemeral
    data: dict[str, Any] = yaml.safe_load(reply.attachments[0].data)
    return data


async def _import(table: Table, user: User, data: dict[str, Any]) -> Message:
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    return (await table.harness.slash(user, table.channel, "character import", file=("sheet.yaml", text))).reply


async def _let_it_stand(table: Table, user: User) -> str:
    """A hit defender with a Destiny Point is offered to roll the defence again: this one lets it stand (the
    offer's text, as it was, is returned)."""
    offer = _offering(table, user, "Let it stand")
    offered = offer.content
    answered = await table.harness.emulator.click(user, offer, "Let it stand")
    assert answered.error is None, answered.error
    return offered


async def _pools(table: Table, name: str) -> str:
    roster = (await table.harness.slash(table.gm, table.channel, "character list")).reply
    lines: list[str] = roster.embeds[0]["description"].splitlines()
    return next(line for line in lines if f"**{name}**" in line)


async def test_a_character_by_the_creation_rules_and_refusals_field_by_field(table: Table) -> None:
    data = await _template(table, table.aiko)
    created = await _import(table, table.aiko, data)
    assert created.visible_to is EVERYONE, created.content
    assert created.embeds[0]["title"] == "Aiko joins the campaign (Crest bearer)"
    assert "Physique HP 8/8 · Dexterity HP 6/6 · Intelligence HP 4/4 · Wit HP 6/6" in await _pools(table, "Aiko")
    sheet = (await table.harness.slash(table.aiko, table.channel, "character show", name="Aiko")).reply
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    assert fields["Stat dice"] == "Physique d8 · Dexterity d6 · Intelligence d4 · Wit d6"
    assert fields["Skills"].startswith("Athletics 3 · Awareness 3 · Melee 3 · Agility 2")
    assert fields["Consequence"] == "none"

    data.update(name="Bram", dice={"Physique": "d8", "Dexterity": "d8", "Intelligence": "d6", "Wit": "d4"},
                skills={**data["skills"], "Agility": 3})  # fmt: skip
    refused = await _import(table, table.mei, data)
    assert refused.ephemeral
    assert refused.content.startswith("角色未创建。")
    assert "`dice`：骰子为 d4, d6, d8, d8；新角色应有一个 d4、两个 d6 和一个 d8" in refused.content
    assert "`skills`：技能中 3 级 4 个、2 级 3 个、1 级 5 个、更高 0 个" in refused.content
    roster = (await table.harness.slash(table.gm, table.channel, "character list")).reply
    assert "Bram" not in roster.text()

    # Advancement (C29): a GM raises a die within the caps, and its HP pool grows with it.
    raised = await table.harness.slash(table.gm, table.channel, "character edit", name="Aiko",
                                       field="dice.Physique", value="d10")  # fmt: skip
    assert raised.reply.visible_to is EVERYONE, raised.reply.content
    # Both sides as the file keeps them, whatever way the new value was typed.
    assert raised.reply.content == f"{table.gm.mention} changed `dice.Physique` of Aiko: 8 → 10."
    assert "Physique HP 8/10" in await _pools(table, "Aiko")
    no_die = await table.harness.slash(table.gm, table.channel, "character edit", name="Aiko",
                                       field="dice.Wit", value="null")  # fmt: skip
    assert no_die.reply.content.endswith("• `dice`: every stat needs a die; missing: Wit")
    past_cap = await table.harness.slash(table.gm, table.channel, "character edit", name="Aiko",
                                         field="dice.Physique", value="d20")  # fmt: skip
    assert past_cap.reply.ephemeral
    assert "`dice.Physique`: 20 is not one of the dice d4, d6, d8, d10, d12" in past_cap.reply.content
    assert "Physique HP 8/10" in await _pools(table, "Aiko")


async def test_a_check_shows_the_base_dice_apart_and_meets_the_target(table: Table) -> None:
    await _import(table, table.aiko, await _template(table, table.aiko))
    harness = table.harness
    # Wit d6 with Awareness 3 and the Sight specialty, one boon (a GM's to grant): base 3, 5; d6 4; boon d4 2.
    harness.dice.queue([3, 5, 4, 2])
    asked = (
        await harness.slash(table.aiko, table.channel, "check", stat="wit", target=14,
                            details="skill:awareness specialty:sight boons:1")
    ).reply  # fmt: skip
    checked = (await harness.emulator.click(table.gm, asked, "Grant")).replies[-1]
    assert checked.visible_to is EVERYONE, checked.content
    embed = checked.embeds[0]
    assert embed["title"] == "Aiko: Wit + Awareness = 15"
    assert embed["description"].splitlines() == [
        "base dice: 2d6 [3, **5**] = **5**",
        "boons: 1d4 [2] = **2**",
        "Wit die: 1d6 [4] +3 (Awareness) +1 (Sight) +2 (boons) = **15**",  # the last line ends on the total
    ]
    assert {"name": "Target 14", "value": "Success", "inline": True} in embed["fields"]
    wrong = await harness.slash(table.aiko, table.channel, "check", stat="Wit", details="skill:Lore specialty:Sight")
    assert wrong.reply.ephemeral
    assert wrong.reply.content == "There is no specialty Sight on the skill Lore."
    harness.dice.queue([3, 5, 4])  # a specialty named alone brings its skill: Sight is Awareness's
    alone = (await harness.slash(table.aiko, table.channel, "check", stat="Wit", details="specialty:sight")).reply
    assert alone.embeds[0]["title"] == "Aiko: Wit + Awareness = 13"
    typo = (await harness.slash(table.aiko, table.channel, "check", stat="Wit", details="boons:abc")).reply
    assert typo.ephemeral and "must be a whole number" in typo.content and "integer" not in typo.content


async def test_a_critical_earns_a_destiny_point_and_a_session_sets_them_to_one(table: Table) -> None:
    await _import(table, table.aiko, await _template(table, table.aiko))
    harness = table.harness
    # A campaign is always within a session: a new player character joins it with the session's point.
    assert "Destiny Points 1" in await _pools(table, "Aiko")
    harness.dice.queue([6, 6, 1])
    crit = (await harness.slash(table.aiko, table.channel, "check", stat="Physique")).reply
    assert "Critical success: double six on the base dice." in crit.text()
    assert "Aiko earns a Destiny Point." in crit.text()
    assert "Destiny Points 2" in await _pools(table, "Aiko")
    await harness.slash(table.gm, table.channel, "gm award", character="Aiko", resource="destiny_points", amount=2)
    started = (await harness.slash(table.gm, table.channel, "campaign session")).reply
    assert "every player character's Destiny Points are now 1; none carry over." in started.text()
    assert "Destiny Points 1" in await _pools(table, "Aiko")
    exported = (await harness.slash(table.gm, table.channel, "log export", format="json")).reply
    kinds = [event["kind"] for event in json.loads(exported.attachments[0].data)["events"]]
    assert "destiny.session" in kinds


async def test_gm_values_are_held_and_a_serious_consequence_stops_a_character(table: Table) -> None:
    harness = table.harness
    data = await _template(table, table.ken)
    data.update(name="Cleo", weapons=[{"name": "Staff", "kind": "melee", "rating": 4}])
    held = await _import(table, table.ken, data)
    assert held.visible_to is EVERYONE
    prompt = harness.last(table.channel, table.gm)
    assert "`weapons.0.rating`: 4" in prompt.content
    refused = (await harness.slash(table.ken, table.channel, "check", stat="Wit")).reply
    assert refused.content == "Cleo のシートはGMの承認待ちです。Cleo はまだ行動できません。"
    await harness.approve_sheet(table.gm, table.channel, "Cleo")
    await harness.slash(table.gm, table.channel, "gm award", character="Cleo", resource="consequence", amount=3)
    down = (await harness.slash(table.ken, table.channel, "check", stat="Wit")).reply
    assert down.content == "Cleo は戦えない状態で、行動できません。"
    sheet = (await harness.slash(table.ken, table.channel, "character show", name="Cleo")).reply
    assert {"name": "Consequence", "value": "serious (unconscious)", "inline": True} in sheet.embeds[0]["fields"]


async def test_an_attack_answered_a_day_later_with_a_stat_a_skill_a_withstand_and_an_overflow(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _import(table, aiko, await _template(table, aiko))
    bram = await _template(table, mei)
    bram["name"] = "Bram"
    await _import(table, mei, bram)
    # A rating is the GM's to set (C10).
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="weapons.0.rating", value="2")
    # A sword strikes with Physique: Dexterity is Aiko's to argue for, and a GM's to agree to (R1).
    asked = (
        await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword",
                            details="stat:dexterity specialty:swords boons:1")
    ).reply  # fmt: skip
    assert "Aiko asks, for the attack on Bram: boons 1; Dexterity instead of Physique. Grant it?" in asked.content
    # Dexterity d6, Melee 3 and Swords 1, one boon: base 4, 2; d6 5; boon 2 -> 5 + 4 + 3 + 1 + 2 = 15.
    harness.dice.queue([4, 2, 5, 2])
    declared = (await harness.emulator.click(gm, asked, "Grant")).replies[-1]
    assert declared.embeds[0]["title"] == "Aiko attacks Bram: 15"
    assert "+3 (Melee) +1 (Swords)" in declared.embeds[0]["description"]
    prompt = harness.last(table.channel, mei)
    assert prompt.buttons() == ["Physique", "Dexterity", "Intelligence", "Wit", "Helpless (GM ruling)", "Cancel (GM)"]

    await harness.restart()
    harness.emulator.clock.advance(24 * 3600)
    await harness.emulator.click(mei, prompt, "Dexterity")
    # A day has passed: a reminder of another wait may be posted beside the next prompt, which is found by its button.
    question = await harness.prompt_with(table.channel, mei, "No skill")
    assert question.content == f"{mei.mention} Bram: defend with Dexterity and which skill?"
    # The best defences first: what each adds to the roll, a specialty before its skill alone; no skill last.
    assert question.buttons()[:4] == ["Awareness + Sight 4", "Melee + Swords 4", "Lore + History 3", "Athletics 3"]
    assert question.buttons()[-2:] == ["No skill", "Cancel (GM)"]
    # Dexterity d6 + Agility 2: base 5, 3; d6 6 -> 13, below 15: a hit. Damage 3 + 5 + 2 = 10.
    harness.dice.queue([5, 3, 6, 3, 5])
    await harness.emulator.click(mei, question, "Agility 2")
    # Bram still has the session's Destiny Point: his defence may be rolled again before the damage.
    offered = await _let_it_stand(table, mei)
    assert offered.startswith(f"{mei.mention} Bram: your defence of 13 does not stop the attack.")
    withstand = await harness.prompt_with(table.channel, mei, "Leather (0)")
    assert withstand.content == f"{mei.mention} Bram: withstand 10 damage with what?"
    assert withstand.buttons()[:2] == ["Crest of Flames (2)", "Leather (0)"]  # the best first
    harness.dice.queue([2, 4])
    answered = await harness.emulator.click(mei, withstand, "Leather (0)")
    assert "Damage 10 against withstand 6: Bram takes 4 on Dexterity." in answered.replies[-1].text()
    assert "Dexterity HP 2/6" in await _pools(table, "Bram")

    # A heavier blow empties Dexterity, and Bram chooses the pool the rest goes to.
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="weapons.0.rating", value="10")
    harness.dice.queue([6, 5, 5])
    # The GMs let players pick their stats freely from now on (`free_stat_choice`).
    await harness.slash(gm, table.channel, "campaign set", option="free_stat_choice", value="true")
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword", details="stat:dexterity")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([1, 2, 1, 1, 1])  # the defence's 3 + 4 misses 14; the damage 1 + 1 + 10
    defended = await harness.emulator.click(mei, harness.last(table.channel, mei), "Awareness + Sight 4")
    assert "+3 (Awareness) +1 (Sight) = **7**" in defended.replies[-1].text()
    await _let_it_stand(table, mei)
    harness.dice.queue([1, 1])  # withstand 2: 10 through, 2 of them on Dexterity
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Leather (0)")
    overflow = harness.last(table.channel, mei)
    assert overflow.content == f"{mei.mention} Bram: 8 damage overflows. On which stat?"
    assert overflow.buttons() == ["Physique", "Intelligence", "Wit", "Cancel (GM)"]
    placed = await harness.emulator.click(mei, overflow, "Physique")
    assert "Bram takes 8 more on Physique." in placed.replies[-1].text()
    pools = await _pools(table, "Bram")
    assert "Physique HP 0/8 · Dexterity HP 0/6" in pools
    sheet = (await harness.slash(mei, table.channel, "character show", name="Bram")).reply
    assert "Dexterity d6 → d4" in next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Stat dice")


async def test_destiny_points_restore_move_and_heal_and_a_gm_decides_the_narrative_ones(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _import(table, aiko, await _template(table, aiko))

    async def award(resource: str, amount: int) -> None:
        await harness.slash(gm, table.channel, "gm award", character="Aiko", resource=resource, amount=amount)

    await award("destiny_points", 2)  # and the one a new character has
    await award("dexterity", -6)
    full = (await harness.slash(aiko, table.channel, "destiny spend", use="restore_hp", stat="Wit")).reply
    assert full.ephemeral and full.content == "That pool is full: nothing to restore, and no point is spent."
    restored = (await harness.slash(aiko, table.channel, "destiny spend", use="restore_hp", stat="Dexterity")).reply
    assert restored.visible_to is EVERYONE, restored.content
    assert restored.content.startswith("Aiko spends a Destiny Point: Restore an HP pool.")
    await award("physique", -5)
    moved = await harness.slash(aiko, table.channel, "destiny spend", use="reallocate_hp", stat="Wit",
                                to="Physique", amount=3)  # fmt: skip
    assert moved.reply.visible_to is EVERYONE, moved.reply.content
    pools = await _pools(table, "Aiko")
    assert "Physique HP 6/8 · Dexterity HP 6/6 · Intelligence HP 4/4 · Wit HP 3/6" in pools
    too_much = (await harness.slash(aiko, table.channel, "destiny spend", use="reallocate_hp", stat="Wit",
                                    to="Physique", amount=3)).reply  # fmt: skip
    assert too_much.content == "Physique has room for 2 HP only."
    await award("consequence", 2)
    await harness.slash(aiko, table.channel, "destiny spend", use="remove_consequence")
    pools = await _pools(table, "Aiko")
    assert "consequence 1/5" in pools and "Destiny Points 0" in pools
    empty = (await harness.slash(aiko, table.channel, "destiny spend", use="remove_consequence")).reply
    assert empty.ephemeral and empty.content == "No Destiny Point left to spend."

    await award("destiny_points", 1)
    asked = (await harness.slash(aiko, table.channel, "destiny spend", use="act_out_of_turn",
                                 note="I shout a warning before the trap springs")).reply  # fmt: skip
    assert asked.buttons() == ["Approve", "Deny"]
    assert "I shout a warning before the trap springs" in asked.content
    refused = await harness.emulator.click(aiko, asked, "Approve")
    assert refused.reply.ephemeral
    await harness.emulator.click(gm, asked, "Approve")
    assert harness.current(asked).content == f"{gm.mention} approved: Aiko spends a Destiny Point (Act out of turn)."
    assert "Destiny Points 0" in await _pools(table, "Aiko")
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Aiko spent a Destiny Point (Restore an HP pool)" in log
    elsewhere = harness.new_channel(table.guild)
    await harness.slash(gm, elsewhere, "campaign start", ruleset="fate_points", name="Other")
    wrong = (await harness.slash(aiko, elsewhere, "destiny spend", use="other")).reply
    assert wrong.content == "This command belongs to Crest Magia (2d6 + stat die) campaigns."


async def test_odds_are_exact_for_each_defending_stat(table: Table) -> None:
    harness = table.harness
    await _import(table, table.aiko, await _template(table, table.aiko))
    bram = await _template(table, table.mei)
    bram["name"] = "Bram"
    await _import(table, table.mei, bram)
    reply = (
        await harness.slash(table.ken, table.channel, "odds", attacker="Aiko", defender="Bram", action="melee|Sword",
                            details="stat:dexterity boons:1")
    ).reply  # fmt: skip
    assert reply.ephemeral
    lines = reply.embeds[0]["description"].splitlines()
    assert [line.split("：")[0] for line in lines] == [
        # Bram's best defence bonus is Melee 3 with his Swords specialty.
        "体格＋近接＋Swords（4）で防御",
        "器用＋近接＋Swords（4）で防御",
        "知力＋近接＋Swords（4）で防御",
        "機知＋近接＋Swords（4）で防御",
    ]
    for line in lines:
        percent, fraction = line.split("**")[1].rstrip("%"), line.split("（")[-1].rstrip("）")
        numerator, denominator = (int(part) for part in fraction.split("/"))
        assert abs(float(percent) - 100 * numerator / denominator) <= 0.05 + 1e-9
    # Intelligence is Bram's d4: the attack is likelier to beat it than his d8 Physique.
    chances = [float(line.split("**")[1].rstrip("%")) for line in lines]
    assert chances[2] > chances[0]
    # A character the GMs run keeps its sheet to them: its odds too.
    wolf = await _template(table, table.gm)
    wolf["name"] = "Wolf"
    await harness.slash(table.gm, table.channel, "character import", npc=True,
                        file=("wolf.yaml", yaml.safe_dump(wolf).encode()))  # fmt: skip
    secret = (await harness.slash(table.aiko, table.channel, "odds", attacker="Aiko", defender="Wolf",
                                  action="Sword")).reply  # fmt: skip
    assert secret.content == (
        "The odds would show the sheet of a character the GMs run, or of a rival's kept private: only the GMs see them."
    )
    shown = (await harness.slash(table.gm, table.channel, "odds", attacker="Aiko", defender="Wolf",
                                 action="sword")).reply  # fmt: skip
    assert len(shown.embeds[0]["description"].splitlines()) == 4  # a plain weapon name works too


async def test_a_creature_the_gm_answers_for_in_advance_takes_a_hit_without_a_wait(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _import(table, aiko, await _template(table, aiko))
    wolf = await _template(table, gm)
    wolf.update(name="Wolf", crests=[{"name": "Crest of Fangs", "category": "martial_arts"}])
    text = yaml.safe_dump(wolf, allow_unicode=True).encode()
    await harness.slash(gm, table.channel, "character import", file=("wolf.yaml", text), npc=True)
    for wait, answer in (("defence_stat", "dexterity"), ("defence_skill", "Agility"), ("withstand", "armor"),
                         ("overflow", "wit")):  # fmt: skip
        preset = await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait=wait, answer=answer)
        assert preset.reply.ephemeral, preset.reply.content
    # The answers offered are the Wolf's own: its armour and its one crest, by name, the best first.
    typed = {"character": "Wolf", "wait": "withstand", "answer": ""}
    offered = await harness.emulator.autocomplete(gm, table.channel, "gm auto", typed, "answer")
    assert [choice["name"] for choice in offered][:2] == ["Crest of Fangs (2)", "Leather (0)"]
    missing = (await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait="withstand",
                                   answer="crest_2")).reply  # fmt: skip
    assert missing.ephemeral and "crest_2" in missing.content
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="weapons.0.rating", value="12")
    # Aiko's 6 + 5 + 3 = 14 beats the Wolf's 1 + 2 + 2 = 5 (no crits for a creature); 12 + 12 gets through 2.
    harness.dice.queue([6, 5, 4, 1, 2, 1, 6, 6, 1, 1])
    hit = (await harness.slash(aiko, table.channel, "attack", target="Wolf", action="melee|Sword")).reply
    assert hit.visible_to is EVERYONE
    shown = "\n".join(message.text() for message in harness.emulator.visible_to(aiko, table.channel)[-3:])
    # The steps read in the order they happened: the hit, then its damage.
    assert hit.text().index("Wolf is hit by Aiko") < hit.text().index("Damage 24 against withstand 2")
    # Dexterity holds 6 of the 22: the rest overflows, and each pool's share is told apart.
    assert "Damage 24 against withstand 2: Wolf takes 22.\nWolf loses 6 on Dexterity." in shown
    assert "Wolf takes 6 more on Wit." in shown
    assert "HP" not in harness.seen_by(aiko, table.channel).split("Aiko attacks Wolf")[-1]  # its pools stay hidden
    roster = (await harness.slash(gm, table.channel, "character list")).reply.text()
    wolf_line = next(line for line in roster.splitlines() if "**Wolf**" in line)
    assert "Dexterity HP 0/6" in wolf_line and "Wit HP 0/6" in wolf_line
    # The players' log says that the GMs planned ahead, not what they planned.
    players_log = (await harness.slash(aiko, table.channel, "log show")).reply.text()
    assert "gave the GMs' answers in advance for Wolf" in players_log
    # (Its Defense Roll, posted for all, names its skill: the lines of the answers given in advance do not.)
    assert not [line for line in players_log.splitlines() if "in advance" in line and "Agility" in line]
    gms_log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "set Wolf's answer in advance" in gms_log and "Agility" in gms_log
    # Wit is empty now, so the answer given in advance no longer fits: the GM is asked for the rest.
    recent = [message.content for message in harness.emulator.visible_to(gm, table.channel)[-4:]]
    assert "Wolf: 10 damage overflows. On which stat?" in recent, recent


async def test_claws_keep_their_rating_and_a_withstood_blow_says_no_damage(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _import(table, aiko, await _template(table, aiko))
    wolf = await _template(table, gm)
    wolf.update(name="Wolf", weapons=[{"name": "Fangs", "kind": "unarmed", "rating": 2}])
    await harness.slash(gm, table.channel, "character import", npc=True,
                        file=("wolf.yaml", yaml.safe_dump(wolf).encode()))  # fmt: skip
    offered = await harness.emulator.autocomplete(gm, table.channel, "attack", {"target": "Aiko", "action": ""},
                                                  "action")  # fmt: skip
    assert {"name": "Fangs (unarmed)", "value": "unarmed|Fangs"} in offered
    assert {"name": "Bare hands", "value": "unarmed|"} in offered
    await harness.slash(gm, table.channel, "character use", name="Wolf")
    nameless = (await harness.slash(gm, table.channel, "check")).reply
    assert nameless.content == "Name the stat to roll: one of Physique, Dexterity, Intelligence, Wit."
    # The Wolf's 6 + 5 + 3 (Unarmed 1) = 15 beats Aiko's 1 + 2 + 2 = 4; damage 1 + 1 + 2 (Fangs) = 4.
    harness.dice.queue([6, 5, 4])
    await harness.slash(gm, table.channel, "attack", target="Aiko", action="unarmed|Fangs")
    await harness.emulator.click(aiko, harness.last(table.channel, aiko), "Dexterity")
    harness.dice.queue([1, 2, 2, 1, 1])
    await harness.emulator.click(aiko, harness.last(table.channel, aiko), "No skill")
    await _let_it_stand(table, aiko)
    harness.dice.queue([3, 3])
    withstood = await harness.emulator.click(aiko, harness.last(table.channel, aiko), "Leather (0)")
    assert "Damage 4 against withstand 6: Aiko takes no damage." in withstood.replies[-1].text()
    assert "Dexterity HP 6/6" in await _pools(table, "Aiko")
    preset = await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait="defence_skill",
                                 answer="no_skill")  # fmt: skip
    assert "without asking" in preset.reply.content
    # What a GM changes on a character the GMs run stays between the GMs.
    edited = (await harness.slash(gm, table.channel, "character edit", name="Wolf", field="weaknesses",
                                  value="[fire]")).reply  # fmt: skip
    awarded = (await harness.slash(gm, table.channel, "gm award", character="Wolf", resource="wit", amount=-2)).reply
    assert edited.ephemeral and awarded.ephemeral
    sheet = (await harness.slash(gm, table.channel, "character show", name="Wolf")).reply
    assert "weak to fire; resistant to —" in sheet.text()
    log = (await harness.slash(aiko, table.channel, "log show")).reply.text()
    assert "edited Wolf's sheet" in log and "fire" not in log and "changed a pool of Wolf" in log
    await harness.slash(gm, table.channel, "combat start", order="Wolf, Aiko")
    for viewer, sees in ((aiko, False), (gm, True)):
        status = (await harness.slash(viewer, table.channel, "combat status")).reply
        wolf_line = next(line for line in status.embeds[0]["description"].splitlines() if "Wolf" in line)
        assert ("Wit HP 4/6" in wolf_line) is sees, wolf_line


async def test_a_player_names_skills_and_stats_in_their_own_language(table: Table) -> None:
    harness, ken = table.harness, table.ken
    cleo = await _template(table, ken)
    cleo["name"] = "Cleo"
    await _import(table, ken, cleo)
    offered = await harness.emulator.autocomplete(ken, table.channel, "check", {"stat": "機"}, "stat")
    assert offered == [{"name": "機知", "value": "Wit"}]
    harness.dice.queue([3, 5, 4])
    checked = (await harness.slash(ken, table.channel, "check", stat="Wit", details="skill:察知")).reply
    assert checked.embeds[0]["title"] == "Cleo: Wit + Awareness = 12"  # 5 + 4 + 3, in the campaign's language
    harness.dice.queue([3, 5, 4])
    typed = (await harness.slash(ken, table.channel, "check", stat="知力", details="skill:察知")).reply
    assert typed.embeds[0]["title"].startswith("Cleo: Intelligence + Awareness = ")  # a stat typed in Japanese


def _offering(table: Table, user: User, button: str) -> Message:
    """The newest message the user sees that offers this button."""
    seen = table.harness.emulator.visible_to(user, table.channel)
    return next(message for message in reversed(seen) if button in message.buttons())


async def _three_players(table: Table) -> None:
    """Aiko (aiko's), Bram (mei's) and Cleo (ken's), each with the session's Destiny Point."""
    await _import(table, table.aiko, await _template(table, table.aiko))
    for user, name in ((table.mei, "Bram"), (table.ken, "Cleo")):
        data = await _template(table, user)
        data["name"] = name
        await _import(table, user, data)


async def test_a_destiny_point_rolls_a_check_or_an_unresolved_attack_again(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    # Wit d6 + Awareness 3: base 2, 3; d6 1 -> 3 + 2 + 3 = 8. Aiko has a point, so the roll is hers to redo.
    harness.dice.queue([2, 3, 1])
    checked = (await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness")).reply
    assert checked.embeds[0]["title"] == "Aiko: Wit + Awareness = 8"
    offer = _offering(table, aiko, "Reroll (1 Destiny Point)")
    assert offer.content.startswith(
        f"{aiko.mention} Aiko: your roll of 8 can still be rolled again for a Destiny Point."
    )
    assert offer.buttons() == ["Reroll (1 Destiny Point)", "Let it stand", "Cancel (GM)"]
    not_hers = await harness.emulator.click(mei, offer, "Reroll (1 Destiny Point)")
    assert not_hers.reply.ephemeral
    harness.dice.queue([6, 5, 4])
    again = await harness.emulator.click(aiko, offer, "Reroll (1 Destiny Point)")
    assert again.replies[-1].embeds[0]["title"] == "Aiko: Wit + Awareness = 14"
    assert "Rolled again for a Destiny Point." in again.replies[-1].text()
    assert harness.current(offer).content == f"{aiko.mention} spends a Destiny Point: Aiko's roll of 8 is rolled again."
    assert "Destiny Points 0" in await _pools(table, "Aiko")
    assert "Reroll (1 Destiny Point)" not in harness.last(table.channel, aiko).buttons()  # no point left

    # M13: a critical failure is not settled while its roller may still pay to roll it again.
    await harness.slash(gm, table.channel, "gm award", character="Aiko", resource="destiny_points", amount=1)
    harness.dice.queue([1, 1, 5])
    fumbled = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword")).reply
    assert "Critical failure: the attack misses." in fumbled.text()
    offer = _offering(table, aiko, "Reroll (1 Destiny Point)")
    assert offer.buttons() == ["Reroll (1 Destiny Point)", "Let it stand", "Cancel (GM)"]
    assert "Defend with which stat?" not in harness.last(table.channel, mei).content
    harness.dice.queue([6, 6, 2])  # a double six this time: a hit whatever Bram does, and a point back
    again = await harness.emulator.click(aiko, offer, "Reroll (1 Destiny Point)")
    shown = "\n".join(reply.text() for reply in again.replies)
    assert "Aiko attacks Bram: 15" in shown and "Aiko earns a Destiny Point." in shown
    assert "Destiny Points 1" in await _pools(table, "Aiko")
    # A critical attack hits whatever the defence (R3): Bram names the stat it lands on (C8), and rolls nothing.
    prompt = harness.last(table.channel, mei)
    assert prompt.content == (
        f"{mei.mention} Bram: Aiko's critical attack (15) hits whatever the defence. Which stat takes the damage?"
    )
    assert prompt.buttons() == ["Physique", "Dexterity", "Intelligence", "Wit", "Cancel (GM)"]
    # Still unsettled, the new roll can be redone until Bram answers; his answer settles it.
    offer = _offering(table, aiko, "Reroll (1 Destiny Point)")
    assert offer.content.startswith(f"{aiko.mention} Aiko: your roll of 15 is not settled until it is answered.")
    landed = await harness.emulator.click(mei, prompt, "Dexterity")
    assert harness.current(offer).buttons() == []
    assert harness.current(offer).content == "Aiko's roll of 15 is settled: it stands."
    struck = landed.replies[-1].text()
    assert "Bram is hit by Aiko" in struck and "The damage dice count as 12." in struck
    assert "Dexterity die" not in struck  # no Defense Roll
    withstand = harness.last(table.channel, mei)
    assert withstand.content == f"{mei.mention} Bram: withstand 12 damage with what?"  # no skill asked, no defence
    harness.dice.queue([6, 6])
    await harness.emulator.click(mei, withstand, "Leather (0)")

    # A check's offer lapses on its own: after an hour the roll stands.
    harness.dice.queue([4, 4, 4])
    await harness.slash(aiko, table.channel, "check", stat="Physique")
    offer = _offering(table, aiko, "Let it stand")
    harness.emulator.clock.advance(3601)
    await harness.eventually(lambda: harness.current(offer).buttons() == [])
    assert "Let it stand" in harness.current(offer).content
    assert "Destiny Points 1" in await _pools(table, "Aiko")
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Aiko spent a Destiny Point on a reroll" in log

    # The new result replaces the old: a critical success rolled away takes its Destiny Point with it.
    harness.dice.queue([6, 6, 1])
    await harness.slash(aiko, table.channel, "check", stat="Physique")
    assert "Destiny Points 2" in await _pools(table, "Aiko")
    harness.dice.queue([2, 3, 1])
    redone = await harness.emulator.click(aiko, _offering(table, aiko, "Let it stand"), "Reroll (1 Destiny Point)")
    assert "the Destiny Point it earned goes with it" in redone.replies[-1].text()
    assert "Destiny Points 0" in await _pools(table, "Aiko")


async def test_another_player_intercepts_an_attack_for_a_destiny_point(table: Table) -> None:
    harness, aiko, mei, ken = table.harness, table.aiko, table.mei, table.ken
    await _three_players(table)
    harness.dice.queue([4, 2, 5])  # Physique d8, Melee 3: 5 + 4 + 3 = 12
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword")
    bram_prompt = harness.last(table.channel, mei)
    offer = _offering(table, ken, "Intercept (1 Destiny Point)")
    assert offer.content == "Any player: spend a Destiny Point to take the attack of Aiko (12) in place of Bram?"
    assert ken.mention not in offer.content
    own = await harness.emulator.click(mei, offer, "Intercept (1 Destiny Point)")
    assert own.reply.ephemeral
    assert own.reply.content == "Bram 已经是这次攻击的当事人：拦截只能替别人挡攻击。"  # in mei's language
    taken = await harness.emulator.click(ken, offer, "Intercept (1 Destiny Point)")
    assert "Cleo spends a Destiny Point and takes the attack of Aiko meant for Bram." in taken.replies[-1].text()
    assert harness.current(offer).content == f"{ken.mention} intercepts the attack meant for Bram."
    assert harness.current(bram_prompt).buttons() == []
    cleo_prompt = harness.last(table.channel, ken)
    assert cleo_prompt.content == f"{ken.mention} Cleo: Aiko attacks you (12). Defend with which stat?"
    refused = await harness.emulator.click(mei, cleo_prompt, "Dexterity")
    assert refused.reply.ephemeral
    await harness.emulator.click(ken, cleo_prompt, "Dexterity")
    harness.dice.queue([6, 5, 6])  # 6 + 6, no skill: 12 ties the attack, a miss
    missed = await harness.emulator.click(ken, harness.last(table.channel, ken), "No skill")
    assert "Cleo avoids the attack of Aiko" in missed.replies[-1].text()
    assert "Destiny Points 0" in await _pools(table, "Cleo")
    assert "Destiny Points 1" in await _pools(table, "Bram")

    harness.dice.queue([4, 2, 5])
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword")
    broke = await harness.emulator.click(ken, _offering(table, ken, "Intercept (1 Destiny Point)"),
                                         "Intercept (1 Destiny Point)")  # fmt: skip
    assert (
        broke.reply.ephemeral and broke.reply.content == "使えるデスティニーポイントがありません。"
    )  # in ken's language
    log = (await harness.slash(table.gm, table.channel, "log show")).reply.text()
    assert "Cleo spent a Destiny Point to take the attack meant for Bram" in log


async def test_boons_asked_of_the_gms_are_granted_or_lapse_at_the_deadline(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    asked = (await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness boons:1")).reply
    assert asked.visible_to is EVERYONE
    assert asked.buttons() == ["Grant", "Refuse"]
    assert "Aiko asks, for the Wit + Awareness check: boons 1. Grant it?" in asked.content
    assert "Refuse" in asked.content  # what the deadline answers
    not_a_gm = await harness.emulator.click(aiko, asked, "Grant")
    assert not_a_gm.reply.ephemeral
    harness.dice.queue([2, 3, 1, 4])  # 3 + 2 + Awareness 3, and the boon's d4: 12
    granted = await harness.emulator.click(gm, asked, "Grant")
    assert granted.replies[-1].embeds[0]["title"] == "Aiko: Wit + Awareness = 12"
    assert "A GM granted what Aiko asked for." in granted.replies[-1].text()
    assert (
        harness.current(asked).content
        == f"{gm.mention} grants Aiko what was asked for the Wit + Awareness check: boons 1."
    )

    # No GM around: when the time is up the attack is rolled without the boons, and Bram is asked to defend.
    waiting = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword",
                                   details="boons:2")).reply  # fmt: skip
    assert "Aiko asks, for the attack on Bram: boons 2. Grant it?" in waiting.content
    harness.dice.queue([4, 2, 5])
    harness.emulator.clock.advance(3601)
    await harness.eventually(lambda: "Defend with which stat?" in harness.last(table.channel, mei).content)
    seen = harness.seen_by(gm, table.channel)
    assert "No GM answered Aiko's request in time: rolled without it." in seen
    assert "Aiko attacks Bram: 12" in seen
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert f"{gm.mention} granted what Aiko asked for: boons 1" in log
    assert "Aiko rolled without what was asked for: boons 2" in log
    # Another skill for a sword is a GM's call (R6: a skill "they can rationalize"); refused, the usual one counts.
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    wrestle = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword",
                                   details="skill:athletics")).reply  # fmt: skip
    assert "Aiko asks, for the attack on Bram: Athletics instead of Melee. Grant it?" in wrestle.content
    harness.dice.queue([4, 2, 5])
    refused = await harness.emulator.click(gm, wrestle, "Refuse")
    assert "+3 (Melee)" in refused.replies[-1].text() and "Athletics" not in refused.replies[-1].text()
    assert harness.current(wrestle).content == f"{gm.mention} refuses Aiko's request: the roll goes ahead without it."
    unknown = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Spear",
                                   details="boons:1")).reply  # fmt: skip
    assert unknown.ephemeral and "Spear is not one of this character's attacks" in unknown.content


async def test_a_players_boons_and_modifiers_wait_for_a_gm_and_a_gms_own_apply_at_once(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    # R2 and R6: boons are the GM's to grant, modifiers the GM's to deem fit. Nothing is rolled before a GM answers.
    asked = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword",
                                 details="modifier:20 boons:2")).reply  # fmt: skip
    assert asked.buttons() == ["Grant", "Refuse"] and not asked.embeds
    assert "Aiko asks, for the attack on Bram: boons 2; modifier +20. Grant it?" in asked.content
    assert "attacks Bram" not in harness.seen_by(mei, table.channel)
    assert (await harness.emulator.click(aiko, asked, "Grant")).reply.ephemeral  # only a GM grants
    # Physique d8 + Melee 3: base 4, 2; d8 5 -> 9 + 3 + 20, and the boons' d4s 1, 3: 35.
    harness.dice.queue([4, 2, 5, 1, 3])
    declared = (await harness.emulator.click(gm, asked, "Grant")).replies[-1]
    assert declared.embeds[0]["title"] == "Aiko attacks Bram: 35"
    assert "+3 (Melee) +20 (GM) +3 (boons) = **35**" in declared.text()
    assert "A GM granted what Aiko asked for." in declared.text()
    assert "Defend with which stat?" in harness.last(table.channel, mei).content
    # The roll is the player's who asked, the grant the GM's; the request says what it asked for.
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert f"{aiko.mention} asked the GMs for Aiko, for the attack on Bram: boons 2; modifier +20" in log
    assert f"{aiko.mention}: Aiko attacks Bram with Sword (melee): **35**" in log
    assert f"{gm.mention}: Aiko attacks Bram" not in log
    assert f"{gm.mention} granted what Aiko asked for: boons 2; modifier +20" in log

    # /check's modifier is the GM's too; refused, the check is rolled without it.
    check = (await harness.slash(aiko, table.channel, "check", stat="Wit", modifier=15)).reply
    assert "Aiko asks, for the Wit check: modifier +15. Grant it?" in check.content
    harness.dice.queue([2, 3, 1])
    refused = (await harness.emulator.click(gm, check, "Refuse")).replies[-1]
    assert refused.embeds[0]["title"] == "Aiko: Wit = 5" and "(GM)" not in refused.text()
    assert "A GM refused what Aiko asked for: rolled without it." in refused.text()
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Aiko rolled without what was asked for: modifier +15" in log
    # What the roll would refuse is refused before the GMs are asked.
    both = (await harness.slash(aiko, table.channel, "check", stat="Wit", target=10, against="Bram",
                                modifier=2)).reply  # fmt: skip
    assert both.ephemeral and "no target number" in both.content

    # A GM's own roll, for a character the GMs run, asks no one.
    wolf = await _template(table, gm)
    wolf["name"] = "Wolf"
    await harness.slash(gm, table.channel, "character import", npc=True,
                        file=("wolf.yaml", yaml.safe_dump(wolf).encode()))  # fmt: skip
    await harness.slash(gm, table.channel, "character use", name="Wolf")
    harness.dice.queue([2, 3, 1, 4])  # 3 + 2, the GM's 15 and the boon's 4
    own = (await harness.slash(gm, table.channel, "check", stat="Wit", modifier=15,
                               details="boons:1")).reply  # fmt: skip
    assert not own.buttons() and own.embeds[0]["title"] == "Wolf: Wit = 24"


async def test_a_request_is_not_rolled_for_a_character_that_fell_or_was_deleted_meanwhile(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    asked = (await harness.slash(aiko, table.channel, "check", stat="Wit", modifier=5)).reply
    await harness.slash(gm, table.channel, "gm award", character="Aiko", resource="consequence", amount=3)
    # Out of the fight while the GMs were asked: no answer rolls for her; the request ends saying why.
    dropped = await harness.emulator.click(gm, asked, "Grant")
    assert dropped.replies[-1].content == (
        "Nothing is rolled for Aiko's request: Aiko is out of the fight and cannot act."
    )
    assert not harness.current(asked).buttons() and "Aiko: Wit" not in harness.seen_by(gm, table.channel)
    # So does one the deadline answers.
    harness.dice.queue([2, 3, 1])
    await harness.slash(mei, table.channel, "check", stat="Wit")
    await harness.slash(mei, table.channel, "check", stat="Wit", details="boons:1")
    await harness.slash(gm, table.channel, "gm award", character="Bram", resource="consequence", amount=4)
    harness.emulator.clock.advance(3601)
    await harness.eventually(lambda: "Nothing is rolled for Bram's request" in harness.seen_by(gm, table.channel))
    assert harness.seen_by(gm, table.channel).count("Bram: Wit") == 1
    log = (await harness.slash(mei, table.channel, "log show")).reply.text()
    assert "Aiko 的请求（修正 +5）未能掷骰：Aiko" in log and "Bram 的请求（增益 1）未能掷骰：Bram" in log
    assert f"{mei.mention} 用 Bram 检定 机智：" in log  # the stat in the reader's words

    # A character deleted while its request waits leaves nothing to grant: the request closes with it.
    attack = (await harness.slash(table.ken, table.channel, "attack", target="Aiko", action="Sword",
                                  details="boons:1")).reply  # fmt: skip
    assert attack.buttons() == ["Grant", "Refuse"]
    deleted = await harness.slash(gm, table.channel, "character delete", name="Aiko")
    assert deleted.error is None, deleted.error
    assert not harness.current(attack).buttons() and gm.mention in harness.current(attack).content
    pending = await harness.slash(gm, table.channel, "gm pending")
    assert "Cleo attacks Aiko" not in "\n".join(reply.content for reply in pending.replies)


async def test_two_attack_requests_in_one_turn_roll_one_attack_roll(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _three_players(table)
    await harness.slash(gm, table.channel, "combat start", order="Aiko, Bram, Cleo")
    first = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword",
                                 details="boons:1")).reply  # fmt: skip
    second = (await harness.slash(aiko, table.channel, "attack", target="Cleo", action="Sword",
                                  details="boons:2")).reply  # fmt: skip
    # Both wait for the GMs, each listed with what it asks (its prompt may be long gone).
    pending = await harness.slash(gm, table.channel, "gm pending")
    listed = [reply.content for reply in pending.replies if reply.buttons() == ["Grant", "Refuse"]]
    assert len(listed) == 2 and listed[1].endswith("GMs: Aiko asks, for the attack on Cleo: boons 2. Grant it?")
    harness.dice.queue([4, 2, 5, 3])
    granted = await harness.emulator.click(gm, first, "Grant")
    assert granted.replies[-1].embeds[0]["title"] == "Aiko attacks Bram: 15"
    # C25: one Attack Roll a turn. The other request can no longer be rolled, whatever the GMs answer: it ends.
    dropped = (await harness.emulator.click(gm, second, "Refuse")).replies[-1]
    assert dropped.content.startswith("Nothing is rolled for Aiko's request: Aiko has made this round's Attack Roll")
    assert not harness.current(second).buttons() and "Aiko attacks Cleo:" not in harness.seen_by(gm, table.channel)


async def test_the_passive_side_of_an_opposed_check_asks_for_an_unusual_skill(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    # R4 reuses R6: Subterfuge against Lore is no usual defence, so a GM agrees to it first.
    harness.dice.queue([4, 3, 2])
    await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="Bram", details="skill:Subterfuge")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Lore + History 3")
    asked = harness.last(table.channel, gm)
    assert asked.content.startswith("GMs: Bram opposes Aiko's check with Lore, not one of the usual skills.")
    assert asked.buttons() == ["Grant", "Refuse"]
    refused = await harness.emulator.click(gm, asked, "Refuse")
    assert not any(reply.embeds for reply in refused.replies)  # nothing rolled yet
    usual = harness.last(table.channel, mei)
    assert usual.content == f"{mei.mention} Bram: oppose with Wit and which of the usual skills?"
    assert "Lore + History 3" not in usual.buttons() and "Awareness + Sight 4" in usual.buttons()
    harness.dice.queue([3, 3, 1])  # Wit d6 + Awareness 3 + Sight 1: 6 + 4 = 10
    held = await harness.emulator.click(mei, usual, "Awareness + Sight 4")
    assert held.replies[-1].embeds[0]["title"] == "Aiko 7 against Bram 10: Bram holds"

    harness.dice.queue([4, 3, 2])
    await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="Bram", details="skill:Subterfuge")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Lore + History 3")
    harness.dice.queue([3, 3, 1])  # Wit d6 + Lore 2 + History 1: 6 + 3 = 9
    granted = await harness.emulator.click(gm, harness.last(table.channel, gm), "Grant")
    assert granted.replies[-1].embeds[0]["title"] == "Aiko 7 against Bram 9: Bram holds"
    assert "+2 (Lore) +1 (History)" in granted.replies[-1].text()

    # The passive side deleted while the GMs are asked: either answer says why the check cannot go on.
    harness.dice.queue([4, 3, 2])
    await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="Bram", details="skill:Subterfuge")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Lore + History 3")
    asked = harness.last(table.channel, gm)
    await harness.slash(gm, table.channel, "character delete", name="Bram")
    for choice in ("Refuse", "Grant"):
        gone = await harness.emulator.click(gm, asked, choice)
        assert gone.reply.ephemeral and "A character of this roll is gone" in gone.reply.content


async def test_standing_boons_and_modifiers_set_in_advance_count_until_cleared(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    refused = (await harness.slash(aiko, table.channel, "standing set", character="Aiko", boons=3)).reply
    assert refused.ephemeral
    assert "Destiny Points" not in refused.content and "GM" in refused.content
    set_ = (await harness.slash(gm, table.channel, "standing set", character="aiko", boons=1, modifier=-2)).reply
    assert set_.visible_to is EVERYONE
    assert set_.content == "Until a GM clears it, every action roll of Aiko has: boons 1, banes 0, modifier -2."
    sheet = (await harness.slash(aiko, table.channel, "character show", name="Aiko")).reply
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    assert fields["Standing (until a GM clears it)"] == "boons 1, banes 0, modifier -2"
    # Wit d6 + Awareness 3: base 2, 3; d6 1 -> 8, -2 standing, and the standing boon's d4 of 4: 10.
    harness.dice.queue([2, 3, 1, 4])
    checked = (await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness")).reply
    assert checked.embeds[0]["title"] == "Aiko: Wit + Awareness = 10"
    assert "-2 (standing)" in checked.embeds[0]["description"]

    # A scene's bane on everyone, kept apart from Aiko's own boon: both count. A defence gets the modifiers, not the
    # boons and banes (C5).
    scene = (await harness.slash(gm, table.channel, "standing set", banes=1, modifier=1)).reply
    assert scene.content.splitlines() == [
        "Until a GM clears it, every action roll of everyone in the campaign has: boons 0, banes 1, modifier +1.",
        "The own standing of Aiko stays, and still counts.",
    ]
    sheet = (await harness.slash(aiko, table.channel, "character show", name="Aiko")).reply
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    assert fields["Standing (until a GM clears it)"] == (
        "own: boons 1, banes 0, modifier -2 · everyone's: boons 0, banes 1, modifier +1"
    )
    harness.dice.queue([4, 2, 5])  # Aiko: 5 + 4 + Melee 3, -2 + 1; her boon and the bane cancel out: no d4
    attacked = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="melee|Sword")).reply
    assert attacked.embeds[0]["title"] == "Aiko attacks Bram: 11"
    assert "+3 (Melee) -1 (standing) = **11**" in attacked.text() and "boons" not in attacked.text()
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([5, 3, 6])
    defended = await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    assert "+1 (standing) = **12**" in defended.replies[-1].text()  # 6 + 5 + 1, no bane die
    # Clearing the scene's leaves each character's own, and says so.
    cleared = (await harness.slash(gm, table.channel, "standing clear")).reply
    assert cleared.content.splitlines() == [
        "The standing on everyone in the campaign is cleared.",
        "The own standing of Aiko stays, and still counts.",
    ]
    again = (await harness.slash(gm, table.channel, "standing clear")).reply
    assert again.ephemeral and again.content == "There is no standing on everyone in the campaign to clear."
    harness.dice.queue([2, 3, 1, 4])
    kept = (await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness")).reply
    assert kept.embeds[0]["title"] == "Aiko: Wit + Awareness = 10"
    own = (await harness.slash(gm, table.channel, "standing clear", character="Aiko")).reply
    assert own.content == "Aiko: no standing boons, banes or modifier any more."
    harness.dice.queue([2, 3, 1])
    plain = (await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness")).reply
    assert plain.embeds[0]["title"] == "Aiko: Wit + Awareness = 8"
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "set the standing boons of Aiko: boons 1, banes 0, modifier -2" in log


async def test_an_area_attack_rolls_once_and_each_defender_answers_in_turn(table: Table) -> None:
    harness, gm, aiko, mei, ken = table.harness, table.gm, table.aiko, table.mei, table.ken
    await _three_players(table)
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="weapons.0.rating", value="2")
    harness.dice.queue([4, 2, 5])  # one Attack Roll for both: 5 + 4 + Melee 3 = 12
    declared = (await harness.slash(aiko, table.channel, "attack", target="Bram, Cleo", action="Sword")).reply
    assert declared.embeds[0]["title"] == "Aiko attacks Bram, Cleo: 12"
    prompt = harness.last(table.channel, mei)
    assert prompt.content == f"{mei.mention} Bram: Aiko attacks you (12). Defend with which stat?"
    assert not any("Cleo: Aiko attacks you" in message.content for message in harness.emulator.messages)

    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([1, 2, 1])  # Bram's 2 + 1 = 3 is hit
    await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    # Bram spends his Destiny Point on his Defense Roll; 2 + 2 is still a hit, and the point is gone.
    harness.dice.queue([2, 2, 1, 3, 4])  # then the attack's damage dice 3, 4: 7 + 2
    offer = _offering(table, mei, "Reroll (1 Destiny Point)")
    again = await harness.emulator.click(mei, offer, "Reroll (1 Destiny Point)")
    assert "Rolled again for a Destiny Point." in again.replies[-1].text()
    assert "Destiny Points 0" in await _pools(table, "Bram")
    harness.dice.queue([1, 1])  # withstand 2: 7 through, 6 on Dexterity and one more to place
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Leather (0)")
    placed = await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    assert "Bram takes 1 more on Wit." in "\n".join(reply.text() for reply in placed.replies)
    cleo_prompt = harness.last(table.channel, ken)
    assert cleo_prompt.content == f"{ken.mention} Cleo: Aiko attacks you (12). Defend with which stat?"

    # A GM rules Cleo helpless (C8): no Defense Roll, and Cleo picks the stat that takes the hit.
    not_a_gm = await harness.emulator.click(ken, cleo_prompt, "Helpless (GM ruling)")
    assert not_a_gm.reply.ephemeral
    ruled = await harness.emulator.click(gm, cleo_prompt, "Helpless (GM ruling)")
    assert "A GM rules Cleo helpless: no Defense Roll, the attack hits." in ruled.replies[-1].text()
    which = harness.last(table.channel, ken)
    assert which.content == (
        f"{ken.mention} Cleo: a GM rules you helpless, so the attack hits. Which stat takes the damage?"
    )
    hit = await harness.emulator.click(ken, which, "Wit")
    assert (
        "damage (the attack's dice): 2d6 [3, 4] +2 (rating) = **9**" in hit.replies[-1].text()
    )  # helpless: no roll to redo
    harness.dice.queue([2, 2])
    await harness.emulator.click(ken, harness.last(table.channel, ken), "Leather (0)")
    assert "Wit HP 1/6" in await _pools(table, "Cleo")
    assert "Dexterity HP 0/6 · Intelligence HP 4/4 · Wit HP 5/6" in await _pools(table, "Bram")

    # Past serious (out of the fight) a blow still lands: dying, then dead, and then no more attacks.
    for resource in ("physique", "intelligence", "wit"):
        await harness.slash(gm, table.channel, "gm award", character="Bram", resource=resource, amount=-12)
    await harness.slash(gm, table.channel, "gm award", character="Bram", resource="consequence", amount=3)
    for level in ("dying", "dead"):
        harness.dice.queue([4, 2, 5])
        await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
        down = harness.last(table.channel, mei)  # unconscious or dying, Bram cannot defend: it is a hit
        assert down.content == f"{mei.mention} Bram is down and cannot defend against Aiko (12): the attack hits."
        # Every pool is empty: whatever the stat, the ladder climbs (R10). Bram only takes the hit, once the
        # other players have had their chance to step in for him.
        assert down.buttons() == ["Take the hit", "Cancel (GM)"]
        assert _offering(table, table.ken, "Intercept (1 Destiny Point)") is not None
        harness.dice.queue([3, 4])
        struck = await harness.emulator.click(mei, down, "Take the hit")
        assert "Bram is down and cannot defend: the attack hits." in struck.replies[-1].text()
        harness.dice.queue([1, 1])
        landed = await harness.emulator.click(mei, harness.last(table.channel, mei), "Leather (0)")
        assert f"Bram now has a consequence: {level}" in landed.replies[-1].text()
        assert "of it finds no HP left on Bram." in landed.replies[-1].text()
    assert "Bram is dead." in landed.replies[-1].text()
    over = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert over.ephemeral and over.content == "Bram is dead and cannot take part."


async def test_a_downed_creature_is_struck_at_once_and_the_gms_answers_in_advance_place_its_hits_and_heals(
    table: Table,
) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _import(table, aiko, await _template(table, aiko))
    wolf = await _template(table, gm)
    wolf["name"] = "Wolf"
    await harness.slash(gm, table.channel, "character import", npc=True,
                        file=("wolf.yaml", yaml.safe_dump(wolf).encode()))  # fmt: skip
    await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait="withstand", answer="armor")
    for resource, amount in (("physique", -8), ("dexterity", -6), ("intelligence", -4), ("wit", -6),
                             ("consequence", 3)):  # fmt: skip
        await harness.slash(gm, table.channel, "gm award", character="Wolf", resource=resource, amount=amount)

    async def nothing_waits() -> bool:
        pending = (await harness.slash(gm, table.channel, "gm pending")).reply
        return "Nothing is waiting for an answer." in pending.text()

    # Unconscious, every pool empty: whatever stat it named, the hit only climbs the ladder (R10). Nobody is asked.
    harness.dice.queue([4, 2, 5, 3, 4, 1, 1])  # 12; damage 3 + 4 against Leather's 1 + 1
    await harness.slash(aiko, table.channel, "attack", target="Wolf", action="Sword")
    shown = harness.seen_by(gm, table.channel).split("Aiko attacks Wolf: 12")[-1]
    assert "Wolf is down and cannot defend: the attack hits." in shown
    assert "Damage 7 against withstand 2: Wolf takes 5." in shown and "Wolf now has a consequence: dying." in shown
    assert await nothing_waits()

    # The GMs place a heal in advance, and name the stat a hit lands on while it cannot defend (C8).
    await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait="heal_pool", answer="dexterity")
    healed = (await harness.slash(gm, table.channel, "heal", character="Wolf", amount=4)).reply
    assert "Wolf recovers 4 on Dexterity." in healed.text()
    await harness.slash(gm, table.channel, "gm award", character="Wolf", resource="wit", amount=6)
    await harness.slash(gm, table.channel, "gm auto", character="Wolf", wait="defence_stat", answer="wit")
    harness.dice.queue([4, 2, 5, 3, 4, 1, 1])
    await harness.slash(aiko, table.channel, "attack", target="Wolf", action="Sword")
    shown = harness.seen_by(gm, table.channel).split("Aiko attacks Wolf: 12")[-1]
    assert "Damage 7 against withstand 2: Wolf takes 5 on Wit." in shown
    assert await nothing_waits()
    roster = (await harness.slash(gm, table.channel, "character list")).reply.text()
    wolf_line = next(line for line in roster.splitlines() if "**Wolf**" in line)
    assert "Dexterity HP 4/6" in wolf_line and "Wit HP 1/6" in wolf_line


async def test_a_critical_says_what_it_decided_and_the_gms_are_told_of_its_turn_of_events(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)

    def told() -> list[str]:
        return [message.content for message in harness.emulator.dms(gm)
                if "turn of events" in message.content and f"<#{table.channel.id}>" in message.content]  # fmt: skip

    # A check's critical stands once Aiko lets it (she could still roll it again): then the GMs are told, privately.
    harness.dice.queue([6, 6, 1])
    await harness.slash(aiko, table.channel, "check", stat="Wit", details="skill:Awareness")
    assert told() == []
    await harness.emulator.click(aiko, _offering(table, aiko, "Let it stand"), "Let it stand")
    await harness.eventually(lambda: len(told()) == 1)
    assert told() == [
        "Aiko rolled a critical success on a Wit + Awareness check: the rules give Aiko a good turn of events, "
        f"yours to add.\n— <#{table.channel.id}>"
    ]

    # Both sides of an opposed check roll a double six: the active side's wins (C2), and the note says so.
    harness.dice.queue([6, 6, 1])
    await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="Bram")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    harness.dice.queue([6, 6, 1])
    both = (await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")).replies[-1]
    assert both.embeds[0]["title"] == "Aiko 12 against Bram 12: Aiko wins"
    assert "Double six for Bram, but Aiko's check succeeds all the same." in both.text()
    assert "fails whatever its total" not in both.text()
    await harness.eventually(lambda: len(told()) == 3)
    assert told()[1].startswith("Aiko rolled a critical success on a Dexterity check")
    assert told()[2].startswith("Bram rolled a critical success on opposing Aiko's check")

    # With `crit_success_autopasses` off a defence's double six counts by its total, and does not say it misses.
    await harness.slash(gm, table.channel, "campaign set", option="crit_success_autopasses", value="false")
    harness.dice.queue([5, 5, 8])  # Physique d8 + Melee 3: 8 + 5 + 3 = 16
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([6, 6, 1])
    hit = (await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")).replies[-1].text()
    assert "Bram is hit by Aiko" in hit and "Critical defence, yet the attack hits." in hit
    assert "the attack misses" not in hit
    await _let_it_stand(table, mei)
    await harness.eventually(lambda: len(told()) == 4)
    assert told()[3].startswith("Bram rolled a critical success on the defence against Aiko")


async def test_rulebook_crests_their_ladders_and_crest_specialties_on_damage_and_withstand(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _import(table, aiko, await _template(table, aiko))
    bram = await _template(table, mei)
    bram.update(name="Bram", crests=[{"name": "crest of tides"}])  # the rulebook's crest: its category is known
    imported = await _import(table, mei, bram)
    assert not imported.ephemeral, imported.content
    sheet = (await harness.slash(aiko, table.channel, "character show", name="Aiko")).reply
    crests = next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Crests (rank)")
    assert crests == "Crest of Flames (2): can create bolts of flame"
    for name, form in (("Bram", "Water Wall"), ("Aiko", "Explosion")):
        edited = await harness.slash(gm, table.channel, "character edit", name=name, field="crests.0.specialties.0",
                                     value=f"{{name: {form}}}")  # fmt: skip
        assert not edited.reply.ephemeral, edited.reply.content
    # A crest acquired after creation starts at rank 1 (R13).
    await harness.slash(
        gm, table.channel, "character edit", name="Bram", field="crests.1", value="{name: Crest of Sabers}"
    )
    sheet = (await harness.slash(mei, table.channel, "character show", name="Bram")).reply
    assert "Crest of Tides (2), specialties Water Wall 1 · Crest of Sabers (1)" in sheet.text()

    wrong = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword",
                                 details="form:Explosion")).reply  # fmt: skip
    assert (
        wrong.ephemeral
        and wrong.content == "Explosion is a crest's specialty: name it when you attack with that crest."
    )
    # Intelligence d4, no Magecraft: 6 + 5 = 11 against Bram's 2 + 1 = 3. Damage 3 + 3, rank 2, Explosion 1: 9.
    harness.dice.queue([6, 5, 1])
    await harness.slash(
        aiko, table.channel, "attack", target="Bram", action="Crest of Flames", details="form:explosion"
    )
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([2, 1, 1, 3, 3])
    await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    hit = await harness.emulator.click(mei, _offering(table, mei, "Let it stand"), "Let it stand")
    assert "2d6 [3, 3] +2 (Crest of Flames) +1 (crest specialty) = **9**" in hit.replies[-1].text()
    withstand = harness.last(table.channel, mei)
    assert withstand.buttons()[:3] == ["Crest of Tides as Water Wall (3)", "Crest of Tides (2)", "Crest of Sabers (1)"]
    harness.dice.queue([3, 3])
    held = await harness.emulator.click(mei, withstand, "Crest of Tides as Water Wall (3)")
    assert "Damage 9 against withstand 9: Bram takes no damage." in held.replies[-1].text()

    # C7's alternative: the crest's rank on the Attack Roll where it beats the skill (Magecraft 0 here).
    await harness.slash(gm, table.channel, "campaign set", option="crest_rank_on_action_rolls", value="true")
    harness.dice.queue([6, 5, 1])
    ranked = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Crest of Flames")).reply
    assert "+2 (Crest of Flames) = **13**" in ranked.text()


async def test_an_opposed_check_outside_a_fight_is_answered_by_the_other_side(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    harness.dice.queue([4, 3, 2])  # Dexterity d6, no Subterfuge: 4 + 3 = 7
    sneaking = (await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="bram",
                                    details="skill:Subterfuge")).reply  # fmt: skip
    assert sneaking.embeds[0]["title"] == "Aiko: Dexterity + Subterfuge = 7"
    prompt = harness.last(table.channel, mei)
    assert prompt.content == f"{mei.mention} Bram: Aiko's check (7) is made against you. Oppose it with which stat?"
    await harness.emulator.click(mei, prompt, "Wit")
    question = harness.last(table.channel, mei)
    assert question.content == f"{mei.mention} Bram: oppose with Wit and which skill?"
    harness.dice.queue([3, 3, 1])  # Wit d6 + Awareness 3 + Sight 1: 6 + 4 = 10
    held = await harness.emulator.click(mei, question, "Awareness + Sight 4")
    assert held.replies[-1].embeds[0]["title"] == "Aiko 7 against Bram 10: Bram holds"

    harness.dice.queue([6, 5, 4])
    await harness.slash(aiko, table.channel, "check", stat="Dexterity", against="Bram")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    harness.dice.queue([1, 2, 2])
    won = await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    assert won.replies[-1].embeds[0]["title"] == "Aiko 11 against Bram 4: Aiko wins"
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Bram held against Aiko's opposed check (10 to 7)" in log
    assert "Aiko won an opposed check against Bram (11 to 4)" in log

    both = (await harness.slash(aiko, table.channel, "check", stat="Wit", target=10, against="Bram")).reply
    assert both.ephemeral and "no target number" in both.content
    alone = (await harness.slash(aiko, table.channel, "check", stat="Wit", against="Aiko")).reply
    assert alone.ephemeral and alone.content == "A check cannot be opposed by the character making it."
    elsewhere = harness.new_channel(table.guild)
    await harness.slash(gm, elsewhere, "campaign start", ruleset="fate_points", name="Other")
    other = (await harness.slash(gm, elsewhere, "check", stat="STR", against="Bram")).reply
    assert other.ephemeral and "no opposed checks" in other.content
    # A refusal names stats in the reader's words.
    full = (await harness.slash(mei, table.channel, "destiny spend", use="reallocate_hp", stat="Wit", to="Physique",
                                amount=1)).reply  # fmt: skip
    assert full.ephemeral and full.content == "体魄 只能再容纳 0 点HP。"


async def test_a_gm_heals_by_an_amount_or_a_healers_roll_and_the_healed_one_places_it(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    for resource, amount in (("dexterity", -6), ("wit", -3)):
        await harness.slash(gm, table.channel, "gm award", character="Bram", resource=resource, amount=amount)
    refused = (await harness.slash(aiko, table.channel, "heal", character="Bram", amount=5)).reply
    assert refused.ephemeral
    vague = (await harness.slash(gm, table.channel, "heal", character="Bram")).reply
    assert vague.ephemeral and vague.content == "Say how many HP, or name the healer whose roll decides."

    await harness.slash(gm, table.channel, "heal", character="Bram", amount=5)
    where = harness.last(table.channel, mei)
    assert where.content == f"{mei.mention} Bram: 5 HP to place. Into which pool?"
    assert where.buttons()[:2] == ["Dexterity", "Wit"]
    placed = await harness.emulator.click(mei, where, "Dexterity")
    assert "Bram recovers 5 on Dexterity." in placed.replies[-1].text()
    sheet = (await harness.slash(mei, table.channel, "character show", name="Bram")).reply
    assert "Dexterity d6 · " in next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Stat dice")

    # Aiko has no healing crest: her Medicine 2 goes on the 2d6 (C19's house default).
    harness.dice.queue([6, 6])
    rolled = (await harness.slash(gm, table.channel, "heal", character="Bram", healer="Aiko")).reply
    assert "healing: 2d6 [6, 6] +2 (Medicine) = **14**" in rolled.text()
    placed = await harness.emulator.click(mei, harness.last(table.channel, mei), "Wit")
    shown = placed.replies[-1].text()
    assert "Bram recovers 3 on Wit." in shown and "Bram recovers 1 on Dexterity." in shown
    assert "Bram's pools are full: 10 HP found no room." in shown
    assert "Physique HP 8/8 · Dexterity HP 6/6 · Intelligence HP 4/4 · Wit HP 6/6" in await _pools(table, "Bram")
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Aiko healed Bram for 14 HP" in log and "Bram recovered 3 on Wit" in log
    # Without the house roll only an amount heals, whoever is named as the healer.
    await harness.slash(gm, table.channel, "campaign set", option="house_healing", value="false")
    named = (await harness.slash(gm, table.channel, "heal", character="Bram", healer="Aiko")).reply
    assert named.ephemeral
    assert named.content == "This campaign rolls no healing (`house_healing` is off): say how many HP."


async def test_an_item_crest_is_used_up_and_a_gm_gives_it_new_uses(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _three_players(table)
    ring = "{name: Ring of Sparks, category: magical, rank: 1, damage_type: lightning, uses_left: 1}"
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="item_crests.0", value=ring)

    async def crests() -> str:
        sheet = (await harness.slash(aiko, table.channel, "character show", name="Aiko")).reply
        return str(next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Crests (rank)"))

    assert "Ring of Sparks (1), uses left 1" in await crests()
    harness.dice.queue([3, 3, 2])
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="Ring of Sparks")
    assert "Ring of Sparks (1), uses left 0" in await crests()
    spent = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Ring of Sparks")).reply
    assert spent.ephemeral
    edit = harness.mention("character edit")
    assert spent.content == f"Ring of Sparks has no uses left: a GM can give it more with {edit}."
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="item_crests.0.uses_left", value="3")
    assert "Ring of Sparks (1), uses left 3" in await crests()
    harness.dice.queue([3, 3, 2])
    again = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Ring of Sparks")).reply
    assert again.embeds[0]["title"] == "Aiko attacks Bram: 6"
    assert "Ring of Sparks (1), uses left 2" in await crests()


async def test_a_defence_with_an_unusual_skill_waits_for_a_gm_to_agree(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    for agreed in (False, True):
        harness.dice.queue([4, 2, 5])
        await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
        # Found by their buttons: the last round's offer of a reroll may post after the new attack's prompt.
        await harness.emulator.click(mei, await harness.prompt_with(table.channel, mei, "Wit"), "Wit")
        await harness.emulator.click(mei, await harness.prompt_with(table.channel, mei, "Lore 2"), "Lore 2")
        asked = await harness.prompt_with(table.channel, gm, "Grant")
        assert "Bram defends against Aiko with Lore, not one of a defence's usual skills. Agree to it?" in asked.content
        if not agreed:
            await harness.emulator.click(gm, asked, "Refuse")
            again = harness.last(table.channel, mei)
            assert again.content == f"{mei.mention} Bram: defend with Wit and which of the usual skills?"
            assert "Lore 2" not in again.buttons() and "Awareness 3" in again.buttons()
            harness.dice.queue([6, 6, 6])  # a double six: the attack misses
            await harness.emulator.click(mei, again, "Awareness 3")
        else:
            harness.dice.queue([6, 5, 1])  # 6 + 5 + Lore 2 = 13 beats 12
            rolled = await harness.emulator.click(gm, asked, "Grant")
            assert "+2 (Lore) = **13**" in rolled.replies[-1].text()
            assert "Bram avoids the attack of Aiko" in rolled.replies[-1].text()
    # The attacker deleted while the GMs are asked: either answer says why the attack cannot go on.
    harness.dice.queue([4, 2, 5])
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
    await harness.emulator.click(mei, await harness.prompt_with(table.channel, mei, "Wit"), "Wit")
    await harness.emulator.click(mei, await harness.prompt_with(table.channel, mei, "Lore 2"), "Lore 2")
    asked = await harness.prompt_with(table.channel, gm, "Grant")
    await harness.slash(gm, table.channel, "character delete", name="Aiko")
    for choice in ("Refuse", "Grant"):
        gone = await harness.emulator.click(gm, asked, choice)
        assert gone.reply.ephemeral and "A character of this roll is gone" in gone.reply.content


async def test_in_a_fight_one_attack_roll_a_turn_and_a_destiny_point_to_act_out_of_turn(table: Table) -> None:
    harness, gm, aiko = table.harness, table.gm, table.aiko
    await _three_players(table)
    await harness.slash(gm, table.channel, "combat start", order="Aiko, Bram")

    async def aiko_status() -> str:
        status = (await harness.slash(aiko, table.channel, "combat status")).reply
        return str(next(line for line in status.embeds[0]["description"].splitlines() if "Aiko" in line))

    assert "Attack Roll" in await aiko_status()
    harness.dice.queue([4, 2, 5])
    first = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert not first.ephemeral, first.content
    assert "Attack Roll" not in await aiko_status()
    # A GM's cancel before anyone defended: the attack did not happen, and the turn's Attack Roll is back.
    cancelled = await harness.emulator.click(gm, harness.last(table.channel, table.mei), "Cancel (GM)")
    assert "Aiko's Attack Roll does not count this round." in cancelled.replies[-1].text()
    assert "Attack Roll" in await aiko_status()
    harness.dice.queue([4, 2, 5])
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
    again = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert again.ephemeral
    assert again.content.startswith("Aiko has made this round's Attack Roll: one a turn")
    await harness.slash(gm, table.channel, "combat next")
    waiting = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert waiting.ephemeral and "Bram" in waiting.content and "turn" in waiting.content
    asked = (await harness.slash(aiko, table.channel, "destiny spend", use="act_out_of_turn",
                                 note="I leap in before Bram can move")).reply  # fmt: skip
    await harness.emulator.click(gm, asked, "Approve")
    harness.dice.queue([4, 2, 5])
    out_of_turn = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert not out_of_turn.ephemeral, out_of_turn.content
    assert out_of_turn.embeds[0]["title"] == "Aiko attacks Bram: 12"
    assert "Destiny Points 0" in await _pools(table, "Aiko")
    spent = (await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")).reply
    assert spent.ephemeral and spent.content.startswith("Aiko has made this round's Attack Roll")


async def _crests(table: Table, user: User, name: str) -> str:
    sheet = (await table.harness.slash(user, table.channel, "character show", name=name)).reply
    return str(next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Crests (rank)"))


async def test_a_gm_writes_a_crest_ladder_in_a_file_or_an_edit_and_the_sheet_shows_its_rank(table: Table) -> None:
    harness, gm = table.harness, table.gm
    await _import(table, table.aiko, await _template(table, table.aiko))
    # T8: what a crest can do, rank by rank; YAML writes a rank as a number and JSON as text.
    wolf = await _template(table, gm)
    wolf.update(name="Wolf", crests=[{"name": "Crest of Gales", "category": "magical",
                                      "ladder": {1: "a breeze", 2: "a gust that knocks a man down"}}])  # fmt: skip
    made = await harness.slash(gm, table.channel, "character import", npc=True,
                               file=("wolf.yaml", yaml.safe_dump(wolf).encode()))  # fmt: skip
    assert not made.reply.ephemeral, made.reply.content
    assert await _crests(table, gm, "Wolf") == "Crest of Gales (2): a gust that knocks a man down"
    owl = {**wolf, "name": "Owl", "crests": [{"name": "Crest of Night", "category": "magical",
                                              "ladder": {"2": "sees in the dark"}}]}  # fmt: skip
    await harness.slash(gm, table.channel, "character import", npc=True, file=("owl.json", json.dumps(owl).encode()))
    assert await _crests(table, gm, "Owl") == "Crest of Night (2): sees in the dark"

    async def edit(field: str, value: str) -> Message:
        return (await harness.slash(gm, table.channel, "character edit", name="Wolf", field=field, value=value)).reply

    added = await edit("crests.0.ladder.3", "a storm that levels a village")  # the GMs' creature: told to them
    assert added.content.endswith('changed `crests.0.ladder.3` of Wolf: — → "a storm that levels a village".')
    await edit("crests.0.rank", "3")
    assert await _crests(table, gm, "Wolf") == "Crest of Gales (3): a storm that levels a village"
    whole = await edit("crests.0.ladder", "{1: a breeze, 3: a tempest}")
    assert whole.content.endswith('→ {"1": "a breeze", "3": "a tempest"}.'), whole.content
    assert await _crests(table, gm, "Wolf") == "Crest of Gales (3): a tempest"
    for field, value, rank in (("crests.0.ladder", "{1: a breeze, 6: a hurricane}", "6"),
                               ("crests.0.ladder.six", "a hurricane", "six")):  # fmt: skip
        refused = await edit(field, value)
        assert f"`crests.0.ladder`: {rank} is not a crest rank: a ladder's ranks are 1 to 5" in refused.content
    # The GM's words for a rank of a rulebook crest come before the book's; the book's stay at the other ranks.
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="crests.0.ladder.5",
                        value="a sun over the city")  # fmt: skip
    assert await _crests(table, table.aiko, "Aiko") == "Crest of Flames (2): can create bolts of flame"
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="crests.0.ladder.2",
                        value="bolts of blue flame")  # fmt: skip
    assert await _crests(table, table.aiko, "Aiko") == "Crest of Flames (2): bolts of blue flame"


async def test_a_crest_a_player_invents_waits_for_a_gms_approval(table: Table) -> None:
    harness, gm, mei = table.harness, table.gm, table.mei
    await _import(table, table.aiko, await _template(table, table.aiko))
    bram = await _template(table, mei)
    bram.update(name="Bram", crests=[{"name": "Crest of Wind", "category": "magical", "damage_type": "wind"}])
    held = await _import(table, mei, bram)
    assert held.visible_to is EVERYONE, held.content
    prompt = harness.last(table.channel, gm)
    assert "`crests.0`: Crest of Wind" in prompt.content
    waiting = (await harness.slash(mei, table.channel, "check", stat="Wit")).reply
    assert waiting.ephemeral and "Bram" in waiting.content
    await harness.approve_sheet(gm, table.channel, "Bram")
    harness.dice.queue([3, 5, 4])
    assert not (await harness.slash(mei, table.channel, "check", stat="Wit")).reply.ephemeral
    # Renamed, a crest would be another one: that is the GMs' to do.
    renamed = (await harness.slash(table.aiko, table.channel, "character edit", name="Aiko", field="crests.0.name",
                                   value="Crest of Storms")).reply  # fmt: skip
    assert renamed.ephemeral and renamed.content.startswith("Only a GM may change `crests.0.name` of Aiko")


async def test_a_pool_a_gm_empties_keeps_its_d4_until_full_as_one_an_attack_empties(table: Table) -> None:
    harness, gm = table.harness, table.gm
    await _import(table, table.aiko, await _template(table, table.aiko))
    await harness.slash(gm, table.channel, "campaign set", option="d4_until", value="full_hp")

    async def award(amount: int) -> None:
        await harness.slash(gm, table.channel, "gm award", character="Aiko", resource="dexterity", amount=amount)

    async def dice() -> str:
        sheet = (await harness.slash(table.aiko, table.channel, "character show", name="Aiko")).reply
        return str(next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Stat dice"))

    await award(-8)
    await award(1)
    assert "Dexterity d6 → d4" in await dice()  # C17: 1 HP back is not the pool full
    harness.dice.queue([3, 5, 4])
    checked = (await harness.slash(table.aiko, table.channel, "check", stat="Dexterity")).reply
    assert "Dexterity die: 1d4 [4]" in checked.embeds[0]["description"]
    await award(5)
    assert "Dexterity d6 · " in await dice()


async def test_a_gms_creatures_are_made_outside_the_players_creation_budget(table: Table) -> None:
    harness, gm = table.harness, table.gm
    await _import(table, table.aiko, await _template(table, table.aiko))
    dragon: dict[str, Any] = {
        "kind": "bearer", "name": "Dragon",
        "dice": {"Physique": "d12", "Dexterity": "d10", "Intelligence": "d8", "Wit": "d8"},
        "skills": {"Melee": 5, "Awareness": 4},
        "crests": [{"name": "Crest of Flames", "rank": 5}, {"name": "Crest of Tides", "rank": 3}],
    }  # fmt: skip

    async def gm_import(data: dict[str, Any]) -> Message:
        file = ("creature.yaml", yaml.safe_dump(data).encode())
        return (await harness.slash(gm, table.channel, "character import", npc=True, file=file)).reply

    made = await gm_import(dragon)
    assert not made.ephemeral, made.content
    assert "Physique HP 12/12 · Dexterity HP 10/10" in await _pools(table, "Dragon")
    # The caps bind everyone (T7); the budget only a player's new character.
    capped = await gm_import({**dragon, "name": "Wyrm", "dice": {**dragon["dice"], "Physique": "d20"}})
    assert capped.ephemeral and "`dice.Physique`: 20 is not one of the dice d4, d6, d8, d10, d12" in capped.content
    players = await _import(table, table.aiko, {**dragon, "name": "Drake"})
    assert players.ephemeral and "a new character has one d4, two d6 and one d8" in players.content
    # A creature with no skill at all: the odds say it defends with none.
    slime = {"kind": "bearer", "name": "Slime", "dice": {"Physique": 6, "Dexterity": 4, "Intelligence": 4, "Wit": 4}}
    assert not (await gm_import(slime)).ephemeral
    odds = (await harness.slash(gm, table.channel, "odds", attacker="Aiko", defender="Slime",
                                action="melee|Sword")).reply  # fmt: skip
    lines = odds.embeds[0]["description"].splitlines()
    assert lines[0].startswith("Defending with Physique and no skill: **"), lines


async def test_a_crest_attacks_with_the_stat_of_what_it_is_and_bare_hands_go_by_their_name(table: Table) -> None:
    harness, gm, aiko, ken = table.harness, table.gm, table.aiko, table.ken
    await _three_players(table)
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="crests.1",
                        value="{name: Crest of Sabers}")  # fmt: skip

    async def attack(user: User, action: str) -> Message:
        reply = (await harness.slash(user, table.channel, "attack", target="Bram", action=action)).reply
        assert not reply.ephemeral, reply.content
        # Outside a fight the attack stays open until Bram answers: a GM's cancel closes it for the next one.
        await harness.emulator.click(gm, harness.last(table.channel, table.mei), "Cancel (GM)")
        return reply

    # A melee weaponry crest strikes as a blade does, with Physique (d8) and Melee 3; a magical one with Intelligence.
    harness.dice.queue([4, 2, 5])
    sabers = await attack(aiko, "Crest of Sabers")
    assert "Physique die: 1d8 [5] +3 (Melee) = **12**" in sabers.embeds[0]["description"]
    harness.dice.queue([4, 2, 3])
    flames = await attack(aiko, "Crest of Flames")
    assert "Intelligence die: 1d4 [3]" in flames.embeds[0]["description"]
    # Bare hands by their name, in the player's language too: Physique and Unarmed 1.
    for user, words in ((aiko, "Bare hands"), (ken, "素手")):
        harness.dice.queue([4, 2, 5])
        bare = await attack(user, words)
        assert "Physique die: 1d8 [5] +1 (Unarmed) = **10**" in bare.embeds[0]["description"]
    odds = (await harness.slash(table.mei, table.channel, "odds", attacker="Cleo", defender="Aiko",
                                action="徒手")).reply  # fmt: skip
    assert len(odds.embeds[0]["description"].splitlines()) == 4


async def test_a_critical_withstand_says_why_the_damage_did_not_get_through(table: Table) -> None:
    harness, gm, aiko, mei = table.harness, table.gm, table.aiko, table.mei
    await _three_players(table)
    await harness.slash(gm, table.channel, "campaign set", option="crit_on_withstand", value="true")
    await harness.slash(gm, table.channel, "character edit", name="Aiko", field="weapons.0.rating", value="10")
    harness.dice.queue([4, 2, 5])  # 5 + 4 + Melee 3 = 12
    await harness.slash(aiko, table.channel, "attack", target="Bram", action="Sword")
    await harness.emulator.click(mei, harness.last(table.channel, mei), "Dexterity")
    harness.dice.queue([1, 2, 1, 1, 3])  # the defence's 3 is hit; damage 1 + 3 + 10 = 14
    await harness.emulator.click(mei, harness.last(table.channel, mei), "No skill")
    await _let_it_stand(table, mei)
    harness.dice.queue([6, 6])  # Leather's 12 is below 14, but a double six takes nothing
    held = await harness.emulator.click(mei, harness.last(table.channel, mei), "Leather (0)")
    shown = held.replies[-1].text()
    assert "Damage 14 against withstand 12: Bram takes no damage." in shown
    assert "Double six on the Withstand Roll: a critical withstand, and Bram takes no damage." in shown
    assert "Dexterity HP 6/6" in await _pools(table, "Bram")
