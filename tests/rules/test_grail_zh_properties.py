"""Properties of the Chinese d20 game's ranks, Luck, payments and damage, over generated values."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules.dice import SeededDice
from rules.exchange import RuleError
from rules.grail_zh.ranks import Rank
from rules.grail_zh.rolls import Reductions, damage_taken, luck_d20, pay

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
