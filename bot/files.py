"""Character files read safely: YAML (JSON is YAML too) with nothing but text, numbers, true/false, lists
and mappings, bounded in size, depth and count, and no aliases.

PyYAML's safe loader still expands aliases (a few hundred bytes of nested aliases become gigabytes) and
builds dates, sets and binary blobs; this loader refuses aliases and anchors as it composes the document,
before anything is expanded, and keeps every scalar a plain value.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.errors import UserError
from bot.storable import unstorable_character

MAX_FILE_BYTES = 64 * 1024
# A character file is a few levels deep (weapons -> a weapon -> its roll modifiers) and a few hundred values.
MAX_DEPTH = 12
MAX_NODES = 5_000
_TEXT_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map"))


class _PlainLoader(yaml.SafeLoader):
    """Composes only plain documents; the first alias, anchor, foreign tag or excess stops it."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise UserError("error.file_alias", line=mark.line + 1)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise UserError("error.file_too_many_values", limit=MAX_NODES)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise UserError("error.file_too_deep", line=mark.line + 1, limit=MAX_DEPTH)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None and node.tag not in _PLAIN_TAGS:
            raise UserError("error.file_tag", line=mark.line + 1, tag=node.tag.rsplit(":", 1)[-1])
        # An escape ("\0", "\ud800") writes what the file itself could not hold.
        if isinstance(node, ScalarNode) and (code := unstorable_character(node.value)) is not None:
            raise UserError("error.file_character", code=code, line=mark.line + 1)
        return node


# Dates and times stay text: a name such as 2001-01-01 is a name.
_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _keys_are_text(node: Node) -> bool:
    """Whether every field name is text. One written as a whole number (a rank, `1:`) is read as its text, the way
    JSON writes it and the database keeps it; a list, a date or `yes` as a name is refused."""
    if isinstance(node, MappingNode):
        for key, _ in node.value:
            if isinstance(key, ScalarNode) and key.tag == _INT_TAG:
                key.tag = _TEXT_TAG
        return all(
            isinstance(key, ScalarNode) and key.tag == _TEXT_TAG and _keys_are_text(value) for key, value in node.value
        )
    if isinstance(node, SequenceNode):
        return all(_keys_are_text(item) for item in node.value)
    return True


def load_document(text: str) -> Any:
    """The file's content as plain Python values; a `UserError` naming the first problem otherwise."""
    if len(text.encode(errors="surrogatepass")) > MAX_FILE_BYTES:
        raise UserError("error.file_too_large", limit=MAX_FILE_BYTES // 1024)
    try:
        # The reader looks at every character as it is built: NUL, U+FFFE, half a surrogate pair...
        loader = _PlainLoader(text)
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        raise UserError("error.file_character", code=f"U+{error.character:04X}", line=line) from error
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if not _keys_are_text(node):
            raise UserError("error.file_keys")
        return loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise UserError("error.file_unreadable", line=(mark.line + 1) if mark else 1) from error
    finally:
        loader.dispose()


def parse_sheet_file(content: bytes) -> tuple[str, dict[str, Any]]:
    """An uploaded character file's kind and fields: any bytes at all are either those or a `UserError`."""
    if len(content) > MAX_FILE_BYTES:
        raise UserError("error.file_too_large", limit=MAX_FILE_BYTES // 1024)
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UserError("error.file_not_text") from error
    return parse_sheet(text)


def parse_sheet(text: str) -> tuple[str, dict[str, Any]]:
    """A character file's kind and fields."""
    data = load_document(text)
    if not isinstance(data, dict):
        raise UserError("error.file_not_mapping")
    kind = data.pop("kind", None)
    if not isinstance(kind, str):
        raise UserError("error.file_without_kind")
    return kind, data
