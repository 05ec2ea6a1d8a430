"""A server whose GM and players read Discord in each of the bot's languages: kirei the GM and bob in English, mei
in Chinese and ken in Japanese. One per test module that plays a story and reads it back in every language."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bot.emulator.models import Channel, Guild, User
from bot.i18n import Translator, language_of
from tests.e2e.harness import Harness, running_harness


@dataclass(frozen=True)
class Table:
    harness: Harness
    guild: Guild
    gm: User  # reads in English
    bob: User  # reads in English
    mei: User  # reads in Chinese
    ken: User  # reads in Japanese

    @property
    def readers(self) -> tuple[User, ...]:
        return (self.gm, self.bob, self.mei, self.ken)


@contextlib.asynccontextmanager
async def readers_table(folder: Path) -> AsyncIterator[Table]:
    async with running_harness(f"sqlite+aiosqlite:///{folder / 'story.db'}") as harness:
        emulator = harness.emulator
        gm, bob = emulator.add_user("kirei"), emulator.add_user("bob")
        mei, ken = emulator.add_user("mei", locale="zh-CN"), emulator.add_user("ken", locale="ja")
        guild = emulator.add_guild("Fuyuki", owner=gm)
        for player in (bob, mei, ken):
            emulator.add_member(guild, player)
        await harness.start_bot()
        yield Table(harness, guild, gm, bob, mei, ken)


async def recap_and_transcript(harness: Harness, channel: Channel, reader: User) -> tuple[str, str]:
    """What the reader's `/log recap since:1d` says, and the campaign's Markdown transcript as they export it."""
    recap = (await harness.slash(reader, channel, "log recap", since="1d")).reply
    exported = (await harness.slash(reader, channel, "log export", format="markdown")).reply
    return recap.text(), exported.attachments[0].data.decode("utf-8")


def counted_rolls(recap: str, language: str, most: int = 200) -> int:
    """How many rolls the recap counts (up to `most`), read through its counts line in the reader's language."""
    words = Translator(language_of(language))
    for rolls in range(most + 1):
        line = words("recap.counts", events=1_000_001, rolls=rolls)
        if re.search(re.escape(line).replace("1000001", r"\d+"), recap):
            return rolls
    raise AssertionError(f"no count of rolls up to {most} in {recap!r}")


# Where a log line's words end and the rolls of its step begin, in each language.
ROLLS_BEGIN = re.compile(r" — |——| ― ")


def in_transcript(line: str, transcript: str) -> bool:
    """Whether the transcript tells what a `/log show` line tells: its words, and each roll below them."""
    words, *rolls = ROLLS_BEGIN.split(line, maxsplit=1)
    found = [words, *(roll for told in rolls for roll in re.split(r"; |；", told))]
    return all(part in transcript for part in found)
