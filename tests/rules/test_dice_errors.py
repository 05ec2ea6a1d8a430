"""Every error code, raised before any die is rolled (except the mid-roll dice cap)."""

import pytest

from rules.dice import ERROR_CODES, DiceDialect, DiceError, DiceLimits, FixedDice, parse, roll

# (expression, code, params); `FixedDice([])` proves no die was rolled before refusing.
REFUSALS: list[tuple[str, str, dict[str, int | str]]] = [
    ("", "empty", {}),
    ("   ", "empty", {}),
    ("# just a note", "empty", {}),
    ("1d20 +", "syntax", {"position": 6, "found": ""}),
    ("1d20 + x", "syntax", {"position": 7, "found": "x"}),
    ("4d6kx3", "syntax", {"position": 4, "found": "x3"}),
    ("4d6 kx3", "syntax", {"position": 4, "found": "kx3"}),
    ("1d20 kick2", "syntax", {"position": 5, "found": "kick2"}),
    ("1d20 d", "syntax", {"position": 5, "found": "d"}),
    ("1d20 r", "syntax", {"position": 6, "found": ""}),
    ("1d20 ro x", "syntax", {"position": 7, "found": ""}),
    ("4 d6", "syntax", {"position": 2, "found": "d6"}),
    ("(1d6", "syntax", {"position": 4, "found": ""}),
    ("1d6)", "syntax", {"position": 3, "found": ")"}),
    ("2d6 5", "syntax", {"position": 4, "found": "5"}),
    ("1d20 >", "syntax", {"position": 5, "found": ">"}),
    ("1d2d6", "syntax", {"position": 3, "found": "d6"}),
    ("5 >3", "syntax", {"position": 2, "found": ">3"}),
    ("3 # stealth", "syntax", {"position": 4, "found": "stealth"}),
    ("1d٣", "syntax", {"position": 1, "found": "d٣"}),
    ("+5", "syntax", {"position": 0, "found": "+5"}),
    ("1" + "+1" * 100, "too_long", {"limit": 200}),
    ("1d20 # " + "x" * 201, "comment_too_long", {"limit": 200, "length": 201}),
    ("(" * 11 + "1" + ")" * 11, "too_deep", {"limit": 10, "position": 10}),
    ("501d6", "too_many_dice", {"limit": 500, "requested": 501}),
    ("250d6+251d6", "too_many_dice", {"limit": 500, "requested": 501}),
    ("20#26d6", "too_many_dice", {"limit": 500, "requested": 520}),
    ("1d1001", "too_many_sides", {"limit": 1000, "sides": 1001, "position": 0}),
    ("21#1d6", "too_many_repeats", {"limit": 20, "repeats": 21}),
    ("1000000001", "too_large", {"limit": 1_000_000_000}),
    ("1d1000*1d1000*1001", "too_large", {"limit": 1_000_000_000}),
    ("0d6", "zero_dice", {"position": 0}),
    ("1d0", "zero_sides", {"position": 0}),
    ("0#1d6", "zero_repeats", {"position": 0}),
    ("4d6kh0", "zero_keep_drop", {"position": 3}),
    ("4d6dl0", "zero_keep_drop", {"position": 3}),
    ("1d1!", "always_explodes", {"position": 0}),
    ("2+1d6!>=1", "always_explodes", {"position": 2}),
    ("1d6!<=6", "always_explodes", {"position": 0}),
    ("1d6r<6!", "always_explodes", {"position": 0}),
    ("1d6r1!>=2", "always_explodes", {"position": 0}),
    ("1d6r<7", "always_rerolls", {"position": 0}),
    ("1d1r1", "always_rerolls", {"position": 0}),
    ("1d6r>0", "always_rerolls", {"position": 0}),
    ("4d6kh3kl1", "duplicate_modifier", {"position": 6, "modifier": "kl"}),
    ("3d6!!", "duplicate_modifier", {"position": 4, "modifier": "!"}),
    ("2d6r1ro2", "duplicate_modifier", {"position": 5, "modifier": "r"}),
    ("5d10>7<3", "duplicate_modifier", {"position": 6, "modifier": "<"}),
    ("5d10>7 + 1d6", "bad_success_use", {"position": 9}),
    ("1d6 + 5d10>7", "bad_success_use", {"position": 0}),
    ("5d10>7 + d66", "bad_success_use", {"position": 9}),
    ("10/0", "division_by_zero", {"position": 3}),
    ("10 // (1d6-1)", "division_by_zero", {"position": 6}),
    ("10/(5d10>7)", "division_by_zero", {"position": 3}),
    ("2d6>=1/0", "division_by_zero", {"position": 7}),
    ("2d6+3>=1d6", "syntax", {"position": 7, "found": "1d6"}),
    ("3b6kh1", "syntax", {"position": 3, "found": "kh1"}),
    ("2b6+3", "syntax", {"position": 4, "found": "3"}),
    ("1d6+2b6", "syntax", {"position": 5, "found": "b6"}),
    ("0b6", "zero_dice", {"position": 0}),
    ("d66dl1", "syntax", {"position": 3, "found": "dl1"}),
    ("d66kh1", "syntax", {"position": 3, "found": "kh1"}),
    ("1d20+5[]", "syntax", {"position": 6, "found": "[]"}),
    ("1d20[fire", "syntax", {"position": 4, "found": "[fire"}),
    ("4d6p", "syntax", {"position": 4, "found": ""}),
    ("1d20mi", "syntax", {"position": 6, "found": ""}),
    ("1d6e", "syntax", {"position": 4, "found": ""}),
    ("(1d6)r1", "syntax", {"position": 5, "found": "r1"}),
    ("()", "syntax", {"position": 1, "found": ")"}),
    ("3d6!ra1", "duplicate_modifier", {"position": 4, "modifier": "ra"}),
    ("1d6mi2mi3", "duplicate_modifier", {"position": 6, "modifier": "mi"}),
    ("4d6kh3p1", "duplicate_modifier", {"position": 6, "modifier": "p"}),
    ("(4d6)kh3kl1", "duplicate_modifier", {"position": 8, "modifier": "kl"}),
    ("1d6e<7", "always_explodes", {"position": 0}),
    ("1d6rr<7", "always_rerolls", {"position": 0}),
    ("(1d20)>1000000001", "too_large", {"limit": 1_000_000_000}),
]

# Refusals of one reading only: where a comparison after dice is the roll's target.
TARGET_REFUSALS: list[tuple[str, str, dict[str, int | str]]] = [
    ("1d20 >", "syntax", {"position": 6, "found": ""}),
    ("2d6>=", "syntax", {"position": 5, "found": ""}),
    ("2d6>=7>=3", "syntax", {"position": 6, "found": ">=3"}),
    ("4d6k3>", "syntax", {"position": 6, "found": ""}),
]


@pytest.mark.parametrize(("expression", "code", "params"), REFUSALS)
def test_refused_before_rolling(expression: str, code: str, params: dict[str, int | str]) -> None:
    with pytest.raises(DiceError) as raised:
        roll(expression, FixedDice([]))

    assert raised.value.code == code
    assert raised.value.params == params


@pytest.mark.parametrize("dialect", ["bcdice", "d20"])
@pytest.mark.parametrize(("expression", "code", "params"), TARGET_REFUSALS)
def test_refused_before_rolling_where_comparisons_are_targets(
    dialect: DiceDialect, expression: str, code: str, params: dict[str, int | str]
) -> None:
    with pytest.raises(DiceError) as raised:
        roll(expression, FixedDice([]), dialect=dialect)

    assert raised.value.code == code
    assert raised.value.params == params


def test_a_divisor_that_cannot_be_zero_is_accepted() -> None:
    for expression in ("60/1d6", "10//(1d6+1)", "10/(0-1d6)", "(1d20+5)/2>=10"):
        parse(expression)


def test_every_code_is_exercised() -> None:
    exercised = {code for _, code, _ in REFUSALS} | {"too_many_dice_rolled"}

    assert exercised == ERROR_CODES


def test_explosions_past_the_dice_cap_stop_the_roll() -> None:
    limits = DiceLimits(max_dice=5)

    with pytest.raises(DiceError) as raised:
        roll("3d6!", FixedDice([6, 6, 1, 6, 6, 1]), limits)

    assert raised.value.code == "too_many_dice_rolled"
    assert raised.value.params == {"limit": 5}


def test_rerolls_count_towards_the_dice_cap_across_repeats() -> None:
    limits = DiceLimits(max_dice=4)

    with pytest.raises(DiceError) as raised:
        roll("2#2d6r1", FixedDice([3, 3, 1, 2]), limits)

    assert raised.value.code == "too_many_dice_rolled"


def test_roll_exactly_at_the_dice_cap_is_allowed() -> None:
    result = roll("3d6!", FixedDice([6, 1, 1, 6, 1]), DiceLimits(max_dice=5))

    assert result.dice_rolled == 5


@pytest.mark.parametrize(
    "expression",
    [
        "1d1",
        "1d6!>6",
        "1d6!>1",
        "1d6r7",
        "1d6ro<7",
        "1d6r<5!>5",
        "1d3r1!",
        "1d6r=3!>=2",
        "1d1000",
        "500d6",
        "20#25d6",
        "(" * 10 + "1d6" + ")" * 10,
        "1d6 # " + "x" * 200,
        "1" + "+1" * 99 + "   # trailing whitespace does not count",
        "1000000000",
    ],
)
def test_accepted_at_the_edges(expression: str) -> None:
    parse(expression)


def test_ro_on_every_face_ends() -> None:
    result = roll("1d6ro<7", FixedDice([2, 2]))

    assert result.total == 2


def test_reroll_leaving_only_faces_that_explode_is_refused_but_one_spare_face_is_not() -> None:
    with pytest.raises(DiceError) as raised:
        parse("1d6r<5!>=5")
    assert raised.value.code == "always_explodes"

    parse("1d6r<4!>=5")


def test_custom_limits_are_enforced() -> None:
    limits = DiceLimits(max_expression_length=5, max_sides=20)

    with pytest.raises(DiceError) as too_long:
        parse("1d20+10", limits)
    with pytest.raises(DiceError) as too_many_sides:
        parse("d%", limits)

    assert too_long.value.code == "too_long"
    assert too_many_sides.value.params == {"limit": 20, "sides": 100, "position": 0}


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_dice"):
        DiceLimits(max_dice=0)


def test_error_string_names_code_and_params() -> None:
    assert str(DiceError("too_many_sides", limit=1000, sides=1001)) == "too_many_sides(limit=1000, sides=1001)"
