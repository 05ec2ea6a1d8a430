"""An attack exchange in Fate/Points and in Crest Magia, told by the channel and by /log show in every language:
the special attack named, the defender's answer in words, the damage with its terms and the pool it hit, and the
fall. One campaign (and channel) for each ruleset."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml

from bot.emulator.models import Channel, User
from bot.i18n import Translator, language_of
from tests.e2e.readers import Table, counted_rolls, in_transcript, readers_table, recap_and_transcript


@pytest.fixture(scope="module")
async def table(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with readers_table(tmp_path_factory.mktemp("story")) as table:
        yield table


async def _import(table: Table, channel: Channel, user: User, kind: str, **fields: Any) -> None:
    template = (await table.harness.slash(user, channel, "character template", kind=kind)).reply
    data: dict[str, Any] = {**yaml.safe_load(template.attachments[0].data), **fields}
    sheet = yaml.safe_dump(data, allow_unicode=True).encode()
    created = (await table.harness.slash(user, channel, "character import", file=("sheet.yaml", sheet))).reply
    assert not created.ephemeral, created.content


async def _log(table: Table, channel: Channel, reader: User) -> str:
    """Every page of /log show, in the reader's language."""
    harness = table.harness
    shown = (await harness.slash(reader, channel, "log show")).reply
    pages = [shown.text()]
    while "▶" in shown.buttons() and not re.search(r"\b(\d+)\D+\1\D*$", pages[-1].splitlines()[-1]):
        await harness.emulator.click(reader, shown, "▶")
        shown = harness.current(shown)
        if shown.text() in pages:
            break
        pages.append(shown.text())
    return "\n".join(pages)


def _internal_words(log: str, words: tuple[str, ...]) -> list[str]:
    """The internal values (option keys, booleans, raw kinds) that show in the log as written."""
    return [word for word in words if re.search(rf"(?<![\w|`]){re.escape(word)}(?![\w])", log)]


# What Fate/Points keeps in its events and waits and no reader should see.
FATE_INTERNAL = (
    "block",
    "dodge",
    "parry",
    "parry_agi",
    "parry_luk",
    "take",
    "True",
    "False",
    "None",
    "np|",
    "melee|",
    "`attack.declared`",
    "`attack.resolved`",
    "np_no_effect",
)


async def test_a_noble_phantasm_that_fells_a_master_is_told_in_every_language(table: Table) -> None:
    harness, gm, bob, mei = table.harness, table.gm, table.bob, table.mei
    channel = harness.new_channel(table.guild)
    await harness.slash(gm, channel, "campaign start", ruleset="fate_points", name="Fifth War")
    await _import(table, channel, bob, "master", name="Rin")
    await harness.approve_sheet(gm, channel, "Rin")
    await _import(table, channel, bob, "servant", name="Archer", master="Rin", servant_class="Archer")
    await harness.approve_sheet(gm, channel, "Archer")
    await harness.slash(bob, channel, "character use", name="Archer")
    await _import(table, channel, mei, "master", name="Sakura")
    await harness.approve_sheet(gm, channel, "Sakura")
    await _import(table, channel, mei, "servant", name="Rider", master="Sakura", servant_class="Rider")
    await harness.approve_sheet(gm, channel, "Rider")

    # Archer's sword (STR C=3): natural 12 -> 9; Rider dodges: natural 1 is below it, a miss.
    harness.dice.queue([12])
    sword = (await harness.slash(bob, channel, "attack", target="Rider", action="melee|Invisible Air")).reply
    assert "melee with Invisible Air" in sword.text(), sword.text()
    harness.dice.queue([1])
    dodged = await harness.emulator.click(mei, harness.last(channel, mei), "Dodge")
    defence = re.search(r"defence: 1d20 \[1\] .*= \*\*(-?\d+)\*\*", dodged.replies[-1].text())
    assert defence is not None, dodged.replies[-1].text()
    await harness.slash(gm, channel, "combat round")
    # Excalibur, in round 2: natural 12 -> 9, for 34 prana; Sakura takes it, ten times over as a human.
    harness.dice.queue([12])
    declared = (await harness.slash(bob, channel, "attack", target="Sakura", action="np|Excalibur")).reply
    fields = {field["name"]: field["value"] for field in declared.embeds[0]["fields"]}
    assert fields["Attack"] == "Noble Phantasm Excalibur", fields
    taken = await harness.emulator.click(mei, harness.last(channel, mei), "Take the hit")
    landed = "\n".join(reply.text() for reply in taken.replies)
    terms = re.search(r"Damage: (\d+) \(sword\) ×(\d+) \+(\d+) \(attack stat\) -(\d+) \(END\) = \*\*(\d+)\*\*", landed)
    assert terms is not None, landed
    base, multiplier, stat, armour, total = (int(term) for term in terms.groups())
    assert base * multiplier + stat - armour == total
    assert f"Sakura is hit by Archer: {total} damage" in landed and "Sakura is down." in landed

    logs = {reader.locale: await _log(table, channel, reader) for reader in (gm, mei, table.ken)}
    score = defence.group(1)
    expected = {
        "en-US": [
            "Archer attacks Rider (melee with Invisible Air): **9**, paying 3 prana — "
            "attack: 1d20 [12] -3 (STR) = **9**",
            f"Rider answered Archer's attack: Dodge **{score}**; the attack misses — defence: 1d20 [1] ",
            "Archer attacks Sakura (Noble Phantasm Excalibur): **9**, paying 34 prana",
            f"Sakura answered Archer's attack: Take the hit; hit for {total} damage to HP; Sakura goes down",
        ],
        "zh-CN": [
            "Archer 攻击 Rider（用 Invisible Air 近战）：**9**，消耗 3 点魔力——攻击: 1d20 [12] -3 (STR) = **9**",
            f"Rider 应对了 Archer 的攻击：闪避（**{score}**）；攻击落空——防御: 1d20 [1] ",
            "Archer 攻击 Sakura（宝具 Excalibur）：**9**，消耗 34 点魔力",
            f"Sakura 应对了 Archer 的攻击：承受攻击；命中，生命值受到 {total} 点伤害；Sakura 倒下了",
        ],
        "ja": [
            "Archer が Rider を攻撃（Invisible Air で近接）：**9**、魔力 3 を消費 ― 攻撃: 1d20 [12] -3 (STR) = **9**",
            f"Rider が Archer の攻撃に対応：回避（**{score}**）。攻撃は外れた ― 防御: 1d20 [1] ",
            "Archer が Sakura を攻撃（宝具 Excalibur）：**9**、魔力 34 を消費",
            f"Sakura が Archer の攻撃に対応：攻撃を受ける。命中、体力に {total} ダメージ。Sakura は倒れた",
        ],
    }
    for reader in (gm, mei, table.ken):
        lines = expected[reader.locale]
        recap, transcript = await recap_and_transcript(harness, channel, reader)
        for line in lines:
            assert line in logs[reader.locale], (reader.locale, line, logs[reader.locale])
            assert in_transcript(line, transcript), (reader.locale, line, transcript)
        # The recap's latest events end with the fall, and it names who fell and counts every roll.
        words = Translator(language_of(reader.locale))
        assert lines[-1] in recap and words("recap.character", name="Sakura", changes="") in recap, recap
        assert counted_rolls(recap, reader.locale) >= 3, recap  # the sword, the dodge and Excalibur at least
        # English words a weapon's type as the sheet does; the other languages have words of their own.
        internal = FATE_INTERNAL if reader.locale == "en-US" else (*FATE_INTERNAL, "sword")
        for told in (logs[reader.locale], recap, transcript):
            assert _internal_words(told, internal) == [], (reader.locale, told)


# What Crest Magia keeps in its events and waits and no reader should see.
CREST_INTERNAL = (
    "crest|",
    "melee|",
    "unarmed|",
    "physique",
    "dexterity",
    "intelligence",
    "wit",
    "armor",
    "take",
    "reroll",
    "True",
    "False",
    "None",
    "`attack`",
    "`attack.declared`",
)


async def test_a_crest_that_knocks_a_bearer_out_is_told_in_every_language(table: Table) -> None:
    harness, gm, bob, mei = table.harness, table.gm, table.bob, table.mei
    channel = harness.new_channel(table.guild)
    await harness.slash(gm, channel, "campaign start", ruleset="crest_magia", name="Crests")
    await _import(table, channel, bob, "bearer", name="Aiko")
    await _import(table, channel, mei, "bearer", name="Bram")
    # Damage past the last HP climbs the consequences, and Bram, at moderate already, has Dexterity HP left only.
    await harness.slash(gm, channel, "campaign set", option="overflow_triggers_consequence", value="true")
    await harness.slash(gm, channel, "gm award", character="Bram", resource="consequence", amount=2)
    for resource in ("physique", "intelligence", "wit"):
        await harness.slash(gm, channel, "gm award", character="Bram", resource=resource, amount=-12)

    # Crest of Flames on Intelligence d4: 6 + 5 = 11 against Bram's Dexterity 2 + 1 = 3; damage 6 + 6 + rank 2.
    harness.dice.queue([6, 5, 1])
    declared = (await harness.slash(bob, channel, "attack", target="Bram", action="Crest of Flames")).reply
    assert "With Crest of Flames (crest)." in declared.text(), declared.text()
    await harness.emulator.click(mei, harness.last(channel, mei), "Dexterity")
    harness.dice.queue([2, 1, 1, 6, 6])
    await harness.emulator.click(mei, harness.last(channel, mei), "No skill")
    await harness.emulator.click(mei, await harness.prompt_with(channel, mei, "Let it stand"), "Let it stand")
    harness.dice.queue([1, 1])
    withstood = await harness.emulator.click(mei, await harness.prompt_with(channel, mei, "Leather (0)"), "Leather (0)")
    assert "Bram now has a consequence: serious" in "\n".join(reply.text() for reply in withstood.replies)

    logs = {reader.locale: await _log(table, channel, reader) for reader in (gm, mei, table.ken)}
    expected = {
        "en-US": [
            "Aiko attacks Bram with Crest of Flames (crest): **11** — base dice: 2d6 [6, 5] = **11**; "
            "Intelligence die: 1d4 [1] = **11**",
            "Bram defended against Aiko with Dexterity: **3** against 11, hit — base dice: 2d6 [2, 1] = **3**; "
            "Dexterity die: 1d6 [1] = **3**",
            "Aiko's hit on Bram deals 14 damage — damage: 2d6 [6, 6] +2 (Crest of Flames) = **14**",
            "Damage 14 against withstand 2: Bram took 12, meant for Dexterity — withstand: 2d6 [1, 1] = **2**",
            "Bram lost 6 on Dexterity; 6 found no HP left",
            "Bram: consequence serious",
        ],
        "zh-CN": [
            "Aiko 用 Crest of Flames（刻印） 攻击 Bram：**11**——基础骰: 2d6 [6, 5] = **11**；智力骰: 1d4 [1] = **11**",
            "Bram 用灵巧防御 Aiko：**3** 对 11，命中——基础骰: 2d6 [2, 1] = **3**；灵巧骰: 1d6 [1] = **3**",
            "Aiko 命中 Bram，造成 14 点伤害——伤害: 2d6 [6, 6] +2 (Crest of Flames（刻印）) = **14**",
            "伤害 14 对承受 2：Bram 受到 12 点，落向灵巧——承受: 2d6 [1, 1] = **2**",
            "Bram 损失：灵巧 6 点；其中 6 点已无 HP 可扣而落空",
        ],
        "ja": [
            "Aiko が Crest of Flames（刻印） で Bram を攻撃：**11** ― 基本ダイス: 2d6 [6, 5] = **11**；"
            "知力ダイス: 1d4 [1] = **11**",
            "Bram は 器用 で Aiko に防御：**3** 対 11、命中 ― 基本ダイス: 2d6 [2, 1] = **3**；"
            "器用ダイス: 1d6 [1] = **3**",
            "Aiko の攻撃が Bram に命中し、14 ダメージ ― ダメージ: 2d6 [6, 6] +2 (Crest of Flames（刻印）) = **14**",
            "ダメージ 14 対 耐久 2：Bram は 12 を受けた（器用 へ） ― 耐久: 2d6 [1, 1] = **2**",
            "Bram の損失：器用 に 6。うち 6 は残るHPがなく消えた",
        ],
    }
    for reader in (gm, mei, table.ken):
        lines = expected[reader.locale]
        recap, transcript = await recap_and_transcript(harness, channel, reader)
        for line in lines:
            assert line in logs[reader.locale], (reader.locale, line, logs[reader.locale])
            assert in_transcript(line, transcript), (reader.locale, line, transcript)
        # The recap ends with the blow and what it cost Bram, and counts the attack's six rolls at least.
        words = Translator(language_of(reader.locale))
        assert lines[-1] in recap and words("recap.character", name="Bram", changes="") in recap, recap
        assert counted_rolls(recap, reader.locale) >= 6, recap
        for told in (logs[reader.locale], recap, transcript):
            assert _internal_words(told, CREST_INTERNAL) == [], (reader.locale, told)
