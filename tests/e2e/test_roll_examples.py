"""Every /roll example of the dice page, run through the emulator with the dice the page shows, in the reading it
names (or in each); and each table's habits: BCDice's targets, bulk rolls and D66 in a Japanese campaign, d20's
standard expressions in an English one, and the forms the readings clash on."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.emulator.models import EVERYONE, Channel, InteractionRecord, User
from tests.databases import fresh_database_url
from tests.e2e.harness import Harness, running_harness

DICE_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "dice.md"
_SECTION = re.compile(r"<!-- roll-examples.*?-->(.*?)<!-- /roll-examples -->", re.S)
_CODE = re.compile(r"`([^`]+)`")
# The readings the page names, as the campaign option takes them; a row naming none reads alike in all.
READINGS = {"Roll20": "roll20", "BCDice": "bcdice", "d20": "d20"}


def documented_examples() -> list[tuple[str, list[int], str, str]]:
    section = _SECTION.search(DICE_PAGE.read_text(encoding="utf-8"))
    assert section is not None, "the dice page lost its roll-examples section"
    examples = []
    for row in section.group(1).strip().splitlines()[2:]:
        expression, dice, reading, _, result = (cell.strip() for cell in row.strip("|").split("|"))
        faces = [int(face) for face in dice.split(",")]
        for dialect in [READINGS[reading]] if reading else READINGS.values():
            examples.append((_CODE.findall(expression)[0], faces, dialect, "\n".join(_CODE.findall(result))))
    return examples


EXAMPLES = documented_examples()


@pytest.fixture(scope="module")
async def roller(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Harness, User, dict[str, Channel]]]:
    """A GM and a campaign channel for each reading, in English."""
    async with (
        fresh_database_url("sqlite", tmp_path_factory.mktemp("examples")) as url,
        running_harness(url) as harness,
    ):
        player = harness.emulator.add_user("rin")
        guild = harness.emulator.add_guild("Examples", owner=player)
        await harness.start_bot()
        channels = {}
        for dialect in READINGS.values():
            channel = harness.emulator.add_channel(guild, dialect)
            await harness.slash(player, channel, "campaign start", ruleset="fate_points")
            await harness.slash(player, channel, "campaign set", option="dice_dialect", value=dialect)
            channels[dialect] = channel
        yield harness, player, channels


def test_the_dice_page_shows_every_notation_feature() -> None:
    notation = " ".join(expression for expression, _, _, _ in EXAMPLES)
    features = ("d%", "kh", "kl", "dl", "dh", "!", "r", "ro", ">", "<", "#", "*", "(", "-", "+", "/", "[", ",")
    for feature in (*features, "e6", "rr", "ra", "mi", "ma", "p1", "k>", "B6", "D66", ">=", "<="):
        assert feature in notation, feature
    assert {dialect for _, _, dialect, _ in EXAMPLES} == set(READINGS.values())


@pytest.mark.parametrize(
    ("expression", "faces", "dialect", "shown"), EXAMPLES, ids=[f"{example[0]}-{example[2]}" for example in EXAMPLES]
)
async def test_documented_example(
    roller: tuple[Harness, User, dict[str, Channel]], expression: str, faces: list[int], dialect: str, shown: str
) -> None:
    harness, player, channels = roller
    harness.dice.queue(faces)
    reply = (await harness.slash(player, channels[dialect], "roll", dice=expression)).reply
    assert reply.visible_to is EVERYONE
    assert reply.notified == frozenset()
    assert reply.embeds[0]["description"] == shown


async def _campaign(harness: Harness, gm: User, channel: Channel, *options: tuple[str, str]) -> Channel:
    await harness.slash(gm, channel, "campaign start", ruleset="fate_points")
    for option, value in options:
        await harness.slash(gm, channel, "campaign set", option=option, value=value)
    return channel


def _described(record: InteractionRecord) -> str:
    return str(record.reply.embeds[0]["description"])


async def test_a_japanese_campaign_reads_bcdice_targets_bulk_rolls_and_d66(
    roller: tuple[Harness, User, dict[str, Channel]],
) -> None:
    harness, _, _ = roller
    gm = harness.emulator.add_user("ken", locale="ja")
    guild = harness.emulator.add_guild("卓", owner=gm, locale="ja")
    channel = await _campaign(harness, gm, harness.emulator.add_channel(guild, "セッション"))
    for expression, faces, shown in (
        ("2D6>=7", [6, 5], "2d6 [6, 5] = 11\n目標値 ≥ 7：**成功**"),
        ("2D6>=7", [2, 3], "2d6 [2, 3] = 5\n目標値 ≥ 7：**失敗**"),
        ("2d6+3>=10", [4, 2], "2d6 [4, 2] + 3 = 9\n目標値 ≥ 10：**失敗**"),
        ("1D100<=65", [65], "1d100 [65] = 65\n目標値 ≤ 65：**成功**"),
        ("2D6>=5+3", [4, 4], "2d6 [4, 4] = 8\n目標値 ≥ 8：**成功**"),
        ("3B6", [5, 3, 1], "3b6 [5, 3, 1] = 9"),
        ("3B6>=4", [5, 3, 1], "3b6>=4 [**5**, 3, 1] = 1\n成功数 1（出目 ≥ 4）"),
        ("2B6+1B10>=6", [6, 1, 9], "2b6>=6 [**6**, 1] + 1b10>=6 [**9**] = 2\n成功数 2（出目 ≥ 6）"),
        ("D66", [6, 1], "d66 [6, 1] = 61"),
        ("D66S", [6, 1], "d66s [6, 1] = 16"),
        ("D66D", [1, 6], "d66d [1, 6] = 61"),
        (
            "2#2D6>=7",
            [6, 5, 1, 1],
            "1: 2d6 [6, 5] = 11 → **成功**\n2: 2d6 [1, 1] = 2 → **失敗**\n目標値 ≥ 7：2回中1回成功",
        ),
    ):
        harness.dice.queue(faces)
        assert _described(await harness.slash(gm, channel, "roll", dice=expression)) == shown, expression
    log = (await harness.slash(gm, channel, "log show")).reply.text()
    assert "`2D6>=7` をロール（ラベルなし）：**11**、目標値 ≥ 7：**成功**" in log
    assert "`3B6>=4` をロール（ラベルなし）：**1**、成功数 1（出目 ≥ 4）" in log
    info = (await harness.slash(gm, channel, "campaign info")).reply.text()
    assert "ダイスの読み方" in info and "BCDice式" in info and "キャンペーンの言語に合わせた既定" in info


async def test_outside_a_campaign_the_readers_language_chooses_the_reading(
    roller: tuple[Harness, User, dict[str, Channel]],
) -> None:
    harness, player, _ = roller
    guild = harness.emulator.add_guild("Anywhere", owner=player)
    channel = harness.emulator.add_channel(guild, "lobby")
    harness.dice.queue([6, 5])
    assert _described(await harness.slash(player, channel, "roll", dice="2D6>=7")) == (
        "2d6>=7 [6, 5] = 0\n0 successes (dice ≥ 7)"
    )
    harness.dice.queue([6, 5])
    japanese = await harness.slash(player, channel, "roll", dice="2D6>=7", locale="ja")
    assert _described(japanese) == "2d6 [6, 5] = 11\n目標値 ≥ 7：**成功**"
    harness.dice.queue([1, 2])
    chinese = await harness.slash(player, channel, "roll", dice="2d6+3>=10", locale="zh-CN")
    assert _described(chinese) == "2d6 [1, 2] + 3 = 6\n目标值 ≥ 10：**失败**"
    harness.dice.queue([8, 3])
    assert _described(await harness.slash(player, channel, "roll", dice="2d10>7", locale="zh-CN")) == (
        "2d10>7 [**8**, 3] = 1\n成功数 1（骰子点数 > 7）"
    )


async def test_a_gm_chooses_the_reading_and_the_next_roll_reads_it(
    roller: tuple[Harness, User, dict[str, Channel]],
) -> None:
    harness, gm, _ = roller
    channel = await _campaign(harness, gm, harness.new_channel(harness.emulator.add_guild("Table", owner=gm)))
    harness.dice.queue([6, 5])
    assert _described(await harness.slash(gm, channel, "roll", dice="2d6>=7")).endswith("0 successes (dice ≥ 7)")
    info = (await harness.slash(gm, channel, "campaign info")).reply.text()
    assert "Roll20 (5d10>7 counts the dice above 7, k3 keeps the highest 3), as the campaign's language" in info
    choices = await harness.emulator.autocomplete(
        gm, channel, "campaign set", {"option": "dice_dialect", "value": ""}, "value"
    )
    assert [choice["value"] for choice in choices] == ["roll20", "bcdice", "d20", "none"]
    assert "dice_dialect" not in " ".join(choice["name"] for choice in choices)
    changed = (await harness.slash(gm, channel, "campaign set", option="dice_dialect", value="bcdice")).reply
    assert "Dice reading" in changed.content and "BCDice (2D6>=7 compares the total with 7)" in changed.content
    assert "dice_dialect" not in changed.content and "bcdice" not in changed.content
    harness.dice.queue([6, 5])
    assert _described(await harness.slash(gm, channel, "roll", dice="2d6>=7")) == (
        "2d6 [6, 5] = 11\nTarget ≥ 7: **success**"
    )
    info = (await harness.slash(gm, channel, "campaign info")).reply.text()
    assert "BCDice (2D6>=7 compares the total with 7)" in info
    assert "as the campaign's language reads dice" not in info.split("Dice reading", 1)[1].split("\n")[1]


async def test_a_gm_types_the_reading_by_the_name_its_words_give_it(
    roller: tuple[Harness, User, dict[str, Channel]],
) -> None:
    harness, gm, _ = roller
    channel = await _campaign(harness, gm, harness.new_channel(harness.emulator.add_guild("Names", owner=gm)))
    for typed, shown, rolled in (
        ("BCDice", "BCDice (2D6>=7 compares the total with 7)", "2d6 [6, 5] = 11\nTarget ≥ 7: **success**"),
        ("Roll20", "Roll20 (5d10>7 counts the dice above 7", "2d6>=7 [6, 5] = 0\n0 successes (dice ≥ 7)"),
    ):
        changed = (await harness.slash(gm, channel, "campaign set", option="dice_dialect", value=typed)).reply
        assert not changed.ephemeral and shown in changed.content
        harness.dice.queue([6, 5])
        assert _described(await harness.slash(gm, channel, "roll", dice="2D6>=7")) == rolled


@pytest.mark.parametrize(
    ("locale", "refusal"),
    [
        ("en-US", "The dice expression cannot be read at character 6: something is missing there."),
        ("ja", "6 文字目のダイス式が読めません：そこに何かが足りません。"),
        ("zh-CN", "无法识别第 6 个字符处的骰子表达式：那里缺少内容。"),
    ],
)
async def test_a_target_left_unfinished_is_refused_in_words_not_with_an_empty_quote(
    roller: tuple[Harness, User, dict[str, Channel]], locale: str, refusal: str
) -> None:
    harness, player, channels = roller
    reply = (await harness.slash(player, channels["bcdice"], "roll", dice="2D6>=", locale=locale)).reply
    assert reply.ephemeral
    assert reply.content.startswith(refusal)
    assert "``" not in reply.content


async def test_annotations_and_comments_show_as_typed_without_markdown_mentions_or_a_broken_quote(
    roller: tuple[Harness, User, dict[str, Channel]],
) -> None:
    harness, gm, _ = roller
    channel = await _campaign(harness, gm, harness.new_channel(harness.emulator.add_guild("Quotes", owner=gm)))
    harness.dice.queue([12])
    expression = "1d20[a`b]+2[<@123> **x**] # `@everyone`"
    record = await harness.slash(gm, channel, "roll", dice=expression)
    assert record.reply.notified == frozenset()
    assert _described(record) == "1d20 [12] [a\\`b] + 2 [\\<@123> \\*\\*x\\*\\*] = 14"
    log = (await harness.slash(gm, channel, "log show")).reply.text()
    line = next(line for line in log.splitlines() if "**14**" in line)
    quoted = line.split(" rolled ", 1)[1].split(" (no label)", 1)[0]
    assert quoted == "`1d20[aˋb]+2[<@123> **x**] # ˋ@everyoneˋ`"


@pytest.mark.parametrize(
    ("dialect", "two_d6", "four_d6"),
    [
        ("roll20", "2d6>=7 [6, 5] = 0\n0 successes (dice ≥ 7)", "4d6kh3 [5, 3, ~~3~~, 6] = 14"),
        ("bcdice", "2d6 [6, 5] = 11\nTarget ≥ 7: **success**", "4d6kh3 [5, 3, ~~3~~, 6] = 14"),
        ("d20", "2d6 [6, 5] = 11\nTarget ≥ 7: **success**", "4d6k=3 [~~5~~, 3, 3, ~~6~~] = 6"),
    ],
    ids=["roll20", "bcdice", "d20"],
)
async def test_each_clash_is_read_as_the_campaigns_dialect_reads_it(
    roller: tuple[Harness, User, dict[str, Channel]], dialect: str, two_d6: str, four_d6: str
) -> None:
    harness, player, channels = roller
    harness.dice.queue([6, 5])
    assert _described(await harness.slash(player, channels[dialect], "roll", dice="2d6>=7")) == two_d6
    harness.dice.queue([5, 3, 3, 6])
    assert _described(await harness.slash(player, channels[dialect], "roll", dice="4d6k3")) == four_d6


# The standard expressions of Avrae's d20 library (github.com/avrae/d20, tests/test_dice.py, MIT licence), with the
# bounds its tests assert; where they assert none, the bounds of the expression itself. Our `d%` is a d100, as in
# Roll20 and in d20's own releases (its newest tests read it as a tens die, 00 to 90).
D20_STANDARD_EXPRESSIONS = [
    ("1d20", 1, 20),
    ("1d%", 1, 100),
    ("1+1", 2, 2),
    ("4d6kh3", 3, 18),
    ("(1)", 1, 1),
    ("(1,)", 1, 1),
    ("((1d6))", 1, 6),
    ("(((1d6)))", 1, 6),
    ("4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)", 4 * (2 + 9 + (9 + 3) // 2), 4 * (16 + 9 + (500 * 2 + 3) // 2)),
    ("(1d4, 2+2, 3d6kl1)kh1", 4, 6),
    ("((10d6kh5)kl2)kh1", 1, 6),
]


@pytest.mark.parametrize(("expression", "lowest", "highest"), D20_STANDARD_EXPRESSIONS)
async def test_d20s_standard_expressions_roll_within_d20s_bounds_in_an_english_campaign(
    roller: tuple[Harness, User, dict[str, Channel]], expression: str, lowest: int, highest: int
) -> None:
    harness, player, channels = roller
    for _ in range(20):
        record = await harness.slash(player, channels["d20"], "roll", dice=expression)
        assert record.reply.visible_to is EVERYONE
        total = int(_described(record).rsplit(" = ", 1)[1])
        assert lowest <= total <= highest, _described(record)
