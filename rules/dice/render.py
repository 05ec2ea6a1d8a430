"""Compact, language-neutral Discord-markdown rendering of a roll; the words of its verdicts come from the caller."""

import re
from typing import NamedTuple, Protocol

from rules.dice.results import (
    AnnotationResult,
    BinaryResult,
    D66Result,
    DiceResult,
    Die,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    RollResult,
    SetResult,
)

DEFAULT_RENDER_LENGTH = 1500
# `*` would collide with markdown emphasis next to bold successes.
_OPERATOR_SYMBOLS = {"+": "+", "-": "-", "*": "×", "/": "/", "//": "//"}
# What markdown would read in a player's annotation: emphasis, strikes, code, spoilers, mentions.
_MARKDOWN = re.compile(r"([\\*_~`|<])")


class SuccessCount(NamedTuple):
    """How many dice were counted, and by what (`> 7`, or `> 7 / ≥ 5` for several comparisons)."""

    counted: int
    criteria: str


class TargetVerdict(NamedTuple):
    """Whether the total met its target (`≥ 7`)."""

    target: str
    met: bool


class TargetTally(NamedTuple):
    """How many of a repeated roll's totals met their target."""

    target: str
    met: int
    rolls: int


Summary = SuccessCount | TargetVerdict | TargetTally


class RollWords(Protocol):
    """The caller's words for a roll's verdicts, in its reader's language."""

    def verdict(self, met: bool) -> str: ...

    def summary(self, summary: Summary) -> str: ...


def summaries(result: RollResult) -> list[Summary]:
    """What a roll's numbers mean, in the order they are said: the successes it counted, then its verdict. A
    count of successes is always said, so that a zero is never mistaken for a sum."""
    found: list[Summary] = []
    if result.is_success_count:
        criteria = " / ".join(comparison.sign() for comparison in result.criteria)
        found.append(SuccessCount(sum([roll.total for roll in result.rolls]), criteria))
    target = result.target
    if target is not None:
        if result.repeated:
            found.append(TargetTally(target.sign(), sum([bool(roll.met) for roll in result.rolls]), len(result.rolls)))
        else:
            found.append(TargetVerdict(target.sign(), bool(result.rolls[0].met)))
    return found


def render(result: RollResult, max_length: int = DEFAULT_RENDER_LENGTH, words: RollWords | None = None) -> str:
    """Render every die, or, if that exceeds `max_length`, as many leading dice per term as fit.

    Hidden dice are summarised as `…+N` inside their term's brackets. If even that does not fit, the dice are
    left out entirely: one `expression = total` line, or `i: total` lines for repeats. With `words`, the lines
    end with what the numbers mean (the successes counted, the verdict), and each repeat of a target roll with
    its verdict. The comment is not rendered; it is user text the caller must escape in its own way.
    """
    if words is None or not (result.is_success_count or result.target is not None):
        return _fitted(result, max_length, None)
    closing = [words.summary(summary) for summary in summaries(result)]
    verdicts = None
    if result.target is not None and result.repeated:
        verdicts = [words.verdict(bool(roll.met)) for roll in result.rolls]
    room = max_length - sum([len(line) + 1 for line in closing])
    return "\n".join([_fitted(result, room, verdicts), *closing])


def _fitted(result: RollResult, max_length: int, verdicts: list[str] | None) -> str:
    full = _render_lines(result, None, verdicts)
    if len(full) <= max_length:
        return full
    most_dice = max((len(term.dice) for roll in result.rolls for term in _dice_terms(roll.tree)), default=0)
    # Longest rendering that fits: the length only grows with the number of dice shown per term.
    fewest, most = 0, most_dice
    best: str | None = None
    while fewest <= most:
        shown = (fewest + most) // 2
        candidate = _render_lines(result, shown, verdicts)
        if len(candidate) <= max_length:
            best = candidate
            fewest = shown + 1
        else:
            most = shown - 1
    return best if best is not None else _render_totals(result, verdicts)


def _render_lines(result: RollResult, per_term: int | None, verdicts: list[str] | None) -> str:
    if not result.repeated:
        roll = result.rolls[0]
        return f"{_render_node(roll.tree, per_term)} = {roll.total}"
    lines = [
        f"{number}: {_render_node(roll.tree, per_term)} = {roll.total}{_verdict(verdicts, number)}"
        for number, roll in enumerate(result.rolls, start=1)
    ]
    if result.target is None:
        lines.append(f"Σ = {result.total}")
    return "\n".join(lines)


def _verdict(verdicts: list[str] | None, number: int) -> str:
    return "" if verdicts is None else f" → **{verdicts[number - 1]}**"


def _render_totals(result: RollResult, verdicts: list[str] | None) -> str:
    if not result.repeated:
        return f"{result.expression.replace('*', '×')} = {result.total}"
    lines = [f"{number}: {roll.total}{_verdict(verdicts, number)}" for number, roll in enumerate(result.rolls, start=1)]
    if result.target is None:
        lines.append(f"Σ = {result.total}")
    return "\n".join(lines)


def _render_node(node: ResultNode, per_term: int | None) -> str:
    if type(node) is DiceResult:
        return _render_dice(node, per_term)
    if type(node) is BinaryResult:
        left = _render_node(node.left, per_term)
        right = _render_node(node.right, per_term)
        return f"{left} {_OPERATOR_SYMBOLS[node.operator]} {right}"
    if type(node) is NumberResult:
        return str(node.value)
    if type(node) is GroupResult:
        return f"({_render_node(node.inner, per_term)}){node.selection}"
    if type(node) is NegationResult:
        return f"-{_render_node(node.operand, per_term)}"
    if type(node) is SetResult:
        shown = [
            _render_node(element, per_term) if keep else f"~~{_unmarked(_render_node(element, per_term))}~~"
            for element, keep in zip(node.elements, node.kept, strict=True)
        ]
        comma = "," if node.comma and len(shown) == 1 else ""
        return f"({', '.join(shown)}{comma}){node.selection}"
    if type(node) is D66Result:
        return f"{node.notation} [{', '.join(str(die.face) for die in node.dice)}]"
    assert type(node) is AnnotationResult
    return f"{_render_node(node.inner, per_term)} [{_escaped(node.note)}]"


def _escaped(note: str) -> str:
    return _MARKDOWN.sub(r"\\\1", note)


def _unmarked(text: str) -> str:
    """A dropped element's text without the marks of its own dice, which would undo the strike through it."""
    return text.replace("~~", "").replace("**", "")


def _render_dice(term: DiceResult, per_term: int | None) -> str:
    visible = term.dice if per_term is None else term.dice[:per_term]
    # Most dice carry no mark: their face alone, without a call.
    texts = [
        str(die[0]) if die[1] and not die[2] and not die[4] and die[5] is None else _render_die(die) for die in visible
    ]
    if len(visible) < len(term.dice):
        texts.append(f"…+{len(term.dice) - len(visible)}")
    return f"{term.notation} [{', '.join(texts)}]"


def _render_die(die: Die) -> str:
    face, kept, exploded, _rerolled, success, rolled = die
    if rolled is None and not exploded and kept and not success:
        return str(face)
    text = str(face) if rolled is None else f"{rolled}→{face}"
    if exploded:
        text += "!"
    if success:
        return f"**{text}**"
    if not kept:
        return f"~~{text}~~"
    return text


def _dice_terms(node: ResultNode) -> list[DiceResult]:
    if isinstance(node, DiceResult):
        return [node]
    if isinstance(node, NumberResult | D66Result):
        return []
    if isinstance(node, GroupResult | AnnotationResult):
        return _dice_terms(node.inner)
    if isinstance(node, NegationResult):
        return _dice_terms(node.operand)
    if isinstance(node, SetResult):
        return [term for element in node.elements for term in _dice_terms(element)]
    return _dice_terms(node.left) + _dice_terms(node.right)
