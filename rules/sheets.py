"""What every ruleset's file and parameter validation reports: one problem per bad field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import get_args

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType


@dataclass(frozen=True)
class SheetProblem:
    """One bad field: `field` is a dotted path ("STR", "weapons.1.type"), `code` is localized with `params`."""

    field: str
    code: str
    params: dict[str, int | str] = dataclass_field(default_factory=dict)


class SheetError(Exception):
    """A sheet with problems; carries every one of them."""

    def __init__(self, problems: list[SheetProblem]) -> None:
        super().__init__(problems)
        self.problems = problems


_TYPE_NAMES = {
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "string_type": "text",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "list",
    "dict_type": "mapping",
    "model_type": "mapping",
    "model_attributes_type": "mapping",
}
_PYDANTIC_ERRORS = frozenset(get_args(ErrorType))
_QUOTED = re.compile(r"'([^']*)'")


def validation_problems(error: ValidationError) -> list[SheetProblem]:
    return [_translate(detail) for detail in error.errors()]


def _translate(detail: ErrorDetails) -> SheetProblem:
    """A pydantic error as our own stable code, so the bot can localize it without knowing pydantic."""
    location = [str(part) for part in detail["loc"] if part != "[key]"]
    path = ".".join(location)
    kind = detail["type"]
    context = detail.get("ctx", {})
    value = detail["input"]
    if kind == "extra_forbidden":
        return SheetProblem(path, "unknown_field")
    if kind == "missing":
        return SheetProblem(path, "missing")
    if kind in {"literal_error", "enum"}:
        choices = ", ".join(_QUOTED.findall(str(context.get("expected", ""))))
        shown = location[-1] if detail["loc"][-1] == "[key]" else str(value)
        return SheetProblem(path, "invalid_choice", {"value": shown, "choices": choices})
    if kind in _TYPE_NAMES:
        return SheetProblem(path, "wrong_type", {"expected": _TYPE_NAMES[kind]})
    if kind == "string_too_short":
        return SheetProblem(path, "empty")
    if kind == "string_too_long":
        return SheetProblem(path, "too_long", {"max": str(context.get("max_length"))})
    if kind == "too_long":  # a list
        return SheetProblem(path, "too_many", {"max": str(context.get("max_length"))})
    if kind == "greater_than_equal":
        return SheetProblem(path, "too_small", {"value": str(value), "min": str(context.get("ge"))})
    if kind == "less_than_equal":
        return SheetProblem(path, "too_large", {"value": str(value), "max": str(context.get("le"))})
    if kind not in _PYDANTIC_ERRORS:  # raised by a ruleset's own validators, with their words
        return SheetProblem(path, kind, {key: item for key, item in context.items() if isinstance(item, int | str)})
    return SheetProblem(path, "invalid", {"detail": kind})
