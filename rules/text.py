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


def _seen_whole(name: str) -> str:
    for character in name:
        if unicodedata.category(character) in _UNSEEN:
            raise PydanticCustomError(
                "name_characters", "{code} cannot be in a name", {"code": f"U+{ord(character):04X}"}
            )
    return name


Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_LIMIT), AfterValidator(_seen_whole)
]
