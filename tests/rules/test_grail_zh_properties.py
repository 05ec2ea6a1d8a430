"""Properties of the Chinese d20 game's ranks, Luck, payments, damage and odds, over generated values."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import FixedDice, FixedDiceError, SeededDice
from rules.exchange import Modifier, RuleError
from rules.grail_zh.odds import d20_outcomes, hit_chance
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import AttackRoll, Reductions, contradiction, damage_taken, luck_d20, pay
from rules.grail_zh.sheets import parse_master
from rules.sheets import SheetError

ranks = st.one_of(
    st.builds(lambda n, pluses: Rank(n, pluses=pluses), st.integers(1, 5), st.integers(0, 3)),
    st.builds(lambda x, pluses: Rank(5, x, pluses=pluses), st.integers(1, 20), st.integers(0, 3)),
    st.builds(Rank.of_ex, st.integers(0, 3)),
)


@given(ranks)
def test_a_rank_reads_back_as_it_is_written(rank: Rank) -> None:
    assert Rank.parse(str(rank)) == rank


@given(ranks, st.integers(-10, 10))
def test_adjustments_stay_within_e_and_leave_ex_alone(rank: Rank, delta: int) -> None:
    shifted = rank.shifted(delta)
    assert shifted.n >= 1 and shifted.pluses == rank.pluses
    assert shifted == rank if rank.ex else shifted.value == max(1, rank.value + delta)


@given(st.sampled_from("EDCBA"), st.integers(0, 2**32))
def test_luck_never_ends_on_a_face_it_must_reroll(letter: str, seed: int) -> None:
    d20 = luck_d20(SeededDice(seed), Rank.parse(letter))
    assert 1 <= d20.final <= 20
    assert d20.final not in {"E": (19, 20), "D": (20,)}.get(letter, ())


@given(st.integers(0, 200), st.integers(1, 200), st.one_of(st.none(), st.integers(1, 200)), st.booleans())
def test_a_payment_never_leaves_a_pool_below_zero_nor_the_master_at_zero(
    cost: int, servant_mp: int, master_mp: int | None, forced: bool
) -> None:
    try:
        paid = pay(cost, servant_mp, master_mp, from_master=True, forced=forced)
    except RuleError:
        assert not forced
        return
    assert paid.servant_mp >= 0 and paid.vanished == (paid.servant_mp == 0)
    if paid.from_master:
        assert master_mp is not None and paid.master_mp is not None and paid.master_mp >= 1
    assert forced or not paid.vanished


@given(st.integers(0, 500), st.booleans(), st.one_of(st.none(), st.integers(-5, 10)), st.integers(0, 100))
def test_damage_taken_is_never_negative(rolled: int, halved: bool, defend: int | None, flat: int) -> None:
    assert damage_taken(rolled, Reductions(halved=halved, defend=defend, flat=flat)) >= 0


def _played(luck: Rank | None, bonus: int, defense: int, depth: int) -> tuple[Fraction, Fraction]:
    """The chance to hit by playing every sequence of up to `depth` faces through the rolls themselves, and the
    chance left in the sequences too long to finish (a forced reroll after another)."""
    hit, unfinished = Fraction(0), Fraction(0)

    def walk(faces: tuple[int, ...]) -> None:
        nonlocal hit, unfinished
        chance = Fraction(1, 20 ** len(faces))
        try:
            d20 = luck_d20(FixedDice(faces), luck)
        except FixedDiceError:  # it asked for another face
            if len(faces) == depth:
                unfinished += chance
                return
            for face in range(1, 21):
                walk((*faces, face))
            return
        if d20.faces != faces:
            return  # a sequence the roll does not read to its end is counted by its shorter prefix
        if AttackRoll(d20, (Modifier("bonus", bonus),), defense).hit:
            hit += chance

    for face in range(1, 21):
        walk((face,))
    return hit, unfinished


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.none(), ranks.filter(lambda rank: rank.value <= 6)), st.integers(-5, 12), st.integers(0, 8))
def test_exact_odds_equal_every_roll_played_through_the_rules(luck: Rank | None, bonus: int, defense: int) -> None:
    exact = hit_chance(d20_outcomes(luck), bonus, defense)
    played, unfinished = _played(luck, bonus, defense, depth=4)
    assert played <= exact <= played + unfinished


attributes = st.dictionaries(st.sampled_from(("str", "dex", "con", "int", "wis", "cha")), st.integers(-8, 9))


@given(attributes, st.sampled_from(("melee", "magus", "ordinary")))
def test_master_point_buy_accepts_exactly_the_legal_allocations(values: dict[str, int], master_type: str) -> None:
    legal = sum(values.values()) <= 10 and all(
        value >= -5 and (master_type == "ordinary" or value <= 5) for value in values.values()
    )
    try:
        parse_master({"name": "M", "master_type": master_type, "attributes": values})
    except SheetError:
        assert not legal
    else:
        assert legal


@given(st.integers(0, 500))
def test_a_saves_half_rounds_down(rolled: int) -> None:
    assert damage_taken(rolled, Reductions(halved=True)) == rolled // 2


@given(st.sampled_from("BA"), st.integers(0, 2**32))
def test_an_optional_reroll_is_only_taken_on_a_face_that_may_be_rerolled(letter: str, seed: int) -> None:
    luck = Rank.parse(letter)
    taken = luck_d20(SeededDice(seed), luck)
    declined = luck_d20(SeededDice(seed), luck, optional_rerolls=False)
    assert taken.faces[0] == declined.faces[0]
    if len(taken.faces) == 2:  # only a low face is rerolled: B on a 1, A on 2 or less
        assert taken.faces[0] <= (1 if letter == "B" else 2)


@given(ranks, ranks, st.integers(0, 2**32))
def test_a_contradiction_goes_to_the_higher_mystery_and_equal_ones_to_the_dice(
    first: Rank, second: Rank, seed: int
) -> None:
    first_wins, rolls = contradiction(SeededDice(seed), first, second, (first, second), ("a", "b"))
    if first.mystery != second.mystery:  # R7: over-A and "+" never count, EX is above A
        assert rolls == () and first_wins == (first.mystery > second.mystery)
    else:
        assert rolls and len(rolls) % 2 == 0 and [roll.label for roll in rolls[-2:]] == ["a", "b"]
        assert all(a.total == b.total for a, b in zip(rolls[:-2:2], rolls[1:-2:2], strict=True))
        assert first_wins == (rolls[-2].total > rolls[-1].total) and rolls[-2].total != rolls[-1].total
