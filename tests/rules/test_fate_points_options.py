"""Campaign options and the rules around the worked examples: each option changes what the spec says."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.dice.source import FixedDice
from rules.exchange import Modifier, PoolDelta, RuleError, StatePatch
from rules.fate_points import (
    Ability,
    AttackOutcome,
    AttackSpec,
    CombatState,
    MasterSheet,
    NoblePhantasm,
    ServantSheet,
    create_master,
    create_servant,
    fate,
)
from tests.rules.test_fate_points_support import DEFAULTS, answer, hp_delta, master, servant, swing, weapon

SWORD = AttackSpec(attack_type="melee", weapon="sword")


def test_ranged_block_stat_and_shield_options() -> None:
    archer = servant("Archer", "bow")
    lancer = replace(servant("Lancer"), weapons=[weapon("shield")])
    bow = AttackSpec(attack_type="ranged", weapon="bow")
    outcome = swing(archer, lancer, bow, 10)
    assert answer(archer, lancer, outcome, bow, "block", [10]).outcome.defence_stat == "STR"
    agi = DEFAULTS.model_copy(update={"ranged_block_stat": "AGI", "shield_dodge_mod": -2, "shield_base": 2})
    assert answer(archer, lancer, outcome, bow, "block", [10], options=agi).outcome.defence_stat == "AGI"
    dodge = answer(archer, lancer, outcome, bow, "dodge", [10], options=agi)
    assert Modifier("weapon:shield", -2) in dodge.rolls[0].modifiers
    bash = AttackSpec(attack_type="melee", weapon="shield")
    hit = answer(lancer, archer, swing(lancer, archer, bash, 10), bash, "take", options=agi)
    assert hit.outcome.damage == 2 + 4 - 3


def test_unarmed_base_and_master_weapon_base() -> None:
    fists = AttackSpec(attack_type="melee")
    saber, lancer = servant("Saber"), servant("Lancer")
    assert answer(saber, lancer, swing(saber, lancer, fists, 10), fists, "take").outcome.damage == 5 - 3
    three = DEFAULTS.model_copy(update={"unarmed_base": 3})
    assert answer(saber, lancer, swing(saber, lancer, fists, 10), fists, "take", options=three).outcome.damage == 5
    a, b = master("axe"), master("sword")
    axe = AttackSpec(attack_type="melee", weapon="axe")
    assert answer(a, b, swing(a, b, axe, 10), axe, "take").outcome.damage == 5 + 2 - 3
    bare = DEFAULTS.model_copy(update={"master_weapon_base": False})
    assert answer(a, b, swing(a, b, axe, 10), axe, "take", options=bare).outcome.damage == 0


def test_master_weapon_modifier_scope() -> None:
    saber, kiritsugu = servant("Saber", "sword"), master("sword", servant_present=True)
    outcome = swing(saber, kiritsugu, SWORD, 10)
    assert not outcome.auto_hit
    ignored = answer(saber, kiritsugu, outcome, SWORD, "parry_agi", [10])
    assert Modifier("weapon:sword", -3) not in ignored.rolls[0].modifiers
    scoped = DEFAULTS.model_copy(update={"master_wmod_scope": "master_vs_master"})
    kept = answer(saber, kiritsugu, outcome, SWORD, "parry_agi", [10], options=scoped)
    assert Modifier("weapon:sword", -3) in kept.rolls[0].modifiers


def test_servant_present_and_fp_lift_the_auto_hit() -> None:
    lancer = servant("Lancer", "lance")
    lance = AttackSpec(attack_type="melee", weapon="lance")
    assert swing(lancer, master(servant_present=True), lance, 10).auto_hit is False
    assert swing(lancer, master(fp_roll_vs_servant=True), lance, 10).auto_hit is False
    no_defence = DEFAULTS.model_copy(update={"master_defends_if_servant_present": False})
    assert swing(lancer, master(servant_present=True), lance, 10, options=no_defence).auto_hit is True


def test_fp_lifts_null_damage_option_and_conceptual_weapons() -> None:
    caster = servant("Caster")
    fated, plain = master("dagger", fp_roll_vs_servant=True), master("dagger")
    dagger = AttackSpec(attack_type="melee", weapon="dagger")
    kept = DEFAULTS.model_copy(update={"fp_lifts_null_damage": False})
    assert answer(fated, caster, swing(fated, caster, dagger, 10), dagger, "take", options=kept).outcome.damage == 0
    conceptual = dagger.model_copy(update={"conceptual": True})
    assert answer(plain, caster, swing(plain, caster, conceptual, 10), conceptual, "take").outcome.damage == 4


def test_fp_boost_raises_a_master_stat_to_the_servant_level() -> None:
    boosted = replace(master("dagger", servant_present=True), fp_boost="AGI")
    lancer = servant("Lancer", "lance")
    lance = AttackSpec(attack_type="melee", weapon="lance")
    dodge = answer(lancer, boosted, swing(lancer, boosted, lance, 10), lance, "dodge", [10])
    assert Modifier("fp_boost:AGI", -5) in dodge.rolls[0].modifiers


def test_score_floor_and_crit_on_options() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    unclamped = DEFAULTS.model_copy(update={"score_floor": None})
    assert swing(saber, lancer, SWORD, 2, options=unclamped).score == -5
    assert swing(saber, lancer, SWORD, 2).crit is False
    assert swing(saber, lancer, SWORD, 2, options=DEFAULTS.model_copy(update={"crit_on": "final"})).crit is True


def test_repeat_options() -> None:
    saber = servant("Saber", "sword")
    lancer = servant("Lancer", "lance", state=CombatState(pending_def_mod=0, last_def_type="dodge", def_streak=3))
    outcome = swing(saber, lancer, SWORD, 20)
    assert answer(saber, lancer, outcome, SWORD, "dodge", [10]).outcome.repeat_penalty == 2
    single = DEFAULTS.model_copy(update={"repeat_stacks": False})
    assert answer(saber, lancer, outcome, SWORD, "dodge", [10], options=single).outcome.repeat_penalty == 0
    literal = DEFAULTS.model_copy(update={"repeat_def_mod": -2})
    third = replace(lancer, state=CombatState(last_def_type="dodge", def_streak=2))
    assert answer(saber, third, outcome, SWORD, "dodge", [10], options=literal).outcome.defence_score == 10 - 6 - 2


def test_taking_the_hit_keeps_the_streak_and_the_stagger() -> None:
    saber = servant("Saber", "sword")
    state = CombatState(pending_def_mod=1, last_def_type="dodge", def_streak=2)
    lancer = servant("Lancer", "lance", state=state)
    resolution = answer(saber, lancer, swing(saber, lancer, SWORD, 10), SWORD, "take")
    assert resolution.rolls == ()
    assert resolution.effects[-1] == StatePatch("defender", "combat", state.model_dump(mode="json"))


def test_stat_die_mode_and_roll_mods_mode_at_creation() -> None:
    tohsaka = MasterSheet(name="Tohsaka", STR=2, END=3, AGI=3, MAG=4, LUK=3)
    doubled = DEFAULTS.model_copy(update={"stat_die_mode": "d2N", "fp_initial": 2})
    created = create_master(tohsaka, FixedDice([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 8]), doubled, gm_compat_mod=2)
    assert (created.rolls[-1].sides, created.prana_max, created.compatibility, created.fate_points) == (8, 41, 7, 2)
    roll_mods = DEFAULTS.model_copy(update={"servant_points_mode": "roll_mods"})
    sheet = ServantSheet(name="Artoria", servant_class="Saber", master="Tohsaka")
    servant_made = create_servant(sheet, tohsaka, 1, FixedDice([1] * 11), roll_mods)
    assert (servant_made.stats["MAG"], servant_made.points, servant_made.roll_mod) == (3, 2, -2)
    saber = replace(servant("Saber", "sword"), roll_mod=servant_made.roll_mod)
    assert Modifier("servant_points", -2) in swing(saber, servant("Lancer"), SWORD, 10).roll.modifiers


def test_gm_ex_stats() -> None:
    tohsaka = MasterSheet(name="Tohsaka", STR=2, END=3, AGI=3, MAG=4, LUK=3)
    sheet = ServantSheet(
        name="Gil", servant_class="Archer", master="Tohsaka", rank_steps={"LUK": 1}, ex_stats={"LUK": None}
    )
    created = create_servant(sheet, tohsaka, 0, FixedDice([1, 1, 6, *[1] * 8]), DEFAULTS)
    assert (created.stats["LUK"], created.ranks["LUK"]) == (6, "EX")
    archer = servant("Archer", "bow", stats={**created.stats, "AGI": 7})
    bow = AttackSpec(attack_type="ranged", weapon="bow")
    with pytest.raises(RuleError) as error:
        swing(archer, servant("Saber"), bow, 10)
    assert error.value.code == "ex_attack_cost_missing"
    outcome = swing(archer, servant("Saber"), bow.model_copy(update={"ex_cost": 9}), 15)
    assert (outcome.rank_used, outcome.mana_cost, outcome.score) == ("EX", 9, 15 - 7 - 3)


def test_noble_phantasm_costs_and_abilities() -> None:
    skills = [
        Ability(name="Mana Burst", roll_mods={"attack:melee": -2, "damage": 3}, mana_cost=4),
        Ability(name="Instinct", roll_mods={"defense:dodge": -1, "damage_taken": -1}),
    ]
    saber = replace(
        servant("Saber", "sword"),
        abilities=skills,
        noble_phantasms=[NoblePhantasm(name="Excalibur", rank="A++"), NoblePhantasm(name="Avalon", rank="EX")],
    )
    lancer = replace(servant("Lancer", "lance"), abilities=skills)
    excalibur = AttackSpec(attack_type="melee", weapon="sword", noble_phantasm="Excalibur", abilities=("Mana Burst",))
    outcome = swing(saber, lancer, excalibur, 12)
    assert outcome.mana_cost == 34 + 4
    assert Modifier("ability:Mana Burst", -2) in outcome.roll.modifiers
    assert (
        swing(
            saber, lancer, excalibur, 12, options=DEFAULTS.model_copy(update={"np_replaces_attack_cost": False})
        ).mana_cost
        == 43
    )
    resolution = answer(saber, lancer, outcome, excalibur, "dodge", [20])
    assert Modifier("ability:Instinct", -1) in resolution.rolls[0].modifiers
    assert hp_delta(resolution) == -(4 + 5 + 3 - 3 - 1)
    for spec, code in (
        (excalibur.model_copy(update={"noble_phantasm": "Avalon"}), "np_ex_cost_missing"),
        (excalibur.model_copy(update={"noble_phantasm": "Gae Bolg"}), "unknown_noble_phantasm"),
        (excalibur.model_copy(update={"abilities": ("Clairvoyance",)}), "unknown_ability"),
        (excalibur.model_copy(update={"weapon": "Caliburn"}), "unknown_weapon"),
    ):
        with pytest.raises(RuleError) as error:
            swing(saber, lancer, spec, 12)
        assert error.value.code == code


def test_dead_servants_cannot_act_or_be_attacked() -> None:
    dead = servant("Saber", "sword", hp=0)
    with pytest.raises(RuleError) as error:
        swing(dead, servant("Lancer"), SWORD, 10)
    assert error.value.code == "dead"
    with pytest.raises(RuleError) as error:
        swing(servant("Saber", "sword"), servant("Lancer", mana=0), SWORD, 10)
    assert error.value.code == "target_dead"
    assert (fate("servant", 5, 0), fate("servant", 0, 5), fate("master", 0, 9), fate("master", 1, 0)) == (
        "dead", "dead", "down", None,
    )  # fmt: skip


def test_attack_outcome_and_spec_round_trip_through_json() -> None:
    saber, lancer = servant("Saber", "sword"), servant("Lancer", "lance")
    outcome = swing(saber, lancer, SWORD, 1)
    assert AttackOutcome.from_dict(outcome.to_dict()) == outcome
    assert AttackSpec.from_dict(SWORD.to_dict()) == SWORD
    assert PoolDelta("attacker", "prana", -5) in AttackOutcome.from_dict(outcome.to_dict()).effects
