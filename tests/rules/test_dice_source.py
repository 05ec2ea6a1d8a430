"""The dice sources behind the `DiceSource` protocol."""

import threading

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


def test_system_dice_are_fair_across_many_blocks_of_random_words() -> None:
    dice = SystemDice()
    faces = [face for _ in range(120) for face in dice.roll(500, 6)]

    assert len(faces) == 60_000
    expected = len(faces) / 6
    chi_square = sum((faces.count(face) - expected) ** 2 / expected for face in range(1, 7))
    # 5 degrees of freedom: 25.7 is exceeded by chance once in ten thousand runs.
    assert chi_square < 25.7


def test_system_dice_never_hand_out_a_random_word_twice_even_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = iter(range(1_000))

    def numbered_words(size: int) -> bytes:
        # Every block holds distinct consecutive words, so a face seen twice would be a word used twice.
        first = next(blocks) * (size // 4)
        return b"".join((first + offset).to_bytes(4, "little") for offset in range(size // 4))

    monkeypatch.setattr("rules.dice.source.os.urandom", numbered_words)
    dice = SystemDice()
    results: list[list[int]] = []

    def roll_many() -> None:
        results.append([face for _ in range(300) for face in dice.roll(7, 2**32)])

    workers = [threading.Thread(target=roll_many) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    faces = [face for result in results for face in result]
    assert len(faces) == 4 * 300 * 7
    assert len(set(faces)) == len(faces)
