"""Exact hit chances, by enumerating both d20s (no simulation): what a defender sees before choosing."""

from __future__ import annotations

from fractions import Fraction

from rules.fate_points.combat import AttackSpec, Combatant, defended, plan_attack, plan_defence
from rules.fate_points.model import D20, DEFENCE_CHOICES, score_of
from rules.fate_points.options import FatePointsOptions

_FACES = range(1, D20 + 1)


def odds(
    attacker: Combatant,
    defender: Combatant,
    spec: AttackSpec,
    round_number: int,
    options: FatePointsOptions,
    *,
    weapon: str | None = None,
) -> dict[str, Fraction]:
    """P(hit) for each DefenceChoice, from the defender's current state (staggers, streak) and `weapon`.

    The attack's mana is not checked: this is a preview, and the defender's activated abilities are
    left out (only passive ones count). An auto-hit (R11) is 1 for every choice.
    """
    attack = plan_attack(attacker, defender, spec, round_number, options)
    if attack.auto_hit:
        return dict.fromkeys(DEFENCE_CHOICES, Fraction(1))
    attack_scores = [score_of(face, attack.modifiers, options) for face in _FACES]
    chances: dict[str, Fraction] = {}
    for choice in DEFENCE_CHOICES:
        plan = plan_defence(attacker, defender, spec.attack_type, choice, options, weapon)
        defence_scores = [score_of(face, plan.modifiers, options) for face in _FACES]
        hits = sum(
            not defended(plan.manoeuvre, defence, attack_score)
            for attack_score in attack_scores
            for defence in defence_scores
        )
        chances[choice] = Fraction(hits, D20 * D20)
    return chances
