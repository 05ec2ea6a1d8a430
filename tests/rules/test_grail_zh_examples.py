"""The worked examples of rules/grail_zh.md §6 that characters, checks, attacks, damage, saves, initiative, costs
and "+" cover, with fixed dice."""

from __future__ import annotations

from typing import Any

import pytest

from rules.dice import FixedDice
from rules.exchange import Modifier, RuleError
from rules.grail_zh.characters import master_stats, release_cost, servant_stats
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import (
    AttackRoll,
    InitiativeEntry,
    Reductions,
    damage_roll,
    damage_taken,
    initiative,
    luck_d20,
    masterless_drain,
    pay,
    plus_multiplier,
    range_penalty,
    save,
    save_dc,
    succeeds,
    transfer,
)
from rules.grail_zh.sheets import Damage, MasterFile, ServantFile, parse_master, parse_servant
from rules.sheets import SheetError

OPTIONS = GrailZhOptions()


def master(**attributes: int) -> dict[str, Any]:
    kind = attributes.pop("type", "melee")
    return {"name": "M", "master_type": kind, "attributes": attributes}


E3 = parse_master(master(str=4, dex=3, con=3, int=0, wis=0, cha=0))
E5 = parse_master({**master(str=0, dex=2, con=0, int=3, wis=0, cha=5), "master_type": "magus"})


def servant(servant_class: str, legend: str, **more: Any) -> ServantFile:
    ranks = dict(zip(("STR", "END", "AGI", "MAG", "LUK"), legend.split(), strict=True))
    return parse_servant({"name": "S", "master": "M", "servant_class": servant_class, "legend": ranks, **more})


def test_e1_and_e2_attack_and_check() -> None:
    d20 = luck_d20(FixedDice([9]), None)
    aware = AttackRoll(d20, (Modifier("attribute:str", 5),), defense=4)
    assert (aware.total, aware.hit) == (10, True)
    assert AttackRoll(d20, (Modifier("attribute:str", 5),), defense=0).total == 14
    check = luck_d20(FixedDice([6]), None)
    assert not succeeds(check, check.final + 2)


def test_e3_melee_master() -> None:
    stats = master_stats(E3)
    assert (stats.hp_max, stats.mp_max, stats.speed, stats.run) == (26, 10, 10, 40)
    assert str(stats.melee_damage) == "1d6+7"


def test_e4_invalid_and_valid_sheets() -> None:
    with pytest.raises(SheetError) as over_budget:
        parse_master(master(str=4, dex=3, con=4))
    assert [problem.code for problem in over_budget.value.problems] == ["grail_budget"]
    with pytest.raises(SheetError) as too_high:
        parse_master({**master(int=6), "master_type": "magus"})
    assert too_high.value.problems[0].field == "attributes.int"
    parse_master(master(type="ordinary", int=7, str=3))  # type: ignore[arg-type]
    # A file wrong elsewhere still has its point-buy judged: every problem at once.
    with pytest.raises(SheetError) as both:
        parse_master({**master(str=4, dex=3, con=4), "master_type": "wizard"})
    assert [(problem.field, problem.code) for problem in both.value.problems] == [
        ("master_type", "invalid_choice"), ("attributes", "grail_budget")]  # fmt: skip


def test_e5_magus_and_homunculus() -> None:
    stats = master_stats(E5)
    assert (stats.hp_max, stats.mp_max, stats.speed) == (10, 26, 7)
    homunculus = MasterFile.model_validate({**E5.model_dump(), "master_type": "homunculus", "general_spells": ["heal"]})
    assert master_stats(homunculus).mp_max == 130
    archer = servant_stats(servant("archer", "D C C B E"), E5, OPTIONS)
    assert archer.ranks["MAG"] == Rank(5, 2)  # B + 3


def test_e6_saber() -> None:
    excalibur = {"name": "Excalibur", "rank": "A", "scope": "anti_city", "mode": "one_shot", "ranged": True}
    sheet = servant("saber", "B C C B A", noble_phantasms=[excalibur])
    stats = servant_stats(sheet, E3, OPTIONS)
    assert [str(stats.ranks[stat]) for stat in ("STR", "END", "AGI", "MAG", "LUK")] == ["A", "B", "B", "B", "A"]
    assert str(stats.skill("magic_resistance").rank) == "A+1"  # type: ignore[union-attr]
    assert str(stats.skill("riding").rank) == "C"  # type: ignore[union-attr]
    assert (stats.hp_max, stats.mp_max, stats.speed, stats.melee_bonus, stats.defense) == (64, 80, 10, 5, 4)
    assert str(stats.melee_damage) == "3d12"
    assert (stats.daily_cost, stats.combat_cost) == (14, 36)
    assert release_cost(sheet.noble_phantasms[0]) == 50


def test_e7_payment_with_the_masters_help() -> None:
    combat = pay(36, 80, 10, from_master=True, forced=True)
    assert combat.servant_mp == 44
    release = pay(50, combat.servant_mp, 10, from_master=True, forced=False)
    assert (release.from_master, release.master_mp, release.servant_mp) == (4, 6, 2)


def test_d18_a_voluntary_cost_to_zero_is_refused_unless_confirmed() -> None:
    with pytest.raises(RuleError):
        pay(10, 10, None, from_master=False, forced=False)
    assert pay(10, 10, None, from_master=False, forced=False, fatal=True).vanished
    assert pay(10, 10, None, from_master=False, forced=True).vanished


def test_e8_archer() -> None:
    sheet = servant("archer", "D C C B E", noble_phantasms=[{"name": "Bow", "rank": "B", "scope": "anti_army"}])
    stats = servant_stats(sheet, E5, OPTIONS)
    assert str(stats.skill("magic_resistance").rank) == "A+2"  # type: ignore[union-attr]
    assert str(stats.skill("independent_action").rank) == "A+2"  # type: ignore[union-attr]
    assert (stats.hp_max, stats.mp_max, stats.speed, stats.ranged_bonus) == (36, 140, 11, 3)
    assert (str(stats.melee_damage), str(stats.ranged_damage)) == ("2d6", "1d6+3")
    assert (stats.daily_cost, stats.combat_cost) == (15, 34)
    assert release_cost(sheet.noble_phantasms[0]) == 24


def test_e9_berserker() -> None:
    neutral = parse_master(master())
    stats = servant_stats(servant("berserker", "B B C D D", mad_enhancement="A"), neutral, OPTIONS)
    assert [str(stats.ranks[stat]) for stat in ("STR", "END", "AGI", "MAG", "LUK")] == ["A+1", "A", "B", "C", "D"]
    assert (stats.hp_max, stats.mp_max, stats.speed, stats.melee_bonus) == (90, 60, 10, 6)
    assert str(stats.melee_damage) == "4d12+1"


def test_e10_range() -> None:
    d20 = luck_d20(FixedDice([13]), None)
    shot = AttackRoll(d20, (Modifier("agility", 3), Modifier("range", -range_penalty(45, 0))), defense=2)
    assert (shot.total, shot.hit) == (10, True)
    assert range_penalty(45, 1) == 0 and range_penalty(145, 1) == 4


def test_e11_luck() -> None:
    e = luck_d20(FixedDice([20, 19, 2]), Rank.parse("E"))
    assert (e.faces, e.auto) == ((20, 19, 2), "failure")
    assert luck_d20(FixedDice([18]), Rank.parse("A")).auto == "success"
    assert luck_d20(FixedDice([17]), Rank.parse("A+1")).auto == "success"
    assert luck_d20(FixedDice([3, 11]), Rank.parse("A+1")).faces == (3, 11)
    assert luck_d20(FixedDice([3]), Rank.parse("A+1"), optional_rerolls=False).faces == (3,)
    assert luck_d20(FixedDice([20]), Rank.parse("C")).auto == "success"
    assert luck_d20(FixedDice([1]), Rank.parse("C")).auto == "failure"
    # An auto-success hits whatever the defence (E11: even against a defence of 10).
    assert AttackRoll(luck_d20(FixedDice([18]), Rank.parse("A")), (), defense=10).hit


def test_e12_saves() -> None:
    curse = save_dc(4, 2)
    assert curse == 15
    assert save(FixedDice([17]), None, curse).outcome == "half"
    assert save(FixedDice([15]), None, curse).outcome == "full"
    dc = save_dc(5, 5)
    assert [save(FixedDice([face]), None, dc).outcome for face in (11, 8, 5)] == ["none", "half", "full"]
    magecraft = save_dc(5, 4)
    assert magecraft == 10
    assert save(FixedDice([10]), None, magecraft, (Modifier("magic_resistance", 6),)).outcome == "none"
    # Several saving against one Noble Phantasm: each roll names whose it is.
    assert save(FixedDice([7]), None, curse, name="Lancer").roll.label == "save:Lancer"
    assert save(FixedDice([7]), None, curse).roll.label == "save"


def test_e13_assassin() -> None:
    stats = servant_stats(servant("assassin", "C C A C C"), None, OPTIONS)
    assert stats.melee_bonus == 8
    unaware = damage_roll(FixedDice([]), stats.melee_damage, "damage", (Modifier("unaware", 5),), maximal=True)
    assert unaware.total == 26
    assert str(stats.melee_damage) == "2d8+5"


def test_e14_defend() -> None:
    assert damage_taken(27, Reductions(defend=4)) == 9


def test_e15_initiative() -> None:
    luck_a, luck_e = Rank.parse("A"), Rank.parse("E")
    order = initiative(FixedDice([11, 12]), [InitiativeEntry(1, 4, luck_a, 5), InitiativeEntry(2, 3, None, 0)]).order
    assert order == ((1,), (2,))
    lancer_and_saber = [InitiativeEntry(3, 4, luck_e, 1), InitiativeEntry(1, 4, luck_a, 5)]
    assert initiative(FixedDice([11, 11]), lancer_and_saber).order == ((1,), (3,))


def test_e16_transfers() -> None:
    assert transfer(40, 100, 10, 40) == (15, 30)
    assert pay(40, 10, 40, from_master=True, forced=True).from_master == 16  # 40 - 10 + 1 = 31 needed


def test_e18_plus() -> None:
    assert 40 * plus_multiplier(1, "linear") == 80 == 40 * plus_multiplier(1, "pow2")
    assert (40 * plus_multiplier(2, "linear"), 40 * plus_multiplier(2, "pow2")) == (120, 160)
    assert Rank.parse("A++").pluses == 2 and Rank.parse("A+2").x == 2


def test_e19_costs() -> None:
    def np(rank: str, scope: str, mode: str) -> Any:
        return servant("saber", "C C C C C", noble_phantasms=[{"name": "N", "rank": rank, "scope": scope,
                                                               "mode": mode}]).noble_phantasms[0]  # fmt: skip

    assert release_cost(np("A", "anti_army", "sustained")) == 15
    assert release_cost(np("C", "anti_unit", "one_shot")) == 6
    assert release_cost(np("EX", "anti_city", "one_shot")) == 100


def test_e20_lancer_gains_battle_continuation() -> None:
    stats = servant_stats(servant("lancer", "C C C C C"), None, OPTIONS)
    assert str(stats.skill("battle_continuation").rank) == "B"  # type: ignore[union-attr]


def test_a_masterless_servant_drains_a_tenth_of_its_maximum_each_minute() -> None:
    # 「每分钟会流失最大魔力值的10%」 with D8's 10 rounds a minute: a 60-MP Servant loses 6 at the end of each
    # whole minute since its Master died, nothing in the rounds between; at 39 MP it has 33 after 11 rounds.
    lost = [masterless_drain(60, rounds) for rounds in range(1, 22)]
    assert lost[9] == lost[19] == 6 and sum(lost) == 12
    assert 39 - sum(masterless_drain(60, rounds) for rounds in range(1, 12)) == 33
    assert masterless_drain(140, 10) == 14 and masterless_drain(60, 0) == 0


def test_damage_dice_are_written_as_the_rules_write_them() -> None:
    assert Damage.model_validate("5d12+9").maximum == 69
    with pytest.raises(ValueError):
        Damage.model_validate("5d")
