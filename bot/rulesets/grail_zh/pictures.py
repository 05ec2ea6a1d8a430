"""The map `/grail where` shows beside its list: each group of nearby characters on its own grid of sectors."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw

from bot.pictures import BAR_BACK, BAR_LOW, FAINT, INK, LINE, MARGIN, PAPER, WIDTH, font, plain, png

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
            for near in itertools.product(
                range(column - MAP_NEAR, column + MAP_NEAR + 1), range(row - MAP_NEAR, row + MAP_NEAR + 1)
            ):
                if near in at and near not in grouped:
                    grouped.add(near)
                    waiting.append(near)
        groups.append(group)
    return groups


def _map_panel(
    draw: ImageDraw.ImageDraw, points: Sequence[Placed], sector: int, frame: tuple[int, int, int], language: str
) -> None:
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
            draw.text(
                (left + column * step * sector * scale + 6, top + row * step * sector * scale + 4),
                label,
                font=small,
                fill=FAINT,
            )
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
        while any(
            box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3] for other in taken
        ):
            box = (box[0], box[3] + 2, box[2], box[3] + 2 + (box[3] - box[1]))
        if box[3] > top + size:  # no room left under the others: the dot stands alone, the text names it
            continue
        taken.append(box)
        draw.text((box[0], box[1]), shown, font=normal, fill=INK)


def grid_map(title: str, points: Sequence[Placed], sector: int, language: str, *, more: Callable[[int], str]) -> bytes:
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
        _map_panel(
            draw, group, sector, (MARGIN + column * (size + MARGIN), MAP_TOP + row * (size + MARGIN), size), language
        )
    if left_out > 0:
        draw.text((MARGIN, bottom + 8), plain(more(left_out)), font=font(16, language), fill=FAINT)
    return png(image)
