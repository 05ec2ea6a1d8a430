"""Compact, language-neutral Discord-markdown rendering of a roll."""

from dataclasses import dataclass

from rules.dice.results import (
    DiceResult,
    Die,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    RollResult,
)

DEFAULT_RENDER_LENGTH = 1500
# `*` would collide with markdown emphasis next to bold successes.
_OPERATOR_SYMBOLS = {"+": "+", "-": "-", "*": "×"}


def render(result: RollResult, max_length: int = DEFAULT_RENDER_LENGTH) -> str:
    """Render every die, or, if that exceeds `max_length`, as many leading dice per term as fit.

    Hidden dice are summarised as `…+N` inside their term's brackets. If even that does not fit, the dice are
    left out entirely: one `expression = total` line, or `i: total` lines for repeats. The comment is not
    rendered; it is user text the caller must escape in its own way.
    """
    die_texts = {
        id(term): [_render_die(die) for die in term.dice]
        for expression_roll in result.rolls
        for term in _dice_terms(expression_roll.tree)
    }
    full = _render_lines(result, _DiceShown(die_texts, per_term=None))
    if len(full) <= max_length:
        return full
    most_dice = max(map(len, die_texts.values()), default=0)
    # Longest rendering that fits: the length only grows with the number of dice shown per term.
    fewest, most = 0, most_dice
    best: str | None = None
    while fewest <= most:
        shown = (fewest + most) // 2
        candidate = _render_lines(result, _DiceShown(die_texts, per_term=shown))
        if len(candidate) <= max_length:
            best = candidate
            fewest = shown + 1
        else:
            most = shown - 1
    return best if best is not None else _render_totals(result)


@dataclass(frozen=True)
class _DiceShown:
    """Each term's rendered dice (keyed by the term's id, computed once) and how many of them to show."""

    die_texts: dict[int, list[str]]
    per_term: int | None


def _render_lines(result: RollResult, shown: "_DiceShown") -> str:
    if not result.repeated:
        roll = result.rolls[0]
        return f"{_render_node(roll.tree, shown)} = {roll.total}"
    lines = [
        f"{number}: {_render_node(roll.tree, shown)} = {roll.total}"
        for number, roll in enumerate(result.rolls, start=1)
    ]
    lines.append(f"Σ = {result.total}")
    return "\n".join(lines)


def _render_totals(result: RollResult) -> str:
    if not result.repeated:
        return f"{result.expression.replace('*', '×')} = {result.total}"
    lines = [f"{number}: {roll.total}" for number, roll in enumerate(result.rolls, start=1)]
    lines.append(f"Σ = {result.total}")
    return "\n".join(lines)


def _render_node(node: ResultNode, shown: "_DiceShown") -> str:
    if isinstance(node, NumberResult):
        return str(node.value)
    if isinstance(node, DiceResult):
        return _render_dice(node, shown)
    if isinstance(node, GroupResult):
        return f"({_render_node(node.inner, shown)})"
    if isinstance(node, NegationResult):
        return f"-{_render_node(node.operand, shown)}"
    left = _render_node(node.left, shown)
    right = _render_node(node.right, shown)
    return f"{left} {_OPERATOR_SYMBOLS[node.operator]} {right}"


def _render_dice(term: DiceResult, shown: "_DiceShown") -> str:
    texts = shown.die_texts[id(term)]
    visible = texts if shown.per_term is None else texts[: shown.per_term]
    hidden = len(texts) - len(visible)
    summary = [f"…+{hidden}"] if hidden else []
    return f"{term.notation} [{', '.join([*visible, *summary])}]"


def _render_die(die: Die) -> str:
    text = f"{die.face}!" if die.exploded else str(die.face)
    if die.success:
        return f"**{text}**"
    if not die.kept:
        return f"~~{text}~~"
    return text


def _dice_terms(node: ResultNode) -> list[DiceResult]:
    if isinstance(node, DiceResult):
        return [node]
    if isinstance(node, NumberResult):
        return []
    if isinstance(node, GroupResult):
        return _dice_terms(node.inner)
    if isinstance(node, NegationResult):
        return _dice_terms(node.operand)
    return _dice_terms(node.left) + _dice_terms(node.right)
