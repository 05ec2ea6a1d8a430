"""Compact, language-neutral Discord-markdown rendering of a roll."""

from rules.dice.results import (
    BinaryResult,
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
    full = _render_lines(result, None)
    if len(full) <= max_length:
        return full
    most_dice = max((len(term.dice) for roll in result.rolls for term in _dice_terms(roll.tree)), default=0)
    # Longest rendering that fits: the length only grows with the number of dice shown per term.
    fewest, most = 0, most_dice
    best: str | None = None
    while fewest <= most:
        shown = (fewest + most) // 2
        candidate = _render_lines(result, shown)
        if len(candidate) <= max_length:
            best = candidate
            fewest = shown + 1
        else:
            most = shown - 1
    return best if best is not None else _render_totals(result)


def _render_lines(result: RollResult, per_term: int | None) -> str:
    if not result.repeated:
        roll = result.rolls[0]
        return f"{_render_node(roll.tree, per_term)} = {roll.total}"
    lines = [
        f"{number}: {_render_node(roll.tree, per_term)} = {roll.total}"
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
        return f"({_render_node(node.inner, per_term)})"
    assert type(node) is NegationResult
    return f"-{_render_node(node.operand, per_term)}"


def _render_dice(term: DiceResult, per_term: int | None) -> str:
    visible = term.dice if per_term is None else term.dice[:per_term]
    texts = [_render_die(die) for die in visible]
    if len(visible) < len(term.dice):
        texts.append(f"…+{len(term.dice) - len(visible)}")
    return f"{term.notation} [{', '.join(texts)}]"


def _render_die(die: Die) -> str:
    face, kept, exploded, _rerolled, success = die
    if not exploded and kept and not success:
        return str(face)
    text = f"{face}!" if exploded else str(face)
    if success:
        return f"**{text}**"
    if not kept:
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
