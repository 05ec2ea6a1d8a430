"""Expected failures: each names a catalog key, so the one error handler can answer in the user's language."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Self

from rules.exchange import RuleError, Text, UserRef
from rules.sheets import SheetProblem


def new_error_id() -> str:
    """The id an unexpected failure is logged with and shown by, so that what someone saw leads to its log line."""
    return secrets.token_hex(4)


class UserError(Exception):
    """Bad input or a refused action: answered ephemerally, and nothing was changed.

    `fallback` is the key to use where the catalogs have no `key` (see `worded_for`); `ruleset` is the ruleset
    whose catalog words the message, when it is not a shared one (see `within`).
    """

    def __init__(self, key: str, /, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
        self.fallback: str | None = None
        self.ruleset: str | None = None

    def within(self, ruleset: str) -> Self:
        """The same error, worded by this ruleset's catalog where it has the key."""
        self.ruleset = ruleset
        return self

    @classmethod
    def worded_for(cls, kind: str, key: str, /, **params: object) -> Self:
        """The message `key.kind` where a ruleset words it for its kind of exchange, else the generic `key`."""
        error = cls(f"{key}.{kind}", **params)
        error.fallback = key
        return error


def refusal_text(refusal: UserError) -> Text:
    """A refusal as words to show later, where it ended something (a wait the rules could not go on with)."""
    params = {
        name: value if isinstance(value, str | int | Text | UserRef) else str(value)
        for name, value in refusal.params.items()
    }
    return Text(refusal.key if refusal.fallback is None else refusal.fallback, params)


class WaitClosed(UserError):
    """A click or an answer for a wait that was answered, expired or cancelled already. Where the wait was answered
    or expired, `summary` says how (worded for exchanges of `kind`) and `language` is its campaign's: a prompt still
    showing its buttons (the bot stopped between the answer and the prompt's edit) is closed with it."""

    summary: Text | None = None
    kind: str = ""
    language: str | None = None


class SheetRefused(UserError):
    """A character file or a command's details refused field by field: `key` heads the list of problems."""

    def __init__(self, key: str, problems: Sequence[SheetProblem]) -> None:
        super().__init__(key)
        self.problems = tuple(problems)


def rule_refused(error: RuleError, ruleset: str) -> UserError:
    """The one place where a ruleset's refusal becomes a reply in the player's language, in its own words."""
    key = f"rule.{error.code}" if error.variant is None else f"rule.{error.code}.{error.variant}"
    return UserError(key, **dict(error.params)).within(ruleset)
