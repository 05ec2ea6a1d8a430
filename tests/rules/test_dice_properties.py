"""Property tests: random valid expressions, bounds of plain rolls, and junk input."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import (
    DEFAULT_LIMITS,
    DEFAULT_RENDER_LENGTH,
    BinaryResult,
    DiceError,
    DiceResult,
    FixedDice,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    SeededDice,
    parse,
    render,
    roll,
)

SIDES = [2, 3, 4, 6, 8, 10, 12, 20, 100, 1000]


def dice_in(node: ResultNode) -> int:
    if isinstance(node, DiceResult):
        return len(node.dice)
    if isinstance(node, NumberResult):
        return 0
    if isinstance(node, GroupResult):
        return dice_in(node.inner)
    if isinstance(node, NegationResult):
        return dice_in(node.operand)
    assert isinstance(node, BinaryResult)
    return dice_in(node.left) + dice_in(node.right)


@st.composite
def dice_terms(draw: st.DrawFn, *, counts_successes: bool) -> str:
    sides = draw(st.sampled_from(SIDES))
    count = draw(st.sampled_from(["", *map(str, range(1, 11))]))
    modifiers = []
    reroll = draw(st.sampled_from(["", "r1", "ro1", "r<2", f"ro>{sides - 1}", "ro<3"]))
    modifiers.append(reroll)
    # A d2 that rerolls its 1 can only show 2, so exploding on 2 would never end.
    if sides >= 3:
        modifiers.append(draw(st.sampled_from(["", "!", f"!>{sides - 1}", f"!={sides}", f"!>={sides}"])))
    modifiers.append(draw(st.sampled_from(["", "k", "kh2", "kl1", "dh1", "dl2", "k12"])))
    if counts_successes:
        modifiers.append(" " + draw(st.sampled_from([f">{sides // 2}", f">={sides}", "<2", "=1", "<=3"])))
    order = draw(st.permutations(modifiers))
    spacing = draw(st.sampled_from(["", " "]))
    return f"{count}d{sides}" + spacing.join(order)


@st.composite
def expressions(draw: st.DrawFn) -> str:
    counts_successes = draw(st.booleans())
    operand = dice_terms(counts_successes=counts_successes) | st.integers(0, 20).map(str)
    products = draw(
        st.lists(
            st.tuples(operand, st.sampled_from(["", "*2", "*-1"]), st.booleans()),
            min_size=1,
            max_size=4,
        )
    )
    terms = [f"({term}){multiplier}" if grouped else f"{term}{multiplier}" for term, multiplier, grouped in products]
    operators = draw(st.lists(st.sampled_from([" + ", "-", " - "]), min_size=len(terms) - 1, max_size=len(terms) - 1))
    body = terms[0] + "".join(operator + term for operator, term in zip(operators, terms[1:], strict=True))
    repeats = draw(st.sampled_from(["", "2#", "3 # "]))
    comment = draw(st.sampled_from(["", " # note", " stealth check", " 潜伏"]))
    if not repeats and body.isdigit() and comment.startswith(" #"):
        # `1 # note` is a request to repeat `note` once: a leading `N#` is always a repeat.
        comment = ""
    return repeats + body + comment


@settings(max_examples=150, deadline=None)
@given(expression=expressions(), seed=st.integers(0, 2**32))
def test_valid_expressions_always_evaluate_within_the_dice_cap(expression: str, seed: int) -> None:
    parsed = parse(expression)
    result = parsed.evaluate(SeededDice(seed))

    assert result.dice_rolled <= DEFAULT_LIMITS.max_dice
    assert result.dice_rolled == sum(dice_in(expression_roll.tree) for expression_roll in result.rolls)
    assert result.total == sum(expression_roll.total for expression_roll in result.rolls)
    assert len(render(result)) <= DEFAULT_RENDER_LENGTH
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    assert parse(parsed.notation).notation == parsed.notation
    assert parse(parsed.notation).expression == parsed.expression


@settings(max_examples=100, deadline=None)
@given(count=st.integers(1, 500), sides=st.integers(1, 1000), seed=st.integers(0, 2**32))
def test_plain_roll_total_lies_between_count_and_count_times_sides(count: int, sides: int, seed: int) -> None:
    result = roll(f"{count}d{sides}", SeededDice(seed))

    assert count <= result.total <= count * sides
    assert result.dice_rolled == count


@settings(max_examples=100, deadline=None)
@given(
    faces=st.lists(st.integers(1, 20), min_size=1, max_size=30),
    keep=st.integers(1, 35),
)
def test_keep_highest_never_below_keep_lowest(faces: list[int], keep: int) -> None:
    highest = roll(f"{len(faces)}d20kh{keep}", FixedDice(faces))
    lowest = roll(f"{len(faces)}d20kl{keep}", FixedDice(faces))
    dropped_lowest = roll(f"{len(faces)}d20dl{max(len(faces) - keep, 0) or 1}", FixedDice(faces))

    assert highest.total >= lowest.total
    assert highest.total == sum(sorted(faces, reverse=True)[:keep])
    if keep < len(faces):
        assert dropped_lowest.total == highest.total


NOTATION_ALPHABET = "0123456789dD%!<>=()+-*#khlro  \u3000１ｄ＋"


@settings(max_examples=300, deadline=None)
@given(
    junk=st.text(alphabet=st.sampled_from(NOTATION_ALPHABET), max_size=40)
    | st.text(max_size=40)
    | st.text(alphabet=st.sampled_from("(1d6+-*)"), min_size=150, max_size=260),
)
def test_junk_is_a_dice_error_or_a_valid_roll(junk: str) -> None:
    try:
        result = roll(junk, SeededDice(0))
    except DiceError as error:
        assert error.code
        return
    assert result.dice_rolled <= DEFAULT_LIMITS.max_dice
    render(result)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_expressions_at_the_limits_evaluate(seed: int) -> None:
    deep = "20#" + "(" * 10 + "25d1000kh24>500" + ")" * 10 + "*2"
    long = "+".join(["1d1000"] * 28) + "+1000"
    assert len(long) == DEFAULT_LIMITS.max_expression_length

    for expression in (deep, long, "500d1000dl250", "250d6r<3"):
        result = roll(expression, SeededDice(seed))
        assert len(render(result)) <= DEFAULT_RENDER_LENGTH
