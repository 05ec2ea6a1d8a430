"""Part 2 R16: the GM's NP rulings (allowed defences, auto-hit, damage, stat) and God Hand ranks."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from rules.exchange import Modifier, PoolDelta
from rules.fate_points import (
    TAKE,
    Ability,
    AttackSpec,
    Combatant,
    FatePointsOptions,
    NoblePhantasm,
    NoblePhantasmRuling,
    np_defence_options,
    np_rank_below,
    np_rank_key,
)
from tests.rules.test_fate_points_support import answer, hp_delta, refused, servant, swing


def lancer_with(rank: str, mana: int = 100) -> Combatant:
    return replace(servant("Lancer", "lance", mana=mana), noble_phantasms=[NoblePhantasm(name="Gae Bolg", rank=rank)])


def np_attack(ruling: NoblePhantasmRuling | None = None) -> AttackSpec:
    return AttackSpec(attack_type="melee", weapon="lance", noble_phantasm="Gae Bolg", np_ruling=ruling)


def test_an_undefendable_np_hits_with_the_gm_damage() -> None:
    lancer, saber = lancer_with("B"), servant("Saber", "sword")
    spec = np_attack(NoblePhantasmRuling(defences=(), damage=30))
    # A natural 1: the GM's damage replaces the formula, so no crit die is rolled.
    outcome = swing(lancer, saber, spec, 1)
    assert (outcome.auto_hit, outcome.defence_options, outcome.mana_cost) == (True, (), 25)
    assert PoolDelta("attacker", "prana", -25) in outcome.effects
    with refused("auto_hit"):
        answer(lancer, saber, outcome, spec, "dodge", [10])
    landed = answer(lancer, saber, outcome, spec, TAKE)
    assert (landed.outcome.hit, landed.outcome.damage, landed.outcome.crit_bonus) == (True, 30, 0)
    assert hp_delta(landed) == -30
    assert landed.outcome.np_no_effect is False


def test_a_ruling_limits_the_defences() -> None:
    lancer, saber = lancer_with("B"), servant("Saber", "sword")
    spec = np_attack(NoblePhantasmRuling(defences=("parry_luk", "dodge")))
    outcome = swing(lancer, saber, spec, 12)
    assert outcome.defence_options == ("dodge", "parry_luk", TAKE)
    with refused("defence_not_allowed") as error:
        answer(lancer, saber, outcome, spec, "block", [3])
    assert error.value.params == {"choice": "block"}
    # Allowed defences roll as usual, and without a damage ruling the formula applies: 4 + 4 - 4 = 4.
    hit = answer(lancer, saber, outcome, spec, "dodge", [20])
    assert (hit.outcome.hit, hit.outcome.damage) == (True, 4)


def test_a_ruling_picks_the_stat_the_np_rolls_with() -> None:
    lancer, saber = lancer_with("B"), servant("Saber", "sword")
    outcome = swing(lancer, saber, np_attack(NoblePhantasmRuling(stat="LUK")), 12)
    assert Modifier("stat:LUK", -1) in outcome.roll.modifiers
    assert (outcome.stat_value, outcome.score) == (1, 12 - 1 - 2)


def test_rulings_need_an_np_and_round_trip() -> None:
    with refused("np_ruling_without_np"):
        swing(lancer_with("B"), servant("Saber"), AttackSpec(attack_type="melee", np_ruling=NoblePhantasmRuling()), 5)
    spec = np_attack(NoblePhantasmRuling(defences=("block",), damage=12, stat="AGI"))
    assert AttackSpec.from_dict(spec.to_dict()) == spec
    assert spec.to_dict()["np_ruling"] == {"defences": ["block"], "damage": 12, "stat": "AGI"}
    assert NoblePhantasmRuling.from_dict(NoblePhantasmRuling().to_dict()) == NoblePhantasmRuling()
    assert np_defence_options(None) == ("block", "dodge", "parry_agi", "parry_luk", TAKE)


@pytest.mark.parametrize(("rank", "no_effect"), [("C+", True), ("B-", True), ("B", False), ("A", False)])
def test_god_hand_ignores_lower_ranked_nps(rank: str, no_effect: bool) -> None:
    lancer = lancer_with(rank)
    heracles = replace(servant("Berserker", "axe", hp=80), min_np_rank="B")
    spec = np_attack(NoblePhantasmRuling(defences=(), damage=30))
    outcome = swing(lancer, heracles, spec, 8)
    assert outcome.mana_cost > 0  # the NP is still paid for
    resolution = answer(lancer, heracles, outcome, spec, TAKE)
    assert resolution.outcome.np_no_effect is no_effect
    assert resolution.outcome.damage == (0 if no_effect else 30)
    assert hp_delta(resolution) == (0 if no_effect else -30)


def test_a_god_hand_defender_has_nothing_to_defend() -> None:
    lancer, heracles = lancer_with("C"), replace(servant("Berserker", "axe"), min_np_rank="A")
    outcome = swing(lancer, heracles, np_attack(), 3)
    assert (outcome.auto_hit, outcome.defence_options) == (False, (TAKE,))
    with refused("defence_not_allowed"):
        answer(lancer, heracles, outcome, np_attack(), "block", [1])
    resolution = answer(lancer, heracles, outcome, np_attack(), TAKE)
    assert (resolution.outcome.hit, resolution.outcome.damage) == (False, 0)
    # Ordinary attacks are not NPs: God Hand does not stop them.
    sword = AttackSpec(attack_type="melee", weapon="lance")
    plain = answer(lancer, heracles, swing(lancer, heracles, sword, 3), sword, TAKE)
    assert plain.outcome.np_no_effect is False
    assert plain.outcome.damage > 0


def test_np_cost_replaces_the_attack_cost_per_option() -> None:
    saber = servant("Saber", "sword")
    assert swing(lancer_with("B"), saber, np_attack(), 12).mana_cost == 25
    both = swing(lancer_with("B"), saber, np_attack(), 12, options=FatePointsOptions(np_replaces_attack_cost=False))
    assert both.mana_cost == 25 + 4  # Lancer STR B


def test_an_np_activated_beforehand_attacks_without_paying_again() -> None:
    activated = replace(lancer_with("B"), activated=("Gae Bolg",))
    saber = servant("Saber", "sword")
    assert swing(activated, saber, np_attack(), 12).mana_cost == 0
    both = swing(activated, saber, np_attack(), 12, options=FatePointsOptions(np_replaces_attack_cost=False))
    assert both.mana_cost == 4  # only the attack's own rank cost (STR B) is left to pay


def test_a_skill_activated_beforehand_applies_without_being_named_and_is_not_paid_twice() -> None:
    burst = Ability(name="Mana Burst", roll_mods={"attack:melee": -2, "damage": 3}, mana_cost=6)
    lancer = replace(servant("Lancer", "lance"), abilities=[burst])
    sword = AttackSpec(attack_type="melee", weapon="lance")
    plain = swing(lancer, servant("Saber"), sword, 12)
    assert "ability:Mana Burst" not in {modifier.source for modifier in plain.roll.modifiers}
    named = swing(lancer, servant("Saber"), sword.model_copy(update={"abilities": ("Mana Burst",)}), 12)
    assert named.mana_cost == plain.mana_cost + 6
    active = replace(lancer, activated=("Mana Burst",))
    paid = swing(active, servant("Saber"), sword.model_copy(update={"abilities": ("Mana Burst",)}), 12)
    assert paid.mana_cost == plain.mana_cost
    assert Modifier("ability:Mana Burst", -2) in paid.roll.modifiers
    hit = answer(active, servant("Saber"), paid, sword, TAKE)
    assert hit.outcome.damage == answer(lancer, servant("Saber"), plain, sword, TAKE).outcome.damage + 3


def test_np_attacks_confirm_a_last_mana_spend() -> None:
    with refused("confirm_zero_mana"):
        swing(lancer_with("B", mana=25), servant("Saber"), np_attack(), 12)
    with refused("not_enough_mana"):
        swing(lancer_with("B", mana=24), servant("Saber"), np_attack(), 12)


def test_rank_order() -> None:
    ranks = ["E-", "E", "D--", "D", "C-", "C", "C+", "B-", "B", "B+", "B++", "A-", "A", "A+", "EX"]
    keys = [np_rank_key(rank) for rank in ranks]
    assert all(lower < higher for lower, higher in itertools.pairwise(keys))  # strictly increasing
    assert np_rank_key("A+") > np_rank_key("A") > np_rank_key("A-") > np_rank_key("B+")
    assert np_rank_below("A+", "EX")
    assert not np_rank_below("EX", "A+")
    assert not np_rank_below("E", None)
    assert not np_rank_below("B", "B")
    with refused("invalid_rank"):
        np_rank_key("F")
