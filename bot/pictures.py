"""Pictures beside the text: a character card and an odds chart, drawn with Pillow, and what every picture is
drawn with (letters, lines of text, colours, PNG); a ruleset's own pictures are in its package (`pictures.py`).

The letters come from Noto Sans CJK, installed from PyPI with the bot (`noto-cjk[sans]`), so that Chinese and
Japanese render the same on any machine; each language gets the collection's face for it (the shapes of 直 or 骨
differ between Japanese and Chinese). Every picture has the same facts as the text sent beside it: it is a way to
look, never the only way to read. Drawing takes milliseconds of CPU, so callers run it in the workers
(`bot/workers.py`), off the event loop.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from noto_cjk import otc_path
from PIL import Image, ImageDraw, ImageFont

# The collection's faces: Japanese first, then Korean, Simplified Chinese... (NotoSansCJK-Regular.ttc).
FACES = {"ja": 0, "zh-CN": 2}
WIDTH = 640
MARGIN = 24
LINE = 30
# A board never grows past this: one longer ends cut off (the text beside it has everything).
TALLEST = 1600
INK = (32, 34, 40)
FAINT = (110, 114, 124)
PAPER = (250, 248, 243)
BAND = (34, 77, 84)
BAR_BACK = (222, 218, 210)
BAR_FILL = (62, 140, 120)
BAR_LOW = (196, 82, 64)
# Discord's Markdown, as far as a picture or an alt text (read aloud, shown as it is) must drop it: the marks of
# bold, underline, strike-through, spoilers and code, a line's heading, quote or small-text mark, a link's address
# (its words stay), and the backslash that escapes a mark (the mark stays).
MARKDOWN = re.compile(r"\*\*|__|~~|\|\||`|^(?:#{1,3}|-#|>>>|>) |(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", re.MULTILINE)
LINK = re.compile(r"\[([^\]]*)\]\(<?[^)>]*>?\)")
ESCAPED = re.compile(r"\\([\\*_~`|>#\[\]()-])")


@functools.cache
def font(size: int, language: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(otc_path("sans")), size, index=FACES.get(language, 0))


def plain(text: str) -> str:
    """Text as a picture or an alt text shows it: without Markdown's marks."""
    marked = LINK.sub(r"\1", text)
    # An escaped mark is set aside while the marks go, then written as itself.
    kept = ESCAPED.sub(lambda match: f"\0{ord(match.group(1))}\0", marked)
    return re.sub("\0(\\d+)\0", lambda match: chr(int(match.group(1))), MARKDOWN.sub("", kept))


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


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # a few KB more, several times faster to make
    return buffer.getvalue()


# Cards of characters shown again unchanged are drawn once: a card costs 20-60 ms of CPU, a look-up nothing.
CARDS_KEPT = 256
# Discord shows an embed's picture whole within about 400 x 300 pixels, shrinking a taller one to that height: a
# card keeps to that shape (no taller than three quarters of its width), its sheet going on in another column of
# `WIDTH` rather than further down, up to `CARD_COLUMNS`; a sheet longer still ends with "…" (the text beside it
# has everything).
PREVIEW = (400, 300)
CARD_COLUMNS = 3
CARD_TOP = 100
METER = 44
FACT_LABEL = 26


@dataclass(frozen=True)
class _CardPiece:
    """What a card's column holds, drawn from its top: a meter, a fact's label with its first line, or a further
    line; a label never ends a column without a line of its own under it."""

    height: int
    meter: Meter | None = None
    label: str = ""
    line: str | None = None


def _card_pieces(meters: Sequence[Meter], rows: Sequence[tuple[str, list[str]]]) -> list[_CardPiece]:
    pieces = [_CardPiece(METER, meter=meter) for meter in meters]
    for label, lines in rows:
        first, *rest = lines or [""]
        pieces.append(_CardPiece(FACT_LABEL + LINE, label=label, line=first))
        pieces += [_CardPiece(LINE, line=line) for line in rest]
    return pieces


def _card_columns(pieces: Sequence[_CardPiece], room: int, most: int) -> tuple[list[list[_CardPiece]], bool]:
    """The pieces in columns of at most `room` pixels, at most `most` columns; and whether all of them fit."""
    columns: list[list[_CardPiece]] = [[]]
    used = 0
    for piece in pieces:
        if used + piece.height > room and columns[-1]:
            if len(columns) == most:
                return columns, False
            columns.append([])
            used = 0
        columns[-1].append(piece)
        used += piece.height
    return columns, True


def _card_layout(pieces: Sequence[_CardPiece]) -> tuple[list[list[_CardPiece]], int, bool]:
    """The fewest columns the card fits in within the preview's shape, as even as the pieces allow, its height,
    and whether all fit."""
    total = sum(piece.height for piece in pieces)
    count = 1
    while True:
        most = count * WIDTH * PREVIEW[1] // PREVIEW[0] - CARD_TOP - MARGIN
        room = min(most, max([-(-total // count), *(piece.height for piece in pieces)]))
        columns, whole = _card_columns(pieces, room, count)
        while not whole and room < most:
            room = min(most, room + LINE)
            columns, whole = _card_columns(pieces, room, count)
        if whole:
            return columns, CARD_TOP + max(sum(piece.height for piece in column) for column in columns) + MARGIN, True
        if count == CARD_COLUMNS:  # the last line's room is left for the "…"
            return _card_columns(pieces, most - LINE, count)[0], CARD_TOP + most + MARGIN, False
        count += 1


@functools.lru_cache(maxsize=CARDS_KEPT)
def character_card(
    title: str, subtitle: str, meters: tuple[Meter, ...], facts: tuple[tuple[str, str], ...], language: str
) -> bytes:
    """A character's card: its name and kind on a band, its pools as bars, then its sheet's lines, in as many
    columns as keep it within the preview's shape."""
    big, normal, small = font(30, language), font(20, language), font(16, language)
    sketch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    text_width = WIDTH - 2 * MARGIN
    rows = [(plain(label), wrapped(sketch, value, normal, text_width)) for label, value in facts]
    columns, height, whole = _card_layout(_card_pieces(meters, rows))
    width = WIDTH * len(columns)
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 84), fill=BAND)
    # The character's initial in a round frame, where a portrait would be (Discord shows the portrait itself).
    draw.ellipse((width - MARGIN - 60, 12, width - MARGIN, 72), fill=PAPER)
    draw.text((width - MARGIN - 30, 42), plain(title)[:1], font=big, fill=BAND, anchor="mm")
    draw.text((MARGIN, 14), one_line(draw, title, big, width - 2 * MARGIN - 80), font=big, fill=PAPER)
    draw.text((MARGIN, 54), one_line(draw, subtitle, small, width - 2 * MARGIN - 80), font=small, fill=(205, 225, 222))
    for index, column in enumerate(columns):
        left, top = index * WIDTH + MARGIN, CARD_TOP
        for piece in column:
            if piece.meter is not None:
                _draw_meter(draw, piece.meter, left, top, normal)
            else:
                if piece.label:
                    draw.text((left, top), piece.label, font=small, fill=FAINT)
                draw.text((left, top + piece.height - LINE), piece.line or "", font=normal, fill=INK)
            top += piece.height
    if not whole:
        draw.text((width - MARGIN, height - MARGIN - LINE), "…", font=normal, fill=FAINT, anchor="ra")
    return png(image)


def _draw_meter(draw: ImageDraw.ImageDraw, meter: Meter, left: int, top: int, face: ImageFont.FreeTypeFont) -> None:
    draw.text((left, top), meter.label, font=face, fill=INK)
    amount = f"{meter.current}/{meter.maximum}" if meter.maximum is not None else str(meter.current)
    draw.text((left + WIDTH - 2 * MARGIN, top), amount, font=face, fill=INK, anchor="ra")
    if meter.maximum:
        share = max(0.0, min(1.0, meter.current / meter.maximum))
        start, end = left + 170, left + WIDTH - 2 * MARGIN - 90
        draw.rounded_rectangle((start, top + 6, end, top + 22), radius=8, fill=BAR_BACK)
        if share > 0:
            colour = BAR_LOW if share <= 0.25 else BAR_FILL
            draw.rounded_rectangle((start, top + 6, start + (end - start) * share, top + 22), radius=8, fill=colour)


Box = tuple[float, float, float, float]


def overlaps(one: Box, other: Box) -> bool:
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]


@dataclass(frozen=True)
class Written:
    """A piece of text as a layout places it: where it is drawn from (its left and its top), and the box its ink
    covers there."""

    text: str
    at: tuple[float, float]
    box: Box


def written(draw: ImageDraw.ImageDraw, text: str, at: tuple[float, float], face: ImageFont.FreeTypeFont) -> Written:
    return Written(text, at, draw.textbbox(at, text, font=face))


# A chance's label takes at most this width beside its bar, on at most two lines: a longer one is cut at the end
# of its second line, where what tells the labels apart (written first) is already shown.
CHANCE_LABEL = 260
CHANCE_LINES = 2
CHANCE_LINE = 24
# Room on the right for the percentage, and between a label and its bar.
CHANCE_PERCENT = 90
CHANCE_GAP = 12


@dataclass(frozen=True)
class ChanceRow:
    """One chance as drawn: its label's lines, its bar from 0 to 100% and how much of it is filled, its
    percentage."""

    label: tuple[Written, ...]
    bar: Box
    share: float
    percent: Written


def chance_rows(
    draw: ImageDraw.ImageDraw, chances: Sequence[tuple[str, float]], face: ImageFont.FreeTypeFont, top: float
) -> list[ChanceRow]:
    """Where each chance's label, bar and percentage go, rows from `top` down: the labels in a column as wide as
    the widest needs (up to `CHANCE_LABEL`), the bars after it, so that no bar covers a label."""
    widest = max((draw.textlength(plain(label), font=face) for label, _ in chances), default=0)
    column = min(CHANCE_LABEL, math.ceil(widest))
    left, right = MARGIN + column + CHANCE_GAP, WIDTH - MARGIN - CHANCE_PERCENT
    rows: list[ChanceRow] = []
    for label, chance in chances:
        lines = wrapped(draw, label, face, column)
        if len(lines) > CHANCE_LINES:
            joiner = " " if " " in label else ""
            lines = [*lines[: CHANCE_LINES - 1], one_line(draw, joiner.join(lines[CHANCE_LINES - 1 :]), face, column)]
        middle = top + CHANCE_LINE * len(lines) / 2 + 3
        percent = f"{chance * 100:.1f}%"
        ink = draw.textbbox((0, 0), percent, font=face)
        rows.append(
            ChanceRow(
                tuple(
                    written(draw, line, (MARGIN, top + CHANCE_LINE * index), face) for index, line in enumerate(lines)
                ),
                (left, middle - 9, right, middle + 9),
                max(0.0, min(1.0, chance)),
                written(draw, percent, (WIDTH - MARGIN - ink[2], middle - (ink[1] + ink[3]) / 2), face),
            )
        )
        top += max(40, CHANCE_LINE * len(lines) + 16)
    return rows


def chance_rows_height(rows: Sequence[ChanceRow], top: float) -> float:
    """How far below `top` the rows reach."""
    return max((row.bar[3] for row in rows), default=top) - top + (16 if rows else 0)


def draw_chances(draw: ImageDraw.ImageDraw, rows: Sequence[ChanceRow], face: ImageFont.FreeTypeFont) -> None:
    for row in rows:
        for line in row.label:
            draw.text(line.at, line.text, font=face, fill=INK)
        left, top, right, bottom = row.bar
        draw.rectangle(row.bar, fill=BAR_BACK)
        if row.share > 0:
            draw.rectangle((left, top, left + (right - left) * row.share, bottom), fill=BAR_FILL)
        draw.text(row.percent.at, row.percent.text, font=face, fill=INK)


def odds_chart(title: str, chances: Sequence[tuple[str, float]], language: str) -> bytes:
    """Each outcome's chance as a bar from 0 to 100%, with its percentage written beside it."""
    normal, big = font(20, language), font(24, language)
    sketch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    lines = wrapped(sketch, title, big, WIDTH - 2 * MARGIN)
    top = 20 + 32 * len(lines) + 20
    rows = chance_rows(sketch, chances, normal, top)
    image = Image.new("RGB", (WIDTH, int(top + chance_rows_height(rows, top) + MARGIN)), PAPER)
    draw = ImageDraw.Draw(image)
    for index, line in enumerate(lines):
        draw.text((MARGIN, 20 + 32 * index), line, font=big, fill=INK)
    draw_chances(draw, rows, normal)
    return png(image)
