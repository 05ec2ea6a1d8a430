"""Settings from the environment or a `.env` file (DESIGN contract 2)."""

from __future__ import annotations

import logging
from typing import Annotated, Self

import yarl
from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_settings import NoDecode
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.health_check import MAX_PORT, HealthSettings

DEFAULT_DATABASE_URL = "sqlite:///fatebot.sqlite3"
DATABASE_URL_FORMS = "sqlite:///FILE or postgresql+asyncpg://USER:PASSWORD@HOST:PORT/NAME"


def split_ids(value: object) -> object:
    """Comma-separated ids ("1,2", as documented) rather than the JSON pydantic-settings would expect."""
    if not isinstance(value, str):
        return value
    parts = [part for part in value.replace(" ", "").split(",") if part]
    if not all(part.isdigit() for part in parts):
        raise ValueError(f"{value!r} is not whole numbers separated by commas")
    return tuple(int(part) for part in parts)


def database_url_problem(url: str) -> str | None:
    """Why the bot cannot use `url` as its database, in a sentence that never repeats a password; None if it can."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number, a host left unclosed
        return f"not a database URL: write {DATABASE_URL_FORMS}"
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        return f"{shown} is neither SQLite nor PostgreSQL, the databases the bot runs on"
    if parsed.port is not None and not 1 <= parsed.port <= MAX_PORT:
        return f"{shown} names port {parsed.port}, which no server has: ports run from 1 to {MAX_PORT}"
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() != "asyncpg":
        return f"{shown} names a driver the bot does not use: write postgresql+asyncpg://..."
    return None


class Settings(HealthSettings):
    discord_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    discord_api_base: str = "https://discord.com/api/v10"
    discord_gateway_url: str = "wss://gateway.discord.gg/"
    # NoDecode keeps pydantic-settings from expecting JSON, so "1,2" works as documented.
    command_guild_ids: Annotated[tuple[int, ...], NoDecode] = ()
    log_level: str = "INFO"
    # Whether the bot reads plain messages (numbers posted as anchors): needs the message content intent.
    read_messages: bool = False
    # Discord's sharding: how many shards the bot has in all (unset: as many as Discord recommends), and which
    # of them this process runs (unset: all). Processes sharing one PostgreSQL each run their own shards.
    shard_count: int | None = None
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = None
    # How often a process looks for waits whose deadline has passed (and, every 12 looks, for reminders due).
    deadline_poll_seconds: float = Field(default=5.0, gt=0, allow_inf_nan=False)

    @field_validator("command_guild_ids", mode="before")
    @classmethod
    def _split_guild_ids(cls, value: object) -> object:
        return split_ids(value)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _split_shard_ids(cls, value: object) -> object:
        return split_ids(value) or None

    @model_validator(mode="after")
    def _shards_fit(self) -> Self:
        if self.shard_count is not None and self.shard_count < 1:
            raise ValueError("SHARD_COUNT must be at least 1")
        if self.shard_ids is None:
            return self
        if self.shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT: the shard ids are counted out of it")
        outside = sorted({shard for shard in self.shard_ids if not 0 <= shard < self.shard_count})
        if outside:
            raise ValueError(f"SHARD_IDS {outside} are not shards of {self.shard_count} (0 to {self.shard_count - 1})")
        if len(set(self.shard_ids)) != len(self.shard_ids):
            raise ValueError("SHARD_IDS names a shard twice")
        return self

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        problem = database_url_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("discord_api_base", "discord_gateway_url")
    @classmethod
    def _web_address(cls, value: str, info: ValidationInfo) -> str:
        schemes = ("https", "http") if info.field_name == "discord_api_base" else ("wss", "ws")
        address = yarl.URL(value)
        if address.scheme not in schemes or not address.host:
            raise ValueError(f"{value!r} is not an address starting with {schemes[0]}:// or {schemes[1]}://")
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in logging.getLevelNamesMapping():
            raise ValueError(f"unknown log level {value!r}")
        return level
