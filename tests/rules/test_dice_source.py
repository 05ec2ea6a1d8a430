"""The dice sources behind the `DiceSource` protocol."""

import pytest

from rules.dice import DiceSource, FixedDice, FixedDiceError, SeededDice, SystemDice


@pytest.mark.parametrize("source", [SystemDice(), SeededDice(7)])
def test_faces_lie_within_the_die(source: DiceSource) -> None:
    faces = source.roll(200, 6)

    assert len(faces) == 200
    assert set(faces) == {1, 2, 3, 4, 5, 6}


def test_seeded_dice_repeat() -> None:
    assert SeededDice(42).roll(20, 20) == SeededDice(42).roll(20, 20)
    assert SeededDice(42).roll(20, 20) != SeededDice(43).roll(20, 20)


def test_fixed_dice_hand_out_values_in_order() -> None:
    dice = FixedDice([3, 1, 4])

    assert dice.roll(2, 6) == [3, 1]
    assert dice.roll(1, 4) == [4]
    assert dice.remaining == 0


def test_fixed_dice_exhausted() -> None:
    dice = FixedDice([3])

    with pytest.raises(FixedDiceError, match="exhausted"):
        dice.roll(2, 6)


@pytest.mark.parametrize("face", [0, 7])
def test_fixed_dice_refuse_impossible_faces(face: int) -> None:
    with pytest.raises(FixedDiceError, match=r"outside 1\.\.6"):
        FixedDice([face]).roll(1, 6)


def test_system_dice_edge_sizes() -> None:
    dice = SystemDice()

    assert dice.roll(3, 1) == [1, 1, 1]
    assert dice.roll(0, 6) == []
    assert all(1 <= face <= 2**40 for face in dice.roll(20, 2**40))
    assert all(1 <= face <= 2**32 for face in dice.roll(20, 2**32))
