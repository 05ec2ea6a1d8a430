"""The parsed form of a dice expression: validated, immutable, and not yet rolled."""

from dataclasses import dataclass, field
from typing import Literal

ComparisonOperator = Literal["=", ">", ">=", "<", "<="]
SelectionMode = Literal["kh", "kl", "dh", "dl"]
BinaryOperator = Literal["+", "-", "*"]


@dataclass(frozen=True)
class Comparison:
    operator: ComparisonOperator
    target: int

    def face_range(self, sides: int) -> range:
        """The faces of a `sides`-sided die this comparison matches (possibly empty)."""
        if self.operator == "=":
            low, high = self.target, self.target
        elif self.operator == ">":
            low, high = self.target + 1, sides
        elif self.operator == ">=":
            low, high = self.target, sides
        elif self.operator == "<":
            low, high = 1, self.target - 1
        else:
            low, high = 1, self.target
        return range(max(low, 1), min(high, sides) + 1)

    def notation(self, *, bare_equality: bool) -> str:
        if bare_equality and self.operator == "=":
            return str(self.target)
        return f"{self.operator}{self.target}"


@dataclass(frozen=True)
class Reroll:
    comparison: Comparison
    once: bool

    def notation(self) -> str:
        return ("ro" if self.once else "r") + self.comparison.notation(bare_equality=True)


@dataclass(frozen=True)
class Selection:
    mode: SelectionMode
    count: int

    def notation(self) -> str:
        return f"{self.mode}{self.count}"


@dataclass(frozen=True)
class DiceNode:
    count: int
    sides: int
    percentile: bool
    reroll: Reroll | None
    explode: Comparison | None
    selection: Selection | None
    success: Comparison | None
    # Where the term was written, for error messages; two terms differing only here are the same term.
    position: int = field(compare=False)
    # Worked out once when parsed, since a parsed roll is cached and rolled many times: the canonical notation,
    # and the faces each modifier applies to, as ranges so that a membership test is one C-level comparison.
    written: str = field(init=False, compare=False, repr=False)
    reroll_faces: range | None = field(init=False, compare=False, repr=False)
    explode_faces: range | None = field(init=False, compare=False, repr=False)
    success_faces: range | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # The dataclass is frozen; these derived fields are set once, here, and never again.
        object.__setattr__(self, "written", self._notation())
        reroll = None if self.reroll is None else self.reroll.comparison
        derived = (("reroll_faces", reroll), ("explode_faces", self.explode), ("success_faces", self.success))
        for name, comparison in derived:
            object.__setattr__(self, name, None if comparison is None else comparison.face_range(self.sides))

    def notation(self) -> str:
        return self.written

    def _notation(self) -> str:
        parts = [f"{self.count}d{'%' if self.percentile else self.sides}"]
        if self.reroll is not None:
            parts.append(self.reroll.notation())
        if self.explode is not None:
            on_max = self.explode == Comparison("=", self.sides)
            parts.append("!" if on_max else "!" + self.explode.notation(bare_equality=True))
        if self.selection is not None:
            parts.append(self.selection.notation())
        if self.success is not None:
            # `!>=8` would read back as an explosion threshold; the space keeps the success target separate.
            separator = " " if parts[-1] == "!" else ""
            parts.append(separator + self.success.notation(bare_equality=False))
        return "".join(parts)


@dataclass(frozen=True)
class NumberNode:
    value: int

    def notation(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class GroupNode:
    inner: "ExpressionNode"

    def notation(self) -> str:
        return f"({self.inner.notation()})"


@dataclass(frozen=True)
class NegationNode:
    operand: "ExpressionNode"

    def notation(self) -> str:
        return f"-{self.operand.notation()}"


@dataclass(frozen=True)
class BinaryNode:
    operator: BinaryOperator
    left: "ExpressionNode"
    right: "ExpressionNode"

    def notation(self) -> str:
        return f"{self.left.notation()}{self.operator}{self.right.notation()}"


ExpressionNode = DiceNode | NumberNode | GroupNode | NegationNode | BinaryNode
