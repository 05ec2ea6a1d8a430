"""Rolling a validated `ParsedRoll` into an immutable `RollResult`."""

from dataclasses import dataclass

from rules.dice.errors import DiceError
from rules.dice.limits import DiceLimits
from rules.dice.results import (
    BinaryResult,
    DiceResult,
    Die,
    ExpressionRoll,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    RollResult,
)
from rules.dice.source import DiceSource
from rules.dice.syntax import DiceNode, ExpressionNode, GroupNode, NegationNode, NumberNode


@dataclass(frozen=True)
class ParsedRoll:
    """A fully validated roll request, not yet rolled."""

    expression: ExpressionNode
    repeats: int | None
    comment: str | None
    notation: str
    is_success_count: bool
    limits: DiceLimits

    def evaluate(self, dice: DiceSource) -> RollResult:
        """Roll the expression.

        The only possible error is `too_many_dice_rolled`, when explosions and rerolls push the number of
        physical dice past `limits.max_dice`; nothing partial is returned in that case.
        """
        roller = _Roller(dice, self.limits.max_dice)
        rolls = tuple(roller.roll_expression(self.expression) for _ in range(self.repeats or 1))
        return RollResult(
            expression=self.notation,
            comment=self.comment,
            total=sum(expression_roll.total for expression_roll in rolls),
            is_success_count=self.is_success_count,
            repeated=self.repeats is not None,
            rolls=rolls,
            dice_rolled=roller.dice_rolled,
        )


class _Roller:
    def __init__(self, dice: DiceSource, max_dice: int) -> None:
        self.dice = dice
        self.max_dice = max_dice
        self.dice_rolled = 0

    def roll_expression(self, expression: ExpressionNode) -> ExpressionRoll:
        tree = self.evaluate(expression)
        return ExpressionRoll(tree=tree, total=tree.value)

    def evaluate(self, node: ExpressionNode) -> ResultNode:
        if isinstance(node, NumberNode):
            return NumberResult(node.value)
        if isinstance(node, DiceNode):
            return self.roll_dice(node)
        if isinstance(node, GroupNode):
            inner = self.evaluate(node.inner)
            return GroupResult(inner, inner.value)
        if isinstance(node, NegationNode):
            operand = self.evaluate(node.operand)
            return NegationResult(operand, -operand.value)
        left = self.evaluate(node.left)
        right = self.evaluate(node.right)
        if node.operator == "+":
            value = left.value + right.value
        elif node.operator == "-":
            value = left.value - right.value
        else:
            value = left.value * right.value
        return BinaryResult(node.operator, left, right, value)

    def draw(self, count: int, sides: int) -> list[int]:
        if self.dice_rolled + count > self.max_dice:
            raise DiceError("too_many_dice_rolled", limit=self.max_dice)
        self.dice_rolled += count
        return self.dice.roll(count, sides)

    def roll_dice(self, node: DiceNode) -> DiceResult:
        # Dice are rolled in waves: every die that is rerolled or explodes spawns exactly one die in the next
        # wave, and each wave is one call to the source. The recorded order is therefore the order of rolling,
        # which is also the order a FixedDice script must follow.
        faces = self.draw(node.count, node.sides)
        may_reroll = [True] * node.count
        rerolled = [False] * node.count
        exploded = [False] * node.count
        wave_start = 0
        while wave_start < len(faces):
            spawned_may_reroll: list[bool] = []
            for index in range(wave_start, len(faces)):
                if node.reroll is not None and may_reroll[index] and node.reroll.comparison.matches(faces[index]):
                    rerolled[index] = True
                    spawned_may_reroll.append(not node.reroll.once)
                elif node.explode is not None and node.explode.matches(faces[index]):
                    exploded[index] = True
                    spawned_may_reroll.append(True)
            wave_start = len(faces)
            if spawned_may_reroll:
                faces.extend(self.draw(len(spawned_may_reroll), node.sides))
                may_reroll.extend(spawned_may_reroll)
                rerolled.extend([False] * len(spawned_may_reroll))
                exploded.extend([False] * len(spawned_may_reroll))

        kept = _select(node, faces, rerolled)
        target = node.success
        success = [keep and target is not None and target.matches(face) for face, keep in zip(faces, kept, strict=True)]
        kept_sum = sum(face for face, keep in zip(faces, kept, strict=True) if keep)
        value = kept_sum if target is None else sum(success)
        dice = tuple(map(Die, faces, kept, exploded, rerolled, success))
        return DiceResult(
            notation=node.notation(),
            sides=node.sides,
            dice=dice,
            value=value,
            counts_successes=node.success is not None,
        )


def _select(node: DiceNode, faces: list[int], rerolled: list[bool]) -> list[bool]:
    """Which dice count towards the value; among equal faces the earlier-rolled die is kept or dropped first."""
    pool = [index for index in range(len(faces)) if not rerolled[index]]
    kept = [not away for away in rerolled]
    if node.selection is None:
        return kept
    highest_first = node.selection.mode in ("kh", "dh")
    ranked = sorted(pool, key=lambda index: -faces[index] if highest_first else faces[index])
    chosen = set(ranked[: node.selection.count])
    keeping = node.selection.mode in ("kh", "kl")
    for index in pool:
        kept[index] = (index in chosen) == keeping
    return kept
