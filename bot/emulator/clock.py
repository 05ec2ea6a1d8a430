"""Emulated time for the Discord emulator.

Discord's interaction deadlines (3 seconds to acknowledge, 15 minutes of webhook token life) are
checked against this clock, so tests can jump past them without sleeping.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


class Clock:
    """Real monotonic time plus an offset that tests can move forward."""

    def __init__(self, start: datetime | None = None) -> None:
        if start is not None and start.tzinfo is None:
            raise ValueError("start must be timezone-aware")
        self._wall_start = start or datetime.now(UTC)
        self._mono_start = time.monotonic()
        self._offset = 0.0

    def now(self) -> datetime:
        elapsed = time.monotonic() - self._mono_start + self._offset
        return (self._wall_start + timedelta(seconds=elapsed)).astimezone(UTC)

    def advance(self, seconds: float) -> None:
        # Time only moves forward: deadlines that already passed must stay passed.
        if seconds < 0:
            raise ValueError("the clock cannot go backwards")
        self._offset += seconds
