"""Character sheets: the import file format (YAML/JSON loaded into dicts) and its field-by-field validation.

Sheets hold only what a player chooses; everything rolled or derived (HP, prana, compatibility, a
Servant's final stats...) is computed by `creation` and refused in a sheet as `derived_field`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeGuard

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from rules.fate_points.model import (
    CLASS_BASE,
    EX,
    MASTER_MAG_POINTS,
    MAX_STAT,
    MIN_STAT,
    RANK_LETTERS,
    STATS,
    RollKind,
    ServantClass,
    Stat,
    WeaponType,
    is_np_rank,
)
from rules.fate_points.options import FatePointsOptions
from rules.sheets import SheetError, SheetProblem, validation_problems
from rules.text import Name

# Rolled or computed values a player may not type into a sheet (compared case-insensitively).
DERIVED_FIELDS = frozenset(
    {
        "hp",
        "hp_max",
        "prana",
        "prana_max",
        "mana",
        "compatibility",
        "fate_points",
        "servant_points",
        "stats",
        "ranks",
        "alive",
        "roll_mod",
        "rolls",
    }
)
# A Servant's stats come from its class and rank steps (R2), so typing them is also a derived value.
SERVANT_DERIVED_FIELDS = DERIVED_FIELDS | {stat.lower() for stat in STATS}


def _bounded(low: int, high: int) -> AfterValidator:
    def check(value: int) -> int:
        if not low <= value <= high:
            raise PydanticCustomError(
                "out_of_range", "{value} is outside {min}..{max}", {"value": value, "min": low, "max": high}
            )
        return value

    return AfterValidator(check)


def _np_rank(value: str) -> str:
    if not is_np_rank(value):
        raise PydanticCustomError("invalid_rank", "{value} is not a rank like A, B+ or EX", {"value": value})
    return value


def _rank_as_number(value: object) -> object:
    """A stat written as its rank letter (E..A, as the rulebook writes it) is that rank's number."""
    if isinstance(value, str) and value.strip().upper() in RANK_LETTERS:
        return RANK_LETTERS.index(value.strip().upper()) + 1
    if isinstance(value, str) and value.strip().upper() == EX:
        raise PydanticCustomError("ex_not_here", "EX is not a rank this stat can have")
    return value


StatScore = Annotated[int, BeforeValidator(_rank_as_number), _bounded(MIN_STAT, MAX_STAT)]
NPRank = Annotated[str, AfterValidator(_np_rank)]
RollMod = Annotated[int, _bounded(-20, 20)]
ManaCost = Annotated[int, _bounded(0, 1000)]
RankStep = Annotated[int, _bounded(-MAX_STAT, MAX_STAT)]
ExValue = Annotated[int, _bounded(MAX_STAT + 1, 10)]


class _Sheet(BaseModel):
    # strict: a sheet typed "3" for a stat is a mistake worth reporting, not something to guess about.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Weapon(_Sheet):
    name: Name
    type: WeaponType
    magical: bool = False  # keeps the block modifier against magical attacks (R7)
    extra_attack_penalty: Annotated[int, _bounded(0, 20)] = 0  # GM penalty when used as an extra weapon (A10)


class Ability(_Sheet):
    """A skill, class skill or magecraft (A35). No `mana_cost` = passive: its mods always apply."""

    name: Name
    roll_mods: dict[RollKind, RollMod] = Field(default_factory=dict)
    mana_cost: ManaCost | None = None
    rank: NPRank | None = None


class NoblePhantasm(_Sheet):
    name: Name
    rank: NPRank
    gm_cost_adjust: Annotated[int, _bounded(-100, 100)] = 0
    ex_cost: ManaCost | None = None  # the GM's cost for an EX rank (R16)


class MasterSheet(_Sheet):
    name: Name
    STR: StatScore
    END: StatScore
    AGI: StatScore
    MAG: StatScore
    LUK: StatScore
    weapons: list[Weapon] = Field(default_factory=list)
    magecraft: list[Ability] = Field(default_factory=list)

    def stats(self) -> dict[Stat, int]:
        return {stat: getattr(self, stat) for stat in STATS}


class ServantSheet(_Sheet):
    name: Name
    servant_class: ServantClass
    master: Name  # the Master character's name
    rank_steps: dict[Stat, RankStep] = Field(default_factory=dict)  # R2/A5: +n raises a stat n ranks
    ex_stats: dict[Stat, ExValue | None] = Field(default_factory=dict)  # GM override to EX; None = ex_default
    weapons: list[Weapon] = Field(default_factory=list)
    skills: list[Ability] = Field(default_factory=list)
    noble_phantasms: list[NoblePhantasm] = Field(default_factory=list)
    mad_enchantment: bool = False

    @model_validator(mode="before")
    @classmethod
    def _berserkers_are_mad(cls, data: Any) -> Any:
        # R13: every Berserker has Mad Enchantment, whatever the sheet says.
        if isinstance(data, dict) and data.get("servant_class") == "Berserker":
            return {**data, "mad_enchantment": True}
        return data


def master_problems(data: Mapping[str, object], options: FatePointsOptions) -> list[SheetProblem]:
    """Every problem of a Master sheet, including the R1 budget (sum of the five stats)."""
    problems = _model_problems(MasterSheet, data, DERIVED_FIELDS.__contains__, ("weapons", "magecraft"))
    values = [data.get(stat) for stat in STATS]
    if all(_is_int(value) and MIN_STAT <= value <= MAX_STAT for value in values):
        total = sum(value for value in values if _is_int(value))
        if total != options.master_stat_budget:
            problems.append(SheetProblem("stats", "budget", {"total": total, "expected": options.master_stat_budget}))
    return problems


def servant_points(master: MasterSheet, extra_points: int) -> int:
    """R2: the Master's MAG award plus the GM's extra points for skills, fame and identity."""
    return MASTER_MAG_POINTS[master.MAG] + extra_points  # Master stats are 1..5: EX cannot be bought (R1)


def servant_problems(
    data: Mapping[str, object], master: MasterSheet, extra_points: int, options: FatePointsOptions
) -> list[SheetProblem]:
    """Every problem of a Servant sheet, including the R2 rank-step rules against `master`."""
    problems = _model_problems(
        ServantSheet, data, SERVANT_DERIVED_FIELDS.__contains__, ("weapons", "skills", "noble_phantasms")
    )
    if "master" in data and data["master"] != master.name:
        problems.append(
            SheetProblem("master", "master_mismatch", {"value": str(data["master"]), "expected": master.name})
        )
    servant_class = data.get("servant_class")
    steps = data.get("rank_steps", {})
    if not isinstance(servant_class, str) or servant_class not in CLASS_BASE or not isinstance(steps, Mapping):
        return problems
    if not all(key in STATS and _is_int(value) for key, value in steps.items()):
        return problems  # already reported field by field; a sum over bad entries would only confuse
    ex_stats = data.get("ex_stats", {})
    problems.extend(
        _step_problems(CLASS_BASE[servant_class], steps, ex_stats, servant_points(master, extra_points), options)
    )
    return problems


def _step_problems(
    base: Mapping[Stat, int], steps: Mapping[Stat, int], ex_stats: object, points: int, options: FatePointsOptions
) -> list[SheetProblem]:
    if options.servant_points_mode == "roll_mods":
        # A40: the points become a flat roll modifier, so the ranks stay at the class base.
        if any(steps.values()):
            return [SheetProblem("rank_steps", "rank_steps_disabled", {"points": points})]
        return []
    problems: list[SheetProblem] = []
    total = sum(steps.values())
    if total != points:
        problems.append(SheetProblem("rank_steps", "step_sum", {"total": total, "expected": points}))
    for stat, step in steps.items():
        if points == 0 and step != 0:
            problems.append(SheetProblem(f"rank_steps.{stat}", "step_without_points", {"value": step}))
        elif step * points < 0:
            problems.append(SheetProblem(f"rank_steps.{stat}", "step_sign", {"value": step, "points": points}))
        final = base[stat] + step
        exempt = isinstance(ex_stats, Mapping) and stat in ex_stats
        if not exempt and not MIN_STAT <= final <= MAX_STAT:
            problems.append(
                SheetProblem(
                    f"rank_steps.{stat}", "final_stat_range", {"value": final, "min": MIN_STAT, "max": MAX_STAT}
                )
            )
    return problems


def parse_master(data: Mapping[str, object], options: FatePointsOptions) -> MasterSheet:
    problems = master_problems(data, options)
    if problems:
        raise SheetError(problems)
    return MasterSheet.model_validate(data)


def parse_servant(
    data: Mapping[str, object], master: MasterSheet, extra_points: int, options: FatePointsOptions
) -> ServantSheet:
    problems = servant_problems(data, master, extra_points, options)
    if problems:
        raise SheetError(problems)
    return ServantSheet.model_validate(data)


def servant_stats(sheet: ServantSheet, options: FatePointsOptions) -> dict[Stat, int]:
    """Final numeric stats: class base + rank steps (R2), GM EX overrides worth their value (A3)."""
    stats = dict(CLASS_BASE[sheet.servant_class])
    if options.servant_points_mode == "rank_steps":
        for stat, step in sheet.rank_steps.items():
            stats[stat] += step
    for stat, ex_value in sheet.ex_stats.items():
        stats[stat] = options.ex_default if ex_value is None else ex_value
    return stats


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _model_problems(
    model: type[_Sheet], data: Mapping[str, object], is_derived: Callable[[str], bool], named_lists: tuple[str, ...]
) -> list[SheetProblem]:
    problems: list[SheetProblem] = []
    clean: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(key, str) and is_derived(key.lower()):
            problems.append(SheetProblem(key, "derived_field"))
        else:
            clean[key] = value
    try:
        model.model_validate(clean)
    except ValidationError as error:
        problems.extend(validation_problems(error))
    for list_name in named_lists:
        problems.extend(_duplicate_names(list_name, data.get(list_name)))
    return problems


def _duplicate_names(list_name: str, entries: object) -> list[SheetProblem]:
    # Attacks and defences pick weapons, skills and NPs by name, so a name must be unambiguous.
    if not isinstance(entries, list):
        return []
    seen: set[str] = set()
    problems: list[SheetProblem] = []
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            continue
        if name.strip() in seen:
            problems.append(SheetProblem(f"{list_name}.{index}.name", "duplicate_name", {"name": name.strip()}))
        seen.add(name.strip())
    return problems
