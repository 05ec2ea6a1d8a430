"""The map `/grail where` shows beside its list: each group of nearby characters on its own grid of sectors."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence

from PIL import Image, ImageDraw

from bot.pictures import BAR_BACK, BAR_LOW, FAINT, INK, LINE, MARGIN, PAPER, WIDTH, Box, font, overlaps, plain, png

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
# A dot's radius; dots closer than `MAP_APART` are moved apart, none further than `MAP_REACH` from its square
# (a faint line leads back to it), in at most `SPREAD_ROUNDS` rounds of pushes.
DOT = 6
MAP_APART = 4 * DOT
MAP_REACH = 40
SPREAD_ROUNDS = 40
# How many rings of places around its dot a name is tried in, each a line's height further out (a faint line ties
# a name set beyond the first ring to its dot).
LABEL_RINGS = 5
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
    coordinates: list[Box] = []
    for column in range(cells):
        for row in range(cells):
            label = f"({low_x + column * step}, {low_y + row * step})"
            at = (left + column * step * sector * scale + 6, top + row * step * sector * scale + 4)
            draw.text(at, label, font=small, fill=FAINT)
            coordinates.append(draw.textbbox(at, label, font=small))
    true = [(left + (x - low_x * sector + 0.5) * scale, top + (y - low_y * sector + 0.5) * scale) for _, x, y in points]
    dots = spread(true, MAP_APART, MAP_REACH, (left + DOT, top + DOT, left + size - DOT, top + size - DOT))
    for (true_x, true_y), (at_x, at_y) in zip(true, dots, strict=True):
        if math.dist((true_x, true_y), (at_x, at_y)) > DOT:  # a dot moved off its square points back to it
            draw.line((true_x, true_y, at_x, at_y), fill=FAINT, width=1)
    for at_x, at_y in dots:
        draw.ellipse((at_x - DOT, at_y - DOT, at_x + DOT, at_y + DOT), fill=BAR_LOW)
    names = [plain(name) for name, _, _ in points]
    inks = [draw.textbbox((0, 0), name, font=normal) for name in names]
    places = label_places(inks, dots, (left, top, left + size, top + size), coordinates)
    for name, ink, place, dot in zip(names, inks, places, dots, strict=True):
        if place is None:  # no room left around it: the dot stands alone, the text beside the map names it
            continue
        near = _nearest(place, dot)
        if math.dist(near, dot) > DOT + 6:  # a name set further out is tied to its dot
            draw.line((*dot, *near), fill=FAINT, width=1)
        draw.text((place[0] - ink[0], place[1] - ink[1]), name, font=normal, fill=INK)


def spread(points: Sequence[tuple[float, float]], apart: float, reach: float, bounds: Box) -> list[tuple[float, float]]:
    """The points moved apart until no two are closer than `apart` (as far as they can be), none further than
    `reach` from where it was nor out of `bounds`: a few rounds of pushing each close pair away from each other
    (points on the same spot part in directions of their own, by their order)."""
    moved = list(points)
    for _ in range(SPREAD_ROUNDS):
        pushed = False
        for one, other in itertools.combinations(range(len(moved)), 2):
            (x1, y1), (x2, y2) = moved[one], moved[other]
            distance = math.dist((x1, y1), (x2, y2))
            if distance >= apart:
                continue
            pushed = True
            if distance < 1e-6:
                angle = 2 * math.pi * other / len(moved)
                dx, dy = math.cos(angle), math.sin(angle)
            else:
                dx, dy = (x2 - x1) / distance, (y2 - y1) / distance
            push = (apart - distance) / 2 + 0.5
            moved[one] = _held((x1 - dx * push, y1 - dy * push), points[one], reach, bounds)
            moved[other] = _held((x2 + dx * push, y2 + dy * push), points[other], reach, bounds)
        if not pushed:
            break
    return moved


def _held(point: tuple[float, float], home: tuple[float, float], reach: float, bounds: Box) -> tuple[float, float]:
    """The point, brought back within `reach` of `home` and within `bounds`."""
    distance = math.dist(point, home)
    x, y = point
    if distance > reach:
        x, y = home[0] + (x - home[0]) * reach / distance, home[1] + (y - home[1]) * reach / distance
    return min(max(x, bounds[0]), bounds[2]), min(max(y, bounds[1]), bounds[3])


def label_places(
    labels: Sequence[Box], dots: Sequence[tuple[float, float]], bounds: Box, faint: Sequence[Box] = ()
) -> list[Box | None]:
    """Where each label (the box its ink covers when drawn from (0, 0)) goes beside its dot: the first of the
    places around the dot, nearest first, where it stays in `bounds` and covers no dot and no label placed before
    it, and, where one is left, none of the `faint` boxes either; None where there is no such place."""
    covered: list[Box] = [(x - DOT - 2, y - DOT - 2, x + DOT + 2, y + DOT + 2) for x, y in dots]
    places: list[Box | None] = []
    for ink, dot in zip(labels, dots, strict=True):
        place = next(
            (
                box
                for avoided in (faint, ())
                for box in _places_around(dot, ink[2] - ink[0], ink[3] - ink[1])
                if _inside(box, bounds) and not any(overlaps(box, other) for other in (*covered, *avoided))
            ),
            None,
        )
        if place is not None:
            covered.append(place)
        places.append(place)
    return places


def _places_around(dot: tuple[float, float], width: float, height: float) -> Iterator[Box]:
    """Boxes of the label's size around the dot: right, left, above, below, then the corners, ring after ring."""
    x, y = dot
    for ring in range(LABEL_RINGS):
        gap = DOT + 3 + ring * (height + 2)
        for left, top in (
            (x + gap, y - height / 2),
            (x - gap - width, y - height / 2),
            (x - width / 2, y - gap - height),
            (x - width / 2, y + gap),
            (x + gap, y - gap - height),
            (x + gap, y + gap),
            (x - gap - width, y - gap - height),
            (x - gap - width, y + gap),
        ):
            yield left, top, left + width, top + height


def _inside(box: Box, bounds: Box) -> bool:
    return bounds[0] <= box[0] and box[2] <= bounds[2] and bounds[1] <= box[1] and box[3] <= bounds[3]


def _nearest(box: Box, point: tuple[float, float]) -> tuple[float, float]:
    """The point of the box nearest to `point`."""
    return min(max(point[0], box[0]), box[2]), min(max(point[1], box[1]), box[3])


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
