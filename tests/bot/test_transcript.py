"""The transcript of `/log export format:html` and `format:markdown`: what a player typed stays text, secrets stay
with the GMs, times read in the reader's zone, and each speaker keeps one colour."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.services.common import SHEET_SECRETS
from bot.transcript import SPEAKER_COLOURS, markdown_html, speaker_colour
from rules.exchange import Modifier, Roll
from tests.tools.transcript_screenshot import (
    SECRET_DICE,
    SECRET_LABEL,
    START,
    sample_reader,
    write_sample,
)


async def _page(folder: Path, *, gm: bool, file_format: str = "html") -> str:
    return (await write_sample(folder, gm=gm, file_format=file_format)).read_text(encoding="utf-8")


async def test_what_players_typed_stays_text(tmp_path: Path) -> None:
    page = await _page(tmp_path, gm=False)
    assert "<script" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;hi&lt;/b&gt;" in page
    assert "Master, stay <strong>behind</strong> me." in page  # their Markdown, as the channel shows it
    markdown = await _page(tmp_path, gm=False, file_format="markdown")
    assert "<script" not in markdown and "&lt;script&gt;" in markdown and "&lt;b&gt;hi&lt;/b&gt;" in markdown


def test_discord_markdown_becomes_html_and_escapes_stay_literal() -> None:
    assert markdown_html(r"grins \*wickedly\* at 2\*3\_") == "grins *wickedly* at 2*3_"
    assert (
        markdown_html("**a** *b* ~~c~~ `<i>` x<y")
        == "<strong>a</strong> <em>b</em> <s>c</s> <code>&lt;i&gt;</code> x&lt;y"
    )
    assert markdown_html("snake_case_name & 2*3") == "snake_case_name &amp; 2*3"


async def test_a_secret_roll_stays_with_the_gms(tmp_path: Path) -> None:
    player = await _page(tmp_path / "player", gm=False)
    gm = await _page(tmp_path / "gm", gm=True)
    hidden = "hidden from players"
    for page in (player, gm):
        assert SECRET_LABEL in page  # what it was about, as /log show tells it
    assert f"{SECRET_DICE} [42]" not in player and hidden not in player
    assert f"{SECRET_DICE} [42]" in gm and hidden in gm


async def test_a_hidden_sheet_shows_its_terms_to_the_gms_only(tmp_path: Path) -> None:
    full = Roll("attack", 20, (17,), (17,), (Modifier("stat:STR", 4), Modifier("skill:Swordsmanship", 2)), 23)
    payload = {
        "attacker": "Saber",
        "defender": "Archer",
        "action": "melee|Invisible Air",
        "rolls": [full.folded().to_dict()],
        SHEET_SECRETS: {"rolls": [full.to_dict()]},
    }
    rows = [(1, START, "attack.declared", 1, False, json.dumps(payload))]
    gm = (await write_sample(tmp_path / "gm", gm=True, rows=rows)).read_text(encoding="utf-8")
    player = (await write_sample(tmp_path, gm=False, rows=rows)).read_text(encoding="utf-8")
    assert "Swordsmanship" in gm and "Swordsmanship" not in player
    assert "1d20 [17]" in player and "<strong>23</strong>" in player


async def test_times_read_in_the_readers_zone(tmp_path: Path) -> None:
    tokyo = await _page(tmp_path, gm=False)
    # The sample runs from 19:03 to 19:33 UTC: the small hours of the next day in Tokyo.
    assert "From 12/2/26, 4:03\u202fAM to 12/2/26, 4:33\u202fAM" in tokyo and "Times in Asia/Tokyo" in tokyo
    assert "7:03\u202fPM" not in tokyo
    utc = (await write_sample(tmp_path / "utc", gm=False, reader=sample_reader(time_zone="UTC"))).read_text("utf-8")
    assert "From 12/1/26, 7:03\u202fPM to 12/1/26, 7:33\u202fPM" in utc and "4:03\u202fAM" not in utc


async def test_the_page_speaks_the_readers_language(tmp_path: Path) -> None:
    reader = sample_reader(language="zh-CN", time_zone="Asia/Shanghai")
    page = (await write_sample(tmp_path, gm=False, reader=reader)).read_text("utf-8")
    assert '<html lang="zh-CN">' in page and "<h1>Fuyuki Nights：跑团记录</h1>" in page
    assert "2026/12/2 03:03 至 2026/12/2 03:33" in page
    assert "开始了第 2 场" in page  # the session marker, in the log's Chinese words


async def test_each_speaker_keeps_one_colour(tmp_path: Path) -> None:
    page = await _page(tmp_path, gm=False)
    colours = dict(re.findall(r'--speaker:(#[0-9a-f]{6})">.*?<span class="speaker">([^<]+)</span>', page))
    by_speaker = {name: colour for colour, name in colours.items()}
    assert by_speaker["Saber"] == speaker_colour("Saber") and by_speaker["Archer"] == speaker_colour("Archer")
    assert by_speaker["Saber"] != by_speaker["Archer"]
    # The same in another export, by another reader in another language.
    other = await write_sample(tmp_path / "gm", gm=True, reader=sample_reader(language="ja", time_zone="UTC"))
    assert f'--speaker:{by_speaker["Saber"]}">' in other.read_text("utf-8")
    assert {speaker_colour(f"speaker {number}") for number in range(200)} == set(SPEAKER_COLOURS)


async def test_users_are_named_as_the_server_names_them(tmp_path: Path) -> None:
    page = await _page(tmp_path, gm=False)
    assert "@Shirou rolled <code>2d6+1</code>" in page and "&lt;@" not in page
    gone = [(1, START, "campaign.session", 99, False, json.dumps({"session": 3}))]
    left = (await write_sample(tmp_path / "gone", gm=False, rows=gone)).read_text("utf-8")
    assert "someone who left started session 3" in left and "&lt;@" not in left
