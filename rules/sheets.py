"""What every ruleset's character-file validation reports: one problem per bad field."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field


@dataclass(frozen=True)
class SheetProblem:
    """One bad field: `field` is a dotted path ("STR", "weapons.1.type"), `code` is localized with `params`."""

    field: str
    code: str
    params: dict[str, int | str] = dataclass_field(default_factory=dict)


class SheetError(Exception):
    """A sheet with problems; carries every one of them."""

    def __init__(self, problems: list[SheetProblem]) -> None:
        super().__init__(problems)
        self.problems = problems
