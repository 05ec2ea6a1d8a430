"""Scannerless recursive-descent parser: text in, validated `ParsedRoll` out, no dice touched."""

import re
from functools import lru_cache
from typing import Final, cast

from rules.dice.dialects import DEFAULT_DIALECT, READINGS, DiceDialect
from rules.dice.errors import DiceError
from rules.dice.evaluate import ParsedRoll
from rules.dice.limits import DEFAULT_LIMITS, DiceLimits
from rules.dice.syntax import (
    AnnotationNode,
    BinaryNode,
    BinaryOperator,
    Comparison,
    ComparisonOperator,
    D66Node,
    D66Order,
    DiceNode,
    Explode,
    ExpressionNode,
    FaceSelection,
    GroupNode,
    NegationNode,
    NumberNode,
    Pick,
    Reroll,
    Selection,
    SelectionMode,
    SetNode,
)


def _fold_table() -> dict[int, int]:
    # Full-width forms (U+FF01..U+FF5E) and the ideographic space are what CJK input methods produce for ASCII
    # notation; folding them one-to-one (never changing the length) keeps error positions valid for the original.
    table = {code: ord(chr(code - 0xFEE0).lower()) for code in range(0xFF01, 0xFF5F)}
    table.update({code: ord(chr(code).lower()) for code in range(ord("A"), ord("Z") + 1)})
    table[0x3000] = ord(" ")
    # A Japanese input method types the minus key as the long-vowel mark `ー` (or, in full-width mode on some
    # systems, as `−`): read as a comment, `２ｄ６ー１` would quietly lose its `-1`.
    table[0x30FC] = table[0x2212] = ord("-")
    return table


_FOLD_TABLE: Final = _fold_table()
_WHITESPACE: Final = re.compile(r"\s*")
# ASCII digits only: `\d` would accept other scripts' digits, which int() happily converts.
_INTEGER: Final = re.compile(r"[0-9]+")
_DICE: Final = re.compile(r"([0-9]*)d([0-9]+|%)")
# BCDice's bulk roll: the count is never left out, as in BCDice.
_BULK: Final = re.compile(r"([0-9]+)b([0-9]+)")
_D66_ORDER: Final = re.compile(r"[asdn](?![a-z])")
_LETTERS: Final = re.compile(r"[a-z]+")
_OPERATOR: Final = re.compile(r">=|<=|=|>|<")
_COMPARISON: Final = re.compile(r"(>=|<=|=|>|<)([0-9]+)")
_BARE_OR_COMPARISON: Final = re.compile(r"(>=|<=|=|>|<)?([0-9]+)")
_REPEAT: Final = re.compile(r"\s*([0-9]+)\s*#")
_WORD: Final = re.compile(r"\S*")
# Everything but brackets and line breaks, so an annotation never swallows the next one or the comment's line.
_NOTE: Final = re.compile(r"\[([^\[\]\n\r]*)\]")

_SELECTION_KEYWORDS: Final[dict[str, SelectionMode]] = {
    "kh": "kh",
    "kl": "kl",
    "dh": "dh",
    "dl": "dl",
    "ph": "dh",
    "pl": "dl",
}
# `k` keeps the highest (a count) or the matching faces (a comparison, or a bare number in d20's reading);
# `p` drops the matching faces, as in d20.
_FACE_KEYWORDS: Final = frozenset({"k", "p"})
_PICK_KEYWORDS: Final = frozenset({*_SELECTION_KEYWORDS, *_FACE_KEYWORDS})
# Each reroll keyword, and whether it rerolls once.
_REROLL_KEYWORDS: Final = {"r": False, "rr": False, "ro": True}
# Each explosion keyword, and whether it adds one die at most.
_EXPLODE_KEYWORDS: Final = {"e": False, "ra": True}
_BOUND_KEYWORDS: Final = frozenset({"mi", "ma"})
# Longest first, so that a prefix match finds `kh` before `k`.
_MODIFIER_KEYWORDS: Final = sorted(
    [*_PICK_KEYWORDS, *_REROLL_KEYWORDS, *_EXPLODE_KEYWORDS, *_BOUND_KEYWORDS], key=len, reverse=True
)


def _by_initial(keywords: list[str]) -> dict[str, list[str]]:
    """The keywords by their first letter, longest first: a term's modifiers are looked up among a few."""
    found: dict[str, list[str]] = {}
    for keyword in keywords:
        found.setdefault(keyword[0], []).append(keyword)
    return found


_ALL_KEYWORDS: Final = _by_initial(_MODIFIER_KEYWORDS)
# After parentheses, only a keep or drop.
_GROUP_KEYWORDS: Final = _by_initial([keyword for keyword in _MODIFIER_KEYWORDS if keyword in _PICK_KEYWORDS])
# A bare comment may not start with these: `1d20 kh` is far more likely a mistake than a remark.
_NOTATION_KEYWORDS: Final = frozenset({"d", *_MODIFIER_KEYWORDS})
_SNIPPET_LENGTH: Final = 12


# Players roll the same few expressions again and again; a parsed roll is immutable, so it can be shared.
# Refusals raise and are never cached; long texts (whose comments make them unlikely to recur) are not kept,
# nor parses under other limits than the bot's, which only tests ask for.
_CACHED_PARSES: Final = 1024
_CACHED_LENGTH: Final = 256


def parse(expression: str, limits: DiceLimits = DEFAULT_LIMITS, dialect: DiceDialect = DEFAULT_DIALECT) -> ParsedRoll:
    """Parse and validate `expression` as `dialect` reads it; raises `DiceError` for anything that must not be
    rolled."""
    if limits is not DEFAULT_LIMITS or len(expression) > _CACHED_LENGTH:
        return _Parser(expression, limits, dialect).parse_roll()
    return _parse_cached(expression, dialect)


@lru_cache(maxsize=_CACHED_PARSES)
def _parse_cached(expression: str, dialect: DiceDialect) -> ParsedRoll:
    return _Parser(expression, DEFAULT_LIMITS, dialect).parse_roll()


class _Parser:
    def __init__(self, text: str, limits: DiceLimits, dialect: DiceDialect) -> None:
        self.text = text
        self.scan = text.translate(_FOLD_TABLE)
        self.limits = limits
        self.dialect = dialect
        self.reading = READINGS[dialect]
        # Whether any annotation may follow a term: most rolls have none to look for.
        self.noted = "[" in self.scan
        # End of the last notation token; whitespace is only consumed together with a token. `ahead` is where
        # the next token would start, found once per token.
        self.pos = 0
        self.ahead = self._skip_whitespace(0)
        self.depth = 0
        self.dice_nodes: list[DiceNode] = []
        # Every term that rolls dice, as (position, dice it rolls, whether it counts successes), in written order.
        self.rolling: list[tuple[int, int, bool]] = []

    def parse_roll(self) -> ParsedRoll:
        if self.ahead == len(self.scan) or self.scan[self.ahead] == "#":
            raise DiceError("empty")
        repeats = self._parse_repeats()
        target: Comparison | None = None
        if "b" in self.scan and _BULK.match(self.scan, self.ahead):
            expression, notation = self._parse_bulk()
        else:
            expression = self._parse_sum()
            target = self._parse_target()
            # In the dialect it was parsed in, as `dialect` in the roll's record says.
            notation = expression.notation()
            if target is not None:
                notation += target.notation(bare_equality=False)
        comment = self._parse_comment()
        is_success_count = self._validate_success_use()
        self._validate_dice_count(repeats or 1)
        self._validate_magnitude(expression, repeats or 1)
        prefix = f"{repeats}#" if repeats is not None else ""
        criteria: tuple[Comparison, ...] = ()
        if is_success_count:
            criteria = tuple(dict.fromkeys(node.success for node in self.dice_nodes if node.success is not None))
        return ParsedRoll(
            expression=expression,
            repeats=repeats,
            comment=comment,
            notation=prefix + notation,
            is_success_count=is_success_count,
            limits=self.limits,
            target=target,
            criteria=criteria,
            dialect=self.dialect,
        )

    # --- tokens -------------------------------------------------------------------------------------------------

    def _skip_whitespace(self, start: int) -> int:
        if start >= len(self.scan) or not self.scan[start].isspace():
            return start
        match = _WHITESPACE.match(self.scan, start)
        assert match is not None  # `\s*` matches everywhere
        return match.end()

    def _advance(self, end: int) -> None:
        # Checked per token, so oversized input is refused before int() or deep trees ever see it.
        if end > self.limits.max_expression_length:
            raise DiceError("too_long", limit=self.limits.max_expression_length)
        self.pos = end
        self.ahead = self._skip_whitespace(end)

    def _take(self, pattern: re.Pattern[str], start: int) -> re.Match[str] | None:
        match = pattern.match(self.scan, start)
        if match is not None:
            self._advance(match.end())
        return match

    def _take_char(self, char: str) -> bool:
        """Consume `char` if it is the next token."""
        start = self.ahead
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
            start = self.ahead
            operator = self.scan[start : start + 1]
            if operator not in ("+", "-"):
                return left
            self._advance(start + 1)
            left = BinaryNode("+" if operator == "+" else "-", left, self._parse_product())

    def _parse_product(self) -> ExpressionNode:
        left = self._parse_unary()
        while True:
            start = self.ahead
            char = self.scan[start : start + 1]
            if char not in {"*", "/"}:
                return left
            operator: BinaryOperator = "//" if self.scan.startswith("//", start) else "/" if char == "/" else "*"
            self._advance(start + len(operator))
            right_start = self.ahead
            left = BinaryNode(operator, left, self._parse_unary(), right_start)

    def _parse_unary(self) -> ExpressionNode:
        negations = 0
        while self._take_char("-"):
            negations += 1
        operand = self._parse_primary()
        if self.noted:
            operand = self._parse_annotations(operand)
        for _ in range(negations):
            operand = NegationNode(operand)
        return operand

    def _parse_annotations(self, operand: ExpressionNode) -> ExpressionNode:
        while True:
            start = self.ahead
            if not self.scan.startswith("[", start):
                return operand
            note = self._take(_NOTE, start)
            text = "" if note is None else self.text[start + 1 : note.end() - 1].strip()
            if not text:
                raise self._syntax_error(start)
            operand = AnnotationNode(operand, text)

    def _parse_primary(self) -> ExpressionNode:
        start = self.ahead
        if self.scan.startswith("(", start):
            return self._parse_group(start)
        dice = self._take(_DICE, start)
        if dice is not None:
            # `d66` is BCDice's tens-and-ones roll; a 66-sided die is written with its count (`1d66`), as there.
            if not dice.group(1) and dice.group(2) == "66":
                return self._parse_d66(start)
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
        elements = [self._parse_sum()]
        is_set = False
        while self._take_char(","):
            is_set = True
            if self.scan.startswith(")", self.ahead):
                break
            elements.append(self._parse_sum())
        if not self._take_char(")"):
            raise self._syntax_error(self.ahead)
        self.depth -= 1
        selection = self._parse_group_selection()
        if is_set:
            return SetNode(tuple(elements), selection)
        return GroupNode(elements[0], selection)

    def _parse_group_selection(self) -> Pick | None:
        """A keep or drop after parentheses, at most one: nesting parentheses keeps again."""
        selection: Pick | None = None
        while True:
            start = self.ahead
            keyword = self._modifier_keyword(start, _GROUP_KEYWORDS)
            if not keyword:
                return selection
            picked = self._parse_pick(keyword, start)
            _refuse_duplicate(selection, start, _pick_name(picked, keyword))
            selection = picked

    def _parse_d66(self, start: int) -> D66Node:
        order = self._take(_D66_ORDER, self.pos)
        self.rolling.append((start, 2, False))
        return D66Node(cast(D66Order, order.group() if order else ""))

    def _parse_dice(self, match: re.Match[str]) -> DiceNode:
        position = match.start()
        count = int(match.group(1)) if match.group(1) else 1
        percentile = match.group(2) == "%"
        sides = 100 if percentile else int(match.group(2))
        self._check_dice(count, sides, position)
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
            minimum=modifiers.minimum,
            maximum=modifiers.maximum,
        )
        _validate_termination(node)
        self._add_dice(node)
        return node

    def _parse_bulk(self) -> tuple[ExpressionNode, str]:
        """BCDice's bulk roll `2b6+3b10`: dice of several sizes side by side; with a comparison (`3b6>=4`), in every
        dialect, how many of the dice meet it."""
        terms: list[tuple[int, int, int]] = []
        while True:
            start = self.ahead
            match = self._take(_BULK, start)
            if match is None:
                raise self._syntax_error(start)
            terms.append((int(match.group(1)), int(match.group(2)), start))
            plus = self.ahead
            if not self.scan.startswith("+", plus):
                break
            self._advance(plus + 1)
        operator = _OPERATOR.match(self.scan, self.ahead)
        success = None if operator is None else self._compared(operator)
        expression: ExpressionNode | None = None
        for count, sides, position in terms:
            self._check_dice(count, sides, position)
            node = DiceNode(count, sides, False, None, None, None, success, position, bulk=True)
            self._add_dice(node)
            expression = node if expression is None else BinaryNode("+", expression, node)
        assert expression is not None  # the loop reads one term at least
        notation = "+".join(f"{count}b{sides}" for count, sides, _ in terms)
        return expression, notation if success is None else notation + success.notation(bare_equality=False)

    def _parse_target(self) -> Comparison | None:
        """What the whole total is compared with (`2d6+3>=10`), if anything. As in BCDice, only a roll of dice
        has a target."""
        operator = _OPERATOR.match(self.scan, self.ahead)
        if operator is None:
            return None
        if not self.rolling:
            raise self._syntax_error(self.ahead)
        return self._compared(operator)

    def _compared(self, operator: re.Match[str]) -> Comparison:
        """The comparison `operator` begins, with a number or arithmetic without dice (`>=5+3`, as BCDice allows)."""
        self._advance(operator.end())
        value_start = self.ahead
        rolling = len(self.rolling)
        value = self._parse_sum()
        if len(self.rolling) > rolling:
            raise self._syntax_error(value_start)
        target, _ = _bounds(value, self.limits)
        if abs(target) > self.limits.max_magnitude:
            raise DiceError("too_large", limit=self.limits.max_magnitude)
        return Comparison(cast(ComparisonOperator, operator.group()), target)

    def _check_dice(self, count: int, sides: int, position: int) -> None:
        if count == 0:
            raise DiceError("zero_dice", position=position)
        if sides == 0:
            raise DiceError("zero_sides", position=position)
        if sides > self.limits.max_sides:
            raise DiceError("too_many_sides", limit=self.limits.max_sides, sides=sides, position=position)

    def _add_dice(self, node: DiceNode) -> None:
        self.dice_nodes.append(node)
        self.rolling.append((node.position, node.count, node.success is not None))

    def _parse_modifier(self, modifiers: "_Modifiers") -> bool:
        """Parse one modifier into `modifiers`; False when the next token is not a modifier."""
        start = self.ahead
        char = self.scan[start : start + 1]
        if char == "!":
            self._advance(start + 1)
            threshold = self._take(_BARE_OR_COMPARISON, self.pos)
            faces = _comparison(threshold) if threshold else Comparison("=", modifiers.sides)
            modifiers.set_explode(Explode(faces, once=False), start, "!")
            return True
        if char in ("<", ">", "="):
            if self.reading.compares_totals:
                return False  # the roll's target, read once the whole expression is
            comparison = self._take(_COMPARISON, start)
            if comparison is None:
                raise self._syntax_error(start)
            modifiers.set_success(_comparison(comparison), start)
            return True
        keyword = self._modifier_keyword(start, _ALL_KEYWORDS)
        if keyword in _PICK_KEYWORDS:
            picked = self._parse_pick(keyword, start)
            modifiers.set_selection(picked, start, _pick_name(picked, keyword))
        elif keyword in _REROLL_KEYWORDS:
            faces = self._parse_modifier_faces(start, keyword)
            modifiers.set_reroll(Reroll(faces, once=_REROLL_KEYWORDS[keyword]), start)
        elif keyword in _EXPLODE_KEYWORDS:
            faces = self._parse_modifier_faces(start, keyword)
            modifiers.set_explode(Explode(faces, once=_EXPLODE_KEYWORDS[keyword]), start, keyword)
        elif keyword in _BOUND_KEYWORDS:
            self._advance(start + len(keyword))
            bound = self._take(_INTEGER, self.pos)
            if bound is None:
                raise self._syntax_error(self.pos)
            modifiers.set_bound(keyword, int(bound.group()), start)
        else:
            return False
        return True

    def _parse_modifier_faces(self, start: int, keyword: str) -> Comparison:
        self._advance(start + len(keyword))
        comparison = self._take(_BARE_OR_COMPARISON, self.pos)
        if comparison is None:
            raise self._syntax_error(self.pos)
        return _comparison(comparison)

    def _parse_pick(self, keyword: str, start: int) -> Pick:
        """A keep or drop. A comparison right after `k` or `p` belongs to it (`k>3` keeps the dice above 3); a bare
        number after `k` is a count, or in d20's reading a face (`k3` keeps the 3s)."""
        self._advance(start + len(keyword))
        if keyword in _SELECTION_KEYWORDS:
            return self._counted(_SELECTION_KEYWORDS[keyword], start)
        comparison = self._take(_COMPARISON, self.pos)
        if comparison is not None:
            return FaceSelection(keyword == "k", _comparison(comparison))
        if keyword == "k" and not self.reading.keeps_faces:
            return self._counted("kh", start)
        face = self._take(_INTEGER, self.pos)
        if face is not None:
            return FaceSelection(keyword == "k", Comparison("=", int(face.group())))
        if keyword == "k":  # a bare `k` keeps the highest die in every reading
            return Selection("kh", 1)
        raise self._syntax_error(self.pos)

    def _counted(self, mode: SelectionMode, start: int) -> Selection:
        count = self._take(_INTEGER, self.pos)
        selection = Selection(mode, int(count.group()) if count else 1)
        if selection.count == 0:
            raise DiceError("zero_keep_drop", position=start)
        return selection

    def _modifier_keyword(self, start: int, keywords: dict[str, list[str]]) -> str:
        """The keyword of `keywords` at `start`, or "" if none.

        Attached to the term, keywords may run together (`2d20khr1`); after whitespace the whole word must be
        a keyword, so that `1d20 rogue` stays a comment instead of becoming a broken `ro` modifier.
        """
        candidates = keywords.get(self.scan[start : start + 1])
        if candidates is None:
            return ""
        if start == self.pos:
            return next((keyword for keyword in candidates if self.scan.startswith(keyword, start)), "")
        letters = _LETTERS.match(self.scan, start)
        word = letters.group() if letters else ""
        return word if word in candidates else ""

    def _parse_comment(self) -> str | None:
        start = self.ahead
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
        if not any(counts for _, _, counts in self.rolling):
            return False
        summing = [position for position, _, counts in self.rolling if not counts]
        if summing:
            raise DiceError("bad_success_use", position=summing[0])
        return True

    def _validate_dice_count(self, repeats: int) -> None:
        requested = repeats * sum(count for _, count, _ in self.rolling)
        if requested > self.limits.max_dice:
            raise DiceError("too_many_dice", limit=self.limits.max_dice, requested=requested)

    def _validate_magnitude(self, expression: ExpressionNode, repeats: int) -> None:
        low, high = _bounds(expression, self.limits)
        if repeats * max(abs(low), abs(high)) > self.limits.max_magnitude:
            raise DiceError("too_large", limit=self.limits.max_magnitude)


class _Modifiers:
    """Collects a dice term's modifiers, each kind at most once, in whatever order they were written."""

    def __init__(self, sides: int) -> None:
        self.sides = sides
        self.reroll: Reroll | None = None
        self.explode: Explode | None = None
        self.selection: Pick | None = None
        self.success: Comparison | None = None
        self.minimum: int | None = None
        self.maximum: int | None = None

    def set_reroll(self, reroll: Reroll, position: int) -> None:
        _refuse_duplicate(self.reroll, position, "r")
        self.reroll = reroll

    def set_explode(self, explode: Explode, position: int, written: str) -> None:
        _refuse_duplicate(self.explode, position, written)
        self.explode = explode

    def set_selection(self, selection: Pick, position: int, written: str) -> None:
        _refuse_duplicate(self.selection, position, written)
        self.selection = selection

    def set_success(self, success: Comparison, position: int) -> None:
        _refuse_duplicate(self.success, position, success.operator)
        self.success = success

    def set_bound(self, keyword: str, value: int, position: int) -> None:
        if keyword == "mi":
            _refuse_duplicate(self.minimum, position, keyword)
            self.minimum = value
        else:
            _refuse_duplicate(self.maximum, position, keyword)
            self.maximum = value


def _refuse_duplicate(existing: object, position: int, modifier: str) -> None:
    if existing is not None:
        raise DiceError("duplicate_modifier", position=position, modifier=modifier)


def _pick_name(picked: Pick, keyword: str) -> str:
    """How a refusal names a keep or drop: by its mode (`kl`), or as written (`p`)."""
    return picked.mode if isinstance(picked, Selection) else keyword


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
    if node.explode is not None and not node.explode.once:
        exploding = node.explode.comparison.face_range(node.sides)
        # Faces that survive rerolling are those outside `rerolled`; all of them exploding means no end.
        if len(rerolled) + len(exploding) - _overlap(rerolled, exploding) == node.sides:
            raise DiceError("always_explodes", position=node.position)


def _overlap(first: range, second: range) -> int:
    return max(0, min(first.stop, second.stop) - max(first.start, second.start))


def _bounds(node: ExpressionNode, limits: DiceLimits) -> tuple[int, int]:
    """The lowest and highest value `node` can take (possibly wider), so that oversized totals and divisors that
    could be zero are refused before rolling."""
    if isinstance(node, NumberNode):
        return node.value, node.value
    if isinstance(node, DiceNode):
        return _dice_bounds(node, limits)
    if isinstance(node, D66Node):
        return 11, 66
    if isinstance(node, AnnotationNode):
        return _bounds(node.inner, limits)
    if isinstance(node, NegationNode):
        low, high = _bounds(node.operand, limits)
        return -high, -low
    if isinstance(node, GroupNode | SetNode):
        inner = [node.inner] if isinstance(node, GroupNode) else list(node.elements)
        each = [_bounds(element, limits) for element in inner]
        if node.selection is None:
            return sum(low for low, _ in each), sum(high for _, high in each)
        # Any of them may be dropped.
        return sum(min(low, 0) for low, _ in each), sum(max(high, 0) for _, high in each)
    (a, b), (c, d) = _bounds(node.left, limits), _bounds(node.right, limits)
    if node.operator == "+":
        return a + c, b + d
    if node.operator == "-":
        return a - d, b - c
    if node.operator == "*":
        corners = [a * c, a * d, b * c, b * d]
    else:
        if c <= 0 <= d:
            raise DiceError("division_by_zero", position=node.position)
        # Rounding down is monotonic in each operand while the divisor keeps its sign.
        corners = [a // c, a // d, b // c, b // d]
    return min(corners), max(corners)


def _dice_bounds(node: DiceNode, limits: DiceLimits) -> tuple[int, int]:
    highest, lowest = node.face_bounds()
    if node.explode is None:
        most = node.count
    elif node.explode.once:
        most = node.count + 1
    else:
        most = limits.max_dice
    selection = node.selection
    if selection is None:
        fewest_counted, most_counted = node.count, most
    elif isinstance(selection, FaceSelection):
        fewest_counted, most_counted = 0, most
    elif selection.mode in ("kh", "kl"):
        fewest_counted, most_counted = min(node.count, selection.count), min(most, selection.count)
    else:
        fewest_counted, most_counted = max(node.count - selection.count, 0), max(most - selection.count, 0)
    if node.success is not None:
        return 0, most_counted
    return fewest_counted * lowest, most_counted * highest
