"""The parsed form of a dice expression: validated, immutable, and not yet rolled."""

from dataclasses import dataclass, field
from typing import Literal

ComparisonOperator = Literal["=", ">", ">=", "<", "<="]
SelectionMode = Literal["kh", "kl", "dh", "dl"]
BinaryOperator = Literal["+", "-", "*", "/", "//"]
# How a D66 orders its two dice: as rolled (`` and `n`), ascending (`a`, `s`) or descending (`d`), as in BCDice.
D66Order = Literal["", "a", "s", "d", "n"]

_SIGNS: dict[ComparisonOperator, str] = {"=": "=", ">": ">", ">=": "≥", "<": "<", "<=": "≤"}


@dataclass(frozen=True)
class Comparison:
    operator: ComparisonOperator
    target: int

    def face_range(self, highest: int, lowest: int = 1) -> range:
        """The faces from `lowest` to `highest` this comparison matches (possibly empty)."""
        if self.operator == "=":
            low, high = self.target, self.target
        elif self.operator == ">":
            low, high = self.target + 1, highest
        elif self.operator == ">=":
            low, high = self.target, highest
        elif self.operator == "<":
            low, high = lowest, self.target - 1
        else:
            low, high = lowest, self.target
        return range(max(low, lowest), min(high, highest) + 1)

    def holds(self, value: int) -> bool:
        operator, target = self.operator, self.target
        if operator == ">=":
            return value >= target
        if operator == "<=":
            return value <= target
        if operator == ">":
            return value > target
        if operator == "<":
            return value < target
        return value == target

    def notation(self, *, bare_equality: bool) -> str:
        if bare_equality and self.operator == "=":
            return str(self.target)
        return f"{self.operator}{self.target}"

    def sign(self) -> str:
        """The comparison as people write it (`≥ 7`), in every language."""
        return f"{_SIGNS[self.operator]} {self.target}"


@dataclass(frozen=True)
class Reroll:
    comparison: Comparison
    once: bool

    def notation(self) -> str:
        return ("ro" if self.once else "r") + self.comparison.notation(bare_equality=True)


@dataclass(frozen=True)
class Explode:
    """A matching face adds a die; `once`: only the first matching die adds one (d20's `ra`, reroll and add)."""

    comparison: Comparison
    once: bool

    def notation(self, sides: int) -> str:
        if self.once:
            return "ra" + self.comparison.notation(bare_equality=True)
        if self.comparison == Comparison("=", sides):
            return "!"
        return "!" + self.comparison.notation(bare_equality=True)


@dataclass(frozen=True)
class Selection:
    """Keep or drop the highest or lowest `count` dice (or elements of a set)."""

    mode: SelectionMode
    count: int

    def notation(self) -> str:
        return f"{self.mode}{self.count}"


@dataclass(frozen=True)
class FaceSelection:
    """Keep (`k>3`) or drop (`p1`) the dice, or elements of a set, whose value matches."""

    keep: bool
    comparison: Comparison

    def notation(self) -> str:
        # Always with its operator: a bare `k3` reads as "keep the highest three" in most dialects.
        return ("k" if self.keep else "p") + self.comparison.notation(bare_equality=False)


Pick = Selection | FaceSelection


@dataclass(frozen=True)
class DiceNode:
    count: int
    sides: int
    percentile: bool
    reroll: Reroll | None
    explode: Explode | None
    selection: Pick | None
    success: Comparison | None
    # Where the term was written, for error messages; two terms differing only here are the same term.
    position: int = field(compare=False)
    # The lowest and highest face a die may show once rolled (d20's `mi` and `ma`).
    minimum: int | None = None
    maximum: int | None = None
    # Written as BCDice's bulk roll (`3b6`): the same dice, named as the player named them.
    bulk: bool = False
    # Worked out once when parsed, since a parsed roll is cached and rolled many times: the canonical notation,
    # the faces each modifier applies to, as ranges so that a membership test is one C-level comparison, and
    # whether the term is a plain sum or has waves of rerolls and explosions.
    written: str = field(init=False, compare=False, repr=False)
    reroll_faces: range | None = field(init=False, compare=False, repr=False)
    explode_faces: range | None = field(init=False, compare=False, repr=False)
    success_faces: range | None = field(init=False, compare=False, repr=False)
    plain: bool = field(init=False, compare=False, repr=False)
    waves: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # The dataclass is frozen; these derived fields are set once, here, and never again.
        define = object.__setattr__
        define(self, "written", self._notation())
        # Rerolls and explosions look at the face rolled; counting looks at the face once bounded.
        define(self, "reroll_faces", None if self.reroll is None else self.reroll.comparison.face_range(self.sides))
        define(self, "explode_faces", None if self.explode is None else self.explode.comparison.face_range(self.sides))
        define(self, "success_faces", None if self.success is None else self.success.face_range(*self.face_bounds()))
        waves = self.reroll is not None or self.explode is not None
        define(self, "waves", waves)
        bounded = self.minimum is not None or self.maximum is not None
        define(self, "plain", not (waves or bounded or self.selection is not None or self.success is not None))

    def face_bounds(self) -> tuple[int, int]:
        """The highest and lowest face a die may show once rolled."""
        lowest, highest = 1, self.sides
        if self.minimum is not None:
            lowest, highest = max(lowest, self.minimum), max(highest, self.minimum)
        if self.maximum is not None:
            lowest, highest = min(lowest, self.maximum), min(highest, self.maximum)
        return highest, lowest

    def notation(self) -> str:
        return self.written

    def _notation(self) -> str:
        parts = [f"{self.count}{'b' if self.bulk else 'd'}{'%' if self.percentile else self.sides}"]
        if self.reroll is not None:
            parts.append(self.reroll.notation())
        if self.explode is not None:
            parts.append(self.explode.notation(self.sides))
        if self.minimum is not None:
            parts.append(f"mi{self.minimum}")
        if self.maximum is not None:
            parts.append(f"ma{self.maximum}")
        if self.selection is not None:
            parts.append(self.selection.notation())
        if self.success is not None:
            # `!>=8` would read back as an explosion threshold; the space keeps the success target separate.
            separator = " " if parts[-1] == "!" else ""
            parts.append(separator + self.success.notation(bare_equality=False))
        return "".join(parts)


@dataclass(frozen=True)
class D66Node:
    """Two d6 read as tens and ones (`d66` = 11..66), as BCDice and Traveller-like games roll them."""

    order: D66Order

    def notation(self) -> str:
        return f"d66{self.order}"


@dataclass(frozen=True)
class NumberNode:
    value: int

    def notation(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class GroupNode:
    """Parentheses; with a keep or drop after them, it applies to the dice or set inside (d20's nested keeps,
    `((10d6kh5)kl2)kh1`), or to the one value inside as a set of one (`(1d20+5)kh1`)."""

    inner: "ExpressionNode"
    selection: Pick | None = None

    def notation(self) -> str:
        picked = "" if self.selection is None else self.selection.notation()
        return f"({self.inner.notation()}){picked}"


@dataclass(frozen=True)
class SetNode:
    """d20's set `(1d4, 2+2, 3d6kl1)kh1`: its elements' values, kept or dropped as a whole, then summed."""

    elements: tuple["ExpressionNode", ...]
    selection: Pick | None

    def notation(self) -> str:
        # A set of one is written with its comma (`(1,)`), or it would read back as parentheses.
        listed = ",".join(element.notation() for element in self.elements) + ("," if len(self.elements) == 1 else "")
        picked = "" if self.selection is None else self.selection.notation()
        return f"({listed}){picked}"


@dataclass(frozen=True)
class AnnotationNode:
    """d20's `9[fire]`: words beside a term, shown with it, changing nothing."""

    inner: "ExpressionNode"
    note: str

    def notation(self) -> str:
        return f"{self.inner.notation()}[{self.note}]"


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
    # Where the right operand was written: a divisor that may be zero is refused there.
    position: int = field(default=0, compare=False)

    def notation(self) -> str:
        return f"{self.left.notation()}{self.operator}{self.right.notation()}"


ExpressionNode = DiceNode | NumberNode | GroupNode | NegationNode | BinaryNode | SetNode | D66Node | AnnotationNode
