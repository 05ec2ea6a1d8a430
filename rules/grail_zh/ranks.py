"""Ranks (§2.1): E..A, over-A (A+X) and EX, with the "+" a Servant allocates to a stat, skill or Noble Phantasm.

A rank is written `C`, `A+2` (over A by two), `EX`, and `B+` or `A++` for a rank carrying one or two "+"
(R17). Arithmetic works on `value = n + x`; after every adjustment a value of 0 or less is E (D4) and one above
5 is A+(value - 5). EX stays EX (D6).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LETTERS = "EDCBA"
MAX_PLUSES = 3  # 「每个英灵最多拥有3个“+”」
MAX_OVER = 20  # far above anything the rules produce, so that a typo is refused rather than stored
_RANK = re.compile(r"^(EX|[A-E])(?:\+(\d{1,2}))?(\+{0,3})$")


class RankError(ValueError):
    """Text that is not a rank."""


@dataclass(frozen=True, order=True)
class Rank:
    n: int  # 1 (E) .. 5 (A)
    x: int = 0  # over A (only with n = 5)
    ex: bool = False
    pluses: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 5 or self.x < 0 or (self.x and self.n != 5) or not 0 <= self.pluses <= MAX_PLUSES:
            raise RankError(f"not a rank: n={self.n} x={self.x}")

    @classmethod
    def parse(cls, text: str) -> Rank:
        match = _RANK.match(text.strip().upper().replace("＋", "+"))
        if match is None:
            raise RankError(text)
        letter, over, pluses = match.groups()
        if letter == "EX":
            if over:
                raise RankError(text)
            return cls.of_ex(len(pluses))
        if over and (letter != "A" or int(over) == 0 or int(over) > MAX_OVER):
            raise RankError(text)
        return cls(LETTERS.index(letter) + 1, int(over or 0), pluses=len(pluses))

    @classmethod
    def of_ex(cls, pluses: int = 0) -> Rank:
        # For formulas an EX stat behaves as A+1 (D6).
        return cls(5, 1, ex=True, pluses=pluses)

    @classmethod
    def from_value(cls, value: int) -> Rank:
        """The rank of an adjusted value: E at 0 or below (D4), A+(value-5) above 5."""
        if value <= 1:
            return cls(1)
        if value >= 5:
            return cls(5, value - 5)
        return cls(value)

    @property
    def value(self) -> int:
        return self.n + self.x

    @property
    def letter(self) -> str:
        return "EX" if self.ex else LETTERS[self.n - 1]

    def shifted(self, delta: int) -> Rank:
        """Raised or lowered by `delta` ranks; EX is not changed by adjustments (D6)."""
        if self.ex or delta == 0:
            return self
        shifted = Rank.from_value(self.value + delta)
        return Rank(shifted.n, shifted.x, pluses=self.pluses)

    def magnitude(self, ex_value: int) -> int:
        """The one number of a skill or an NP, E..A = 1..5, A+X = 5+X (D9), EX = `ex_value` (D6)."""
        return ex_value if self.ex else self.value

    @property
    def mystery(self) -> int:
        """Mystery: E1..A5 whatever X is (「无论X为多少，这项能力的级别仍然是A」), EX above all; "+" never counts."""
        return 6 if self.ex else self.n

    def without_pluses(self) -> Rank:
        return Rank(self.n, self.x, self.ex)

    def __str__(self) -> str:
        over = f"+{self.x}" if self.x and not self.ex else ""
        return f"{self.letter}{over}{'+' * self.pluses}"


def daily_cost(rank: Rank) -> int:
    """T9: EX 4, A 2 (+X over A), B 1, C and below nothing."""
    if rank.ex:
        return 4
    return {5: 2 + rank.x, 4: 1}.get(rank.n, 0)


def combat_cost(rank: Rank) -> int:
    """T9: E..A 1..5, A+X 5+X, EX 10."""
    return 10 if rank.ex else rank.value


def release_base(rank: Rank) -> int:
    """T9: E..A 1..5, EX 10; over A changes nothing (D9)."""
    return 10 if rank.ex else rank.n
