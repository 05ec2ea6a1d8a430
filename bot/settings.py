"""Settings from the environment or a `.env` file (DESIGN contract 2)."""

from __future__ import annotations

import logging
from typing import Annotated

from pydantic import field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///fatebot.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    discord_api_base: str = "https://discord.com/api/v10"
    discord_gateway_url: str = "wss://gateway.discord.gg/"
    # NoDecode keeps pydantic-settings from expecting JSON, so "1,2" works as documented.
    command_guild_ids: Annotated[tuple[int, ...], NoDecode] = ()
    log_level: str = "INFO"
    # Whether the bot reads plain messages (numbers posted as anchors): needs the message content intent.
    read_messages: bool = False

    @field_validator("command_guild_ids", mode="before")
    @classmethod
    def _split_guild_ids(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(int(part) for part in value.replace(" ", "").split(",") if part)
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in logging.getLevelNamesMapping():
            raise ValueError(f"unknown log level {value!r}")
        return level
