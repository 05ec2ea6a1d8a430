"""Dotted paths into a character file (`STR`, `weapons.0.name`, `skills.1.roll_mods`), for `/character edit`."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from bot.errors import UserError

MAX_PATH = 100


def read_path(document: Mapping[str, Any], path: str) -> Any:
    """The value at `path`, or None where the file has none."""
    current: Any = document
    for part in _parts(path):
        if isinstance(current, Mapping):
            current = current.get(part)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


def with_value(document: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of the file with `value` at `path` (None removes the field: back to its default). Every step but
    the last must exist; a list index may be one past the end, which appends."""
    edited = copy.deepcopy(dict(document))
    parts = _parts(path)
    parent: Any = edited
    for part in parts[:-1]:
        parent = _step(parent, part, path)
    last = parts[-1]
    if isinstance(parent, dict):
        if value is None:
            parent.pop(last, None)
        else:
            parent[last] = value
        return edited
    if isinstance(parent, list) and last.isdigit() and int(last) <= len(parent):
        index = int(last)
        if value is None:
            if index < len(parent):
                parent.pop(index)
        elif index == len(parent):
            parent.append(value)
        else:
            parent[index] = value
        return edited
    raise UserError("error.edit_no_such_field", field=path)


def field_paths(document: Mapping[str, Any]) -> list[str]:
    """Every field of the file as a path, its lists' items down to their own fields."""
    found: list[str] = []

    def walk(value: Any, prefix: str) -> None:
        if prefix:
            found.append(prefix)
        items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            walk(item, f"{prefix}.{key}" if prefix else str(key))

    walk(document, "")
    return found


def shown_value(value: Any) -> str:
    """A file's value as a reply shows it: as the file would write it, on one line."""
    if value is None:
        return "—"
    return json.dumps(value, ensure_ascii=False)


def _parts(path: str) -> list[str]:
    parts = path.strip().split(".")
    if len(path) > MAX_PATH or not all(parts):
        raise UserError("error.edit_no_such_field", field=path[:MAX_PATH])
    return parts


def _step(current: Any, part: str, path: str) -> Any:
    if isinstance(current, dict) and isinstance(current.get(part), dict | list):
        return current[part]
    if isinstance(current, list) and part.isdigit() and int(part) < len(current):
        return current[int(part)]
    raise UserError("error.edit_no_such_field", field=path)
