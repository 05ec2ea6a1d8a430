"""A few lines of play as a transcript, for the tests and for the picture in the documentation.

`python -m tests.tools.transcript_screenshot` draws docs/images/transcript.png from it with the system's Chromium.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from bot.db.models import Campaign
from bot.export import write_export
from bot.i18n import Translator
from bot.rulesets.registry import RULESETS
from bot.services.log import Exportable, ExportRow
from bot.transcript import Reader
from rules.dice import roll
from rules.exchange import Modifier, Roll

RULESET = RULESETS["fate_points"]  # the rules of the sample's attack
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PICTURE = Path(__file__).resolve().parents[2] / "docs" / "images" / "transcript.png"
PHONE_WIDTH = 375
GM, PLAYER, RIVAL = 1, 2, 3
USER_NAMES = {GM: "Kirei", PLAYER: "Shirou", RIVAL: "Rin"}
START = datetime(2026, 12, 1, 19, 0, tzinfo=UTC)
SECRET_LABEL = "Assassin lurks"
SECRET_DICE = "1d100"
LONG_WORD = "Unlimited" * 12
HOSTILE_NAME = "<script>alert(1)</script>"


class Faces:
    """Dice that show the faces given, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def roll(self, count: int, sides: int) -> list[int]:
        shown, self.faces = self.faces[:count], self.faces[count:]
        return shown


def _roll_payload(expression: str, label: str, *faces: int) -> dict[str, Any]:
    result = roll(expression, Faces(*faces))
    return {"expression": expression, "label": label, "total": result.total, "roll": result.to_dict()}


def sample_events() -> list[tuple[str, int, bool, dict[str, Any]]]:
    """(kind, actor, secret, payload) of a short scene: a session opens, two characters speak and act, a roll, a
    fight's round, an attack and its outcome, and a GM's secret roll."""
    attack = Roll("attack", 20, (17,), (17,), (Modifier("stat:STR", 4),), 21)
    defence = Roll("defence", 20, (9,), (9,), (Modifier("stat:AGI", 3),), 12)
    return [
        ("campaign.session", GM, False, {"session": 2}),
        ("dialogue.say", PLAYER, False, {"character": "Saber", "kind": "say", "text": "Master, stay **behind** me."}),
        ("dialogue.me", RIVAL, False, {"character": "Archer", "kind": "me", "text": "smirks from the rooftop"}),
        ("dialogue.say", RIVAL, False, {"character": "Archer", "kind": "say", "text": "Is that all, Saber?"}),
        ("roll", PLAYER, False, _roll_payload("2d6+1", "perception", 4, 6)),
        ("round.started", GM, False, {"round": 1}),
        (
            "attack.declared",
            PLAYER,
            False,
            {
                "attacker": "Saber",
                "defender": "Archer",
                "action": "melee|Invisible Air",
                "score": 21,
                "crit": False,
                "mana_cost": 0,
                "auto_hit": False,
                "round": 1,
                "rolls": [attack.to_dict()],
                "effects": [],
            },
        ),
        (
            "attack.resolved",
            RIVAL,
            False,
            {
                "attacker": "Saber",
                "defender": "Archer",
                "forced": False,
                "result": {"choice": "dodge", "attack_score": 21, "defence_score": 12, "hit": True, "damage": 9},
                "rolls": [defence.to_dict()],
                "effects": [],
            },
        ),
        ("roll", GM, True, _roll_payload(SECRET_DICE, SECRET_LABEL, 42)),
        # What the tests need and the picture does not show: a word too long for a phone, markup typed as text.
        ("dialogue.say", RIVAL, False, {"character": "Archer", "kind": "say", "text": LONG_WORD}),
        ("dialogue.say", GM, False, {"character": HOSTILE_NAME, "kind": "say", "text": "<b>hi</b>"}),
    ]


def sample_rows() -> list[ExportRow]:
    return [
        (number, START + timedelta(minutes=3 * number), kind, actor, secret, json.dumps(payload))
        for number, (kind, actor, secret, payload) in enumerate(sample_events(), start=1)
    ]


def sample_campaign() -> Campaign:
    return Campaign(id=5, guild_id=1, channel_id=2, name="Fuyuki Nights", ruleset=RULESET.id, status="active")


def sample_reader(language: str = "en", time_zone: str = "Asia/Tokyo") -> Reader:
    return Reader(Translator(language, RULESET.id), RULESET.renderer, time_zone)


async def _pages(rows: list[ExportRow]) -> AsyncIterator[list[ExportRow]]:
    yield rows


async def write_sample(
    folder: Path,
    *,
    gm: bool,
    file_format: str = "html",
    rows: Sequence[ExportRow] | None = None,
    reader: Reader | None = None,
) -> Path:
    """The sample's transcript as the GM (who sees the secret roll) or a player reads it."""
    shown = sample_rows() if rows is None else list(rows)
    exportable = Exportable(sample_campaign(), GM if gm else PLAYER, sees_secrets=gm, user_names=USER_NAMES)
    span = (shown[0][1], shown[-1][1])
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    path, _ = await write_export(exportable, _pages(shown), file_format, folder, reader or sample_reader(), span)
    return path


def browser() -> webdriver.Chrome:
    """Headless Chromium at a phone's width, driven through the system's chromedriver (nothing is downloaded)."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_window_rect(width=PHONE_WIDTH, height=800)
    return driver


def _shown_rows() -> Iterator[ExportRow]:
    """The picture's rows: the sample's play, without what is there for the tests."""
    yield from (row for row in sample_rows() if LONG_WORD not in row[5] and json.dumps(HOSTILE_NAME) not in row[5])


async def _draw(picture: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = await write_sample(Path(folder), gm=False, rows=list(_shown_rows()))
        driver = browser()
        try:
            driver.get(path.as_uri())
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": PHONE_WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": True},
            )
            picture.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(picture))
        finally:
            driver.quit()


if __name__ == "__main__":
    asyncio.run(_draw(Path(sys.argv[1]) if len(sys.argv) > 1 else PICTURE))
