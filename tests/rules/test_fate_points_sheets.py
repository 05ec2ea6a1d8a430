"""Sheet import validation: every bad field is reported once, with a stable code and params."""

from __future__ import annotations

import pytest

from rules.fate_points import (
    MasterSheet,
    ServantSheet,
    SheetError,
    SheetProblem,
    parse_master,
    parse_servant,
    servant_problems,
)
from tests.rules.test_fate_points_support import DEFAULTS

TOHSAKA = MasterSheet(name="Tohsaka", STR=2, END=3, AGI=3, MAG=4, LUK=3)
GOOD_MASTER = {"name": "Tohsaka", "STR": 2, "END": 3, "AGI": 3, "MAG": 4, "LUK": 3}
ROLLS = "attack:melee, attack:magical, attack:ranged, defense:block, defense:dodge, defense:parry, damage, damage_taken"
STATS = "STR, END, AGI, MAG, LUK"
GOOD_SERVANT = {"name": "Artoria", "servant_class": "Saber", "master": "Tohsaka", "rank_steps": {"MAG": 1}}


def test_a_master_file_with_derived_values_and_unknown_fields_gets_one_problem_per_bad_field() -> None:
    data = {
        **GOOD_MASTER,
        "hp": 10,
        "Compatibility": 13,
        "prana_max": 52,
        "fate_points": 1,
        "colour": "red",
        "weapons": [{"name": "Azoth", "type": "dagger", "sharp": True}, {"name": "gun", "type": "rifle"}],
    }
    with pytest.raises(SheetError) as error:
        parse_master(data, DEFAULTS)
    assert sorted(error.value.problems, key=lambda p: p.field) == [
        SheetProblem("Compatibility", "derived_field"),
        SheetProblem("colour", "unknown_field"),
        SheetProblem("fate_points", "derived_field"),
        SheetProblem("hp", "derived_field"),
        SheetProblem("prana_max", "derived_field"),
        SheetProblem("weapons.0.sharp", "unknown_field"),
        SheetProblem(
            "weapons.1.type",
            "invalid_choice",
            {"value": "rifle", "choices": "shield, axe, mace, sword, lance, bow, dagger, unarmed, magic"},
        ),
    ]


def test_a_clean_master_file_parses() -> None:
    assert parse_master(GOOD_MASTER, DEFAULTS) == TOHSAKA


def test_master_types_ranges_and_missing_fields() -> None:
    data = {"name": "", "STR": "2", "END": True, "AGI": 9, "MAG": 4, "magecraft": [{"name": "Gandr", "mana_cost": -1}]}
    problems = {(p.field, p.code): p.params for p in parse_errors(data)}
    assert problems == {
        ("name", "empty"): {},
        ("STR", "wrong_type"): {"expected": "integer"},
        ("END", "wrong_type"): {"expected": "integer"},
        ("AGI", "out_of_range"): {"value": 9, "min": 1, "max": 5},
        ("LUK", "missing"): {},
        ("magecraft.0.mana_cost", "out_of_range"): {"value": -1, "min": 0, "max": 1000},
    }


def parse_errors(data: dict[str, object]) -> list[SheetProblem]:
    with pytest.raises(SheetError) as error:
        parse_master(data, DEFAULTS)
    return error.value.problems


def test_a_servant_file_with_typed_stats_and_derived_values() -> None:
    data = {
        **GOOD_SERVANT,
        "STR": "A",
        "hp_max": 40,
        "mana": 91,
        "noble_phantasms": [{"name": "Excalibur", "rank": "A++"}, {"name": "Avalon", "rank": "A+-"}],
        "skills": [{"name": "Charisma", "roll_mods": {"attack:sword": -1}}],
        "weapons": [{"name": "Excalibur", "type": "sword"}, {"name": "Excalibur", "type": "sword"}],
    }
    assert servant_problems(data, TOHSAKA, 0, DEFAULTS) == [
        SheetProblem("STR", "derived_field"),
        SheetProblem("hp_max", "derived_field"),
        SheetProblem("mana", "derived_field"),
        SheetProblem("skills.0.roll_mods.attack:sword", "invalid_choice", {"value": "attack:sword", "choices": ROLLS}),
        SheetProblem("noble_phantasms.1.rank", "invalid_rank", {"value": "A+-"}),
        SheetProblem("weapons.1.name", "duplicate_name", {"name": "Excalibur"}),
    ]


@pytest.mark.parametrize(
    ("steps", "extra", "expected"),
    [
        ({"MAG": 1}, 0, []),
        ({"MAG": 1, "LUK": 1}, 1, []),
        ({"MAG": 2}, 0, [SheetProblem("rank_steps", "step_sum", {"total": 2, "expected": 1})]),
        (
            {"MAG": 2, "LUK": -1},
            0,
            [SheetProblem("rank_steps.LUK", "step_sign", {"value": -1, "points": 1})],
        ),
        # No points at all: there is no sign to go against, only steps that should not be there.
        (
            {"MAG": 1, "LUK": -1},
            -1,
            [
                SheetProblem("rank_steps.MAG", "step_without_points", {"value": 1}),
                SheetProblem("rank_steps.LUK", "step_without_points", {"value": -1}),
            ],
        ),
        ({"STR": 1}, 0, [SheetProblem("rank_steps.STR", "final_stat_range", {"value": 6, "min": 1, "max": 5})]),
        ({"LUK": -2}, -3, [SheetProblem("rank_steps.LUK", "final_stat_range", {"value": 0, "min": 1, "max": 5})]),
        (
            {"MAG": 1, "FOO": 0},
            0,
            [SheetProblem("rank_steps.FOO", "invalid_choice", {"value": "FOO", "choices": STATS})],
        ),
    ],
)
def test_servant_rank_steps(steps: dict[str, int], extra: int, expected: list[SheetProblem]) -> None:
    assert servant_problems({**GOOD_SERVANT, "rank_steps": steps}, TOHSAKA, extra, DEFAULTS) == expected


def test_servant_master_name_and_class_and_roll_mods_mode() -> None:
    problems = servant_problems({**GOOD_SERVANT, "master": "Matou", "servant_class": "Sabre"}, TOHSAKA, 0, DEFAULTS)
    assert [(p.field, p.code) for p in problems] == [("servant_class", "invalid_choice"), ("master", "master_mismatch")]
    roll_mods = DEFAULTS.model_copy(update={"servant_points_mode": "roll_mods"})
    assert [p.code for p in servant_problems(GOOD_SERVANT, TOHSAKA, 0, roll_mods)] == ["rank_steps_disabled"]
    assert servant_problems({**GOOD_SERVANT, "rank_steps": {}}, TOHSAKA, 0, roll_mods) == []


def test_berserkers_always_have_mad_enchantment() -> None:
    data = {"name": "Heracles", "servant_class": "Berserker", "master": "Tohsaka", "rank_steps": {"STR": 1}}
    sheet = parse_servant({**data, "mad_enchantment": False}, TOHSAKA, 0, DEFAULTS)
    assert sheet.mad_enchantment is True
    assert isinstance(sheet, ServantSheet)
