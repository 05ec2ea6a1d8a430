"""`fatebot health`: ask the bot process running here whether it is fit (`bot/health.py` answers).

A container runs this every 30 seconds, so it imports only the settings it reads: no Discord, no database.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.hosts import is_host

HEALTH_PATH = "/health"
MAX_PORT = 65535


class HealthSettings(BaseSettings):
    """What `fatebot health` reads: where the bot process answers (the bot's own `Settings` extend it). Nothing
    else is read, so that the check reports on the process, not on settings only the bot itself uses."""

    # A setting left empty (`SHARD_COUNT=` in .env) takes its default, as if it were not there.
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True)

    # Where `GET /health` answers whether every shard of the process is connected and the database answers.
    health_port: int | None = Field(default=None, ge=1, le=MAX_PORT)
    health_host: str = "127.0.0.1"

    @field_validator("health_host")
    @classmethod
    def _host(cls, value: str) -> str:
        if not is_host(value):
            raise ValueError(f"{value!r} is neither an IP address nor a host name")
        return value


def check_health(host: str, port: int, timeout: float = 5.0) -> tuple[bool, str]:
    """Whether the process answering on the port is fit, and its report or why it could not be read."""
    address = f"http://{host}:{port}{HEALTH_PATH}"
    try:
        with urllib.request.urlopen(address, timeout=timeout) as response:
            return True, response.read().decode()
    except urllib.error.HTTPError as unfit:
        return False, unfit.read().decode()
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        return False, json.dumps({"fit": False, "unreachable": f"{address}: {error}"})
