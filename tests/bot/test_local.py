"""`fatebot local` as a newcomer uses it: files, forms, autocomplete, readable mentions, quiet logs."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.emulator.models import Attachment, Message, User
from bot.local import AttachmentFolder, run_local

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "examples" / "fifth-war" / "script.txt"


def _run(script: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["local", "--script", str(script), *extra])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def _texts(records: list[dict[str, Any]]) -> str:
    return json.dumps(records, ensure_ascii=False)


def test_the_documented_example_campaign_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    page = (PROJECT / "docs" / "local.md").read_text(encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") in page
    code, records, err = _run(EXAMPLE, capsys, "--seed", "1")
    assert code == 0, err
    titles = [embed["title"] for record in records for embed in record.get("embeds", [])]
    for name in ("Rin Tohsaka", "Archer", "Sakura Matou", "Rider"):
        assert any(title.startswith(f"{name} joins the campaign") for title in titles), name
    form = next(record["form"] for record in records if "form" in record)
    assert form["fields"][0]["name"] == "character-sheet-yaml"
    assert form["fields"][0]["text"].startswith("kind: master")
    choices = next(record["choices"] for record in records if "choices" in record)
    assert {"name": "melee · Kanshou and Bakuya (sword)", "value": "melee|Kanshou and Bakuya"} in choices
    contents = [record.get("content") or "" for record in records]
    assert "Archer's sheet was approved by @alice: Archer may act." in contents
    assert "Rider answered: Dodge." in contents
    assert any(content.startswith("@alice approved: Rin Tohsaka spends a Fate/Point") for content in contents)
    assert titles[-1] == "Log of Fifth War"
    # Mentions and times read as people see them in Discord.
    shown = _texts(records)
    assert "GM: @alice." in shown
    assert "<@" not in shown and "<t:" not in shown and "<#" not in shown


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "script.txt"
    path.write_text(text, encoding="utf-8")
    return path


START = 'alice: /campaign start ruleset:fate_points name:"Forms"\n'


def test_a_named_field_is_submitted_and_the_form_is_gone_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = "kind: master\\nname: Waver Velvet\\nSTR: 2\\nEND: 3\\nAGI: 3\\nMAG: 4\\nLUK: 3"
    script = START + f'bob: /character create kind:master\nbob: submit character-sheet-yaml:"{sheet}"\n'
    code, records, err = _run(_script(tmp_path, script), capsys)
    assert code == 0, err
    assert any(embed["title"].startswith("Waver Velvet joins") for r in records for embed in r.get("embeds", []))
    code, _, err = _run(_script(tmp_path, script + 'bob: submit "kind: master"\n'), capsys)
    assert code == 1
    assert "line 4: no form is open for bob" in err


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ('bob: submit sheet:"x"', "the form has no field 'sheet' (it has: character-sheet-yaml)"),
        ('mei: submit "kind: master"', "no form is open for mei"),
        ("bob: /character import file:<missing.yaml", "cannot attach missing.yaml"),
        ("bob: complete /attack", "complete needs the option being typed"),
    ],
)
def test_forms_files_and_completion_say_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, complaint: str
) -> None:
    script = START + "bob: /character create kind:master\n" + line + "\n"
    code, _, err = _run(_script(tmp_path, script), capsys)
    assert code == 1
    assert f"line 3: {complaint}" in err


def test_a_file_is_found_beside_the_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sheets").mkdir()
    sheet = "kind: master\nname: Kiritsugu\nSTR: 3\nEND: 3\nAGI: 3\nMAG: 3\nLUK: 3\n"
    (tmp_path / "sheets" / "kiritsugu.yaml").write_text(sheet, encoding="utf-8")
    code, records, err = _run(_script(tmp_path, START + "bob: /character import file:<sheets/kiritsugu.yaml\n"), capsys)
    assert code == 0, err
    assert records[-1]["embeds"][0]["title"] == "Kiritsugu joins the campaign (Master)"


async def _local(tmp_path: Path, *extra: str) -> str:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("DISCORD_", "DATABASE_"))}
    environment["LOG_LEVEL"] = "INFO"
    script = _script(tmp_path, START + "bob: /roll dice:1d20\n")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "local", "--script", str(script), *extra,
        env=environment, cwd=tmp_path, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0
    return err.decode()


async def test_logs_stay_quiet_unless_asked(tmp_path: Path) -> None:
    assert " INFO " not in await _local(tmp_path)
    assert " INFO bot.services.rolls: roll " in await _local(tmp_path, "--verbose")


def test_a_locale_given_once_holds_for_the_users_clicks_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`bob@ja:` switches bob's client to Japanese: the buttons he presses afterwards answer him in Japanese."""
    examples = EXAMPLE.parent
    for sheet in ("rin.yaml", "archer.yaml"):
        (tmp_path / sheet).write_bytes((examples / sheet).read_bytes())
    script = (
        START
        + "bob: /character import file:<rin.yaml\nbob: /character import file:<archer.yaml\n"
        + "bob@ja: /roll dice:1d20\nbob: click Approve\n"
    )
    code, records, err = _run(_script(tmp_path, script), capsys)
    assert code == 0, err
    refusal = records[-1]
    assert refusal["ephemeral"] is True
    assert refusal["content"] == "それができるのはこのキャンペーンのGMだけです。"


# Archer attacks Rider in a fight left waiting for mei's answer, after Archer speaks and bob looks at his card.
WAITING_FIGHT = """alice: /campaign start ruleset:fate_points name:"Waiting"
bob: /character import file:<rin.yaml
bob: /character import file:<archer.yaml
alice: click Approve
mei: /character create kind:master
mei: submit "kind: master\\nname: Sakura Matou\\nSTR: 2\\nEND: 3\\nAGI: 3\\nMAG: 5\\nLUK: 2"
mei: /character import file:<rider.yaml
bob: /character use name:Archer
mei: /character use name:Rider
bob: /say text:"Stand back, Master."
bob: /character show name:Archer
alice: /combat start order:"Archer, Rider"
bob: /attack target:Rider action:"melee|Kanshou and Bakuya"
"""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _fight_folder(tmp_path: Path) -> Path:
    for sheet in ("rin.yaml", "archer.yaml", "rider.yaml"):
        (tmp_path / sheet).write_bytes((EXAMPLE.parent / sheet).read_bytes())
    return tmp_path


def test_posts_in_character_files_and_time_passing_all_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = tmp_path / "files"
    script = _script(_fight_folder(tmp_path), WAITING_FIGHT + "wait 12h\n")
    code, records, err = _run(script, capsys, "--seed", "1", "--files", str(files))
    assert code == 0, err
    said = next(record for record in records if record.get("speaker") == "Archer")
    assert said["content"] == "Stand back, Master." and said["user"] == "*"
    card = next(record for record in records if record.get("files") == ["card.png"])
    [path] = card["paths"]
    assert Path(path).parent == files and Path(path).read_bytes().startswith(PNG_SIGNATURE)
    wait_line = WAITING_FIGHT.count("\n") + 1
    after_the_wait = [record.get("content") or "" for record in records if record["step"] == wait_line]
    assert any(content.startswith("@mei a reminder: Archer attacks Rider") for content in after_the_wait)


def test_an_interactive_run_takes_the_same_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typed in a terminal: the post in character reads as its speaker's, and the card is written beside the
    database, where the message says."""
    folder = _fight_folder(tmp_path)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "stdin", io.StringIO(WAITING_FIGHT + "wait soon\nwait 12h\n"))
    code = asyncio.run(run_local(script=None, seed=1, database_url=f"sqlite:///{folder / 'table.sqlite3'}"))
    out = capsys.readouterr().out
    assert code == 0
    assert "\n  Archer: Stand back, Master.\n" in out
    [card] = (folder / "table-files").iterdir()
    assert f"files: {card}" in out and card.read_bytes().startswith(PNG_SIGNATURE)
    assert "error: line 14: cannot wait 'soon'" in out
    assert "@mei a reminder: Archer attacks Rider" in out


@pytest.mark.parametrize("line", ["wait", "wait soon", "wait 0m", "wait -1h", "wait 12x"])
def test_a_wait_that_cannot_be_read_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    code, _, err = _run(_script(tmp_path, START + line + "\n"), capsys)
    assert code == 1
    assert f"line 2: cannot wait {line.removeprefix('wait').strip()!r}: give the time to pass as 30m" in err


def _sent(message_id: int, *names: str) -> Message:
    attachments = [Attachment(message_id * 10 + number, name, name.encode(), "") for number, name in enumerate(names)]
    return Message(message_id, 1, 1, User(1, "Fatebot", bot=True), "", datetime.now(UTC), attachments=attachments)


def test_a_file_the_bot_sends_is_written_in_the_folder_whatever_its_name(tmp_path: Path) -> None:
    hostile = ("../../escape.png", "..\\..\\escape.png", "/etc/passwd", "..", "a b;rm -rf.png")
    folder = AttachmentFolder(tmp_path / "files")
    (tmp_path / "files").mkdir()
    paths = folder.write(_sent(1, *hostile)) + folder.write(_sent(2, "card.png")) + folder.write(_sent(3, "card.png"))
    assert len(set(paths)) == len(paths) == len(hostile) + 2
    for path, name in zip(paths, (*hostile, "card.png", "card.png"), strict=True):
        assert Path(path).parent == tmp_path / "files"
        assert Path(path).read_bytes() == name.encode()
    assert sorted(tmp_path.iterdir()) == [tmp_path / "files"]
