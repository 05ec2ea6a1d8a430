"""Immutable, auditable roll results mirroring the expression tree.

The records are named tuples rather than frozen dataclasses: just as immutable, and built about three times
faster, which matters because a roll creates one per die.
"""

from typing import NamedTuple

from rules.dice.dialects import DEFAULT_DIALECT
from rules.dice.syntax import BinaryOperator, Comparison

JsonValue = int | str | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class Die(NamedTuple):
    """One physical die, in the order it was rolled.

    A die is either kept, dropped by keep/drop, or rerolled away (then `kept` is False and `rerolled` is True).
    `exploded` means it added a die (an explosion, or d20's reroll and add). `rolled` is the face it showed when
    a minimum or maximum (`mi`, `ma`) changed it into `face`.
    """

    face: int
    kept: bool
    exploded: bool
    rerolled: bool
    success: bool
    rolled: int | None = None

    def to_dict(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {
            "face": self.face,
            "kept": self.kept,
            "exploded": self.exploded,
            "rerolled": self.rerolled,
            "success": self.success,
        }
        if self.rolled is not None:
            data["rolled"] = self.rolled
        return data


class DiceResult(NamedTuple):
    notation: str
    sides: int
    dice: tuple[Die, ...]
    value: int
    counts_successes: bool

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "dice",
            "notation": self.notation,
            "sides": self.sides,
            "dice": [die.to_dict() for die in self.dice],
            "value": self.value,
            "counts_successes": self.counts_successes,
        }


class NumberResult(NamedTuple):
    value: int

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "number", "value": self.value}


class D66Result(NamedTuple):
    """The two dice as rolled; `value` reads them as tens and ones, ordered as `notation` says."""

    notation: str
    dice: tuple[Die, ...]
    value: int

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "d66",
            "notation": self.notation,
            "dice": [die.to_dict() for die in self.dice],
            "value": self.value,
        }


class GroupResult(NamedTuple):
    inner: "ResultNode"
    value: int
    # The keep or drop written after the parentheses, applied to the dice or set inside.
    selection: str = ""

    def to_dict(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"type": "group", "inner": self.inner.to_dict(), "value": self.value}
        if self.selection:
            data["selection"] = self.selection
        return data


class SetResult(NamedTuple):
    """A set's elements, each kept or dropped whole; a single value under a keep (`(1d20+5)kh1`) is a set of one
    written without its comma."""

    elements: tuple["ResultNode", ...]
    kept: tuple[bool, ...]
    selection: str
    value: int
    comma: bool

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "set",
            "elements": [element.to_dict() for element in self.elements],
            "kept": list(self.kept),
            "selection": self.selection,
            "value": self.value,
        }


class AnnotationResult(NamedTuple):
    inner: "ResultNode"
    note: str
    value: int

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "annotation", "inner": self.inner.to_dict(), "note": self.note, "value": self.value}


class NegationResult(NamedTuple):
    operand: "ResultNode"
    value: int

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "negation", "operand": self.operand.to_dict(), "value": self.value}


class BinaryResult(NamedTuple):
    operator: BinaryOperator
    left: "ResultNode"
    right: "ResultNode"
    value: int

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "binary",
            "operator": self.operator,
            "left": self.left.to_dict(),
            "right": self.right.to_dict(),
            "value": self.value,
        }


ResultNode = (
    DiceResult | NumberResult | GroupResult | NegationResult | BinaryResult | SetResult | D66Result | AnnotationResult
)


class ExpressionRoll(NamedTuple):
    """One evaluation of the expression; a repeated roll has several. `met`: whether it met the roll's target."""

    tree: ResultNode
    total: int
    met: bool | None = None

    def to_dict(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"total": self.total, "tree": self.tree.to_dict()}
        if self.met is not None:
            data["met"] = self.met
        return data


class RollResult(NamedTuple):
    """The outcome of a whole roll request.

    `total` is the single roll's total, or for `N#...` the sum of the repeats' totals; for a repeated target roll
    (`3#2d6>=7`), how many repeats met the target. `dice_rolled` counts every physical die, including
    rerolled-away and exploded-in dice. `criteria` are the comparisons its dice were counted by, `dialect` the
    reading it was parsed in.
    """

    expression: str
    comment: str | None
    total: int
    is_success_count: bool
    repeated: bool
    rolls: tuple[ExpressionRoll, ...]
    dice_rolled: int
    target: Comparison | None = None
    criteria: tuple[Comparison, ...] = ()
    dialect: str = DEFAULT_DIALECT

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "expression": self.expression,
            "comment": self.comment,
            "total": self.total,
            "is_success_count": self.is_success_count,
            "repeated": self.repeated,
            "dice_rolled": self.dice_rolled,
            "target": None if self.target is None else {"operator": self.target.operator, "value": self.target.target},
            "dialect": self.dialect,
            "rolls": [roll.to_dict() for roll in self.rolls],
        }
