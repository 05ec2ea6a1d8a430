"""A local Discord (REST + gateway) that an unmodified discord.py bot can connect to.

Point discord.py at it with `discord.http.Route.BASE = emulator.api_base` and
`discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emulator.gateway_url)`.
"""

from bot.emulator.clock import Clock
from bot.emulator.models import (
    EVERYONE,
    ApiFailure,
    Attachment,
    Audience,
    BotOutput,
    Channel,
    EmulatorError,
    Guild,
    InteractionRecord,
    Message,
    User,
)
from bot.emulator.server import Emulator
from bot.emulator.validation import COMMAND_SIZE_LIMIT, ApiError

__all__ = [
    "COMMAND_SIZE_LIMIT",
    "EVERYONE",
    "ApiError",
    "ApiFailure",
    "Attachment",
    "Audience",
    "BotOutput",
    "Channel",
    "Clock",
    "Emulator",
    "EmulatorError",
    "Guild",
    "InteractionRecord",
    "Message",
    "User",
]
