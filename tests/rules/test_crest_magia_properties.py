"""Crest Magia's invariants over many dice, and exact odds against every roll played through the engine."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from rules.crest_magia.damage import choose_overflow, take_damage
from rules.crest_magia.model import DEAD, DICE, STATS, Stat
from rules.crest_magia.odds import action_outcomes, hit_chance
from rules.crest_magia.options import CrestMagiaOptions
from rules.crest_magia.rolls import action_roll, resolve_attack
from rules.dice.source import FixedDice
from rules.exchange import Modifier

DEFAULTS = CrestMagiaOptions()
pools: st.SearchStrategy[dict[Stat, int]] = st.fixed_dictionaries({stat: st.integers(0, 12) for stat in STATS})


@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from(DICE), st.data())
def test_the_two_kept_dice_are_the_two_highest(first: int, second: int, sides: int, data: st.DataObject) -> None:
    face = data.draw(st.integers(1, sides))
    roll = action_roll("Wit", sides, (), FixedDice([first, second, face]), DEFAULTS)
    assert first + second <= roll.kept <= 2 * max(6, sides)
    assert 2 <= roll.kept <= 18
    assert roll.kept == sum(sorted((first, second, face))[1:])


@given(pools, st.sampled_from(STATS), st.integers(0, 40), st.integers(0, DEAD), st.data())
def test_damage_is_conserved_until_the_last_pool_and_pools_stay_in_range(
    hp: dict[Stat, int], stat: Stat, amount: int, consequence: int, data: st.DataObject
) -> None:
    before = sum(hp.values())
    hurt = take_damage(hp, stat, amount, consequence, DEFAULTS)
    while hurt.left:
        hurt = choose_overflow(hurt, data.draw(st.sampled_from(hurt.choices)), DEFAULTS)
    assert all(0 <= hurt.hp[name] <= hp[name] for name in STATS)
    placed = before - sum(hurt.hp.values())
    assert placed == min(amount, before)
    climbed = hurt.consequence - consequence
    assert climbed == (1 if amount >= 1 and before == 0 and consequence < DEAD else 0)


def test_exact_odds_equal_every_roll_played_through_the_engine() -> None:
    """Dexterity d6 +3 with one bane against Dexterity d4 +1: every face of every die, counted."""
    attack_sides, defence_sides = 6, 4
    hits = total = 0
    for attack_faces in itertools.product(range(1, 7), range(1, 7), range(1, attack_sides + 1), range(1, 5)):
        attack = action_roll("Dexterity", attack_sides, (Modifier("skill", 3),), FixedDice(attack_faces),
                             DEFAULTS, banes=1)  # fmt: skip
        for defence_faces in itertools.product(range(1, 7), range(1, 7), range(1, defence_sides + 1)):
            defence = action_roll("Dexterity", defence_sides, (Modifier("skill", 1),), FixedDice(defence_faces),
                                  DEFAULTS)  # fmt: skip
            hits += resolve_attack(attack, defence, DEFAULTS).hit
            total += 1
    exact = hit_chance(action_outcomes(attack_sides, 3, -1, DEFAULTS), action_outcomes(defence_sides, 1, 0, DEFAULTS),
                       DEFAULTS)  # fmt: skip
    assert exact * total == hits
