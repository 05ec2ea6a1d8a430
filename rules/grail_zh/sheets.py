"""Character files (Masters, Servants) and their validation, field by field (R8, R9, R17, R18)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from rules.grail_zh.model import (
    ATTRIBUTE_BUDGET,
    ATTRIBUTE_MAX,
    ATTRIBUTE_MIN,
    GENERAL_SPELLS,
    SIGNATURE_DAMAGE_CAP,
    SKILLS,
    SPELL_COUNT,
    STATS,
    Attribute,
    CasterSpell,
    MasterType,
    NPMode,
    SaveStat,
    Scope,
    ServantClass,
    Spell,
    Stat,
)
from rules.grail_zh.ranks import MAX_PLUSES, Rank, RankError
from rules.sheets import SheetError, SheetProblem, validation_problems
from rules.text import Name

EX_MAGNITUDE = 6  # D6: an EX skill's X, for what a file may hold (a campaign's `ex_value` only moves effects)

_DAMAGE = re.compile(r"^\s*(\d{1,2})\s*[dD]\s*(\d{1,3})\s*(?:([+-])\s*(\d{1,3}))?\s*$")


def _rank(value: object) -> object:
    if isinstance(value, Rank):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError("grail_rank", "{value} is not a rank", {"value": str(value)})
    try:
        return Rank.parse(value)
    except RankError:
        raise PydanticCustomError("grail_rank", "{value} is not a rank", {"value": value}) from None


RankField = Annotated[Rank, BeforeValidator(_rank), PlainSerializer(str, return_type=str)]


class Damage(BaseModel):
    """Dice of damage written `NdS+B` (`5d12+9`, `1d4`, `3d6-1`)."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=1, le=60)
    sides: int = Field(ge=2, le=100)
    bonus: int = 0

    @model_validator(mode="before")
    @classmethod
    def _written(cls, data: object) -> object:
        if not isinstance(data, str):
            return data
        match = _DAMAGE.match(data)
        if match is None:
            raise PydanticCustomError("grail_damage", "{value} is not damage like 2d6+3", {"value": data})
        count, sides, sign, bonus = match.groups()
        return {"count": int(count), "sides": int(sides), "bonus": int(f"{sign}{bonus}") if bonus else 0}

    @property
    def maximum(self) -> int:
        return self.count * self.sides + self.bonus

    def plus(self, bonus: int) -> Damage:
        return Damage(count=self.count, sides=self.sides, bonus=self.bonus + bonus)

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}{self.bonus:+d}" if self.bonus else f"{self.count}d{self.sides}"


DamageField = Annotated[Damage, PlainSerializer(str, return_type=str)]
Kind = Annotated[str, Field(min_length=1, max_length=40)]


class _File(BaseModel):
    # strict: a sheet typed "3" for an attribute is a mistake worth reporting, not something to guess about.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class SignatureFeat(_File):
    """A Master's own magecraft, mystic code or trick (GM-approved); direct damage at most 25."""

    name: Name
    effect: str = Field("", max_length=500)
    damage: DamageField | None = None


class MasterFile(_File):
    name: Name
    master_type: MasterType
    attributes: dict[Attribute, int] = Field(default_factory=dict)
    mp_attr: Literal["int", "wis"] = "int"
    spell_attr: Literal["int", "wis", "cha"] | None = None
    general_spells: list[Spell] = Field(default_factory=list, max_length=6)
    signature_feat: SignatureFeat | None = None
    creature: list[Kind] = Field(default_factory=list, max_length=10)  # what a slayer may name (R18): human...

    def attribute(self, name: Attribute) -> int:
        return self.attributes.get(name, 0)

    @property
    def attack_attribute(self) -> Attribute:
        """The attribute of its attack magecraft, declared once (D12); its MP attribute unless it names another."""
        return self.spell_attr or self.mp_attr

    @property
    def spells(self) -> tuple[Spell, ...]:
        return GENERAL_SPELLS if self.master_type == "magus" else tuple(self.general_spells)


class SkillEntry(_File):
    """A skill or trait: one the rules know (by its identifier or its name in any language, given by the bot), or
    the Servant's own, whose effect the GM rules on. `target` is what a resistance, a slayer or a rank boost is
    about (an attack type, a kind of creature, a stat)."""

    name: Name
    rank: RankField
    target: Name | None = None
    effect: str = Field("", max_length=500)

    @property
    def known(self) -> bool:
        return self.name in SKILLS


class NoblePhantasm(_File):
    name: Name
    rank: RankField
    scope: Scope = "anti_unit"
    scope_multiplier: int = Field(1, ge=1, le=20)  # for a scope of "other", the GM's multiplier of its cost
    needs_release: bool = True
    mode: NPMode = "one_shot"
    resolution: Literal["attack_roll", "save", "auto"] = "attack_roll"
    save_stat: SaveStat = "MAG"
    attack_bonus: int | None = Field(None, ge=-10, le=20)  # D13: the NP's rank unless the GM sets one
    damage: DamageField | None = None  # T8 by its rank unless the GM sets one
    magecraft: bool = False  # D27: Magic Resistance applies
    ranged: bool = False
    damage_type: Annotated[str, Field(min_length=1, max_length=40)] | None = None  # for resistances (R18)
    effect: str = Field("", max_length=500)


class ServantFile(_File):
    name: Name
    master: Name | None = None  # the Master character's name; only a puppet has none (the binding requires one)
    servant_class: ServantClass
    legend: dict[Stat, RankField]
    mad_enhancement: RankField | None = None  # a Berserker's, chosen by its Master
    skills: list[SkillEntry] = Field(default_factory=list, max_length=25)
    noble_phantasms: list[NoblePhantasm] = Field(default_factory=list, max_length=10)
    creature: list[Kind] = Field(default_factory=list, max_length=10)  # what a slayer may name (R18): dragon...
    spells: list[CasterSpell] = Field(default_factory=list, max_length=10)  # T3, with Spellcasting (R22)
    stealth_legend: bool = True  # an Assassin without one has Presence Concealment a rank lower (R20)
    luck_rerolls: bool = True  # D35: the bot takes a Luck reroll the rank allows; False declines them

    def skill(self, name: str) -> SkillEntry | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    def phantasm(self, name: str) -> NoblePhantasm | None:
        wanted = name.strip().casefold()
        return next((np for np in self.noble_phantasms if np.name.casefold() == wanted), None)


class PuppetFile(_File):
    """A puppet soldier (R22, D33): treated as a Servant on the Caster's class row with every rank the same (its
    maker's MAG.n - 2 by the rules; the GM's to set), without skills, Noble Phantasms, upkeep or a Master."""

    name: Name
    rank: RankField
    creature: list[Kind] = Field(default_factory=list, max_length=10)

    def as_servant(self) -> ServantFile:
        return ServantFile(
            name=self.name, servant_class="caster", legend=dict.fromkeys(STATS, self.rank), creature=list(self.creature)
        )


class FamiliarFile(_File):
    """A familiar (R21, R22): 1 HP, speed 10 (a Caster's teleports), no stats of its own to roll; attacks against it
    are at -5."""

    name: Name
    teleports: bool = False
    creature: list[Kind] = Field(default_factory=list, max_length=10)

    def as_master(self) -> MasterFile:
        """Its body as the rules of mortals see it: an ordinary human whose every attribute is 0."""
        return MasterFile(name=self.name, master_type="ordinary", creature=list(self.creature))


def point_buy_problems(attributes: Mapping[str, int], *, ordinary: bool) -> list[SheetProblem]:
    """R8's point-buy: each attribute -5..5 (an ordinary human's has no upper limit), at most 10 points in all."""
    problems = []
    high = None if ordinary else ATTRIBUTE_MAX
    for name, value in attributes.items():
        if value < ATTRIBUTE_MIN or (high is not None and value > high):
            shown_high = "∞" if high is None else str(high)
            params: dict[str, int | str] = {"value": value, "min": ATTRIBUTE_MIN, "max": shown_high}
            problems.append(SheetProblem(f"attributes.{name}", "out_of_range", params))
    spent = sum(attributes.values())
    if spent > ATTRIBUTE_BUDGET:
        problems.append(SheetProblem("attributes", "grail_budget", {"spent": spent, "budget": ATTRIBUTE_BUDGET}))
    return problems


def master_problems(sheet: MasterFile) -> list[SheetProblem]:
    """R8: each attribute -5..5 (an ordinary human has no upper limit), at most 10 points in all, the Master
    type's number of general spells, and a signature feat's direct damage at most 25."""
    attributes = {str(name): value for name, value in sheet.attributes.items()}
    problems = point_buy_problems(attributes, ordinary=sheet.master_type == "ordinary")
    wanted = SPELL_COUNT[sheet.master_type]
    if sheet.master_type != "magus" and len(sheet.general_spells) != wanted:
        params: dict[str, int | str] = {"count": len(sheet.general_spells), "wanted": wanted}
        problems.append(SheetProblem("general_spells", "grail_spell_count", params))
    if len(set(sheet.general_spells)) != len(sheet.general_spells):
        problems.append(SheetProblem("general_spells", "grail_spell_twice"))
    feat = sheet.signature_feat
    if feat is not None and feat.damage is not None and feat.damage.maximum > SIGNATURE_DAMAGE_CAP:
        params = {"damage": str(feat.damage), "maximum": feat.damage.maximum, "cap": SIGNATURE_DAMAGE_CAP}
        problems.append(SheetProblem("signature_feat.damage", "grail_feat_damage", params))
    return problems


def servant_problems(sheet: ServantFile) -> list[SheetProblem]:
    """All five stats, Mad Enhancement for a Berserker only (its rank E..A), skills named once, at most three "+"
    in all (R17)."""
    problems = []
    if missing := [stat for stat in STATS if stat not in sheet.legend]:
        problems.append(SheetProblem("legend", "grail_stats_missing", {"stats": ", ".join(missing)}))
    if sheet.servant_class == "berserker" and sheet.mad_enhancement is None:
        problems.append(SheetProblem("mad_enhancement", "grail_mad_missing"))
    if sheet.servant_class != "berserker" and sheet.mad_enhancement is not None:
        problems.append(SheetProblem("mad_enhancement", "grail_mad_not_berserker"))
    if sheet.mad_enhancement is not None and (sheet.mad_enhancement.ex or sheet.mad_enhancement.x):
        problems.append(SheetProblem("mad_enhancement", "grail_mad_rank", {"value": str(sheet.mad_enhancement)}))
    seen: set[str] = set()
    for index, skill in enumerate(sheet.skills):
        if skill.name.casefold() in seen:
            problems.append(SheetProblem(f"skills.{index}.name", "duplicate_name", {"name": skill.name}))
        seen.add(skill.name.casefold())
        if skill.name in ("resist", "slayer", "rank_boost") and skill.target is None:
            problems.append(SheetProblem(f"skills.{index}.target", "grail_skill_target"))
        if skill.name == "rank_boost" and skill.target not in (None, *STATS):
            choices: dict[str, int | str] = {"value": str(skill.target), "choices": ", ".join(STATS)}
            problems.append(SheetProblem(f"skills.{index}.target", "invalid_choice", choices))
    names = [np.name.casefold() for np in sheet.noble_phantasms]
    for index, np in enumerate(sheet.noble_phantasms):
        if names.index(np.name.casefold()) != index:
            problems.append(SheetProblem(f"noble_phantasms.{index}.name", "duplicate_name", {"name": np.name}))
    problems += _spell_problems(sheet)
    pluses = sum(rank.pluses for rank in all_ranks(sheet))
    if pluses > MAX_PLUSES:
        problems.append(SheetProblem("legend", "grail_pluses", {"count": pluses, "max": MAX_PLUSES}))
    return problems


def _spell_problems(sheet: ServantFile) -> list[SheetProblem]:
    """R22: Spellcasting X picks X spells of T3 (a Caster 2X), each once."""
    if not sheet.spells:
        return []
    casting = sheet.skill("spellcasting")
    allowed = 0 if casting is None else casting.rank.magnitude(EX_MAGNITUDE)
    allowed *= 2 if sheet.servant_class == "caster" else 1
    problems = []
    if len(sheet.spells) > allowed:
        params: dict[str, int | str] = {"count": len(sheet.spells), "allowed": allowed}
        problems.append(SheetProblem("spells", "grail_spells_allowed", params))
    if len(set(sheet.spells)) != len(sheet.spells):
        problems.append(SheetProblem("spells", "grail_spell_twice"))
    return problems


def all_ranks(sheet: ServantFile) -> list[Rank]:
    """Every rank of the file: its stats, skills and Noble Phantasms."""
    return [*sheet.legend.values(), *(skill.rank for skill in sheet.skills), *(np.rank for np in sheet.noble_phantasms)]


def _validated(model: type[_File], data: Mapping[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise SheetError(validation_problems(error)) from error


def parse_master(data: Mapping[str, Any]) -> MasterFile:
    """The file's every problem at once: where the rest of it is malformed, its point-buy is judged as written."""
    try:
        sheet = MasterFile.model_validate(data)
    except ValidationError as error:
        problems = validation_problems(error)
        attributes = data.get("attributes")
        if isinstance(attributes, Mapping) and not any(p.field.startswith("attributes") for p in problems):
            written = {str(name): value for name, value in attributes.items() if type(value) is int}
            problems += point_buy_problems(written, ordinary=data.get("master_type") == "ordinary")
        raise SheetError(problems) from error
    if problems := master_problems(sheet):
        raise SheetError(problems)
    return sheet


def parse_servant(data: Mapping[str, Any]) -> ServantFile:
    sheet: ServantFile = _validated(ServantFile, data)
    if problems := servant_problems(sheet):
        raise SheetError(problems)
    return sheet


def parse_puppet(data: Mapping[str, Any]) -> PuppetFile:
    """A plain rank E..A: no EX, nothing over A and no "+" (a puppet's ranks are its maker's MAG less two)."""
    sheet: PuppetFile = _validated(PuppetFile, data)
    if sheet.rank.ex or sheet.rank.x or sheet.rank.pluses:
        raise SheetError([SheetProblem("rank", "grail_puppet_rank", {"value": str(sheet.rank)})])
    return sheet


def parse_familiar(data: Mapping[str, Any]) -> FamiliarFile:
    sheet: FamiliarFile = _validated(FamiliarFile, data)
    return sheet
