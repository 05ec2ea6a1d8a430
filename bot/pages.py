"""Lists that can grow without bound (the log, the roster) shown a page at a time, with ◀ and ▶ buttons.

A page is rebuilt from the database at each click, so the buttons work after a restart and show the list
as it is now. A source registers under a short name and renders page N for whoever clicked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import discord

from bot import output
from bot.i18n import Translator
from bot.interactions import Interaction
from bot.views import PersistentButton

# A line of a list is shortened to this, so that a page always holds several of them.
LINE_LIMIT = 400
PAGE_CHARACTERS = output.DESCRIPTION_LIMIT - 96


@dataclass(frozen=True)
class Page:
    """One page of a list, its position among all of them, and the translator it was written with."""

    embed: discord.Embed
    number: int
    count: int
    tr: Translator


PageSource = Callable[[Interaction, int], Awaitable[Page]]
SOURCES: dict[str, PageSource] = {}


def source(name: str) -> Callable[[PageSource], PageSource]:
    """Register a page source under `name` (the buttons carry it)."""

    def register(render: PageSource) -> PageSource:
        SOURCES[name] = render
        return render

    return register


def split_lines(lines: Sequence[str], per_page: int) -> list[list[str]]:
    """Lines in pages of at most `per_page` lines that fit one embed's description; never an empty list."""
    pages: list[list[str]] = [[]]
    for line in (output.shorten(line, LINE_LIMIT) for line in lines):
        current = pages[-1]
        if len(current) >= per_page or sum(len(text) + 1 for text in current) + len(line) > PAGE_CHARACTERS:
            pages.append([])
        pages[-1].append(line)
    return pages


def clamp(number: int, count: int) -> int:
    return max(0, min(number, count - 1))


class PageButton(PersistentButton, template=r"page:(?P<source>[a-z_]+):(?P<number>[0-9]{1,6})"):
    """Turn to another page of a list."""

    prefix = "page"

    async def clicked(self, interaction: Interaction) -> None:
        render = SOURCES.get(self.fields["source"])
        if render is None:
            raise ValueError(f"no page source {self.fields['source']!r}")
        page = await render(interaction, int(self.fields["number"]))
        await output.update(interaction, embed=footed(page), view=pager(self.fields["source"], page))


def footed(page: Page) -> discord.Embed:
    if page.count > 1:
        page.embed.set_footer(text=page.tr("page.footer", number=page.number + 1, count=page.count))
    return page.embed


def pager(name: str, page: Page) -> discord.ui.View | None:
    if page.count <= 1:
        return None
    view = discord.ui.View(timeout=None)
    for label, number in (("◀", page.number - 1), ("▶", page.number + 1)):
        button = PageButton(label, discord.ButtonStyle.secondary, source=name, number=clamp(number, page.count))
        button.item.disabled = not 0 <= number < page.count
        view.add_item(button)
    return view


async def show(interaction: Interaction, name: str, number: int = 0) -> None:
    """The first (or a given) page of a list, privately, with its buttons."""
    page = await SOURCES[name](interaction, number)
    await output.reply(interaction, embed=footed(page), view=pager(name, page), ephemeral=True)
