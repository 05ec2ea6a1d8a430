"""Character files of the anka game: Masters, Servants and other characters with a level, six parameters (GM-entered
numbers, D1, or rank letters through the campaign's `rank_scale`), and skills, Noble Phantasms and mystic codes as
structured effects."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from rules.grail_anka.model import PARAMS, Param, SkillKind, SkillTag, Timing
from rules.grail_anka.options import GrailAnkaOptions
from rules.sheets import SheetError, validation_problems
from rules.text import Name


def _ranked(value: object, info: ValidationInfo) -> object:
    """A rank letter on the campaign's scale as its number (D1); anything else is left to the number's checks."""
    options = (info.context or {}).get("options")
    if not isinstance(value, str) or not isinstance(options, GrailAnkaOptions):
        return value
    ranked = rank_value(value, options)
    if ranked is None:
        raise PydanticCustomError(
            "not_a_rank", "{value} is no rank of {scale}", {"value": value, "scale": options.rank_scale}
        )
    return ranked


ParamValue = Annotated[int, BeforeValidator(_ranked), Field(ge=0, le=1_000)]
Category = Annotated[str, Field(min_length=1, max_length=40)]
_RANK = re.compile(r"^(EX|[A-E])(\+*)$")


def rank_value(text: str, options: GrailAnkaOptions) -> int | None:
    """A rank letter ("B+", "EX") on the campaign's scale (D1), or None when it is no rank."""
    found = _RANK.match(text.strip().upper())
    if found is None:
        return None
    letter, pluses = found.groups()
    scale = options.rank_values()
    return None if letter not in scale else scale[letter] + options.rank_plus * len(pluses)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class SkillEffect(_File):
    """What a skill does, as the GM wrote it."""

    win_rate_delta: int = Field(0, ge=-100, le=100)
    param_delta: dict[Param, Annotated[int, Field(ge=-1_000, le=1_000)]] = Field(default_factory=dict)
    min_win_rate: int | None = Field(None, ge=0, le=100)
    # An assassination skill's success rate (R12).
    success_rate: int | None = Field(None, ge=0, le=100)
    # A counter-skill: cancels a normal skill or mystic code of the other side as it is used (R11).
    cancels: bool = False

    @property
    def numeric(self) -> bool:
        return bool(self.win_rate_delta or any(self.param_delta.values()) or self.min_win_rate is not None)


class Skill(_File):
    name: Name
    # Words in files, enums in code: the enums take their own values.
    kind: SkillKind = Field(SkillKind.NORMAL, strict=False)
    timing: Timing = Field(Timing.MAIN, strict=False)
    tags: list[Annotated[SkillTag, Field(strict=False)]] = Field(default_factory=list, max_length=3)
    category: Category | None = None
    uses_per_battle: int = Field(1, ge=1, le=10)
    fatigue_cost: int = Field(0, ge=0, le=20)
    effect: SkillEffect = Field(default_factory=SkillEffect)

    @model_validator(mode="after")
    def _coherent(self) -> Skill:
        if SkillTag.ASSASSINATION in self.tags and (self.timing != Timing.SETUP or self.effect.success_rate is None):
            raise PydanticCustomError("assassination_setup", "an assassination skill is used at setup with a rate")
        if SkillTag.RETREAT in self.tags and self.timing != Timing.POST_BATTLE:
            raise PydanticCustomError("retreat_post_battle", "a retreat skill is used after the battle")
        if self.effect.cancels and self.timing not in (Timing.SETUP, Timing.MAIN, Timing.CLEANUP):
            raise PydanticCustomError("counter_timing", "a counter-skill answers at setup, main or cleanup")
        return self


class CharacterFile(_File):
    name: Name
    level: int = Field(1, ge=1, le=1_000)
    params: dict[Param, ParamValue]
    skills: list[Skill] = Field(default_factory=list, max_length=30)

    @property
    def values(self) -> dict[str, int]:
        """The parameters by name, for arithmetic."""
        return {str(param): value for param, value in self.params.items()}

    @field_validator("params")
    @classmethod
    def _all_six(cls, value: dict[str, int]) -> dict[str, int]:
        missing = [param for param in PARAMS if param not in value]
        if missing:
            raise PydanticCustomError("params_missing", "missing {params}", {"params": ", ".join(missing)})
        return {param: value[param] for param in PARAMS}

    @field_validator("skills")
    @classmethod
    def _distinct(cls, value: list[Skill]) -> list[Skill]:
        names = [skill.name.casefold() for skill in value]
        if len(set(names)) != len(names):
            raise PydanticCustomError("skill_twice", "two skills have one name")
        return value


class MasterFile(CharacterFile):
    pass


class ServantFile(CharacterFile):
    master: Name | None = None
    servant_class: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class OtherFile(CharacterFile):
    pass


FILES: dict[str, type[CharacterFile]] = {"master": MasterFile, "servant": ServantFile, "other": OtherFile}


def parse_file(kind: str, data: Mapping[str, Any], options: GrailAnkaOptions) -> CharacterFile:
    try:
        return FILES[kind].model_validate(dict(data), context={"options": options})
    except ValidationError as error:
        raise SheetError(validation_problems(error)) from error
