"""Rolls: the action roll with boons and banes and criticals (R1-R4), attack against defence (R6), the
Damage and Withstand Rolls (R7, R8). Every die comes from the injected `DiceSource`; every roll is kept
as `Roll` records, so a player sees each die and the log keeps them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rules.crest_magia.model import BASE_SIDES, BOON_SIDES, DAMAGE_SIDES, Crit
from rules.crest_magia.options import CrestMagiaOptions
from rules.dice.source import DiceSource
from rules.exchange import Modifier, Roll

MAX_DAMAGE_DICE = 2 * DAMAGE_SIDES  # a crit's "maximum result possible" of the damage 2d6 (R3)


@dataclass(frozen=True)
class BoonsAndBanes:
    """R2: boons and banes cancel one for one; the highest remaining d4 is added (boons) or subtracted."""

    net: int  # boons minus banes
    faces: tuple[int, ...]

    @property
    def value(self) -> int:
        if not self.faces:
            return 0
        return max(self.faces) if self.net > 0 else -max(self.faces)

    def roll(self) -> Roll | None:
        if not self.faces:
            return None
        label = "boons" if self.net > 0 else "banes"
        return Roll(label, BOON_SIDES, self.faces, (max(self.faces),), total=self.value)


def boons_and_banes(boons: int, banes: int, dice: DiceSource, options: CrestMagiaOptions) -> BoonsAndBanes:
    net = boons - banes
    count = abs(net) if options.max_bb_dice is None else min(abs(net), options.max_bb_dice)
    return BoonsAndBanes(net, tuple(dice.roll(count, BOON_SIDES)) if count else ())


@dataclass(frozen=True)
class ActionRoll:
    """R1: 2d6 (the base dice) and the stat die, the two highest kept, plus skill, specialty, boons and banes and
    the GM's modifier. `crit` is judged on the base dice alone (C1), and only when crits apply to the roller."""

    stat: str
    base: tuple[int, int]
    stat_sides: int
    stat_face: int
    modifiers: tuple[Modifier, ...]  # skill, specialty, GM: each under its own name
    boons: BoonsAndBanes
    crit: Crit | None

    @property
    def kept(self) -> int:
        """The two highest of the three dice (2..18)."""
        return sum(self.base) + self.stat_face - min(*self.base, self.stat_face)

    @property
    def total(self) -> int:
        return self.kept + sum(modifier.value for modifier in self.modifiers) + self.boons.value

    @property
    def stat_die_kept(self) -> bool:
        """Whether the stat die is one of the two kept (on a tie with the lower base die, the base die is)."""
        return self.stat_face > min(self.base)

    def rolls(self) -> tuple[Roll, ...]:
        """The base dice, the boons' or banes' d4s, then the stat die (the dice shown apart), whose line carries
        every term added after the dice, the boons' highest d4 included, and ends on the roll's total."""
        high, low = max(self.base), min(self.base)
        kept_base = (high,) if self.stat_die_kept else (high, low)
        stat_kept = (self.stat_face,) if self.stat_die_kept else ()
        found = [Roll("base", BASE_SIDES, self.base, kept_base, total=sum(kept_base))]
        terms = self.modifiers
        if (boons := self.boons.roll()) is not None:
            found.append(boons)
            terms += (Modifier(boons.label, boons.total),)
        found.append(Roll(f"stat:{self.stat}", self.stat_sides, (self.stat_face,), stat_kept, terms, self.total))
        return tuple(found)


def action_roll(
    stat: str,
    stat_sides: int,
    modifiers: tuple[Modifier, ...],
    dice: DiceSource,
    options: CrestMagiaOptions,
    *,
    boons: int = 0,
    banes: int = 0,
    crits: bool = True,
) -> ActionRoll:
    """One action roll with `stat_sides` already the effective die (a d4 for a depleted stat). `crits` is False
    for rolls that cannot crit: a non-player's unless `npc_crits` (C4)."""
    first, second = dice.roll(2, BASE_SIDES)
    (face,) = dice.roll(1, stat_sides)
    rolled_boons = boons_and_banes(boons, banes, dice, options)
    crit: Crit | None = None
    if crits and first == second == BASE_SIDES:
        crit = "success"
    elif crits and first == second == 1:
        crit = "failure"
    kept = tuple(modifier for modifier in modifiers if modifier.value)
    return ActionRoll(stat, (first, second), stat_sides, face, kept, rolled_boons, crit)


@dataclass(frozen=True)
class ActionSpec:
    """What an action roll is made of, kept while the roll is unresolved: a Destiny Point rolls it again with the
    same die, modifiers, boons and banes (R11, C30), and criticals judged again."""

    stat: str
    sides: int
    modifiers: tuple[Modifier, ...] = ()
    boons: int = 0
    banes: int = 0
    crits: bool = True

    def roll(self, dice: DiceSource, options: CrestMagiaOptions) -> ActionRoll:
        return action_roll(
            self.stat, self.sides, self.modifiers, dice, options, boons=self.boons, banes=self.banes, crits=self.crits
        )

    def to_dict(self) -> dict[str, Any]:
        modifiers = [[modifier.source, modifier.value] for modifier in self.modifiers]
        return {
            "stat": self.stat,
            "sides": self.sides,
            "modifiers": modifiers,
            "boons": self.boons,
            "banes": self.banes,
            "crits": self.crits,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionSpec:
        modifiers = tuple(Modifier(source, value) for source, value in data["modifiers"])
        return cls(data["stat"], data["sides"], modifiers, data["boons"], data["banes"], data["crits"])


def check_succeeds(roll: ActionRoll, target: int, options: CrestMagiaOptions) -> bool:
    """R4 and C22: at least the GM's target number; a critical success passes (C2), a critical failure fails."""
    if roll.crit == "success" and options.crit_success_autopasses:
        return True
    if roll.crit == "failure":
        return False
    return roll.total >= target


class Scored(Protocol):
    """A roll as R6 compares it: its total and its critical."""

    @property
    def total(self) -> int: ...

    @property
    def crit(self) -> Crit | None: ...


@dataclass(frozen=True)
class Score:
    """A roll's total and critical, kept between the steps of an exchange."""

    total: int
    crit: Crit | None


@dataclass(frozen=True)
class AttackResult:
    hit: bool
    maxed: bool  # a critical success: the Damage Roll counts as its maximum (R3)


def resolve_attack(attack: Scored, defence: Scored | None, options: CrestMagiaOptions) -> AttackResult:
    """R6: the attack must exceed the defence (a tie misses, C23). A critical attack wins whatever the defence
    (R3); then a critical defence decides (C2); with no defence roll (a helpless target) the attack hits."""
    if attack.crit == "failure":
        return AttackResult(False, False)
    if attack.crit == "success":
        return AttackResult(True, True)
    if defence is None:
        return AttackResult(True, False)
    if defence.crit == "failure":
        return AttackResult(True, False)
    if defence.crit == "success" and options.crit_success_autopasses:
        return AttackResult(False, False)
    return AttackResult(attack.total > defence.total, False)


def contest(active: Scored, passive: Scored, options: CrestMagiaOptions) -> bool:
    """An opposed check outside combat (R4): the active side is the attacker, and a tie goes to the passive side."""
    return resolve_attack(active, passive, options).hit


@dataclass(frozen=True)
class DamageRoll:
    """R7: 2d6 and the rating of the weapon or crest, a d6 more for a weakness and a d6 less for a resistance.
    `faces` is None for a critical attack's maximum."""

    faces: tuple[int, int] | None
    rating: int
    weakness: int  # the added d6, 0 without a weakness
    resistance: int  # the subtracted d6, 0 without a resistance
    specialty: int = 0  # the rank of the crest specialty whose form the attack takes (R13)
    source: str = "rating"  # what the rating is: a weapon's, or a crest's rank (`crest:<name>`)

    @property
    def total(self) -> int:
        base = MAX_DAMAGE_DICE if self.faces is None else sum(self.faces)
        return base + self.rating + self.specialty + self.weakness - self.resistance

    def rolls(self) -> tuple[Roll, ...]:
        modifiers = tuple(
            modifier
            for modifier in (
                Modifier(self.source, self.rating),
                Modifier("crest_specialty", self.specialty),
                Modifier("weakness", self.weakness),
                Modifier("resistance", -self.resistance),
            )
            if modifier.value
        )
        faces = self.faces or (DAMAGE_SIDES, DAMAGE_SIDES)
        return (Roll("damage" if self.faces else "damage_max", DAMAGE_SIDES, faces, faces, modifiers, self.total),)


def damage_dice(maxed: bool, dice: DiceSource) -> tuple[int, int] | None:
    """The attack's 2d6, rolled once however many defenders it has (C24); None for a crit's maximum."""
    if maxed:
        return None
    first, second = dice.roll(2, DAMAGE_SIDES)
    return first, second


def damage_roll(
    rating: int, *, weak: bool, resistant: bool, maxed: bool, dice: DiceSource, options: CrestMagiaOptions
) -> DamageRoll:
    """The Damage Roll against a single defender."""
    return damage_for(damage_dice(maxed, dice), rating, weak=weak, resistant=resistant, dice=dice, options=options)


def damage_for(
    faces: tuple[int, int] | None,
    rating: int,
    *,
    weak: bool,
    resistant: bool,
    dice: DiceSource,
    options: CrestMagiaOptions,
    specialty: int = 0,
    source: str = "rating",
) -> DamageRoll:
    """The damage against one defender from the attack's shared 2d6 (None: a crit's maximum). C11: at the maximum
    a weakness die is a 6 and a resistance die a 1 (or rolled, per `crit_resist_die`); both apply together (C32)."""
    maxed = faces is None
    weakness = (DAMAGE_SIDES if maxed else dice.roll(1, DAMAGE_SIDES)[0]) if weak else 0
    rolled_resistance = not maxed or options.crit_resist_die == "rolled"
    resistance = (dice.roll(1, DAMAGE_SIDES)[0] if rolled_resistance else 1) if resistant else 0
    return DamageRoll(faces, rating, weakness, resistance, specialty, source)


@dataclass(frozen=True)
class WithstandRoll:
    """R8: 2d6 and the rating of the armour or of the crest the defender absorbs with; no stat die, no boons."""

    faces: tuple[int, int]
    rating: int
    crit: Crit | None  # only with `crit_on_withstand` (C3)
    specialty: int = 0  # the rank of a crest specialty whose form fits the defence (R13)
    source: str = "rating"  # what the rating is: armour's, or a crest's rank (`crest:<name>`)

    @property
    def total(self) -> int:
        return sum(self.faces) + self.rating + self.specialty

    def absorbed(self, damage: int) -> int:
        """The damage taken from a Damage Roll of `damage`: the difference when it exceeds the Withstand Roll (a
        tie takes none). With `crit_on_withstand`, a double six takes none and a double one all of it."""
        if self.crit == "success":
            return 0
        if self.crit == "failure":
            return max(0, damage)
        return max(0, damage - self.total)

    def rolls(self) -> tuple[Roll, ...]:
        terms = (Modifier(self.source, self.rating), Modifier("crest_specialty", self.specialty))
        modifiers = tuple(modifier for modifier in terms if modifier.value)
        return (Roll("withstand", DAMAGE_SIDES, self.faces, self.faces, modifiers, self.total),)


def withstand_roll(
    rating: int, dice: DiceSource, options: CrestMagiaOptions, *, specialty: int = 0, source: str = "rating"
) -> WithstandRoll:
    first, second = dice.roll(2, DAMAGE_SIDES)
    crit: Crit | None = None
    if options.crit_on_withstand and first == second == DAMAGE_SIDES:
        crit = "success"
    elif options.crit_on_withstand and first == second == 1:
        crit = "failure"
    return WithstandRoll((first, second), rating, crit, specialty, source)


@dataclass(frozen=True)
class HealingRoll:
    """C19's house default for healing: 2d6 and the rank of the healer's healing crest (or of its Medicine skill)."""

    faces: tuple[int, int]
    bonus: Modifier

    @property
    def total(self) -> int:
        return sum(self.faces) + self.bonus.value

    def rolls(self) -> tuple[Roll, ...]:
        modifiers = (self.bonus,) if self.bonus.value else ()
        return (Roll("healing", DAMAGE_SIDES, self.faces, self.faces, modifiers, self.total),)


def healing_roll(bonus: Modifier, dice: DiceSource) -> HealingRoll:
    first, second = dice.roll(2, DAMAGE_SIDES)
    return HealingRoll((first, second), bonus)
