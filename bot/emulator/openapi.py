"""Request bodies checked against Discord's own OpenAPI description of its HTTP API.

The description (discord_api/openapi.json, OpenAPI 3.1, whose schemas are JSON Schema 2020-12) is read
once per process, when the first request arrives; each operation's validator is built once and kept. A
body that breaks its operation's `requestBody` schema is refused the way Discord refuses it: 400, code
50035 "Invalid Form Body", with the nested `errors` tree naming each bad field.

The schemas are read as Discord's API reads bodies, as its description's own conventions say:
- an integer field also takes a string that reads as an integer, and a snowflake (a string of digits)
  also takes an integer, which is how discord.py sends ids;
- every union (`oneOf` or `anyOf`) means one of its members: a body fits it when it fits one member, which
  is how Discord tells its discriminated unions apart (by their `type`), so a union is checked as `anyOf`;
  a union of constants is an `enum`;
- `format` is an annotation, not checked (Discord's own checks of URLs and dates are not described).

Checking costs what jsonschema spends descending into subschemas, so the schemas are prepared for it (with
the same verdicts): references are resolved once, in place; a union tries only the members of the value's
`type`, and `null` last; a component's `type` does not check again the enum of every component type; and a
property that its plain schema (a type, bounds, an enum) admits is not descended into.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from bot.emulator.validation import ErrorTree

SPEC_FILE: Final = "openapi.json"
SPEC_DIRECTORY: Final = "discord_api"
_SPEC_URI: Final = "urn:discord-api-spec"
_METHODS: Final = frozenset({"get", "head", "post", "put", "patch", "delete"})
_JSON: Final = "application/json"
_SNOWFLAKE_MAX: Final = 2**64 - 1
_INTEGER_TEXT: Final = re.compile(r"-?[0-9]+")
_ANNOTATIONS: Final = frozenset({"title", "description"})


def _is_integer(checker: Any, instance: object) -> bool:
    return Draft202012Validator.TYPE_CHECKER.is_type(instance, "integer") or (
        isinstance(instance, str) and _INTEGER_TEXT.fullmatch(instance) is not None
    )


_ANY_OF: Final = Draft202012Validator.VALIDATORS["anyOf"]


def _any_of_this_kind(
    validator: Validator, members: list[Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """Only the members declaring the value's `type` are tried, as Discord tells its unions apart by it."""
    if isinstance(instance, dict):
        kind = instance.get("type")
        this_kind = [member for member in members if _admits(member, kind)]
        members = this_kind or members
    yield from _ANY_OF(validator, members, instance, schema)


def _admits(member: dict[str, Any], kind: object) -> bool:
    declared = member.get("properties", {}).get("type", {}).get("enum")
    return declared is None or kind in declared


_LEAF_KEYWORDS: Final = frozenset(
    {"type", "enum", "minLength", "maxLength", "minimum", "maximum", "format", *_ANNOTATIONS}
)


def _properties_leaves_first(
    # A validator of DiscordValidator's class: jsonschema types its `descend` on no public class.
    validator: Any,
    properties: Mapping[str, Any],
    instance: Any,
    schema: Mapping[str, Any],
) -> Iterator[ValidationError]:
    """jsonschema's `properties`, except that a property its schema plainly admits is not descended into:
    descending costs more than such a check, and most of a request's properties are such leaves."""
    if not validator.is_type(instance, "object"):
        return
    for name, subschema in properties.items():
        if name in instance and not _plainly_admits(validator, subschema, instance[name]):
            yield from validator.descend(instance[name], subschema, path=name, schema_path=name)


def _plainly_admits(validator: Validator, schema: Any, value: Any) -> bool:
    """True only where jsonschema would find nothing wrong; anything else (a refusal, a doubt) descends."""
    if not isinstance(schema, dict) or not schema.keys() <= _LEAF_KEYWORDS:
        return False
    kinds = schema.get("type")
    if kinds is not None and not any(
        validator.is_type(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds)
    ):
        return False
    if isinstance(value, str) and not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        return False
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (schema.get("minimum", value) <= value <= schema.get("maximum", value))
    ):
        return False
    enum = schema.get("enum")
    return enum is None or value in enum


DiscordValidator: Final = validators.create(
    meta_schema=Draft202012Validator.META_SCHEMA,
    validators={**Draft202012Validator.VALIDATORS, "anyOf": _any_of_this_kind, "properties": _properties_leaves_first},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


def _spec_text() -> str:
    return resources.files("bot.emulator").joinpath(SPEC_DIRECTORY, SPEC_FILE).read_text(encoding="utf-8")


def _as_discord_reads_it(node: Any) -> Any:
    """The description with unions, enums and snowflakes read as the module docstring says."""
    if isinstance(node, list):
        return [_as_discord_reads_it(item) for item in node]
    if not isinstance(node, dict):
        return node
    schema = {key: _as_discord_reads_it(value) for key, value in node.items()}
    union = schema.pop("oneOf", None)
    if union is not None:
        if all(
            isinstance(member, dict) and "const" in member and set(member) <= {"const", *_ANNOTATIONS}
            for member in union
        ):
            schema["enum"] = [member["const"] for member in union]
        else:
            schema["anyOf"] = union
    if "anyOf" in schema:
        # `null` last: a value is rarely null, and the first member that fits ends the search.
        schema["anyOf"].sort(key=lambda member: member == {"type": "null"})
    if schema.get("format") == "snowflake" and schema.get("type") == "string":
        schema |= {"type": ["string", "integer"], "minimum": 0, "maximum": _SNOWFLAKE_MAX}
    return schema


def containers(document: Any) -> Iterator[Any]:
    """Each dict and list of `document` once, though a recursive schema reaches itself again."""
    seen: set[int] = set()
    pending = [document]
    while pending:
        node = pending.pop()
        if id(node) in seen or not isinstance(node, dict | list):
            continue
        seen.add(id(node))
        yield node
        pending.extend(node.values() if isinstance(node, dict) else node)


def _inline_references(document: Any) -> None:
    """Put each referenced schema in place of its `$ref` (the one object, so a recursive schema becomes a cycle):
    the validators then never resolve a reference while they check a request, which was most of their cost."""
    resolver = Registry().with_resource(_SPEC_URI, DRAFT202012.create_resource(document)).resolver(_SPEC_URI)
    for node in containers(document):
        for key, child in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(child, dict) and "$ref" in child:
                # Its only siblings in the description are descriptions.
                node[key] = resolver.lookup(child["$ref"]).contents
    for node in containers(document):
        if isinstance(node, dict) and "allOf" in node and all(_implied(node, member) for member in node["allOf"]):
            # A component's `type: enum [2]` also refers to the enum of every component type: a check that
            # cannot fail once its own has passed, made for each component of every request.
            del node["allOf"]


def _implied(schema: dict[str, Any], member: Any) -> bool:
    """Whatever passes `schema`'s own type and enum passes `member`, which checks nothing else."""
    return (
        isinstance(member, dict)
        and set(member) <= {"type", "enum", "format", *_ANNOTATIONS}
        and "enum" in schema
        and schema.get("type") == member.get("type")
        and all(value in member.get("enum", [value]) for value in schema["enum"])
    )


@dataclass(frozen=True, eq=False)
class Operation:
    """One operation of the description; `schema` is its JSON request body's, None if it takes none."""

    template: str
    operation_id: str
    schema: Any


# A path template's segments, None for a parameter.
Segments = tuple[str | None, ...]


@dataclass(frozen=True)
class Description:
    """The operations by method and number of path segments, those with more literal segments first."""

    operations: dict[tuple[str, int], list[tuple[Segments, Operation]]]

    def find(self, method: str, path: str) -> Operation | None:
        """The operation for `method` on `path` (below the API's version prefix); literal segments win."""
        segments = path.strip("/").split("/")
        for template, operation in self.operations.get((method.lower(), len(segments)), []):
            if all(part is None or part == segment for part, segment in zip(template, segments, strict=True)):
                return operation
        return None


@cache
def description() -> Description:
    document = _as_discord_reads_it(json.loads(_spec_text()))
    _inline_references(document)
    operations: dict[tuple[str, int], list[tuple[Segments, Operation]]] = defaultdict(list)
    for template, item in document["paths"].items():
        parts = tuple(None if part.startswith("{") else part for part in template.strip("/").split("/"))
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            content = operation.get("requestBody", {}).get("content", {})
            # A multipart body carries its fields in `payload_json`, which the JSON schema describes.
            schema = content.get(_JSON, {}).get("schema")
            found = Operation(template, operation["operationId"], schema)
            operations[(method, len(parts))].append((parts, found))
    for candidates in operations.values():
        candidates.sort(key=lambda candidate: [part is None for part in candidate[0]])
    return Description(dict(operations))


@cache
def _validator(operation: Operation) -> Validator:
    return DiscordValidator(operation.schema)


def validate_request(method: str, path: str, body: Any) -> None:
    """Refuse `body` with Discord's 50035 error when it breaks the schema of the operation at `method path`."""
    operation = description().find(method, path)
    if operation is None or operation.schema is None:
        return
    validator = _validator(operation)
    if validator.is_valid(body):
        return
    tree = ErrorTree()
    # Once each: jsonschema reports a missing property once per property, and each report names them all.
    for where, code, message in dict.fromkeys(_discord_errors(validator.iter_errors(body))):
        tree.add(where, code, message)
    tree.raise_if_any()


# ---------------------------------------------------------------- Discord's error codes and messages

Path = tuple[str | int, ...]


def _discord_errors(errors: Iterable[ValidationError]) -> Iterator[tuple[Path, str, str]]:
    for error in errors:
        yield from _discord_error(error)


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _discord_error(error: ValidationError) -> Iterator[tuple[Path, str, str]]:
    path: Path = tuple(error.absolute_path)
    keyword, expected, value = error.validator, error.validator_value, error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    snowflake = schema.get("format") == "snowflake"
    if keyword == "anyOf":
        member = _member(error)
        if member is not None:
            yield from _discord_errors(member)
        else:
            yield path, "UNION_TYPE_CHOICES", _union_message(error)
    elif keyword == "required":
        for name in expected if isinstance(expected, list) else []:
            if isinstance(value, dict) and name not in value:
                yield (*path, name), "BASE_TYPE_REQUIRED", "This field is required"
    elif snowflake and keyword in ("type", "pattern", "minimum", "maximum"):
        yield path, "NUMBER_TYPE_COERCE", f'Value "{_shown(value)}" is not snowflake.'
    elif keyword == "type":
        yield path, *_type_error(expected, value)
    elif keyword in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        yield path, *_length_error(keyword, schema)
    elif keyword == "minimum":
        yield path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {expected}."
    elif keyword == "maximum":
        yield path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {expected}."
    elif keyword in ("enum", "const"):
        yield path, "ENUM_TYPE_COERCE", f'Value "{_shown(value)}" is not a valid enum value.'
    elif keyword == "pattern":
        yield path, "STRING_TYPE_REGEX", "String value did not match validation regex."
    elif keyword == "uniqueItems":
        yield path, "SET_TYPE_ALREADY_CONTAINS_VALUE", "The set already contains this value."
    else:
        yield path, "BASE_TYPE_INVALID", "Invalid value."


_TYPE_ERRORS: Final = {
    "string": ("BASE_TYPE_STRING", "Must be a string."),
    "boolean": ("BASE_TYPE_BOOLEAN", "Must be either true or false."),
    "object": ("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType"),
    "array": ("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType"),
}


def _type_error(expected: object, value: object) -> tuple[str, str]:
    names = [expected] if isinstance(expected, str) else list(expected) if isinstance(expected, list) else []
    wanted = next((name for name in names if name != "null"), "null")
    if wanted == "integer":
        return "NUMBER_TYPE_COERCE", f'Value "{_shown(value)}" is not int.'
    if wanted == "number":
        return "NUMBER_TYPE_COERCE", f'Value "{_shown(value)}" is not a valid number.'
    return _TYPE_ERRORS.get(wanted, ("BASE_TYPE_INVALID", "Invalid value."))


def _length_error(keyword: str, schema: dict[str, Any]) -> tuple[str, str]:
    """Discord says "between" when a field has both bounds, else the bound it broke."""
    measure = keyword.removeprefix("min").removeprefix("max")
    low, high = schema.get(f"min{measure}", 0), schema.get(f"max{measure}")
    if low and high is not None:
        return "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length."
    if keyword.startswith("max"):
        return "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length."
    return "BASE_TYPE_MIN_LENGTH", f"Must be {low} or more in length."


def _members(error: ValidationError) -> list[list[ValidationError]]:
    by_member: dict[int, list[ValidationError]] = defaultdict(list)
    for sub in error.context or []:
        by_member[int(sub.relative_schema_path[0])].append(sub)
    return [by_member[index] for index in sorted(by_member)]


def _is_null_member(errors: list[ValidationError]) -> bool:
    return len(errors) == 1 and errors[0].validator == "type" and errors[0].validator_value == "null"


def _rejects_kind(error: ValidationError) -> bool:
    """The member is of another kind than the value: another JSON type, or another `type` discriminator."""
    return (error.validator == "type" and not error.path) or (
        error.validator in ("enum", "const") and list(error.path) == ["type"]
    )


def _member(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the union member the value was meant to be, as Discord picks it; None if no member fits."""
    members = [errors for errors in _members(error) if not _is_null_member(errors)]
    same_kind = [errors for errors in members if not any(_rejects_kind(sub) for sub in errors)]
    if same_kind:
        return min(same_kind, key=len)
    return members[0] if len(members) == 1 else None


def _union_message(error: ValidationError) -> str:
    kinds = {
        kind
        for errors in _members(error)
        for sub in errors
        if sub.validator == "enum" and list(sub.path) == ["type"] and isinstance(sub.validator_value, list)
        for kind in sub.validator_value
    }
    if kinds:
        return f'Value of field "type" must be one of ({", ".join(str(kind) for kind in sorted(kinds))}).'
    return "Value matches none of the allowed types."
