"""The Chinese d20 game through the emulator: Masters and Servants by the creation rules (held for a GM's
approval), checks with Luck, attacks with Mind's Eye and Guard, combat upkeep, Noble Phantasm releases paid with
the Master's help, and fates. Each test has a campaign of its own."""

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
    shirou: User
    rin: User
    ken: User
    mei: User


@pytest.fixture(scope="module", params=BACKENDS)
async def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("grail")) as url,
        running_harness(url) as harness,
    ):
        emulator = harness.emulator
        gm, shirou, rin = emulator.add_user("gm"), emulator.add_user("shirou"), emulator.add_user("rin", locale="zh-CN")
        ken, mei = emulator.add_user("ken", locale="ja"), emulator.add_user("mei", locale="zh-CN")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (shirou, rin, ken, mei):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield Table(harness, guild, emulator.add_channel(guild, "lobby"), gm, shirou, rin, ken, mei)


@pytest.fixture
async def table(server: Table) -> Table:
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset="grail_zh", name="Fuyuki")
    return replace(server, channel=channel)


E3_MASTER = {"kind": "master", "name": "Shirou", "master_type": "melee",
             "attributes": {"str": 4, "dex": 3, "con": 3, "int": 0, "wis": 0, "cha": 0}}  # fmt: skip
ARCHER_LEGEND = {"STR": "D", "END": "C", "AGI": "C", "MAG": "B", "LUK": "E"}  # E8
SABER = {"kind": "servant", "name": "Saber", "master": "Shirou", "servant_class": "saber",
         "legend": {"STR": "B", "END": "C", "AGI": "C", "MAG": "B", "LUK": "A"},
         "noble_phantasms": [{"name": "Excalibur", "rank": "A", "scope": "anti_city", "mode": "one_shot"}]}  # fmt: skip


async def _import(table: Table, user: User, data: dict[str, Any]) -> Message:
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    return (await table.harness.slash(user, table.channel, "character import", file=("sheet.yaml", text))).reply


async def _summon(table: Table, user: User, master: dict[str, Any], servant: dict[str, Any]) -> None:
    created = await _import(table, user, master)
    assert created.visible_to is EVERYONE, created.content
    held = await _import(table, user, servant)
    assert not held.ephemeral, held.content
    await table.harness.approve_sheet(table.gm, table.channel, servant["name"])
    await table.harness.slash(user, table.channel, "character use", name=servant["name"])


async def _pools(table: Table, name: str) -> str:
    roster = (await table.harness.slash(table.gm, table.channel, "character list")).reply
    lines: list[str] = roster.embeds[0]["description"].splitlines()
    return next(line for line in lines if f"**{name}**" in line)


def _fields(message: Message) -> dict[str, str]:
    return {field["name"]: field["value"] for field in message.embeds[0]["fields"]}


async def test_masters_and_servants_by_the_creation_rules(table: Table) -> None:
    harness = table.harness
    template = (await harness.slash(table.rin, table.channel, "character template", kind="servant")).reply
    assert template.ephemeral and "英灵" in template.content
    # E4: eleven points are refused, field by field, in the player's language.
    refused = await _import(table, table.rin, {**E3_MASTER, "attributes": {"str": 5, "dex": 3, "con": 3}})
    assert refused.ephemeral
    assert "`attributes`：用了 11 点；御主只有 10 点属性点数" in refused.content
    refused = await _import(table, table.rin, {**E3_MASTER, "master_type": "trickster", "general_spells": ["heal"]})
    assert "`general_spells`：选择了 1 种通用魔术；此形态应选 2 种" in refused.content

    await _summon(table, table.shirou, E3_MASTER, SABER)
    assert "HP 26/26 · MP 10/10" in await _pools(table, "Shirou")  # E3
    assert "HP 64/64 · MP 80/80" in await _pools(table, "Saber")  # E6
    sheet = (await harness.slash(table.shirou, table.channel, "character show", name="Saber")).reply
    fields = _fields(sheet)
    assert fields["Ranks"] == "Strength A (5) · Endurance B (4) · Agility B (4) · Magic B (4) · Luck A (5)"
    assert "Magic Resistance A+1 (class): -30 damage from magecraft, +6 to saves against it" in fields["Skills"]
    assert "Riding C (class)" in fields["Skills"]
    assert fields["Noble Phantasms"] == "Excalibur A · anti-city · one-shot · release 50 MP · attack roll, 5d12+9"
    assert fields["MP upkeep"] == "daily 14 · per fight 36"
    assert sheet.ephemeral  # sheets are private in this game, even one's own
    # A rival's sheet: only what the fiction shows, in the reader's language.
    rival = (await harness.slash(table.rin, table.channel, "character show", name="Saber")).reply
    assert rival.ephemeral and _fields(rival) == {"职阶": "剑士"}
    # Nor its pools, whose maxima tell its END and MAG: hidden from a rival, shown to its owner.
    roster = (await harness.slash(table.rin, table.channel, "character list")).reply.text()
    assert "**Saber**（英灵，<@" in roster and roster.split("**Saber**")[1].splitlines()[0].endswith("：隐藏")
    own = (await harness.slash(table.shirou, table.channel, "character list")).reply.text()
    assert "HP 64/64" in own

    await _import(table, table.rin, {**E3_MASTER, "name": "Rin"})
    bad = await _import(table, table.rin, {**SABER, "name": "Lancer", "master": "Rin", "servant_class": "lancer",
                                           "legend": {"STR": "Q", "END": "C"}})  # fmt: skip
    assert "`legend.STR`：Q 不是 C、A+2、EX 或 B+ 这样的rank" in bad.content
    bad = await _import(table, table.rin, {**SABER, "name": "Lancer", "master": "Rin", "servant_class": "lancer",
                                           "legend": {"STR": "A", "END": "C"}})  # fmt: skip
    assert "`legend`：每项能力都需要rank；缺少：AGI, MAG, LUK" in bad.content
    # A name that could pass for another's, or break a list, is refused.
    for name, code in (("Saber\u200b", "U+200B"), ("Two\nlines", "U+000A"), ("\u202eRTL", "U+202E")):
        twin = await _import(table, table.rin, {**E3_MASTER, "name": name})
        assert f"`name`：名字中不能包含换行或不可见字符（{code}）" in twin.content, twin.content


async def test_checks_roll_luck_and_attacks_meet_mind_s_eye(table: Table) -> None:
    harness = table.harness
    await _summon(table, table.shirou, E3_MASTER, SABER)
    archer = {"kind": "servant", "name": "Archer", "master": "Rin", "servant_class": "archer",
              "legend": ARCHER_LEGEND,
              "skills": [{"name": "心眼（真）", "rank": "B"}]}  # fmt: skip
    rin = {"kind": "master", "name": "Rin", "master_type": "magus",
           "attributes": {"str": 0, "dex": 2, "con": 0, "int": 3, "wis": 0, "cha": 5}}  # fmt: skip
    await _summon(table, table.rin, rin, archer)
    assert "HP 36/36 · MP 140/140" in await _pools(table, "Archer")  # E8

    # E2 with a Master: wis 0 + d20 6 fails. Saber (LUK A) rolls 18: an automatic success.
    await harness.slash(table.shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([6])
    failed = (await harness.slash(table.shirou, table.channel, "check", stat="WIS")).reply
    assert failed.embeds[0]["title"] == "Shirou: Perception check, 6"
    await harness.slash(table.shirou, table.channel, "character use", name="Saber")
    harness.dice.queue([18])
    lucky = (await harness.slash(table.shirou, table.channel, "check", stat="luk", target=30)).reply
    assert "Luck: an automatic success" in lucky.text()

    # Saber's melee: d20 9 + STR 5 - Archer's AGI 3 = 11, a hit. Archer has Mind's Eye (True) B.
    harness.dice.queue([9])
    hit = (await harness.slash(table.shirou, table.channel, "attack", target="Archer", action="melee")).reply
    assert hit.embeds[0]["title"] == "Saber hits Archer with melee (11)"
    prompt = harness.last(table.channel, table.rin)
    assert prompt.buttons()[:2] == ["Mind's Eye", "Take the hit"]
    # Mind's Eye B: d20 13 + 1 = 14, above the attack roll of 14 before Archer's AGI? No: it must be strictly
    # greater than 9 + 5 = 14 (D14). 14 is not: the hit lands, 3d12 = 4 + 5 + 6.
    harness.dice.queue([13, 4, 5, 6])
    landed = await harness.emulator.click(table.rin, prompt, "Mind's Eye")
    assert landed.error is None, landed.error
    assert "Archer takes 15 damage (rolled 15)" in harness.seen_by(table.shirou, table.channel)
    assert "HP 21/36" in await _pools(table, "Archer")

    harness.dice.queue([9])
    await harness.slash(table.shirou, table.channel, "attack", target="Archer", action="melee")
    harness.dice.queue([14])  # 14 + 1 = 15 > 14: evaded
    evaded = await harness.emulator.click(table.rin, harness.last(table.channel, table.rin), "Mind's Eye")
    assert "Archer's Mind's Eye (15) beats the attack roll (14): evaded" in evaded.replies[-1].text()
    assert "HP 21/36" in await _pools(table, "Archer")

    # A Master's fists have no mystery: they cannot harm a Servant (R4).
    await harness.slash(table.shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([15])
    await harness.slash(table.shirou, table.channel, "attack", target="Archer", action="melee")
    harness.dice.queue([2])
    await harness.emulator.click(table.rin, harness.last(table.channel, table.rin), "Take the hit")
    assert "Archer takes nothing: an attack without mystery cannot harm a Servant" in harness.seen_by(
        table.shirou, table.channel)  # fmt: skip
    assert "HP 21/36" in await _pools(table, "Archer")

    # /check offers the stats of the active character's kind, in the reader's words.
    offered = await harness.emulator.autocomplete(table.rin, table.channel, "check", {"stat": ""}, "stat")
    assert [choice["value"] for choice in offered] == ["STR", "END", "AGI", "MAG", "LUK"]
    await harness.slash(table.rin, table.channel, "character use", name="Rin")
    offered = await harness.emulator.autocomplete(table.rin, table.channel, "check", {"stat": "感"}, "stat")
    assert offered == [{"name": "感知", "value": "WIS"}]
    magic = (await harness.slash(table.rin, table.channel, "check", stat="魔力")).reply
    assert magic.ephemeral and magic.content.startswith("Rin没有可检定的「魔力」"), magic.content
    assert "MAG" not in magic.content and "STR" not in magic.content
    bolt = (await harness.slash(table.rin, table.channel, "attack", target="Saber", action="ranged")).reply
    assert bolt.ephemeral and "bolt" not in bolt.content and "ranged" not in bolt.content, bolt.content


async def test_a_fight_pays_upkeep_and_a_release_with_the_masters_help(table: Table) -> None:
    harness = table.harness
    await _summon(table, table.shirou, E3_MASTER, SABER)
    rin = {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2, "int": 3, "cha": 5}}
    await _import(table, table.rin, rin)
    harness.dice.queue([12, 11, 5])  # E15: Shirou 12 + 3 = 15, Saber 11 + 4 = 15 (AGI 4 beats dex 3), Rin 5 + 2
    await harness.slash(table.gm, table.channel, "combat start", order="Shirou, Saber, Rin")
    text = harness.seen_by(table.gm, table.channel)
    assert "Order: Saber → Shirou → Rin" in text
    # E7: 36 MP, told to no one but its owner and the GMs (an amount would tell a rival the ranks behind it).
    assert "Saber pays its combat upkeep" in text and "36" not in text
    assert "**Saber**: standard action · move action · minor action (pools hidden)" in text  # a public post
    status = (await harness.slash(table.shirou, table.channel, "combat status")).reply.text()
    assert "(HP 64/64 · MP 44/80 · temporary HP 0)" in status and "**Rin**: standard action" in status
    assert "MP 44/80" in await _pools(table, "Saber")

    # Excalibur: d20 10 + A 5 - Rin's dex 2 = 13; release 50: Shirou gives 4, Saber keeps 2 (E7).
    harness.dice.queue([10, 6, 6, 6, 6, 6])
    released = (await harness.slash(table.shirou, table.channel, "attack", target="Rin", action="np:Excalibur")).reply
    assert "Saber pays the MP it costs" in released.text() and "50" not in released.text()
    # In a fight a hit waits for an ally's Guard, or for the defender to take it.
    prompt = harness.last(table.channel, table.rin)
    assert prompt.buttons()[0] == "Take the hit", prompt.content
    taken = await harness.emulator.click(table.rin, prompt, "Take the hit")
    text = taken.replies[-1].text()
    assert "Rin takes 39 damage (rolled 39)" in text and "Rin is dead." in text
    assert "MP 2/80" in await _pools(table, "Saber")
    assert "MP 6/10" in await _pools(table, "Shirou")
    gone = await harness.slash(table.rin, table.channel, "check", stat="INT")
    assert gone.reply.ephemeral and gone.reply.content == "Rin已经死亡，无法参与。"


async def test_mp_between_master_and_servant_the_defend_stance_and_what_a_day_does(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await harness.slash(shirou, table.channel, "character use", name="Shirou")

    async def grail(user: User, command: str, amount: int | None = None) -> Message:
        options: dict[str, object] = {} if amount is None else {"amount": amount}
        return (await harness.emulator.slash(user, table.channel, f"grail {command}", options)).reply

    full = await grail(shirou, "transfer", amount=3)
    assert full.ephemeral and full.content == "Saber's MP is full."
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=-20)
    given = await grail(shirou, "transfer", amount=3)
    # The amounts are told to no one but the owner and the GMs (what a Servant recovers tells its maximum).
    assert given.embeds[0]["title"] == "Shirou gives MP: Saber recovers MP"
    assert "MP 7/10" in await _pools(table, "Shirou") and "MP 66/80" in await _pools(table, "Saber")
    last = await grail(shirou, "transfer", amount=7)
    assert last.ephemeral and "a Master dies at 0 MP" in last.content
    assert "MP 7/10" in await _pools(table, "Shirou")

    ritual = await grail(shirou, "ritual")
    assert ritual.embeds[0]["title"] == "The ritual: Saber recovers MP"
    assert "MP 80/80" in await _pools(table, "Saber")  # 14: half its 80, up to its maximum
    again = await grail(shirou, "ritual")
    assert again.ephemeral and again.content == "Shirou has held the ritual today already."
    rested = await grail(shirou, "rest")
    assert rested.embeds[0]["title"] == "Shirou rests 8 hours and recovers all its MP"
    assert "MP 10/10" in await _pools(table, "Shirou")
    assert (await grail(shirou, "rest")).content == "Shirou has rested today already."

    # A day's turn: Saber pays its daily upkeep (E6: 14), and the Master may rest again.
    passed = await harness.slash(gm, table.channel, "campaign time", days=1)
    assert "Saber pays its daily upkeep" in passed.reply.text()
    assert "MP 66/80" in await _pools(table, "Saber")  # 14 (E6)
    full = await grail(shirou, "rest")  # a new day, but nothing to recover: the day's rest is not spent
    assert full.ephemeral and full.content == "Shirou's MP is full."
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="mp", amount=-2)
    assert (await grail(shirou, "rest")).embeds[0]["title"] == "Shirou rests 8 hours and recovers all its MP"

    # The Defend stance: every attack roll hits, for half the damage less CON (R26, E14).
    rin_master = {"kind": "master", "name": "Rin", "master_type": "melee", "attributes": {"str": 5, "dex": 5}}
    await _import(table, rin, rin_master)
    stance = await grail(shirou, "defend")
    assert stance.embeds[0]["title"].startswith("Shirou takes the Defend stance")
    harness.dice.queue([1, 6])  # 1 + 5 - 8 would miss; the stance makes it hit: 1d6+10 = 16, half 8, less CON 3
    hit = (await harness.slash(rin, table.channel, "attack", target="Shirou", action="melee")).reply
    text = hit.text()
    assert "Shirou is in the Defend stance: every attack roll hits" in text
    assert "Shirou takes 5 damage (rolled 16; reduced: the Defend stance)" in text
    assert "HP 21/26" in await _pools(table, "Shirou")
    mine = (await harness.slash(rin, table.channel, "character show", name="Shirou")).reply
    assert mine.ephemeral and mine.text().endswith("形态\n近战型")  # a rival sees the type alone


async def test_a_masterless_servant_keeps_its_days_of_independent_action(table: Table) -> None:
    harness, shirou, rin = table.harness, table.shirou, table.rin
    await _summon(table, shirou, E3_MASTER, SABER)
    archer = {"kind": "servant", "name": "Archer", "master": "Rin", "servant_class": "archer",
              "legend": ARCHER_LEGEND}  # fmt: skip
    rin_master = {"kind": "master", "name": "Rin", "master_type": "magus",
                  "attributes": {"str": 0, "dex": 2, "con": 0, "int": 3, "wis": 0, "cha": 5}}  # fmt: skip
    await _summon(table, rin, rin_master, archer)
    harness.dice.queue([15, 12, 12, 12])  # 15 + 5 - 2: a hit; 3d12 = 36 on Rin's 10 HP
    killed = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")).reply
    text = killed.text()
    assert "Rin is dead." in text
    assert "Archer has lost its Master: Independent Action keeps it for 30 days" in text  # E8: A+2
    passed = await harness.slash(table.gm, table.channel, "campaign time", days=2)
    # E8 without its Noble Phantasm: 2 + MAG 4 + Magic Resistance 4 + Independent Action 4; no Master to help.
    assert "Archer pays its daily upkeep for 2 days" in passed.reply.text()
    assert "MP 112/140" in await _pools(table, "Archer")
    asked = (await harness.slash(rin, table.channel, "grail ritual")).reply
    assert asked.ephemeral and asked.content == "Archer的御主（Rin）已经死亡：两者之间无法再传递魔力。"


async def test_a_servant_whose_master_a_gm_kills_is_gone_once_story_time_passes(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    # The award kills Shirou, and Saber is masterless from that moment, as after a deadly blow (R16).
    harness.dice.queue([3])
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="hp", amount=-26)
    seen = harness.seen_by(table.rin, table.channel)
    assert "Shirou is dead." in seen and "Saber has lost its Master and will vanish" in seen
    # An hour outlasts 「1d3轮（不到1分钟）」: Saber is gone in that very step, not at the next one.
    passed = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Saber vanishes without its Master" in passed
    gone = (await harness.slash(shirou, table.channel, "check", stat="STR")).reply
    assert gone.ephemeral and gone.content == "Saber has vanished and cannot take part."


async def test_a_masterless_servant_drains_a_tenth_of_its_mp_a_minute(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await harness.slash(gm, table.channel, "campaign set", option="masterless_rule", value="drain")
    harness.dice.queue([10])
    await harness.slash(gm, table.channel, "combat start", order="Saber")  # E7: 80 - 36 upkeep = 44
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="hp", amount=-26)
    # 「每分钟会流失最大魔力值的10%」: 8 of its 80 at the end of each whole minute (10 rounds, D8), none before.
    for _ in range(9):
        await harness.slash(gm, table.channel, "combat next")
    assert "MP 44/80" in await _pools(table, "Saber")
    await harness.slash(gm, table.channel, "combat next")
    assert "MP 36/80" in await _pools(table, "Saber")
    await harness.slash(gm, table.channel, "combat next")
    assert "MP 36/80" in await _pools(table, "Saber")


async def test_a_gms_award_meets_battle_continuation_as_a_blow_does(table: Table) -> None:
    harness, ken, gm = table.harness, table.ken, table.gm
    # Lancer's Battle Continuation is B (END C + 1, R20): it fights on down to -30 HP (E20).
    lancer = {"kind": "servant", "name": "Lancer", "master": "Kariya", "servant_class": "lancer",
              "legend": {"STR": "B", "END": "C", "AGI": "A", "MAG": "D", "LUK": "C"}}  # fmt: skip
    await _summon(table, ken, {"kind": "master", "name": "Kariya", "master_type": "melee"}, lancer)
    await harness.slash(gm, table.channel, "gm award", character="Lancer", resource="hp", amount=-52)
    seen = harness.seen_by(table.rin, table.channel)
    assert "Lancer fights on (Battle Continuation)" in seen and "Lancer has vanished." not in seen
    harness.dice.queue([10])
    assert not (await harness.slash(ken, table.channel, "check", stat="STR")).reply.ephemeral
    # Below its floor, -65/42, it is gone at once (「HP下降到…-30…的时候仍能持续战斗」, no lower).
    await harness.slash(gm, table.channel, "gm award", character="Lancer", resource="hp", amount=-55)
    assert "Lancer has vanished." in harness.seen_by(table.rin, table.channel)
    gone = (await harness.slash(ken, table.channel, "check", stat="STR")).reply
    assert gone.ephemeral and gone.content == "Lancerは消滅しており、参加できません。", gone.content


async def test_a_fall_to_0_mp_by_an_award_stays_when_the_mp_is_given_back(table: Table) -> None:
    """「一旦MP为0，master死亡」: a death by MP is as final as one by a blow; MP awarded again raises no one."""
    harness, shirou, gm = table.harness, table.shirou, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    harness.dice.queue([3])
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="mp", amount=-10)
    seen = harness.seen_by(table.rin, table.channel)
    assert "Shirou is dead." in seen and "Saber has lost its Master and will vanish" in seen
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="mp", amount=10)
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    dead = (await harness.slash(shirou, table.channel, "check", stat="STR")).reply
    assert dead.ephemeral and dead.content == "Shirou is dead and cannot take part.", dead.content
    # A Servant emptied by an award has vanished (「英灵如果自己的MP为0，会立刻消失」), MP given back or not.
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=-80)
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=80)
    await harness.slash(shirou, table.channel, "character use", name="Saber")
    gone = (await harness.slash(shirou, table.channel, "check", stat="STR")).reply
    assert gone.ephemeral and gone.content == "Saber has vanished and cannot take part.", gone.content


async def test_a_striker_felled_by_a_martial_arts_counter_loses_its_blow(table: Table) -> None:
    """Chinese Martial Arts strikes back with an opportunity action (「你用借机动作对对方做一次近战攻击」) before the
    blow lands: a striker it fells, as a caster an opportunity attack fells, lands nothing."""
    harness, shirou, ken, gm = table.harness, table.shirou, table.ken, table.gm
    await _summon(table, shirou, E3_MASTER, {**SABER, "skills": [{"name": "minds_eye_true", "rank": "B"}]})
    lancer = {"kind": "servant", "name": "Lancer", "master": "Kariya", "servant_class": "lancer",
              "legend": {"STR": "A", "END": "C", "AGI": "A", "MAG": "D", "LUK": "C"},
              "skills": [{"name": "中国武术", "rank": "A"}]}  # fmt: skip
    await _summon(table, ken, {"kind": "master", "name": "Kariya", "master_type": "melee"}, lancer)
    for name, x in (("Shirou", 10), ("Lancer", 11), ("Saber", 12)):
        await harness.slash(gm, table.channel, "grail place", character=name, x=x, y=10)
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="hp", amount=-22)
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="hp", amount=-60)
    harness.dice.queue([20, 5])
    await harness.slash(gm, table.channel, "combat start", order="Saber, Lancer")
    # Shirou's fists (15 + 4 - 5 = 14) meet the counter: 17 + 5 - 1 - dex 3 = 18, 3d12 = 12 on his 4 HP. Nothing
    # waits on the counter (no one else stands by him), and the blow it answered is lost: not even "no mystery".
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([15, 17, 4, 4, 4, 3])
    struck = (await harness.slash(shirou, table.channel, "attack", target="Lancer", action="melee")).reply.text()
    assert "Lancer counters Shirou with Chinese Martial Arts (18): a hit" in struck and "Shirou is dead." in struck
    assert "Lancer takes" not in struck and "Shirou hit Lancer" not in harness.seen_by(ken, table.channel), struck
    # Saber (12 + 5 - 5 = 12) is countered (17 + 5 - 1 - 4 = 17) and takes the counter's 12 on its 4 HP without
    # its Mind's Eye: it vanishes, and its blow waits for no one and lands on no one.
    await harness.slash(shirou, table.channel, "character use", name="Saber")
    harness.dice.queue([12, 17])
    await harness.slash(shirou, table.channel, "attack", target="Lancer", action="melee")
    harness.dice.queue([4, 4, 4])
    taken = await harness.emulator.click(shirou, await harness.prompt_with(table.channel, shirou, "Take the hit"),
                                         "Take the hit")  # fmt: skip
    text = "\n".join(reply.text() for reply in taken.replies)
    assert "Saber takes 12 damage (rolled 12)" in text and "Saber has vanished." in text, text
    assert "Lancer takes" not in harness.seen_by(ken, table.channel) and "HP 42/42" in await _pools(table, "Lancer")


async def test_a_hit_waiting_on_a_defender_a_gm_has_since_killed_strikes_no_one(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, {**SABER, "skills": [{"name": "minds_eye_true", "rank": "B"}]})
    await _import(table, rin, {**E3_MASTER, "name": "Rin"})
    harness.dice.queue([15])  # 15 + 4 - Saber's AGI 4: a hit, waiting for Saber's Mind's Eye
    await harness.slash(rin, table.channel, "attack", target="Saber", action="melee")
    prompt = await harness.prompt_with(table.channel, shirou, "Mind's Eye")
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="hp", amount=-64)
    assert "Saber has vanished." in harness.seen_by(rin, table.channel)
    # The vanished Servant's answer rolls no Mind's Eye, and the hit finds no one to strike.
    await harness.emulator.click(shirou, prompt, "Mind's Eye")
    seen = harness.seen_by(rin, table.channel)
    assert "Saber's Mind's Eye (" not in seen and "Saber takes" not in seen, seen


async def test_the_gms_creatures_answer_in_advance_and_a_plus_doubles_a_release(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    excalibur_plus = {"name": "Excalibur", "rank": "A+", "scope": "anti_city", "mode": "one_shot"}
    await _summon(table, shirou, E3_MASTER, {**SABER, "noble_phantasms": [excalibur_plus]})
    assassin = {"kind": "servant", "name": "Hassan", "master": "Kirei", "servant_class": "assassin",
                "legend": {"STR": "C", "END": "C", "AGI": "A", "MAG": "C", "LUK": "C"},
                "skills": [{"name": "minds_eye_false", "rank": "A"}]}  # fmt: skip
    kirei = {"kind": "master", "name": "Kirei", "master_type": "melee", "attributes": {"str": 5, "con": 5}}
    for npc in (kirei, assassin):
        upload = yaml.safe_dump(npc, allow_unicode=True).encode()
        await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)
    preset = await harness.slash(gm, table.channel, "gm auto", character="Hassan", wait="reaction", answer="minds_eye")
    assert preset.reply.ephemeral, preset.reply.content

    # R7: Excalibur (A+) meets Presence Concealment A (Hassan's class, from AGI A): equal mysteries, so d20s
    # with Luck until one is higher; the ranks that decided it are not told.
    harness.dice.queue([7, 7, 12, 3])
    met = (await harness.slash(gm, table.channel, "grail contradict", character="Saber", ability="excalibur",
                               opponent="Hassan", against="气息遮蔽")).reply  # fmt: skip
    assert met.embeds[0]["title"] == "Saber's Excalibur against Hassan's Presence Concealment"
    text = met.text()
    assert "contradiction, Saber: 1d20 [12] = **12**" in text and "contradiction, Hassan: 1d20 [3] = **3**" in text
    assert "The mysteries are equal: Saber's Excalibur prevails on the dice." in text and "A+" not in text
    higher = (await harness.slash(gm, table.channel, "grail contradict", character="Hassan", ability="幸运",
                                  opponent="Saber", against="Magic Resistance")).reply.text()  # fmt: skip
    assert "Saber's Magic Resistance prevails: a mystery is powerless before a higher one." in higher
    unknown = (await harness.slash(gm, table.channel, "grail contradict", character="Saber", ability="Avalon",
                                   opponent="Hassan", against="STR")).reply  # fmt: skip
    assert unknown.ephemeral and unknown.content.startswith("Saber has no ability called Avalon")
    refused = (await harness.slash(shirou, table.channel, "grail contradict", character="Saber", ability="STR",
                                   opponent="Hassan", against="STR")).reply  # fmt: skip
    assert refused.ephemeral and "GM" in refused.content
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "Hassan's Luck met Saber's Magic Resistance: Saber's prevailed" in log

    # Saber hits Hassan (d20 12 + 5 - AGI 5 = 12); the GMs' answer rolls Mind's Eye at once: 8 + 2 = 10, not above
    # the attack roll of 17. Excalibur's 5d12+9 = 40, doubled by its "+" (E18).
    harness.dice.queue([12, 8, 6, 6, 6, 6, 7])
    released = (await harness.slash(shirou, table.channel, "attack", target="Hassan", action="np:Excalibur",
                                     details="plus:true")).reply  # fmt: skip
    text = released.text()
    assert "Saber hits Hassan with Excalibur (12)" in text
    assert "Mind's Eye: 1d20 [8] +2 (Mind's Eye) = **10**" in text
    assert "Hassan takes 80 damage (rolled 40)" in text and "×2" in text
    again = (await harness.slash(shirou, table.channel, "attack", target="Kirei", action="np:Excalibur",
                                  details="plus:true")).reply  # fmt: skip
    assert again.ephemeral and again.content == 'Saber has released a "+" today already.'
    assert "Hassan has vanished." in text
    assert "MP 30/80" in await _pools(table, "Saber")  # the release's 50 MP, paid once


async def test_an_ally_guards_once_a_round(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    sakura = harness.emulator.add_user("sakura")
    harness.emulator.add_member(table.guild, sakura)
    await _summon(table, shirou, E3_MASTER, SABER)
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2}})
    await _import(table, sakura, {"kind": "master", "name": "Sakura", "master_type": "ordinary",
                                  "attributes": {"con": 10}})  # fmt: skip
    harness.dice.queue([20, 2, 1])  # initiative: Saber, Rin, Sakura
    await harness.slash(gm, table.channel, "combat start", order="Saber, Rin, Sakura")

    harness.dice.queue([15])  # 15 + 5 - Rin's dex 2 = 18: a hit, open for a Guard
    await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")
    offer = next(m for m in reversed(harness.emulator.visible_to(sakura, table.channel)) if "Guard" in m.buttons())
    harness.dice.queue([4, 4, 4])  # against Sakura (dex 0): 15 + 5 = 20, a hit; 3d12 = 12
    guarded = await harness.emulator.click(sakura, offer, "Guard")
    text = guarded.replies[-1].text()
    assert "Sakura guards Rin and becomes the target" in text
    assert "Sakura takes 12 damage (rolled 12)" in text
    assert "HP 18/30" in await _pools(table, "Sakura") and "HP 10/10" in await _pools(table, "Rin")

    # Saber's standard action is spent; Shirou, outside the turn order, strikes at Rin in the same round.
    again = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")).reply
    assert again.ephemeral and again.content == "Saber has used its standard action this round."
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([15])  # 15 + 4 - 2 = 17
    await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")
    offer = next(m for m in reversed(harness.emulator.visible_to(sakura, table.channel)) if "Guard" in m.buttons())
    refused = await harness.emulator.click(sakura, offer, "Guard")
    assert refused.replies[-1].ephemeral
    assert refused.replies[-1].content == "Sakura has used its reaction action this round."
    harness.dice.queue([1])  # 1d6+7
    taken = await harness.emulator.click(rin, harness.last(table.channel, rin), "Take the hit")
    assert "Rin takes 8 damage (rolled 8)" in taken.replies[-1].text()


async def test_the_gms_characters_are_guarded_and_strike_as_the_rules_say(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    berserker = {"kind": "servant", "name": "Berserker", "master": "爱丽丝菲尔", "servant_class": "berserker",
                 "legend": {"STR": "A", "END": "A", "AGI": "A", "MAG": "A", "LUK": "B"},
                 "mad_enhancement": "C"}  # fmt: skip
    for npc in ({"kind": "master", "name": "爱丽丝菲尔", "master_type": "homunculus", "general_spells": ["heal"]},
                berserker):  # fmt: skip
        upload = yaml.safe_dump(npc, allow_unicode=True).encode()
        await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)
    await _summon(table, table.rin, RIN_MAGUS, MEDEA)
    for name, x in (("Saber", 10), ("爱丽丝菲尔", 11), ("Berserker", 12), ("Medea", 13)):
        await harness.slash(gm, table.channel, "grail place", character=name, x=x, y=10)
    harness.dice.queue([20, 10, 2, 2])
    await harness.slash(gm, table.channel, "combat start", order="Medea, Saber, 爱丽丝菲尔, Berserker")
    # Medea's teleport provokes, and the GMs' Berserker stands next to her: the window opens for it too (R25).
    await harness.slash(table.rin, table.channel, "grail cast", spell="teleport", x=30, y=10)
    assert "Medea casts teleport, which leaves an opening" in (
        await harness.prompt_with(table.channel, gm, "Opportunity attack")).content  # fmt: skip
    went = await harness.emulator.click(
        gm, await harness.prompt_with(table.channel, gm, "Let it go on"), "Let it go on"
    )
    assert "Medea is elsewhere in an instant: 17 squares crossed." in went.replies[-1].text()
    await harness.slash(gm, table.channel, "combat next")
    # Saber hits the GMs' 爱丽丝菲尔 (15 + 5 - dex 0): Berserker stands next to her, so the hit waits for its Guard
    # as it would for a player's (「任何时候…临近你的一个角色受到一次命中类攻击时」); the GMs answer for it.
    harness.dice.queue([15])
    await harness.slash(shirou, table.channel, "attack", target="爱丽丝菲尔", action="melee")
    offer = await harness.prompt_with(table.channel, gm, "Guard")
    await harness.slash(gm, table.channel, "character use", name="Berserker")
    harness.dice.queue([4, 4, 4])  # against Berserker's AGI A+1: 15 + 5 - 6 = 14, a hit; 3d12 = 12
    guarded = await harness.emulator.click(gm, offer, "Guard")
    text = guarded.replies[-1].text()
    assert "Berserker guards 爱丽丝菲尔 and becomes the target" in text and "Berserker takes 12 damage" in text
    assert "HP 10/10" in await _pools(table, "爱丽丝菲尔")


async def test_a_save_for_half_a_hit_whose_window_passes_and_a_restart_in_between(table: Table) -> None:
    harness, shirou, ken, gm = table.harness, table.shirou, table.ken, table.gm
    curse = {"name": "Gae Buidhe", "rank": "C", "mode": "one_shot", "resolution": "save", "save_stat": "LUK",
             "damage": "2d6"}  # fmt: skip
    await _summon(table, shirou, E3_MASTER, {**SABER, "noble_phantasms": [curse]})
    refused = await _import(table, ken, {"kind": "master", "name": "Kotomine", "master_type": "melee",
                                         "attributes": {"str": 6}})  # fmt: skip
    assert "`attributes.str`：6 は -5..5 の範囲外です" in refused.content, refused.content
    await _summon(table, ken, {"kind": "master", "name": "Kariya", "master_type": "ordinary",
                               "attributes": {"con": 5}},
                  {"kind": "servant", "name": "Lancer", "master": "Kariya", "servant_class": "lancer",
                   "legend": {"STR": "B", "END": "C", "AGI": "A", "MAG": "D", "LUK": "D"}})  # fmt: skip
    # R6 (E12's shape): rank C against Lancer's LUK C (D, +1 for an ordinary Master): DC (3 + 1 - 3) x 5 = 5.
    harness.dice.queue([7, 6, 4])  # the save 7: margin 2, half; 2d6 = 10, half is 5
    saved = (await harness.slash(shirou, table.channel, "attack", target="Lancer", action="np:Gae Buidhe")).reply
    text = saved.text()
    assert "Lancer's save 7 against 5: half the effect" in text
    assert "Lancer takes 5 damage (rolled 10; reduced: halved)" in text
    mine = (await harness.slash(ken, table.channel, "character show", name="Lancer")).reply
    assert mine.ephemeral and "幸運 C（3）" in mine.text()  # its own sheet, in its player's language

    # In a fight a hit waits for a Guard; the bot restarts; nobody answers, and the window closes on its own.
    harness.dice.queue([20, 1, 1, 1])
    await harness.slash(gm, table.channel, "combat start", order="Saber, Lancer, Shirou, Kariya")
    harness.dice.queue([18])  # 18 + 5 - 5 = 18
    await harness.slash(shirou, table.channel, "attack", target="Lancer", action="melee")
    prompt = harness.last(table.channel, ken)
    assert prompt.buttons()[0] == "Take the hit"
    await harness.restart()
    harness.dice.queue([3, 3, 3])
    harness.emulator.clock.advance(61 * 60)
    await harness.eventually(lambda: harness.current(prompt).buttons() == [])
    await harness.eventually(lambda: "Lancer takes 9 damage (rolled 9)" in harness.seen_by(gm, table.channel))
    assert "HP 56/70" in await _pools(table, "Lancer")  # END A for an ordinary Master's con 5: 70 - 5 - 9


async def test_squares_distances_a_charge_a_run_and_a_sustained_release(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    gate = {"name": "Gate", "rank": "D", "mode": "sustained", "scope": "anti_army", "resolution": "auto",
            "damage": "1d4"}  # fmt: skip
    await _summon(table, shirou, E3_MASTER, {**SABER, "noble_phantasms": [gate]})
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2}})
    await harness.slash(gm, table.channel, "grail place", character="Saber", x=10, y=10)
    await harness.slash(gm, table.channel, "grail place", character="Rin", x=15, y=10)
    where = (await harness.slash(rin, table.channel, "grail where")).reply
    assert where.ephemeral and where.embeds[0]["description"] == "Rin：小地图（0, 0），格（15, 10）"
    (drawn,) = where.attachments  # the map shows the positions the viewer may see, and says them
    assert drawn.data.startswith(b"\x89PNG") and drawn.description == "Rin：小地图（0, 0），格（15, 10）"
    assert where.embeds[0]["title"] == "你的角色所在位置"
    seen_by_gm = (await harness.slash(gm, table.channel, "grail where")).reply
    everyone = seen_by_gm.text()
    assert "Saber: sector (0, 0), square (10, 10)" in everyone and "Shirou: not on the map" in everyone
    assert seen_by_gm.embeds[0]["title"] == "Where every character stands"  # a GM's map is everyone's

    far = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")).reply
    assert far.ephemeral and "5 squares away" in far.content
    # A charge: 10 + 5 - 2 = 13, 3d12 = 3; it ends on the nearest free square next to Rin (Shirou stands on
    # the nearest of all).
    await harness.slash(gm, table.channel, "grail place", character="Shirou", x=14, y=10)
    harness.dice.queue([10, 1, 1, 1])
    charged = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee",
                                    details="charge:true")).reply  # fmt: skip
    assert "Rin takes 3 damage (rolled 3)" in charged.text()
    assert (
        "Saber: sector (0, 0), square (14, 9)" in (await harness.slash(gm, table.channel, "grail where")).reply.text()
    )

    # A fight: Rin runs and loses her defence until her next turn; Saber keeps a sustained Noble Phantasm up.
    harness.dice.queue([20, 1])
    await harness.slash(gm, table.channel, "combat start", order="Saber, Rin")
    harness.dice.queue([2])
    gated = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="np:Gate")).reply
    assert "Saber pays the MP it costs" in gated.text()  # D 2 x anti-army 3, sustained: no doubling (E19)
    await harness.slash(gm, table.channel, "combat next")
    too_far = (await harness.slash(rin, table.channel, "grail move", x=60, y=10, run=True)).reply
    assert too_far.ephemeral and too_far.content == "Rin最多移动 28 格。"  # speed 7, run x4
    ran = (await harness.slash(rin, table.channel, "grail move", x=40, y=10, run=True)).reply
    assert ran.embeds[0]["title"] == "Rin runs: no defence until its next turn"
    again = (await harness.slash(rin, table.channel, "grail move", x=41, y=10)).reply
    assert again.ephemeral and again.content == "Rin本轮已经用过移动动作。"
    struck = (await harness.slash(rin, table.channel, "attack", target="Saber", action="melee")).reply
    assert struck.ephemeral and struck.content == "Rin本轮已经奔跑：奔跑后直到下个回合都没有标准动作。"
    rounded = await harness.slash(gm, table.channel, "combat next")
    assert "Saber pays the MP it costs" in rounded.reply.text()  # paid again at the new round's start
    assert "MP 35/80" in await _pools(table, "Saber")  # 80 - 33 upkeep (Gate D counts 2) - 6 - 6
    # Round 2, Saber's turn, before Rin's: she ran, so her dex does not count: 5 + 5 = 10 hits. No one else stands
    # next to her to guard her (R26), so the hit lands at once.
    await harness.slash(gm, table.channel, "grail place", character="Saber", x=41, y=10)
    harness.dice.queue([5, 1, 1, 1])
    hit = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="melee")).reply
    assert hit.embeds[0]["title"] == "Saber hits Rin with melee (10)", hit.text()
    assert "Rin takes 3 damage (rolled 3)" in hit.text() and not hit.buttons()
    # A Master far from its Servant gives it nothing (R14: within 30 squares).
    await harness.slash(gm, table.channel, "grail place", character="Shirou", x=90, y=90)
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    far = (await harness.slash(shirou, table.channel, "grail transfer", amount=1)).reply
    assert (
        far.ephemeral and far.content == "Shirou is more than 30 squares from its Servant: no MP passes between them."
    )


async def test_casting_in_a_fight_opens_a_window_for_opportunity_attacks_and_martial_arts_counter(table: Table) -> None:
    harness, shirou, rin, ken, gm = table.harness, table.shirou, table.rin, table.ken, table.gm
    await _summon(table, shirou, E3_MASTER, {**SABER, "skills": [{"name": "minds_eye_true", "rank": "B"}]})
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus",
                               "attributes": {"dex": 2, "int": 3, "cha": 5}})  # fmt: skip
    lancer = {"kind": "servant", "name": "Lancer", "master": "Kariya", "servant_class": "lancer",
              "legend": {"STR": "B", "END": "C", "AGI": "A", "MAG": "D", "LUK": "C"},
              "skills": [{"name": "中国武术", "rank": "B"}]}  # fmt: skip
    await _summon(table, ken, {"kind": "master", "name": "Kariya", "master_type": "melee"}, lancer)
    harness.dice.queue([20, 5, 1, 1, 1])
    await harness.slash(gm, table.channel, "combat start", order="Rin, Saber, Lancer, Shirou, Kariya")
    # Rin casts attack magecraft at Saber: the spell waits for opportunity attacks.
    cast = (await harness.slash(rin, table.channel, "attack", target="Saber", action="bolt", details="actions:2")).reply
    assert cast.ephemeral is False, cast.content
    offer = next(m for m in reversed(harness.emulator.visible_to(shirou, table.channel)) if m.buttons()[:1] == [
        "Opportunity attack"])  # fmt: skip
    # Saber strikes: 10 + 5 - Rin's dex 2 = 13, a hit, which waits like any other for a Guard (「任何时候…受到一次命中
    # 类攻击时」): Lancer steps in, 10 + 5 - AGI 5 = 10, and takes 3d12 = 6; Rin lives and casts.
    harness.dice.queue([10, 2, 2, 2, 15, 4, 4])
    struck = await harness.emulator.click(shirou, offer, "Opportunity attack")
    text = struck.replies[-1].text()
    assert "Saber's opportunity attack on Rin (13): a hit" in text and "takes" not in text
    guarded = await harness.emulator.click(ken, await harness.prompt_with(table.channel, ken, "Guard"), "Guard")
    text = guarded.replies[-1].text()
    assert "Lancer guards Rin and becomes the target" in text and "Lancer takes 6 damage (rolled 6)" in text
    assert "HP 10/10" in await _pools(table, "Rin") and "HP 36/42" in await _pools(table, "Lancer")
    # The window stays open for others (D16b); Saber has had its one, and a GM lets the spell go on.
    offer = next(m for m in reversed(harness.emulator.visible_to(shirou, table.channel)) if m.buttons()[:1] == [
        "Opportunity attack"])  # fmt: skip
    twice = await harness.emulator.click(shirou, offer, "Opportunity attack")
    assert twice.replies[-1].ephemeral and twice.replies[-1].content == "Saber has struck at this opening already."
    went = await harness.emulator.click(
        gm, await harness.prompt_with(table.channel, gm, "Let it go on"), "Let it go on"
    )
    text = went.replies[-1].text()
    assert "Rin pays the MP it costs" in text  # 5 per standard action (R21)
    # Her bolt: 15 + int 3 - Saber's AGI 4 = 14, a hit: 2d4 + 3 = 11, less Magic Resistance A+1's 30: nothing.
    assert "Rin hits Saber with attack magecraft (14)" in text
    taken = await harness.emulator.click(shirou, harness.last(table.channel, shirou), "Take the hit")
    assert "Saber takes 0 damage (rolled 11; reduced: Magic Resistance)" in taken.replies[-1].text()

    # Saber's melee on Lancer, who has Chinese Martial Arts B: a counter at -2 before the blow lands, which Saber
    # meets with its Mind's Eye (「你遭遇攻击时」): 19 + 1 beats 16 + 4 - 2; then Lancer's hit waits for it in turn.
    await harness.slash(gm, table.channel, "combat next")
    await harness.slash(shirou, table.channel, "character use", name="Saber")
    harness.dice.queue([12, 16])  # 12 + 5 - 5 = 12 hits; the counter 16 + 4 - 2 - 4 = 14 hits
    attacked = (await harness.slash(shirou, table.channel, "attack", target="Lancer", action="melee")).reply
    text = attacked.text()
    assert "Lancer counters Saber with Chinese Martial Arts (14): a hit" in text and "takes" not in text
    harness.dice.queue([19])
    eyed = await harness.emulator.click(shirou, await harness.prompt_with(table.channel, shirou, "Mind's Eye"),
                                        "Mind's Eye")  # fmt: skip
    assert "Saber's Mind's Eye (20) beats the attack roll (18): evaded" in eyed.replies[-1].text()
    harness.dice.queue([1, 1, 1])
    await harness.emulator.click(ken, await harness.prompt_with(table.channel, ken, "Take the hit"), "Take the hit")
    assert "HP 64/64" in await _pools(table, "Saber") and "HP 33/42" in await _pools(table, "Lancer")


async def test_odds_are_exact_and_a_rivals_stay_the_gms(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    archer = {"kind": "servant", "name": "Archer", "master": "Rin", "servant_class": "archer",
              "legend": ARCHER_LEGEND,
              "skills": [{"name": "minds_eye_true", "rank": "B"}]}  # fmt: skip
    await _summon(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus"}, archer)
    hidden = (await harness.slash(shirou, table.channel, "odds", attacker="Saber", defender="Archer",
                                  action="melee")).reply  # fmt: skip
    assert hidden.ephemeral and "only the GMs see them" in hidden.content
    shown = (await harness.slash(gm, table.channel, "odds", attacker="Saber", defender="Archer",
                                 action="melee")).reply  # fmt: skip
    lines = shown.embeds[0]["description"].splitlines()
    # d20 + 5 - AGI 3 >= 10: faces 8 to 20; Luck A rolls a 1 or a 2 again: 13/20 + 2/20 x 13/20.
    assert lines[0] == "The attack roll hits: **71.5%** (143/200)"
    assert lines[1].startswith("It hits, and Mind's Eye does not evade it: ")


async def test_a_rank_boost_a_plus_statuses_and_regeneration(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    skills = [{"name": "rank_boost", "rank": "C", "target": "力量"}, {"name": "回血", "rank": "B"},
              {"name": "instinct", "rank": "B+"}]  # fmt: skip
    legend = {"STR": "B", "END": "C+", "AGI": "C", "MAG": "B", "LUK": "A"}
    await _summon(table, shirou, E3_MASTER, {**SABER, "legend": legend, "skills": skills})
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "melee", "attributes": {"str": 5}})

    # The "+" on Instinct B: x2 for 10 minutes, once a day (R17); an attack on Saber is at -8 instead of -4.
    on = (await harness.slash(shirou, table.channel, "grail plus", target="Instinct")).reply
    assert on.embeds[0]["title"] == 'Saber turns on the "+" of Instinct: ×2 for 10 minutes'
    harness.dice.queue([19, 3])
    struck = (await harness.slash(rin, table.channel, "attack", target="Saber", action="melee")).reply
    assert "+5 (attack bonus) -8 (Instinct) -4 (defence) = **12**" in struck.text()
    # Each "+" is its own (R17): END's turns on beside Instinct's, with its extra HP, 4 more per rank over B.
    twice = (await harness.slash(shirou, table.channel, "grail plus", target="Instinct")).reply
    assert twice.ephemeral and twice.content == 'The "+" of Saber\'s Instinct is on already.'
    endurance = (await harness.slash(shirou, table.channel, "grail plus", target="耐力")).reply
    assert endurance.embeds[0]["title"] == 'Saber turns on the "+" of Endurance: ×2 for 10 minutes'
    none = (await harness.slash(shirou, table.channel, "grail plus", target="LUK")).reply
    assert none.ephemeral and none.content == 'Saber has no "+" on Luck.'
    # A GM rules Saber unaware: its AGI no longer counts (R3); Instinct still does while conscious.
    ruled = (await harness.slash(gm, table.channel, "grail status", character="Saber", status="unaware")).reply
    assert ruled.ephemeral and "unaware" in ruled.text().lower()  # a public post would tell Saber's player
    log = (await harness.slash(shirou, table.channel, "log show")).reply.text()
    assert "made a ruling that the GMs keep to themselves" in log
    assert not any("ruling" in line and "Saber" in line for line in log.splitlines())
    harness.dice.queue([13, 2])
    hit = (await harness.slash(rin, table.channel, "attack", target="Saber", action="melee")).reply
    assert "+5 (attack bonus) -8 (Instinct) = **10**" in hit.text()
    assert "Saber takes nothing" in hit.text()  # a Master's fists have no mystery
    # An hour passes: the "+" ends, and HP Regeneration B would give 4 a round (Saber is unhurt: nothing).
    ended = await harness.slash(gm, table.channel, "campaign time", hours=1)
    assert 'The "+" of Saber\'s Instinct ends' in ended.reply.text()
    assert 'The "+" of Saber\'s Endurance ends' in ended.reply.text()

    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="hp", amount=-20)
    harness.dice.queue([20, 1])
    await harness.slash(gm, table.channel, "combat start", order="Saber, Rin")
    boosted = (await harness.slash(shirou, table.channel, "grail boost", ranks=3)).reply
    assert boosted.embeds[0]["title"] == "Saber raises its Strength by 3 ranks for this fight"
    sheet = (await harness.slash(shirou, table.channel, "character show", name="Saber")).reply
    assert "Strength A+3 (8)" in _fields(sheet)["Ranks"]
    again = (await harness.slash(shirou, table.channel, "grail boost", ranks=1)).reply
    assert again.ephemeral and again.content == "Saber has boosted its rank in this fight already."
    assert "HP 48/64" in await _pools(table, "Saber")  # round 1 began with HP Regeneration B's 4
    await harness.slash(gm, table.channel, "combat next")
    regenerated = await harness.slash(gm, table.channel, "combat next")  # round 2, and 4 more
    assert "Saber regenerates: HP +4, MP +0" in regenerated.reply.text()
    assert "HP 52/64" in await _pools(table, "Saber")
    await harness.slash(gm, table.channel, "combat end")
    sheet = (await harness.slash(shirou, table.channel, "character show", name="Saber")).reply
    assert "Strength A (5)" in _fields(sheet)["Ranks"]


async def test_without_auto_transfer_the_master_consents_to_give(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await harness.slash(gm, table.channel, "campaign set", option="auto_transfer", value="false")
    await _import(table, table.rin, {"kind": "master", "name": "Rin", "master_type": "magus"})
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=-36)
    asked = (await harness.slash(shirou, table.channel, "attack", target="Rin", action="np:Excalibur")).reply
    asking = f"{shirou.mention} Saber needs 50 MP and has 44: will Shirou give MP for it"
    assert asked.content.startswith(asking), asked.content
    harness.dice.queue([10, 1, 1, 1, 1, 1])
    given = await harness.emulator.click(shirou, asked, "Give the MP")
    assert "Saber pays the MP it costs" in given.replies[-1].text()
    assert "MP 2/80" in await _pools(table, "Saber") and "MP 6/10" in await _pools(table, "Shirou")

    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=40)
    await _import(table, table.rin, {"kind": "master", "name": "Taiga", "master_type": "melee"})
    asked = (await harness.slash(shirou, table.channel, "attack", target="Taiga", action="np:Excalibur")).reply
    refused = await harness.emulator.click(shirou, asked, "Refuse")
    assert "Saber cannot pay 50 MP alone: it does not attack" in refused.replies[-1].text()
    assert "MP 42/80" in await _pools(table, "Saber")


async def test_what_a_first_play_through_found(table: Table) -> None:
    """A war between two pairs made by Chinese-speaking players and one the GMs run."""
    harness, mei, rin, gm = table.harness, table.mei, table.rin, table.gm
    caladbolg = {"name": "Caladbolg II", "rank": "A", "scope": "anti_army", "mode": "one_shot", "ranged": True}
    archer = {
        "kind": "servant",
        "name": "Archer",
        "master": "Rin",
        "servant_class": "archer",
        "legend": ARCHER_LEGEND,
        "noble_phantasms": [caladbolg],
    }
    await _summon(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus",
                               "attributes": {"dex": 2, "int": 3, "cha": 5}}, archer)  # fmt: skip
    # A Master checks its Strength; 敏捷 is its DEX (a Servant's AGI).
    await harness.slash(rin, table.channel, "character use", name="Rin")
    harness.dice.queue([10, 10])
    assert (await harness.slash(rin, table.channel, "check", stat="STR")).reply.embeds[0]["title"] == (
        "Rin: Strength check, 10")  # fmt: skip
    assert "+2 (Dexterity)" in (await harness.slash(rin, table.channel, "check", stat="敏捷")).reply.text()
    # A player declines Luck's optional rerolls; an unapproved Servant does not fight.
    declined = await harness.slash(rin, table.channel, "character edit", name="Archer", field="luck_rerolls",
                                   value="false")  # fmt: skip
    assert declined.reply.ephemeral and "luck_rerolls" in declined.reply.content  # a private sheet's change
    await _import(table, mei, E3_MASTER)
    await _import(table, mei, SABER)  # waits for a GM
    held = await harness.slash(gm, table.channel, "combat start", order="Rin, Archer, Saber")
    assert held.reply.ephemeral and held.reply.content.startswith("Saber's sheet is waiting for a GM's approval")
    prompt = next(m for m in reversed(harness.emulator.visible_to(gm, table.channel)) if "Approve" in m.buttons())
    await harness.emulator.click(gm, prompt, "Approve")

    berserker = {"kind": "servant", "name": "Berserker", "master": "Illya", "servant_class": "berserker",
                 "legend": {"STR": "A", "END": "A", "AGI": "A", "MAG": "A", "LUK": "B"}, "mad_enhancement": "C",
                 "skills": [{"name": "minds_eye_false", "rank": "C"}]}  # fmt: skip
    for npc in ({"kind": "master", "name": "Illya", "master_type": "homunculus", "general_spells": ["heal"]},
                berserker):  # fmt: skip
        upload = yaml.safe_dump(npc, allow_unicode=True).encode()
        await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)
    await harness.slash(gm, table.channel, "gm auto", character="Berserker", wait="reaction", answer="take")
    # Rin 20 + 2, Archer 5 + 3, Saber 3 + 4, Berserker 2 + 5 (AGI A+1: before Saber, its AGI higher), Shirou 1 + 3.
    harness.dice.queue([20, 5, 3, 2, 1])
    started = await harness.slash(gm, table.channel, "combat start", order="Rin, Archer, Saber, Berserker, Shirou")
    text = started.reply.text()
    assert "initiative of Rin: 1d20 [20] +2 (initiative) = **22**" in text
    assert "Order: Rin → Archer → Berserker → Saber → Shirou" in text
    # The GMs' Berserker pays its upkeep; how much is theirs to know.
    assert "Berserker pays its combat upkeep" in text and "Berserker pays its combat upkeep:" not in text

    # Rin's attack magecraft over two actions: the second is her next turn's standard action (D37).
    cast = (await harness.slash(rin, table.channel, "attack", target="Berserker", action="bolt",
                                details="actions:2")).reply  # fmt: skip
    assert cast.embeds[0]["title"] == "Rin begins to cast attack magecraft at Berserker"
    harness.dice.queue([15, 2, 2])  # 15 + 3 - AGI 6 = 12, a hit, taken as the GMs set: 2d4 + 3 = 7
    went = await harness.emulator.click(
        gm, await harness.prompt_with(table.channel, gm, "Let it go on"), "Let it go on"
    )
    assert "Berserker takes 7 damage (rolled 7)" in went.replies[-1].text()
    assert (await harness.slash(rin, table.channel, "grail rest")).reply.content == "Rin不能在战斗中这样做。"

    # Archer's anti-army Noble Phantasm at two targets: one d20; Berserker's Mind's Eye rolled at once, and a
    # one-shot's half damage for the evasion; Saber takes it all.
    await harness.slash(gm, table.channel, "combat next")
    await harness.slash(rin, table.channel, "character use", name="Archer")
    harness.dice.queue([12, 18, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    area = (await harness.slash(rin, table.channel, "attack", target="Berserker, Saber",
                                action="np:Caladbolg II")).reply  # fmt: skip
    text = area.text()
    assert "Berserker's Mind's Eye (18) beats the attack roll (17): evaded" in text
    assert "Berserker takes 7 damage (rolled 14; reduced: halved)" in text
    assert "Saber takes 14 damage (rolled 14)" in text
    assert "Archer pays the MP it costs" in text
    await harness.slash(mei, table.channel, "character use", name="Saber")
    early = (await harness.slash(mei, table.channel, "attack", target="Berserker", action="melee")).reply
    switch = f"{harness.mention('character use')}（/角色 使用）"
    assert early.ephemeral and early.content == (
        f"现在是 Archer 的回合：Saber 只能在自己的回合行动（要用你的另一个角色行动，先用 {switch} 换过去）。"
    )

    # Round 2: Rin's standard action went into her spell.
    for _ in range(4):
        await harness.slash(gm, table.channel, "combat next")
    await harness.slash(rin, table.channel, "character use", name="Rin")
    spent = (await harness.slash(rin, table.channel, "attack", target="Berserker", action="melee")).reply
    assert spent.ephemeral and spent.content == "Rin本轮已经用过标准动作。"
    status = (await harness.slash(gm, table.channel, "combat status")).reply.text()
    assert "**Rin**: move action · minor action" in status

    # A Master a GM kills with an award leaves its Servant masterless at once, as a death by a blow does (R16):
    # gone within 1d3 rounds.
    harness.dice.queue([1])
    await harness.slash(gm, table.channel, "gm award", character="Illya", resource="hp", amount=-100)
    seen = harness.seen_by(mei, table.channel)  # the pools stay hidden; the death and what follows do not
    assert "Illya is dead." in seen and "Berserker has lost its Master and will vanish" in seen
    said = ""
    for _ in range(12):
        said += (await harness.slash(gm, table.channel, "combat next")).reply.text()
        if "Berserker vanishes without its Master" in said:
            break
    assert "Berserker vanishes without its Master" in said
    status = (await harness.slash(gm, table.channel, "combat status")).reply.text()
    assert "**Berserker**: Berserker has vanished." in status  # out of play, marked in the turn order
    # Luck E rolls a 20 and a 19 again (R1), and the roll shows them struck through.
    await harness.slash(rin, table.channel, "character use", name="Archer")
    harness.dice.queue([20, 19, 4])
    rolled = (await harness.slash(rin, table.channel, "check", stat="LUK")).reply.text()
    assert "check: 1d20 [~~20~~, ~~19~~, 4] +1 (Luck) = **5**" in rolled


async def test_resistance_against_a_type_and_a_slayer_against_a_kind(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    slayer = {"name": "slayer", "rank": "B", "target": "dragon"}
    await _summon(table, shirou, E3_MASTER, {**SABER, "skills": [slayer],
                  "noble_phantasms": [{"name": "Excalibur", "rank": "A", "scope": "anti_city", "mode": "one_shot",
                                       "damage_type": "holy"}]})  # fmt: skip
    wyrm = {"kind": "servant", "name": "Fafnir", "master": "Siegfried", "servant_class": "berserker",
            "legend": {"STR": "C", "END": "A", "AGI": "E", "MAG": "E", "LUK": "E"}, "mad_enhancement": "E",
            "creature": ["Dragon"], "skills": [{"name": "抗性", "rank": "C", "target": "holy"}]}  # fmt: skip
    for npc in ({"kind": "master", "name": "Siegfried", "master_type": "ordinary"}, wyrm):
        upload = yaml.safe_dump(npc, allow_unicode=True).encode()
        await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)
    # Saber's melee on a dragon: 3d12 and Slayer B's 4d6 (R18).
    harness.dice.queue([15, 5, 5, 5, 1, 2, 3, 4])
    slain = (await harness.slash(shirou, table.channel, "attack", target="Fafnir", action="melee")).reply.text()
    assert "slayer: 4d6 [1, 2, 3, 4] = **10**" in slain
    assert "Fafnir takes 25 damage (rolled 25)" in slain
    # Excalibur is holy: 5d12+9 = 14 and the slayer's 4d6 = 4, less resistance C's 15.
    harness.dice.queue([15, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    resisted = (await harness.slash(shirou, table.channel, "attack", target="Fafnir",
                                    action="np:Excalibur")).reply.text()  # fmt: skip
    assert "Fafnir takes 3 damage (rolled 18; reduced: resistance)" in resisted

    # A creature whose file names it a familiar is as hard to hit as a familiar: -5 (R21).
    familiar = {"kind": "master", "name": "Owl", "master_type": "ordinary", "attributes": {"con": -5},
                "creature": ["familiar"]}  # fmt: skip
    upload = yaml.safe_dump(familiar, allow_unicode=True).encode()
    await harness.slash(gm, table.channel, "character import", file=("owl.yaml", upload), npc=True)
    harness.dice.queue([8])  # 8 + 5 - 5: a miss
    missed = (await harness.slash(shirou, table.channel, "attack", target="Owl", action="melee")).reply.text()
    assert "1d20 [8] +5 (attack bonus) -5 (a familiar) = **8**" in missed


async def test_the_gms_puppets_and_familiars_and_charisma_for_an_ally(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    refused = await _import(table, rin, {"kind": "puppet", "name": "Golem", "rank": "C"})
    assert refused.ephemeral and refused.content == "只有GM能创建傀儡兵：它是由GM操控的角色（命令的 npc 选项）。"
    bad = (
        await harness.slash(
            gm,
            table.channel,
            "character import",
            npc=True,
            file=("golem.yaml", yaml.safe_dump({"kind": "puppet", "name": "Golem", "rank": "EX"}).encode()),
        )
    ).reply
    assert bad.ephemeral and "`rank`: EX: a puppet's rank is a plain E to A" in bad.content
    for npc in ({"kind": "puppet", "name": "Golem", "rank": "C"}, {"kind": "familiar", "name": "Owl"}):
        upload = yaml.safe_dump(npc).encode()
        made = (await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)).reply
        assert not made.ephemeral or "Golem" in made.content or "Owl" in made.content, made.content
    # D33: a Servant on the Caster's row, all ranks C: 3 x 8 HP, no MP of its own and no class skills.
    assert "HP 24/24 · MP 0/0" in await _pools(table, "Golem")
    assert "HP 1/1 · MP 0/0" in await _pools(table, "Owl")
    golem = _fields((await harness.slash(gm, table.channel, "character show", name="Golem")).reply)
    assert golem["Ranks"] == "Strength C (3) · Endurance C (3) · Agility C (3) · Magic C (3) · Luck C (3)"
    assert "Skills" not in golem and "MP upkeep" not in golem
    owl = _fields((await harness.slash(gm, table.channel, "character show", name="Owl")).reply)
    assert owl["Movement"] == "Speed 10" and "attacks against it are at -5" in owl["A familiar"]

    await harness.slash(gm, table.channel, "character use", name="Owl")
    looked = (await harness.slash(gm, table.channel, "check", stat="WIS")).reply
    assert looked.ephemeral and looked.content.startswith("Owl is a familiar: it has no stats to roll.")
    pecked = (await harness.slash(gm, table.channel, "attack", target="Golem", action="melee")).reply
    assert pecked.ephemeral and pecked.content == "Owl is a familiar: it has no attacks of its own."

    # Saber's Charisma B: its Master gets +4 to attack and damage while they stand in one sector (R19).
    await _summon(table, shirou, E3_MASTER, {**SABER, "skills": [{"name": "统御力", "rank": "B"}]})
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([10, 3])  # 10 + 4 - 5 + 4 = 13 against a familiar's defence 0; 1d6 + 7 + 4
    struck = (await harness.slash(shirou, table.channel, "attack", target="Owl", action="melee")).reply.text()
    assert "1d20 [10] +4 (attack bonus) -5 (a familiar) +4 (Charisma) = **13**" in struck
    assert "1d6 [3] +7 (bonus) +4 (Charisma) = **14**" in struck and "Owl is dead." in struck
    # A puppet is treated as a Servant: a Master's fists, without mystery, do nothing to it.
    harness.dice.queue([15, 2])
    fists = (await harness.slash(shirou, table.channel, "attack", target="Golem", action="melee")).reply.text()
    assert "Golem takes nothing" in fists
    # Once Shirou stands on the map and Saber nowhere on it, or in another sector, Saber is out of sight.
    await harness.slash(gm, table.channel, "grail place", character="Shirou", x=1, y=1)
    await harness.slash(gm, table.channel, "grail place", character="Golem", x=2, y=1)
    harness.dice.queue([15, 2])
    unseen = (await harness.slash(shirou, table.channel, "attack", target="Golem", action="melee")).reply.text()
    assert "Charisma" not in unseen
    await harness.slash(gm, table.channel, "grail place", character="Saber", x=1, y=1, sector_x=1)
    harness.dice.queue([15, 2])
    alone = (await harness.slash(shirou, table.channel, "attack", target="Golem", action="melee")).reply.text()
    assert "Charisma" not in alone and "1d20 [15] +4 (attack bonus) -3 (defence) = **16**" in alone
    # The puppet strikes back as a Caster-row Servant: STR C, 1d8.
    await harness.slash(gm, table.channel, "character use", name="Golem")
    harness.dice.queue([12, 5])
    blow = (await harness.slash(gm, table.channel, "attack", target="Shirou", action="melee")).reply.text()
    assert "1d20 [12] +3 (attack bonus) -3 (defence) = **12**" in blow and "Shirou takes 5 damage" in blow


async def test_a_casters_territory_restores_its_mp_inside_it(table: Table) -> None:
    harness, rin, gm = table.harness, table.rin, table.gm
    medea = {"kind": "servant", "name": "Medea", "master": "Souichirou", "servant_class": "caster",
             "legend": {"STR": "E", "END": "D", "AGI": "C", "MAG": "A", "LUK": "B"}}  # fmt: skip
    await _summon(table, rin, {"kind": "master", "name": "Souichirou", "master_type": "melee"}, medea)
    unplaced = (await harness.slash(rin, table.channel, "grail territory")).reply
    assert unplaced.ephemeral and unplaced.content.startswith("Medea在地图上没有位置")
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=50, y=50)
    founded = (await harness.slash(rin, table.channel, "grail territory")).reply
    assert founded.embeds[0]["title"] == "Medea begins its territory"
    await harness.slash(gm, table.channel, "gm award", character="Medea", resource="mp", amount=-50)
    # A day's work before it stands: an hour later, nothing.
    early = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Medea regenerates" not in early
    # Territory Creation A: 5 MP a minute once it stands, never above the maximum.
    stood = (await harness.slash(gm, table.channel, "campaign time", hours=24)).reply.text()
    assert "Medea regenerates: HP +0, MP +50" in stood
    assert "Medea pays its daily upkeep" in stood and "MP 93/100" in await _pools(table, "Medea")  # 7
    # Outside its 50x50 squares (25 to the east is out), nothing; 24 to the east is in.
    await harness.slash(gm, table.channel, "gm award", character="Medea", resource="mp", amount=-10)
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=75, y=50)
    away = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Medea regenerates" not in away
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=74, y=26)
    home = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Medea regenerates: HP +0, MP +17" in home and "MP 100/100" in await _pools(table, "Medea")


async def test_a_gm_reveals_a_secret_sheet_and_hides_it_again(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    refused = (await harness.slash(rin, table.channel, "gm reveal", character="Saber")).reply
    assert refused.ephemeral and "GM" in refused.content
    assert "Saber" in (await harness.slash(rin, table.channel, "character list")).reply.text()
    revealed = (await harness.slash(gm, table.channel, "gm reveal", character="Saber")).reply
    assert not revealed.ephemeral
    show = harness.mention("character show")
    assert revealed.content == f"The GMs reveal Saber's sheet: everyone can now read it with {show}, pools included."
    shown = (await harness.slash(rin, table.channel, "character show", name="Saber")).reply
    assert not shown.ephemeral and "Excalibur" in _fields(shown)["Noble Phantasms"]
    roster = (await harness.slash(rin, table.channel, "character list")).reply.text()
    assert "HP（生命） 64/64" in roster.split("**Saber**")[1].splitlines()[0]
    again = (await harness.slash(gm, table.channel, "gm reveal", character="Saber")).reply
    assert again.ephemeral and again.content == "Saber's sheet is revealed already."
    hidden = (await harness.slash(gm, table.channel, "gm reveal", character="Saber", hide=True)).reply
    assert hidden.content == "Saber's sheet is secret again."
    rival = (await harness.slash(rin, table.channel, "character show", name="Saber")).reply
    assert rival.ephemeral and _fields(rival) == {"职阶": "剑士"}
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert "revealed Saber's sheet" in log and "hid Saber's sheet again" in log


async def test_gm_options_rounds_to_die_in_and_a_standard_action_for_a_move(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "melee", "attributes": {"str": 5}})
    for option, value in (("dying_rounds", "2"), ("action_downgrade", "true")):
        await harness.slash(gm, table.channel, "campaign set", option=option, value=value)
    await harness.slash(gm, table.channel, "grail place", character="Rin", x=10, y=10)
    await harness.slash(gm, table.channel, "grail place", character="Shirou", x=12, y=10)
    harness.dice.queue([20, 1])
    await harness.slash(gm, table.channel, "combat start", order="Rin, Shirou")
    # D32's option: a second move takes the standard action's place; then there is none left for an attack.
    await harness.slash(rin, table.channel, "grail move", x=15, y=10)
    second = (await harness.slash(rin, table.channel, "grail move", x=11, y=10)).reply
    assert not second.ephemeral, second.content
    third = (await harness.slash(rin, table.channel, "grail move", x=12, y=11)).reply
    assert third.ephemeral and third.content == "Rin本轮已经用过移动动作。"
    assert "**Rin**: minor action" in (await harness.slash(gm, table.channel, "combat status")).reply.text()

    # D24's option: dropped to 0 HP, Shirou is down for two rounds; not healed, he dies, and only then is
    # Saber masterless.
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="hp", amount=-20)
    for _ in range(2):
        await harness.slash(gm, table.channel, "combat next")
    harness.dice.queue([15, 4])  # no one but Rin stands next to Shirou: no Guard, and the hit lands at once
    struck = (await harness.slash(rin, table.channel, "attack", target="Shirou", action="melee")).reply
    assert "Shirou is down and dying" in struck.text()
    said = [(await harness.slash(gm, table.channel, "combat next")).reply.text() for _ in range(2)]
    # The down are passed over in the turn order: round 3, then round 4, when its two rounds are out.
    assert said[0].startswith("Round 3") and "Shirou is down and dying" in said[0]
    assert "Saber has lost its Master" not in said[0]
    assert said[1].startswith("Round 4") and "Shirou dies of its wounds." in said[1]
    assert "Saber has lost its Master and will vanish" in said[1]  # R16 counts from the death


async def test_the_tricksters_grenades_and_a_sniper_who_aims(table: Table) -> None:
    harness, shirou, gm = table.harness, table.shirou, table.gm
    kiritsugu = {"kind": "master", "name": "Kiritsugu", "master_type": "trickster",
                 "attributes": {"dex": 5, "con": 3, "wis": 2}, "general_spells": ["heal", "shield"]}  # fmt: skip
    await _import(table, shirou, kiritsugu)
    squares = {"Kiritsugu": (10, 10), "Thug 1": (15, 10), "Thug 2": (16, 11), "Thug 3": (17, 10), "Thug 4": (11, 11)}
    for name, (x, y) in squares.items():
        if name != "Kiritsugu":
            upload = yaml.safe_dump({"kind": "master", "name": name, "master_type": "ordinary"}).encode()
            await harness.slash(gm, table.channel, "character import", file=("npc.yaml", upload), npc=True)
        await harness.slash(gm, table.channel, "grail place", character=name, x=x, y=y)

    # R29, D31: one roll (10 + dex 5) against each creature's defence in a 3x3 area; each takes its own 3d10.
    harness.dice.queue([10, 5, 5, 5, 1, 1, 1, 2, 2, 2])
    blast = (await harness.slash(shirou, table.channel, "attack", target="Thug 1, Thug 2, Thug 3",
                                 action="grenade")).reply.text()  # fmt: skip
    assert blast.count("hits") == 3 and "Thug 1 takes 15 damage" in blast and "Thug 1 is dead." in blast
    assert "Thug 2 takes 3 damage" in blast and "Thug 3 takes 6 damage" in blast
    wide = (await harness.slash(shirou, table.channel, "attack", target="Thug 3, Thug 4", action="grenade")).reply
    assert wide.ephemeral and wide.content == "A grenade strikes a 3×3 area: its targets must all stand within one."
    await harness.slash(gm, table.channel, "grail place", character="Thug 4", x=22, y=10)
    far = (await harness.slash(shirou, table.channel, "attack", target="Thug 4", action="grenade")).reply
    assert far.ephemeral and far.content == "Thug 4 is 12 squares away: a grenade is thrown at most 10."
    claimed = (await harness.slash(shirou, table.channel, "attack", target="Thug 4", action="grenade",
                                   details="distance:1")).reply  # fmt: skip
    assert claimed.content == far.content  # where the map is kept, a stated distance does not shorten it
    for _ in range(9):  # ten grenades in all: nine more, each a miss (1 + 5)
        harness.dice.queue([1])
        await harness.slash(shirou, table.channel, "attack", target="Thug 3", action="grenade")
    spent = (await harness.slash(shirou, table.channel, "attack", target="Thug 3", action="grenade")).reply
    assert spent.ephemeral and spent.content == "Kiritsugu has thrown all its grenades."

    # Out of a fight, three minutes of aim at once: +30 and the rifle's 3d12 at their maximum.
    aimed = (await harness.slash(shirou, table.channel, "grail aim", target="Thug 2", rounds=30)).reply
    assert aimed.embeds[0]["title"] == "Kiritsugu aims at Thug 2"
    harness.dice.queue([5])
    shot = (await harness.slash(shirou, table.channel, "attack", target="Thug 2", action="ranged")).reply.text()
    assert "1d20 [5] +5 (attack bonus) +30 (aim) = **40**" in shot and "3d12 [12, 12, 12]" in shot

    # In a fight, a standard action each round: three rounds of aim give +3; meanwhile everyone else gets +5.
    await harness.slash(gm, table.channel, "grail place", character="Thug 4", x=11, y=11)
    harness.dice.queue([10, 5, 1])
    await harness.slash(gm, table.channel, "combat start", order="Kiritsugu, Thug 3, Thug 4")
    await harness.slash(shirou, table.channel, "grail aim", target="Thug 3")
    once = (await harness.slash(shirou, table.channel, "grail aim", target="Thug 3")).reply
    assert once.ephemeral and once.content == "Kiritsugu has used its standard action this round."
    for _ in range(2):
        await harness.slash(gm, table.channel, "combat next")
    await harness.slash(gm, table.channel, "character use", name="Thug 4")
    harness.dice.queue([10, 2])  # no one else stands next to Kiritsugu to guard him: the hit lands at once
    await harness.slash(gm, table.channel, "attack", target="Kiritsugu", action="melee")
    assert "+5 (aiming at someone else)" in harness.seen_by(shirou, table.channel)
    for _ in range(2):  # rounds 2 and 3
        await harness.slash(gm, table.channel, "combat next")
        aimed = (await harness.slash(shirou, table.channel, "grail aim", target="Thug 3")).reply
        for _ in range(2):
            await harness.slash(gm, table.channel, "combat next")
    assert "Rounds of aim: 3. Its next rifle shot at Thug 3 gets +3" in aimed.text()
    await harness.slash(gm, table.channel, "combat next")  # round 4
    harness.dice.queue([8, 1, 1, 1])
    shot = (await harness.slash(shirou, table.channel, "attack", target="Thug 3", action="ranged")).reply.text()
    assert "1d20 [8] +5 (attack bonus) +3 (aim) = **16**" in shot and "3d12 [1, 1, 1]" in shot
    # D25's option: a campaign may give the rifle a maximum range; D38's, the action a round of aim takes.
    await harness.slash(gm, table.channel, "combat end")
    await harness.slash(gm, table.channel, "campaign set", option="aim_action", value="minor")
    harness.dice.queue([10, 5, 1])
    await harness.slash(gm, table.channel, "combat start", order="Kiritsugu, Thug 3, Thug 4")
    await harness.slash(shirou, table.channel, "grail aim", target="Thug 3")
    left = (await harness.slash(gm, table.channel, "combat status")).reply.text()
    assert "**Kiritsugu**: standard action · move action (" in left
    await harness.slash(gm, table.channel, "combat end")
    await harness.slash(gm, table.channel, "campaign set", option="sniper_range", value="10")
    await harness.slash(gm, table.channel, "grail place", character="Thug 3", x=40, y=10)
    beyond = (await harness.slash(shirou, table.channel, "attack", target="Thug 3", action="ranged")).reply
    assert beyond.ephemeral and beyond.content == "Thug 3 is 30 squares away: this campaign's rifle reaches 10."


MEDEA = {"kind": "servant", "name": "Medea", "master": "Rin", "servant_class": "caster",
         "legend": {"STR": "E", "END": "D", "AGI": "C", "MAG": "A", "LUK": "B"},
         "skills": [{"name": "施法", "rank": "A"}],
         "spells": ["heal", "shield", "suggest", "teleport", "alarm", "flight", "reinforce", "familiar",
                    "puppets"]}  # fmt: skip
RIN_MAGUS = {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2, "int": 3, "cha": 5}}


async def test_healing_protection_suggestion_and_what_expires(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await _import(table, rin, RIN_MAGUS)
    too_many = await _import(table, rin, {**MEDEA, "skills": [{"name": "spellcasting", "rank": "E"}]})
    assert "`spells`：选择了 9 种魔术；施法只允许 2 种（法师为X的两倍）" in too_many.content
    await _import(table, rin, MEDEA)
    await harness.approve_sheet(gm, table.channel, "Medea")
    for npc in ({"kind": "master", "name": "Thug", "master_type": "ordinary"},
                {"kind": "master", "name": "Kayneth", "master_type": "magus"}):  # fmt: skip
        await harness.slash(gm, table.channel, "character import", file=("npc.yaml", yaml.safe_dump(npc).encode()),
                            npc=True)  # fmt: skip

    # R21: a Master's healing, 2 HP for each MP; R22: a Caster's, 5, never above the maximum (D30).
    await harness.slash(gm, table.channel, "gm award", character="Shirou", resource="hp", amount=-10)
    await harness.slash(rin, table.channel, "character use", name="Rin")
    healed = (await harness.slash(rin, table.channel, "grail cast", spell="heal", target="Shirou", amount=3)).reply
    assert healed.embeds[0]["title"] == "Rin casts healing" and "Shirou regains 6 HP." in healed.text()
    assert "Rin pays the MP it costs" in healed.text()
    await harness.slash(rin, table.channel, "character use", name="Medea")
    topped = (await harness.slash(rin, table.channel, "grail cast", spell="heal", target="Shirou", amount=1)).reply
    assert "Shirou regains 4 HP." in topped.text()
    full = (await harness.slash(rin, table.channel, "grail cast", spell="heal", target="Shirou", amount=1)).reply
    assert full.ephemeral and full.content == "Shirou的HP是满的：没有可以治疗的。"

    # A Caster's protection: 5 temporary HP for each MP, for 10 minutes; one kept up costs a MP a minute (D42).
    shielded = (await harness.slash(rin, table.channel, "grail cast", spell="shield", target="Saber",
                                    amount=10)).reply.text()  # fmt: skip
    assert "Saber gains 50 temporary HP for 10 minutes." in shielded
    await harness.slash(rin, table.channel, "grail cast", spell="shield", target="Shirou", amount=1, keep=True)
    hour = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Saber's protection ends (50 temporary HP gone)." in hour
    assert "Medea pays 51 MP to keep Shirou's protection up." in hour
    later = (await harness.slash(gm, table.channel, "campaign time", hours=2)).reply.text()
    assert "Shirou's protection ends (5 temporary HP gone)." in later  # 120 MP more: more than it has

    # Suggestion: a Master's d20 + cha against a mortal who is not a magus; a Caster's holds a mortal at once.
    await harness.slash(rin, table.channel, "character use", name="Rin")
    harness.dice.queue([5])
    held = (await harness.slash(rin, table.channel, "grail cast", spell="suggest", target="Thug")).reply.text()
    assert "1d20 [5] +5 (Charisma) = **10**" in held and "The suggestion takes hold of Thug." in held
    magus = (await harness.slash(rin, table.channel, "grail cast", spell="suggest", target="Kayneth")).reply
    assert magus.ephemeral and magus.content == "Kayneth是魔术师：御主的暗示对魔术师无效。"
    await harness.slash(rin, table.channel, "character use", name="Medea")
    sure = (await harness.slash(rin, table.channel, "grail cast", spell="suggest", target="Thug")).reply.text()
    assert "The suggestion takes hold of Thug." in sure and "1d20" not in sure
    # A suggestion's difficulty is the GM's (R21: "GM mod"): a player's waits for a GM, and nothing is rolled first.
    asked = (await harness.slash(rin, table.channel, "grail cast", spell="suggest", target="Kayneth",
                                 modifier=-5)).reply  # fmt: skip
    assert asked.buttons() == ["Grant", "Refuse"] and "modifier -5" in asked.content
    harness.dice.queue([3])
    resisted = (await harness.emulator.click(gm, asked, "Grant")).replies[-1].text()
    assert "+5 (Magic) -5 (situation) = **3**" in resisted and "Kayneth resists the suggestion." in resisted
    servant = (await harness.slash(rin, table.channel, "grail cast", spell="suggest", target="Saber")).reply
    assert servant.ephemeral
    unknown = (await harness.slash(shirou, table.channel, "grail cast", spell="heal", amount=1)).reply
    assert unknown.ephemeral and unknown.content == "Saber does not know healing."

    # R21: an alarm barrier stands after 3 minutes; its owner then senses whoever is inside, from afar.
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=10, y=10)
    await harness.slash(rin, table.channel, "character use", name="Medea")
    barrier = (await harness.slash(rin, table.channel, "grail cast", spell="alarm")).reply.text()
    assert "stands after 3 minutes of setup" in barrier
    await harness.slash(gm, table.channel, "campaign time", hours=1)
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=10, y=10, sector_x=5)
    await harness.slash(gm, table.channel, "grail place", character="Thug", x=55, y=40)
    await harness.slash(gm, table.channel, "grail place", character="Kayneth", x=90, y=90)
    harness.dice.queue([1])
    sensed = (await harness.slash(rin, table.channel, "grail search")).reply.text()
    assert "Thug：小地图（0, 0），格（55, 40）" in sensed and "Kayneth" not in sensed

    # R22: flight at 4 + AGI + MAG a move for 5 MP a round; a reinforced item, a Noble Phantasm for an hour.
    flew = (await harness.slash(rin, table.channel, "grail cast", spell="flight")).reply.text()
    assert "12 squares a move, 5 MP a round" in flew or "每次移动 12 格" in flew, flew
    reinforced = (await harness.slash(rin, table.channel, "grail cast", spell="reinforce", target="Shirou",
                                      amount=2, item="Bokken")).reply.text()  # fmt: skip
    assert "Shirou's Bokken becomes a Noble Phantasm of rank D for an hour" in reinforced
    await harness.slash(shirou, table.channel, "character use", name="Shirou")
    harness.dice.queue([15, 3, 3])
    struck = (await harness.slash(shirou, table.channel, "attack", target="Saber", action="np:Bokken")).reply.text()
    assert "Saber takes 9 damage (rolled 9)" in struck  # T8's 2d12+3, with mystery
    hour = (await harness.slash(gm, table.channel, "campaign time", hours=1)).reply.text()
    assert "Medea comes down: it flies no longer." in hour and "Shirou's Bokken is an item again." in hour

    # R21.3: a Master keeps three familiars; R22: a Caster's puppets, 5 MP each, every rank MAG - 2 (D33).
    await harness.slash(rin, table.channel, "character use", name="Rin")
    called = (await harness.slash(rin, table.channel, "grail cast", spell="familiar", amount=3, item="Owl")).reply
    assert "Familiars answer Rin's call, 3 in all (Owl and a number)" in called.text()
    unnamed = (await harness.slash(rin, table.channel, "grail cast", spell="familiar", amount=1)).reply
    assert unnamed.ephemeral and unnamed.content.startswith("请用 item 指定名字")
    hidden = (await harness.slash(rin, table.channel, "grail cast", spell="familiar", amount=1,
                                  item="Owl\u200b")).reply  # fmt: skip
    assert hidden.ephemeral and "U+200B" in hidden.content
    fourth = (await harness.slash(rin, table.channel, "grail cast", spell="familiar", amount=1, item="Crow")).reply
    assert fourth.ephemeral and fourth.content == "Rin最多只能拥有 3 个使魔，现在已有 3 个。"
    await harness.slash(rin, table.channel, "character use", name="Medea")
    risen = (await harness.slash(rin, table.channel, "grail cast", spell="puppets", amount=2,
                                 item="Medea puppet")).reply.text()  # fmt: skip
    assert "Puppet soldiers rise for Medea, 2 in all" in risen
    assert "HP 24/24" in await _pools(table, "Medea puppet 2") and "HP 1/1" in await _pools(table, "Owl 3")
    # A familiar scouts: its maker's senses (Rin's wis), from the familiar's square.
    await harness.slash(gm, table.channel, "grail place", character="Owl 1", x=60, y=40)
    await harness.slash(rin, table.channel, "character use", name="Owl 1")
    harness.dice.queue([15])
    scouted = (await harness.slash(rin, table.channel, "grail search")).reply.text()
    assert scouted.startswith("Owl 1侦查四周") and "Thug：小地图（0, 0），格（55, 40）" in scouted, scouted
    own = (await harness.slash(rin, table.channel, "character list")).reply.text()  # hers to run and to see
    assert "HP（生命） 24/24" in own.split("**Medea puppet 1**")[1].splitlines()[0]


async def test_spells_and_spirit_form_provoke_in_a_fight(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    await _summon(table, rin, RIN_MAGUS, MEDEA)
    await harness.slash(gm, table.channel, "grail place", character="Medea", x=10, y=10)
    await harness.slash(gm, table.channel, "grail place", character="Saber", x=11, y=10)
    harness.dice.queue([20, 1])
    await harness.slash(gm, table.channel, "combat start", order="Medea, Saber")
    # R22's teleport: a move action that provokes; Saber, next to it, strikes first; then 1 MP a square.
    cast = (await harness.slash(rin, table.channel, "grail cast", spell="teleport", x=30, y=10)).reply
    prompt = next(m for m in reversed(harness.emulator.visible_to(shirou, table.channel)) if m.buttons()[:1] == [
        "Opportunity attack"])  # fmt: skip
    assert "Medea casts teleport, which leaves an opening" in prompt.content, prompt.content
    harness.dice.queue([15, 1, 1, 1])
    struck = await harness.emulator.click(shirou, prompt, "Opportunity attack")
    assert struck.error is None, struck.error
    went = await harness.emulator.click(
        gm, await harness.prompt_with(table.channel, gm, "Let it go on"), "Let it go on"
    )
    assert "Medea is elsewhere in an instant: 20 squares crossed." in went.replies[-1].text(), cast.content
    assert "Medea pays the MP it costs" in went.replies[-1].text()
    where = (await harness.slash(rin, table.channel, "grail where")).reply.text()
    assert "Medea：小地图（0, 0），格（30, 10）" in where

    # R23: spirit form takes Saber's whole turn; it provokes, but with no one next to Saber now (Medea is 19
    # squares away) no window opens; inside it, no attacks; leaving it is free.
    await harness.slash(gm, table.channel, "combat next")
    entered = (await harness.slash(shirou, table.channel, "grail spirit")).reply
    assert entered.embeds[0]["title"] == "Saber turns to spirit form" and not entered.buttons()
    refused = (await harness.slash(shirou, table.channel, "attack", target="Medea", action="melee")).reply
    assert refused.ephemeral
    left = (await harness.slash(shirou, table.channel, "grail spirit", leave=True)).reply
    assert left.embeds[0]["title"] == "Saber takes form again"
    again = (await harness.slash(shirou, table.channel, "grail spirit")).reply
    assert again.ephemeral, again.content  # its whole turn went into the first


async def test_searching_the_map_and_presence_concealment(table: Table) -> None:
    harness, shirou, rin, gm = table.harness, table.shirou, table.rin, table.gm
    await _summon(table, shirou, E3_MASTER, SABER)
    archer = {"kind": "servant", "name": "Archer", "master": "Sakura", "servant_class": "archer",
              "legend": ARCHER_LEGEND,
              "skills": [{"name": "clairvoyance", "rank": "C"}]}  # fmt: skip
    await _summon(table, rin, {"kind": "master", "name": "Sakura", "master_type": "melee",
                               "attributes": {"wis": 3}}, archer)  # fmt: skip
    hassan = {"kind": "servant", "name": "Hassan", "master": "Kirei", "servant_class": "assassin",
              "legend": {"STR": "C", "END": "C", "AGI": "A", "MAG": "C", "LUK": "C"}}  # fmt: skip
    for npc in ({"kind": "master", "name": "Kirei", "master_type": "melee", "attributes": {"str": 5}}, hassan):
        await harness.slash(gm, table.channel, "character import", npc=True,
                            file=("npc.yaml", yaml.safe_dump(npc).encode()))  # fmt: skip
    squares = {"Saber": (10, 10, 0), "Shirou": (12, 10, 0), "Hassan": (30, 30, 0), "Sakura": (40, 40, 0),
               "Archer": (5, 5, 3), "Kirei": (50, 50, 7)}  # fmt: skip
    for name, (x, y, sector_x) in squares.items():
        await harness.slash(gm, table.channel, "grail place", character=name, x=x, y=y, sector_x=sector_x)
    await harness.slash(gm, table.channel, "character use", name="Hassan")
    hidden = (await harness.slash(gm, table.channel, "grail conceal")).reply
    assert hidden.ephemeral and hidden.embeds[0]["title"] == "Hassan conceals its presence"
    assert "conceals its presence" not in harness.seen_by(shirou, table.channel)
    # /odds reads what the attack reads: its first blow from hiding subtracts no defence (D29), d20 + 8 against
    # Saber's AGI 4 needing 2 (a 1 fails, Luck C) instead of 6.
    odds = (await harness.slash(gm, table.channel, "odds", attacker="Hassan", defender="Saber",
                                action="melee")).reply  # fmt: skip
    assert odds.embeds[0]["description"].splitlines()[0] == "The attack roll hits: **95.0%** (19/20)"

    # E17: Saber (MAG B, AGI B) rolls 17: 17 + 4 + 4 = 25 < 10 + 5 x 5 for Presence Concealment A; the Master
    # Sakura is found at 17 + 4 - 5 = 16; Archer, three sectors away, only by Clairvoyance C.
    harness.dice.queue([17])
    searched = (await harness.slash(shirou, table.channel, "grail search")).reply
    text = searched.text()
    assert searched.ephemeral and searched.embeds[0]["title"] == "Saber searches the area"
    assert "search, against concealment: 1d20 [17] +4 (Magic) +4 (Agility) = **25**" in text
    assert "Sakura: sector (0, 0), square (40, 40)" in text and "Shirou: sector (0, 0)" in text
    assert "Hassan" not in text.split("Notes")[-1] and "Archer" not in text
    await harness.slash(rin, table.channel, "character use", name="Archer")
    harness.dice.queue([12])
    far = (await harness.slash(rin, table.channel, "grail search")).reply.text()
    assert "Saber：小地图（0, 0），格（10, 10）" in far and "Kirei" not in far
    # A Master (wis 3) rolls 20: 23, still short of 35; a failed search says only that it found no one, not even
    # that someone hides near (a Master reads one d20 + wis for both, and shows it once).
    await harness.slash(gm, table.channel, "grail place", character="Sakura", x=29, y=29)
    await harness.slash(rin, table.channel, "character use", name="Sakura")
    harness.dice.queue([20])
    missed = (await harness.slash(rin, table.channel, "grail search")).reply.text()
    assert "侦查: 1d20 [20] +3 (感知) = **23**" in missed and "Hassan" not in missed
    assert "气息遮蔽" not in missed, missed
    log = (await harness.slash(shirou, table.channel, "log show")).reply.text()
    assert "someone searched the area" in log and "a secret move on the map" in log and "hid" not in log

    # R23: a Servant in spirit form is sensed as usual by every Master, a melee one too (「master和其他人受过魔术训练
    # 的人可以如常感知附近的英灵」): Sakura, 19 + 3, finds it (she searches again once the campaign's round has moved
    # on).
    await harness.slash(gm, table.channel, "grail status", character="Saber", status="spirit_form")
    await harness.slash(gm, table.channel, "combat round")
    harness.dice.queue([19])
    sensed = (await harness.slash(rin, table.channel, "grail search")).reply.text()
    assert "Saber：小地图（0, 0），格（10, 10）" in sensed and "Shirou" in sensed
    await harness.slash(gm, table.channel, "grail status", character="Saber", status="spirit_form", on=False)
    # A Japanese player's Master, off the map, cannot search.
    await _import(table, table.ken, {"kind": "master", "name": "Kotomine", "master_type": "melee"})
    lost = (await harness.slash(table.ken, table.channel, "grail search")).reply
    assert lost.ephemeral and lost.content.startswith("Kotomineはマップ上にマスがありません。")

    # D29: its first blow from hiding treats Saber as unaware (no defence, an Assassin's dice at their maximum).
    await harness.slash(gm, table.channel, "grail place", character="Hassan", x=11, y=11)
    harness.dice.queue([10])
    struck = (await harness.slash(gm, table.channel, "attack", target="Saber", action="melee")).reply.text()
    assert "Hassan strikes from concealment" in struck and "(defence)" not in struck and "[12, 12]" in struck
    # R27: a fight with a Servant is heard by the Masters and Servants within a sector, each told privately.
    heard = [message.text() for message in harness.emulator.dms(rin)]
    assert heard and heard[-1] == "Sakura听到了小地图（0, 0）中的战斗声。"
    assert any("Shirou hears fighting in sector (0, 0)." in m.text() for m in harness.emulator.dms(shirou))
    assert not any("Archer" in text for text in heard)
    # A released Noble Phantasm carries it as many sectors further as its rank: Excalibur (A) reaches Archer.
    harness.dice.queue([15, 1, 1, 1, 1, 1])
    await harness.slash(shirou, table.channel, "attack", target="Hassan", action="np:Excalibur")
    assert harness.emulator.dms(rin)[-1].text() == "Archer听到了小地图（0, 0）中的战斗声。"
    again = (await harness.slash(gm, table.channel, "grail conceal", leave=True)).reply
    assert again.ephemeral and again.content == "Hassan is not concealed."


HASSAN = {"kind": "servant", "name": "Hassan", "master": "Kirei", "servant_class": "assassin",
          "legend": {"STR": "C", "END": "C", "AGI": "A", "MAG": "C", "LUK": "C"}}  # fmt: skip
KIREI = {"kind": "master", "name": "Kirei", "master_type": "melee", "attributes": {"str": 5}}
KIRITSUGU = {"kind": "master", "name": "Kiritsugu", "master_type": "trickster", "attributes": {"dex": 3, "int": 3},
             "general_spells": ["bolt", "heal"]}  # fmt: skip


async def _gms(table: Table, *files: dict[str, Any]) -> None:
    for npc in files:
        upload = yaml.safe_dump(npc, allow_unicode=True).encode()
        await table.harness.slash(table.gm, table.channel, "character import", npc=True, file=("npc.yaml", upload))


async def test_protection_from_arrows_wards_off_shots_not_magecraft_and_an_unanswered_minds_eye_is_rolled(
    table: Table,
) -> None:
    """「避箭的加护：对你的远程攻击命中投」: a shot, not attack magecraft, whose range penalty the seed gives apart
    (「这个攻击受到距离减值」); Mind's Eye costs nothing and only helps, so a defender who does not answer uses it."""
    harness, rin, mei, gm = table.harness, table.rin, table.mei, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="zh-CN")
    archer = {"kind": "servant", "name": "Archer", "master": "Rin", "servant_class": "archer", "legend": ARCHER_LEGEND,
              "skills": [{"name": "避箭的加护", "rank": "B"}, {"name": "心眼（真）", "rank": "B"}]}  # fmt: skip
    await _summon(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus"}, archer)
    await _import(table, mei, KIRITSUGU)
    await harness.slash(mei, table.channel, "character use", name="Kiritsugu")
    harness.dice.queue([5])  # the rifle: 5 + dex 3 - 4 (Protection from Arrows B) - Archer's AGI 3 = 1, a miss
    shot = (await harness.slash(mei, table.channel, "attack", target="Archer", action="ranged")).reply.text()
    assert "1d20 [5] +3 (攻击修正) -4 (避箭的加护) -3 (防御) = **1**" in shot, shot
    harness.dice.queue([12])  # attack magecraft: 12 + int 3 - 3 = 12, a hit; the arrows' ward takes nothing off
    cast = (await harness.slash(mei, table.channel, "attack", target="Archer", action="bolt")).reply.text()
    assert "1d20 [12] +3 (魔术属性) -3 (防御) = **12**" in cast and "避箭的加护" not in cast, cast
    prompt = harness.last(table.channel, rin)
    assert prompt.buttons()[:2] == ["心眼", "承受攻击"] and "之后：心眼" in prompt.text(), prompt.text()
    # No answer: Mind's Eye B is rolled, 17 + 1 = 18 above the attack roll before Archer's AGI, 12 + 3 = 15.
    harness.dice.queue([17])
    harness.emulator.clock.advance(61 * 60)
    await harness.eventually(lambda: "Archer的心眼（18）大于攻击投（15）：回避" in harness.seen_by(gm, table.channel))
    assert "HP 36/36" in await _pools(table, "Archer")


async def test_in_a_fight_the_gms_keep_the_turns_the_dead_roll_no_initiative_and_fighters_hear_no_news_of_it(
    table: Table,
) -> None:
    harness, mei, rin, ken, gm = table.harness, table.mei, table.rin, table.ken, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="zh-CN")
    await _summon(table, mei, E3_MASTER, SABER)
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2}})
    await _import(table, ken, {"kind": "master", "name": "Sakura", "master_type": "melee"})
    await _gms(table, KIREI, HASSAN, {"kind": "master", "name": "Atrum", "master_type": "melee"})
    await harness.slash(gm, table.channel, "gm award", character="Atrum", resource="hp", amount=-100)
    for name, (x, y) in {"Saber": (10, 10), "Hassan": (11, 10), "Rin": (20, 20), "Sakura": (40, 40)}.items():
        await harness.slash(gm, table.channel, "grail place", character=name, x=x, y=y)
    harness.dice.queue([20, 10, 1])  # R24: Saber 20 + 4, Hassan 10 + 5, Rin 1 + 2; the dead Atrum rolls none
    started = (await harness.slash(gm, table.channel, "combat start", order="Saber, Atrum, Hassan, Rin")).reply.text()
    assert "顺序：Saber → Hassan → Rin" in started and "Atrum的行动顺序" not in started, started
    assert "本轮开始时" in started  # the combat upkeep paid as the round begins

    # One search a round (R2: one check, not one until it succeeds). A Servant's reads its d20 against concealment
    # too, whether or not anyone hides: shown only when someone did, it would tell that someone does.
    harness.dice.queue([10])
    searched = (await harness.slash(mei, table.channel, "grail search")).reply
    assert searched.ephemeral and "侦查（对抗气息遮蔽）: 1d20 [10] +4 (魔力) +4 (敏捷) = **18**" in searched.text()
    again = (await harness.slash(mei, table.channel, "grail search")).reply
    assert again.ephemeral and again.content == "Saber已经侦查过了：要等到下一轮或故事时间推进后，才能再次侦查。"

    # Saber strikes Hassan (10 + 5 - 5, 3d12 = 3): Sakura, near and not in the fight, hears it (her Japanese player
    # reads it in his language); Rin, in it, is not told of her own fight.
    heard_by_rin, heard_by_ken = len(harness.emulator.dms(rin)), len(harness.emulator.dms(ken))
    harness.dice.queue([10, 1, 1, 1])
    struck = (await harness.slash(mei, table.channel, "attack", target="Hassan", action="melee")).reply.text()
    assert "Hassan受到 3 点伤害（掷出 3）" in struck, struck
    heard = [m.text() for m in harness.emulator.dms(ken)[heard_by_ken:]]
    assert len(heard) == 1 and heard[0].startswith("Sakuraはセクター（0, 0）で戦いの音を聞いた。"), heard
    assert len(harness.emulator.dms(rin)) == heard_by_rin

    # Out of its turn, the GMs' Hassan waits as a player's character does; a player is told how to act on hers.
    await harness.slash(gm, table.channel, "character use", name="Hassan")
    early = (await harness.slash(gm, table.channel, "attack", target="Saber", action="melee")).reply
    assert early.ephemeral and early.content == (
        "It is Saber's turn in this fight: Hassan can act only on its own turn (to act with another of your "
        f"characters, switch to it with {harness.mention('character use')}).")  # fmt: skip
    waiting = (await harness.slash(rin, table.channel, "grail defend")).reply
    switch = f"{harness.mention('character use')}（/角色 使用）"
    assert waiting.ephemeral and waiting.content == (
        f"现在是 Saber 的回合：Rin 只能在自己的回合行动（要用你的另一个角色行动，先用 {switch} 换过去）。"
    )
    await harness.slash(gm, table.channel, "combat next")
    harness.dice.queue([1])  # Hassan's turn now: Luck C's 1 fails
    assert not (await harness.slash(gm, table.channel, "attack", target="Saber", action="melee")).reply.ephemeral
    # The next round, Saber searches again.
    await harness.slash(gm, table.channel, "combat round")
    harness.dice.queue([10])
    assert (await harness.slash(mei, table.channel, "grail search")).reply.embeds[0]["title"] == "Saber侦查四周"


async def test_what_hidden_sheets_keep_from_the_table_and_a_month_of_story_time_with_a_rest_each_day(
    table: Table,
) -> None:
    harness, mei, rin, gm = table.harness, table.mei, table.rin, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="zh-CN")
    await _summon(table, mei, {**E3_MASTER, "name": "卫宫士郎"}, {**SABER, "master": "卫宫士郎"})
    await _gms(table, KIREI, HASSAN)
    assert "一名由GM操控的角色加入了战役：Hassan（英灵）。" in harness.seen_by(rin, table.channel)
    # A concealed Assassin moves unseen: no post names it, and the players' log names neither it nor the GM's pick.
    await harness.slash(gm, table.channel, "grail place", character="Hassan", x=30, y=30)
    await harness.slash(gm, table.channel, "character use", name="Hassan")
    await harness.slash(gm, table.channel, "grail conceal")
    assert (await harness.slash(gm, table.channel, "grail move", x=31, y=30)).reply.ephemeral
    assert (await harness.slash(gm, table.channel, "grail place", character="Hassan", x=35, y=30)).reply.ephemeral
    seen = harness.seen_by(rin, table.channel)
    assert "Hassan移动了" not in seen and seen.count("GM放置了Hassan") == 1  # placed before it hid
    log = (await harness.slash(rin, table.channel, "log show")).reply.text()
    assert "现在使用 Hassan" not in log and log.count("Hassan移动了") == 1, log
    assert "换用了一名由GM操控的角色" in log and log.count("地图上的一次秘密行动") == 3  # hid, moved, placed

    # What a hidden sheet recovers or is given would tell its pools: the posts say that it happened, not how much.
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=-40)
    ritual = (await harness.slash(mei, table.channel, "grail ritual")).reply
    assert ritual.embeds[0]["title"] == "仪式：Saber恢复了魔力"  # 40, half its maximum
    await harness.slash(gm, table.channel, "gm award", character="Saber", resource="mp", amount=-10)
    await harness.slash(mei, table.channel, "character use", name="卫宫士郎")
    given = (await harness.slash(mei, table.channel, "grail transfer", amount=3)).reply
    assert given.embeds[0]["title"] == "卫宫士郎为Saber补魔"
    rested = (await harness.slash(mei, table.channel, "grail rest")).reply
    assert rested.embeds[0]["title"] == "卫宫士郎休息8小时，恢复全部MP"
    assert "MP 76/80" in await _pools(table, "Saber") and "MP 10/10" in await _pools(table, "卫宫士郎")
    log = (await harness.slash(rin, table.channel, "log show")).reply.text()
    assert "卫宫士郎与其英灵之间传递了魔力（数量只有其主人与GM知道）" in log
    assert "卫宫士郎休息并恢复了MP（数量只有其主人与GM知道）" in log and "恢复 40" not in log

    # A month of story time: each day's upkeep (E6: 14) and, at the end of each day, the Master's 8 hours' rest
    # (R15). From day 6 Saber lives on what its Master gives: 5, then 7 a day, which the night's rest gives back.
    passed = (await harness.slash(gm, table.channel, "campaign time", days=29)).reply.text()
    assert passed.splitlines()[1:3] == ["Saber支付 29 天的日常耗魔", "Hassan支付 29 天的日常耗魔"]
    assert "消失" not in passed
    assert "卫宫士郎在过去的日子里休息，恢复了MP" in passed
    assert "MP 2/80" in await _pools(table, "Saber") and "MP 3/10" in await _pools(table, "卫宫士郎")
    await harness.slash(gm, table.channel, "gm reveal", character="卫宫士郎")
    await harness.slash(gm, table.channel, "gm award", character="卫宫士郎", resource="mp", amount=-1)
    shown = (await harness.slash(gm, table.channel, "campaign time", days=1, hours=8)).reply.text()
    assert "卫宫士郎在过去的 1 天里各休息8小时，共恢复 8 MP" in shown  # the day that ended; not the day begun

    # A year at once: a line and a change of MP for each character, not one for each of its days (thousands of
    # changes would keep the bot busy past Discord's three seconds, and the post would run to many messages).
    await harness.slash(gm, table.channel, "gm reveal", character="Saber")
    year = await harness.slash(gm, table.channel, "campaign time", days=365)
    lines = year.reply.text().splitlines()
    assert len(year.replies) == 1 and lines[1].startswith(f"Saber支付 365 天的日常耗魔，共 {365 * 14} MP（御主补充了 ")
    assert len(lines) == 5 and lines[2] == "Hassan支付 365 天的日常耗魔", lines  # and each Master's rests
    exported = (await harness.slash(gm, table.channel, "log export", format="json")).reply
    kinds = [event["kind"] for event in json.loads(exported.attachments[0].data)["events"]]
    assert kinds.count("mp.daily_upkeep") == 2 * 3  # each Servant's, each time story time passed
    log = (await harness.slash(gm, table.channel, "log show")).reply.text()
    assert f"Saber's daily upkeep for 365 days: {365 * 14} MP" in log, log


async def test_what_a_chinese_table_reads_of_saves_openings_grenades_stats_and_the_gms_creatures(
    table: Table,
) -> None:
    harness, mei, rin, ken, gm = table.harness, table.mei, table.rin, table.ken, table.gm
    await harness.slash(gm, table.channel, "campaign language", language="zh-CN")
    gae = {"name": "Gae Buidhe", "rank": "C", "scope": "anti_army", "mode": "one_shot", "resolution": "save",
           "save_stat": "LUK", "damage": "2d6"}  # fmt: skip
    await _summon(table, mei, E3_MASTER, {**SABER, "noble_phantasms": [gae]})
    await _import(table, rin, {"kind": "master", "name": "Rin", "master_type": "melee", "attributes": {"con": 5}})
    await _import(table, ken, {"kind": "master", "name": "Taiga", "master_type": "melee", "attributes": {"con": 5}})
    assert "**Rin**（御主，" in (await harness.slash(rin, table.channel, "character list")).reply.text()
    # R6 against two Masters (Luck 0): DC (3 + 1 - 0) x 5 = 20; 7 and 3 take all of its 2d6.
    harness.dice.queue([7, 6, 4, 3, 1, 1])
    released = (await harness.slash(mei, table.channel, "attack", target="Rin, Taiga", action="np:Gae Buidhe")).reply
    assert released.embeds[0]["title"] == "Saber对Rin、Taiga解放Gae Buidhe：以幸运豁免"
    text = released.text()
    assert "Rin的豁免: 1d20 [7] = **7**" in text and "Taiga的豁免: 1d20 [3] = **3**" in text, text
    # 劲力 is the seed's word for a Servant's Strength (「力量 对应 劲力」); a word of no stat lists the reader's.
    harness.dice.queue([10])
    assert (await harness.slash(mei, table.channel, "check", stat="劲力")).reply.embeds[0]["title"] == (
        "Saber：力量检定，15")  # fmt: skip
    unknown = (await harness.slash(mei, table.channel, "check", stat="QQ")).reply
    assert unknown.ephemeral and unknown.content == "未知属性 QQ。请从以下选择：力量、耐力、敏捷、魔力、幸运。"

    # The trickster's 手榴弹, as the seed names them, and how many are left on its sheet.
    await _import(table, mei, KIRITSUGU)
    await harness.slash(mei, table.channel, "character use", name="Kiritsugu")
    for _ in range(2):
        harness.dice.queue([1])  # 1 + dex 3 - Taiga's dex 0: a miss
        thrown = (await harness.slash(mei, table.channel, "attack", target="Taiga", action="grenade")).reply.text()
        assert "手榴弹" in thrown and "手雷" not in thrown, thrown
    sheet = (await harness.slash(mei, table.channel, "character show", name="Kiritsugu")).reply
    assert _fields(sheet)["手榴弹"] == "剩余 8 颗（共 10 颗）"

    # Struck at while it casts, the GMs' Kayneth casts on: the opening has passed, not gone untaken.
    await _gms(table, {"kind": "master", "name": "Kayneth", "master_type": "magus", "attributes": {"con": 5, "int": 5}})
    await harness.slash(gm, table.channel, "grail place", character="Kayneth", x=50, y=50)
    await harness.slash(gm, table.channel, "grail place", character="Saber", x=51, y=50)
    await harness.slash(mei, table.channel, "character use", name="Saber")
    harness.dice.queue([20, 1])
    await harness.slash(gm, table.channel, "combat start", order="Kayneth, Saber")
    await harness.slash(gm, table.channel, "character use", name="Kayneth")
    await harness.slash(gm, table.channel, "attack", target="Saber", action="bolt")
    harness.dice.queue([10, 1, 1, 1])  # Saber: 10 + 5 - 0 = 15, 3d12 = 3
    offer = next(m for m in reversed(harness.emulator.visible_to(mei, table.channel))
                 if m.buttons()[:1] == ["借机攻击"])  # fmt: skip
    await harness.emulator.click(mei, offer, "借机攻击")
    reopened = next(m for m in reversed(harness.emulator.visible_to(mei, table.channel))
                    if m.buttons()[:1] == ["借机攻击"])  # fmt: skip
    harness.dice.queue([1])  # the bolt: 1 + int 5 - Saber's AGI 4 = 2, a miss
    await harness.emulator.click(gm, await harness.prompt_with(table.channel, gm, "让它继续"), "让它继续")
    closed = harness.current(reopened).text()
    assert "Kayneth露出的破绽已经过去" in closed and "无人对Kayneth借机攻击" not in closed, closed
    await harness.slash(gm, table.channel, "combat end")

    # A Caster the GMs run calls familiars for the GMs to run; a puppet reads as the sheets name the class.
    medea = {**MEDEA, "master": "Souichirou"}
    await _gms(table, {"kind": "master", "name": "Souichirou", "master_type": "melee"}, medea,
               {"kind": "puppet", "name": "Golem", "rank": "C"})  # fmt: skip
    await harness.slash(gm, table.channel, "character use", name="Medea")
    called = (await harness.slash(gm, table.channel, "grail cast", spell="familiar", amount=2, item="Crow")).reply
    assert "使魔响应了Medea的召唤，共 2 只（Crow加编号）：由GM操控。" in called.text(), called.text()
    golem = (await harness.slash(rin, table.channel, "character show", name="Golem")).reply
    assert _fields(golem) == {"职阶": "傀儡兵（视作英灵，按法师职阶，全部RANK相同）"}
