"""Every notation feature, rolled with scripted faces."""

import json

import pytest

from rules.dice import DiceError, DiceLimits, DiceResult, Die, FixedDice, RollResult, SeededDice, parse, render, roll


def roll_fixed(expression: str, *faces: int) -> RollResult:
    """Roll with exactly `faces`, failing if any scripted face is left unused."""
    dice = FixedDice(faces)
    result = roll(expression, dice)
    assert dice.remaining == 0
    return result


def only_term(result: RollResult) -> DiceResult:
    tree = result.rolls[0].tree
    assert isinstance(tree, DiceResult)
    return tree


def die(face: int, *, kept: bool = True, exploded: bool = False, rerolled: bool = False, success: bool = False) -> Die:
    return Die(face=face, kept=kept, exploded=exploded, rerolled=rerolled, success=success)


@pytest.mark.parametrize(
    ("expression", "faces", "total", "rendering"),
    [
        ("2d6", (3, 5), 8, "2d6 [3, 5] = 8"),
        ("d20", (17,), 17, "1d20 [17] = 17"),
        ("d%", (42,), 42, "1d% [42] = 42"),
        ("1D20", (7,), 7, "1d20 [7] = 7"),
        ("7", (), 7, "7 = 7"),
        ("1d20+5", (12,), 17, "1d20 [12] + 5 = 17"),
        ("1d20 - 2", (12,), 10, "1d20 [12] - 2 = 10"),
        ("2+3*4", (), 14, "2 + 3 × 4 = 14"),
        ("(1d6+2)*3", (4,), 18, "(1d6 [4] + 2) × 3 = 18"),
        ("-1d4+10", (3,), 7, "-1d4 [3] + 10 = 7"),
        ("2*-3", (), -6, "2 × -3 = -6"),
        ("4d6kh3", (5, 3, 1, 6), 14, "4d6kh3 [5, 3, ~~1~~, 6] = 14"),
        ("4d6k3", (5, 3, 1, 6), 14, "4d6kh3 [5, 3, ~~1~~, 6] = 14"),
        ("2d20kh", (8, 15), 15, "2d20kh1 [~~8~~, 15] = 15"),
        ("2d20kl1", (8, 15), 8, "2d20kl1 [8, ~~15~~] = 8"),
        ("4d6dl1", (5, 3, 1, 6), 14, "4d6dl1 [5, 3, ~~1~~, 6] = 14"),
        ("4d6dh1", (5, 3, 1, 6), 9, "4d6dh1 [5, 3, 1, ~~6~~] = 9"),
        ("2d6kh5", (2, 4), 6, "2d6kh5 [2, 4] = 6"),
        ("2d6dl3", (2, 4), 0, "2d6dl3 [~~2~~, ~~4~~] = 0"),
        ("3d6!", (6, 2, 4, 6, 3), 21, "3d6! [6!, 2, 4, 6!, 3] = 21"),
        ("3d6!>5", (6, 5, 1, 6, 2), 20, "3d6!>5 [6!, 5, 1, 6!, 2] = 20"),
        ("3d6!>=5", (6, 5, 1, 2, 3), 17, "3d6!>=5 [6!, 5!, 1, 2, 3] = 17"),
        ("3d6!=6", (6, 5, 1, 2), 14, "3d6! [6!, 5, 1, 2] = 14"),
        ("3d6!5", (6, 5, 1, 2), 14, "3d6!5 [6, 5!, 1, 2] = 14"),
        ("2d6r1", (1, 4, 3), 7, "2d6r1 [~~1~~, 4, 3] = 7"),
        ("2d6r1", (1, 4, 1, 2), 6, "2d6r1 [~~1~~, 4, ~~1~~, 2] = 6"),
        ("2d6ro1", (1, 4, 1), 5, "2d6ro1 [~~1~~, 4, 1] = 5"),
        ("2d6r<3", (1, 5, 2, 6), 11, "2d6r<3 [~~1~~, 5, ~~2~~, 6] = 11"),
        ("2d6r>5", (6, 3, 4), 7, "2d6r>5 [~~6~~, 3, 4] = 7"),
        ("5d10>7", (8, 3, 10, 7, 9), 3, "5d10>7 [**8**, 3, **10**, 7, **9**] = 3"),
        ("5d10>=8", (8, 3, 10, 7, 9), 3, "5d10>=8 [**8**, 3, **10**, 7, **9**] = 3"),
        ("6d6<3", (1, 2, 3, 4, 5, 6), 2, "6d6<3 [**1**, **2**, 3, 4, 5, 6] = 2"),
        ("6d6<=2", (1, 2, 3, 4, 5, 6), 2, "6d6<=2 [**1**, **2**, 3, 4, 5, 6] = 2"),
        ("4d6=6", (6, 2, 6, 1), 2, "4d6=6 [**6**, 2, **6**, 1] = 2"),
        ("5d10>7 + 2", (8, 3, 10, 7, 9), 5, "5d10>7 [**8**, 3, **10**, 7, **9**] + 2 = 5"),
        ("2d10>7 + 2d10>7", (8, 3, 10, 9), 3, "2d10>7 [**8**, 3] + 2d10>7 [**10**, **9**] = 3"),
        ("3d10! >7", (10, 2, 5, 8), 2, "3d10! >7 [**10!**, 2, 5, **8**] = 2"),
        ("4d10kh2>7", (9, 8, 10, 1), 2, "4d10kh2>7 [**9**, ~~8~~, **10**, ~~1~~] = 2"),
        ("1d20+5 stealth check", (11,), 16, "1d20 [11] + 5 = 16"),
        ("1d20+5 # stealth", (11,), 16, "1d20 [11] + 5 = 16"),
        ("4d6 kh3", (5, 3, 1, 6), 14, "4d6kh3 [5, 3, ~~1~~, 6] = 14"),
        ("  1d6  r1 !  ", (1, 6, 2), 8, "1d6r1! [~~1~~, 6!, 2] = 8"),
        ("2d20khr1", (1, 8, 15), 15, "2d20r1kh1 [~~1~~, ~~8~~, 15] = 15"),
    ],
)
def test_notation_totals_and_rendering(expression: str, faces: tuple[int, ...], total: int, rendering: str) -> None:
    result = roll_fixed(expression, *faces)

    assert result.total == total
    assert render(result) == rendering
    assert result.dice_rolled == len(faces)


def test_keep_highest_flags() -> None:
    term = only_term(roll_fixed("4d6kh3", 5, 3, 1, 6))

    assert term.dice == (die(5), die(3), die(1, kept=False), die(6))
    assert term.value == 14


def test_equal_faces_drop_the_earlier_die_first() -> None:
    term = only_term(roll_fixed("4d6dl1", 2, 5, 2, 6))

    assert [d.kept for d in term.dice] == [False, True, True, True]


def test_explosion_chains_and_flags() -> None:
    result = roll_fixed("1d6!", 6, 6, 2)
    term = only_term(result)

    assert term.dice == (die(6, exploded=True), die(6, exploded=True), die(2))
    assert result.total == 14
    assert result.dice_rolled == 3


def test_exploded_dice_join_the_pool_for_keep() -> None:
    term = only_term(roll_fixed("2d6!kh1", 6, 2, 3))

    assert term.dice == (die(6, exploded=True), die(2, kept=False), die(3, kept=False))
    assert term.value == 6


def test_reroll_until_flags() -> None:
    term = only_term(roll_fixed("1d6r<3", 1, 2, 5))

    assert term.dice == (die(1, kept=False, rerolled=True), die(2, kept=False, rerolled=True), die(5))
    assert term.value == 5


def test_reroll_once_keeps_the_second_face_even_if_it_matches() -> None:
    term = only_term(roll_fixed("1d6ro<3", 1, 2))

    assert term.dice == (die(1, kept=False, rerolled=True), die(2))


def test_exploded_in_die_can_be_rerolled_once() -> None:
    term = only_term(roll_fixed("1d6ro1!", 6, 1, 4))

    assert term.dice == (die(6, exploded=True), die(1, kept=False, rerolled=True), die(4))
    assert term.value == 10


def test_success_flags_only_on_kept_dice() -> None:
    term = only_term(roll_fixed("3d10dh1>5", 9, 10, 2))

    assert term.dice == (die(9, success=True), die(10, kept=False), die(2))
    assert term.counts_successes


def test_success_count_result_is_marked() -> None:
    assert roll_fixed("3d10>5", 9, 10, 2).is_success_count
    assert not roll_fixed("3d10", 9, 10, 2).is_success_count


def test_modifiers_in_any_order_apply_in_fixed_order() -> None:
    written = roll_fixed("4d6>4 kh3 r1", 1, 5, 6, 2, 3)

    assert written.expression == "4d6r1kh3>4"
    assert render(written) == "4d6r1kh3>4 [~~1~~, **5**, **6**, ~~2~~, 3] = 2"


def test_repeats_are_rolled_and_shown_separately() -> None:
    result = roll_fixed("3#4d6kh3", 5, 3, 1, 6, 2, 2, 2, 2, 6, 6, 6, 6)

    assert result.repeated
    assert [expression_roll.total for expression_roll in result.rolls] == [14, 6, 18]
    assert result.total == 38
    assert result.dice_rolled == 12
    assert render(result) == (
        "1: 4d6kh3 [5, 3, ~~1~~, 6] = 14\n2: 4d6kh3 [2, 2, 2, ~~2~~] = 6\n3: 4d6kh3 [6, 6, 6, ~~6~~] = 18\nΣ = 38"
    )


def test_repeat_with_comment() -> None:
    result = roll_fixed("2 # 1d20+5 # attacks", 3, 19)

    assert result.expression == "2#1d20+5"
    assert result.comment == "attacks"
    assert result.total == 32


@pytest.mark.parametrize(
    ("expression", "comment"),
    [
        ("1d20+5 stealth check", "stealth check"),
        ("1d20+5 # stealth", "stealth"),
        ("1d20+5#stealth", "stealth"),
        ("1d20 Dodge!", "Dodge!"),
        ("1d20 rogue", "rogue"),
        ("1d20 kick", "kick"),
        ("1d20潜伏", "潜伏"),
        ("1d20 隠密 チェック", "隠密 チェック"),
        ("1d20 # 2nd attack", "2nd attack"),
        ("1d20 #", None),
        ("1d20", None),
    ],
)
def test_comments(expression: str, comment: str | None) -> None:
    assert parse(expression).comment == comment


@pytest.mark.parametrize(
    ("expression", "normalized"),
    [
        ("D20", "1d20"),
        ("4D6 KH3", "4d6kh3"),
        ("d%", "1d%"),
        ("１ｄ２０＋５", "1d20+5"),
        ("1d20\u3000+\u30005", "1d20+5"),
        ("( 1d6 + 2 ) * 3", "(1d6+2)*3"),
        ("1 - -2", "1--2"),
        ("2d6r=1", "2d6r1"),
        ("3d6!=6", "3d6!"),
        ("3d6!>=6", "3d6!>=6"),
        ("5d10!>=8", "5d10!>=8"),
        ("5d10>=8!", "5d10! >=8"),
        ("6 # 4d6kh3", "6#4d6kh3"),
    ],
)
def test_normalized_notation_reparses_to_itself(expression: str, normalized: str) -> None:
    parsed = parse(expression)

    assert parsed.notation == normalized
    assert parse(normalized).notation == normalized
    assert parse(normalized).expression == parsed.expression


def test_explosion_threshold_belongs_to_the_bang_unless_separated() -> None:
    attached = parse("3d6!>5").expression
    separated = parse("3d6! >5").expression

    assert not parse("3d6!>5").is_success_count
    assert parse("3d6! >5").is_success_count
    assert attached != separated


def test_to_dict_is_json_friendly() -> None:
    result = roll_fixed("2#(2d6r1!+1)*2 # note", 1, 6, 3, 2, 2, 2)
    data = result.to_dict()

    assert json.loads(json.dumps(data)) == data
    assert {key: data[key] for key in ("expression", "comment", "total", "is_success_count", "repeated")} == {
        "expression": "2#(2d6r1!+1)*2",
        "comment": "note",
        "total": 34,
        "is_success_count": False,
        "repeated": True,
    }
    assert data["dice_rolled"] == 6
    rolls = data["rolls"]
    assert isinstance(rolls, list)
    assert rolls[0] == {
        "total": 24,
        "tree": {
            "type": "binary",
            "operator": "*",
            "value": 24,
            "left": {
                "type": "group",
                "value": 12,
                "inner": {
                    "type": "binary",
                    "operator": "+",
                    "value": 12,
                    "left": {
                        "type": "dice",
                        "notation": "2d6r1!",
                        "sides": 6,
                        "value": 11,
                        "counts_successes": False,
                        "dice": [
                            {"face": 1, "kept": False, "exploded": False, "rerolled": True, "success": False},
                            {"face": 6, "kept": True, "exploded": True, "rerolled": False, "success": False},
                            {"face": 3, "kept": True, "exploded": False, "rerolled": False, "success": False},
                            {"face": 2, "kept": True, "exploded": False, "rerolled": False, "success": False},
                        ],
                    },
                    "right": {"type": "number", "value": 1},
                },
            },
            "right": {"type": "number", "value": 2},
        },
    }


def test_render_shows_leading_dice_and_counts_the_rest_when_too_long() -> None:
    result = roll("500d1000", SeededDice(1))

    rendering = render(result)

    assert len(rendering) <= 1500
    assert rendering.startswith("500d1000 [")
    hidden = int(rendering.split("…+")[1].split("]")[0])
    assert rendering.count(", ") == 500 - hidden
    assert rendering.endswith(f"] = {result.total}")


def test_render_falls_back_to_totals_when_even_counts_do_not_fit() -> None:
    single = roll_fixed("2d6*3", 2, 5)
    repeated = roll_fixed("2#1d6", 2, 5)

    assert render(single, max_length=10) == "2d6×3 = 21"
    assert render(repeated, max_length=10) == "1: 2\n2: 5\nΣ = 7"


def test_a_parse_remembered_for_one_set_of_limits_is_not_reused_for_another() -> None:
    assert parse("30d6").notation == "30d6"
    assert parse("30d6") is parse("30d6")

    with pytest.raises(DiceError) as refused:
        parse("30d6", DiceLimits(max_dice=20))
    assert refused.value.code == "too_many_dice"


@pytest.mark.parametrize(("text", "written"), [("1d20 kh", "1d20kh1"), ("2d20 kl", "2d20kl1"), ("4d6 dl", "4d6dl1")])
def test_a_keep_or_drop_without_a_count_takes_one_die_even_after_a_space(text: str, written: str) -> None:
    assert parse(text).evaluate(FixedDice([5, 5, 5, 5])).to_dict()["expression"] == written
