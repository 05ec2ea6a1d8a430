"""Every /roll example in the README, run through the emulator with the dice the README shows."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.emulator.models import EVERYONE, Channel, User
from tests.databases import fresh_database_url
from tests.e2e.harness import Harness, running_harness

README = Path(__file__).resolve().parents[2] / "README.md"
_SECTION = re.compile(r"<!-- roll-examples.*?-->(.*?)<!-- /roll-examples -->", re.S)
_CODE = re.compile(r"`([^`]+)`")


def readme_examples() -> list[tuple[str, list[int], str]]:
    section = _SECTION.search(README.read_text(encoding="utf-8"))
    assert section is not None, "the README lost its roll-examples section"
    examples = []
    for row in section.group(1).strip().splitlines()[2:]:
        expression, dice, _, result = (cell.strip() for cell in row.strip("|").split("|"))
        faces = [int(face) for face in dice.split(",")]
        examples.append((_CODE.findall(expression)[0], faces, "\n".join(_CODE.findall(result))))
    return examples


EXAMPLES = readme_examples()


@pytest.fixture(scope="module")
async def roller(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Harness, User, Channel]]:
    async with (
        fresh_database_url("sqlite", tmp_path_factory.mktemp("examples")) as url,
        running_harness(url) as harness,
    ):
        player = harness.emulator.add_user("rin")
        guild = harness.emulator.add_guild("Examples", owner=player)
        channel = harness.emulator.add_channel(guild, "dice")
        await harness.start_bot()
        yield harness, player, channel


def test_the_readme_shows_every_notation_feature() -> None:
    notation = " ".join(expression for expression, _, _ in EXAMPLES)
    for feature in ("d%", "kh", "kl", "dl", "dh", "!", "r", "ro", ">", "<", "#", "*", "(", "-", "+"):
        assert feature in notation, feature


@pytest.mark.parametrize(("expression", "faces", "shown"), EXAMPLES, ids=[example[0] for example in EXAMPLES])
async def test_readme_example(
    roller: tuple[Harness, User, Channel], expression: str, faces: list[int], shown: str
) -> None:
    harness, player, channel = roller
    harness.dice.queue(faces)
    reply = (await harness.slash(player, channel, "roll", dice=expression)).reply
    assert reply.visible_to is EVERYONE
    assert reply.notified == frozenset()
    assert reply.embeds[0]["description"] == shown
