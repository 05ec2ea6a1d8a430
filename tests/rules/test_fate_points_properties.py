"""Property tests: score floor, defences, pools, and creation accepting exactly the legal allocations."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice.source import FixedDice
from rules.exchange import Modifier, PoolDelta, RuleError
from rules.fate_points import (
    ATTACK_TYPES,
    CLASS_BASE,
    DEFENCE_CHOICES,
    SERVANT_CLASSES,
    STATS,
    TAKE,
    WEAPON_TYPES,
    AttackSpec,
    AttackVanished,
    Combatant,
    CombatState,
    Kind,
    MasterSheet,
    ServantClass,
    Stat,
    attack,
    check,
    defend,
    fate,
    master_problems,
    servant_problems,
)
from rules.fate_points.outcomes import DefenceResult
from tests.rules.test_fate_points_support import DEFAULTS, weapon

faces = st.integers(1, 20)


@st.composite
def combatants(draw: st.DrawFn) -> Combatant:
    kind: Kind = draw(st.sampled_from(("master", "servant")))
    servant_class: ServantClass | None = draw(st.sampled_from(SERVANT_CLASSES)) if kind == "servant" else None
    return Combatant(
        kind=kind,
        name=kind,
        stats={stat: draw(st.integers(1, 7)) for stat in STATS},
        hp=draw(st.integers(1, 60)),
        mana=draw(st.integers(1, 30)),
        servant_class=servant_class,
        weapons=[weapon(held) for held in draw(st.lists(st.sampled_from(WEAPON_TYPES), max_size=2, unique=True))],
        servant_present=draw(st.booleans()),
        fp_roll_vs_servant=draw(st.booleans()),
        state=CombatState(
            pending_def_mod=draw(st.integers(0, 6)),
            last_def_type=draw(st.sampled_from((None, "block", "dodge", "parry"))),
            def_streak=draw(st.integers(0, 5)),
            parry_bonus_rounds=draw(st.sampled_from(((), (1,), (2,)))),
        ),
    )


@dataclass(frozen=True)
class Exchange:
    attacker: Combatant
    defender: Combatant
    spec: AttackSpec
    choice: str
    attack_face: int
    defence_face: int
    crit_face: int


@st.composite
def exchanges(draw: st.DrawFn) -> Exchange:
    attacker = draw(combatants())
    spec = AttackSpec(
        attack_type=draw(st.sampled_from(ATTACK_TYPES)),
        weapon=attacker.weapons[0].name if bool(attacker.weapons) and draw(st.booleans()) else None,
        gm_mod=draw(st.integers(-15, 15)),
        ex_cost=draw(st.integers(0, 8)),  # the GM's price for an attack at rank EX (stats above 5 are EX)
        confirm_zero_mana=True,
    )
    return Exchange(
        attacker,
        draw(combatants()),
        spec,
        draw(st.sampled_from((*DEFENCE_CHOICES, TAKE))),
        draw(faces),
        draw(faces),
        draw(st.integers(1, 7)),
    )


class _DefenceDice:
    """The defence d20, then a crit stat die of whatever size the rules ask for."""

    def __init__(self, defence_face: int, crit_face: int) -> None:
        self._faces = [defence_face]
        self._crit_face = crit_face

    def roll(self, count: int, sides: int) -> list[int]:
        assert count == 1
        return [self._faces.pop()] if self._faces else [(self._crit_face - 1) % sides + 1]


def play(exchange: Exchange) -> tuple[int, int | None, DefenceResult, list[PoolDelta]] | None:
    """(attack score, defence score, outcome, pool deltas of both steps), or None if the rules refuse."""
    try:
        outcome = attack(
            exchange.attacker, exchange.defender, exchange.spec, 1, FixedDice([exchange.attack_face]), DEFAULTS
        )
    except RuleError as error:
        assert error.code in {"not_enough_mana", "target_dead", "dead"}
        return None
    if isinstance(outcome, AttackVanished):
        return None  # the attacker paid its last mana: no blow to defend
    choice = TAKE if outcome.auto_hit else exchange.choice
    dice = _DefenceDice(exchange.defence_face, exchange.crit_face)
    resolution = defend(exchange.attacker, exchange.defender, outcome, exchange.spec, choice, 1, dice, DEFAULTS)
    deltas = [e for e in (*outcome.effects, *resolution.effects) if isinstance(e, PoolDelta)]
    return outcome.score, resolution.outcome.defence_score, resolution.outcome, deltas


@given(exchanges())
def test_scores_never_go_below_the_floor(exchange: Exchange) -> None:
    played = play(exchange)
    if played is not None:
        attack_score, defence_score, _, _ = played
        assert attack_score >= 1
        assert defence_score is None or defence_score >= 1


@given(st.integers(-5, 10), st.lists(st.integers(-20, 20), max_size=4), faces)
def test_checks_never_go_below_the_floor(stat: int, mods: list[int], face: int) -> None:
    result = check("STR", stat, [Modifier("gm", mod) for mod in mods], None, FixedDice([face]), DEFAULTS)
    assert result.score == max(1, face - stat + sum(mods))


@given(exchanges())
def test_a_successful_defence_never_deals_damage(exchange: Exchange) -> None:
    played = play(exchange)
    if played is not None and played[2].hit is False:
        _, _, outcome, deltas = played
        assert outcome.damage == 0
        assert not [delta for delta in deltas if delta.pool == "hp"]


@given(exchanges())
def test_pools_only_go_below_zero_by_a_killing_blow(exchange: Exchange) -> None:
    """No prana delta ever exceeds the mana there is (spending it all kills a Servant, and only with
    confirmation, which the generated specs give); an HP delta may exceed the HP left only as a blow
    that fate() reports as dead (Servant) or down (Master)."""
    played = play(exchange)
    if played is None:
        return
    _, _, outcome, deltas = played
    pools = {
        ("attacker", "prana"): exchange.attacker.mana,
        ("defender", "prana"): exchange.defender.mana,
        ("defender", "hp"): exchange.defender.hp,
    }
    for delta in deltas:
        assert delta.delta < 0
        pools[delta.who, delta.pool] += delta.delta
    assert pools["attacker", "prana"] >= 0
    assert pools["defender", "prana"] >= 0
    if pools["defender", "hp"] <= 0:
        assert outcome.defender_fate == fate(exchange.defender.kind, pools["defender", "hp"], 1) is not None


@given(st.integers(1, 12), st.sampled_from(("E", "D", "C", "B", "A")), st.booleans())
def test_a_servant_never_spends_mana_it_does_not_have(mana: int, rank: str, confirm: bool) -> None:
    saber = Combatant(kind="servant", name="Saber", stats=CLASS_BASE["Saber"], hp=40, mana=mana, servant_class="Saber")
    spec = AttackSpec(attack_type="melee", rank_used=rank, confirm_zero_mana=confirm)
    cost = "EDCBA".index(rank) + 1
    try:
        outcome = attack(saber, saber, spec, 1, FixedDice([10]), DEFAULTS)
    except RuleError as error:
        assert (error.code, cost > mana or (cost == mana and not confirm)) in {
            ("not_enough_mana", cost > mana),
            ("confirm_zero_mana", True),
        }
        return
    assert cost < mana or (cost == mana and confirm)
    assert isinstance(outcome, AttackVanished) == (cost == mana)


def master_data(stats: tuple[int, ...]) -> dict[str, object]:
    return {"name": "M", **dict(zip(STATS, stats, strict=True))}


def test_master_creation_accepts_exactly_the_legal_allocations() -> None:
    for stats in itertools.product(range(7), repeat=5):
        legal = all(1 <= value <= 5 for value in stats) and sum(stats) == 15
        assert (master_problems(master_data(stats), DEFAULTS) == []) == legal, stats


@settings(max_examples=200)
@given(st.tuples(*[st.integers(-3, 9)] * 5), st.integers(5, 25))
def test_master_budget_option_is_honoured(stats: tuple[int, ...], budget: int) -> None:
    options = DEFAULTS.model_copy(update={"master_stat_budget": budget})
    legal = all(1 <= value <= 5 for value in stats) and sum(stats) == budget
    assert (master_problems(master_data(stats), options) == []) == legal


def legal_steps(cls: ServantClass, steps: Mapping[Stat, int], points: int) -> bool:
    """R2 as an independent oracle: the steps spend exactly the points, all in the points' direction,
    and every final stat stays within E..A."""
    return (
        sum(steps.values()) == points
        and all(step >= 0 if points >= 0 else step <= 0 for step in steps.values())
        and (points != 0 or not any(steps.values()))
        and all(1 <= CLASS_BASE[cls][stat] + steps.get(stat, 0) <= 5 for stat in STATS)
    )


def servant_ok(cls: ServantClass, steps: Mapping[Stat, int], master_mag: int, extra: int) -> bool:
    master = MasterSheet(name="M", STR=3, END=3, AGI=3, MAG=master_mag, LUK=3)
    data = {"name": "S", "servant_class": cls, "master": "M", "rank_steps": steps}
    return servant_problems(data, master, extra, DEFAULTS) == []


def test_servant_creation_accepts_exactly_the_legal_rank_steps() -> None:
    cases: list[tuple[ServantClass, int]] = [("Saber", 1), ("Saber", 3), ("Caster", 5), ("Lancer", 4)]
    for cls, master_mag in cases:
        points = master_mag - 3
        for values in itertools.product(range(-2, 3), repeat=5):
            steps = dict(zip(STATS, values, strict=True))
            assert servant_ok(cls, steps, master_mag, 0) == legal_steps(cls, steps, points), (cls, steps)


@given(
    st.sampled_from(SERVANT_CLASSES),
    st.dictionaries(st.sampled_from(STATS), st.integers(-4, 4)),
    st.integers(1, 5),
    st.integers(-3, 3),
)
def test_servant_rank_steps_match_the_oracle(
    cls: ServantClass, steps: dict[Stat, int], master_mag: int, extra: int
) -> None:
    assert servant_ok(cls, steps, master_mag, extra) == legal_steps(cls, steps, master_mag - 3 + extra)
