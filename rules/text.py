"""The one limit of each kind of free text a player or a GM types, shared by every ruleset's files and commands.

Names (of characters, campaigns, sides, weapons, skills, Noble Phantasms...) fit Discord's autocomplete
entries and the database's columns; labels and reasons are a line of a message.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, StringConstraints
from pydantic_core import PydanticCustomError

NAME_LIMIT = 100
LABEL_LIMIT = 100
REASON_LIMIT = 200

# Line breaks, controls and invisible formatting (zero-width spaces, direction overrides): a name holding one could
# pass for another's, or turn a list around.
_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def unseen_character(name: str) -> str | None:
    """The first character of a name that a reader cannot see as itself (as `U+200B`), or None."""
    return next((f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in _UNSEEN), None)


def _seen_whole(name: str) -> str:
    if (code := unseen_character(name)) is not None:
        raise PydanticCustomError("name_characters", "{code} cannot be in a name", {"code": code})
    return name


Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_LIMIT), AfterValidator(_seen_whole)
]
