"""The spec's worked examples (rules/fate_points.md §6), every stated number, with scripted dice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.dice.source import FixedDice
from rules.exchange import Modifier, PoolDelta, RuleError
from rules.fate_points import (
    AttackSpec,
    AttackVanished,
    CombatState,
    MasterSheet,
    ServantSheet,
    SheetError,
    attack,
    check,
    create_master,
    create_servant,
    master_problems,
    np_cost,
    quarter_to_5,
)
from tests.rules.test_fate_points_support import (
    DEFAULTS,
    after,
    after_attack,
    answer,
    hp_delta,
    master,
    servant,
    swing,
    weapon,
)

SWORD = AttackSpec(attack_type="melee", weapon="sword")


def test_f1_melee_vs_dodge_dodge_wins() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    outcome = swing(saber, lancer, SWORD, 12)
    assert (outcome.natural, outcome.score, outcome.mana_cost, outcome.rank_used) == (12, 5, 5, "A")
    assert PoolDelta("attacker", "prana", -5) in outcome.effects
    resolution = answer(saber, lancer, outcome, SWORD, "dodge", [9])
    assert resolution.outcome.defence_score == 3
    assert resolution.outcome.hit is False
    assert resolution.outcome.damage == 0
    assert hp_delta(resolution) == 0


def test_f2_dodge_tie_is_a_hit() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    outcome = swing(saber, lancer, SWORD, 12)
    resolution = answer(saber, lancer, outcome, SWORD, "dodge", [11])
    assert resolution.outcome.defence_score == 5
    assert resolution.outcome.hit is True
    assert resolution.outcome.damage == 6
    assert PoolDelta("defender", "hp", -6) in resolution.effects


def test_f3_block_tie_succeeds_and_staggers() -> None:
    saber, archer = servant("Saber", "sword"), servant("Archer", "bow")
    outcome = swing(saber, archer, SWORD, 12)
    assert outcome.score == 5
    blocked = answer(saber, archer, outcome, SWORD, "block", [7])
    assert blocked.outcome.defence_score == 5
    assert blocked.outcome.hit is False
    assert blocked.outcome.staggered is True
    archer = after(archer, blocked)
    assert archer.state.pending_def_mod == 1
    dodged = answer(saber, archer, swing(saber, archer, SWORD, 12), SWORD, "dodge", [10])
    assert dodged.outcome.defence_score == 5
    assert dodged.outcome.carry == 1
    assert after(archer, dodged).state.pending_def_mod == 0
    assert after(archer, dodged).state.def_streak == 1


def test_f4_parry_success_gives_minus_one_next_round() -> None:
    lancer, saber = servant("Lancer", "lance"), servant("Saber", "sword")
    outcome = swing(lancer, saber, AttackSpec(attack_type="melee", weapon="lance"), 12, round_number=2)
    assert outcome.score == 6
    spec = AttackSpec(attack_type="melee", weapon="lance")
    parried = answer(lancer, saber, outcome, spec, "parry_agi", [10], round_number=2)
    assert parried.outcome.defence_score == 3
    assert parried.outcome.hit is False
    assert parried.outcome.parry_bonus_round == 3
    saber = after(saber, parried)
    assert saber.state.parry_bonus_rounds == (3,)
    assert saber.state.pending_def_mod == 0
    next_round = swing(saber, lancer, SWORD, 12, round_number=3)
    assert next_round.score == 4
    assert Modifier("parry_bonus", -1) in next_round.roll.modifiers
    assert swing(saber, lancer, SWORD, 12, round_number=2).score == 5  # not in the round it was earned


def test_f5_parry_failing_by_one_hits_and_staggers() -> None:
    lancer, saber = servant("Lancer", "lance"), servant("Saber", "sword")
    spec = AttackSpec(attack_type="melee", weapon="lance")
    outcome = swing(lancer, saber, spec, 12)
    resolution = answer(lancer, saber, outcome, spec, "parry_agi", [12])
    assert resolution.outcome.defence_score == 5
    assert resolution.outcome.hit is True
    assert resolution.outcome.staggered is True
    assert after(saber, resolution).state.pending_def_mod == 1
    assert after(saber, resolution).state.parry_bonus_rounds == ()


def test_f6_critical_adds_a_stat_die_on_a_hit() -> None:
    saber, caster = servant("Saber", "sword"), servant("Caster", "magic")
    outcome = swing(saber, caster, SWORD, 1)
    assert outcome.roll.total == 1
    assert sum(m.value for m in outcome.roll.modifiers) + 1 == -6
    assert outcome.crit is True
    resolution = answer(saber, caster, outcome, SWORD, "dodge", [2, 3])
    assert resolution.outcome.defence_score == 1
    assert sum(m.value for m in resolution.rolls[0].modifiers) + 2 == -4
    assert resolution.outcome.hit is True
    assert resolution.outcome.crit_bonus == 3
    assert resolution.rolls[1].label == "crit"
    assert resolution.rolls[1].sides == 5
    assert resolution.outcome.damage == 11


def test_f6_crit_die_is_not_rolled_on_a_miss() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    resolution = answer(saber, lancer, swing(saber, lancer, SWORD, 1), SWORD, "block", [1])
    assert resolution.outcome.hit is False
    assert resolution.outcome.crit_bonus == 0


def test_f7_two_attacks() -> None:
    saber, lancer = servant("Saber", "sword", "dagger"), servant("Lancer", "lance")
    by_sword = AttackSpec(attack_type="melee", weapon="sword", attacks_declared=2)
    by_dagger = AttackSpec(attack_type="melee", weapon="dagger", attacks_declared=2)
    first = swing(saber, lancer, by_sword, 12)
    assert first.score == 6
    saber = after_attack(saber, first)
    second = swing(saber, lancer, by_dagger, 3)
    assert sum(m.value for m in second.roll.modifiers) + 3 == -3
    assert second.score == 1
    assert first.mana_cost + second.mana_cost == 10
    assert answer(saber, lancer, second, by_dagger, "take").outcome.damage == 5
    saber = after_attack(saber, second)
    with pytest.raises(RuleError) as error:
        swing(saber, lancer, by_sword, 12)
    assert error.value.code == "no_attacks_left"
    with pytest.raises(RuleError) as error:
        swing(saber, lancer, AttackSpec(attack_type="melee", weapon="sword", attacks_declared=3), 12, round_number=2)
    assert (error.value.code, error.value.params) == ("too_many_attacks", {"declared": 3, "max": 2})
    extra = AttackSpec(attack_type="melee", weapon="sword", attacks_declared=3, uses_extra_action=True)
    assert swing(saber, lancer, extra, 12, round_number=2).score == 7


def test_f8_repeat_defence_rule() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    for face in (15, 15):  # two ordinary dodges build the streak
        lancer = after(lancer, answer(saber, lancer, swing(saber, lancer, SWORD, 20), SWORD, "dodge", [face]))
    assert (lancer.state.last_def_type, lancer.state.def_streak, lancer.state.pending_def_mod) == ("dodge", 2, 0)
    third = answer(saber, lancer, swing(saber, lancer, SWORD, 20), SWORD, "dodge", [8])
    assert third.outcome.defence_score == 4
    assert third.outcome.repeat_penalty == 2
    lancer = after(lancer, third)
    assert lancer.state.pending_def_mod == 2
    parry = answer(saber, lancer, swing(saber, lancer, SWORD, 20), SWORD, "parry_agi", [8])
    assert parry.outcome.defence_score == 2
    assert after(lancer, parry).state.def_streak == 1
    fourth = answer(saber, lancer, swing(saber, lancer, SWORD, 20), SWORD, "dodge", [8])
    assert fourth.outcome.defence_score == 6
    assert (fourth.outcome.carry, fourth.outcome.repeat_penalty) == (2, 2)


def test_f9_magical_attack_vs_block() -> None:
    caster, saber = servant("Caster"), servant("Saber", "sword")
    magic = AttackSpec(attack_type="magical")
    outcome = swing(caster, saber, magic, 10)
    assert outcome.score == 2
    blocked = answer(caster, saber, outcome, magic, "block", [4])
    assert blocked.outcome.defence_score == 1
    assert blocked.outcome.defence_stat == "MAG"
    assert blocked.outcome.hit is False
    assert Modifier("weapon:sword", -1) not in blocked.rolls[0].modifiers
    assert answer(caster, saber, outcome, magic, "take").outcome.damage == 6
    rider, lancer = servant("Rider"), servant("Lancer", "lance")
    ridden = answer(rider, lancer, swing(rider, lancer, magic, 10), magic, "take")
    assert ridden.outcome.damage == 0
    assert hp_delta(ridden) == 0


def test_f9_a_magical_weapon_keeps_its_block_modifier() -> None:
    caster = servant("Caster")
    saber = replace(servant("Saber"), weapons=[weapon("sword", magical=True)])
    magic = AttackSpec(attack_type="magical")
    blocked = answer(caster, saber, swing(caster, saber, magic, 10), magic, "block", [4])
    assert Modifier("weapon:sword", -1) in blocked.rolls[0].modifiers


def test_f10_master_creation() -> None:
    sheet = MasterSheet(name="Tohsaka", STR=2, END=3, AGI=3, MAG=4, LUK=3)
    created = create_master(sheet, FixedDice([4, 7, 2, 9, 5, 1, 12, 37, 8, 30, 3]), DEFAULTS)
    assert (created.hp_max, created.compatibility, created.prana_max) == (10, 13, 52)
    assert created.servant_points == 1
    assert created.fate_points == 0
    labels = {roll.label: roll for roll in created.rolls}
    assert labels["hp"].kept == (7,)
    assert labels["compatibility"].kept == (9,)
    assert labels["prana_d50"].kept == (37,)
    assert (labels["prana_mag"].sides, labels["prana_mag"].total) == (4, 15)
    base = {"name": "Tohsaka", "STR": 3, "END": 3, "AGI": 3, "MAG": 3, "LUK": 4}
    assert [p.code for p in master_problems(base, DEFAULTS)] == ["budget"]
    assert master_problems(base, DEFAULTS)[0].params == {"total": 16, "expected": 15}
    for bad in (0, 6):
        problems = master_problems({**base, "LUK": bad}, DEFAULTS)
        assert [(p.field, p.code) for p in problems] == [("LUK", "out_of_range")]


def test_f11_servant_creation() -> None:
    tohsaka = MasterSheet(name="Tohsaka", STR=2, END=3, AGI=3, MAG=4, LUK=3)
    sheet = ServantSheet(name="Artoria", servant_class="Saber", master="Tohsaka", rank_steps={"MAG": 1})
    dice = FixedDice([2, 4, 1, 41, 3, 17, 22, 1, 3, 2, 3])
    created = create_servant(sheet, tohsaka, 0, dice, DEFAULTS)
    assert created.stats == {"STR": 5, "END": 4, "AGI": 4, "MAG": 4, "LUK": 2}
    assert created.ranks == {"STR": "A", "END": "B", "AGI": "B", "MAG": "B", "LUK": "D"}
    labels = {roll.label: roll for roll in created.rolls}
    assert [labels[name].sides for name in ("prana_mag", "prana_end", "prana_luk")] == [4, 4, 2]
    assert sum(labels[name].total for name in ("prana_mag", "prana_end", "prana_luk")) == 35
    assert labels["prana_d50"].kept == (41,)
    assert created.prana_max == 91
    assert quarter_to_5(91) == 25
    assert labels["hp_end"].kept == (3,)
    assert labels["hp_end"].total == 15
    assert created.hp_max == 40
    assert [quarter_to_5(prana) for prana in (90, 89, 30, 29)] == [25, 20, 10, 5]
    with pytest.raises(SheetError) as error:
        create_servant(sheet, tohsaka, 1, FixedDice([]), DEFAULTS)
    assert [p.code for p in error.value.problems] == ["step_sum"]


def test_f12_servant_vs_lone_master() -> None:
    lancer, kayneth = servant("Lancer", "lance"), master()
    spec = AttackSpec(attack_type="melee", weapon="lance")
    outcome = swing(lancer, kayneth, spec, 15)
    assert outcome.auto_hit is True
    assert outcome.defence_options == ()
    resolution = answer(lancer, kayneth, outcome, spec, "take")
    assert resolution.rolls == ()
    assert resolution.outcome.damage == 41
    assert resolution.outcome.defender_fate == "down"
    total = DEFAULTS.model_copy(update={"human_mult_scope": "attack_total"})
    assert answer(lancer, kayneth, outcome, spec, "take", options=total).outcome.damage == 77
    with pytest.raises(RuleError) as error:
        answer(lancer, kayneth, outcome, spec, "dodge", [3])
    assert error.value.code == "auto_hit"


def test_f13_master_vs_servant() -> None:
    kiritsugu, caster = master("dagger"), servant("Caster", "magic")
    spec = AttackSpec(attack_type="melee", weapon="dagger")
    outcome = swing(kiritsugu, caster, spec, 1)
    assert outcome.defence_options  # a Master's attack is still rolled and defended (R11)
    null = answer(kiritsugu, caster, outcome, spec, "take")
    assert (null.outcome.damage, null.outcome.null_damage) == (0, True)
    assert Modifier("class", 0) not in outcome.roll.modifiers
    fated = master("dagger", fp_roll_vs_servant=True)
    lifted = answer(fated, caster, swing(fated, caster, spec, 15), spec, "take")
    assert (lifted.outcome.damage, lifted.outcome.null_damage) == (4, False)


def test_f15_np_costs() -> None:
    assert [np_cost(rank) for rank in ("A+", "B-", "C", "E++", "D--")] == [32, 23, 20, 14, 11]
    with pytest.raises(RuleError) as error:
        np_cost("EX")
    assert error.value.code == "np_ex_cost_missing"
    assert np_cost("EX", ex_cost=45) == 45
    assert np_cost("B", gm_cost_adjust=3) == 28


def test_f17_hold_back() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    held = AttackSpec(attack_type="melee", weapon="sword", rank_used="C")
    outcome = swing(saber, lancer, held, 12)
    assert (outcome.mana_cost, outcome.stat_value, outcome.score) == (3, 3, 7)
    assert answer(saber, lancer, outcome, held, "take").outcome.damage == 4
    with pytest.raises(RuleError) as error:
        swing(servant("Lancer", "lance", stats=None), saber, AttackSpec(attack_type="melee", rank_used="A"), 12)
    assert (error.value.code, error.value.params) == ("hold_back_above_rank", {"rank": "A", "max": "B"})


def test_f18_death_by_mana() -> None:
    saber, lancer = servant("Saber", "sword", mana=3), servant("Lancer", "lance")
    rank_c = AttackSpec(attack_type="melee", weapon="sword", rank_used="C")
    with pytest.raises(RuleError) as error:
        swing(saber, lancer, rank_c, 12)
    assert (error.value.code, error.value.params) == ("confirm_zero_mana", {"cost": 3, "mana": 3})
    # It pays, and paying its last mana it disappears before the blow: nothing is rolled (the die stays unused).
    dice = FixedDice([12])
    confirmed = attack(saber, lancer, rank_c.model_copy(update={"confirm_zero_mana": True}), 1, dice, DEFAULTS)
    assert isinstance(confirmed, AttackVanished)
    assert PoolDelta("attacker", "prana", -3) in confirmed.effects
    assert dice.remaining == 1
    with pytest.raises(RuleError) as error:
        swing(saber, lancer, AttackSpec(attack_type="melee", weapon="sword", rank_used="B", confirm_zero_mana=True), 12)
    assert (error.value.code, error.value.params) == ("not_enough_mana", {"cost": 4, "mana": 3})


def test_check_succeeds_at_or_under_the_target() -> None:
    assert check("STR", 3, [Modifier("gm", 1)], 5, FixedDice([7]), DEFAULTS).success is True
    assert check("STR", 3, [], 3, FixedDice([7]), DEFAULTS).success is False
    result = check("STR", 5, [Modifier("gm", -4)], None, FixedDice([2]), DEFAULTS)
    assert (result.score, result.success) == (1, None)
    assert CombatState().pending_def_mod == 0
