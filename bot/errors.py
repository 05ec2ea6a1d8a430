"""Expected failures: each names a catalog key, so the one error handler can answer in the user's language."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused action: answered ephemerally, and nothing was changed.

    `fallback` is the key to use where the catalogs have no `key` (see `worded_for`).
    """

    def __init__(self, key: str, /, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
        self.fallback: str | None = None

    @classmethod
    def worded_for(cls, kind: str, key: str, /, **params: object) -> UserError:
        """The message `key.kind` where a ruleset words it for its kind of exchange, else the generic `key`."""
        error = cls(f"{key}.{kind}", **params)
        error.fallback = key
        return error
