"""Pictures beside the text: a character card and an odds chart, drawn with Pillow.

The letters come from Noto Sans CJK, installed from PyPI with the bot (`noto-cjk[sans]`), so that Chinese and
Japanese render the same on any machine; each language gets the collection's face for it (the shapes of 直 or 骨
differ between Japanese and Chinese). Every picture has the same facts as the text sent beside it: it is a way to
look, never the only way to read. Drawing takes milliseconds of CPU, so callers run it in the workers
(`bot/workers.py`), off the event loop.
"""

from __future__ import annotations

import functools
import io
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from noto_cjk import otc_path
from PIL import Image, ImageDraw, ImageFont

# The collection's faces: Japanese first, then Korean, Simplified Chinese... (NotoSansCJK-Regular.ttc).
FACES = {"ja": 0, "zh-CN": 2}
WIDTH = 640
MARGIN = 24
LINE = 30
# A card never grows past this: a sheet longer than it ends with "…" (the text beside it has everything).
TALLEST = 1600
INK = (32, 34, 40)
FAINT = (110, 114, 124)
PAPER = (250, 248, 243)
BAND = (34, 77, 84)
BAR_BACK = (222, 218, 210)
BAR_FILL = (62, 140, 120)
BAR_LOW = (196, 82, 64)
MARKDOWN = re.compile(r"(\*\*|__|~~|`)")


@functools.cache
def font(size: int, language: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(otc_path("sans")), size, index=FACES.get(language, 0))


def plain(text: str) -> str:
    """Text as a picture shows it: without Markdown's marks."""
    return MARKDOWN.sub("", text)


def wrapped(draw: ImageDraw.ImageDraw, text: str, face: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """The text in lines no wider than `width`, broken between words, or anywhere in scripts without spaces."""
    lines: list[str] = []
    for paragraph in plain(text).splitlines() or [""]:
        current = ""
        for piece in re.findall(r"\S+\s*|\s+", paragraph) if " " in paragraph else list(paragraph):
            if current and draw.textlength(current + piece, font=face) > width:
                lines.append(current.rstrip())
                current = piece.lstrip()
            else:
                current += piece
        lines.append(current.rstrip())
    return lines


def one_line(draw: ImageDraw.ImageDraw, text: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """The text cut with "…" to fit `width` on one line."""
    shown = plain(text)
    while len(shown) > 1 and draw.textlength(shown, font=face) > width:
        shown = shown[:-2] + "…"
    return shown


@dataclass(frozen=True)
class Meter:
    """A pool as a bar: its label, and how full it is (no bar where it has no maximum)."""

    label: str
    current: int
    maximum: int | None


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # a few KB more, several times faster to make
    return buffer.getvalue()


# Cards of characters shown again unchanged are drawn once: a card costs 20-60 ms of CPU, a look-up nothing.
CARDS_KEPT = 256


@functools.lru_cache(maxsize=CARDS_KEPT)
def character_card(
    title: str, subtitle: str, meters: tuple[Meter, ...], facts: tuple[tuple[str, str], ...], language: str
) -> bytes:
    """A character's card: its name and kind on a band, its pools as bars, then its sheet's lines."""
    big, normal, small = font(30, language), font(20, language), font(16, language)
    sketch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    text_width = WIDTH - 2 * MARGIN
    rows: list[tuple[str, str, list[str]]] = [
        (plain(label), "", wrapped(sketch, value, normal, text_width)) for label, value in facts
    ]
    height = 110 + len(meters) * 44 + sum(26 + LINE * len(lines) for _, _, lines in rows) + MARGIN
    height = min(height, TALLEST)
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 84), fill=BAND)
    # The character's initial in a round frame, where a portrait would be (Discord shows the portrait itself).
    draw.ellipse((WIDTH - MARGIN - 60, 12, WIDTH - MARGIN, 72), fill=PAPER)
    draw.text((WIDTH - MARGIN - 30, 42), plain(title)[:1], font=big, fill=BAND, anchor="mm")
    draw.text((MARGIN, 14), one_line(draw, title, big, text_width - 80), font=big, fill=PAPER)
    draw.text((MARGIN, 54), one_line(draw, subtitle, small, text_width - 80), font=small, fill=(205, 225, 222))
    top = 100
    for meter in meters:
        draw.text((MARGIN, top), meter.label, font=normal, fill=INK)
        amount = f"{meter.current}/{meter.maximum}" if meter.maximum is not None else str(meter.current)
        draw.text((WIDTH - MARGIN, top), amount, font=normal, fill=INK, anchor="ra")
        if meter.maximum:
            share = max(0.0, min(1.0, meter.current / meter.maximum))
            left, right = MARGIN + 170, WIDTH - MARGIN - 90
            draw.rounded_rectangle((left, top + 6, right, top + 22), radius=8, fill=BAR_BACK)
            if share > 0:
                colour = BAR_LOW if share <= 0.25 else BAR_FILL
                draw.rounded_rectangle((left, top + 6, left + (right - left) * share, top + 22), radius=8, fill=colour)
        top += 44
    for label, _, lines in rows:
        if top + 26 + LINE > height:
            draw.text((MARGIN, height - LINE), "…", font=normal, fill=FAINT)
            break
        draw.text((MARGIN, top), label, font=small, fill=FAINT)
        top += 26
        for line in lines:
            if top + LINE > height:
                break
            draw.text((MARGIN, top), line, font=normal, fill=INK)
            top += LINE
    return _png(image)


def odds_chart(title: str, chances: Sequence[tuple[str, float]], language: str) -> bytes:
    """Each outcome's chance as a bar from 0 to 100%, with its percentage written beside it."""
    normal, big = font(20, language), font(24, language)
    height = 80 + 40 * len(chances) + MARGIN
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 20), plain(title), font=big, fill=INK)
    top = 72
    label_width = 220
    for label, chance in chances:
        draw.text((MARGIN, top), one_line(draw, label, normal, label_width - 10), font=normal, fill=INK)
        left, right = MARGIN + label_width, WIDTH - MARGIN - 80
        draw.rectangle((left, top + 6, right, top + 24), fill=BAR_BACK)
        share = max(0.0, min(1.0, chance))
        if share > 0:
            draw.rectangle((left, top + 6, left + (right - left) * share, top + 24), fill=BAR_FILL)
        draw.text((WIDTH - MARGIN, top), f"{chance * 100:.1f}%", font=normal, fill=INK, anchor="ra")
        top += 40
    return _png(image)


# A map draws each group of nearby points in a panel of its own, so what it costs depends on how many panels,
# cells and names it draws, never on how far apart the points are: two characters 200 sectors apart are two
# small maps, not one of 40,401 sectors.
# Points whose sectors are at most this many sectors apart (in either direction) share a panel.
MAP_NEAR = 2
# Panels at most: points in more groups than this share one panel, scaled to hold them all.
MAP_PANELS = 4
# Points drawn at most (the text beside the map has every one): a note says how many more there are.
MAP_POINTS = 40
# The narrowest a cell with its coordinates written in it may be: a panel spanning more sectors than it has room
# for such cells draws its grid every few sectors.
MAP_CELL = 90
# Where the panels start, under the title.
MAP_TOP = 64
Placed = tuple[str, int, int]


def _map_groups(points: Sequence[Placed], sector: int) -> list[list[Placed]]:
    """The points in groups of nearby sectors (chained: a point near any of a group is in it); one group of them
    all when they fall into more than `MAP_PANELS` groups."""
    at: dict[tuple[int, int], list[Placed]] = {}
    for point in points:
        at.setdefault((point[1] // sector, point[2] // sector), []).append(point)
    groups: list[list[Placed]] = []
    grouped: set[tuple[int, int]] = set()
    for start in at:
        if start in grouped:
            continue
        if len(groups) == MAP_PANELS:
            return [list(points)]
        grouped.add(start)
        group, waiting = [], [start]
        while waiting:
            column, row = waiting.pop()
            group += at[(column, row)]
            for near in itertools.product(range(column - MAP_NEAR, column + MAP_NEAR + 1),
                                          range(row - MAP_NEAR, row + MAP_NEAR + 1)):  # fmt: skip
                if near in at and near not in grouped:
                    grouped.add(near)
                    waiting.append(near)
        groups.append(group)
    return groups


def _map_panel(
    draw: ImageDraw.ImageDraw, points: Sequence[Placed], sector: int, frame: tuple[int, int, int], language: str
) -> None:  # fmt: skip
    """One panel of the map in the square `frame` (left, top, size): the sectors around the points, each cell with
    its sector's coordinates (a cell spans several sectors where the points do), then the points and their names."""
    normal, small = font(16, language), font(13, language)
    left, top, size = frame
    low_x = min(x for _, x, _ in points) // sector
    low_y = min(y for _, _, y in points) // sector
    side = max(max(x for _, x, _ in points) // sector - low_x, max(y for _, _, y in points) // sector - low_y) + 1
    step = -(-side // max(1, size // MAP_CELL))  # sectors a cell spans
    cells = -(-side // step)
    scale = size / (cells * step * sector)
    for line in range(cells + 1):
        offset = line * step * sector * scale
        draw.line((left + offset, top, left + offset, top + cells * step * sector * scale), fill=BAR_BACK, width=2)
        draw.line((left, top + offset, left + cells * step * sector * scale, top + offset), fill=BAR_BACK, width=2)
    for column in range(cells):
        for row in range(cells):
            label = f"({low_x + column * step}, {low_y + row * step})"
            draw.text((left + column * step * sector * scale + 6, top + row * step * sector * scale + 4), label,
                      font=small, fill=FAINT)  # fmt: skip
    taken: list[tuple[float, float, float, float]] = []
    for name, x, y in points:
        at_x = left + (x - low_x * sector + 0.5) * scale
        at_y = top + (y - low_y * sector + 0.5) * scale
        draw.ellipse((at_x - 6, at_y - 6, at_x + 6, at_y + 6), fill=BAR_LOW)
        shown = plain(name)
        box = draw.textbbox((at_x + 9, at_y - 10), shown, font=normal)
        width, height = box[2] - box[0], box[3] - box[1]
        # A name that would run out of its panel goes on the dot's other side, or above its bottom edge.
        if box[2] > left + size:
            start = max(left, at_x - 9 - width)
            box = (start, box[1], start + width, box[3])
        if box[3] > top + size:
            box = (box[0], top + size - height - 2, box[2], top + size - 2)
        # Names of points close together go one under the other rather than over each other.
        while any(box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]
                  for other in taken):  # fmt: skip
            box = (box[0], box[3] + 2, box[2], box[3] + 2 + (box[3] - box[1]))
        if box[3] > top + size:  # no room left under the others: the dot stands alone, the text names it
            continue
        taken.append(box)
        draw.text((box[0], box[1]), shown, font=normal, fill=INK)


def grid_map(
    title: str, points: Sequence[Placed], sector: int, language: str, *, more: Callable[[int], str]
) -> bytes:  # fmt: skip
    """Named points on a grid of squares, with the lines between sectors of `sector` squares and each sector's
    coordinates: the sectors around each group of nearby points in a panel of its own (one panel, as wide as the
    picture, where all are near), at most `MAP_POINTS` points, and `more(count)` written under the panels for the
    points left out."""
    drawn, left_out = points[:MAP_POINTS], len(points) - MAP_POINTS
    groups = _map_groups(drawn, sector)
    columns = 1 if len(groups) == 1 else 2
    rows = -(-len(groups) // columns)
    size = (WIDTH - 2 * MARGIN - (columns - 1) * MARGIN) // columns
    bottom = MAP_TOP + rows * size + (rows - 1) * MARGIN
    image = Image.new("RGB", (WIDTH, bottom + MARGIN + (LINE if left_out > 0 else 0)), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 18), plain(title), font=font(24, language), fill=INK)
    for index, group in enumerate(groups):
        row, column = divmod(index, columns)
        _map_panel(draw, group, sector, (MARGIN + column * (size + MARGIN), MAP_TOP + row * (size + MARGIN), size),
                   language)  # fmt: skip
    if left_out > 0:
        draw.text((MARGIN, bottom + 8), plain(more(left_out)), font=font(16, language), fill=FAINT)
    return _png(image)


def versus_board(
    title: str, sides: tuple[str, str], rows: Sequence[tuple[str, int, int]], notes: Sequence[str],
    chances: Sequence[tuple[str, float]], language: str,
) -> bytes:  # fmt: skip
    """Two sides face to face: each row a value compared (the higher one stands out), then the notes that make
    the rate, then each outcome's chance as a bar."""
    normal, big, bold = font(18, language), font(24, language), font(22, language)
    sketch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    written = [line for note in notes for line in wrapped(sketch, note, normal, WIDTH - 2 * MARGIN)]
    height = 120 + 36 * len(rows) + 28 * len(written) + 36 * len(chances) + 2 * MARGIN
    image = Image.new("RGB", (WIDTH, min(height, TALLEST)), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 16), one_line(draw, title, big, WIDTH - 2 * MARGIN), font=big, fill=INK)
    middle = WIDTH // 2
    draw.text((middle - 80, 60), plain(sides[0]), font=bold, fill=BAND, anchor="ra")
    draw.text((middle + 80, 60), plain(sides[1]), font=bold, fill=BAND, anchor="la")
    top = 104
    for label, left, right in rows:
        draw.text((middle, top), plain(label), font=normal, fill=FAINT, anchor="ma")
        draw.text((middle - 80, top), str(left), font=bold if left > right else normal,
                  fill=BAR_FILL if left > right else INK, anchor="ra")  # fmt: skip
        draw.text((middle + 80, top), str(right), font=bold if right > left else normal,
                  fill=BAR_FILL if right > left else INK, anchor="la")  # fmt: skip
        top += 36
    top += 8
    for line in written:
        draw.text((MARGIN, top), line, font=normal, fill=INK)
        top += 28
    top += 8
    for label, chance in chances:
        draw.text((MARGIN, top), plain(label), font=normal, fill=INK)
        left, right = MARGIN + 160, WIDTH - MARGIN - 80
        draw.rectangle((left, top + 6, right, top + 24), fill=BAR_BACK)
        if chance > 0:
            draw.rectangle((left, top + 6, left + (right - left) * min(1.0, chance), top + 24), fill=BAR_FILL)
        draw.text((WIDTH - MARGIN, top), f"{chance * 100:.1f}%", font=normal, fill=INK, anchor="ra")
        top += 36
    return _png(image)
