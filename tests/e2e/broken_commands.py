"""A ruleset's commands that cannot load: their setup fails, as a bad release of one ruleset's code would."""

from __future__ import annotations

from bot.app import Fatebot


async def setup(bot: Fatebot) -> None:
    raise RuntimeError("these commands fail to load")
