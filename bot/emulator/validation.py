"""Discord's request limits that its OpenAPI description does not carry, with Discord's codes and error bodies.

Every request body is first checked against the description (`bot.emulator.openapi`: types, required
fields, lengths, counts, enums, the kinds of components and options and where each may go). What is
checked here, after it, is only what the description leaves out or states looser than Discord's
reference (the message, embed, component, application command and modal pages):
- commands: a chat-input name's characters and case (also localized), the locales of localizations, a
  chat-input command's description, none on context-menu commands, sub-commands not mixed with other
  options, unique names (localized ones too, in each locale), required options first, which options take
  choices or autocomplete, string choice values of at most 100 characters (the description says 6000), 8000
  characters per command and the number of commands per type;
- messages: content of at most 2000 characters (the description allows a channel message 4000), embed
  field names and values, author names and footer texts not empty, 6000 characters across all embeds,
  at most 5 action rows and nothing else at the top without the IS_COMPONENTS_V2 flag (the description
  has the flag's 40), 40 components counted at every depth, a select alone in its row, a button's label
  or emoji, link and premium buttons, unique custom ids, a string select's `max_values` within its options
  and `min_values` within `max_values`, its option values unique, `allowed_mentions` whose `parse` excludes
  its lists, at most 10 files, no content or embeds with the flag, and the empty message (50006);
- autocomplete results (`choices` required, string values of at most 100) and modals (at most 5
  components at the top, the description says 40; unique custom ids; a text box's prefilled text within
  its own `min_length` and `max_length`, and `min_length` within `max_length`).

Every rejection is an `ApiError`; the REST layer turns it into the JSON body discord.py parses
into `HTTPException.code` / `.text`.
"""

from __future__ import annotations

import re
from typing import Final

from bot.emulator.models import JSON, iter_components

INVALID_FORM_BODY: Final = 50035
EMPTY_MESSAGE: Final = 50006

COMMAND_SIZE_LIMIT: Final = 8000
MAX_COMMANDS_PER_TYPE: Final = {1: 100, 2: 15, 3: 15}

VALID_LOCALES: Final = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)

# Discord's documented pattern is ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$. Python's `re` has no
# \p classes: `[^\W]` covers letters, digits and underscore (plus combining marks, which Devanagari
# and Thai need), so the pattern below is the same set for the scripts a bot realistically uses.
_CHAT_INPUT_NAME: Final = re.compile(r"^[-'\w\u0900-\u097f\u0e00-\u0e7f]{1,32}$")

OPTION_SUB_COMMAND: Final = 1
OPTION_SUB_COMMAND_GROUP: Final = 2
OPTION_STRING: Final = 3
OPTION_INTEGER: Final = 4
OPTION_NUMBER: Final = 10


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


# ---------------------------------------------------------------- application commands


def _check_name(errors: ErrorTree, path: tuple[str | int, ...], name: str) -> None:
    """A chat-input name's characters and case; its length is the description's."""
    if not _CHAT_INPUT_NAME.match(name):
        errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    elif name != name.lower():
        errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase")


def _check_localizations(
    errors: ErrorTree, path: tuple[str | int, ...], key: str, value: object, *, chat_input_names: bool
) -> None:
    if not isinstance(value, dict):
        return
    for locale, text in value.items():
        where = (*path, key, locale)
        if locale not in VALID_LOCALES:
            errors.add(where, "ENUM_TYPE_COERCE", f'Value "{locale}" is not a valid enum value.')
        elif chat_input_names:
            _check_name(errors, where, text)


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


def _check_localized_names(
    errors: ErrorTree, where: tuple[str | int, ...], siblings: list[tuple[int, JSON]], code: str, message: str
) -> None:
    """Discord's reference: a localized option name must differ from every other default option name of the
    command and from every other option name in that locale (a value equal to its own default is ignored). The
    same is held of commands of one type, which a client lists under the names of its locale."""
    defaults = {index: node.get("name") for index, node in siblings}
    localized = {
        index: {
            locale: name
            for locale, name in (node.get("name_localizations") or {}).items()
            if isinstance(name, str) and name != defaults[index]
        }
        for index, node in siblings
    }
    for index, names in localized.items():
        for locale, name in names.items():
            others = [other for other in defaults if other != index]
            if any(defaults[other] == name or localized[other].get(locale) == name for other in others):
                errors.add((*where, index, "name_localizations", locale), code, message)


def _check_choices(errors: ErrorTree, path: tuple[str | int, ...], option: JSON) -> None:
    choices = option.get("choices")
    if choices is None:
        return
    option_type = option.get("type")
    if option_type not in (OPTION_STRING, OPTION_INTEGER, OPTION_NUMBER):
        errors.add((*path, "choices"), "APPLICATION_COMMAND_OPTION_CHOICES_INVALID", "Option cannot have choices")
        return
    if choices and option.get("autocomplete"):
        errors.add(
            (*path, "autocomplete"),
            "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_AND_CHOICES",
            "Autocomplete cannot be enabled on options that have choices",
        )
    for index, choice in enumerate(choices):
        where = (*path, "choices", index)
        _check_localizations(
            errors, where, "name_localizations", choice.get("name_localizations"), chat_input_names=False
        )
        value = choice.get("value")
        # The description allows 6000 characters; Discord's reference and its API allow 100.
        if option_type == OPTION_STRING and isinstance(value, str) and not 1 <= len(value) <= 100:
            errors.add((*where, "value"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")


def _check_option(errors: ErrorTree, path: tuple[str | int, ...], option: JSON) -> None:
    option_type = option.get("type")
    _check_name(errors, (*path, "name"), option["name"])
    _check_localizations(errors, path, "name_localizations", option.get("name_localizations"), chat_input_names=True)
    _check_localizations(
        errors, path, "description_localizations", option.get("description_localizations"), chat_input_names=False
    )
    _check_choices(errors, path, option)
    if option.get("autocomplete") and option_type not in (OPTION_STRING, OPTION_INTEGER, OPTION_NUMBER):
        errors.add(
            (*path, "autocomplete"),
            "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
            "Autocomplete is only available for string, integer and number options",
        )
    children = option.get("options")
    if option_type in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP):
        _check_options(errors, path, children)
    elif children:
        errors.add((*path, "options"), "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Only sub-commands have options")


def _check_options(errors: ErrorTree, path: tuple[str | int, ...], options: object) -> None:
    """What the description's option types leave out: mixing, unique names, the order of required options."""
    if not isinstance(options, list):
        return
    where = (*path, "options")
    nested = [option.get("type") in (OPTION_SUB_COMMAND, OPTION_SUB_COMMAND_GROUP) for option in options]
    if any(nested) and not all(nested):
        errors.add(
            where,
            "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
            "Sub-commands and sub-command groups cannot be mixed with other options",
        )
    seen_optional = False
    names: set[str] = set()
    for index, option in enumerate(options):
        _check_option(errors, (*where, index), option)
        name = option.get("name")
        if name in names:
            errors.add(
                (*where, index, "name"), "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique"
            )
        names.add(name)
        if not nested[index]:
            if option.get("required"):
                if seen_optional:
                    errors.add(
                        (*where, index, "required"),
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options",
                    )
            else:
                seen_optional = True
    _check_localized_names(
        errors,
        where,
        list(enumerate(options)),
        "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
        "Option names must be unique in every locale",
    )


def validate_commands(payload: list[JSON] | None) -> list[JSON]:
    """The rules of a bulk overwrite (a list of commands the description has checked) that it does not carry."""
    commands = payload or []
    errors = ErrorTree()
    seen: set[tuple[int, str]] = set()
    per_type: dict[int, int] = {}
    for index, command in enumerate(commands):
        command_type = int(command.get("type") or 1)
        chat_input = command_type == 1
        name = str(command["name"])
        if chat_input:
            _check_name(errors, (index, "name"), name)
            description = command.get("description")
            # The description makes a command's description optional: a chat-input command needs one.
            if description is None:
                errors.add((index, "description"), "BASE_TYPE_REQUIRED", "This field is required")
            elif not description:
                errors.add((index, "description"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            _check_options(errors, (index,), command.get("options"))
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
        _check_localizations(
            errors, (index,), "name_localizations", command.get("name_localizations"), chat_input_names=chat_input
        )
        _check_localizations(
            errors,
            (index,),
            "description_localizations",
            command.get("description_localizations"),
            chat_input_names=False,
        )
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
    for command_type in per_type:
        _check_localized_names(
            errors,
            (),
            [(index, c) for index, c in enumerate(commands) if int(c.get("type") or 1) == command_type],
            "APPLICATION_COMMAND_ALREADY_EXISTS",
            "Application command names must be unique in every locale",
        )
    for command_type, count in per_type.items():
        limit = MAX_COMMANDS_PER_TYPE.get(command_type)
        if limit is not None and count > limit:
            errors.add((), "APPLICATION_COMMANDS_TOO_MANY", f"Maximum number of application commands reached ({limit})")
    errors.raise_if_any()
    return [dict(c) for c in commands]


# ---------------------------------------------------------------- messages

EMBED_TOTAL_LIMIT: Final = 6000
CONTENT_LIMIT: Final = 2000
_BUTTON: Final = 2
_ACTION_ROW: Final = 1
_STRING_SELECT: Final = 3
_SELECTS: Final = frozenset({_STRING_SELECT, 5, 6, 7, 8})
_TEXT_INPUT: Final = 4
COMPONENTS_V2_FLAG: Final = 1 << 15


def _embed_errors(errors: ErrorTree, embeds: list[JSON]) -> None:
    """Texts Discord's reference requires (the description lets them be empty) and the total of all embeds."""
    total = 0
    for index, embed in enumerate(embeds):
        where: tuple[str | int, ...] = ("embeds", index)
        total += len(embed.get("title") or "") + len(embed.get("description") or "")
        for part, key in (("author", "name"), ("footer", "text")):
            holder = embed.get(part)
            if isinstance(holder, dict):
                if not holder.get(key):
                    errors.add((*where, part, key), "BASE_TYPE_REQUIRED", "This field is required")
                total += len(holder.get(key) or "")
        for field_index, embed_field in enumerate(embed.get("fields") or []):
            for key in ("name", "value"):
                if not embed_field.get(key):
                    errors.add((*where, "fields", field_index, key), "BASE_TYPE_REQUIRED", "This field is required")
                total += len(embed_field.get(key) or "")
    if total > EMBED_TOTAL_LIMIT:
        errors.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_LIMIT}")


def _button_errors(errors: ErrorTree, where: tuple[str | int, ...], button: JSON) -> None:
    if button.get("label") is None and button.get("emoji") is None:
        errors.add((*where, "label"), "BASE_TYPE_REQUIRED", "A button needs a label or an emoji")
    if button.get("style") == 5:
        if not button.get("url"):
            errors.add((*where, "url"), "BASE_TYPE_REQUIRED", "This field is required")
        if button.get("custom_id") is not None:
            errors.add((*where, "custom_id"), "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "Link buttons cannot have a custom_id")
    elif button.get("style") != 6 and button.get("custom_id") is None:
        errors.add((*where, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")


def _component_errors(errors: ErrorTree, components: list[JSON], *, v2: bool) -> None:
    """The layout rules the description leaves out: its schema is the IS_COMPONENTS_V2 one for every message."""
    if not v2 and len(components) > 5:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for index, row in enumerate(components):
        where: tuple[str | int, ...] = ("components", index)
        if not v2 and row.get("type") != _ACTION_ROW:
            errors.add((*where, "type"), "UNION_TYPE_CHOICES", "Top-level components must be action rows")
            continue
        if row.get("type") != _ACTION_ROW:
            continue
        children = row.get("components") or []
        if any(c.get("type") in _SELECTS for c in children) and len(children) > 1:
            errors.add(
                (*where, "components"),
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for child_index, child in enumerate(children):
            if child.get("type") == _BUTTON:
                _button_errors(errors, (*where, "components", child_index), child)
            elif child.get("type") == _STRING_SELECT:
                _string_select_errors(errors, (*where, "components", child_index), child)
    if v2 and len(list(iter_components(components))) > 40:
        errors.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer components in total.")
    _unique_custom_ids(errors, ("components",), components)


def _string_select_errors(errors: ErrorTree, where: tuple[str | int, ...], select: JSON) -> None:
    """What a string select picks from: no more than it offers, at least as few as its most, each value once."""
    options = select.get("options") or []
    least, most = _bound(select, "min_values", 1), _bound(select, "max_values", 1)
    if most > len(options):
        errors.add(
            (*where, "max_values"), "NUMBER_TYPE_MAX", f"int value should be less than or equal to {len(options)}."
        )
    if least > most:
        errors.add((*where, "min_values"), "NUMBER_TYPE_MAX", f"int value should be less than or equal to {most}.")
    values: set[object] = set()
    for index, option in enumerate(options):
        if option.get("value") in values:
            errors.add(
                (*where, "options", index, "value"),
                "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                "Component option values must be unique",
            )
        values.add(option.get("value"))


def _bound(component: JSON, key: str, default: int) -> int:
    """A count or length the description has checked: an integer, or its text, or null for the default."""
    value = component.get(key)
    return default if value is None else int(value)


def _unique_custom_ids(errors: ErrorTree, where: tuple[str | int, ...], components: list[JSON]) -> None:
    custom_ids: set[str] = set()
    for component in iter_components(components):
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if custom_id in custom_ids:
            errors.add(where, "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
        custom_ids.add(custom_id)


def _allowed_mentions_errors(errors: ErrorTree, allowed: JSON) -> None:
    parse = allowed.get("parse") or []
    for key in ("users", "roles"):
        if key in parse and allowed.get(key):
            errors.add(
                ("allowed_mentions", "parse"),
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{key}"] and {key}: [ids] are mutually exclusive.',
            )


def validate_message(payload: JSON, *, file_count: int, partial: bool) -> None:
    """The rules of a message create/edit body (its schema checked) that the description does not carry.
    `partial` edits only validate the fields they carry."""
    errors = ErrorTree()
    flags = int(payload.get("flags") or 0)
    v2 = bool(flags & COMPONENTS_V2_FLAG)
    content = payload.get("content")
    # The description allows a channel message 4000 characters, which only a Nitro user may send; a bot, 2000.
    if isinstance(content, str) and len(content) > CONTENT_LIMIT:
        errors.add(("content",), "BASE_TYPE_MAX_LENGTH", f"Must be {CONTENT_LIMIT} or fewer in length.")
    if v2 and content:
        errors.add(
            ("content",),
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "content cannot be used with the IS_COMPONENTS_V2 flag",
        )
    if payload.get("embeds"):
        _embed_errors(errors, payload["embeds"])
        if v2:
            errors.add(
                ("embeds",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "embeds cannot be used with the IS_COMPONENTS_V2 flag",
            )
    if payload.get("components") is not None:
        _component_errors(errors, payload["components"], v2=v2)
    if payload.get("allowed_mentions") is not None:
        _allowed_mentions_errors(errors, payload["allowed_mentions"])
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


def validate_choices(data: JSON | None) -> list[JSON]:
    """An autocomplete result (callback type 8): Discord's reference requires `choices`, of choice objects."""
    choices = (data or {}).get("choices")
    if not isinstance(choices, list):
        raise form_error(("data", "choices"), "BASE_TYPE_REQUIRED", "This field is required")
    errors = ErrorTree()
    for index, choice in enumerate(choices):
        where: tuple[str | int, ...] = ("data", "choices", index)
        if not isinstance(choice, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        # The description allows a string value 6000 characters; Discord's reference, 100.
        elif isinstance(choice.get("value"), str) and len(choice["value"]) > 100:
            errors.add((*where, "value"), "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    errors.raise_if_any()
    return [dict(c) for c in choices]


MODAL_COMPONENT_LIMIT: Final = 5
INPUT_VALUE_LIMIT: Final = 4000


def validate_modal(data: JSON) -> JSON:
    """A modal (callback type 9): the description allows 40 top-level components (Discord's reference, 5), and
    lets a text box's prefilled text break the box's own bounds, and custom ids repeat."""
    errors = ErrorTree()
    where: tuple[str | int, ...] = ("data", "components")
    if len(data["components"]) > MODAL_COMPONENT_LIMIT:
        errors.add(where, "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MODAL_COMPONENT_LIMIT} in length.")
    for index, top in enumerate(data["components"]):
        boxes = [(("component",), top.get("component"))] + [
            (("components", child_index), child) for child_index, child in enumerate(top.get("components") or [])
        ]
        for path, box in boxes:
            if isinstance(box, dict) and box.get("type") == _TEXT_INPUT:
                _text_input_errors(errors, (*where, index, *path), box)
    _unique_custom_ids(errors, where, data["components"])
    errors.raise_if_any()
    return dict(data)


def _text_input_errors(errors: ErrorTree, where: tuple[str | int, ...], box: JSON) -> None:
    least, most = _bound(box, "min_length", 0), _bound(box, "max_length", INPUT_VALUE_LIMIT)
    if least > most:
        errors.add((*where, "min_length"), "NUMBER_TYPE_MAX", f"int value should be less than or equal to {most}.")
    value = box.get("value")
    if isinstance(value, str) and value and not least <= len(value) <= most:
        errors.add((*where, "value"), "BASE_TYPE_BAD_LENGTH", f"Must be between {least} and {most} in length.")
