"""The pictures drawn beside the text: valid PNGs of a sensible size, Chinese and Japanese drawn with real glyphs,
and each the same as its golden image within a tolerance (font rendering may differ by a pixel's shade between
FreeType versions). `UPDATE_GOLDEN=1 pytest tests/bot/test_pictures.py` draws the golden images again, to look
at and commit when a picture changes on purpose."""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bot.pictures import BAR_LOW, Box, Meter, character_card, font, odds_chart, overlaps
from bot.rulesets.grail_anka.pictures import versus_board
from bot.rulesets.grail_zh.pictures import MAP_APART, MAP_REACH, grid_map, spread

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
        [("大成功（クリティカル）", 0.01), ("成功", 0.59), ("失敗", 0.39), ("大失敗（ファンブル）", 0.01)], "ja",
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


def test_a_sheet_too_long_for_every_column_ends_with_an_ellipsis() -> None:
    with drawn_shapes() as shapes:
        drawn = character_card("Caster", "x", (), (("Lore", "a line of lore " * 40),) * 30, "en")
    assert Image.open(io.BytesIO(drawn)).size == (3 * 640, 3 * 480)
    assert shapes[-1].text == "…"
    assert not any(overlaps(shapes[-1].box, shape.box) for shape in shapes[:-1] if shape.kind == "text")


@pytest.mark.parametrize("facts", [6, 12, 30])
def test_a_long_card_goes_on_in_columns_shaped_for_discords_preview(facts: int) -> None:
    """Discord shows an embed's picture whole within about 400 x 300 pixels: a card no taller than three quarters
    of its width is shown whole and as large as the preview allows."""
    sheet = tuple((f"Fact {index}", "a line of lore " * 12) for index in range(facts))
    with drawn_shapes() as shapes:
        drawn = character_card("Caster", "x", (Meter("HP", 3, 9),), sheet, "en")
    image = Image.open(io.BytesIO(drawn))
    assert image.height <= image.width * 300 / 400
    written = [shape.text for shape in shapes]
    assert all(f"Fact {index}" in written for index in range(min(facts, 12)))
    texts = [shape for shape in shapes if shape.kind == "text" and shape.text != "C"]
    assert not any(overlaps(one.box, other.box) for one, other in itertools.combinations(texts, 2))


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


@dataclass(frozen=True)
class Shape:
    """Something drawn: a text (its words, size and inked box) or a shape (its box and colour)."""

    kind: str
    box: Box
    text: str = ""
    size: float = 0
    fill: object = None


@contextlib.contextmanager
def drawn_shapes() -> Iterator[list[Shape]]:
    """Every text, rectangle and ellipse drawn on any picture meanwhile, measured where it was drawn."""
    shapes: list[Shape] = []
    drawing = {method: getattr(ImageDraw.ImageDraw, method) for method in ("text", "rectangle", "ellipse")}

    def text(self: ImageDraw.ImageDraw, xy: Any, text: str, *args: Any, **kwargs: Any) -> None:
        face, anchor = kwargs.get("font"), kwargs.get("anchor")
        box = self.textbbox(xy, text, font=face, anchor=anchor)
        shapes.append(Shape("text", box, text, getattr(face, "size", 0), kwargs.get("fill")))
        drawing["text"](self, xy, text, *args, **kwargs)

    def shape(method: str) -> Callable[..., None]:
        def draw(self: ImageDraw.ImageDraw, xy: Any, *args: Any, **kwargs: Any) -> None:
            shapes.append(Shape(method, tuple(xy), fill=kwargs.get("fill")))
            drawing[method](self, xy, *args, **kwargs)

        return draw

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ImageDraw.ImageDraw, "text", text)
        for method in ("rectangle", "ellipse"):
            patch.setattr(ImageDraw.ImageDraw, method, shape(method))
        yield shapes


def assert_clear(texts: list[Shape], bars: list[Shape]) -> None:
    """No text covers another, and no bar covers a text."""
    for one, other in itertools.combinations(texts, 2):
        assert not overlaps(one.box, other.box), (one, other)
    for written in texts:
        for bar in bars:
            assert not overlaps(written.box, bar.box), (written, bar)


DEFENCES = [
    ("Defending with Physique + Melee + Swords (4)", 0.51),
    ("Defending with Dexterity + Melee + Swords (4)", 0.45),
    ("Defending with Intelligence + Melee + Swords (4)", 0.7),
    ("Defending with Wits and no skill", 0.05),
]


def test_odds_labels_are_written_whole_clear_of_the_bars_and_of_each_other() -> None:
    with drawn_shapes() as shapes:
        odds_chart("Aiko attacking Bram: chance to hit", DEFENCES, "en")
    texts = [shape for shape in shapes if shape.kind == "text"]
    assert_clear(texts, [shape for shape in shapes if shape.kind == "rectangle"])
    written = " ".join(shape.text for shape in texts)
    for label, _ in DEFENCES:
        assert label in written


def test_a_label_too_long_for_two_lines_keeps_its_start_and_stays_clear() -> None:
    long = [(label + " and a very long specialty name that goes on and on", chance) for label, chance in DEFENCES]
    with drawn_shapes() as shapes:
        odds_chart("Aiko attacking Bram", long, "en")
    texts = [shape for shape in shapes if shape.kind == "text"]
    assert_clear(texts, [shape for shape in shapes if shape.kind == "rectangle"])
    for stat in ("Physique", "Dexterity", "Intelligence", "Wits"):  # what tells the defences apart is kept
        assert sum(shape.text.startswith(f"Defending with {stat}") for shape in texts) == 1, stat
    assert sum(shape.text.endswith("…") for shape in texts) == len(DEFENCES)


def test_the_readings_on_a_japanese_board_stay_clear_of_their_bars() -> None:
    readings = [("大成功（クリティカル）", 0.01), ("成功", 0.59), ("失敗", 0.39), ("大失敗（ファンブル）", 0.01)]
    with drawn_shapes() as shapes:
        versus_board("桜門 と 衛宮邸", ("桜門", "衛宮邸"), [("宝具", 50, 30)], ["有利 2"], readings, "ja")
    texts = [shape for shape in shapes if shape.kind == "text"]
    assert_clear(texts, [shape for shape in shapes if shape.kind == "rectangle"])
    written = "".join(shape.text for shape in texts)
    assert all(reading in written for reading, _ in readings)


CROWD = [("Saber", 10, 10), ("Rin", 11, 10), ("Archer", 10, 11), ("Lancer", 11, 11), ("Shirou", 10, 10)]


@pytest.mark.parametrize(
    "points",
    [
        CROWD,  # five characters within four squares
        [("Saber", 10, 10), ("Tohsaka Rin", 13, 10)],  # a dot next to a neighbour's name
        [*CROWD, ("Caster", 40, 40), ("Assassin", 41, 40), ("Rider", 99, 99)],
    ],
)
def test_close_points_on_a_map_are_drawn_apart_each_with_its_name_uncovered(points: list[tuple[str, int, int]]) -> None:
    with drawn_shapes() as shapes:
        grid_map("Where", points, 100, "en", more=str)
    dots = [shape for shape in shapes if shape.kind == "ellipse" and shape.fill == BAR_LOW]
    names = [shape for shape in shapes if shape.kind == "text" and shape.size == 16]
    assert len(dots) == len(points) and sorted(shape.text for shape in names) == sorted(name for name, _, _ in points)
    for one, other in itertools.combinations(dots, 2):
        assert not overlaps(one.box, other.box), (one, other)
    assert_clear(names, dots)


def test_points_on_one_spot_spread_apart_and_stay_near_it() -> None:
    homes = [(100.0, 100.0)] * 3 + [(104.0, 100.0), (100.0, 104.0)]
    moved = spread(homes, MAP_APART, MAP_REACH, (0, 0, 600, 600))
    for one, other in itertools.combinations(moved, 2):
        assert math.dist(one, other) >= MAP_APART - 1e-6
    for home, there in zip(homes, moved, strict=True):
        assert math.dist(home, there) <= MAP_REACH + 1e-6


def test_a_point_alone_stays_on_its_square() -> None:
    assert spread([(10.0, 20.0), (300.0, 20.0)], MAP_APART, MAP_REACH, (0, 0, 600, 600)) == [
        (10.0, 20.0),
        (300.0, 20.0),
    ]
