"""Property tests: random valid expressions, bounds of plain rolls, and junk input."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import (
    DEFAULT_DIALECT,
    DEFAULT_LIMITS,
    DEFAULT_RENDER_LENGTH,
    DIALECTS,
    AnnotationResult,
    BinaryResult,
    D66Result,
    DiceDialect,
    DiceError,
    DiceResult,
    FixedDice,
    GroupResult,
    NegationResult,
    NumberResult,
    ResultNode,
    SeededDice,
    SetResult,
    parse,
    render,
    roll,
)

SIDES = [2, 3, 4, 6, 8, 10, 12, 20, 100, 1000]


def dice_in(node: ResultNode) -> int:
    if isinstance(node, DiceResult | D66Result):
        return len(node.dice)
    if isinstance(node, NumberResult):
        return 0
    if isinstance(node, GroupResult | AnnotationResult):
        return dice_in(node.inner)
    if isinstance(node, NegationResult):
        return dice_in(node.operand)
    if isinstance(node, SetResult):
        return sum(dice_in(element) for element in node.elements)
    assert isinstance(node, BinaryResult)
    return dice_in(node.left) + dice_in(node.right)


@st.composite
def dice_terms(draw: st.DrawFn, *, counts_successes: bool) -> str:
    sides = draw(st.sampled_from(SIDES))
    count = draw(st.sampled_from(["", *map(str, range(1, 11))]))
    modifiers = []
    reroll = draw(st.sampled_from(["", "r1", "rr1", "ro1", "r<2", f"ro>{sides - 1}", "ro<3"]))
    modifiers.append(reroll)
    # A d2 that rerolls its 1 can only show 2, so exploding on 2 would never end.
    if sides >= 3:
        explosions = ["", "!", f"!>{sides - 1}", f"!={sides}", f"!>={sides}", f"e{sides}", f"ra{sides}", "ra1"]
        modifiers.append(draw(st.sampled_from(explosions)))
    modifiers.append(draw(st.sampled_from(["", "mi2", "ma5", "mi3ma4", f"mi{sides + 5}", "ma0"])))
    picks = ["", "k", "kh2", "kl1", "dh1", "dl2", "k12", "k>3", "k<=2", "p1", "p>4", "pl1", "ph2"]
    modifiers.append(draw(st.sampled_from(picks)))
    if counts_successes:
        modifiers.append(" " + draw(st.sampled_from([f">{sides // 2}", f">={sides}", "<2", "=1", "<=3"])))
    order = draw(st.permutations(modifiers))
    spacing = draw(st.sampled_from(["", " "]))
    return f"{count}d{sides}" + spacing.join(order)


@st.composite
def operands(draw: st.DrawFn, *, counts_successes: bool) -> str:
    term = dice_terms(counts_successes=counts_successes)
    numbers = st.integers(0, 20).map(str)
    plain = term | numbers if counts_successes else term | numbers | st.sampled_from(["d66", "D66a", "d66D"])
    kind = draw(st.sampled_from(["plain", "set", "picked", "noted"]))
    if kind == "set":
        elements = draw(st.lists(plain, min_size=1, max_size=3))
        return (
            "("
            + ", ".join(elements)
            + ("," if len(elements) == 1 else "")
            + ")"
            + draw(st.sampled_from(["", "kh1", "kl2", "k", "p1", "k>3"]))
        )
    if kind == "picked":
        return f"({draw(term)}){draw(st.sampled_from(['kh1', 'kl2', 'dl1', 'k<4']))}"
    if kind == "noted":
        return f"{draw(plain)}{draw(st.sampled_from(['[fire]', ' [冷気]', '[a*b]']))}"
    return draw(plain)


@st.composite
def expressions(draw: st.DrawFn, dialect: DiceDialect = DEFAULT_DIALECT) -> str:
    # Comparisons after dice count successes only in the Roll20 reading; in the others they are the target.
    counts_successes = dialect == "roll20" and draw(st.booleans())
    products = draw(
        st.lists(
            st.tuples(operands(counts_successes=counts_successes), st.sampled_from(["", "*2", "*-1", "/2", "//3"]),
                      st.booleans()),
            min_size=1,
            max_size=4,
        )
    )  # fmt: skip
    terms = [f"({term}){multiplier}" if grouped else f"{term}{multiplier}" for term, multiplier, grouped in products]
    operators = draw(st.lists(st.sampled_from([" + ", "-", " - "]), min_size=len(terms) - 1, max_size=len(terms) - 1))
    body = terms[0] + "".join(operator + term for operator, term in zip(operators, terms[1:], strict=True))
    if "d" in body and draw(st.booleans()):  # only dice have a target
        body = f"({body}){draw(st.sampled_from(['>=10', ' < 3', '=0', '<=-2+5']))}"
    repeats = draw(st.sampled_from(["", "2#", "3 # "]))
    comment = draw(st.sampled_from(["", " # note", " stealth check", " 潜伏"]))
    if not repeats and body.isdigit() and comment.startswith(" #"):
        # `1 # note` is a request to repeat `note` once: a leading `N#` is always a repeat.
        comment = ""
    return repeats + body + comment


@st.composite
def dialect_and_expression(draw: st.DrawFn) -> tuple[DiceDialect, str]:
    dialect = draw(st.sampled_from(DIALECTS))
    return dialect, draw(expressions(dialect))


@settings(max_examples=300, deadline=None)
@given(written=dialect_and_expression(), seed=st.integers(0, 2**32))
def test_valid_expressions_always_evaluate_within_the_dice_cap(written: tuple[DiceDialect, str], seed: int) -> None:
    dialect, expression = written
    parsed = parse(expression, dialect=dialect)
    result = parsed.evaluate(SeededDice(seed))

    assert result.dice_rolled <= DEFAULT_LIMITS.max_dice
    assert result.dice_rolled == sum(dice_in(expression_roll.tree) for expression_roll in result.rolls)
    if result.target is None:
        assert result.total == sum(expression_roll.total for expression_roll in result.rolls)
    else:
        assert all(roll.met == result.target.holds(roll.total) for roll in result.rolls)
    assert len(render(result)) <= DEFAULT_RENDER_LENGTH
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    assert parse(parsed.notation, dialect=dialect).notation == parsed.notation
    assert parse(parsed.notation, dialect=dialect).expression == parsed.expression
    assert parse(parsed.notation, dialect=dialect).target == parsed.target


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


NOTATION_ALPHABET = "0123456789dD%!<>=()+-*/,[]#khlrompeaisnbB  \u3000１ｄ＋"


@settings(max_examples=400, deadline=None)
@given(
    junk=st.text(alphabet=st.sampled_from(NOTATION_ALPHABET), max_size=40)
    | st.text(max_size=40)
    | st.text(alphabet=st.sampled_from("(1d6+-*/,)"), min_size=150, max_size=260),
    dialect=st.sampled_from(DIALECTS),
)
def test_junk_is_a_dice_error_or_a_valid_roll(junk: str, dialect: DiceDialect) -> None:
    try:
        result = roll(junk, SeededDice(0), dialect=dialect)
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


@settings(max_examples=100, deadline=None)
@given(first=st.integers(1, 6), second=st.integers(1, 6), order=st.sampled_from(["", "n", "a", "s", "d"]))
def test_d66_reads_its_two_dice_as_tens_and_ones(first: int, second: int, order: str) -> None:
    result = roll(f"D66{order}", FixedDice([first, second]))

    tens, ones = divmod(result.total, 10)
    if order in ("a", "s"):
        assert (tens, ones) == (min(first, second), max(first, second))
    elif order == "d":
        assert (tens, ones) == (max(first, second), min(first, second))
    else:
        assert (tens, ones) == (first, second)


@settings(max_examples=100, deadline=None)
@given(
    faces=st.lists(st.integers(1, 6), min_size=1, max_size=20),
    target=st.integers(1, 7),
    dialect=st.sampled_from(DIALECTS),
)
def test_a_bulk_roll_counts_the_dice_that_meet_its_target_in_every_dialect(
    faces: list[int], target: int, dialect: DiceDialect
) -> None:
    result = roll(f"{len(faces)}B6>={target}", FixedDice(faces), dialect=dialect)

    assert result.is_success_count
    assert result.total == sum(face >= target for face in faces)


@settings(max_examples=100, deadline=None)
@given(faces=st.lists(st.integers(1, 20), min_size=1, max_size=30), low=st.integers(0, 25), high=st.integers(0, 25))
def test_minimum_and_maximum_bound_every_face(faces: list[int], low: int, high: int) -> None:
    result = roll(f"{len(faces)}d20mi{low}ma{high}", FixedDice(faces))

    assert result.total == sum(min(max(face, low), high) for face in faces)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(-20, 20), min_size=1, max_size=8), keep=st.integers(1, 10))
def test_a_set_keeps_its_highest_values(values: list[int], keep: int) -> None:
    written = "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + f")kh{keep}"

    assert roll(written, FixedDice([])).total == sum(sorted(values, reverse=True)[:keep])


@settings(max_examples=100, deadline=None)
@given(
    faces=st.lists(st.integers(1, 6), min_size=2, max_size=2), modifier=st.integers(-5, 5), target=st.integers(0, 20)
)
def test_a_target_roll_meets_its_target_exactly_when_its_total_does(
    faces: list[int], modifier: int, target: int
) -> None:
    result = roll(f"2d6+{modifier}>={target}" if modifier >= 0 else f"2d6-{-modifier}>={target}", FixedDice(faces),
                  dialect="bcdice")  # fmt: skip

    assert result.total == sum(faces) + modifier
    assert result.rolls[0].met == (result.total >= target)
