"""Discord's request limits, enforced with Discord's status codes and error bodies.

Every rejection is an `ApiError`; the REST layer turns it into the JSON body discord.py parses
into `HTTPException.code` / `.text`. Limits come from Discord's API reference (message, embed,
component, application command and modal pages).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from bot.emulator.models import JSON, iter_components

INVALID_FORM_BODY: Final = 50035
EMPTY_MESSAGE: Final = 50006

COMMAND_SIZE_LIMIT: Final = 8000
MAX_COMMANDS_PER_TYPE: Final = {1: 100, 2: 15, 3: 15}

VALID_LOCALES: Final = frozenset(
    {
        "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl",
        "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja",
        "zh-TW", "ko",
    }
)  # fmt: skip

# Discord's documented pattern is ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$. Python's `re` has no
# \p classes: `[^\W]` covers letters, digits and underscore (plus combining marks, which Devanagari
# and Thai need), so the pattern below is the same set for the scripts a bot realistically uses.
_CHAT_INPUT_NAME: Final = re.compile(r"^[-'\w\u0900-\u097f\u0e00-\u0e7f]{1,32}$")

OPTION_SUB_COMMAND: Final = 1
OPTION_SUB_COMMAND_GROUP: Final = 2
OPTION_STRING: Final = 3
OPTION_INTEGER: Final = 4
OPTION_NUMBER: Final = 10
_OPTION_TYPES: Final = frozenset(range(1, 12))


class ApiError(Exception):
    """A rejected request: HTTP status, Discord JSON error code, message and `errors` tree."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        body: JSON = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


class ErrorTree:
    """Collects field errors into Discord's nested `{"field": {"_errors": [...]}}` shape."""

    def __init__(self) -> None:
        self.tree: JSON = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def raise_if_any(self) -> None:
        if self.tree:
            raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", self.tree)


def form_error(path: tuple[str | int, ...], code: str, message: str) -> ApiError:
    tree = ErrorTree()
    tree.add(path, code, message)
    return ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", tree.tree)


def _check_length(
    errors: ErrorTree, path: tuple[str | int, ...], value: object, low: int, high: int, *, required: bool = True
) -> None:
    if value is None:
        if required:
            errors.add(path, "BASE_TYPE_REQUIRED", "This field is required")
        return
    if not isinstance(value, str):
        errors.add(path, "BASE_TYPE_STRING", "Must be a string.")
        return
    if len(value) > high:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
    elif len(value) < low:
        errors.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {low} or more in length.")


def _check_bad_length(
    errors: ErrorTree, path: tuple[str | int, ...], value: object, low: int, high: int, *, required: bool = True
) -> None:
    """Like `_check_length` but with the combined message Discord uses for names and descriptions."""
    if isinstance(value, str) and not low <= len(value) <= high:
        errors.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
    else:
        _check_length(errors, path, value, low, high, required=required)


# ---------------------------------------------------------------- application commands


def _check_name(errors: ErrorTree, path: tuple[str | int, ...], name: object, *, chat_input: bool) -> None:
    if not isinstance(name, str):
        _check_length(errors, path, name, 1, 32)
        return
    if not 1 <= len(name) <= 32:
        errors.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
        return
    if chat_input:
        if not _CHAT_INPUT_NAME.match(name):
            errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        elif name != name.lower():
            errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase")


def _check_localizations(
    errors: ErrorTree,
    path: tuple[str | int, ...],
    key: str,
    value: object,
    *,
    name: bool,
    chat_input: bool,
    high: int,
) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        errors.add((*path, key), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    for locale, text in value.items():
        where = (*path, key, locale)
        if locale not in VALID_LOCALES:
            errors.add(where, "ENUM_TYPE_COERCE", f"Value {locale!r} is not a valid enum value.")
        elif name:
            _check_name(errors, where, text, chat_input=chat_input)
        else:
            _check_bad_length(errors, where, text, 1, high)


def _longest(base: object, localizations: object) -> int:
    """Discord counts only the longest of a field's default and localized values toward the size limit."""
    lengths = [len(base)] if isinstance(base, str) else [0]
    if isinstance(localizations, dict):
        lengths.extend(len(v) for v in localizations.values() if isinstance(v, str))
    return max(lengths)


def _command_size(node: JSON) -> int:
    size = _longest(node.get("name"), node.get("name_localizations"))
    size += _longest(node.get("description"), node.get("description_localizations"))
    for choice in node.get("choices") or []:
        if isinstance(choice, dict):
            size += _longest(choice.get("name"), choice.get("name_localizations"))
            value = choice.get("value")
            size += len(value) if isinstance(value, str) else len(str(value))
    for option in node.get("options") or []:
        if isinstance(option, dict):
            size += _command_size(option)
    return size


def _check_choices(errors: ErrorTree, path: tuple[str | int, ...], option: JSON) -> None:
    choices = option.get("choices")
    if choices is None:
        return
    option_type = option.get("type")
    if option_type not in (OPTION_STRING, OPTION_INTEGER, OPTION_NUMBER):
        errors.add((*path, "choices"), "APPLICATION_COMMAND_OPTION_CHOICES_INVALID", "Option cannot have choices")
        return
    if not isinstance(choices, list):
        errors.add((*path, "choices"), "BASE_TYPE_ARRAY", "Must be an array.")
        return
    if len(choices) > 25:
        errors.add((*path, "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    if choices and option.get("autocomplete"):
        errors.add(
            (*path, "autocomplete"),
            "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_AND_CHOICES",
            "Autocomplete cannot be enabled on options that have choices",
        )
    for index, choice in enumerate(choices):
        where = (*path, "choices", index)
        if not isinstance(choice, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        _check_bad_length(errors, (*where, "name"), choice.get("name"), 1, 100)
        _check_localizations(
            errors,
            where,
            "name_localizations",
            choice.get("name_localizations"),
            name=False,
            chat_input=False,
            high=100,
        )
        value = choice.get("value")
        if option_type == OPTION_STRING:
            _check_bad_length(errors, (*where, "value"), value, 1, 100)
        elif option_type == OPTION_INTEGER and (not isinstance(value, int) or isinstance(value, bool)):
            errors.add((*where, "value"), "NUMBER_TYPE_COERCE", f"Value {value!r} is not int.")
        elif option_type == OPTION_NUMBER and (not isinstance(value, int | float) or isinstance(value, bool)):
            errors.add((*where, "value"), "NUMBER_TYPE_COERCE", f"Value {value!r} is not a valid number.")


def _check_option(errors: ErrorTree, path: tuple[str | int, ...], option: JSON, depth: int) -> None:
    option_type = option.get("type")
    if option_type not in _OPTION_TYPES:
        errors.add((*path, "type"), "ENUM_TYPE_COERCE", f"Value {option_type!r} is not a valid enum value.")
        return
    _check_name(errors, (*path, "name"), option.get("name"), chat_input=True)
    _check_bad_length(errors, (*path, "description"), option.get("description"), 1, 100)
    _check_localizations(
        errors, path, "name_localizations", option.get("name_localizations"), name=True, chat_input=True, high=32
    )
    _check_localizations(
        errors,
        path,
        "description_localizations",
        option.get("description_localizations"),
        name=False,
        chat_input=True,
        high=100,
    )
    _check_choices(errors, path, option)
    if option.get("autocomplete") and option_type not in (OPTION_STRING, OPTION_INTEGER, OPTION_NUMBER):
        errors.add(
            (*path, "autocomplete"),
            "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
            "Autocomplete is only available for string, integer and number options",
        )
    for bound in ("min_length", "max_length"):
        value = option.get(bound)
        if value is not None and (not isinstance(value, int) or not 0 <= value <= 6000):
            errors.add((*path, bound), "NUMBER_TYPE_MAX", "int value should be between 0 and 6000.")
    children = option.get("options")
    if option_type == OPTION_SUB_COMMAND_GROUP:
        if depth > 0:
            errors.add((*path, "type"), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Sub-command groups cannot nest")
        _check_options(errors, path, children, depth + 1, only_subcommands=True)
    elif option_type == OPTION_SUB_COMMAND:
        if depth > 1:
            errors.add((*path, "type"), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Sub-commands nest too deeply")
        _check_options(errors, path, children, depth + 1, only_values=True)
    elif children:
        errors.add((*path, "options"), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Only sub-commands have options")


def _check_options(
    errors: ErrorTree,
    path: tuple[str | int, ...],
    options: object,
    depth: int,
    *,
    only_subcommands: bool = False,
    only_values: bool = False,
) -> None:
    if options is None:
        return
    where = (*path, "options")
    if not isinstance(options, list):
        errors.add(where, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    if len(options) > 25:
        errors.add(where, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    nested = [isinstance(o, dict) and o.get("type") in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP) for o in options]
    if only_subcommands and not all(isinstance(o, dict) and o.get("type") == OPTION_SUB_COMMAND for o in options):
        errors.add(where, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Sub-command groups contain only sub-commands")
    elif only_values and any(nested):
        errors.add(where, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Sub-commands cannot contain sub-commands")
    elif any(nested) and not all(nested):
        errors.add(
            where,
            "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
            "Sub-commands and sub-command groups cannot be mixed with other options",
        )
    seen_optional = False
    names: set[str] = set()
    for index, option in enumerate(options):
        if not isinstance(option, dict):
            errors.add((*where, index), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        _check_option(errors, (*where, index), option, depth)
        name = option.get("name")
        if isinstance(name, str):
            if name in names:
                errors.add(
                    (*where, index, "name"),
                    "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
                    "Option names must be unique",
                )
            names.add(name)
        if option.get("type") not in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP):
            if option.get("required"):
                if seen_optional:
                    errors.add(
                        (*where, index, "required"),
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options",
                    )
            else:
                seen_optional = True


def validate_commands(payload: object) -> list[JSON]:
    """Validate a bulk overwrite body (a list of command objects) the way Discord does."""
    if not isinstance(payload, list):
        raise form_error((), "BASE_TYPE_ARRAY", "Must be an array.")
    errors = ErrorTree()
    seen: set[tuple[int, str]] = set()
    per_type: dict[int, int] = {}
    for index, command in enumerate(payload):
        if not isinstance(command, dict):
            errors.add((index,), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        command_type = command.get("type", 1)
        if command_type not in (1, 2, 3, 4):
            errors.add((index, "type"), "ENUM_TYPE_COERCE", f"Value {command_type!r} is not a valid enum value.")
            continue
        chat_input = command_type == 1
        name = command.get("name")
        _check_name(errors, (index, "name"), name, chat_input=chat_input)
        _check_localizations(
            errors,
            (index,),
            "name_localizations",
            command.get("name_localizations"),
            name=True,
            chat_input=chat_input,
            high=32,
        )
        if chat_input:
            _check_bad_length(errors, (index, "description"), command.get("description"), 1, 100)
            _check_localizations(
                errors,
                (index,),
                "description_localizations",
                command.get("description_localizations"),
                name=False,
                chat_input=True,
                high=100,
            )
            _check_options(errors, (index,), command.get("options"), 0)
        else:
            if command.get("description"):
                errors.add(
                    (index, "description"),
                    "APPLICATION_COMMAND_INVALID_DESCRIPTION",
                    "Context menu commands cannot have a description",
                )
            if command.get("options"):
                errors.add(
                    (index, "options"),
                    "APPLICATION_COMMAND_INVALID_OPTIONS",
                    "Context menu commands cannot have options",
                )
        if isinstance(name, str):
            if (command_type, name) in seen:
                errors.add(
                    (index, "name"), "APPLICATION_COMMAND_ALREADY_EXISTS", "Application command names must be unique"
                )
            seen.add((command_type, name))
        per_type[command_type] = per_type.get(command_type, 0) + 1
        if _command_size(command) > COMMAND_SIZE_LIMIT:
            errors.add(
                (index,), "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({COMMAND_SIZE_LIMIT})"
            )
    for command_type, count in per_type.items():
        limit = MAX_COMMANDS_PER_TYPE.get(command_type)
        if limit is not None and count > limit:
            errors.add((), "APPLICATION_COMMANDS_TOO_MANY", f"Maximum number of application commands reached ({limit})")
    errors.raise_if_any()
    return [dict(c) for c in payload]


# ---------------------------------------------------------------- messages

EMBED_TOTAL_LIMIT: Final = 6000
_BUTTON: Final = 2
_ACTION_ROW: Final = 1
_SELECTS: Final = frozenset({3, 5, 6, 7, 8})
_TEXT_INPUT: Final = 4
_LABEL: Final = 18
COMPONENTS_V2_FLAG: Final = 1 << 15


def _embed_errors(errors: ErrorTree, embeds: object) -> None:
    if not isinstance(embeds, list):
        errors.add(("embeds",), "BASE_TYPE_ARRAY", "Must be an array.")
        return
    if len(embeds) > 10:
        errors.add(("embeds",), "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for index, embed in enumerate(embeds):
        where: tuple[str | int, ...] = ("embeds", index)
        if not isinstance(embed, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        for key, limit in (("title", 256), ("description", 4096)):
            _check_length(errors, (*where, key), embed.get(key), 0, limit, required=False)
            total += len(str(embed.get(key) or ""))
        author = embed.get("author")
        if isinstance(author, dict):
            _check_length(errors, (*where, "author", "name"), author.get("name"), 1, 256)
            total += len(str(author.get("name") or ""))
        footer = embed.get("footer")
        if isinstance(footer, dict):
            _check_length(errors, (*where, "footer", "text"), footer.get("text"), 1, 2048)
            total += len(str(footer.get("text") or ""))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.add((*where, "fields"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for field_index, embed_field in enumerate(fields):
            at = (*where, "fields", field_index)
            _check_length(errors, (*at, "name"), embed_field.get("name"), 1, 256)
            _check_length(errors, (*at, "value"), embed_field.get("value"), 1, 1024)
            total += len(str(embed_field.get("name") or "")) + len(str(embed_field.get("value") or ""))
    if total > EMBED_TOTAL_LIMIT:
        errors.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_LIMIT}")


def _button_errors(errors: ErrorTree, where: tuple[str | int, ...], button: JSON) -> None:
    _check_length(errors, (*where, "label"), button.get("label"), 0, 80, required=False)
    if button.get("label") is None and button.get("emoji") is None:
        errors.add((*where, "label"), "BASE_TYPE_REQUIRED", "A button needs a label or an emoji")
    if button.get("style") == 5:
        if not button.get("url"):
            errors.add((*where, "url"), "BASE_TYPE_REQUIRED", "This field is required")
        if button.get("custom_id") is not None:
            errors.add((*where, "custom_id"), "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "Link buttons cannot have a custom_id")
    elif button.get("style") != 6 and button.get("custom_id") is None:
        errors.add((*where, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")


def _component_errors(errors: ErrorTree, components: object, *, v2: bool) -> None:
    if not isinstance(components, list):
        errors.add(("components",), "BASE_TYPE_ARRAY", "Must be an array.")
        return
    if not v2 and len(components) > 5:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for index, row in enumerate(components):
        where: tuple[str | int, ...] = ("components", index)
        if not isinstance(row, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        if not v2 and row.get("type") != _ACTION_ROW:
            errors.add((*where, "type"), "UNION_TYPE_CHOICES", "Top-level components must be action rows")
            continue
        if row.get("type") != _ACTION_ROW:
            continue
        children = row.get("components") or []
        if not 1 <= len(children) <= 5:
            errors.add((*where, "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
        if any(isinstance(c, dict) and c.get("type") in _SELECTS for c in children) and len(children) > 1:
            errors.add(
                (*where, "components"),
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for child_index, child in enumerate(children):
            if isinstance(child, dict) and child.get("type") == _BUTTON:
                _button_errors(errors, (*where, "components", child_index), child)
    all_components = list(iter_components([c for c in components if isinstance(c, dict)]))
    if v2 and len(all_components) > 40:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer components in total.")
    custom_ids: set[str] = set()
    for component in all_components:
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
            errors.add(("components",), "BASE_TYPE_BAD_LENGTH", "custom_id must be between 1 and 100 in length.")
        elif custom_id in custom_ids:
            errors.add(("components",), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
        custom_ids.add(str(custom_id))


def _allowed_mentions_errors(errors: ErrorTree, allowed: object) -> None:
    if allowed is None:
        return
    if not isinstance(allowed, dict):
        errors.add(("allowed_mentions",), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    parse = allowed.get("parse") or []
    for key, kind in (("users", "users"), ("roles", "roles")):
        if kind in parse and allowed.get(key):
            errors.add(
                ("allowed_mentions", "parse"),
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {key}: [ids] are mutually exclusive.',
            )
        if len(allowed.get(key) or []) > 100:
            errors.add(("allowed_mentions", key), "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")


def validate_message(payload: JSON, *, file_count: int, partial: bool) -> None:
    """Check a message create/edit body. `partial` edits only validate the fields they carry."""
    errors = ErrorTree()
    flags = int(payload.get("flags") or 0)
    v2 = bool(flags & COMPONENTS_V2_FLAG)
    content = payload.get("content")
    if content is not None:
        _check_length(errors, ("content",), content, 0, 2000)
        if v2 and content:
            errors.add(
                ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "content cannot be used with the IS_COMPONENTS_V2 flag",
            )
    if payload.get("embeds") is not None:
        _embed_errors(errors, payload["embeds"])
        if v2 and payload["embeds"]:
            errors.add(
                ("embeds",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "embeds cannot be used with the IS_COMPONENTS_V2 flag",
            )
    if payload.get("components") is not None:
        _component_errors(errors, payload["components"], v2=v2)
    _allowed_mentions_errors(errors, payload.get("allowed_mentions"))
    if file_count > 10:
        errors.add(("files",), "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    errors.raise_if_any()
    if not partial and is_empty(payload, file_count):
        raise ApiError(400, EMPTY_MESSAGE, "Cannot send an empty message")


def is_empty(payload: JSON, file_count: int) -> bool:
    return not (
        payload.get("content")
        or payload.get("embeds")
        or payload.get("components")
        or payload.get("sticker_ids")
        or payload.get("poll")
        or file_count
    )


# ---------------------------------------------------------------- interaction responses


def validate_choices(data: object) -> list[JSON]:
    """An autocomplete result (callback type 8)."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise form_error(("data", "choices"), "BASE_TYPE_REQUIRED", "This field is required")
    choices: list[Any] = data["choices"]
    errors = ErrorTree()
    if len(choices) > 25:
        errors.add(("data", "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for index, choice in enumerate(choices):
        where: tuple[str | int, ...] = ("data", "choices", index)
        if not isinstance(choice, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        _check_bad_length(errors, (*where, "name"), choice.get("name"), 1, 100)
        if isinstance(choice.get("value"), str):
            _check_length(errors, (*where, "value"), choice["value"], 0, 100)
    errors.raise_if_any()
    return [dict(c) for c in choices]


def _modal_leaves(components: list[JSON]) -> Iterator[tuple[tuple[str | int, ...], JSON]]:
    for index, component in enumerate(components):
        if component.get("type") == _ACTION_ROW:
            for child_index, child in enumerate(component.get("components") or []):
                yield ("data", "components", index, "components", child_index), child
        elif component.get("type") == _LABEL and isinstance(component.get("component"), dict):
            yield ("data", "components", index, "component"), component["component"]


def validate_modal(data: object) -> JSON:
    """A modal (callback type 9): title, custom_id and 1-5 top-level components."""
    if not isinstance(data, dict):
        raise form_error(("data",), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    errors = ErrorTree()
    _check_bad_length(errors, ("data", "title"), data.get("title"), 1, 45)
    _check_bad_length(errors, ("data", "custom_id"), data.get("custom_id"), 1, 100)
    components = data.get("components")
    if not isinstance(components, list) or not 1 <= len(components) <= 5:
        errors.add(("data", "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    else:
        for where, leaf in _modal_leaves(components):
            if leaf.get("type") == _TEXT_INPUT:
                _check_length(errors, (*where, "label"), leaf.get("label"), 1, 45, required=False)
                _check_bad_length(errors, (*where, "custom_id"), leaf.get("custom_id"), 1, 100)
                _check_length(errors, (*where, "placeholder"), leaf.get("placeholder"), 0, 100, required=False)
                _check_length(errors, (*where, "value"), leaf.get("value"), 0, 4000, required=False)
    errors.raise_if_any()
    return dict(data)
