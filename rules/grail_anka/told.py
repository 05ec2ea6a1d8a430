"""What the anka game's steps say: each outcome is a catalog line with its parameters, the first headline of a step
its title. One outcome type keeps the battle's many small steps readable in the log as they read in the channel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from rules.exchange import Outcome, Text
from rules.play import Report

EVENT = "anka.told"


class Told(Outcome):
    event: ClassVar[str] = EVENT

    key: str
    params: dict[str, Any] = Field(default_factory=dict)
    headline: bool = False
    # Whether it reads the step's rolls (the die that drew the third parameter): they are shown just before it.
    reads_roll: bool = False

    def text(self) -> Text:
        return Text.from_dict({"key": self.key, "params": self.params})


def told(key: str, /, *, headline: bool = False, reads_roll: bool = False, **params: str | int | Text) -> Told:
    return Told(
        key=key,
        headline=headline,
        reads_roll=reads_roll,
        params={name: value.to_dict() if isinstance(value, Text) else value for name, value in params.items()},
    )


def report(outcomes: Sequence[Outcome]) -> Report:
    """The step's lines in the order they happened, the body of its post (they are the whole story of the step,
    no aside); one that opens the step with a headline is its title. Its rolls come where they were read."""
    lines = [outcome for outcome in outcomes if isinstance(outcome, Told)]
    title = lines[0].text() if lines and lines[0].headline else None
    notes = lines[1:] if title is not None else lines
    reader = next((line.text() for line in notes if line.reads_roll), None)
    return Report(title, notes=tuple(line.text() for line in notes), rolls_before=reader, notes_body=True)


def log_text(payload: Mapping[str, Any]) -> Text:
    return Text.from_dict({"key": payload["key"], "params": payload.get("params", {})})
