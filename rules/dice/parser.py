"""Scannerless recursive-descent parser: text in, validated `ParsedRoll` out, no dice touched."""

import re
from functools import lru_cache
from typing import Final, cast

from rules.dice.errors import DiceError
from rules.dice.evaluate import ParsedRoll
from rules.dice.limits import DEFAULT_LIMITS, DiceLimits
from rules.dice.syntax import (
    BinaryNode,
    Comparison,
    ComparisonOperator,
    DiceNode,
    ExpressionNode,
    GroupNode,
    NegationNode,
    NumberNode,
    Reroll,
    Selection,
    SelectionMode,
)


def _fold_table() -> dict[int, int]:
    # Full-width forms (U+FF01..U+FF5E) and the ideographic space are what CJK input methods produce for ASCII
    # notation; folding them one-to-one (never changing the length) keeps error positions valid for the original.
    table = {code: ord(chr(code - 0xFEE0).lower()) for code in range(0xFF01, 0xFF5F)}
    table.update({code: ord(chr(code).lower()) for code in range(ord("A"), ord("Z") + 1)})
    table[0x3000] = ord(" ")
    return table


_FOLD_TABLE: Final = _fold_table()
_WHITESPACE: Final = re.compile(r"\s*")
# ASCII digits only: `\d` would accept other scripts' digits, which int() happily converts.
_INTEGER: Final = re.compile(r"[0-9]+")
_DICE: Final = re.compile(r"([0-9]*)d([0-9]+|%)")
_LETTERS: Final = re.compile(r"[a-z]+")
_COMPARISON: Final = re.compile(r"(>=|<=|=|>|<)([0-9]+)")
_BARE_OR_COMPARISON: Final = re.compile(r"(>=|<=|=|>|<)?([0-9]+)")
_REPEAT: Final = re.compile(r"\s*([0-9]+)\s*#")
_WORD: Final = re.compile(r"\S*")

_SELECTION_KEYWORDS: Final[dict[str, SelectionMode]] = {"k": "kh", "kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl"}
_REROLL_KEYWORDS: Final = frozenset({"r", "ro"})
# Longest first, so that a prefix match finds `kh` before `k`.
_MODIFIER_KEYWORDS: Final = sorted([*_SELECTION_KEYWORDS, *_REROLL_KEYWORDS], key=len, reverse=True)
# A bare comment may not start with these: `1d20 kh` is far more likely a mistake than a remark.
_NOTATION_KEYWORDS: Final = frozenset({"d", *_SELECTION_KEYWORDS, *_REROLL_KEYWORDS})
_SNIPPET_LENGTH: Final = 12


# Players roll the same few expressions again and again; a parsed roll is immutable, so it can be shared.
# Refusals raise and are never cached; long texts (whose comments make them unlikely to recur) are not kept.
_CACHED_PARSES: Final = 1024
_CACHED_LENGTH: Final = 256


def parse(expression: str, limits: DiceLimits = DEFAULT_LIMITS) -> ParsedRoll:
    """Parse and validate `expression`; raises `DiceError` for anything that must not be rolled."""
    if len(expression) > _CACHED_LENGTH:
        return _Parser(expression, limits).parse_roll()
    return _parse_cached(expression, limits)


@lru_cache(maxsize=_CACHED_PARSES)
def _parse_cached(expression: str, limits: DiceLimits) -> ParsedRoll:
    return _Parser(expression, limits).parse_roll()


class _Parser:
    def __init__(self, text: str, limits: DiceLimits) -> None:
        self.text = text
        self.scan = text.translate(_FOLD_TABLE)
        self.limits = limits
        # End of the last notation token; whitespace is only consumed together with a token.
        self.pos = 0
        self.depth = 0
        self.dice_nodes: list[DiceNode] = []

    def parse_roll(self) -> ParsedRoll:
        first = self._skip_whitespace(0)
        if first == len(self.scan) or self.scan[first] == "#":
            raise DiceError("empty")
        repeats = self._parse_repeats()
        expression = self._parse_sum()
        comment = self._parse_comment()
        is_success_count = self._validate_success_use()
        self._validate_dice_count(repeats or 1)
        self._validate_magnitude(expression, repeats or 1)
        prefix = f"{repeats}#" if repeats is not None else ""
        return ParsedRoll(
            expression=expression,
            repeats=repeats,
            comment=comment,
            notation=prefix + expression.notation(),
            is_success_count=is_success_count,
            limits=self.limits,
        )

    # --- tokens -------------------------------------------------------------------------------------------------

    def _skip_whitespace(self, start: int) -> int:
        if not self.scan[start : start + 1].isspace():
            return start
        match = _WHITESPACE.match(self.scan, start)
        assert match is not None  # `\s*` matches everywhere
        return match.end()

    def _advance(self, end: int) -> None:
        # Checked per token, so oversized input is refused before int() or deep trees ever see it.
        if end > self.limits.max_expression_length:
            raise DiceError("too_long", limit=self.limits.max_expression_length)
        self.pos = end

    def _take(self, pattern: re.Pattern[str], start: int) -> re.Match[str] | None:
        match = pattern.match(self.scan, start)
        if match is not None:
            self._advance(match.end())
        return match

    def _take_char(self, char: str) -> bool:
        """Consume `char` if it is the next token."""
        start = self._skip_whitespace(self.pos)
        if not self.scan.startswith(char, start):
            return False
        self._advance(start + 1)
        return True

    def _syntax_error(self, position: int) -> DiceError:
        found = _WORD.match(self.text, position)
        snippet = found.group()[:_SNIPPET_LENGTH] if found else ""
        return DiceError("syntax", position=position, found=snippet)

    # --- grammar ------------------------------------------------------------------------------------------------

    def _parse_repeats(self) -> int | None:
        match = self._take(_REPEAT, 0)
        if match is None:
            return None
        repeats = int(match.group(1))
        if repeats == 0:
            raise DiceError("zero_repeats", position=match.start(1))
        if repeats > self.limits.max_repeats:
            raise DiceError("too_many_repeats", limit=self.limits.max_repeats, repeats=repeats)
        return repeats

    def _parse_sum(self) -> ExpressionNode:
        left = self._parse_product()
        while True:
            start = self._skip_whitespace(self.pos)
            operator = self.scan[start : start + 1]
            if operator not in ("+", "-"):
                return left
            self._advance(start + 1)
            left = BinaryNode("+" if operator == "+" else "-", left, self._parse_product())

    def _parse_product(self) -> ExpressionNode:
        left = self._parse_unary()
        while self._take_char("*"):
            left = BinaryNode("*", left, self._parse_unary())
        return left

    def _parse_unary(self) -> ExpressionNode:
        negations = 0
        while self._take_char("-"):
            negations += 1
        operand = self._parse_primary()
        for _ in range(negations):
            operand = NegationNode(operand)
        return operand

    def _parse_primary(self) -> ExpressionNode:
        start = self._skip_whitespace(self.pos)
        if self.scan.startswith("(", start):
            return self._parse_group(start)
        dice = self._take(_DICE, start)
        if dice is not None:
            return self._parse_dice(dice)
        number = self._take(_INTEGER, start)
        if number is not None:
            return NumberNode(int(number.group()))
        raise self._syntax_error(start)

    def _parse_group(self, start: int) -> ExpressionNode:
        if self.depth == self.limits.max_depth:
            raise DiceError("too_deep", limit=self.limits.max_depth, position=start)
        self._take_char("(")
        self.depth += 1
        inner = self._parse_sum()
        if not self._take_char(")"):
            raise self._syntax_error(self._skip_whitespace(self.pos))
        self.depth -= 1
        return GroupNode(inner)

    def _parse_dice(self, match: re.Match[str]) -> DiceNode:
        position = match.start()
        count = int(match.group(1)) if match.group(1) else 1
        percentile = match.group(2) == "%"
        sides = 100 if percentile else int(match.group(2))
        if count == 0:
            raise DiceError("zero_dice", position=position)
        if sides == 0:
            raise DiceError("zero_sides", position=position)
        if sides > self.limits.max_sides:
            raise DiceError("too_many_sides", limit=self.limits.max_sides, sides=sides, position=position)
        modifiers = _Modifiers(sides)
        while self._parse_modifier(modifiers):
            pass
        node = DiceNode(
            count=count,
            sides=sides,
            percentile=percentile,
            reroll=modifiers.reroll,
            explode=modifiers.explode,
            selection=modifiers.selection,
            success=modifiers.success,
            position=position,
        )
        _validate_termination(node)
        self.dice_nodes.append(node)
        return node

    def _parse_modifier(self, modifiers: "_Modifiers") -> bool:
        """Parse one modifier into `modifiers`; False when the next token is not a modifier."""
        start = self._skip_whitespace(self.pos)
        char = self.scan[start : start + 1]
        if char == "!":
            self._advance(start + 1)
            threshold = self._take(_BARE_OR_COMPARISON, self.pos)
            modifiers.set_explode(_comparison(threshold) if threshold else Comparison("=", modifiers.sides), start)
            return True
        if char in ("<", ">", "="):
            comparison = self._take(_COMPARISON, start)
            if comparison is None:
                raise self._syntax_error(start)
            modifiers.set_success(_comparison(comparison), start)
            return True
        keyword = self._modifier_keyword(start)
        if keyword in _SELECTION_KEYWORDS:
            self._advance(start + len(keyword))
            count = self._take(_INTEGER, self.pos)
            selection = Selection(_SELECTION_KEYWORDS[keyword], int(count.group()) if count else 1)
            if selection.count == 0:
                raise DiceError("zero_keep_drop", position=start)
            modifiers.set_selection(selection, start)
            return True
        if keyword in _REROLL_KEYWORDS:
            self._advance(start + len(keyword))
            comparison = self._take(_BARE_OR_COMPARISON, self.pos)
            if comparison is None:
                raise self._syntax_error(self.pos)
            modifiers.set_reroll(Reroll(_comparison(comparison), once=keyword == "ro"), start)
            return True
        return False

    def _modifier_keyword(self, start: int) -> str:
        """The keyword at `start`, or "" if none.

        Attached to the term, keywords may run together (`2d20khr1`); after whitespace the whole word must be
        a keyword, so that `1d20 rogue` stays a comment instead of becoming a broken `ro` modifier.
        """
        if start == self.pos:
            return next((keyword for keyword in _MODIFIER_KEYWORDS if self.scan.startswith(keyword, start)), "")
        letters = _LETTERS.match(self.scan, start)
        word = letters.group() if letters else ""
        return word if word in _MODIFIER_KEYWORDS else ""

    def _parse_comment(self) -> str | None:
        start = self._skip_whitespace(self.pos)
        if start == len(self.scan):
            return None
        if self.scan[start] == "#":
            comment = self.text[start + 1 :].strip()
        elif self._starts_bare_comment(start):
            comment = self.text[start:].strip()
        else:
            raise self._syntax_error(start)
        if len(comment) > self.limits.max_comment_length:
            raise DiceError("comment_too_long", limit=self.limits.max_comment_length, length=len(comment))
        return comment or None

    def _starts_bare_comment(self, start: int) -> bool:
        first = self.scan[start]
        if not first.isascii():
            return True
        if start == self.pos or not first.isalpha():
            return False
        letters = _LETTERS.match(self.scan, start)
        word = _WORD.match(self.scan, start)
        assert letters is not None and word is not None  # `first` is an ASCII letter
        return letters.group() not in _NOTATION_KEYWORDS and not any(char.isdigit() for char in word.group())

    # --- whole-expression validation ----------------------------------------------------------------------------

    def _validate_success_use(self) -> bool:
        counting = [node for node in self.dice_nodes if node.success is not None]
        if not counting:
            return False
        summing = [node for node in self.dice_nodes if node.success is None]
        if summing:
            raise DiceError("bad_success_use", position=summing[0].position)
        return True

    def _validate_dice_count(self, repeats: int) -> None:
        requested = repeats * sum(node.count for node in self.dice_nodes)
        if requested > self.limits.max_dice:
            raise DiceError("too_many_dice", limit=self.limits.max_dice, requested=requested)

    def _validate_magnitude(self, expression: ExpressionNode, repeats: int) -> None:
        if repeats * _magnitude_bound(expression, self.limits) > self.limits.max_magnitude:
            raise DiceError("too_large", limit=self.limits.max_magnitude)


class _Modifiers:
    """Collects a dice term's modifiers, each at most once, in whatever order they were written."""

    def __init__(self, sides: int) -> None:
        self.sides = sides
        self.reroll: Reroll | None = None
        self.explode: Comparison | None = None
        self.selection: Selection | None = None
        self.success: Comparison | None = None

    def set_reroll(self, reroll: Reroll, position: int) -> None:
        _refuse_duplicate(self.reroll, position, "r")
        self.reroll = reroll

    def set_explode(self, explode: Comparison, position: int) -> None:
        _refuse_duplicate(self.explode, position, "!")
        self.explode = explode

    def set_selection(self, selection: Selection, position: int) -> None:
        _refuse_duplicate(self.selection, position, selection.mode)
        self.selection = selection

    def set_success(self, success: Comparison, position: int) -> None:
        _refuse_duplicate(self.success, position, success.operator)
        self.success = success


def _refuse_duplicate(existing: object, position: int, modifier: str) -> None:
    if existing is not None:
        raise DiceError("duplicate_modifier", position=position, modifier=modifier)


def _comparison(match: re.Match[str]) -> Comparison:
    operator = cast(ComparisonOperator, match.group(1) or "=")
    return Comparison(operator, int(match.group(2)))


def _validate_termination(node: DiceNode) -> None:
    """Refuse rerolls and explosions that could never stop, before any die is rolled."""
    rerolled = range(0)
    if node.reroll is not None and not node.reroll.once:
        rerolled = node.reroll.comparison.face_range(node.sides)
        if len(rerolled) == node.sides:
            raise DiceError("always_rerolls", position=node.position)
    if node.explode is not None:
        exploding = node.explode.face_range(node.sides)
        # Faces that survive rerolling are those outside `rerolled`; all of them exploding means no end.
        if len(rerolled) + len(exploding) - _overlap(rerolled, exploding) == node.sides:
            raise DiceError("always_explodes", position=node.position)


def _overlap(first: range, second: range) -> int:
    return max(0, min(first.stop, second.stop) - max(first.start, second.start))


def _magnitude_bound(node: ExpressionNode, limits: DiceLimits) -> int:
    """An upper bound of |value|, so oversized totals are refused before rolling."""
    if isinstance(node, NumberNode):
        return node.value
    if isinstance(node, DiceNode):
        if node.explode is not None:
            counted = limits.max_dice
        elif node.selection is None:
            counted = node.count
        elif node.selection.mode in ("kh", "kl"):
            counted = min(node.count, node.selection.count)
        else:
            counted = max(node.count - node.selection.count, 0)
        return counted if node.success is not None else counted * node.sides
    if isinstance(node, GroupNode):
        return _magnitude_bound(node.inner, limits)
    if isinstance(node, NegationNode):
        return _magnitude_bound(node.operand, limits)
    left = _magnitude_bound(node.left, limits)
    right = _magnitude_bound(node.right, limits)
    return left * right if node.operator == "*" else left + right
