"""The readings of the few expressions that dice engines read differently.

Most notation means the same everywhere, but two forms clash: `5d10>7` counts the dice above 7 in Roll20 (and
in this engine's own reading), while BCDice and Avrae's d20 compare the total with 7; `4d6k3` keeps the highest
three in Roll20 and BCDice-like readings, while d20 keeps the dice showing 3. A table reads them one way, so a
campaign chooses its dialect, and its language chooses for it until then: BCDice is the dice engine of Japanese
tables, whose most common roll is `2D6>=7`.
"""

from dataclasses import dataclass
from typing import Final, Literal, get_args

DiceDialect = Literal["roll20", "bcdice", "d20"]
DIALECTS: Final[tuple[DiceDialect, ...]] = get_args(DiceDialect)
DEFAULT_DIALECT: Final[DiceDialect] = "roll20"
# The language (as the bot's catalogs name it) whose tables read dice as BCDice does.
_BCDICE_LANGUAGE: Final = "ja"


@dataclass(frozen=True)
class Reading:
    # `2d6>=7` compares the total with 7 (else: counts the dice showing 7 or more).
    compares_totals: bool
    # `4d6k3` keeps the dice showing 3 (else: the highest three).
    keeps_faces: bool


READINGS: Final[dict[DiceDialect, Reading]] = {
    "roll20": Reading(compares_totals=False, keeps_faces=False),
    "bcdice": Reading(compares_totals=True, keeps_faces=False),
    "d20": Reading(compares_totals=True, keeps_faces=True),
}


def dialect_for_language(language: str) -> DiceDialect:
    """The dialect a table speaking `language` reads, until a GM chooses one."""
    return "bcdice" if language == _BCDICE_LANGUAGE else DEFAULT_DIALECT
