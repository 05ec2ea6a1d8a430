"""A battle between two formations (R4-R15): strength, the win rate and each of its terms, skills that meet in the
same category, what cancels what, who may use which skill, and the aftermath's fatigue and vanish checks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rules.grail_anka.model import (
    AUTO_LOSE,
    AUTO_WIN,
    CANCELLED_BY_ILLUSION,
    CANCELLED_BY_ILLUSION_KAI,
    FATIGUE_LOCK,
    FATIGUE_TABLE,
    PARAMS,
    RETREAT_FATIGUE,
    SEAL_RECOVERY,
    SURVIVE_BASE,
    VANISH_PER_FATIGUE,
    WIN_RATE_TABLE,
    SkillKind,
    SkillTag,
    Talisman,
    Timing,
)
from rules.grail_anka.sheets import Skill

Params = Mapping[str, int]


def strength(main: Params, subs: Sequence[Params]) -> dict[str, int]:
    """R4, D23: the main's value plus half the subs' sum, rounded up once (not per sub); companions add nothing."""
    return {param: main[param] + math.ceil(sum(sub[param] for sub in subs) / 2) for param in PARAMS}


def with_deltas(base: Params, deltas: Iterable[Params]) -> dict[str, int]:
    """Strength with the parameter changes of skills that took effect."""
    total = dict(base)
    for delta in deltas:
        for param, value in delta.items():
            total[param] += value
    return total


def remaining(picked: Sequence[str]) -> tuple[str, ...]:
    """The parameters a random third is drawn from, in source order (R6)."""
    return tuple(param for param in PARAMS if param not in picked)


def third_parameter(picked: Sequence[str], value: int) -> str:
    """R6, D10: the decision value modulo the four remaining (100 is a multiple of 4: no parameter is favoured)."""
    left = remaining(picked)
    return left[value % len(left)]


@dataclass(frozen=True)
class WinRate:
    """Side A's win rate with every term (R7, T3); `rate` is None for an automatic result."""

    chosen: tuple[str, ...]
    advantages: int
    disadvantages: int
    base: int | str
    totals: int = 0
    levels: int = 0
    fatigue: int = 0
    skills: int = 0
    floor: int | None = None
    ceiling: int | None = None
    rate: int | None = None

    @property
    def automatic(self) -> str | None:
        return self.base if isinstance(self.base, str) else None


def win_rate(
    chosen: Sequence[str],
    strength_a: Params,
    strength_b: Params,
    *,
    level_a: int,
    level_b: int,
    fatigue_a: int,
    fatigue_b: int,
    skills_a: int = 0,
    skills_b: int = 0,
    min_a: int | None = None,
    min_b: int | None = None,
) -> WinRate:
    """R7: the table's base for the advantages, then totals, levels, fatigue and skills; the minimum guarantees last.
    An automatic result skips every correction and guarantee (W8)."""
    advantages = sum(strength_a[param] > strength_b[param] for param in chosen)
    disadvantages = sum(strength_a[param] < strength_b[param] for param in chosen)
    base = WIN_RATE_TABLE[(advantages, disadvantages)]
    if isinstance(base, str):
        return WinRate(tuple(chosen), advantages, disadvantages, base)
    totals = sum(strength_a[param] for param in chosen) - sum(strength_b[param] for param in chosen)
    levels = level_a - level_b
    fatigue = -2 * (fatigue_a - fatigue_b)
    skills = skills_a - skills_b
    rate = base + totals + levels + fatigue + skills
    ceiling = None if min_b is None else 100 - min_b
    if min_a is not None:
        rate = max(rate, min_a)
    if ceiling is not None:
        rate = min(rate, ceiling)
    return WinRate(
        tuple(chosen), advantages, disadvantages, base, totals, levels, fatigue, skills, min_a, ceiling, rate
    )


MAIN, SUB, COMPANION = "main", "sub", "companion"


@dataclass(frozen=True)
class Member:
    """One character in a formation, as the win rate sees it (fatigue: 0 for all but Servants)."""

    place: str
    params: Params
    level: int
    fatigue: int = 0


@dataclass(frozen=True)
class SkillTotals:
    """What the skills that took effect add up to for one side, and each one that adds to it (`terms`, in order)."""

    win_rate: int = 0
    params: dict[str, int] = field(default_factory=dict)
    min_win_rate: int | None = None
    terms: tuple[Activation, ...] = ()


@dataclass(frozen=True)
class Rated:
    result: WinRate
    strength_a: dict[str, int]
    strength_b: dict[str, int]
    # What each side's skills that took effect add up to, each skill apart (the rate's skill term, the strengths).
    skills_a: SkillTotals = field(default_factory=SkillTotals)
    skills_b: SkillTotals = field(default_factory=SkillTotals)


def formation_rate(
    chosen: Sequence[str],
    side_a: Sequence[Member],
    side_b: Sequence[Member],
    *,
    companions_tire: bool = True,
    skills_a: SkillTotals | None = None,
    skills_b: SkillTotals | None = None,
) -> Rated:
    """R4 and R7 for two formations: strength with the skills' parameter changes, the mains' levels, and the fatigue
    of the Servants present (D12: companions too, unless `fatigue_scope` leaves them out)."""
    totals_a, totals_b = skills_a or SkillTotals(), skills_b or SkillTotals()

    def strength_of(side: Sequence[Member], totals: SkillTotals) -> dict[str, int]:
        main = next(member for member in side if member.place == MAIN)
        return with_deltas(strength(main.params, [m.params for m in side if m.place == SUB]), [totals.params])

    def tired(side: Sequence[Member]) -> int:
        return sum(m.fatigue for m in side if companions_tire or m.place in (MAIN, SUB))

    def level(side: Sequence[Member]) -> int:
        return next(member.level for member in side if member.place == MAIN)

    strength_a, strength_b = strength_of(side_a, totals_a), strength_of(side_b, totals_b)
    result = win_rate(
        chosen,
        strength_a,
        strength_b,
        level_a=level(side_a),
        level_b=level(side_b),
        fatigue_a=tired(side_a),
        fatigue_b=tired(side_b),
        skills_a=totals_a.win_rate,
        skills_b=totals_b.win_rate,
        min_a=totals_a.min_win_rate,
        min_b=totals_b.min_win_rate,
    )
    return Rated(result, strength_a, strength_b, totals_a, totals_b)


def automatic_winner(result: WinRate) -> bool | None:
    """Whether side A won without a roll (True), lost without one (False), or must roll (None)."""
    return {AUTO_WIN: True, AUTO_LOSE: False}.get(result.automatic or "")


# Skills


@dataclass(frozen=True)
class Activation:
    """A skill used in a battle: by which side, and whether it was cancelled (R11) or lost to a Noble Phantasm of
    the same category (R10)."""

    side: str
    skill: Skill
    # Who used it, or holds it (a passive skill), by name: the win rate's terms name it.
    who: str = ""
    cancelled: bool = False
    suppressed: bool = False
    # Whether its fatigue stands: always, but for a cancelled skill and (D20) one a Noble Phantasm overrode.
    tires: bool = True
    # The position (among the activations given to `interplay`) of the Noble Phantasm that overrode it; None for
    # one not suppressed, or suppressed by an opposing effect of its category without a Noble Phantasm (相殺).
    overridden_by: int | None = None


def usable(
    skill: Skill,
    timing: Timing,
    *,
    place: str,
    fatigue_at_start: int,
    used: int,
) -> str | None:
    """Why a member cannot use this skill now (a catalog code), or None (R9, R15)."""
    retreat = SkillTag.RETREAT in skill.tags
    if skill.timing != timing:
        return "skill_wrong_timing"
    if used >= skill.uses_per_battle:
        return "skill_used_up"
    if place == "companion" and not (retreat or SkillTag.COMPANION_OK in skill.tags):
        return "skill_not_for_companions"
    if fatigue_at_start >= FATIGUE_LOCK and skill.fatigue_cost > 0 and not retreat:
        return "skill_too_tired"
    return None


def cancellable_by(means: Talisman | str, kind: SkillKind) -> bool:
    """R11, T4, D21: an illusion talisman or a counter-skill cancels normal skills and mystic codes, the improved
    talisman also Noble Phantasms and advanced codes; a special skill can never be cancelled."""
    if means == Talisman.ILLUSION_KAI:
        return kind in CANCELLED_BY_ILLUSION_KAI
    if means in (Talisman.ILLUSION, "counter"):
        return kind in CANCELLED_BY_ILLUSION
    return False


def interplay(activations: Sequence[Activation], *, np_priority_fatigue: bool) -> list[Activation]:
    """R10: where both sides used effects of one category, a Noble Phantasm overrides a normal skill or a mystic
    code, advanced or not (D20: like a cancel, no fatigue, unless `np_priority_fatigue`), and a special skill's
    conflicting effect, whose use and fatigue still stand; numbers otherwise add up (they net out), flags cancel
    each other."""
    result = list(activations)
    standing = [index for index, activation in enumerate(result) if not activation.cancelled]
    categories = {result[index].skill.category for index in standing if result[index].skill.category}
    for category in categories:
        members = [index for index in standing if result[index].skill.category == category]
        if len({result[index].side for index in members}) < 2:
            continue
        nps = [index for index in members if result[index].skill.kind == SkillKind.NP]
        np_sides = {result[index].side for index in nps}
        for index in members:
            activation = result[index]
            by = next((np for np in nps if result[np].side != activation.side), None)
            overridden = by is not None and activation.skill.kind != SkillKind.NP
            if overridden and activation.skill.kind in (
                SkillKind.NORMAL,
                SkillKind.MYSTIC_CODE,
                SkillKind.ADV_MYSTIC_CODE,
            ):
                result[index] = _replace(activation, suppressed=True, tires=np_priority_fatigue, overridden_by=by)
            elif overridden and activation.skill.kind == SkillKind.SPECIAL:
                result[index] = _replace(activation, suppressed=True, overridden_by=by)
            elif not np_sides and not activation.skill.effect.numeric:
                result[index] = _replace(activation, suppressed=True)
    return result


def _replace(activation: Activation, **changes: bool | int | None) -> Activation:
    return Activation(**{**activation.__dict__, **changes})


def totals(activations: Iterable[Activation], side: str) -> SkillTotals:
    win = 0
    params = dict.fromkeys(PARAMS, 0)
    floor: int | None = None
    terms = []
    for activation in activations:
        if activation.side != side or activation.cancelled or activation.suppressed:
            continue
        effect = activation.skill.effect
        win += effect.win_rate_delta
        for param, value in effect.param_delta.items():
            params[param] += value
        if effect.min_win_rate is not None:
            floor = max(floor or 0, effect.min_win_rate)
        if effect.numeric:
            terms.append(activation)
    return SkillTotals(win, params, floor, tuple(terms))


# Aftermath


def winner_fatigue(fatigue: int, digit: int) -> int:
    """R13, T2: the winner's fatigue after its table roll, never below 0."""
    return max(0, fatigue + FATIGUE_TABLE[digit])


def survive_rate(fatigue: int) -> int:
    """R14, T3: a losing Servant survives its vanish check at 70 - 5 x fatigue percent."""
    return SURVIVE_BASE - VANISH_PER_FATIGUE * fatigue


def retreat_fatigue(means: str) -> int:
    """What a retreat after a loss costs: nothing through an improved substitute talisman, 3 otherwise (R14)."""
    return 0 if means == Talisman.SUBSTITUTE_KAI else RETREAT_FATIGUE


def seal_recovery(fatigue: int) -> int:
    return max(0, fatigue - SEAL_RECOVERY)
