"""The `fatebot` command: run against a Discord-compatible server, local scripts, db upgrade."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import shutil
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import discord
import pytest
from sqlalchemy.engine import make_url

from bot.cli import main
from bot.emulator import Emulator
from bot.rulesets.registry import RULESETS
from tests.databases import POSTGRES_ADMIN_URL, fresh_database_url

SCRIPT = """\
# a campaign, a public roll, a secret roll in Chinese, a Japanese player, and the end
alice: /campaign start ruleset:fate_points name:"Fuyuki War"
bob: /roll dice:4d6kh3 label:Strength
mei@zh-CN: /roll dice:1d20+5 secret:true label:潜行
ken@ja #general/side: /campaign info
alice: /campaign gm user:@bob
alice: /campaign end
alice: click End the campaign
bob: /log export format:csv
"""


def _clean_environment(tmp_path: Path) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("DISCORD_", "DATABASE_"))}
    environment["DATABASE_URL"] = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    return environment


def _play(tmp_path: Path, script: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "script.txt"
    path.write_text(script, encoding="utf-8")
    code = main(["local", "--script", str(path), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_script_output_is_one_json_object_per_bot_message_and_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, first, _ = _play(tmp_path, SCRIPT, capsys, "--seed", "5")
    assert code == 0
    records = [json.loads(line) for line in first.splitlines()]
    by_step: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        by_step.setdefault(record["step"], []).append(record)
    assert by_step[2][0]["user"] == "*"
    assert "Fuyuki War" in str(by_step[2][0]["content"])
    secret = by_step[4]
    assert {(record["user"], record["channel"], record["ephemeral"]) for record in secret} == {
        ("mei", "general", True),
        ("*", "general", False),
        ("alice", "dm", False),
    }
    assert by_step[5][0]["channel"] == "general/side"
    assert by_step[5][0]["embeds"][0]["fields"][0]["name"] == "ルール"
    assert by_step[7][0]["buttons"] == ["End the campaign", "Keep playing"]
    assert by_step[9][-1]["files"] == ["campaign-1-log.csv"]
    assert set(records[0]) == {
        "step",
        "user",
        "speaker",
        "channel",
        "ephemeral",
        "edit",
        "content",
        "embeds",
        "buttons",
        "files",
        "paths",
    }
    _, second, _ = _play(tmp_path, SCRIPT, capsys, "--seed", "5")
    assert second == first


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("alice: /campain start ruleset:fate_points", "campain"),
        ("alice: /campaign start ruleset:fate_points colour:red", "colour"),
        ("alice: /campaign gm user:@nobody", "@nobody"),
        ("alice: click Nonexistent", "Nonexistent"),
        ("alice /roll dice:1d6", "cannot read"),
    ],
)
def test_script_errors_stop_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, complaint: str
) -> None:
    code, _, err = _play(tmp_path, f"alice: /roll dice:1d6\n{line}\n", capsys)
    assert code == 1
    assert "line 2" in err
    assert complaint in err


async def test_interactive_local_session(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "local", "--seed", "2",
        env=_clean_environment(tmp_path), cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    session = (
        "alice: /campaign start ruleset:grail_zh name:Chaldea\nbob: /campaign sett\nbob: /roll dice:1d1\n"
        "alice #table: /campaign start ruleset:fate_points name:Fuyuki\nbob #table: /character create kind:master\n"
        "alice #table: complete /campaign set option:fp\n"
    )
    output, _ = await asyncio.wait_for(process.communicate(session.encode()), timeout=60)
    text = output.decode()
    assert process.returncode == 0
    assert "[general] (everyone)\n  Campaign **Chaldea**" in text
    assert "error: /campaign has no subcommand 'sett'" in text
    assert "1d1 [1] = 1" in text
    assert "Campaign **Fuyuki** (Fate/Points (d20 roll-under)) starts in this channel. GM: @alice." in text
    assert '(a form for bob) New Master\n  Character sheet (YAML) (submit character-sheet-yaml:"..."), now:' in text
    assert "fp_duration: roll (send fp_duration)" in text


async def _local_run(tmp_path: Path, lines: str, *options: str) -> str:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "local",
        *options,
        env=_clean_environment(tmp_path),
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    output, _ = await asyncio.wait_for(process.communicate(lines.encode()), timeout=60)
    assert process.returncode == 0
    return output.decode()


async def test_a_second_interactive_run_continues_the_campaign_and_fresh_starts_over(tmp_path: Path) -> None:
    # Unseeded, so ids come from the clock: the server, channel and users keep theirs only because they are kept.
    first = await _local_run(tmp_path, "alice: /campaign start ruleset:fate_points name:Fuyuki\nbob: /roll dice:1d1\n")
    assert "Campaign **Fuyuki**" in first and "Continuing" not in first
    assert (tmp_path / "fatebot-local.sqlite3").exists() and not (tmp_path / "fatebot.sqlite3").exists()

    # bob speaks first this time; alice still owns the server and is still the GM.
    second = await _local_run(tmp_path, "bob: /campaign info\nalice: /gm pending\nbob: /gm pending\n")
    assert "Continuing the world kept in fatebot-local.sqlite3" in second
    assert "Fuyuki" in second and "There is no active campaign" not in second
    assert second.count("Only a GM of this campaign can do that.") == 1  # bob's, not alice's

    fresh = await _local_run(tmp_path, "bob: /campaign info\n", "--fresh")
    assert "There is no active campaign in this channel." in fresh and "Continuing" not in fresh


def test_run_without_a_token_says_so_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert main(["run"]) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


def test_invite_prints_the_url_with_the_scopes_and_permissions_from_the_tokens_application(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # A bot token opens with its user's id in base64, unpadded.
    monkeypatch.setenv("DISCORD_TOKEN", "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.secret-part")
    assert main(["invite"]) == 0
    url, names = capsys.readouterr().out.splitlines()
    query = parse_qs(urlparse(url).query)
    assert urlparse(url).netloc == "discord.com" and query["client_id"] == ["123456789012345678"]
    assert query["scope"] == ["bot applications.commands"]
    granted = discord.Permissions(int(query["permissions"][0]))
    assert granted == discord.Permissions(
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
        manage_webhooks=True,
    )
    assert "Manage Webhooks" in names and "Administrator" not in names

    assert main(["invite", "--application-id", "42"]) == 0
    assert "client_id=42&" in capsys.readouterr().out

    monkeypatch.setenv("DISCORD_TOKEN", "not a token")
    assert main(["invite"]) == 2
    assert "--application-id" in capsys.readouterr().err
    monkeypatch.delenv("DISCORD_TOKEN")
    assert main(["invite"]) == 2
    assert "DISCORD_TOKEN is not set" in capsys.readouterr().err


def test_run_says_when_discord_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "any")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'run.sqlite3'}")
    # Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:9/api/v10")
    assert main(["run"]) == 1
    assert "Cannot reach Discord at http://127.0.0.1:9/api/v10" in capsys.readouterr().err


def test_db_upgrade_creates_the_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'upgraded.sqlite3'}")
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "upgraded.sqlite3").stat().st_size > 0


async def test_run_logs_in_syncs_to_the_configured_guild_and_serves(tmp_path: Path) -> None:
    async with Emulator() as emulator:
        gm = emulator.add_user("gm")
        guild = emulator.add_guild("Remote", owner=gm)
        channel = emulator.add_channel(guild, "table")
        environment = _clean_environment(tmp_path) | {
            "DISCORD_TOKEN": emulator.bot_token,
            "DISCORD_API_BASE": emulator.api_base,
            "DISCORD_GATEWAY_URL": emulator.gateway_url,
            "COMMAND_GUILD_IDS": str(guild.id),
        }
        with (tmp_path / "run.log").open("wb") as log:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "run", env=environment, cwd=tmp_path, stderr=log
            )
        try:
            await emulator.wait_ready(timeout=30)
            assert emulator.commands() == []
            synced = {command["name"] for command in emulator.commands(guild)}
            assert synced >= {"attack", "campaign", "character", "check", "combat", "gm", "log", "roll"}
            reply = (await emulator.slash(gm, channel, "roll", {"dice": "1d1+1"})).reply
            assert reply.embeds[0]["description"] == "1d1 [1] + 1 = 2"
        finally:
            process.send_signal(signal.SIGINT)
            await asyncio.wait_for(process.wait(), timeout=20)


def test_bench_times_every_rulesets_commands_against_the_floor(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--channels", "1", "--rounds", "2"]) == 0
    table = capsys.readouterr().out
    rows = [line.split() for line in table.splitlines()]
    assert sum(row[:2] == ["floor", "before"] or row[:2] == ["floor", "after"] for row in rows) == 2
    timed = {(row[0], " ".join(row[1:-10])) for row in rows if len(row) > 10 and row[0] != "ruleset"}
    for ruleset in ("fate_points", "crest_magia", "grail_zh", "grail_anka"):
        assert {(ruleset, "/roll"), (ruleset, "/character show"), (ruleset, "/log show")} <= timed
    assert {("fate_points", "/check"), ("fate_points", "Dodge click")} <= timed
    for declared in RULESETS.values():  # each ruleset's exchange, move by move (a click only where dice left one)
        assert declared.bench is not None, declared.id
        assert {(declared.id, move.name) for move in declared.bench.moves if move.command} <= timed
    assert ("grail_anka", "/check") not in timed  # its checks are a GM's `/anka check`
    assert any(line.startswith("bursts: ") and line.endswith("a second") for line in table.splitlines())
    assert any(line.startswith("cpu: ") and "peak memory" in line for line in table.splitlines())
    assert main(["bench", "--channels", "0"]) == 2
    assert main(["bench", "--processes", "2"]) == 2  # several processes share PostgreSQL, not a SQLite file
    assert "PostgreSQL" in capsys.readouterr().err  # refusals are said where every command says them


def test_bench_compares_the_empty_database_with_one_that_stores_other_campaigns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--channels", "1", "--rounds", "2", "--stored", "20", "--stored-events", "30"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("sqlite, 20 other campaigns stored: ") for line in lines)
    filled = next(line for line in lines if line.startswith("stored: "))
    written = lines[lines.index(filled) + 1]
    assert "20 campaigns" in written and "600 events" in written
    assert "40 memberships" in written and "20 exchange_roles" in written
    assert any(
        line.startswith("the stored run's database held 20 other campaigns and 600 of their events") for line in lines
    )
    assert any(
        line.startswith("peak memory of this process in each run: ") and line.endswith("MB stored") for line in lines
    )
    compared = lines[lines.index(filled) :]
    ratios = {
        (row[0], " ".join(row[1:-6])) for row in map(str.split, compared) if len(row) > 6 and row[-1].endswith("x")
    }
    second = next(number for number, line in enumerate(lines) if line.startswith("sqlite, 20 other campaigns"))
    runs = [lines[:second], lines[second : lines.index(filled)]]
    empty, stored = (
        {(row[0], " ".join(row[1:-10])) for row in map(str.split, run) if len(row) > 10 and row[0] in RULESETS}
        for run in runs
    )
    # every command timed in both runs (a click only where the dice left one), with its ratio
    assert ratios == empty & stored and len(ratios) >= len(RULESETS) * 3
    assert all(len(line) <= 120 for line in lines)
    assert main(["bench", "--stored", "-1"]) == 2
    assert "--stored" in capsys.readouterr().err
    for option in ("--stored", "--stored-events"):
        with pytest.raises(SystemExit) as stopped:  # argparse's own refusal, as for every option
            main(["bench", option, "many"])
        assert stopped.value.code == 2
        assert f"{option}: invalid int value: 'many'" in capsys.readouterr().err


@pytest.mark.skipif(POSTGRES_ADMIN_URL is None, reason="several bot processes share a PostgreSQL database")
async def test_bench_runs_the_bot_as_one_process_per_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with fresh_database_url("postgresql", tmp_path) as url:
        arguments = ["bench", "--processes", "2", "--channels", "2", "--rounds", "1", "--database", url]
        assert await asyncio.to_thread(main, arguments) == 0
    table = capsys.readouterr().out
    assert "postgresql, 2 bot processes" in table
    assert any(line.split()[:2] == ["fate_points", "/roll"] for line in table.splitlines())
    assert any(line.startswith("cpu: ") and "in the bot's" in line for line in table.splitlines())


# Nothing listens on port 9 (discard) of loopback: a connection there is refused at once.
UNREACHABLE = "postgresql+asyncpg://fatebot:secret@127.0.0.1:9/fatebot"
SHOWN_UNREACHABLE = "postgresql+asyncpg://fatebot:***@127.0.0.1:9/fatebot"
MISSING_ROLE = (
    make_url(POSTGRES_ADMIN_URL).set(username="no_such_role", password="secret").render_as_string(hide_password=False)
    if POSTGRES_ADMIN_URL
    else None
)
FAILURES = [
    (["db", "upgrade"], {"DATABASE_URL": UNREACHABLE}, 1, f"Cannot use the database at {SHOWN_UNREACHABLE}: "),
    (["db", "upgrade"], {"DATABASE_URL": "sqlite:///{tmp}/no/such/folder/bot.sqlite3"}, 1,
     "Cannot use the database at sqlite:///{tmp}/no/such/folder/bot.sqlite3: "),
    (["db", "upgrade"], {"DATABASE_URL": "fatebot.sqlite3"}, 2, "DATABASE_URL: not a database URL"),
    (["db", "upgrade"], {"DATABASE_URL": "mysql://fatebot:secret@db/fatebot"}, 2,
     "DATABASE_URL: mysql://fatebot:***@db/fatebot is neither SQLite nor PostgreSQL"),
    (["db", "upgrade"], {"DATABASE_URL": "postgresql://fatebot:secret@db/fatebot"}, 2,
     "DATABASE_URL: postgresql://fatebot:***@db/fatebot names a driver the bot does not use"),
    (["db", "backup", "saved.sqlite3"], {"DATABASE_URL": UNREACHABLE}, 2, "`fatebot db backup` and `restore` work on"),
    (["db", "backup", "/proc/no/saved.sqlite3"], {}, 2, "Cannot write /proc/no/saved.sqlite3 ("),
    (["db", "backup", "saved.sqlite3"], {"DATABASE_URL": "sqlite:///{tmp}/none.sqlite3"}, 2,
     "There is no database at {tmp}/none.sqlite3 yet."),
    (["db", "restore", "missing.sqlite3", "--yes"], {}, 2, "There is no backup at missing.sqlite3."),
    (["db", "restore", "bot.sqlite3", "--yes"], {"DATABASE_URL": UNREACHABLE}, 2,
     "`fatebot db backup` and `restore` work on SQLite; for postgresql, use pg_dump while the bots run and "
     "pg_restore with every bot stopped"),
    (["db", "copy", "--to", UNREACHABLE], {}, 2, f"The database to fill cannot be used: {SHOWN_UNREACHABLE}: "),
    (["db", "copy", "--to", "sqlite:///{tmp}/copy.sqlite3"], {"DATABASE_URL": UNREACHABLE}, 2,
     f"The database to copy cannot be read: {SHOWN_UNREACHABLE}: "),
    (["local", "--script", "missing.txt"], {}, 2, "cannot read the script: "),
    (["local", "--script", "script.txt", "--database", UNREACHABLE], {}, 1,
     f"Cannot use the database at {SHOWN_UNREACHABLE}: "),
    (["local", "--database", "nonsense"], {}, 2, "--database: not a database URL"),
    (["bench", "--database", UNREACHABLE], {}, 1, f"Cannot use the database at {SHOWN_UNREACHABLE}: "),
    (["health"], {"HEALTH_PORT": "99999"}, 2, "HEALTH_PORT: "),
    (["run"], {"DISCORD_TOKEN": "any", "DISCORD_API_BASE": "discord.com/api"}, 2, "DISCORD_API_BASE: "),
    (["run"], {"DISCORD_TOKEN": "any", "DISCORD_GATEWAY_URL": "https://gateway.discord.gg"}, 2,
     "DISCORD_GATEWAY_URL: "),
    (["run"], {"DISCORD_TOKEN": "any", "DATABASE_URL": "sqlite:///{tmp}/no/such/folder/bot.sqlite3"}, 1,
     "Cannot use the database at sqlite:///{tmp}/no/such/folder/bot.sqlite3: "),
    # URLs that parse as no server could be: a port out of range, a host left unclosed, in each place a URL is given
    (["db", "upgrade"], {"DATABASE_URL": "postgresql+asyncpg://fatebot:secret@127.0.0.1:99999/fatebot"}, 2,
     "DATABASE_URL: postgresql+asyncpg://fatebot:***@127.0.0.1:99999/fatebot names port 99999, which no server has"),
    (["bench", "--database", "postgresql+asyncpg://fatebot:secret@127.0.0.1:70000/fatebot"], {}, 2,
     "--database: postgresql+asyncpg://fatebot:***@127.0.0.1:70000/fatebot names port 70000"),
    (["local", "--database", "postgresql+asyncpg://fatebot:secret@[::1/fatebot"], {}, 2,
     "--database: not a database URL"),
    (["db", "copy", "--to", "postgresql+asyncpg://fatebot:secret@[::1/fatebot"], {}, 2, "--to: not a database URL"),
    (["db", "copy", "--to", "nonsense"], {}, 2, "--to: not a database URL"),
    (["health"], {"HEALTH_PORT": "8080", "HEALTH_HOST": "[::1"}, 2, "HEALTH_HOST: '[::1' is neither an IP address"),
    (["health"], {"HEALTH_PORT": "8080", "HEALTH_HOST": "bot host"}, 2, "HEALTH_HOST: 'bot host' is neither"),
    (["run"], {"DISCORD_TOKEN": "any", "DEADLINE_POLL_SECONDS": "inf"}, 2, "DEADLINE_POLL_SECONDS: "),
    # the files `_lay_out_odd_files` leaves in the working folder
    (["local", "--script", "latin1.txt"], {}, 2, "cannot read the script: it is not UTF-8 text"),
    (["db", "backup", "saved.sqlite3"], {"DATABASE_URL": "sqlite:///{tmp}/folder"}, 2,
     "Cannot read the database {tmp}/folder ("),
    (["db", "backup", "saved.sqlite3"], {"DATABASE_URL": "sqlite:///{tmp}/plain.sqlite3"}, 2,
     "{tmp}/plain.sqlite3 is not a fatebot database: no backup was written."),
    (["db", "restore", "newer.sqlite3", "--yes"], {}, 2,
     "newer.sqlite3 was written by a newer version of the bot: restore it with that version"),
    (["db", "restore", "folder", "--yes"], {}, 2, "That file is not a SQLite database ("),
    (["db", "restore", "./bot.sqlite3", "--yes"], {}, 2, "bot.sqlite3 is the database itself: name a backup"),
    (["db", "upgrade"], {"DATABASE_URL": "sqlite:///{tmp}/newer.sqlite3"}, 2,
     "The database at sqlite:///{tmp}/newer.sqlite3 was migrated by a newer version of the bot"),
    (["local", "--script", "script.txt", "--database", "sqlite:///{tmp}/newer.sqlite3"], {}, 2,
     "The database at sqlite:///{tmp}/newer.sqlite3 was migrated by a newer version of the bot"),
    (["db", "copy", "--to", "sqlite:///{tmp}/copy.sqlite3"], {"DATABASE_URL": "sqlite:///{tmp}/newer.sqlite3"}, 2,
     "sqlite:///{tmp}/newer.sqlite3 was migrated by a newer version of the bot: copy it with that version."),
]  # fmt: skip
if MISSING_ROLE is not None:
    shown = make_url(MISSING_ROLE).render_as_string(hide_password=True)
    FAILURES.append((["db", "upgrade"], {"DATABASE_URL": MISSING_ROLE}, 1,
                     f'Cannot use the database at {shown}: role "no_such_role" does not exist'))  # fmt: skip


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("migrated") / "bot.sqlite3"
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("DATABASE_URL", f"sqlite:///{path}")
        assert main(["db", "upgrade"]) == 0
    return path


@pytest.mark.parametrize(("arguments", "environment", "code", "message"), FAILURES)
def test_each_command_fails_in_one_sentence_with_a_failing_exit(
    arguments: list[str], environment: dict[str, str], code: int, message: str, migrated: Path,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL", "HEALTH_PORT"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "script.txt").write_text("alice: /roll dice:1d6\n", encoding="utf-8")
    environment = {"DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}"} | environment
    for name, value in environment.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    shutil.copy(migrated, tmp_path / "bot.sqlite3")
    _lay_out_odd_files(tmp_path, migrated)
    before = (tmp_path / "bot.sqlite3").read_bytes()
    assert main([argument.format(tmp=tmp_path) for argument in arguments]) == code
    said = capsys.readouterr().err
    assert said.startswith(message.format(tmp=tmp_path)), said
    assert said.count("\n") == 1 and len(said) < 400, said
    assert "secret" not in said
    assert (tmp_path / "bot.sqlite3").read_bytes() == before, "a refusal changes nothing"
    assert not (tmp_path / "saved.sqlite3").exists(), "no file is left that would pass for a backup"


def _lay_out_odd_files(folder: Path, migrated: Path) -> None:
    """A folder, a SQLite file that is not the bot's, a backup from a newer version, a script that is not UTF-8."""
    (folder / "folder").mkdir()
    with closing(sqlite3.connect(folder / "plain.sqlite3")) as plain:
        plain.execute("CREATE TABLE notes (text)")
        plain.commit()
    shutil.copy(migrated, folder / "newer.sqlite3")
    with closing(sqlite3.connect(folder / "newer.sqlite3")) as newer:
        newer.execute("UPDATE alembic_version SET version_num = 'from_a_later_version'")
        newer.commit()
    (folder / "latin1.txt").write_bytes("alice: /roll dice:1d6 label:Stärke\n".encode("latin-1"))


def test_an_env_file_that_is_not_utf8_is_said_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_bytes("LOG_LEVEL=INFO\nDISCORD_TOKEN=clé\n".encode("latin-1"))
    assert main(["health"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(".env is not UTF-8 text") and said.count("\n") == 1, said


class _FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "arguments", [["local", "--script", "script.txt"], ["local"], ["bench", "--channels", "1", "--rounds", "1"]]
)
def test_output_that_cannot_be_written_fails_and_is_not_called_a_database_failure(
    arguments: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    lines = "alice: /roll dice:1d6\nalice: /roll dice:1d8\n"
    (tmp_path / "script.txt").write_text(lines, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    assert main(arguments) == 1
    said = capsys.readouterr().err
    assert said == f"Cannot write the output: [Errno {errno.ENOSPC}] {os.strerror(errno.ENOSPC)}\n"


async def test_run_says_when_its_database_cannot_be_used_once_discord_answers(tmp_path: Path) -> None:
    async with Emulator() as emulator:
        environment = _clean_environment(tmp_path) | {
            "DISCORD_TOKEN": emulator.bot_token,
            "DISCORD_API_BASE": emulator.api_base,
            "DISCORD_GATEWAY_URL": emulator.gateway_url,
            "DATABASE_URL": UNREACHABLE,
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", env=environment, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        _, said = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 1
    text = said.decode()
    assert text.startswith(f"Cannot use the database at {SHOWN_UNREACHABLE}: ") and text.count("\n") == 1, text
    assert "Connect call failed ('127.0.0.1', 9)" in text
