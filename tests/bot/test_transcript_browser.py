"""The transcript in a real browser, at a phone's width: what its reader sees, nothing cut off at the side, and not
one request made. Skipped where Chromium is missing, except in CI (which installs it)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.tools.transcript_screenshot import (
    CHROMEDRIVER,
    CHROMIUM,
    LONG_WORD,
    PHONE_WIDTH,
    SECRET_DICE,
    browser,
    write_sample,
)

MISSING = not (CHROMIUM.exists() and CHROMEDRIVER.exists())
pytestmark = pytest.mark.skipif(MISSING and not os.environ.get("CI"), reason="Chromium and chromedriver are missing")

# Every element's box, as far as it reaches to either side of the viewport.
OVERFLOWING = """
const width = document.documentElement.clientWidth;
return [...document.querySelectorAll('body *')]
  .filter(element => {
    const box = element.getBoundingClientRect();
    return box.right > width + 0.5 || box.left < -0.5;
  })
  .map(element => element.outerHTML.slice(0, 80));
"""


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    if MISSING:
        pytest.fail(f"CI is set but Chromium ({CHROMIUM}) or chromedriver ({CHROMEDRIVER}) is missing")
    opened = browser()
    opened.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE_WIDTH, "height": 740, "deviceScaleFactor": 2, "mobile": True},
    )
    yield opened
    opened.quit()


def _performance_log(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """The browser's log of what it did since the last call (each entry read once)."""
    entries: list[dict[str, Any]] = driver.execute("getLog", {"type": "performance"})["value"]
    return entries


def _requests(driver: webdriver.Chrome) -> list[str]:
    """The addresses the page asked for since the last call, but the page itself."""
    asked = []
    for entry in _performance_log(driver):
        message: dict[str, Any] = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            asked.append(message["params"]["request"]["url"])
    return [url for url in asked if not url.startswith("file://")]


async def _open(driver: webdriver.Chrome, folder: Path, *, gm: bool) -> str:
    """The sample opened as the GM or a player reads it: the text it shows."""
    path = await write_sample(folder, gm=gm)
    _performance_log(driver)  # what earlier pages asked for is theirs
    driver.get(path.as_uri())
    text: str = driver.find_element(By.TAG_NAME, "body").text
    return text


async def test_a_player_reads_the_posts_and_rolls_and_no_secret(driver: webdriver.Chrome, tmp_path: Path) -> None:
    shown = await _open(driver, tmp_path, gm=False)
    assert driver.execute_script("return document.documentElement.clientWidth") == PHONE_WIDTH
    speakers = [element for element in driver.find_elements(By.CSS_SELECTOR, ".speaker") if element.is_displayed()]
    assert {"Saber", "Archer", "<script>alert(1)</script>"} <= {element.text for element in speakers}
    posts = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".text") if element.is_displayed()]
    assert "Master, stay behind me." in posts and "Archer smirks from the rooftop" in posts
    assert "<b>hi</b>" in posts  # typed markup, shown as typed
    dice = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".dice li") if element.is_displayed()]
    assert "2d6 [4, 6]" in dice and "attack: 1d20 [17] +4 (STR) = 21" in dice
    assert "Archer answered Saber's attack" in shown
    assert "secret roll (Assassin lurks)" in shown and f"{SECRET_DICE} [42]" not in shown
    assert "hidden from players" not in shown
    assert _requests(driver) == []


async def test_the_gm_reads_the_secret_roll(driver: webdriver.Chrome, tmp_path: Path) -> None:
    shown = await _open(driver, tmp_path, gm=True)
    dice = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".dice li") if element.is_displayed()]
    assert f"{SECRET_DICE} [42]" in dice and "hidden from players" in shown
    assert _requests(driver) == []


async def test_nothing_is_cut_off_at_a_phones_width(driver: webdriver.Chrome, tmp_path: Path) -> None:
    await _open(driver, tmp_path, gm=True)
    width = driver.execute_script("return document.documentElement.clientWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width == PHONE_WIDTH
    assert driver.execute_script(OVERFLOWING) == []
    long_post = driver.find_element(By.XPATH, f"//p[contains(., '{LONG_WORD}')]")
    line = float(long_post.value_of_css_property("line-height").removesuffix("px"))
    assert long_post.size["height"] > 2 * line  # the long word wraps onto lines of its own
