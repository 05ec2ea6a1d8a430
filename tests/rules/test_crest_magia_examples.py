"""Crest Magia's worked scenarios M1-M14 with fixed dice, and the decisions they rest on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from rules.crest_magia.damage import choose_overflow, effective_die, healed, take_damage
from rules.crest_magia.destiny import consequence_removed, reallocated, restored, session_points
from rules.crest_magia.model import CREST_SLOTS, DEAD, Stat
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import (
    ActionRoll,
    ActionSpec,
    action_roll,
    boons_and_banes,
    check_succeeds,
    damage_roll,
    healing_roll,
    resolve_attack,
    withstand_roll,
)
from rules.crest_magia.sheets import Crest, character_problems
from rules.dice.source import FixedDice
from rules.exchange import Modifier, RuleError
from rules.sheets import validation_problems

DEFAULTS = CrestMagiaOptions()


def rolled(faces: list[int], sides: int, *modifiers: Modifier, boons: int = 0, banes: int = 0,
           crits: bool = True, options: CrestMagiaOptions = DEFAULTS) -> ActionRoll:  # fmt: skip
    dice = FixedDice(faces)
    roll = action_roll("Dexterity", sides, modifiers, dice, options, boons=boons, banes=banes, crits=crits)
    assert dice.remaining == 0
    return roll


def test_m1_a_hit_with_a_boon_then_damage_against_armour() -> None:
    attack = rolled([4, 2, 7, 3], 8, Modifier("skill:Melee", 3), Modifier("specialty:Swords", 1), boons=1)
    assert (attack.kept, attack.total) == (11, 18)
    defence = rolled([5, 3, 6], 6, Modifier("skill:Agility", 2))
    assert (defence.kept, defence.total) == (11, 13)
    assert resolve_attack(attack, defence, DEFAULTS).hit
    damage = damage_roll(2, weak=False, resistant=False, maxed=False, dice=FixedDice([3, 5]), options=DEFAULTS)
    withstand = withstand_roll(1, FixedDice([2, 4]), DEFAULTS)
    assert (damage.total, withstand.total, withstand.absorbed(damage.total)) == (10, 7, 3)
    hurt = take_damage({"Physique": 8, "Dexterity": 6, "Intelligence": 4, "Wit": 6}, "Dexterity", 3, 0, DEFAULTS)
    assert hurt.hp["Dexterity"] == 3


def test_m2_a_tie_misses() -> None:
    attack = rolled([4, 2, 6], 6, Modifier("gm", 3))
    defence = rolled([5, 3, 6], 6, Modifier("gm", 2))
    assert attack.total == defence.total == 13
    assert not resolve_attack(attack, defence, DEFAULTS).hit


def test_m3_boons_and_banes_cancel_and_the_highest_d4_counts() -> None:
    assert boons_and_banes(1, 3, FixedDice([1, 4]), DEFAULTS).value == -4
    even = boons_and_banes(2, 2, FixedDice([]), DEFAULTS)
    assert (even.value, even.faces) == (0, ())
    assert boons_and_banes(6, 0, FixedDice([2, 2, 3, 1, 1, 2]), DEFAULTS).value == 3
    capped = FixedDice([2, 2, 3, 1, 1, 2])
    assert boons_and_banes(6, 0, capped, CrestMagiaOptions(max_bb_dice=4)).faces == (2, 2, 3, 1)
    assert capped.remaining == 2


def test_m4_a_critical_attack_hits_for_the_maximum_with_its_weakness() -> None:
    attack = rolled([6, 6, 2], 4, Modifier("skill:Magecraft", 2))
    assert (attack.kept, attack.total, attack.crit) == (12, 14, "success")
    defence = rolled([5, 5, 6], 6, Modifier("skill:Agility", 5))
    assert defence.total == 16
    result = resolve_attack(attack, defence, DEFAULTS)
    assert (result.hit, result.maxed) == (True, True)
    damage = damage_roll(2, weak=True, resistant=False, maxed=True, dice=FixedDice([]), options=DEFAULTS)
    assert damage.total == 20
    assert withstand_roll(2, FixedDice([5, 6]), DEFAULTS).absorbed(damage.total) == 7


def test_m5_a_critical_failure_misses_whatever_the_defence() -> None:
    attack = rolled([1, 1, 9], 10, Modifier("skill:Melee", 4))
    assert (attack.total, attack.crit) == (14, "failure")
    defence = rolled([1, 2, 5], 6)
    assert defence.total == 7
    assert not resolve_attack(attack, defence, DEFAULTS).hit


def test_m6_a_critical_defence_beats_any_attack_but_a_critical_one() -> None:
    attack = rolled([5, 4, 6], 6, Modifier("gm", 4))
    assert attack.total == 15
    defence = rolled([6, 6, 3], 6)
    assert (defence.total, defence.crit) == (12, "success")
    assert not resolve_attack(attack, defence, DEFAULTS).hit
    assert resolve_attack(attack, defence, CrestMagiaOptions(crit_success_autopasses=False)).hit
    critical = rolled([6, 6, 1], 6)
    assert resolve_attack(critical, defence, DEFAULTS).hit


def test_non_players_do_not_crit_unless_the_option_says() -> None:
    assert rolled([6, 6, 1], 6, crits=False).crit is None


POOLS: dict[Stat, int] = {"Physique": 8, "Dexterity": 2, "Intelligence": 4, "Wit": 6}


def test_m7_overflow_goes_to_the_defenders_choice_and_the_empty_stat_rolls_a_d4() -> None:
    hurt = take_damage(POOLS, "Dexterity", 5, 0, DEFAULTS)
    assert (hurt.hp["Dexterity"], hurt.left, hurt.choices) == (0, 3, ("Physique", "Intelligence", "Wit"))
    placed = choose_overflow(hurt, "Physique", DEFAULTS)
    assert (placed.hp["Physique"], placed.left) == (5, 0)
    assert effective_die(6, 0, 6, True, DEFAULTS) == 4
    assert effective_die(6, 1, 6, True, DEFAULTS) == 6
    assert effective_die(6, 1, 6, True, CrestMagiaOptions(d4_until="full_hp")) == 4
    with pytest.raises(RuleError):
        choose_overflow(hurt, "Dexterity", DEFAULTS)


def test_m8_chained_overflow_is_discarded_then_each_damaging_hit_climbs_the_ladder() -> None:
    pools: dict[Stat, int] = {"Physique": 1, "Dexterity": 1, "Intelligence": 0, "Wit": 0}
    hurt = take_damage(pools, "Dexterity", 5, 0, DEFAULTS)
    assert (hurt.hp, hurt.left, hurt.consequence) == ({"Physique": 0, "Dexterity": 0, "Intelligence": 0,
                                                        "Wit": 0}, 0, 0)  # fmt: skip
    mild = take_damage(hurt.hp, "Wit", 1, hurt.consequence, DEFAULTS)
    assert (mild.consequence, mild.climbed) == (1, True)
    moderate = take_damage(mild.hp, "Wit", 20, mild.consequence, DEFAULTS)
    assert moderate.consequence == 2
    withstood = take_damage(moderate.hp, "Wit", 0, moderate.consequence, DEFAULTS)
    assert (withstood.consequence, withstood.climbed) == (2, False)
    assert take_damage(pools, "Dexterity", 5, 0, CrestMagiaOptions(overflow_triggers_consequence=True)).consequence == 1
    dead = take_damage(hurt.hp, "Wit", 3, DEAD, DEFAULTS)
    assert (dead.consequence, dead.climbed) == (DEAD, False)


def test_m9_a_resistance_die_and_a_crest_that_absorbs_the_blow() -> None:
    damage = damage_roll(3, weak=False, resistant=True, maxed=False, dice=FixedDice([4, 4, 5]), options=DEFAULTS)
    assert damage.total == 6
    withstand = withstand_roll(2, FixedDice([3, 3]), DEFAULTS, specialty=1)  # Crest of Tides 2 + Water Wall 1
    assert withstand.total == 9 and withstand.absorbed(damage.total) == 0


def test_m10_a_critical_against_a_resistance_subtracts_one() -> None:
    damage = damage_roll(1, weak=False, resistant=True, maxed=True, dice=FixedDice([]), options=DEFAULTS)
    assert damage.total == 12
    rolled_die = damage_roll(1, weak=False, resistant=True, maxed=True, dice=FixedDice([4]),
                             options=CrestMagiaOptions(crit_resist_die="rolled"))  # fmt: skip
    assert rolled_die.total == 9


def test_m11_a_depleted_stat_defends_with_a_d4() -> None:
    die = effective_die(8, 0, 8, True, DEFAULTS)
    assert rolled([2, 3, 4], die).kept == 7


def aiko(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Aiko",
        "dice": {"Physique": "d8", "Dexterity": 6, "Intelligence": "d4", "Wit": 6},
        "skills": {"Melee": 3, "Athletics": 3, "Awareness": 3, "Agility": 2, "Determination": 2, "Medicine": 2,
                   "Lore": 2, "Convince": 1, "Craft": 1, "Investigation": 1, "Ranged": 1, "Unarmed": 1},
        "specialties": [{"name": "Swords", "skill": "Melee"}, {"name": "History", "skill": "Lore"},
                        {"name": "Sight", "skill": "Awareness"}],
        "crests": [{"name": "Crest of Flames", "category": "magical", "damage_type": "fire"}],
    }  # fmt: skip
    data.update(changes)
    return data


def codes(data: dict[str, Any]) -> set[tuple[str, str]]:
    return {(problem.field, problem.code) for problem in character_problems(data, DEFAULTS)}


def test_m12_creation_budget() -> None:
    assert codes(aiko()) == set()
    assert codes(aiko(dice={"Physique": 8, "Dexterity": 8, "Intelligence": 6, "Wit": 4})) == {("dice", "creation_dice")}
    four_threes = {**aiko()["skills"], "Agility": 3}
    assert codes(aiko(skills=four_threes)) == {("skills", "creation_skills")}
    flames = aiko()["crests"][0]
    assert codes(aiko(crests=[flames, {**flames, "name": "Crest of Tides"}])) == {("crests", "creation_crests")}
    assert codes(aiko(crests=[{**flames, "rank": 1}])) == {("crests.0.rank", "creation_crest_rank")}
    assert ("dice.Wit", "not_a_die") in codes(aiko(dice={**aiko()["dice"], "Wit": "d7"}))
    assert ("hp", "derived_field") in codes(aiko(hp=24))
    assert ("skills.Swimming", "invalid_choice") in codes(aiko(skills={**aiko()["skills"], "Swimming": 1}))


def test_m13_destiny_points_reset_to_one_and_a_reroll_can_crit() -> None:
    assert session_points(DEFAULTS) == 1
    spec = ActionSpec("Dexterity", 10, (Modifier("skill:Melee", 4),), boons=1)
    missed = spec.roll(FixedDice([1, 1, 9, 1]), DEFAULTS)
    # What the roll was made of waits in the exchange as JSON; the reroll takes every die again, the boon's too.
    again = ActionSpec.from_dict(json.loads(json.dumps(spec.to_dict()))).roll(FixedDice([6, 6, 2, 3]), DEFAULTS)
    assert (missed.crit, missed.total) == ("failure", 15)
    assert (again.crit, again.total, again.boons.faces) == ("success", 19, (3,))


def test_healing_fills_a_pool_to_its_maximum_and_hands_back_the_rest() -> None:
    assert healed(2, 6, 3) == (5, 0)
    assert healed(2, 6, 9) == (6, 5)
    assert healed(6, 6, 4) == (6, 4)
    roll = healing_roll(Modifier("crest:Crest of Salves", 2), FixedDice([4, 5]))
    assert roll.total == 11 and roll.rolls()[0].modifiers == (Modifier("crest:Crest of Salves", 2),)


def test_the_rulebooks_crests_need_only_their_name() -> None:
    tides = Crest.model_validate({"name": "crest of TIDES"})
    assert (tides.name, tides.category, tides.damage_type) == ("Crest of Tides", "magical", "water")
    own = Crest.model_validate({"name": "Crest of Flames", "damage_type": "holy"})
    assert (own.category, own.damage_type) == ("magical", "holy")  # what the file says wins
    with pytest.raises(ValidationError):
        Crest.model_validate({"name": "Crest of Winds"})  # not the book's: its category is needed
    assert tides.from_the_book and not own.from_the_book  # a damage type of its own makes it another crest
    assert not Crest.model_validate({"name": "Crest of Winds", "category": "magical"}).from_the_book


def test_a_crest_ladder_is_keyed_by_rank_as_yaml_or_json_writes_it() -> None:
    written = {"name": "Crest of Winds", "category": "magical"}
    from_yaml = Crest.model_validate({**written, "ladder": {1: "a breeze", 5: "a hurricane"}})
    from_json = Crest.model_validate({**written, "ladder": {"1": "a breeze", "5": " a hurricane "}})
    assert from_yaml.ladder == from_json.ladder == {1: "a breeze", 5: "a hurricane"}
    stored = from_yaml.model_dump(mode="json")
    assert stored["ladder"] == {"1": "a breeze", "5": "a hurricane"} and Crest.model_validate(stored) == from_yaml
    for ladder, problem in (({"0": "x"}, ("ladder", "ladder_rank")), ({"6": "x"}, ("ladder", "ladder_rank")),
                            ({"one": "x"}, ("ladder", "ladder_rank")), ({"2": ""}, ("ladder.2", "empty")),
                            ({"2": 3}, ("ladder.2", "wrong_type"))):  # fmt: skip
        with pytest.raises(ValidationError) as refused:
            Crest.model_validate({**written, "ladder": ladder})
        assert [(p.field, p.code) for p in validation_problems(refused.value)] == [problem]


def test_the_creation_budget_binds_players_and_the_caps_everyone() -> None:
    dragon = aiko(name="Dragon", dice={"Physique": 12, "Dexterity": 10, "Intelligence": 8, "Wit": 8},
                  skills={"Melee": 5}, specialties=[], crests=[])  # fmt: skip
    assert {code for _, code in codes(dragon)} == {"creation_dice", "creation_skills", "creation_specialties",
                                                   "creation_crests"}  # fmt: skip
    assert character_problems(dragon, DEFAULTS, creation=False) == []
    capped = {(p.field, p.code) for p in character_problems({**dragon, "skills": {"Melee": 6}}, DEFAULTS,
                                                            creation=False)}  # fmt: skip
    assert capped == {("skills.Melee", "too_large")}
    no_wit = {**dragon, "dice": {"Physique": 12, "Dexterity": 10, "Intelligence": 8}}
    assert [p.code for p in character_problems(no_wit, DEFAULTS, creation=False)] == ["stats_missing"]


def test_r13_three_crest_slots_and_no_way_to_more() -> None:
    flames = aiko()["crests"][0]
    crests = [{**flames, "name": f"Crest {number}"} for number in range(CREST_SLOTS + 1)]
    assert character_problems(aiko(crests=crests[:CREST_SLOTS]), DEFAULTS, creation=False) == []
    assert [(p.field, p.code) for p in character_problems(aiko(crests=crests), DEFAULTS, creation=False)] == [
        ("crests", "too_many")
    ]


def test_destiny_point_spends_on_pools_and_consequences() -> None:
    assert restored(1, 8, DEFAULTS) == 8
    assert restored(1, 8, CrestMagiaOptions(dp_restore="half_pool")) == 5
    moved = reallocated(
        {"Physique": 8, "Dexterity": 0, "Intelligence": 4, "Wit": 6},
        {"Physique": 8, "Dexterity": 6, "Intelligence": 4, "Wit": 6},
        "Physique",
        "Dexterity",
        3,
    )
    assert (moved["Physique"], moved["Dexterity"]) == (5, 3)  # fmt: skip
    with pytest.raises(RuleError):
        reallocated(moved, {"Physique": 8, "Dexterity": 6, "Intelligence": 4, "Wit": 6}, "Physique", "Dexterity", 4)
    assert consequence_removed(2, DEAD) == 1
    with pytest.raises(RuleError):
        consequence_removed(DEAD, DEAD)


def test_m14_an_unopposed_check_at_the_target_succeeds() -> None:
    check = rolled([3, 5, 4], 6, Modifier("skill:Awareness", 1))
    assert check.total == 10
    assert check_succeeds(check, 10, DEFAULTS)
    assert not check_succeeds(check, 11, DEFAULTS)
    assert check_succeeds(rolled([6, 6, 1], 6), 30, DEFAULTS)
    assert not check_succeeds(rolled([1, 1, 6], 6, Modifier("gm", 20)), 3, DEFAULTS)
