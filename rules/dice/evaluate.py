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
from rules.dice.syntax import BinaryNode, DiceNode, ExpressionNode, GroupNode, NegationNode, NumberNode


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
        if self.repeats is None:
            tree = roller.evaluate(self.expression)
            rolls: tuple[ExpressionRoll, ...] = (ExpressionRoll(tree, tree.value),)
            total = tree.value
        else:
            rolls = tuple([roller.roll_expression(self.expression) for _ in range(self.repeats)])
            total = sum([expression_roll.total for expression_roll in rolls])
        # Positional, as keywords cost a third more; the fields' order is RollResult's.
        return RollResult(
            self.notation,
            self.comment,
            total,
            self.is_success_count,
            self.repeats is not None,
            rolls,
            roller.dice_rolled,
        )


class _Roller:
    def __init__(self, dice: DiceSource, max_dice: int) -> None:
        self.dice = dice
        self.max_dice = max_dice
        self.dice_rolled = 0

    def roll_expression(self, expression: ExpressionNode) -> ExpressionRoll:
        tree = self.evaluate(expression)
        return ExpressionRoll(tree, tree.value)

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
            else:
                value = left.value * right.value
            return BinaryResult(operator, left, right, value)
        if type(node) is NumberNode:
            return NumberResult(node.value)
        if type(node) is GroupNode:
            inner = self.evaluate(node.inner)
            return GroupResult(inner, inner.value)
        assert type(node) is NegationNode
        operand = self.evaluate(node.operand)
        return NegationResult(operand, -operand.value)

    def draw(self, count: int, sides: int) -> list[int]:
        if self.dice_rolled + count > self.max_dice:
            raise DiceError("too_many_dice_rolled", limit=self.max_dice)
        self.dice_rolled += count
        return self.dice.roll(count, sides)

    def roll_dice(self, node: DiceNode) -> DiceResult:
        faces = self.draw(node.count, node.sides)
        unmarked = [False] * len(faces)
        if node.reroll_faces is None and node.explode_faces is None:
            exploded = rerolled = unmarked
            if node.selection is None and node.success_faces is None:
                # The everyday plain sum (`1d20`, `8d6`): every die kept, nothing to select or count.
                dice = tuple(map(Die, faces, [True] * len(faces), unmarked, unmarked, unmarked))
                return DiceResult(node.written, node.sides, dice, sum(faces), False)
        else:
            exploded, rerolled = self._roll_waves(node, faces)
            unmarked = [False] * len(faces)
        kept = _select(node, faces, rerolled)
        success_faces = node.success_faces
        if success_faces is None:
            value = sum([face for face, keep in zip(faces, kept, strict=True) if keep])
            success = unmarked
        else:
            success = [keep and face in success_faces for face, keep in zip(faces, kept, strict=True)]
            value = sum(success)
        dice = tuple(map(Die, faces, kept, exploded, rerolled, success))
        return DiceResult(node.written, node.sides, dice, value, success_faces is not None)

    def _roll_waves(self, node: DiceNode, faces: list[int]) -> tuple[list[bool], list[bool]]:
        """Reroll and explode `faces` in place; returns which dice exploded and which were rerolled away.

        Dice are rolled in waves: every die that is rerolled or explodes spawns exactly one die in the next
        wave, and each wave is one call to the source. The recorded order is therefore the order of rolling,
        which is also the order a FixedDice script must follow.
        """
        reroll_faces = node.reroll_faces or range(0)
        explode_faces = node.explode_faces or range(0)
        reroll_once = node.reroll is not None and node.reroll.once
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
            wave_start = len(faces)
            if spawned_may_reroll:
                spawned = len(spawned_may_reroll)
                faces.extend(self.draw(spawned, node.sides))
                may_reroll.extend(spawned_may_reroll)
                rerolled.extend([False] * spawned)
                exploded.extend([False] * spawned)
        return exploded, rerolled


def _select(node: DiceNode, faces: list[int], rerolled: list[bool]) -> list[bool]:
    """Which dice count towards the value; among equal faces the earlier-rolled die is kept or dropped first."""
    kept = [not away for away in rerolled]
    selection = node.selection
    if selection is None:
        return kept
    pool = [index for index in range(len(faces)) if kept[index]]
    # sorted() is stable, so equal faces stay in rolling order whichever end is chosen.
    if selection.mode in ("kh", "dh"):
        ranked = sorted(pool, key=lambda index: -faces[index])
    else:
        ranked = sorted(pool, key=faces.__getitem__)
    keeping = selection.mode in ("kh", "kl")
    chosen = ranked[: selection.count]
    if keeping:
        kept = [False] * len(faces)
        for index in chosen:
            kept[index] = True
    else:
        for index in chosen:
            kept[index] = False
    return kept
