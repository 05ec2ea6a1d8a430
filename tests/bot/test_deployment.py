"""Running on several processes: the shard settings, `/health` and `fatebot health`, and the compose deployment
(whose bots must run every shard exactly once, after the migration, with a health check)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from pydantic import ValidationError
from sqlalchemy.engine import make_url

from bot.cli import EXIT_UNFIT, EXIT_USAGE, main
from bot.health import HealthServer
from bot.health_check import check_health
from bot.settings import Settings
from tests.databases import fresh_database_url
from tests.e2e.harness import free_port, running_harness

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("environment", "complaint"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, r"SHARD_IDS \[2\] are not shards of 2"),
        ({"SHARD_COUNT": "3", "SHARD_IDS": "1,1"}, "names a shard twice"),
        ({"SHARD_COUNT": "0"}, "at least 1"),
        ({"DEADLINE_POLL_SECONDS": "0"}, "greater than 0"),
    ],
)
def test_shard_settings_that_cannot_work_are_refused(
    environment: dict[str, str], complaint: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=complaint):
        Settings(_env_file=None)
    assert main(["invite"]) == EXIT_USAGE
    assert re.search(complaint, capsys.readouterr().err), "the refusal is said"


def test_shard_ids_are_read_as_a_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", "1, 3")
    assert Settings(_env_file=None).shard_ids == (1, 3)
    monkeypatch.setenv("SHARD_IDS", "")
    assert Settings(_env_file=None).shard_ids is None


def test_health_without_a_port_or_a_process_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("HEALTH_PORT", raising=False)
    assert main(["health"]) == EXIT_USAGE
    assert "HEALTH_PORT is not set" in capsys.readouterr().err
    monkeypatch.setenv("HEALTH_PORT", str(free_port()))
    assert main(["health"]) == EXIT_UNFIT
    assert json.loads(capsys.readouterr().out)["fit"] is False


def test_health_reads_its_own_settings_and_imports_no_part_of_the_bot(tmp_path: Path) -> None:
    """The image runs `fatebot health` every 30 s: it must not import Discord, the database or the rulesets
    (a second of start-up), nor refuse to answer over settings only the bot itself reads."""
    probe = (
        "import sys\n"
        "from bot.cli import main\n"
        "status = main(['health'])\n"
        "heavy = {'discord', 'sqlalchemy', 'aiohttp', 'alembic', 'PIL', 'babel', 'rules'}\n"
        "print(status, sorted(name for name in sys.modules if name.split('.')[0] in heavy or name == 'bot.app'))\n"
    )
    environment = {**os.environ, "HEALTH_PORT": str(free_port()), "SHARD_IDS": "0", "DATABASE_URL": "mysql://x"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=environment, capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == f"{EXIT_UNFIT} []", done.stderr


async def test_health_is_fit_once_every_shard_is_connected(tmp_path: Path) -> None:
    async with fresh_database_url("sqlite", tmp_path) as url, running_harness(url) as harness:
        port = free_port()
        harness.emulator.add_guild("Fuyuki", owner=harness.emulator.add_user("kirei"))
        bot = await harness.start_bot()
        await bot.wait_until_ready()
        server = HealthServer(bot)
        await server.start("127.0.0.1", port)
        try:
            fit, report = await asyncio.to_thread(check_health, "127.0.0.1", port)
            assert fit, report
            shown = json.loads(report)
            assert shown["database"] is True and shown["shards"]["0"]["connected"] is True
            assert shown["shards"]["0"]["guilds"] == 1
            await harness.stop_bot()  # the server outlives the bot's connection here: it must say so
            fit, report = await asyncio.to_thread(check_health, "127.0.0.1", port)
            assert not fit
            assert json.loads(report)["fit"] is False
        finally:
            await server.stop()


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return loaded


def test_the_compose_bots_run_every_shard_once_after_the_migration(monkeypatch: pytest.MonkeyPatch) -> None:
    services = compose()["services"]
    bots = {name: service for name, service in services.items() if "SHARD_IDS" in service.get("environment", {})}
    assert len(bots) >= 2
    counts = {int(service["environment"]["SHARD_COUNT"]) for service in bots.values()}
    assert len(counts) == 1, "every bot is given the same shard count"
    (count,) = counts
    run = [int(shard) for service in bots.values() for shard in str(service["environment"]["SHARD_IDS"]).split(",")]
    assert sorted(run) == list(range(count)), "each shard is run by exactly one bot"
    migrate = services["migrate"]
    assert migrate["command"] == ["fatebot", "db", "upgrade"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    for service in bots.values():
        with monkeypatch.context() as environment:
            for name, value in service["environment"].items():
                environment.setenv(name, str(value))
            settings = Settings(_env_file=None)
        assert settings.database_url.startswith("postgresql+asyncpg://")
        assert settings.health_port is not None
        assert service["healthcheck"]["test"] == ["CMD", "fatebot", "health"]
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert service.get("command") is None  # the image's own: `fatebot run`


def test_the_example_settings_file_loads_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    settings = Settings(_env_file=ROOT / ".env.example")
    assert settings.shard_count is None and settings.shard_ids is None and settings.health_port is None


def test_a_health_port_taken_is_said_before_the_bot_connects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("HEALTH_PORT", str(taken.getsockname()[1]))
        monkeypatch.setenv("DISCORD_TOKEN", "unused")
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bot.sqlite3'}")
        assert main(["run"]) == EXIT_USAGE
    assert "Cannot answer health checks on 127.0.0.1:" in capsys.readouterr().err


def test_shard_ids_that_are_not_numbers_are_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SHARD_COUNT", "2")
    monkeypatch.setenv("SHARD_IDS", "0,one")
    assert main(["invite"]) == EXIT_USAGE
    assert "SHARD_IDS: '0,one' is not whole numbers separated by commas" in capsys.readouterr().err


def dockerfile_instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (INSTRUCTION, arguments), continuation lines joined."""
    joined = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    lines = [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(word.upper(), rest.strip()) for word, _, rest in (line.partition(" ") for line in lines)]


def image_settings() -> tuple[dict[str, str], str, list[str], str | None, list[str]]:
    """What the image's containers start from: its environment, working directory, volumes, user and health check."""
    environment: dict[str, str] = {}
    workdir, user = "/", None
    volumes: list[str] = []
    healthcheck: list[str] = []
    for instruction, arguments in dockerfile_instructions():
        if instruction == "ENV":
            environment.update(pair.split("=", 1) for pair in shlex.split(arguments))  # type: ignore[misc]
        elif instruction == "WORKDIR":
            workdir = str(PurePosixPath(workdir) / arguments)
        elif instruction == "VOLUME":
            volumes += json.loads(arguments) if arguments.startswith("[") else arguments.split()
        elif instruction == "USER":
            user = arguments
        elif instruction == "HEALTHCHECK":
            healthcheck = json.loads(arguments.split(" CMD ", 1)[1])
    return environment, workdir, volumes, user, healthcheck


def env_file(path: Path) -> dict[str, str]:
    """A file read as `docker run --env-file` reads it: every `NAME=value` line as it stands, quotes and all, an
    empty value setting the variable to empty text (over the image's own value); `#` lines are comments."""
    read: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, equals, value = line.lstrip().partition("=")
        if equals:
            read[name] = value
    return read


def container_environment() -> dict[str, str]:
    """`docker run --env-file .env` with `.env` copied from `.env.example`, as the deployment page says."""
    environment, *_ = image_settings()
    return environment | env_file(ROOT / ".env.example")


def test_the_documented_docker_run_keeps_its_database_on_the_volume_and_its_health_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, workdir, volumes, user, healthcheck = image_settings()
    assert user not in (None, "root", "0")
    assert volumes and healthcheck == ["fatebot", "health"]
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    for name, value in container_environment().items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    url = make_url(settings.database_url)
    assert url.get_backend_name() == "sqlite" and url.database
    stored = PurePosixPath(workdir) / url.database  # a relative file lands in the working directory
    assert any(stored.is_relative_to(volume) for volume in volumes), f"{stored} is not on a volume {volumes}"
    assert settings.health_port is not None, "the health check asks a port nobody serves"


async def test_the_documented_docker_run_migrates_onto_the_volume_only(tmp_path: Path) -> None:
    """The container's `fatebot db upgrade`, its volume and working directory being folders here: the database
    is made on the volume, and nothing is written in the working directory (which the image does not let its
    user write)."""
    _, _, volumes, _, _ = image_settings()
    volume, workdir = tmp_path / "volume", tmp_path / "app"
    volume.mkdir()
    workdir.mkdir()
    environment = {name: value for name, value in os.environ.items()
                   if name.lower() not in Settings.model_fields}  # fmt: skip
    for name, value in container_environment().items():
        environment[name] = value.replace(volumes[0].rstrip("/"), str(volume))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "db", "upgrade", env=environment, cwd=workdir,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, errors = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, errors.decode()
    assert list(workdir.iterdir()) == []
    assert (volume / "fatebot.sqlite3").stat().st_size > 0
