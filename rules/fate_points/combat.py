"""Combat: checks, attacks (R5, R15, R16) and defences with their resolution (R6-R11, R19).

An exchange is two steps. `attack` rolls the attack and pays its mana (its `effects` are applied at
once); the defender answers later with one of `defence_options`, and `defend` rolls the defence, moves
the defender's streak/stagger state and deals the damage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rules.dice.source import DiceSource
from rules.exchange import (
    Effect,
    Modifier,
    PoolDelta,
    Resolution,
    Roll,
    RuleError,
    StatePatch,
    effect_from_dict,
    effect_to_dict,
)
from rules.fate_points.model import (
    ATTACK_ROLL_KIND,
    ATTACK_STAT,
    BASE_DAMAGE,
    BLOCK_MOD,
    CASTER_MAGIC_BASE,
    CLASS_ATTACK_MOD,
    DEFENCE_CHOICES,
    DEFENCE_ROLL_KIND,
    DODGE_MOD,
    EX,
    MAX_STAT,
    PARRY_MOD,
    TAKE,
    AttackType,
    Kind,
    Manoeuvre,
    RollKind,
    ServantClass,
    Stat,
    WeaponType,
    rank_letter,
    rank_value,
    require_mana,
    roll_d20,
    stat_die_sides,
    stat_modifier,
)
from rules.fate_points.options import FatePointsOptions
from rules.fate_points.outcomes import DamageTerms, DefenceResult
from rules.fate_points.phantasms import (
    NoblePhantasmRuling,
    np_activation_cost,
    np_defence_options,
    np_rank_below,
    np_undefendable,
)
from rules.fate_points.sheets import Ability, NoblePhantasm, Weapon

_WEAPON_DEFENCE_MODS: dict[Manoeuvre, dict[WeaponType, int]] = {
    "block": BLOCK_MOD,
    "dodge": DODGE_MOD,
    "parry": PARRY_MOD,
}
_Named = TypeVar("_Named", Weapon, Ability, NoblePhantasm)


class CombatState(BaseModel):
    """A character's combat bookkeeping, stored by the bot as JSON between exchanges."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pending_def_mod: int = 0  # staggers (+1 each) and the repeat carry-over, consumed by the next defence (R6)
    repeat_carry: int = 0  # the part of `pending_def_mod` that is the repeat carry-over, shown apart from staggers
    last_def_type: Manoeuvre | None = None
    def_streak: int = 0  # consecutive identical manoeuvres, the current one included
    parry_bonus_rounds: tuple[int, ...] = ()  # rounds whose attack rolls get -1 (R9)
    attack_round: int | None = None  # the round of the attacks counted below (R5)
    attacks_declared: int = 0
    attacks_made: int = 0


@dataclass(frozen=True, kw_only=True)
class Combatant:
    """One side of an exchange, built by the bot from the stored sheet, pools and state."""

    kind: Kind
    name: str
    stats: Mapping[Stat, int]  # numeric; an EX stat is its value (> 5)
    hp: int
    mana: int
    servant_class: ServantClass | None = None
    weapons: Sequence[Weapon] = ()
    abilities: Sequence[Ability] = ()  # Servant skills, or a Master's magecraft
    noble_phantasms: Sequence[NoblePhantasm] = ()
    servant_present: bool = False  # Masters: the GM's per-scene flag that lifts R11's auto-hit
    state: CombatState = field(default_factory=CombatState)
    fp_roll_vs_servant: bool = False  # a Fate/Point spent on roll_vs_servant is active (R19)
    fp_boost: Stat | None = None  # a Fate/Point spent on boost_stat(stat) is active (R19/A24)
    roll_mod: int = 0  # ServantCreation.roll_mod (A40 roll_mods mode), added to every attack and defence
    min_np_rank: str | None = None  # God Hand (R16): NPs ranked below this GM-set rank have no effect on it
    activated: tuple[str, ...] = ()  # skills and NPs activated and paid for beforehand (R16): they apply, free


class AttackSpec(BaseModel):
    """What the attacker declares; stored with the pending action, so it round-trips through JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attack_type: AttackType
    weapon: str | None = None  # a weapon name on the attacker's sheet; None = unarmed, or sorcery if magical
    attacks_declared: int = Field(1, ge=1)  # N attacks this round (R5/A10); every one of them declares the same N
    uses_extra_action: bool = False  # the Extra action is spent as an attack: one more attack allowed (A10)
    rank_used: str | None = None  # Servants holding back (R15/A21); None = the stat's full rank
    noble_phantasm: str | None = None  # an NP name: pays the NP cost instead (A22)
    abilities: tuple[str, ...] = ()  # activated abilities (with a mana cost) used on this attack
    gm_mod: int = 0  # GM modifier added to the attack d20
    damage_mod: int = 0  # GM damage adjustment (e.g. an NP's effect), added to the damage dealt
    conceptual: bool = False  # GM: high-level magecraft or a conceptual weapon, exempt from Master null damage
    ex_cost: int | None = Field(None, ge=0)  # GM mana cost of an attack at rank EX (T6)
    confirm_zero_mana: bool = False  # the player accepts that this spend leaves their Servant at 0 mana (A33)
    np_ruling: NoblePhantasmRuling | None = None  # the GM's ruling on `noble_phantasm` (allowed defences, damage)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackSpec:
        return cls.model_validate(data)


@dataclass(frozen=True)
class CheckResult:
    roll: Roll
    score: int
    success: bool | None  # None without a target


@dataclass(frozen=True)
class AttackOutcome:
    roll: Roll
    score: int
    natural: int
    crit: bool
    stat_value: int  # the value used in the roll and in the damage (held back or FP-boosted)
    rank_used: str | None  # Servants: the rank paid for (R15)
    mana_cost: int
    effects: tuple[Effect, ...]  # applied by the bot at once: the attacker's mana and attack counter
    auto_hit: bool
    defence_options: tuple[str, ...]
    attack_type: AttackType
    weapon_type: WeaponType
    attacker_fate: Literal["dead", "down"] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "roll": self.roll.to_dict(),
            "score": self.score,
            "natural": self.natural,
            "crit": self.crit,
            "stat_value": self.stat_value,
            "rank_used": self.rank_used,
            "mana_cost": self.mana_cost,
            "effects": [effect_to_dict(effect) for effect in self.effects],
            "auto_hit": self.auto_hit,
            "defence_options": list(self.defence_options),
            "attack_type": self.attack_type,
            "weapon_type": self.weapon_type,
            "attacker_fate": self.attacker_fate,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackOutcome:
        return cls(
            roll=Roll.from_dict(data["roll"]),
            score=data["score"],
            natural=data["natural"],
            crit=data["crit"],
            stat_value=data["stat_value"],
            rank_used=data["rank_used"],
            mana_cost=data["mana_cost"],
            effects=tuple(effect_from_dict(effect) for effect in data["effects"]),
            auto_hit=data["auto_hit"],
            defence_options=tuple(data["defence_options"]),
            attack_type=data["attack_type"],
            weapon_type=data["weapon_type"],
            attacker_fate=data["attacker_fate"],
        )


@dataclass(frozen=True)
class AttackVanished:
    """An attack whose cost was a Servant's last mana: paid (its `effects`), and never rolled (R18 decision)."""

    mana_cost: int
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class AttackPlan:
    """Everything about an attack that does not depend on the die (shared by `attack` and `odds`)."""

    stat_value: int
    rank_used: str | None
    weapon_type: WeaponType
    modifiers: tuple[Modifier, ...]  # the `- stat` term included
    mana_cost: int
    auto_hit: bool
    np_no_effect: bool  # an NP below the defender's God Hand rank: nothing to defend against, no damage


@dataclass(frozen=True)
class DefencePlan:
    """Everything about a defence that does not depend on the die (shared by `defend` and `odds`)."""

    manoeuvre: Manoeuvre
    stat: Stat
    weapon_type: WeaponType
    modifiers: tuple[Modifier, ...]
    streak: int
    repeat_now: int
    carry: int


def fate(kind: Kind, hp: int, mana: int) -> Literal["dead", "down"] | None:
    """What pools mean: a Servant dies at 0 HP or 0 mana (R18); a Master at 0 HP is down (R20/A26)."""
    if kind == "servant":
        return "dead" if hp <= 0 or mana <= 0 else None
    return "down" if hp <= 0 else None


def check(
    stat: str,
    stat_value: int,
    modifiers: Sequence[Modifier],
    target: int | None,
    dice: DiceSource,
    options: FatePointsOptions,
    label: str = "check",
    by: str | None = None,
) -> CheckResult:
    """A plain stat check by `by`; roll-under, so it succeeds when the score is at most the target."""
    roll = roll_d20(label, (stat_modifier(stat, stat_value), *modifiers), dice, options, by=by)
    return CheckResult(roll, roll.total, None if target is None else roll.total <= target)


def plan_attack(
    attacker: Combatant, defender: Combatant, spec: AttackSpec, round_number: int, options: FatePointsOptions
) -> AttackPlan:
    """R5 modifiers, R15/R16 costs and R11 auto-hit; raises RuleError for an attack the sheet cannot make."""
    weapon = _find(attacker.weapons, spec.weapon, "unknown_weapon") if spec.weapon is not None else None
    weapon_type: WeaponType = weapon.type if weapon else ("magic" if spec.attack_type == "magical" else "unarmed")
    if spec.noble_phantasm is not None and spec.attacks_declared != 1:
        raise RuleError("np_single_attack", name=spec.noble_phantasm)  # it is no Attack action (see `attack`)
    max_attacks = max(1, len(attacker.weapons)) + int(spec.uses_extra_action)
    if spec.attacks_declared > max_attacks:
        raise RuleError("too_many_attacks", declared=spec.attacks_declared, max=max_attacks)
    if spec.np_ruling is not None and spec.noble_phantasm is None:
        raise RuleError("np_ruling_without_np")
    # R16: the GM may rule which stat an NP rolls with; otherwise the attack type's stat (T2).
    stat = spec.np_ruling.stat if spec.np_ruling and spec.np_ruling.stat else ATTACK_STAT[spec.attack_type]
    stat_value, stat_term = _rolled_stat(attacker, stat, defender)
    rank_used: str | None = None
    mana_cost = _ability_cost(attacker, spec.abilities)
    if attacker.kind == "servant":
        stat_value, rank_used, attack_cost = _held_rank(stat_value, spec)
        stat_term = stat_modifier(stat, stat_value)
        mana_cost += _np_attack_cost(attacker, spec, attack_cost, options)
    elif spec.rank_used is not None:
        raise RuleError("hold_back_servants_only")
    elif spec.noble_phantasm is not None:
        raise RuleError("unknown_noble_phantasm", name=spec.noble_phantasm)
    extra_weapons = attacker.weapons[1 : spec.attacks_declared]
    modifiers = (
        stat_term,
        Modifier("class", CLASS_ATTACK_MOD[attacker.servant_class][spec.attack_type] if attacker.servant_class else 0),
        Modifier("multi_attack", spec.attacks_declared - 1),
        Modifier("weapon_penalty", sum(extra.extra_attack_penalty for extra in extra_weapons)),
        Modifier("parry_bonus", -1 if round_number in attacker.state.parry_bonus_rounds else 0),
        *_ability_mods(attacker, spec.abilities, ATTACK_ROLL_KIND[spec.attack_type]),
        Modifier("servant_points", attacker.roll_mod),
        Modifier("gm", spec.gm_mod),
    )
    auto_hit = np_undefendable(spec.np_ruling) or (
        attacker.kind == "servant"
        and defender.kind == "master"
        and not defender.fp_roll_vs_servant
        and not (defender.servant_present and options.master_defends_if_servant_present)
    )
    np_no_effect = _np_no_effect(attacker, defender, spec)
    return AttackPlan(stat_value, rank_used, weapon_type, modifiers, mana_cost, auto_hit, np_no_effect)


def attack(
    attacker: Combatant,
    defender: Combatant,
    spec: AttackSpec,
    round_number: int,
    dice: DiceSource,
    options: FatePointsOptions,
) -> AttackOutcome | AttackVanished:
    """R5: pay the attack's mana first (R15), then roll it. The defender answers with `defend`."""
    if attacker.kind == "servant" and fate("servant", attacker.hp, attacker.mana):
        raise RuleError("dead", name=attacker.name)
    if defender.kind == "servant" and fate("servant", defender.hp, defender.mana):
        raise RuleError("target_dead", name=defender.name)
    plan = plan_attack(attacker, defender, spec, round_number, options)
    require_mana(attacker.kind, plan.mana_cost, attacker.mana, spec.confirm_zero_mana)
    # A Noble Phantasm's attack is "activated via the general or free moves" (R4, R16), not the Attack action:
    # it is not one of the round's declared attacks (R5), so it neither uses one up nor is refused for lack of one.
    counted = None if spec.noble_phantasm is not None else _counted_attack(attacker.state, spec, round_number)
    effects: list[Effect] = []
    if plan.mana_cost:
        effects.append(PoolDelta("attacker", "prana", -plan.mana_cost))
    if counted is not None:
        effects.append(StatePatch("attacker", "combat", counted.model_dump(mode="json")))
    attacker_fate = fate(attacker.kind, attacker.hp, attacker.mana - plan.mana_cost)
    if attacker_fate == "dead":
        # R15 pays before the roll and R18 makes a Servant at 0 prana "disappear from the world": it is gone
        # before its blow, so nothing is rolled and nothing lands ("Servants cannot exist ... without mana").
        return AttackVanished(plan.mana_cost, tuple(effects))
    roll = roll_d20("attack", plan.modifiers, dice, options, by=attacker.name)
    natural = roll.dice[0]
    crit = natural == 1 if options.crit_on == "natural" else roll.total <= 1
    return AttackOutcome(
        roll=roll,
        score=roll.total,
        natural=natural,
        crit=crit,
        stat_value=plan.stat_value,
        rank_used=plan.rank_used,
        mana_cost=plan.mana_cost,
        effects=tuple(effects),
        auto_hit=plan.auto_hit,
        defence_options=() if plan.auto_hit else (TAKE,) if plan.np_no_effect else np_defence_options(spec.np_ruling),
        attack_type=spec.attack_type,
        weapon_type=plan.weapon_type,
        attacker_fate=attacker_fate,
    )


def _counted_attack(state: CombatState, spec: AttackSpec, round_number: int) -> CombatState:
    """R5/A10: the combat state with one more of the round's declared attacks made; refused when none is left."""
    made = 1
    if state.attack_round == round_number:
        if spec.attacks_declared != state.attacks_declared:
            raise RuleError("attacks_already_declared", declared=state.attacks_declared)
        if state.attacks_made >= state.attacks_declared:
            raise RuleError("no_attacks_left", declared=state.attacks_declared)
        made = state.attacks_made + 1
    return state.model_copy(
        update={"attack_round": round_number, "attacks_declared": spec.attacks_declared, "attacks_made": made}
    )


def plan_defence(
    attacker: Combatant,
    defender: Combatant,
    attack_type: AttackType,
    choice: str,
    options: FatePointsOptions,
    weapon: str | None = None,
    abilities: Sequence[str] = (),
) -> DefencePlan:
    """R6-R9 modifiers: stat, weapon (T3), carried staggers, the repeat penalty and abilities."""
    if choice not in DEFENCE_CHOICES:
        raise RuleError("invalid_defence", choice=choice)
    manoeuvre: Manoeuvre = "block" if choice == "block" else "dodge" if choice == "dodge" else "parry"
    used = _find(defender.weapons, weapon, "unknown_weapon") if weapon is not None else None
    if used is None and defender.weapons:
        used = defender.weapons[0]  # a defender who names no weapon defends with the first one on the sheet
    stat = _defence_stat(attack_type, choice, options)
    _, stat_term = _rolled_stat(defender, stat, attacker)
    state = defender.state
    streak = state.def_streak + 1 if manoeuvre == state.last_def_type else 1
    repeats = streak == 3 or (streak > 3 and options.repeat_stacks)
    repeat_now = options.repeat_def_mod if repeats else 0
    weapon_type: WeaponType = used.type if used else "unarmed"
    modifiers = (
        stat_term,
        Modifier(
            f"weapon:{weapon_type}", _weapon_defence_mod(attacker, defender, attack_type, manoeuvre, used, options)
        ),
        Modifier("carry", state.pending_def_mod - state.repeat_carry),
        Modifier("repeat_carry", state.repeat_carry),
        Modifier("repeat", repeat_now),
        *_ability_mods(defender, abilities, DEFENCE_ROLL_KIND[manoeuvre]),
        Modifier("servant_points", defender.roll_mod),
    )
    return DefencePlan(manoeuvre, stat, weapon_type, modifiers, streak, repeat_now, state.pending_def_mod)


def best_defence_weapon(
    attacker: Combatant, defender: Combatant, attack_type: AttackType, choice: str, options: FatePointsOptions
) -> str | None:
    """The defender's weapon that gives `choice` the lowest modifiers (roll-under: the lowest score defends best,
    T7); the first on the sheet among equals. None for a defender without weapons."""
    if not defender.weapons:
        return None

    def total(weapon: Weapon) -> int:
        plan = plan_defence(attacker, defender, attack_type, choice, options, weapon.name)
        return sum(modifier.value for modifier in plan.modifiers)

    return min(defender.weapons, key=total).name


def defended(manoeuvre: Manoeuvre, defence_score: int, attack_score: int) -> bool:
    """T7: block at least matches, dodge beats (A7), parry beats by 2 or more."""
    if manoeuvre == "block":
        return defence_score <= attack_score
    if manoeuvre == "dodge":
        return defence_score < attack_score
    return defence_score <= attack_score - 2


def defend(
    attacker: Combatant,
    defender: Combatant,
    attack: AttackOutcome,
    spec: AttackSpec,
    choice: str,
    round_number: int,
    dice: DiceSource,
    options: FatePointsOptions,
    *,
    weapon: str | None = None,
    abilities: Sequence[str] = (),
    confirm_zero_mana: bool = False,
) -> Resolution[DefenceResult]:
    """R6-R11: the defender's answer to `attack` ("take" = no defence roll), then the damage.

    `weapon` names the defending weapon (default: the first on the sheet, else unarmed); `abilities`
    names activated defender abilities, whose mana is paid here.
    """
    if defender.kind == "servant" and fate("servant", defender.hp, defender.mana):
        raise RuleError("target_dead", name=defender.name)
    if attack.auto_hit and choice != TAKE:
        raise RuleError("auto_hit", choice=choice)
    if choice in DEFENCE_CHOICES and choice not in attack.defence_options:
        raise RuleError("defence_not_allowed", choice=choice)  # the GM's NP ruling, or an NP with no effect
    mana_cost = _ability_cost(defender, abilities)
    require_mana(defender.kind, mana_cost, defender.mana, confirm_zero_mana)
    rolls: list[Roll] = []
    effects: list[Effect] = [PoolDelta("defender", "prana", -mana_cost)] if mana_cost else []
    new_state = defender.state
    outcome: dict[str, Any] = {
        "choice": choice,
        "attack_score": attack.score,
        "defence_score": None,
        "auto_hit": attack.auto_hit,
        "staggered": False,
        "repeat_penalty": 0,
        "carry": 0,
        "parry_bonus_round": None,
        "defence_stat": None,
        "weapon": None,
        "mana_cost": mana_cost,
    }
    np_no_effect = _np_no_effect(attacker, defender, spec)
    hit = not np_no_effect
    if choice != TAKE and hit:
        plan = plan_defence(attacker, defender, attack.attack_type, choice, options, weapon, abilities)
        roll = roll_d20("defence", plan.modifiers, dice, options, by=defender.name)
        rolls.append(roll)
        hit = not defended(plan.manoeuvre, roll.total, attack.score)
        new_state, staggered = _after_defence(defender.state, plan, roll.total, attack.score, hit, round_number)
        outcome.update(
            defence_score=roll.total,
            staggered=staggered,
            repeat_penalty=plan.repeat_now,
            carry=plan.carry,
            parry_bonus_round=round_number + 1 if plan.manoeuvre == "parry" and not hit else None,
            defence_stat=plan.stat,
            weapon=plan.weapon_type,
        )
    null_damage = hit and _null_damage(attacker, defender, spec, options)
    ruled_damage = spec.np_ruling.damage if spec.np_ruling else None
    crit_bonus = 0
    if hit and attack.crit and not null_damage and ruled_damage is None:
        # A6: "rolls again, using the stat associated with their attack": one stat die, only on a hit.
        sides = stat_die_sides(attack.stat_value, options)
        (face,) = dice.roll(1, sides)
        rolls.append(Roll("crit", sides, (face,), (face,), (), face))
        crit_bonus = face
    damage = 0
    terms: DamageTerms | None = None
    if hit and not null_damage:
        # R16: a GM-set NP damage replaces the whole R10 formula (no END, no x10, no crit die).
        if ruled_damage is not None:
            damage = ruled_damage
        else:
            terms = _damage(attacker, defender, attack, spec, abilities, crit_bonus, options)
            damage = damage_of(terms)
    if damage > 0:
        effects.append(PoolDelta("defender", "hp", -damage))
    effects.append(StatePatch("defender", "combat", new_state.model_dump(mode="json")))
    outcome.update(
        hit=hit,
        damage=damage,
        null_damage=null_damage,
        crit_bonus=crit_bonus,
        np_no_effect=np_no_effect,
        defender_fate=fate(defender.kind, defender.hp - damage, defender.mana - mana_cost),
        damage_terms=terms,
    )
    return Resolution(DefenceResult(**outcome), tuple(rolls), tuple(effects))


def _after_defence(
    state: CombatState, plan: DefencePlan, defence_score: int, attack_score: int, hit: bool, round_number: int
) -> tuple[CombatState, bool]:
    """The state after a defence roll, and whether it staggered (block tie, failed parry: +1 next defence)."""
    # The roll consumed the carried modifier; what carries now is the repeat penalty plus any new stagger.
    staggered = (plan.manoeuvre == "block" and defence_score == attack_score) or (plan.manoeuvre == "parry" and hit)
    rounds = {earned for earned in state.parry_bonus_rounds if earned >= round_number}
    if plan.manoeuvre == "parry" and not hit:
        rounds.add(round_number + 1)  # A29: the next round, even if earned late in this one
    new_state = state.model_copy(
        update={
            "pending_def_mod": plan.repeat_now + int(staggered),
            "repeat_carry": plan.repeat_now,
            "last_def_type": plan.manoeuvre,
            "def_streak": plan.streak,
            "parry_bonus_rounds": tuple(sorted(rounds)),
        }
    )
    return new_state, staggered


def _null_damage(attacker: Combatant, defender: Combatant, spec: AttackSpec, options: FatePointsOptions) -> bool:
    """R11: a Master's hit on a Servant is null, unless conceptual (GM) or lifted by a Fate/Point (A39)."""
    lifted = spec.conceptual or (attacker.fp_roll_vs_servant and options.fp_lifts_null_damage)
    return attacker.kind == "master" and defender.kind == "servant" and not lifted


def _damage(
    attacker: Combatant,
    defender: Combatant,
    attack: AttackOutcome,
    spec: AttackSpec,
    defender_abilities: Sequence[str],
    crit_bonus: int,
    options: FatePointsOptions,
) -> DamageTerms:
    """R10: the terms of the damage of a hit that is not null. Deterministic apart from the crit bonus (A17)."""
    return DamageTerms(
        weapon="magic" if attack.attack_type == "magical" else attack.weapon_type,
        base=_base_damage(attacker, attack.weapon_type, attack.attack_type, options),
        stat=attack.stat_value,
        bonus=sum(m.value for m in _ability_mods(attacker, spec.abilities, "damage")) + spec.damage_mod,
        crit=crit_bonus,
        multiplier=options.human_mult if attacker.kind == "servant" and defender.kind == "master" else 1,
        multiplied="base" if options.human_mult_scope == "base_only" else "all",
        armour=defender.stats["END"],
        taken=sum(m.value for m in _ability_mods(defender, defender_abilities, "damage_taken")),
    )


def damage_of(terms: DamageTerms) -> int:
    """R10's sum of the terms, never below 0."""
    if terms.multiplied == "base":
        attack_side = terms.base * terms.multiplier + terms.stat + terms.bonus + terms.crit
    else:
        attack_side = (terms.base + terms.stat + terms.bonus + terms.crit) * terms.multiplier
    return max(0, attack_side - terms.armour + terms.taken)


def _base_damage(
    attacker: Combatant, weapon_type: WeaponType, attack_type: AttackType, options: FatePointsOptions
) -> int:
    """T4, with the unarmed/shield options (A27) and Masters' weapon base (A38)."""
    if attacker.kind == "master" and not options.master_weapon_base:
        return 0
    if attack_type == "magical" or weapon_type == "magic":
        return CASTER_MAGIC_BASE if attacker.servant_class == "Caster" else 0
    if weapon_type == "unarmed":
        return options.unarmed_base
    if weapon_type == "shield":
        return options.shield_base
    return BASE_DAMAGE[weapon_type]


def _defence_stat(attack_type: AttackType, choice: str, options: FatePointsOptions) -> Stat:
    if choice == "block":
        return "MAG" if attack_type == "magical" else "STR" if attack_type == "melee" else options.ranged_block_stat
    return "LUK" if choice == "parry_luk" else "AGI"


def _weapon_defence_mod(
    attacker: Combatant,
    defender: Combatant,
    attack_type: AttackType,
    manoeuvre: Manoeuvre,
    weapon: Weapon | None,
    options: FatePointsOptions,
) -> int:
    """T3, with R7's magical-block rule, the shield dodge option (A14) and Masters ignoring it (R11/A38)."""
    if defender.kind == "master" and (options.master_wmod_scope == "all" or attacker.kind == "master"):
        return 0
    if manoeuvre == "block" and attack_type == "magical" and not (weapon and weapon.magical):
        return 0
    weapon_type: WeaponType = weapon.type if weapon else "unarmed"
    if weapon_type == "shield" and manoeuvre == "dodge":
        return options.shield_dodge_mod
    return _WEAPON_DEFENCE_MODS[manoeuvre]["unarmed" if weapon_type == "magic" else weapon_type]


def _rolled_stat(combatant: Combatant, stat: Stat, opponent: Combatant) -> tuple[int, Modifier]:
    """The stat a roll uses; a Fate/Point boost raises it to the opposing Servant's level (A=5 if none, A24)."""
    value = combatant.stats[stat]
    if combatant.fp_boost == stat:
        level = opponent.stats[stat] if opponent.kind == "servant" else MAX_STAT
        if level > value:
            return level, Modifier(f"fp_boost:{stat}", -level)
    return value, stat_modifier(stat, value)


def _held_rank(stat_value: int, spec: AttackSpec) -> tuple[int, str, int]:
    """R15/A21: (value used, rank used, mana cost). Holding back picks a rank at most the stat's."""
    full = rank_letter(stat_value)
    rank = spec.rank_used or full
    value = stat_value if rank == EX and full == EX else rank_value(rank, MAX_STAT + 1)
    if value > stat_value:
        raise RuleError("hold_back_above_rank", rank=rank, max=full)
    if rank != EX:
        return value, rank, value
    if spec.ex_cost is None:
        raise RuleError("ex_attack_cost_missing")
    return value, rank, spec.ex_cost


def _np_attack_cost(attacker: Combatant, spec: AttackSpec, attack_cost: int, options: FatePointsOptions) -> int:
    """R16/A22: an NP attack pays the NP cost instead of (or, per option, on top of) the R15 cost."""
    if spec.noble_phantasm is None:
        return attack_cost
    phantasm = _find(attacker.noble_phantasms, spec.noble_phantasm, "unknown_noble_phantasm")
    cost = 0 if phantasm.name in attacker.activated else np_activation_cost(phantasm)
    return cost if options.np_replaces_attack_cost else cost + attack_cost


def _np_no_effect(attacker: Combatant, defender: Combatant, spec: AttackSpec) -> bool:
    """God Hand (R16): an NP ranked below the defender's GM-set minimum has no effect on it."""
    if spec.noble_phantasm is None or defender.min_np_rank is None:
        return False
    phantasm = _find(attacker.noble_phantasms, spec.noble_phantasm, "unknown_noble_phantasm")
    return np_rank_below(phantasm.rank, defender.min_np_rank)


def _applied_abilities(combatant: Combatant, names: Sequence[str]) -> list[Ability]:
    """Passive abilities (no mana cost) always apply; abilities with a cost when named or activated beforehand."""
    named = {_find(combatant.abilities, name, "unknown_ability").name for name in names} | set(combatant.activated)
    return [ability for ability in combatant.abilities if ability.mana_cost is None or ability.name in named]


def _ability_mods(combatant: Combatant, names: Sequence[str], kind: RollKind) -> list[Modifier]:
    return [
        Modifier(f"ability:{ability.name}", ability.roll_mods[kind])
        for ability in _applied_abilities(combatant, names)
        if kind in ability.roll_mods
    ]


def _ability_cost(combatant: Combatant, names: Sequence[str]) -> int:
    """What the named abilities cost now: one activated beforehand is paid already."""
    return sum(
        ability.mana_cost or 0
        for ability in _applied_abilities(combatant, names)
        if ability.name in names and ability.name not in combatant.activated
    )


def _find(items: Sequence[_Named], name: str, code: str) -> _Named:
    for item in items:
        if item.name == name:
            return item
    raise RuleError(code, name=name)
