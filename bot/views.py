"""Buttons that keep working after a restart and long after the message that carries them was posted."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Self

import discord

from bot.errors import UserError
from bot.interactions import Interaction, begin, report_error

# Ids are BIGINT: a larger number in a button's id was never one of ours.
ID_LIMIT = 2**63 - 1
# Discord's limit on a component's custom_id: the ids of ours are built within it, never cut (a cut id is no id).
CUSTOM_ID_LIMIT = 100

ButtonItem = discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]]


class PersistentButton(ButtonItem, template=r"(?!)"):
    """A button whose custom_id holds everything its click needs: `prefix` and the template's named groups.

    Subclasses set `template` (e.g. `answer:(?P<pending_id>[0-9]+):(?P<option>[a-z_]+)`) and `prefix`, register
    with `bot.add_dynamic_items`, and implement `clicked`; an expected error answers the clicker privately.
    """

    prefix: ClassVar[str]

    def __init__(self, label: str, style: discord.ButtonStyle = discord.ButtonStyle.primary, **fields: object) -> None:
        names = self.__discord_ui_compiled_template__.groupindex
        custom_id = ":".join((self.prefix, *(str(fields[name]) for name in names)))
        if len(custom_id) > CUSTOM_ID_LIMIT:
            raise ValueError(f"a custom_id over {CUSTOM_ID_LIMIT} characters: {custom_id!r}")
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.fields = {name: str(value) for name, value in fields.items()}

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        style = getattr(item, "style", discord.ButtonStyle.primary)
        return cls(getattr(item, "label", None) or "", style, **match.groupdict())

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        begin(interaction)
        # A view's own error hook only logs: the clicker would see "interaction failed" and nothing else.
        try:
            if any(value.isdigit() and int(value) > ID_LIMIT for value in self.fields.values()):
                raise UserError("error.unknown_button")  # no row has such an id: a forged or mangled button
            await self.clicked(interaction)
        except Exception as error:
            await report_error(interaction, error)

    async def clicked(self, interaction: Interaction) -> None:
        """What the click does; runs with the bot's full error reporting."""
