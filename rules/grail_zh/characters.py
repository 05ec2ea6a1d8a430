"""What the bot derives from a file: a Master's pools and speeds (§2.2), a Servant's effective ranks (R9), class
abilities (R20), pools, attacks and upkeep (§2.3, R11, R12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from rules.grail_zh.model import (
    ADJUSTED_BY,
    CLASS_TABLE,
    DAILY_BASE,
    DIE_BY_RANK,
    GRENADES,
    MAD_ENHANCEMENT,
    SCOPE_MULTIPLIER,
    STATS,
    Attribute,
    ServantClass,
    Stat,
    attribute_adjustment,
)
from rules.grail_zh.options import GrailZhOptions
from rules.grail_zh.ranks import Rank, combat_cost, daily_cost, release_base
from rules.grail_zh.sheets import Damage, MasterFile, NoblePhantasm, ServantFile

MELEE_TYPE_HP, MELEE_TYPE_SPEED = 10, 2
RUN_MULTIPLIER_MASTER, RUN_MULTIPLIER_SERVANT = 4, 10
HOMUNCULUS_MP = 5


@dataclass(frozen=True)
class MasterStats:
    hp_max: int
    mp_max: int
    speed: int
    run: int
    melee_damage: Damage
    defense: int
    grenades: int


def master_stats(sheet: MasterFile) -> MasterStats:
    """§2.2 and T1 (E3, E5)."""
    a = sheet.attribute
    melee = sheet.master_type == "melee"
    hp = max(1, 10 + 2 * a("con") + (MELEE_TYPE_HP if melee else 0))
    if sheet.master_type == "magus":
        mp = max(1, 10 + 2 * (a("int") + a("wis") + a("cha")))
    else:
        mp = max(1, 10 + 2 * (a("int" if sheet.mp_attr == "int" else "wis") + a("cha")))
    if sheet.master_type == "homunculus":
        mp *= HOMUNCULUS_MP
    speed = max(0, 5 + a("dex")) + (MELEE_TYPE_SPEED if melee else 0)
    damage = Damage(count=1, sides=6, bonus=a("str") + a("dex")) if melee else Damage(count=1, sides=3, bonus=a("str"))
    grenades = GRENADES if sheet.master_type == "trickster" else 0
    return MasterStats(hp, mp, speed, RUN_MULTIPLIER_MASTER * speed, damage, a("dex"), grenades)


def magic_adjustment(master: MasterFile, mode: str) -> int:
    """R9's shift of MAG: the three attributes' shifts summed (D3); or only the best of them; or only those that
    give the Master its MP."""
    if mode == "best":
        return max(attribute_adjustment(master.attribute(name)) for name in ("int", "wis", "cha"))
    if mode == "mp_attrs":
        counted: tuple[Attribute, ...] = (
            ("int", "wis", "cha") if master.master_type == "magus" else (master.mp_attr, "cha")
        )
        return sum(attribute_adjustment(master.attribute(name)) for name in counted)
    return sum(attribute_adjustment(master.attribute(name)) for name in ("int", "wis", "cha"))


def effective_ranks(sheet: ServantFile, master: MasterFile | None, options: GrailZhOptions) -> dict[Stat, Rank]:
    """R9, in its order: the legend, Mad Enhancement (T7), the Master's attributes (T10), an ordinary human's
    LUK +1; E below E (D4), A+X above A; EX untouched (D6)."""
    shift = dict.fromkeys(STATS, 0)
    if sheet.mad_enhancement is not None:
        for stat, delta in zip(STATS, MAD_ENHANCEMENT[sheet.mad_enhancement.n], strict=True):
            shift[stat] += delta
    if master is not None:
        for attribute, stat in ADJUSTED_BY.items():
            if stat != "MAG":
                shift[stat] += attribute_adjustment(master.attribute(attribute))
        shift["MAG"] += magic_adjustment(master, options.mag_adjust)
        if master.master_type == "ordinary":
            shift["LUK"] += 1
    return {stat: sheet.legend[stat].shifted(shift[stat]) for stat in STATS}


@dataclass(frozen=True)
class ServantSkill:
    name: str  # a skill the rules know (`rules.grail_zh.model.SKILLS`), or the Servant's own
    rank: Rank
    target: str | None = None
    from_class: bool = False
    effect: str = ""


def _gained(value: int) -> Rank | None:
    """A class ability computed from a stat: none at all when the value is 0 or less (R20)."""
    return Rank.from_value(value) if value > 0 else None


# R20: the class skills raised by some ranks, or else gained at a stat's rank plus some.
_RAISED: dict[ServantClass, tuple[tuple[str, int, Stat, int], ...]] = {
    "rider": (("magic_resistance", 1, "MAG", -1), ("riding", 3, "AGI", 2)),
    "saber": (("magic_resistance", 3, "MAG", 2), ("riding", 1, "AGI", -1)),
    "lancer": (("magic_resistance", 2, "MAG", 1), ("battle_continuation", 2, "END", 1)),
    "archer": (("magic_resistance", 1, "MAG", 0),),
}


def servant_skills(
    sheet: ServantFile, ranks: Mapping[Stat, Rank], *, class_abilities: bool = True
) -> tuple[ServantSkill, ...]:
    """The Servant's own skills with its class abilities (R20), derived from its effective ranks (D5); a puppet,
    on a class row without being of the class, has none."""
    skills = {
        skill.name: ServantSkill(skill.name, skill.rank, skill.target, effect=skill.effect) for skill in sheet.skills
    }
    if not class_abilities:
        return tuple(skills.values())

    def own_or_gained(name: str, raised_by: int, stat: Stat, plus: int) -> None:
        own = skills.get(name)
        if own is not None:
            skills[name] = ServantSkill(name, own.rank.shifted(raised_by), own.target, True, own.effect)
        elif (gained := _gained(ranks[stat].value + plus)) is not None:
            skills[name] = ServantSkill(name, gained, from_class=True)

    def at_least(name: str, rank: Rank | None) -> None:
        own = skills.get(name)
        if rank is not None and (own is None or own.rank.value < rank.value):
            skills[name] = ServantSkill(name, rank, from_class=True)

    for raised in _RAISED.get(sheet.servant_class, ()):
        own_or_gained(*raised)
    if sheet.servant_class == "archer":
        at_least("independent_action", max(ranks["END"], ranks["MAG"], key=lambda rank: rank.value).without_pluses())
    elif sheet.servant_class == "assassin":
        at_least("presence_concealment", _gained(ranks["AGI"].value - (0 if sheet.stealth_legend else 1)))
    elif sheet.servant_class == "caster":
        at_least("territory", ranks["MAG"].without_pluses())
    elif sheet.servant_class == "berserker" and sheet.mad_enhancement is not None:
        skills["mad_enhancement"] = ServantSkill("mad_enhancement", sheet.mad_enhancement, from_class=True)
    return tuple(skills.values())


def release_cost(np: NoblePhantasm) -> int:
    """R13: the rank's base, times the scope (anti-army 3, anti-city 5, or the GM's), twice for a one-shot (E19)."""
    multiplier = np.scope_multiplier if np.scope == "other" else SCOPE_MULTIPLIER[np.scope]
    return release_base(np.rank) * multiplier * (2 if np.mode == "one_shot" else 1)


@dataclass(frozen=True)
class ServantStats:
    servant_class: ServantClass
    ranks: Mapping[Stat, Rank]
    skills: tuple[ServantSkill, ...]
    hp_max: int
    mp_max: int
    speed: int
    run: int
    melee_bonus: int
    melee_damage: Damage
    ranged_bonus: int | None  # None: the class has no ranged attack of its own (T6)
    ranged_damage: Damage | None
    defense: int
    daily_cost: int
    combat_cost: int
    # A skill whose "+" is on (R17): its magnitude times this.
    multiplied: Mapping[str, int] = field(default_factory=dict)

    def skill(self, name: str) -> ServantSkill | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    def magnitude(self, name: str, ex_value: int) -> int:
        """A skill's X (E..A 1..5, A+X 5+X, EX `ex_value`), times its "+" while on; 0 without the skill."""
        skill = self.skill(name)
        return 0 if skill is None else skill.rank.magnitude(ex_value) * self.multiplied.get(name, 1)


def plus_on(stats: ServantStats, target: str, multiplier: int, class_hp: int) -> ServantStats:
    """R17 and D21 while a passive "+" is on: a skill's magnitude times `multiplier`; a stat's R10 effects as if it
    were (multiplier - 1) x n ranks over A: STR melee attack and damage, AGI defence and ranged attack and damage,
    END HP, MAG MP, LUK's thresholds (an A's)."""
    if target not in stats.ranks:
        return replace(stats, multiplied={**stats.multiplied, target: multiplier})
    rank = stats.ranks[target]  # type: ignore[index]
    bonus = (multiplier - 1) * rank.n
    if target == "STR":
        return replace(stats, melee_bonus=stats.melee_bonus + bonus, melee_damage=stats.melee_damage.plus(bonus))
    if target == "AGI":
        ranged = stats.ranged_damage.plus(bonus) if stats.ranged_damage else None
        shot = stats.ranged_bonus + bonus if stats.ranged_bonus is not None else None
        return replace(stats, defense=stats.defense + bonus, ranged_bonus=shot, ranged_damage=ranged)
    if target == "END":
        return replace(stats, hp_max=stats.hp_max + bonus * class_hp)
    if target == "MAG":
        return replace(stats, mp_max=stats.mp_max + 20 * bonus)
    if rank.n == 5 and not rank.ex:  # LUK at A: its auto-success and reroll bands widen by the bonus
        return replace(stats, ranks={**stats.ranks, "LUK": Rank(5, rank.x + bonus, pluses=rank.pluses)})
    return stats


def servant_stats(sheet: ServantFile, master: MasterFile | None, options: GrailZhOptions) -> ServantStats:
    """§2.3 and T6 from the effective ranks (E6, E8, E9)."""
    return stats_at(sheet, effective_ranks(sheet, master, options), options)


def stats_at(
    sheet: ServantFile, ranks: Mapping[Stat, Rank], options: GrailZhOptions, *, class_abilities: bool = True
) -> ServantStats:
    """A Servant's values at its effective ranks (as they were derived when it was summoned)."""
    skills = servant_skills(sheet, ranks, class_abilities=class_abilities)
    row = CLASS_TABLE[sheet.servant_class]
    strength, agility = ranks["STR"], ranks["AGI"]
    assassin = sheet.servant_class == "assassin"
    melee = Damage(
        count=row.melee_dice, sides=DIE_BY_RANK[strength.n], bonus=strength.x + (agility.n if assassin else 0)
    )
    ranged_die = DIE_BY_RANK[(agility if options.ranged_die_stat == "AGI" else strength).n]
    counted = [*ranks.values(), *(skill.rank for skill in skills), *(np.rank for np in sheet.noble_phantasms)]
    return ServantStats(
        servant_class=sheet.servant_class,
        ranks=ranks,
        skills=skills,
        hp_max=ranks["END"].value * row.hp,
        mp_max=20 * ranks["MAG"].value,
        speed=agility.n + row.speed,
        run=RUN_MULTIPLIER_SERVANT * (agility.n + row.speed),
        melee_bonus=strength.value + (agility.n if assassin else 0),
        melee_damage=melee,
        ranged_bonus=agility.value if row.ranged else None,
        ranged_damage=Damage(count=1, sides=ranged_die, bonus=agility.value) if row.ranged else None,
        defense=agility.value,
        daily_cost=DAILY_BASE + sum(daily_cost(rank) for rank in counted),
        combat_cost=sum(combat_cost(rank) for rank in counted),
    )
