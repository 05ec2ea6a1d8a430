"""Part 2 mana rules: transfer (R12), Mad Enchantment (R13), passive replenishment (R14), rest, R16, R17."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.exchange import PoolDelta, RuleError
from rules.fate_points import (
    Ability,
    FatePointsOptions,
    NoblePhantasm,
    ability_activation_cost,
    activate,
    mad_enchantment_draw,
    np_activation_cost,
    passive_replenishment,
    regenerate,
    rest,
    transfer_mana,
)
from tests.rules.test_fate_points_support import DEFAULTS, pools, refused

FREE_REGEN = FatePointsOptions(passive_regen_costs_master=False)


# F14: compatibility 13, Master mana 52, Servant 80/91.


def test_f14_transfer_is_capped_by_the_room_left() -> None:
    moved = transfer_mana(13, 52, 80, 91, amount=13, used_round=None, round_number=4)
    assert moved.outcome.model_dump() == {"amount": 11, "requested": 13, "limited_by": "room", "round": 4}
    assert moved.effects == (PoolDelta("master", "prana", -11), PoolDelta("servant", "prana", 11))
    assert 52 + pools(moved)["master", "prana"] == 41
    assert 80 + pools(moved)["servant", "prana"] == 91


def test_f14_the_other_party_cannot_transfer_again_this_round() -> None:
    with refused("transfer_used") as error:
        transfer_mana(13, 41, 85, 91, amount=5, used_round=4, round_number=4)
    assert error.value.params == {"round": 4}
    # The next round the pair may transfer again.
    assert transfer_mana(13, 41, 85, 91, amount=5, used_round=4, round_number=5).outcome.amount == 5


def test_f14_passive_regen_is_half_the_compatibility_per_hour() -> None:
    one_hour = passive_replenishment(1, 13, 41, 80, 91, DEFAULTS)
    assert one_hour.outcome.model_dump() == {"hours": 1, "gained": 6, "master_paid": 6}
    assert pools(one_hour) == {("master", "prana"): -6, ("servant", "prana"): 6}
    # Hour by hour: 6, then only the 5 that still fit.
    assert passive_replenishment(3, 13, 41, 80, 91, DEFAULTS).outcome.model_dump() == {
        "hours": 3,
        "gained": 11,
        "master_paid": 11,
    }


def test_f16_mad_enchantment_draws_all_the_master_has() -> None:
    drawn = mad_enchantment_draw(13, 5, 30, 60)
    assert drawn.outcome.model_dump() == {"drawn": 5, "gained": 5, "wasted": 0}
    assert pools(drawn) == {("master", "prana"): -5, ("servant", "prana"): 5}  # Master 0, Servant 35


def test_mad_enchantment_wastes_what_does_not_fit() -> None:
    drawn = mad_enchantment_draw(13, 50, 55, 60)
    assert drawn.outcome.model_dump() == {"drawn": 13, "gained": 5, "wasted": 8}
    assert pools(drawn) == {("master", "prana"): -13, ("servant", "prana"): 5}
    assert mad_enchantment_draw(13, 0, 30, 60).effects == ()


@pytest.mark.parametrize(
    ("compatibility", "master_mana", "servant_mana", "amount", "moved", "limited_by"),
    [
        (13, 52, 10, 20, 13, "compatibility"),
        (13, 4, 10, 20, 4, "master_mana"),
        (13, 52, 10, 7, 7, None),
        (5, 5, 86, 20, 5, "compatibility"),  # a tie names the first cap
    ],
)
def test_transfer_caps(
    compatibility: int, master_mana: int, servant_mana: int, amount: int, moved: int, limited_by: str | None
) -> None:
    outcome = transfer_mana(compatibility, master_mana, servant_mana, 91, amount, None, 1).outcome
    assert (outcome.amount, outcome.limited_by) == (moved, limited_by)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((13, 52, 80, 91, 0, None, 1), "invalid_amount"),
        ((13, 0, 80, 91, 5, None, 1), "nothing_to_transfer"),
        ((13, 52, 91, 91, 5, None, 1), "nothing_to_transfer"),
    ],
)
def test_transfer_refusals(args: tuple[int, int, int, int, int, None, int], code: str) -> None:
    with refused(code):
        transfer_mana(*args)


def test_passive_replenishment_can_be_free_for_the_master() -> None:
    free = passive_replenishment(2, 13, 0, 10, 91, FREE_REGEN)
    assert free.outcome.model_dump() == {"hours": 2, "gained": 12, "master_paid": 0}
    assert pools(free) == {("servant", "prana"): 12}
    # When the Master pays, a dry Master stops the refill.
    assert passive_replenishment(2, 13, 0, 10, 91, DEFAULTS).outcome.gained == 0
    assert passive_replenishment(3, 13, 8, 10, 91, DEFAULTS).outcome.model_dump() == {
        "hours": 3,
        "gained": 8,
        "master_paid": 8,
    }
    with refused("invalid_hours"):
        passive_replenishment(-1, 13, 8, 10, 91, DEFAULTS)


def test_rest_refills_the_master() -> None:
    assert rest(10, 52).outcome.model_dump() == {"restored": 42}
    assert rest(10, 52).effects == (PoolDelta("master", "prana", 42),)
    assert rest(52, 52).effects == ()


def test_regeneration_costs_mana_per_hp() -> None:
    healed = regenerate(3, 20, 40, 30, DEFAULTS, confirm_zero_mana=False)
    assert healed.effects == (PoolDelta("actor", "prana", -12), PoolDelta("actor", "hp", 3))
    assert healed.outcome.model_dump() == {"healed": 3, "cost": 12, "fate": None}
    cheap = regenerate(3, 20, 40, 30, FatePointsOptions(regen_mana_per_hp=2), confirm_zero_mana=False)
    assert cheap.outcome.cost == 6


def test_regeneration_refusals_and_death() -> None:
    with refused("nothing_to_heal"):
        regenerate(1, 40, 40, 30, DEFAULTS, confirm_zero_mana=False)
    with refused("too_much_healing") as error:
        regenerate(6, 35, 40, 30, DEFAULTS, confirm_zero_mana=False)
    assert error.value.params == {"requested": 6, "missing": 5}
    with refused("invalid_amount"):
        regenerate(0, 35, 40, 30, DEFAULTS, confirm_zero_mana=False)
    with refused("not_enough_mana"):
        regenerate(5, 35, 40, 19, DEFAULTS, confirm_zero_mana=False)
    with refused("confirm_zero_mana"):
        regenerate(5, 35, 40, 20, DEFAULTS, confirm_zero_mana=False)
    assert regenerate(5, 35, 40, 20, DEFAULTS, confirm_zero_mana=True).outcome.fate == "dead"


def test_np_and_skill_activation() -> None:
    gae_bolg = NoblePhantasm(name="Gae Bolg", rank="B-")
    assert np_activation_cost(gae_bolg) == 23
    assert np_activation_cost(NoblePhantasm(name="Ea", rank="EX", ex_cost=60)) == 60
    paid = activate(np_activation_cost(gae_bolg), 30, False, gae_bolg.name)
    assert paid.effects == (PoolDelta("actor", "prana", -23),)
    assert paid.outcome.model_dump() == {"name": "Gae Bolg", "cost": 23, "fate": None}
    with refused("not_enough_mana"):
        activate(23, 22, True, "Gae Bolg")
    with refused("confirm_zero_mana"):
        activate(23, 23, False, "Gae Bolg")
    assert activate(23, 23, True, "Gae Bolg").outcome.fate == "dead"
    # A Master's magecraft may empty the Master's pool: Masters do not die of it.
    assert activate(5, 5, False, "Reinforcement", kind="master").outcome.fate is None


def test_skills_without_a_cost_are_passive() -> None:
    assert ability_activation_cost(Ability(name="Eye of the Mind", mana_cost=4)) == 4
    with refused("passive_ability") as error:
        ability_activation_cost(Ability(name="Battle Continuation"))
    assert error.value.params == {"name": "Battle Continuation"}


# Properties.

amounts = st.integers(0, 60)


@settings(max_examples=150, deadline=None)
@given(
    compatibility=st.integers(0, 25),
    master_mana=st.integers(0, 80),
    servant_max=st.integers(1, 150),
    data=st.data(),
    amount=st.integers(1, 60),
)
def test_a_transfer_respects_every_cap(
    compatibility: int, master_mana: int, servant_max: int, data: st.DataObject, amount: int
) -> None:
    servant_mana = data.draw(st.integers(0, servant_max))
    try:
        moved = transfer_mana(compatibility, master_mana, servant_mana, servant_max, amount, None, 1)
    except RuleError as error:
        assert error.code == "nothing_to_transfer"
        assert min(compatibility, master_mana, servant_max - servant_mana) == 0
        return
    x = moved.outcome.amount
    assert 1 <= x <= min(amount, compatibility, master_mana)
    assert servant_mana + pools(moved)["servant", "prana"] <= servant_max
    assert pools(moved) == {("master", "prana"): -x, ("servant", "prana"): x}


@settings(max_examples=150, deadline=None)
@given(
    hours=st.integers(0, 40),
    compatibility=st.integers(0, 25),
    master_mana=st.integers(0, 80),
    servant_max=st.integers(1, 150),
    costs_master=st.booleans(),
    data=st.data(),
)
def test_passive_replenishment_stays_within_the_pools(
    hours: int, compatibility: int, master_mana: int, servant_max: int, costs_master: bool, data: st.DataObject
) -> None:
    servant_mana = data.draw(st.integers(0, servant_max))
    options = FatePointsOptions(passive_regen_costs_master=costs_master)
    refill = passive_replenishment(hours, compatibility, master_mana, servant_mana, servant_max, options)
    net = pools(refill)
    assert servant_mana + net.get(("servant", "prana"), 0) <= servant_max
    assert master_mana + net.get(("master", "prana"), 0) >= 0
    assert refill.outcome.gained <= hours * (compatibility // 2)
    assert refill.outcome.master_paid == (refill.outcome.gained if costs_master else 0)


@settings(max_examples=150, deadline=None)
@given(
    hp_max=st.integers(1, 80),
    data=st.data(),
    hp_points=st.integers(-2, 90),
    mana=st.integers(0, 200),
    rate=st.integers(1, 8),
    confirm=st.booleans(),
)
def test_regeneration_never_exceeds_hp_max(
    hp_max: int, data: st.DataObject, hp_points: int, mana: int, rate: int, confirm: bool
) -> None:
    hp = data.draw(st.integers(1, hp_max))
    try:
        healed = regenerate(hp_points, hp, hp_max, mana, FatePointsOptions(regen_mana_per_hp=rate), confirm)
    except RuleError as error:
        assert error.code in {
            "invalid_amount",
            "nothing_to_heal",
            "too_much_healing",
            "not_enough_mana",
            "confirm_zero_mana",
        }
        return
    net = pools(healed)
    assert hp < hp + net["actor", "hp"] <= hp_max
    assert mana + net["actor", "prana"] >= 0
