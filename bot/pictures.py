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


def png(image: Image.Image) -> bytes:
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
    return png(image)


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
    return png(image)
