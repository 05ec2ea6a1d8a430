"""The pictures drawn beside the text: valid PNGs of a sensible size, Chinese and Japanese drawn with real glyphs,
and each the same as its golden image within a tolerance (font rendering may differ by a pixel's shade between
FreeType versions). `UPDATE_GOLDEN=1 pytest tests/bot/test_pictures.py` draws the golden images again, to look
at and commit when a picture changes on purpose."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bot.pictures import Meter, character_card, font, odds_chart
from bot.rulesets.grail_anka.pictures import versus_board
from bot.rulesets.grail_zh.pictures import grid_map

GOLDEN = Path(__file__).parent.parent / "golden"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The mean difference per channel (0-255) a picture may have from its golden image.
TOLERANCE = 2.0

PICTURES: dict[str, Callable[[], bytes]] = {
    "card-en.png": lambda: character_card(
        "Archer (Servant)", "a player's character",
        (Meter("HP", 22, 40), Meter("prana", 5, 91), Meter("Fate/Points", 3, None)),
        (("Class", "Archer"), ("Skills", "**Clairvoyance** C, Magic Resistance D, Independent Action B"),
         ("Noble Phantasms", "Unlimited Blade Works, Caladbolg II")), "en",
    ),
    "card-ja.png": lambda: character_card(
        "セイバー（サーヴァント）", "プレイヤーのキャラクター", (Meter("体力", 8, 40),),
        (("スキル", "直感 A、魔力放出 A、カリスマ B"), ("宝具", "約束された勝利の剣")), "ja",
    ),
    "card-zh.png": lambda: character_card(
        "远坂凛（御主）", "玩家角色", (Meter("HP", 30, 30), Meter("MP", 0, 140)),
        (("属性", "力量 0 · 敏捷 2"),), "zh-CN",
    ),
    "map-zh.png": lambda: grid_map(
        "你的角色所在位置", [("Saber", 10, 10), ("远坂凛", 15, 10), ("Lancer", 140, 30)], 100, "zh-CN", more=str
    ),
    "board-ja.png": lambda: versus_board(
        "桜門 と 衛宮邸 が戦った場合（スキル抜き）：", ("桜門", "衛宮邸"),
        [("宝具", 50, 30), ("筋力", 40, 55), ("魔力", 45, 45)],
        ["有利 2、不利 1：70%。総合力 -13、レベル -3、疲労 +6 → **60%**"],
        [("クリティカル", 0.01), ("成功", 0.59), ("失敗", 0.39), ("ファンブル", 0.01)], "ja",
    ),
    "odds-zh.png": lambda: odds_chart(
        "Archer 攻击 Rider", [("闪避", 0.55), ("承受", 1.0), ("A defence whose name goes on and on", 0.0375)], "zh-CN"
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_a_picture_matches_its_golden_image(name: str) -> None:
    drawn = PICTURES[name]()
    assert drawn.startswith(PNG_SIGNATURE)
    Image.open(io.BytesIO(drawn)).verify()
    image = Image.open(io.BytesIO(drawn)).convert("RGB")
    assert image.width == 640 and 100 <= image.height <= 1600
    assert len(drawn) < 200_000
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(drawn)
    expected = Image.open(golden).convert("RGB")
    assert expected.size == image.size
    difference = ImageStat.Stat(ImageChops.difference(image, expected)).mean
    assert max(difference) <= TOLERANCE, (name, difference)


@pytest.mark.parametrize(("language", "text"), [("ja", "約束された勝利の剣"), ("zh-CN", "远坂凛攻击")])
def test_chinese_and_japanese_are_drawn_with_their_glyphs_not_boxes(language: str, text: str) -> None:
    face = font(20, language)

    def drawn(character: str) -> bytes:
        mask = face.getmask(character)
        return bytes(mask.getpixel((x, y)) for y in range(mask.size[1]) for x in range(mask.size[0]))

    missing = drawn("\uffff")  # the font's "no such glyph" box
    for character in text:
        assert drawn(character) not in (missing, b""), character


def test_a_long_sheet_stops_at_the_tallest_card_with_an_ellipsis() -> None:
    drawn = character_card("Caster", "x", (), (("Lore", "a line of lore " * 40),) * 30, "en")
    assert Image.open(io.BytesIO(drawn)).height == 1600


def test_a_changed_picture_fails_its_golden_comparison() -> None:
    """The comparison can fail: another character's card is far from this golden image."""
    other = character_card("Berserker (Servant)", "a player's character", (Meter("HP", 1, 90),), (), "en")
    image = Image.open(io.BytesIO(other)).convert("RGB")
    expected = Image.open(GOLDEN / "card-en.png").convert("RGB")
    if image.size == expected.size:
        assert max(ImageStat.Stat(ImageChops.difference(image, expected)).mean) > TOLERANCE
    else:
        assert image.size != expected.size


# What any map may draw (text, lines, dots): a map of four panels of 3 x 3 cells with 40 named points draws about
# 150; the old map drew a label for every sector between its points (40,401 for two points 200 sectors apart).
MOST_DRAWN = 200
# Names as the bot takes them: letters, digits and spaces, no control or invisible characters.
NAME = st.text(st.characters(categories=("L", "N", "Zs")), min_size=1, max_size=20)
COORDINATE = st.one_of(st.integers(-10_100, 10_099), st.integers(-(10**18), 10**18))


@contextlib.contextmanager
def drawing_calls() -> Iterator[list[str]]:
    """The name of every drawing call made on any picture meanwhile."""
    calls: list[str] = []

    def counted(method: str) -> Callable[..., None]:
        drawing = getattr(ImageDraw.ImageDraw, method)

        def draw(self: ImageDraw.ImageDraw, *args: Any, **kwargs: Any) -> None:
            calls.append(method)
            drawing(self, *args, **kwargs)

        return draw

    with pytest.MonkeyPatch.context() as patch:
        for method in ("text", "line", "ellipse", "rectangle"):
            patch.setattr(ImageDraw.ImageDraw, method, counted(method))
        yield calls


def test_a_map_of_points_far_apart_draws_what_is_near_them_not_the_sectors_between() -> None:
    with drawing_calls() as near:
        grid_map("Where", [("Saber", 10, 10), ("Rin", 15, 10)], 100, "en", more=str)
    with drawing_calls() as far:
        drawn = grid_map("Where", [("Saber", -10_000, -10_000), ("Rin", 10_099, 10_099)], 100, "en", more=str)
    assert len(far) <= 2 * len(near)  # a panel around each
    assert Image.open(io.BytesIO(drawn)).size == (640, 372)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, COORDINATE, COORDINATE), min_size=1, max_size=300))
def test_no_map_draws_more_than_a_bound_whatever_its_points(points: list[tuple[str, int, int]]) -> None:
    with drawing_calls() as calls:
        drawn = grid_map("Where", points, 100, "en", more=lambda count: f"and {count} more")
    assert len(calls) <= MOST_DRAWN
    image = Image.open(io.BytesIO(drawn))
    assert image.width == 640 and image.height <= 1600


def test_points_left_off_a_crowded_map_are_counted_under_it() -> None:
    said: list[int] = []

    def more(count: int) -> str:
        said.append(count)
        return f"and {count} more"

    with drawing_calls() as calls:
        grid_map("Where", [(f"Puppet {index}", index, 5) for index in range(55)], 100, "en", more=more)
    assert said == [15] and calls.count("ellipse") == 40
