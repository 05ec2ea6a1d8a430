"""The board a battle check's odds are drawn on: the two camps face to face, what makes the rate, the chances."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.pictures import (
    BAND,
    BAR_FILL,
    FAINT,
    INK,
    MARGIN,
    PAPER,
    TALLEST,
    WIDTH,
    chance_rows,
    chance_rows_height,
    draw_chances,
    font,
    one_line,
    plain,
    png,
    wrapped,
)


def versus_board(
    title: str,
    sides: tuple[str, str],
    rows: Sequence[tuple[str, int, int]],
    notes: Sequence[str],
    chances: Sequence[tuple[str, float]],
    language: str,
) -> bytes:
    """Two sides face to face: each row a value compared (the higher one stands out), then the notes that make
    the rate, then each outcome's chance as a bar."""
    normal, big, bold = font(18, language), font(24, language), font(22, language)
    sketch = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    written = [line for note in notes for line in wrapped(sketch, note, normal, WIDTH - 2 * MARGIN)]
    top_of_chances = 104 + 36 * len(rows) + 8 + 28 * len(written) + 8
    bars = chance_rows(sketch, chances, normal, top_of_chances)
    height = top_of_chances + chance_rows_height(bars, top_of_chances) + MARGIN
    image = Image.new("RGB", (WIDTH, int(min(height, TALLEST))), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 16), one_line(draw, title, big, WIDTH - 2 * MARGIN), font=big, fill=INK)
    middle = WIDTH // 2
    draw.text((middle - 80, 60), plain(sides[0]), font=bold, fill=BAND, anchor="ra")
    draw.text((middle + 80, 60), plain(sides[1]), font=bold, fill=BAND, anchor="la")
    top = 104
    for label, left, right in rows:
        draw.text((middle, top), plain(label), font=normal, fill=FAINT, anchor="ma")
        draw.text(
            (middle - 80, top),
            str(left),
            font=bold if left > right else normal,
            fill=BAR_FILL if left > right else INK,
            anchor="ra",
        )
        draw.text(
            (middle + 80, top),
            str(right),
            font=bold if right > left else normal,
            fill=BAR_FILL if right > left else INK,
            anchor="la",
        )
        top += 36
    top += 8
    for line in written:
        draw.text((MARGIN, top), line, font=normal, fill=INK)
        top += 28
    draw_chances(draw, bars, normal)
    return png(image)
