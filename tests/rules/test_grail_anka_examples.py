"""The spec's worked examples W1-W14 as far as the pure rules go (rules/grail_anka.md §6)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.commitment import digest_of
from rules.grail_anka import battle, checks, turns
from rules.grail_anka.anchors import anchor_in
from rules.grail_anka.model import AUTO_LOSE, AUTO_WIN, SkillKind, Talisman, Timing
from rules.grail_anka.options import GrailAnkaOptions
from rules.grail_anka.sheets import Skill, rank_value

SABER = {"str": 45, "end": 40, "agi": 35, "mag": 20, "luk": 30, "np": 50}
MA = {"str": 10, "end": 10, "agi": 15, "mag": 35, "luk": 20, "np": 0}
BERSERKER = {"str": 55, "end": 50, "agi": 30, "mag": 10, "luk": 15, "np": 35}
ASSASSIN = {"str": 25, "end": 20, "agi": 45, "mag": 15, "luk": 25, "np": 25}
MB1 = {"str": 5, "end": 10, "agi": 10, "mag": 30, "luk": 15, "np": 0}
SIDE_A = battle.strength(SABER, [MA])
SIDE_B = battle.strength(BERSERKER, [ASSASSIN, MB1])


def test_w1_strength() -> None:
    assert SIDE_A == {"str": 50, "end": 45, "agi": 43, "mag": 38, "luk": 40, "np": 50}
    assert SIDE_B == {"str": 70, "end": 65, "agi": 58, "mag": 33, "luk": 35, "np": 48}


@pytest.mark.parametrize(("value", "third"), [(42, "mag"), (0, "end"), (37, "agi"), (99, "luk")])
def test_w2_the_third_parameter(value: int, third: str) -> None:
    assert battle.remaining(["np", "str"]) == ("end", "agi", "mag", "luk")
    assert battle.third_parameter(["np", "str"], value) == third


def test_w3_win_rate() -> None:
    rate = battle.win_rate(["np", "str", "mag"], SIDE_A, SIDE_B, level_a=12, level_b=15, fatigue_a=2, fatigue_b=5)
    assert (rate.advantages, rate.disadvantages, rate.base) == (2, 1, 70)
    assert (rate.totals, rate.levels, rate.fatigue, rate.rate) == (-13, -3, 6, 60)


def test_w4_the_commitment_and_the_decision() -> None:
    nonce = "00112233445566778899aabbccddeeff"
    digest = digest_of(checks.prefix("demo-campaign", "roll-0001"), checks.secret_text(58), nonce)
    assert digest == "20e9cf2a6e6bfb68023aab29c83bf2e3dc1bf9e61658e031de89493c65f06385"
    assert checks.verifies("demo-campaign", "roll-0001", "58", nonce, digest)
    assert not checks.verifies("demo-campaign", "roll-0001", "59", nonce, digest)
    second = digest_of(checks.prefix("demo-campaign", "roll-0002"), "07", "ffeeddccbbaa99887766554433221100")
    assert second == "21d6f80138ad0a7ce9db7a8fcb001fdf715aec04676835670d85f666ea2c424c"
    readings = {anchor: checks.judge(checks.value_of(58, anchor), 60) for anchor in (73, 2, 3, 42, 43)}
    assert readings[73].value == 31 and readings[73].success
    assert readings[2].value == 60 and readings[2].success
    assert readings[3].value == 61 and not readings[3].success
    assert readings[42].fumble and not readings[42].success
    assert readings[43].critical and readings[43].success


def test_w5_winners_fatigue() -> None:
    assert battle.winner_fatigue(2, checks.digit(76)) == 4
    assert battle.winner_fatigue(0, checks.digit(0)) == 0
    assert battle.winner_fatigue(0, checks.digit(9)) == 5
    assert battle.winner_fatigue(0, checks.digit(58)) == 3


def test_w6_losers() -> None:
    assert battle.survive_rate(5) == 45
    assert checks.survives_vanish(45, 45, critical_fumble_all_checks=False)
    assert battle.survive_rate(1) == 65
    assert not checks.survives_vanish(80, 65, critical_fumble_all_checks=False)
    assert 1 + battle.retreat_fatigue("seal") == 4


def test_w7_turn_end_then_a_seal() -> None:
    assert battle.seal_recovery(7) == 1
    saber = Skill(name="Burst", fatigue_cost=1, timing=Timing.MAIN)
    assert battle.usable(saber, Timing.MAIN, place="main", fatigue_at_start=7, used=0) == "skill_too_tired"
    retreat = Skill.model_validate({"name": "Away", "timing": "post_battle", "tags": ["retreat"], "fatigue_cost": 1})
    assert battle.usable(retreat, Timing.POST_BATTLE, place="companion", fatigue_at_start=7, used=0) is None


def test_w8_automatic_results_skip_every_correction() -> None:
    won = battle.win_rate(["str", "end", "agi"], {"str": 9, "end": 9, "agi": 9}, {"str": 1, "end": 1, "agi": 1},
                          level_a=1, level_b=99, fatigue_a=20, fatigue_b=0)  # fmt: skip
    assert won.automatic == AUTO_WIN and won.rate is None and battle.automatic_winner(won) is True
    lost = battle.win_rate(["str", "end", "agi"], {"str": 1, "end": 1, "agi": 1}, {"str": 9, "end": 9, "agi": 9},
                           level_a=1, level_b=1, fatigue_a=0, fatigue_b=0, min_a=10)  # fmt: skip
    assert lost.automatic == AUTO_LOSE and battle.automatic_winner(lost) is False


def test_w9_extremes() -> None:
    assert checks.chances(-5) == {"critical": Fraction(1, 100), "success": 0, "failure": Fraction(98, 100),
                                  "fumble": Fraction(1, 100)}  # fmt: skip
    assert checks.chances(112)["failure"] == 0 and checks.chances(112)["success"] == Fraction(98, 100)


@pytest.mark.parametrize(("subs", "expected"), [([15, 15], 45), ([15], 38), ([15, 10], 43)])
def test_w10_subs_round_up_once(subs: list[int], expected: int) -> None:
    main = dict.fromkeys(("str", "end", "agi", "mag", "luk", "np"), 30)
    assert battle.strength(main, [dict.fromkeys(main, sub) for sub in subs])["str"] == expected


def test_w12_a_certain_vanish() -> None:
    assert battle.survive_rate(14) == 0
    assert checks.survive_chance(0, critical_fumble_all_checks=False) == 0
    assert checks.survive_chance(0, critical_fumble_all_checks=True) == Fraction(1, 100)
    assert checks.survive_chance(45, critical_fumble_all_checks=False) == Fraction(45, 100)


def test_w13_substitute_talismans() -> None:
    assert 3 + battle.retreat_fatigue(Talisman.SUBSTITUTE) == 6
    assert 3 + battle.retreat_fatigue(Talisman.SUBSTITUTE_KAI) == 3


def test_w14_cancellation_and_categories() -> None:
    assert battle.cancellable_by(Talisman.ILLUSION, SkillKind.NORMAL)
    assert not battle.cancellable_by(Talisman.ILLUSION, SkillKind.NP)
    assert battle.cancellable_by(Talisman.ILLUSION_KAI, SkillKind.NP)
    assert battle.cancellable_by(Talisman.ILLUSION_KAI, SkillKind.NORMAL)
    assert not battle.cancellable_by(Talisman.ILLUSION_KAI, SkillKind.SPECIAL)
    assert not battle.cancellable_by("counter", SkillKind.ADV_MYSTIC_CODE)
    boost = Skill.model_validate({"name": "Boost", "category": "rush", "fatigue_cost": 1,
                                  "effect": {"win_rate_delta": 10}})  # fmt: skip
    phantasm = Skill.model_validate({"name": "Excalibur", "kind": "np", "category": "rush",
                                     "effect": {"win_rate_delta": 15}})  # fmt: skip
    special = Skill.model_validate({"name": "Oath", "kind": "special", "category": "rush",
                                    "effect": {"win_rate_delta": 5}})  # fmt: skip
    met = battle.interplay([battle.Activation("b", boost), battle.Activation("a", phantasm)], np_priority_fatigue=False)
    assert met[0].suppressed and not met[0].tires and not met[1].suppressed
    assert battle.totals(met, "a").win_rate == 15 and battle.totals(met, "b").win_rate == 0
    met = battle.interplay(
        [battle.Activation("b", special), battle.Activation("a", phantasm)], np_priority_fatigue=False
    )
    assert met[0].suppressed and met[0].tires
    netted = battle.interplay([battle.Activation("b", boost), battle.Activation("a", boost)], np_priority_fatigue=False)
    assert not any(activation.suppressed for activation in netted)


def test_a_suppressed_skill_names_the_phantasm_that_took_priority() -> None:
    """R10: what a table is told of a skill that took no effect names the Noble Phantasm, or none for a 相殺."""
    guard, ward = (Skill.model_validate({"name": name, "category": "shield"}) for name in ("Guard", "Ward"))
    aegis = Skill.model_validate({"name": "Aegis", "kind": "np", "category": "shield"})
    used = [battle.Activation("a", guard), battle.Activation("a", aegis), battle.Activation("b", ward)]
    met = battle.interplay(used, np_priority_fatigue=False)
    assert met[2].suppressed and met[2].overridden_by == 1  # b's Ward gives way to a's Aegis
    assert not met[0].suppressed and met[1].overridden_by is None
    offset = battle.interplay([battle.Activation("a", guard), battle.Activation("b", ward)], np_priority_fatigue=False)
    assert all(activation.suppressed and activation.overridden_by is None for activation in offset)


def test_anchors_in_messages() -> None:
    assert anchor_in("42") == 42
    assert anchor_in("４２ です") == 42
    assert anchor_in("I take <@123456789> 7") == 7
    assert anchor_in("100") == 100
    for chatter in ("101", "0", "no number", "4 and 5", "-5", "4.5"):
        assert anchor_in(chatter) is None


def test_rank_letters() -> None:
    options = GrailAnkaOptions()
    assert [rank_value(rank, options) for rank in ("E", "B+", "A++", "EX", "ex")] == [10, 45, 60, 60, 60]
    assert rank_value("F", options) is None


def test_w7_the_turns_end_recovers_one() -> None:
    assert [turns.recovered(f, has_master=True, resting=False) for f in (4, 8, 4)] == [3, 7, 3]
    assert turns.recovered(4, has_master=True, resting=True) == 2  # D16: rest is on top of it
    assert turns.recovered(0, has_master=True, resting=True) == 0


def test_w11_a_masterless_servant_fades() -> None:
    assert [turns.masterless_survive_rate(t) for t in (1, 2, 3)] == [95, 90, 85]
    assert checks.survive_chance(95, critical_fumble_all_checks=False) == Fraction(95, 100)
    assert turns.recovered(9, has_master=False, resting=True) == 9  # fatigue frozen
    assert turns.masterless_survive_rate(20) == 0 and checks.survive_chance(0, critical_fumble_all_checks=False) == 0


def test_the_end_of_the_war() -> None:
    assert turns.active([("master", False), ("servant", True)]) and turns.active([("master", True)])
    assert not turns.active([("master", False), ("servant", False), ("other", True)])  # D17
    assert turns.finale_reason(["a", "b"], {}) == "two_camps"
    assert turns.finale_reason(["a", "b", "c"], {}) is None
    peace = {frozenset(pair): "allied" for pair in (("a", "b"), ("b", "c"))} | {frozenset(("a", "c")): "ceasefire"}
    assert turns.finale_reason(["a", "b", "c"], peace) == "at_peace"
    assert turns.time_up(6, 5) and not turns.time_up(5, 5) and not turns.time_up(99, None)


def test_a_phantasm_overrides_an_advanced_mystic_code_and_the_war_ends_with_one_camp() -> None:
    code = Skill.model_validate({"name": "Code", "kind": "adv_mystic_code", "category": "rush",
                                 "effect": {"win_rate_delta": 5}})  # fmt: skip
    phantasm = Skill.model_validate({"name": "Gae Bolg", "kind": "np", "category": "rush",
                                     "effect": {"win_rate_delta": 5}})  # fmt: skip
    met = battle.interplay([battle.Activation("a", code), battle.Activation("b", phantasm)], np_priority_fatigue=False)
    assert met[0].suppressed and not met[1].suppressed
    assert turns.finale_reason(["a"], {}) == "one_camp" and turns.finale_reason([], {}) == "no_camp"


def test_every_skill_of_a_win_rate_is_a_term_of_its_own() -> None:
    """T3's skill term apart: W3's battle with a passive +2 for A and +5 and a parameter for B; a cancelled skill,
    one that lost to a Noble Phantasm and one with no number are no terms."""
    alone = Skill.model_validate({"name": "単独行動", "timing": "passive", "effect": {"win_rate_delta": 2}})
    madness = Skill.model_validate({"name": "狂化", "timing": "passive",
                                    "effect": {"win_rate_delta": 5, "param_delta": {"mag": 10}}})  # fmt: skip
    roar = Skill.model_validate({"name": "Roar", "effect": {"win_rate_delta": 9}})
    oath = Skill.model_validate({"name": "Oath", "kind": "special"})
    used = [
        battle.Activation("a", alone, "Saber"), battle.Activation("b", madness, "Berserker"),
        battle.Activation("b", roar, "Berserker", cancelled=True), battle.Activation("a", oath, "Saber"),
    ]  # fmt: skip
    side_a = [battle.Member(battle.MAIN, SABER, 12, 2), battle.Member(battle.SUB, MA, 5)]
    side_b = [battle.Member(battle.MAIN, BERSERKER, 15, 4), battle.Member(battle.SUB, ASSASSIN, 8, 1),
              battle.Member(battle.SUB, MB1, 4)]  # fmt: skip
    rated = battle.formation_rate(["np", "str", "mag"], side_a, side_b, skills_a=battle.totals(used, "a"),
                                  skills_b=battle.totals(used, "b"))  # fmt: skip
    assert rated.result.skills == -3 and rated.strength_b["mag"] == 43
    assert [(term.who, term.skill.name) for term in rated.skills_a.terms] == [("Saber", "単独行動")]
    assert [(term.who, term.skill.name) for term in rated.skills_b.terms] == [("Berserker", "狂化")]
    # W3's 70 - 13 - 3 + 6, with 狂化's MAG turning that advantage: (1, 2) gives 30, totals -23.
    assert (rated.result.base, rated.result.totals, rated.result.rate) == (30, -23, 30 - 23 - 3 + 6 - 3)
