"""The documentation site builds without a warning, and every slash command its pages name, in any language the
bot's commands are listed in, is a command of the synced tree."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from discord import AppCommandOptionType, app_commands

from bot.app import Fatebot, extensions
from bot.db.engine import Database
from bot.i18n import CommandTranslator
from rules.dice import FixedDice

ROOT = Path(__file__).resolve().parents[2]
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
# Written like a command but not one of the bot's: the image's volume, the health endpoint, the benchmark's bare
# client's command and the kernel's process files.
NOT_COMMANDS = frozenset({"data", "health", "noop", "proc"})
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`([^`\n]+)`")
# A command starts a code span, or follows the bracket a Chinese or Japanese name is given in: `/anchor（/安価）`.
_MENTION = re.compile(r"(?:^|(?<=[（(]))/")
_BRACKET = re.compile(r"[（）()]")
_OPTION_MARKS = (":", "：", "[", "<")
SUBCOMMAND_TYPES = (AppCommandOptionType.subcommand.value, AppCommandOptionType.subcommand_group.value)


@dataclass
class CommandNames:
    """A command's names in every language, and its subcommands by each of theirs."""

    subcommands: dict[str, CommandNames] = field(default_factory=dict)

    def add(self, payload: dict[str, object]) -> None:
        entry = CommandNames()
        localized = payload.get("name_localizations") or {}
        assert isinstance(localized, dict)
        for name in {str(payload["name"]), *map(str, localized.values())}:
            self.subcommands[name.casefold()] = entry
        options = payload.get("options") or []
        assert isinstance(options, list)
        for option in options:
            if option.get("type") in SUBCOMMAND_TYPES:
                entry.add(option)


def mentioned_commands(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each slash command a page's code spans name, with its line: the words before its first option."""
    prose = _FENCE.sub(lambda block: "\n" * block.group().count("\n"), text)
    for line_number, line in enumerate(prose.splitlines(), start=1):
        for span in _CODE.findall(line):
            for start in _MENTION.finditer(span):
                words: list[str] = []
                for word in _BRACKET.split(span[start.end() :])[0].split():
                    if any(mark in word for mark in _OPTION_MARKS):
                        break
                    words.append(word)
                if words and "/" not in words[0] and words[0] not in NOT_COMMANDS:
                    yield line_number, words


def unknown(tree: CommandNames, words: list[str]) -> str | None:
    """What of a named command the tree lacks: a command, or a group's subcommand; the words after a command
    that takes options are its options' names, written without values."""
    node = tree
    for depth, word in enumerate(words):
        found = node.subcommands.get(word.casefold())
        if found is None:
            if depth == 0 or node.subcommands:
                return "/" + " ".join(words[: depth + 1])
            return None
        node = found
    return None


def misnamed(tree: CommandNames, pages: dict[str, str]) -> list[str]:
    """Each command a page names that the tree lacks, as `page:line: /command`."""
    return [
        f"{page}:{line_number}: {missing}"
        for page, text in pages.items()
        for line_number, words in mentioned_commands(text)
        if (missing := unknown(tree, words)) is not None
    ]


@pytest.fixture(scope="module")
async def command_tree(tmp_path_factory: pytest.TempPathFactory) -> CommandNames:
    """Every command of every ruleset as the bot syncs it, with its localized names."""
    database = Database.from_url(f"sqlite:///{tmp_path_factory.mktemp('docs') / 'tree.sqlite3'}")
    tree = CommandNames()
    async with Fatebot(database, FixedDice([])) as bot:
        for extension in extensions():
            await bot.load_extension(extension)
        translator = CommandTranslator()
        for command in bot.tree.get_commands():
            assert isinstance(command, app_commands.Command | app_commands.Group)
            tree.add(await command.get_translated_payload(bot.tree, translator))
    await database.dispose()
    return tree


def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    site = tmp_path / "site"
    config = ROOT / "mkdocs.yml"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr
    assert (site / "guides" / "grail_anka" / "gm.ja" / "index.html").is_file()


async def test_every_command_a_page_names_exists(command_tree: CommandNames) -> None:
    pages = {str(page.relative_to(ROOT)): page.read_text(encoding="utf-8") for page in PAGES}
    assert misnamed(command_tree, pages) == []


async def test_a_page_naming_a_command_that_does_not_exist_is_caught(command_tree: CommandNames) -> None:
    page = (
        "Start with `/campaign start ruleset:fate_points`, or `/战役 开始 规则:x`, then `/キャンペーン 設定`;\n"
        "`/gm award character resource amount`, `/anchor（/安価）` and `GET /health` are fine.\n"
        "```\nalice: `/not checked`\n```\n"
        "Not these: `/campaign strat name:x`, `/spell cast`, `/战役 开战`.\n"
    )
    assert misnamed(command_tree, {"made-up.md": page}) == [
        "made-up.md:6: /campaign strat",
        "made-up.md:6: /spell",
        "made-up.md:6: /战役 开战",
    ]
