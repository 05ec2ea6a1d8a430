"""A ruleset's own inputs to a shared command, given as `name:value` words in its `details` option.

Discord fixes a command's options when it is synced, the same in every channel, so `/check` and `/attack`
keep the options every ruleset shares and take the rest (Fate/Points' `attacks:2 rank:C confirm`) as text,
validated by the ruleset's pydantic model (`rules.play.CommandInput`) and autocompleted from it.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from bot.errors import SheetRefused
from rules.play import CommandInput
from rules.sheets import SheetProblem, validation_problems

InputT = TypeVar("InputT", bound=CommandInput)


def own_fields(model: type[CommandInput], base: type[CommandInput]) -> dict[str, FieldInfo]:
    """The fields a ruleset added to the shared command's inputs: the ones `details` carries."""
    return {name: info for name, info in model.model_fields.items() if name not in base.model_fields}


def parse_details(text: str | None) -> dict[str, str]:
    """`attacks:2 rank:C confirm` as {"attacks": "2", "rank": "C", "confirm": "true"}; a bare word is a flag."""
    found: dict[str, str] = {}
    for word in (text or "").split():
        name, separator, value = word.partition(":")
        found[name.strip().lower()] = value.strip() if separator else "true"
    return found


def command_input(
    model: type[InputT],
    base: type[CommandInput],
    given: Mapping[str, object],
    details: str | None,
    context: Mapping[str, object] | None = None,
) -> InputT:
    """The ruleset's inputs from the command's options and its `details`; every bad part named, in one refusal.
    `context` is the validation context of the ruleset's names (`Play.spelled`)."""
    extra = parse_details(details)
    fields = own_fields(model, base)
    problems = [SheetProblem(name, "unknown_detail") for name in extra if name not in fields]
    try:
        given_all = {**given, **{name: value for name, value in extra.items() if name in fields}}
        parsed = model.model_validate(given_all, context=context)
    except ValidationError as error:
        problems += validation_problems(error)
    if problems:
        raise SheetRefused("error.bad_details", problems)
    return parsed


def _choices(annotation: Any) -> list[str]:
    """The values a field accepts, where they are few (a Literal, a bool)."""
    if annotation is bool:
        return ["true", "false"]
    origin = get_origin(annotation)
    if origin is Literal:
        return [str(value) for value in get_args(annotation)]
    if origin in (Union, types.UnionType):
        return [choice for arg in get_args(annotation) if arg is not type(None) for choice in _choices(arg)]
    return []


def suggestions(model: type[CommandInput], base: type[CommandInput], current: str) -> list[tuple[str, str | None]]:
    """Completions of a `details` text: (the whole text with one more word, the catalog key of its help).

    The last word, if unfinished, is completed: a field's name, or one of its values after `name:`.
    """
    fields = own_fields(model, base)
    words = current.split()
    finished = not words or current.endswith(" ")
    head = " ".join(words if finished else words[:-1])
    last = "" if finished else words[-1]
    used = {word.partition(":")[0].lower() for word in (words if finished else words[:-1])}
    prefix = f"{head} " if head else ""
    found: list[tuple[str, str | None]] = []
    name, separator, partial = last.partition(":")
    if separator and name.lower() in fields:
        info = fields[name.lower()]
        found = [
            (f"{prefix}{name.lower()}:{value}", info.description)
            for value in _choices(info.annotation)
            if value.lower().startswith(partial.lower())
        ]
        return found or [(f"{prefix}{last}", info.description)]
    for field_name, info in fields.items():
        if field_name in used or not field_name.startswith(last.lower()):
            continue
        word = field_name if info.annotation is bool else f"{field_name}:"
        found.append((f"{prefix}{word}", info.description))
    return found
