"""Exact chances, by enumeration of every face: Luck's d20 (R1) and an attack's hit, Mind's Eye included (R19)."""

from __future__ import annotations

from fractions import Fraction

from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import Auto, luck_d20

Outcomes = dict[tuple[int, Auto], Fraction]


class _Face:
    """A dice source that hands out one chosen face, then a second, for enumerating a d20 with a reroll."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def roll(self, count: int, sides: int) -> list[int]:
        return [self.faces.pop(0) for _ in range(count)]


def d20_outcomes(luck: Rank | None, *, optional_rerolls: bool = True) -> Outcomes:
    """Each final face with Luck's verdict and its chance: forced rerolls repeat until a face stands (so those faces
    never stand), an optional reroll is taken once (D35). Played through `luck_d20` itself, so the odds are the
    rolls'."""
    forced = {1: (19, 20), 2: (20,)}.get(luck.n, ()) if luck is not None else ()
    standing = [face for face in range(1, 21) if face not in forced]
    chance = Fraction(1, len(standing))
    found: Outcomes = {}
    for first in standing:
        needs_second = luck_d20(_Face((first, 1)), luck, optional_rerolls=optional_rerolls).faces != (first,)
        seconds = standing if needs_second else [None]
        for second in seconds:
            faces = (first,) if second is None else (first, second)
            d20 = luck_d20(_Face(faces), luck, optional_rerolls=optional_rerolls)
            share = chance if second is None else chance * Fraction(1, len(standing))
            key = (d20.final, d20.auto)
            found[key] = found.get(key, Fraction(0)) + share
    return found


def hit_chance(
    attack: Outcomes,
    bonus: int,
    defense: int,
    *,
    stance: bool = False,
    eye: Outcomes | None = None,
    eye_bonus: int = 0,
    eye_against_final: bool = False,
) -> Fraction:
    """R3: Luck's verdict, else d20 + `bonus` - `defense` at least 10; the Defend stance hits always. With `eye`
    (the defender's Mind's Eye d20 and its X - 3), a hit that Luck did not force is evaded by a roll strictly above
    the attack roll before the defence (D14), or above the final total."""
    total = Fraction(0)
    for (face, auto), chance in attack.items():
        final = face + bonus - defense
        hits = stance or auto == "success" or (auto is None and final >= 10)
        if not hits:
            continue
        if eye is None or stance or auto == "success":
            total += chance
            continue
        compared = final if eye_against_final else face + bonus
        evaded = sum((p for (eye_face, _), p in eye.items() if eye_face + eye_bonus > compared), Fraction(0))
        total += chance * (1 - evaded)
    return total
