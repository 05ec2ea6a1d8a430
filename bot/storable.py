"""Text the bot can keep: PostgreSQL's text and jsonb hold no NUL character, and no database (nor UTF-8) holds half
of a surrogate pair, which JSON's `\\ud800` and YAML's escapes can produce. Whatever a player types or uploads is
checked for these where it enters, so that it is refused in words rather than failing in the database."""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_character(text: str) -> str | None:
    """The first character of `text` that cannot be stored, as `U+0000`; None when every one can."""
    found = _UNSTORABLE.search(text)
    return f"U+{ord(found.group()):04X}" if found else None
