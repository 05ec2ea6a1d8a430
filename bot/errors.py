"""Expected failures: each names a catalog key, so the one error handler can answer in the user's language."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused action: answered ephemerally, and nothing was changed."""

    def __init__(self, key: str, /, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
