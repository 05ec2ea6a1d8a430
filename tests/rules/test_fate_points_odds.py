"""Exact hit odds: equal to playing every pair of d20s through the engine, and to a seeded simulation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

import pytest

from rules.dice.source import FixedDice, SeededDice
from rules.fate_points import AttackSpec, Combatant, CombatState, defend, odds
from tests.rules.test_fate_points_support import DEFAULTS, master, servant, swing

TRIALS = 200_000
TOLERANCE = 0.005


def floor(score: int) -> int:
    return max(1, score)


# Each matchup: attacker, defender, spec, round, and an independent oracle written from the spec's
# numbers: choice -> (attack score of a face, defence score of a face, hit rule on (defence, attack)).
Oracle = dict[str, tuple[Callable[[int], int], Callable[[int, int], bool]]]
Matchup = tuple[Combatant, Combatant, AttackSpec, int, Callable[[int], int], Oracle]
BEATS: dict[str, Callable[[int, int], bool]] = {  # hit unless the defence succeeds (T7)
    "block": lambda d, a: d > a,
    "dodge": lambda d, a: d >= a,
    "parry": lambda d, a: d > a - 2,
}


def fresh() -> Matchup:
    """Saber (STR 5, sword, -2) vs Lancer (STR 4, AGI 5, LUK 1, lance), no history."""
    return (
        servant("Saber", "sword"),
        servant("Lancer", "lance"),
        AttackSpec(attack_type="melee", weapon="sword"),
        1,
        lambda n: floor(n - 5 - 2),
        {
            "block": (lambda m: floor(m - 4 - 1), BEATS["block"]),
            "dodge": (lambda m: floor(m - 5 - 1), BEATS["dodge"]),
            "parry_agi": (lambda m: floor(m - 5 - 3), BEATS["parry"]),
            "parry_luk": (lambda m: floor(m - 1 - 3), BEATS["parry"]),
        },
    )


def staggered_repeat() -> Matchup:
    """Lancer, after two dodges and a stagger carry of +3, answers Saber's second of two attacks."""
    lancer = servant("Lancer", "lance", state=CombatState(pending_def_mod=3, last_def_type="dodge", def_streak=2))
    return (
        servant("Saber", "sword", "dagger"),
        lancer,
        AttackSpec(attack_type="melee", weapon="dagger", attacks_declared=2),
        1,
        lambda n: floor(n - 5 - 2 + 1),
        {
            "block": (lambda m: floor(m - 4 - 1 + 3), BEATS["block"]),
            "dodge": (lambda m: floor(m - 5 - 1 + 3 + 2), BEATS["dodge"]),  # third dodge: +2 now
            "parry_agi": (lambda m: floor(m - 5 - 3 + 3), BEATS["parry"]),
            "parry_luk": (lambda m: floor(m - 1 - 3 + 3), BEATS["parry"]),
        },
    )


def magical_with_parry_bonus() -> Matchup:
    """Caster (MAG 5, -3, parry bonus this round) vs Archer on a 4th block in a row (+2 carry, +2 now)."""
    caster = servant("Caster", state=CombatState(parry_bonus_rounds=(2,)))
    archer = servant("Archer", "bow", state=CombatState(pending_def_mod=2, last_def_type="block", def_streak=3))
    return (
        caster,
        archer,
        AttackSpec(attack_type="magical"),
        2,
        lambda n: floor(n - 5 - 3 - 1),
        {
            "block": (lambda m: floor(m - 1 + 0 + 2 + 2), BEATS["block"]),  # MAG E, bow ignored vs magic
            "dodge": (lambda m: floor(m - 3 - 3 + 2), BEATS["dodge"]),
            "parry_agi": (lambda m: floor(m - 3 - 2 + 2), BEATS["parry"]),
            "parry_luk": (lambda m: floor(m - 1 - 2 + 2), BEATS["parry"]),
        },
    )


def servant_vs_guarded_master() -> Matchup:
    """Berserker (STR 3, -3, axe) vs a Master whose Servant is present: weapon modifiers ignored."""
    return (
        servant("Berserker", "axe"),
        replace(master("sword", servant_present=True), state=CombatState(pending_def_mod=1)),
        AttackSpec(attack_type="melee", weapon="axe"),
        1,
        lambda n: floor(n - 3 - 3),
        {
            "block": (lambda m: floor(m - 2 + 1), BEATS["block"]),
            "dodge": (lambda m: floor(m - 3 + 1), BEATS["dodge"]),
            "parry_agi": (lambda m: floor(m - 3 + 1), BEATS["parry"]),
            "parry_luk": (lambda m: floor(m - 3 + 1), BEATS["parry"]),
        },
    )


MATCHUPS = [fresh, staggered_repeat, magical_with_parry_bonus, servant_vs_guarded_master]


@pytest.mark.parametrize("matchup", MATCHUPS)
def test_odds_match_a_seeded_simulation(matchup: Callable[[], Matchup]) -> None:
    attacker, defender, spec, round_number, attack_score, oracle = matchup()
    exact = odds(attacker, defender, spec, round_number, DEFAULTS)
    dice = SeededDice(MATCHUPS.index(matchup))
    attacks = [attack_score(face) for face in dice.roll(TRIALS, 20)]
    for choice, (defence_score, hit) in oracle.items():
        hits = sum(hit(defence_score(face), a) for face, a in zip(dice.roll(TRIALS, 20), attacks, strict=True))
        assert abs(hits / TRIALS - float(exact[choice])) < TOLERANCE, choice


@pytest.mark.parametrize("matchup", MATCHUPS)
def test_odds_equal_every_pair_of_dice_played_through_the_engine(matchup: Callable[[], Matchup]) -> None:
    attacker, defender, spec, round_number, _, oracle = matchup()
    exact = odds(attacker, defender, spec, round_number, DEFAULTS)
    outcomes = [swing(attacker, defender, spec, n, round_number) for n in range(1, 21)]
    for choice in oracle:
        hits = sum(
            defend(attacker, defender, outcome, spec, choice, round_number, FixedDice([m, 1]), DEFAULTS).outcome.hit
            for outcome in outcomes
            for m in range(1, 21)
        )
        assert exact[choice] == Fraction(hits, 400), choice


def test_auto_hit_odds_are_certain() -> None:
    lancer = servant("Lancer", "lance")
    chances = odds(lancer, master(), AttackSpec(attack_type="melee", weapon="lance"), 1, DEFAULTS)
    assert chances == dict.fromkeys(("block", "dodge", "parry_agi", "parry_luk"), Fraction(1))
