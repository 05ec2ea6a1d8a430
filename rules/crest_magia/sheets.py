"""Character files and their validation: the models, and the creation rules of R12 field by field."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from rules.crest_magia.model import (
    BOOK_CRESTS,
    CREATION_CREST_RANK,
    CREATION_DICE,
    CREATION_SKILL_RANKS,
    CREATION_SPECIALTIES,
    CREST_SLOTS,
    DICE,
    MAX_CREST,
    MAX_SKILL,
    MAX_SPECIALTY,
    STATS,
    CrestCategory,
    Skill,
    Stat,
    WeaponKind,
)
from rules.crest_magia.options import CrestMagiaOptions
from rules.exchange import RuleError, Text
from rules.sheets import SheetError, SheetProblem, validation_problems
from rules.text import REASON_LIMIT, Name

# Values the bot derives from the file: a player never types them (compared case-insensitively).
DERIVED_FIELDS = frozenset({"hp", "hp_max", "consequence", "destiny_points", "effective_die"})


def _die(value: object) -> object:
    """A die written as `d8` or `8`."""
    if isinstance(value, str) and value.strip().lower().startswith("d") and value.strip()[1:].isdigit():
        return int(value.strip()[1:])
    return value


def _a_die(value: int) -> int:
    if value not in DICE:
        raise PydanticCustomError("not_a_die", "{value} is not one of the dice d4, d6, d8, d10, d12", {"value": value})
    return value


def _ladder(value: object) -> object:
    """A crest's ladder keyed by rank, written `1:` in YAML or `"1":` in JSON (a stored sheet's keys are text)."""
    if not isinstance(value, Mapping):
        return value
    ladder: dict[int, object] = {}
    for rank, capability in value.items():
        written = str(rank).strip()
        if isinstance(rank, bool) or not written.isdigit() or not 1 <= int(written) <= MAX_CREST:
            raise PydanticCustomError(
                "ladder_rank", "{rank} is not a crest rank, 1 to {max}", {"rank": written, "max": MAX_CREST}
            )
        ladder[int(written)] = capability
    return ladder


Die = Annotated[int, BeforeValidator(_die), AfterValidator(_a_die)]
SkillRank = Annotated[int, Field(ge=0, le=MAX_SKILL)]
SpecialtyRank = Annotated[int, Field(ge=1, le=MAX_SPECIALTY)]
CrestRank = Annotated[int, Field(ge=1, le=MAX_CREST)]
Rating = Annotated[int, Field(ge=0, le=20)]
DamageType = Annotated[str, Field(min_length=1, max_length=40)]
Capability = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=REASON_LIMIT)]


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Specialty(_File):
    name: Name
    skill: Skill
    rank: SpecialtyRank = 1


class CrestSpecialty(_File):
    name: Name
    rank: SpecialtyRank = 1


class Crest(_File):
    """A crest; one of the rulebook's (T8) may be named alone, in any case, and the book gives the rest."""

    name: Name
    category: CrestCategory
    damage_type: DamageType | None = None
    rank: CrestRank = CREATION_CREST_RANK
    specialties: list[CrestSpecialty] = Field(default_factory=list, max_length=10)
    # R13/T8: what the crest can do at each rank (the GM's words; the rulebook's for the Crest of Flames).
    ladder: Annotated[dict[int, Capability], BeforeValidator(_ladder)] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_the_book(cls, data: object) -> object:
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            return data
        named = {name.casefold(): name for name in BOOK_CRESTS}.get(data["name"].strip().casefold())
        if named is None:
            return data
        category, damage_type = BOOK_CRESTS[named]
        return {"category": category, "damage_type": damage_type, **data, "name": named}

    @property
    def from_the_book(self) -> bool:
        """Whether this is one of the rulebook's crests as the book makes it (T8), not one a player invented."""
        return BOOK_CRESTS.get(self.name) == (self.category, self.damage_type)

    def specialty(self, name: str) -> CrestSpecialty:
        """The specialty of this crest by name, in any case; a RuleError when there is none."""
        wanted = name.strip().casefold()
        found = next((s for s in self.specialties if s.name.casefold() == wanted), None)
        if found is None:
            raise RuleError("no_such_crest_specialty", name=name, crest=self.name)
        return found


class ItemCrest(Crest):
    """C27: a crest in an item; it takes no slot, and the GM sets its uses (None: unlimited)."""

    uses_left: int | None = Field(None, ge=0, le=100)


class Weapon(_File):
    name: Name
    kind: WeaponKind
    rating: Rating = 0  # GM-defined (C10)
    damage_type: DamageType | None = None


class Armor(_File):
    name: Name
    rating: Rating = 0  # GM-defined (C10)


class CharacterFile(_File):
    name: Name
    dice: dict[Stat, Die]
    skills: dict[Skill, SkillRank] = Field(default_factory=dict)
    specialties: list[Specialty] = Field(default_factory=list, max_length=40)
    crests: list[Crest] = Field(default_factory=list, max_length=CREST_SLOTS)  # R13: no way to more
    item_crests: list[ItemCrest] = Field(default_factory=list, max_length=10)
    weapons: list[Weapon] = Field(default_factory=list, max_length=20)
    armor: Armor | None = None
    weaknesses: list[DamageType] = Field(default_factory=list, max_length=20)
    resistances: list[DamageType] = Field(default_factory=list, max_length=20)

    def skill(self, name: Skill) -> int:
        return self.skills.get(name, 0)

    def specialty(self, skill: Skill | None, name: str) -> Specialty:
        """The specialty of that skill by name, in any case (with no skill named, the one specialty of that name
        the character has); a RuleError when there is none."""
        wanted = name.strip().casefold()
        named = [s for s in self.specialties if s.name.casefold() == wanted and skill in (None, s.skill)]
        if len(named) != 1:
            raise (
                RuleError("no_such_specialty", name=name, skill=Text(f"skill.{skill}"))
                if skill
                else RuleError("which_specialty", name=name)
            )
        return named[0]


def character_problems(
    data: Mapping[str, object], options: CrestMagiaOptions, *, creation: bool = True
) -> list[SheetProblem]:
    """Every problem of a new character's file: the model's (the caps, T7), then R12's creation budget (T6) unless
    `creation` is off: the budget is the players' ("each character gets"), apart from "each character, creature and
    NPC" of the crest slots, so what the GMs make keeps the caps alone."""
    problems = [SheetProblem(key, "derived_field") for key in data if str(key).lower() in DERIVED_FIELDS]
    clean = {key: value for key, value in data.items() if str(key).lower() not in DERIVED_FIELDS}
    try:
        sheet = CharacterFile.model_validate(clean)
    except ValidationError as error:
        return problems + validation_problems(error)
    missing = stats_missing(sheet)
    problems += [missing] if missing else []
    return problems + (creation_problems(sheet, options) if creation else [])


def stats_missing(sheet: CharacterFile) -> SheetProblem | None:
    """Every stat has a die, in any file."""
    missing = [stat for stat in STATS if stat not in sheet.dice]
    return SheetProblem("dice", "stats_missing", {"stats": ", ".join(missing)}) if missing else None


def creation_problems(sheet: CharacterFile, options: CrestMagiaOptions) -> list[SheetProblem]:
    problems: list[SheetProblem] = []
    if stats_missing(sheet) is None and sorted(sheet.dice.values()) != sorted(CREATION_DICE):
        shown = ", ".join(f"d{die}" for die in sorted(sheet.dice.values()))
        problems.append(SheetProblem("dice", "creation_dice", {"dice": shown}))
    counts = Counter(rank for rank in sheet.skills.values() if rank)
    if counts != Counter(CREATION_SKILL_RANKS):
        extra = sum(count for rank, count in counts.items() if rank not in CREATION_SKILL_RANKS)
        ranks: dict[str, int | str] = {"three": counts[3], "two": counts[2], "one": counts[1], "other": extra}
        problems.append(SheetProblem("skills", "creation_skills", ranks))
    if len(sheet.specialties) != CREATION_SPECIALTIES:
        problems.append(SheetProblem("specialties", "creation_specialties", {"count": len(sheet.specialties)}))
    seen: set[tuple[str, str]] = set()
    for index, specialty in enumerate(sheet.specialties):
        if specialty.rank != 1:
            problems.append(SheetProblem(f"specialties.{index}.rank", "creation_specialty_rank"))
        if options.specialty_requires_rank1 and sheet.skill(specialty.skill) == 0:
            problems.append(
                SheetProblem(f"specialties.{index}.skill", "specialty_on_rank0", {"skill": specialty.skill})
            )
        key = (specialty.skill, specialty.name.casefold())
        if key in seen:
            problems.append(SheetProblem(f"specialties.{index}.name", "duplicate_name", {"name": specialty.name}))
        seen.add(key)
    if len(sheet.crests) != 1:
        problems.append(SheetProblem("crests", "creation_crests", {"count": len(sheet.crests)}))
    for index, crest in enumerate(sheet.crests):
        if crest.rank != CREATION_CREST_RANK:
            problems.append(SheetProblem(f"crests.{index}.rank", "creation_crest_rank", {"rank": crest.rank}))
        if crest.specialties:
            problems.append(SheetProblem(f"crests.{index}.specialties", "creation_crest_specialties"))
    return problems


def parse_character(data: Mapping[str, Any], options: CrestMagiaOptions, *, creation: bool = True) -> CharacterFile:
    problems = character_problems(data, options, creation=creation)
    if problems:
        raise SheetError(problems)
    return CharacterFile.model_validate(data)
