"""Where dice faces come from: the one seam between the engine and randomness."""

import random
import secrets
import struct
from collections.abc import Iterable
from typing import Protocol


class DiceSource(Protocol):
    def roll(self, count: int, sides: int) -> list[int]: ...  # count dice of `sides` faces, each 1..sides


_WORD_BYTES = 4
_WORD_RANGE = 1 << (8 * _WORD_BYTES)


class SystemDice:
    """Production source backed by the operating system's CSPRNG, so players cannot predict rolls."""

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def roll(self, count: int, sides: int) -> list[int]:
        if sides > _WORD_RANGE:
            return [1 + self._random.randrange(sides) for _ in range(count)]
        # One system call per batch instead of one per die makes a 500-die roll ~10x faster.
        # Words at or above `unbiased_limit` are rejected, so every face stays exactly equally likely.
        unbiased_limit = _WORD_RANGE - _WORD_RANGE % sides
        faces: list[int] = []
        while len(faces) < count:
            missing = count - len(faces)
            words = struct.unpack(f"<{missing}I", self._random.randbytes(_WORD_BYTES * missing))
            faces.extend(1 + word % sides for word in words if word < unbiased_limit)
        return faces


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
