"""What the anka game's steps say: each outcome is a catalog line with its parameters, the first headline of a step
its title. One outcome type keeps the battle's many small steps readable in the log as they read in the channel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from bot.rulesets.base import Report
from rules.exchange import Outcome, Text

EVENT = "anka.told"


class Told(Outcome):
    event: ClassVar[str] = EVENT

    key: str
    params: dict[str, Any] = Field(default_factory=dict)
    headline: bool = False

    def text(self) -> Text:
        return Text.from_dict({"key": self.key, "params": self.params})


def told(key: str, /, *, headline: bool = False, **params: str | int | Text) -> Told:
    return Told(
        key=key,
        headline=headline,
        params={name: value.to_dict() if isinstance(value, Text) else value for name, value in params.items()},
    )


def report(outcomes: Sequence[Outcome]) -> Report:
    """The step's lines in the order they happened; one that opens the step with a headline is its title."""
    lines = [outcome for outcome in outcomes if isinstance(outcome, Told)]
    if lines and lines[0].headline:
        return Report(lines[0].text(), notes=tuple(line.text() for line in lines[1:]))
    return Report(notes=tuple(line.text() for line in lines))


def log_text(payload: Mapping[str, Any]) -> Text:
    return Text.from_dict({"key": payload["key"], "params": payload.get("params", {})})
