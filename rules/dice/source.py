"""Where dice faces come from: the one seam between the engine and randomness."""

import os
import random
import secrets
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Protocol


class DiceSource(Protocol):
    def roll(self, count: int, sides: int) -> list[int]: ...  # count dice of `sides` faces, each 1..sides


_WORD_BYTES = 4
_WORD_RANGE = 1 << (8 * _WORD_BYTES)
# 1024 words: enough for two 500-die rolls per refill, small enough to refill in ~20 µs.
_BUFFER_WORDS = 1024


class SystemDice:
    """Production source backed by the operating system's CSPRNG, so players cannot predict rolls.

    Random words are read from the OS in blocks and handed out in order, so an everyday roll costs no system
    call; the block never leaves this object. Words at or above a multiple of the number of sides are
    rejected, so every face stays exactly equally likely.
    """

    def __init__(self) -> None:
        self._words: Iterator[int] = iter(())

    def roll(self, count: int, sides: int) -> list[int]:
        if sides > _WORD_RANGE:
            return [1 + secrets.randbelow(sides) for _ in range(count)]
        unbiased_limit = _WORD_RANGE - _WORD_RANGE % sides
        faces: list[int] = []
        while True:
            missing = count - len(faces)
            # Each word leaves the shared iterator once (next() on it holds the GIL), so even callers on
            # different threads never get the same word, and no lock is needed.
            words = list(islice(self._words, missing))
            faces += [1 + word % sides for word in words if word < unbiased_limit]
            if len(faces) == count:
                return faces
            if len(words) < missing:
                self._words = iter(memoryview(os.urandom(_WORD_BYTES * _BUFFER_WORDS)).cast("I"))


class SeededDice:
    """Reproducible source for simulations, replays and property tests."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, count: int, sides: int) -> list[int]:
        return [1 + self._random.randrange(sides) for _ in range(count)]


class FixedDiceError(AssertionError):
    """A test scripted the wrong faces; deliberately not a DiceError so it cannot pass as a user error."""


class FixedDice:
    """Test double handing out scripted faces in order, in the engine's roll order."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._values) - self._next

    def roll(self, count: int, sides: int) -> list[int]:
        if count > self.remaining:
            raise FixedDiceError(
                f"FixedDice exhausted: asked for {count} d{sides}, only {self.remaining} value(s) left "
                f"after handing out {self._next}"
            )
        faces = self._values[self._next : self._next + count]
        for offset, face in enumerate(faces):
            if not 1 <= face <= sides:
                raise FixedDiceError(
                    f"FixedDice value #{self._next + offset} is {face}, outside 1..{sides} for a d{sides}"
                )
        self._next += count
        return faces
