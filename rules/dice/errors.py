"""The single exception type of the dice engine, keyed by machine-readable codes."""

from typing import Final, Literal, get_args

DiceErrorCode = Literal[
    "empty",
    "syntax",
    "too_long",
    "comment_too_long",
    "too_deep",
    "too_many_dice",
    "too_many_dice_rolled",
    "too_many_sides",
    "too_many_repeats",
    "too_large",
    "zero_dice",
    "zero_sides",
    "zero_repeats",
    "zero_keep_drop",
    "always_explodes",
    "always_rerolls",
    "duplicate_modifier",
    "bad_success_use",
    "division_by_zero",
]

ERROR_CODES: Final[frozenset[str]] = frozenset(get_args(DiceErrorCode))


class DiceError(Exception):
    """A refused or failed roll.

    `code` and `params` are the contract: callers localize them. The string form exists only for logs.
    """

    def __init__(self, code: DiceErrorCode, **params: int | str) -> None:
        super().__init__(code, params)
        self.code: DiceErrorCode = code
        self.params: dict[str, int | str] = params

    def __str__(self) -> str:
        details = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        return f"{self.code}({details})"
