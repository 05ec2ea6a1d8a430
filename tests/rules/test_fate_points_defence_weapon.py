"""The weapon a block or parry is made with, when the defender's side asks the rules for the best (T3, T7)."""

from __future__ import annotations

import pytest

from rules.fate_points import best_defence_weapon
from tests.rules.test_fate_points_support import DEFAULTS, master, servant


@pytest.mark.parametrize(
    ("choice", "best"),
    # T3: a shield blocks at -3 and parries at -1, a sword the other way round; roll-under, so lower is better.
    [("block", "shield"), ("parry_agi", "sword"), ("parry_luk", "sword")],
)
def test_the_best_weapon_has_the_lowest_defence_modifiers(choice: str, best: str) -> None:
    for knight in (servant("Saber", "sword", "shield"), servant("Saber", "shield", "sword")):
        assert best_defence_weapon(servant("Lancer", "lance"), knight, "melee", choice, DEFAULTS) == best


def test_among_equals_the_first_weapon_is_kept() -> None:
    # Masters ignore weapon modifiers (R11, A38): every weapon is as good as the first.
    assert best_defence_weapon(servant("Lancer", "lance"), master("dagger", "sword"), "melee", "block",
                               DEFAULTS) == "dagger"  # fmt: skip
    assert best_defence_weapon(servant("Lancer", "lance"), master(), "melee", "block", DEFAULTS) is None
