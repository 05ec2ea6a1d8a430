"""R4/R5/R16: a Noble Phantasm's attack in the round's economy.

The document: "barring Noble Phantasms activated via the general or free moves, this [the Attack action] is the
only way to inflict damage", and activating a Noble Phantasm is a general action. So an NP attack spends the
General (or Extra, A34) action, is not one of the round's declared attacks, and needs no action at all once
activated beforehand.
"""

from __future__ import annotations

import pytest

from rules.exchange import StatePatch
from rules.fate_points import AttackSpec, attack_actions
from tests.rules.test_fate_points_part2_phantasms import lancer_with, np_attack
from tests.rules.test_fate_points_support import after_attack, refused, servant, swing

SWORD = AttackSpec(attack_type="melee", weapon="lance")


@pytest.mark.parametrize(
    ("first_of_round", "uses_extra", "spent"),
    [(True, False, ("attack",)), (True, True, ("attack", "extra")), (False, False, ()), (False, True, ())],
)
def test_only_the_first_of_the_round_s_attacks_spends_the_attack_action(
    first_of_round: bool, uses_extra: bool, spent: tuple[str, ...]
) -> None:
    assert (
        attack_actions(
            noble_phantasm=False, paid_beforehand=False, first_of_round=first_of_round, uses_extra=uses_extra
        )
        == spent
    )


@pytest.mark.parametrize("first_of_round", [True, False])
def test_an_np_attack_spends_the_general_action_or_nothing_once_activated(first_of_round: bool) -> None:
    def spent(paid: bool) -> tuple[str, ...]:
        return attack_actions(noble_phantasm=True, paid_beforehand=paid, first_of_round=first_of_round,
                              uses_extra=False)  # fmt: skip

    assert spent(paid=False) == ("general",)
    assert spent(paid=True) == ()


def test_an_np_attack_is_not_one_of_the_round_s_declared_attacks() -> None:
    lancer, saber = lancer_with("B"), servant("Saber", "sword")
    phantasm = swing(lancer, saber, np_attack(), 12)
    assert phantasm.mana_cost == 25
    # The NP attack leaves the round's attack count alone, so the round's one attack still follows...
    assert not [effect for effect in phantasm.effects if isinstance(effect, StatePatch)]
    blow = swing(lancer, saber, SWORD, 12)
    # ...and after the round's only attack an NP attack is still allowed.
    attacked = after_attack(lancer, blow)
    assert attacked.state.attacks_made == attacked.state.attacks_declared == 1
    with refused("no_attacks_left"):
        swing(attacked, saber, SWORD, 12)
    assert swing(attacked, saber, np_attack(), 12).mana_cost == 25


def test_an_np_attack_declares_no_count_of_attacks() -> None:
    with refused("np_single_attack") as error:
        swing(lancer_with("B"), servant("Saber"), np_attack().model_copy(update={"attacks_declared": 2}), 12)
    assert error.value.params == {"name": "Gae Bolg"}
