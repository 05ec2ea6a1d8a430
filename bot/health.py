"""`GET /health`: whether a bot process is fit to serve, for a container's health check and for a person looking.

Fit means: the bot has connected, every shard it runs is connected, and the database answers within a
moment. The answer is JSON with the figures worth watching (each shard's guilds and heartbeat latency).
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any

from aiohttp import web
from sqlalchemy import text

from bot.health_check import HEALTH_PATH

if TYPE_CHECKING:
    from bot.app import Fatebot

DATABASE_ANSWERS_WITHIN_SECONDS = 2.0


async def health_report(bot: Fatebot) -> tuple[bool, dict[str, Any]]:
    """Whether the process is fit, and what was looked at."""
    running = bot.own_shards
    connected = bot.shards
    guilds: dict[int, int] = dict.fromkeys(running.ids, 0)
    for guild in bot.guilds:
        if guild.shard_id in guilds:
            guilds[guild.shard_id] += 1
    shards = {
        str(shard_id): {
            "connected": shard_id in connected and not connected[shard_id].is_closed(),
            "guilds": guilds[shard_id],
            "latency_ms": _milliseconds(connected[shard_id].latency) if shard_id in connected else None,
        }
        for shard_id in sorted(running.ids)
    }
    database = await _database_answers(bot)
    fit = bot.is_ready() and not bot.is_closed() and database and all(s["connected"] for s in shards.values())
    return fit, {
        "fit": fit,
        "ready": bot.is_ready(),
        "database": database,
        "shard_count": running.count,
        "shards": shards,
    }


def _milliseconds(seconds: float) -> int | None:
    # discord.py reports an infinite latency before the first heartbeat is acknowledged.
    return round(seconds * 1000) if math.isfinite(seconds) else None


async def _database_answers(bot: Fatebot) -> bool:
    try:
        async with asyncio.timeout(DATABASE_ANSWERS_WITHIN_SECONDS), bot.database.read() as session:
            await session.execute(text("SELECT 1"))
    except Exception:  # whatever the failure (refused, timed out, locked), the process is not fit
        return False
    return True


class HealthServer:
    """A small HTTP server beside the bot, on the port the settings give."""

    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        self._runner: web.AppRunner | None = None

    async def start(self, host: str, port: int) -> None:
        app = web.Application()
        app.router.add_get(HEALTH_PATH, self._health)
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        self._runner = runner

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _health(self, _request: web.Request) -> web.Response:
        fit, report = await health_report(self.bot)
        return web.json_response(report, status=200 if fit else 503)
