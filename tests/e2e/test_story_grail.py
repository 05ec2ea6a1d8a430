"""What the two Holy Grail games tell of a fight, in English, Chinese and Japanese: every roll with its dice, every
outcome (a hit, a save, the damage and the pool it took, a fall, a cost paid) and its cause (the Noble Phantasm
released, the talisman spent), in the channel's posts and in `/log show`, with no internal value showing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.emulator.models import Channel, Guild, User
from bot.i18n import CHINESE, ENGLISH, JAPANESE, LANGUAGES, Translator
from tests.e2e import test_grail_anka as anka
from tests.e2e import test_grail_zh as zh
from tests.e2e.harness import Harness, running_harness
from tests.e2e.readers import counted_rolls, recap_and_transcript

# What no reader may see: option keys, internal names, Python's values, catalog keys.
INTERNAL = re.compile(r"\b(True|False|None|take|dodge|block|minds_eye|np:|save_stat)\b|`[a-z_]+\.[a-z_.]+`")
NEXT_PAGE = "▶"
EVENT_ID = re.compile(r"`#(\d+)`")


@dataclass(frozen=True)
class Table:
    harness: Harness
    guild: Guild
    channel: Channel
    gm: User
    players: dict[str, User]  # one a language, who owns the Servant whose costs only its owner reads
    rin: User
    kirei: User


@pytest.fixture(scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('story') / 'story.db'}"
    async with running_harness(url) as harness:
        emulator = harness.emulator
        gm = emulator.add_user("gm")
        players = {language: emulator.add_user(f"player-{language}", locale=language) for language in LANGUAGES}
        rin, kirei = emulator.add_user("rin", locale=CHINESE), emulator.add_user("kirei", locale=JAPANESE)
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (*players.values(), rin, kirei):
            emulator.add_member(guild, player)
        harness.read_messages = True  # the anka game reads anchors from plain messages
        await harness.start_bot()
        yield Table(harness, guild, emulator.add_channel(guild, "lobby"), gm, players, rin, kirei)


async def _campaign(server: Table, ruleset: str, language: str) -> Table:
    channel = server.harness.new_channel(server.guild)
    await server.harness.slash(server.gm, channel, "campaign start", ruleset=ruleset, name="Fuyuki")
    await server.harness.slash(server.gm, channel, "campaign language", language=language)
    return Table(server.harness, server.guild, channel, server.gm, server.players, server.rin, server.kirei)


async def _whole_log(table: Table, user: User) -> str:
    """Every page of `/log show` as the user reads it."""
    harness = table.harness
    shown = (await harness.slash(user, table.channel, "log show")).reply
    pages = [shown.text()]
    while not shown.button(NEXT_PAGE).get("disabled") and len(pages) < 10:
        await harness.emulator.click(user, shown, NEXT_PAGE)
        shown = harness.current(shown)
        if shown.text() in pages:
            break
        pages.append(shown.text())
    return "\n".join(pages)


def _shows_nothing_internal(text: str) -> None:
    assert INTERNAL.search(text) is None, INTERNAL.search(text)


# grail_zh's words, by language: the pool a blow takes, a fall, a save's result, a Master's share of a cost.
ZH_WORDS = {
    ENGLISH: ("off its HP", "Rin is dead", "Kariya's save 7 against 20: the full effect", "Shirou giving 8 MP"),
    CHINESE: ("扣除HP", "Rin", "Kariya的豁免 7（难度 20）：受到全部效果", "Shirou补充了 8 MP"),
    JAPANESE: ("HP が減", "Rin", "Kariyaの抵抗 7（難度 20）：効果をすべて受ける", "Shirouが 8 MP を供給"),
}
ZH_DICE = ("1d20 [12]", "1d20 [7]", "2d6 [6, 4]", "1d20 [10]", "5d12 [6, 6, 6, 6, 6]")


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_grail_zh_fight_tells_every_roll_and_outcome(server: Table, language: str) -> None:
    """Saber releases Gae Buidhe (a save by Luck) on Kariya, then Excalibur on Rin, who takes the hit and dies."""
    table = await _campaign(server, "grail_zh", language)
    harness, owner = table.harness, table.players[language]
    sheets = zh.Table(harness, table.guild, table.channel, table.gm, owner, table.rin, table.kirei, owner)
    curse = {"name": "Gae Buidhe", "rank": "C", "mode": "one_shot", "resolution": "save", "save_stat": "LUK",
             "damage": "2d6"}  # fmt: skip
    await zh._summon(
        sheets, owner, zh.E3_MASTER, {**zh.SABER, "noble_phantasms": [*zh.SABER["noble_phantasms"], curse]}
    )
    rin = {"kind": "master", "name": "Rin", "master_type": "magus", "attributes": {"dex": 2, "int": 3, "cha": 5}}
    await zh._import(sheets, table.rin, rin)
    kariya = {"kind": "master", "name": "Kariya", "master_type": "ordinary", "attributes": {"con": 5}}
    await zh._import(sheets, table.kirei, kariya)
    # R6: rank C against a Master's Luck 0: DC 20; the save 7 takes the whole 2d6.
    harness.dice.queue([7, 6, 4])
    saved = (await harness.slash(owner, table.channel, "attack", target="Kariya", action="np:Gae Buidhe")).reply
    assert "Gae Buidhe" in saved.embeds[0]["title"] and "Kariya" in saved.embeds[0]["title"]
    harness.dice.queue([12, 11, 5, 3])
    await harness.slash(table.gm, table.channel, "combat start", order="Shirou, Saber, Rin, Kariya")
    # Excalibur: d20 10 + A 5 - Rin's dex 2 = 13; 5d12+9 = 39, Rin's 10 HP and more.
    harness.dice.queue([10, 6, 6, 6, 6, 6])
    released = (await harness.slash(owner, table.channel, "attack", target="Rin", action="np:Excalibur")).reply
    assert "Excalibur" in released.embeds[0]["title"]
    prompt = harness.last(table.channel, table.rin)
    taken = await harness.emulator.click(table.rin, prompt, prompt.buttons()[0])
    pool, fall, save, share = ZH_WORDS[language]
    posts = harness.seen_by(table.gm, table.channel)
    for seen in (*ZH_DICE, "+9", save, pool, "39"):
        assert seen in posts, seen
    assert fall in taken.replies[-1].text()
    _shows_nothing_internal(posts)

    for reader, reading in ((owner, language), (table.gm, ENGLISH)):  # the log reads in its reader's language
        log = await _whole_log(table, reader)
        pool, _, save, share = ZH_WORDS[reading]
        for seen in (*ZH_DICE, "+9", save, "Excalibur", "Gae Buidhe", pool, share):
            assert seen in log, (seen, log)
        hit = next(line for line in log.splitlines() if re.search(r"[(（]13[)）]", line))
        assert "Excalibur" in hit, hit
        recap, transcript = await recap_and_transcript(harness, table.channel, reader)
        for seen in (*ZH_DICE, "+9", save, "Excalibur", "Gae Buidhe", pool, share):
            assert seen in transcript, (seen, transcript)
        # grail_zh's sheets are their players' and the GMs': what Rin had left is the GM's to read, Saber's cost
        # its player's.
        changed = Translator(reading)("recap.character", name="Rin" if reader == table.gm else "Saber", changes="")
        assert changed in recap and counted_rolls(recap, reading) >= len(ZH_DICE), recap
        for text in (log, recap, transcript):
            _shows_nothing_internal(text)
    # Saber's cost is its owner's to read, yet the save's dice are Kariya's player's too; and Rin falls after
    # the blow that felled her, in the order of cause.
    kariyas = await _whole_log(table, table.kirei)
    assert "1d20 [7]" in kariyas and "2d6 [6, 4]" in kariyas, kariyas
    events = {
        int(found[1]): line
        for line in (await _whole_log(table, table.gm)).splitlines()
        if (found := EVENT_ID.match(line))
    }
    blow = next(event_id for event_id, told in events.items() if ZH_WORDS[ENGLISH][0] in told and "39" in told)
    died = next(event_id for event_id, told in events.items() if told.endswith("Rin died"))
    assert blow < died, (events[blow], events[died])


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_grail_anka_battle_tells_every_draw_and_outcome(server: Table, language: str) -> None:
    """A GM camp beats the players' at the table alone, the third parameter drawn on a die; Berserker escapes on
    a talisman, Assassin faces its vanish check and vanishes, Lancer's fatigue grows."""
    table = await _campaign(server, "grail_anka", language)
    harness, emulator, gm, channel = table.harness, table.harness.emulator, table.gm, table.channel
    words = Translator(language, "grail_anka")
    bob, mei = table.players[ENGLISH], table.players[CHINESE]
    players = anka.Table(harness, table.guild, channel, gm, table.players[JAPANESE], mei, bob, table.kirei)
    berserker, assassin = {**anka.BERSERKER, "skills": []}, {**anka.ASSASSIN, "skills": []}
    for user, kind, data in ((mei, "master", anka.MB1), (mei, "servant", berserker), (bob, "master", anka.MB2),
                             (bob, "servant", assassin)):  # fmt: skip
        await anka._create(players, user, kind, data)
    await anka._npc(players, "master", anka.KOTOMINE)
    await anka._npc(players, "servant", anka.LANCER)
    await harness.slash(gm, channel, "anka camp", name="Church", members="Lancer, Kotomine", gm_run=True)
    await harness.slash(gm, channel, "anka camp", name="Emiya House", members="Berserker, Assassin, Mb1, Mb2")
    await harness.slash(gm, channel, "anka talisman", camp="Emiya House", kind="substitute", count=1)
    await harness.slash(gm, channel, "gm award", character="Mb2", resource="command_seals", amount=-2)
    await harness.slash(gm, channel, "gm award", character="Assassin", resource="fatigue", amount=1)
    await harness.slash(gm, channel, "campaign set", option="batch_anchor", value="true")
    await harness.slash(gm, channel, "campaign set", option="random_param_source", value="server_rng")
    await harness.slash(gm, channel, "anka formation", camp="Church", main="Lancer", subs="Kotomine")
    await harness.slash(bob, channel, "anka formation", camp="Emiya House", main="Berserker", subs="Assassin",
                        companions="Mb1")  # fmt: skip
    await harness.slash(gm, channel, "anka battle", first="Church", second="Emiya House")
    await emulator.click(mei, await anka._prompt(players, mei, words("anka.param.str")), words("anka.param.str"))
    harness.dice.queue([4])  # the third parameter: NP, the fourth of AGI, MAG, LUK and NP
    await emulator.click(gm, await anka._prompt(players, gm, words("anka.param.end")), words("anka.param.end"))

    escape = words("anka.fate.substitute", count=1)
    await emulator.click(mei, await anka._prompt(players, mei, escape), escape)
    face = words("anka.fate.face", chance="65.0%")
    await emulator.click(bob, await anka._prompt(players, bob, face), face)
    ids = (await anka._prompt(players, gm, words("anka.anchor_extend"))).content.split("`")[1::2]
    anchor = (90 - await anka._secret(players, ids[1])) % 100 or 100
    await harness.slash(table.kirei, channel, "anchor", number=anchor)
    gone = words("anka.vanished", who="Assassin")
    await harness.eventually(lambda: gone in harness.seen_by(gm, channel))

    posts = harness.seen_by(gm, channel)
    told = (words("anka.third_param", param=words("anka.param.np")), words("anka.talisman.substitute"), gone)
    for seen in ("1d4 [4]", *told, words("anka.vanish_checked", who="Assassin", value="90", rate=65,
                                        reading=words("anka.vanishes"))):  # fmt: skip
        assert seen in posts, seen
    _shows_nothing_internal(posts)
    for reading, reader in table.players.items():  # the log reads in its reader's language
        log = await _whole_log(table, reader)
        read = Translator(reading, "grail_anka")
        third = read("anka.third_param", param=read("anka.param.np"))
        recap, transcript = await recap_and_transcript(harness, channel, reader)
        for seen in (third, "1d4 [4]", read("anka.talisman.substitute"), read("anka.vanished", who="Assassin")):
            assert seen in log, (seen, log)
            assert seen in transcript, (seen, transcript)
        assert read("anka.vanished", who="Assassin") in recap and counted_rolls(recap, reading) >= 1, recap
        for text in (log, recap, transcript):
            _shows_nothing_internal(text)
