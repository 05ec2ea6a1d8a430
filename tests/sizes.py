"""How large the slow suites run: bounded by default (CI), in full with `RELIABILITY=full`; any one size can be set
by its own variable (`CRASH_ROUNDS=40`)."""

from __future__ import annotations

import os

FULL = os.environ.get("RELIABILITY", "").lower() == "full"


def size(variable: str, bounded: int, full: int) -> int:
    """The size the variable sets, else the full or the bounded one."""
    return int(os.environ.get(variable, str(full if FULL else bounded)))
