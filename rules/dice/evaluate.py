"""Rolling a validated `ParsedRoll` into an immutable `RollResult`."""

from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice.dialects import DiceDialect
from rules.dice.errors import DiceError
from rules.dice.limits import DiceLimits
from rules.dice.results import (
    AnnotationResult,
    BinaryResult,
    D66Result,
    DiceResult,
    Die,
    ExpressionRoll,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    RollResult,
    SetResult,
)
from rules.dice.source import DiceSource
from rules.dice.syntax import (
    AnnotationNode,
    BinaryNode,
    Comparison,
    D66Node,
    DiceNode,
    ExpressionNode,
    FaceSelection,
    GroupNode,
    NegationNode,
    NumberNode,
    Pick,
    SetNode,
)

# A roll builds one record per die: made by the tuple constructor, in the fields' order, they cost about half
# of what the named tuple's own constructor, written in Python, does.
_new_die = tuple.__new__


@dataclass(frozen=True)
class ParsedRoll:
    """A fully validated roll request, not yet rolled."""

    expression: ExpressionNode
    repeats: int | None
    comment: str | None
    notation: str
    is_success_count: bool
    limits: DiceLimits
    # What the total is compared with (`2d6>=7`), if anything.
    target: Comparison | None
    # The comparisons its dice are counted by, each once, in the order written.
    criteria: tuple[Comparison, ...]
    dialect: DiceDialect

    def evaluate(self, dice: DiceSource) -> RollResult:
        """Roll the expression.

        The only possible error is `too_many_dice_rolled`, when explosions and rerolls push the number of
        physical dice past `limits.max_dice`; nothing partial is returned in that case.
        """
        roller = _Roller(dice, self.limits.max_dice)
        target = self.target
        if self.repeats is None:
            tree = roller.evaluate(self.expression)
            total = tree.value
            met = None if target is None else target.holds(total)
            rolls: tuple[ExpressionRoll, ...] = (ExpressionRoll(tree, total, met),)
        else:
            rolls = tuple([roller.roll_expression(self.expression, target) for _ in range(self.repeats)])
            if target is None:
                total = sum([expression_roll.total for expression_roll in rolls])
            else:
                total = sum([bool(expression_roll.met) for expression_roll in rolls])
        # Positional, as keywords cost a third more; the fields' order is RollResult's.
        return RollResult(
            self.notation,
            self.comment,
            total,
            self.is_success_count,
            self.repeats is not None,
            rolls,
            roller.dice_rolled,
            target,
            self.criteria,
            self.dialect,
        )


class _Roller:
    def __init__(self, dice: DiceSource, max_dice: int) -> None:
        self.dice = dice
        self.max_dice = max_dice
        self.dice_rolled = 0

    def roll_expression(self, expression: ExpressionNode, target: Comparison | None) -> ExpressionRoll:
        tree = self.evaluate(expression)
        return ExpressionRoll(tree, tree.value, None if target is None else target.holds(tree.value))

    def evaluate(self, node: ExpressionNode) -> ResultNode:
        # Ordered by how often each kind occurs in everyday rolls: dice, then sums, then numbers.
        if type(node) is DiceNode:
            return self.roll_dice(node)
        if type(node) is BinaryNode:
            left = self.evaluate(node.left)
            right = self.evaluate(node.right)
            operator = node.operator
            if operator == "+":
                value = left.value + right.value
            elif operator == "-":
                value = left.value - right.value
            elif operator == "*":
                value = left.value * right.value
            else:  # `/` and `//` both round down; the parser refused every divisor that could be zero
                value = left.value // right.value
            return BinaryResult(operator, left, right, value)
        if type(node) is NumberNode:
            return NumberResult(node.value)
        if type(node) is GroupNode:
            return self._group(node)
        if type(node) is NegationNode:
            operand = self.evaluate(node.operand)
            return NegationResult(operand, -operand.value)
        if type(node) is SetNode:
            elements = tuple([self.evaluate(element) for element in node.elements])
            return _picked_set(elements, node.selection, comma=True)
        if type(node) is D66Node:
            return self._d66(node)
        assert type(node) is AnnotationNode
        inner = self.evaluate(node.inner)
        return AnnotationResult(inner, node.note, inner.value)

    def _group(self, node: GroupNode) -> ResultNode:
        inner = self.evaluate(node.inner)
        if node.selection is None:
            return GroupResult(inner, inner.value)
        narrowed = _narrow(inner, node.selection)
        if narrowed is None:
            return _picked_set((inner,), node.selection, comma=False)
        return GroupResult(narrowed, narrowed.value, node.selection.notation())

    def _d66(self, node: D66Node) -> D66Result:
        faces = self.draw(2, 6)
        if node.order in ("a", "s"):
            tens, ones = sorted(faces)
        elif node.order == "d":
            ones, tens = sorted(faces)
        else:
            tens, ones = faces
        dice = tuple([Die(face, True, False, False, False) for face in faces])
        return D66Result(node.notation(), dice, tens * 10 + ones)

    def draw(self, count: int, sides: int) -> list[int]:
        if self.dice_rolled + count > self.max_dice:
            raise DiceError("too_many_dice_rolled", limit=self.max_dice)
        self.dice_rolled += count
        return self.dice.roll(count, sides)

    def roll_dice(self, node: DiceNode) -> DiceResult:
        faces = self.draw(node.count, node.sides)
        if node.plain:
            # The everyday plain sum (`1d20`, `8d6`): every die kept, nothing to select or count.
            dice = tuple([_new_die(Die, (face, True, False, False, False, None)) for face in faces])
            return DiceResult(node.written, node.sides, dice, sum(faces), False)
        unmarked = [False] * len(faces)
        if node.waves:
            exploded, rerolled = self._roll_waves(node, faces)
            unmarked = [False] * len(faces)
            kept = [not away for away in rerolled]
        else:
            exploded = rerolled = unmarked
            kept = [True] * len(faces)
        rolled: list[int | None] | None = None
        if node.minimum is not None or node.maximum is not None:
            rolled, faces = _bounded(node, faces, rerolled)
        if node.selection is not None:
            kept = _narrowed(node.selection, faces, kept)
        success_faces = node.success_faces
        if success_faces is None:
            value = sum([face for face, keep in zip(faces, kept, strict=True) if keep])
            success = unmarked
        else:
            success = [keep and face in success_faces for face, keep in zip(faces, kept, strict=True)]
            value = sum(success)
        fields = zip(faces, kept, exploded, rerolled, success, rolled or [None] * len(faces), strict=True)
        dice = tuple([_new_die(Die, die) for die in fields])
        return DiceResult(node.written, node.sides, dice, value, success_faces is not None)

    def _roll_waves(self, node: DiceNode, faces: list[int]) -> tuple[list[bool], list[bool]]:
        """Reroll and explode `faces` in place; returns which dice exploded and which were rerolled away.

        Dice are rolled in waves: every die that is rerolled or explodes spawns exactly one die in the next
        wave, and each wave is one call to the source. The recorded order is therefore the order of rolling,
        which is also the order a FixedDice script must follow. An explosion that adds once (`ra`) ends with the
        first die it adds.
        """
        reroll_faces = node.reroll_faces or range(0)
        explode_faces = node.explode_faces or range(0)
        reroll_once = node.reroll is not None and node.reroll.once
        explodes_once = node.explode is not None and node.explode.once
        may_reroll = [True] * len(faces)
        rerolled = [False] * len(faces)
        exploded = [False] * len(faces)
        wave_start = 0
        while wave_start < len(faces):
            spawned_may_reroll: list[bool] = []
            for index in range(wave_start, len(faces)):
                face = faces[index]
                if may_reroll[index] and face in reroll_faces:
                    rerolled[index] = True
                    spawned_may_reroll.append(not reroll_once)
                elif face in explode_faces:
                    exploded[index] = True
                    spawned_may_reroll.append(True)
                    if explodes_once:
                        explode_faces = range(0)
            wave_start = len(faces)
            if spawned_may_reroll:
                spawned = len(spawned_may_reroll)
                faces.extend(self.draw(spawned, node.sides))
                may_reroll.extend(spawned_may_reroll)
                rerolled.extend([False] * spawned)
                exploded.extend([False] * spawned)
        return exploded, rerolled


def _bounded(node: DiceNode, faces: list[int], rerolled: list[bool]) -> tuple[list[int | None], list[int]]:
    """The faces once `mi` and `ma` set them, and the face each changed die showed (None where unchanged).
    A die rerolled away keeps its face: it is gone before any minimum applies."""
    low = node.minimum if node.minimum is not None else 0
    high = node.maximum if node.maximum is not None else max(node.sides, low)
    bounded = [face if away else min(max(face, low), high) for face, away in zip(faces, rerolled, strict=True)]
    rolled = [None if new == old else old for old, new in zip(faces, bounded, strict=True)]
    return rolled, bounded


def _narrowed(selection: Pick, values: Sequence[int], kept: list[bool]) -> list[bool]:
    """`kept` narrowed by a keep or drop over the values still kept; among equal values the earlier one is kept
    or dropped first."""
    pool = [index for index, keep in enumerate(kept) if keep]
    if isinstance(selection, FaceSelection):
        holds = selection.comparison.holds
        narrowed = [False] * len(kept)
        for index in pool:
            narrowed[index] = holds(values[index]) == selection.keep
        return narrowed
    # sorted() is stable, reversed too, so equal values stay in rolling order whichever end is chosen.
    ranked = sorted(pool, key=values.__getitem__, reverse=selection.mode in ("kh", "dh"))
    chosen = ranked[: selection.count]
    if selection.mode in ("kh", "kl"):
        narrowed = [False] * len(kept)
        for index in chosen:
            narrowed[index] = True
        return narrowed
    narrowed = list(kept)
    for index in chosen:
        narrowed[index] = False
    return narrowed


def _narrow(node: ResultNode, selection: Pick) -> ResultNode | None:
    """The dice or set inside parentheses with `selection` applied to what they still keep; None when the
    parentheses hold one value of another kind."""
    if type(node) is DiceResult:
        faces = [die.face for die in node.dice]
        kept = _narrowed(selection, faces, [die.kept for die in node.dice])
        dice = tuple(
            [die._replace(kept=keep, success=die.success and keep) for die, keep in zip(node.dice, kept, strict=True)]
        )
        if node.counts_successes:
            value = sum([die.success for die in dice])
        else:
            value = sum([die.face for die in dice if die.kept])
        return node._replace(dice=dice, value=value)
    if type(node) is SetResult:
        kept = _narrowed(selection, [element.value for element in node.elements], list(node.kept))
        value = sum([element.value for element, keep in zip(node.elements, kept, strict=True) if keep])
        return node._replace(kept=tuple(kept), value=value)
    if type(node) is GroupResult:
        inner = _narrow(node.inner, selection)
        return None if inner is None else GroupResult(inner, inner.value, node.selection)
    if type(node) is AnnotationResult:
        inner = _narrow(node.inner, selection)
        return None if inner is None else AnnotationResult(inner, node.note, inner.value)
    return None


def _picked_set(elements: tuple[ResultNode, ...], selection: Pick | None, *, comma: bool) -> SetResult:
    kept = [True] * len(elements)
    if selection is not None:
        kept = _narrowed(selection, [element.value for element in elements], kept)
    value = sum([element.value for element, keep in zip(elements, kept, strict=True) if keep])
    notation = "" if selection is None else selection.notation()
    return SetResult(elements, tuple(kept), notation, value, comma)
