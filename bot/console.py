"""What `fatebot local` and `fatebot bench` print. A line that cannot be written (a full disk, a closed pipe) stops
the command as `OutputLost`, said as such, rather than passing for a failure of the database or for a success."""

from __future__ import annotations

from typing import TextIO


class OutputLost(Exception):
    """The command's output could not be written; the error that stopped it is the cause."""


class Printer:
    """Prints lines to `out`. A line lost is kept until `check`, because lines are also printed from the emulator's
    listeners, where an error would only fail the bot's request and the command would go on as if shown."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lost: OSError | None = None

    def line(self, text: str = "") -> None:
        if self._lost is not None:
            return
        try:
            print(text, file=self.out, flush=True)
        except OSError as error:
            self._lost = error

    def check(self) -> None:
        """`OutputLost` if any line was lost."""
        if self._lost is not None:
            raise OutputLost(str(self._lost)) from self._lost
