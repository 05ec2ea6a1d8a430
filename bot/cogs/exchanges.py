"""Deadlines that expire on their own, and the buttons of every wait (`bot.exchange_views`) registered."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.exchange_views import WaitButton, WaitCancelButton, WaitGroupButton, WaitPageButton, pass_deadlines

if TYPE_CHECKING:
    from bot.app import Fatebot

log = logging.getLogger(__name__)


class ExchangesCog(commands.Cog):
    """Runs the deadlines: every few seconds, waits whose time is up get their default answer (in the guilds of
    this process's shards)."""

    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.deadlines.change_interval(seconds=self.bot.deadline_poll_seconds)
        self.deadlines.start()

    async def cog_unload(self) -> None:
        self.deadlines.cancel()

    @tasks.loop(seconds=5.0)
    async def deadlines(self) -> None:
        try:
            await pass_deadlines(self.bot, self.bot.own_shards)
        except Exception:  # only the look for due waits gets here (the database away): the next look tries again
            log.exception("looking for waits past their deadline failed")

    @deadlines.before_loop
    async def before_deadlines(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: Fatebot) -> None:
    bot.add_dynamic_items(WaitButton, WaitGroupButton, WaitCancelButton, WaitPageButton)
    await bot.add_cog(ExchangesCog(bot))
