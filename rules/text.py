"""The one limit of each kind of free text a player or a GM types, shared by every ruleset's files and commands.

Names (of characters, campaigns, sides, weapons, skills, Noble Phantasms...) fit Discord's autocomplete
entries and the database's columns; labels and reasons are a line of a message.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

NAME_LIMIT = 100
LABEL_LIMIT = 100
REASON_LIMIT = 200

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_LIMIT)]
