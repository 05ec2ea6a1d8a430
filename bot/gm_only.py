"""The GMs' commands: one mark on a command, from which its description says it is the GMs' (in every language,
through the catalogs' `command.gm_only`) and anyone else is refused before it runs. The tests find the GMs'
commands by the mark, so a command is the GMs' in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord import app_commands
from discord.app_commands import locale_str
from discord.app_commands.commands import CommandCallback, GroupT, P, T

from bot.errors import UserError
from bot.i18n import ENGLISH, GM_ONLY, gm_only_description
from bot.interactions import Interaction, actor_of, place_of


class RefusedBeforeRunning(UserError, app_commands.CheckFailure):
    """A refusal from a command's check: answered as any refusal is, by the tree's one error handler."""

    @classmethod
    def of(cls, error: UserError) -> RefusedBeforeRunning:
        refused = cls(error.key, **error.params)
        refused.fallback, refused.ruleset = error.fallback, error.ruleset
        return refused


async def _by_a_gm(interaction: Interaction) -> bool:
    try:
        await interaction.client.campaigns.refuse_unless_gm(place_of(interaction), actor_of(interaction))
    except UserError as error:
        raise RefusedBeforeRunning.of(error) from error
    return True


def gm_command(
    *, name: str, description: str
) -> Callable[[CommandCallback[GroupT, P, T]], app_commands.Command[GroupT, P, T]]:
    """`app_commands.command` for a command only the GMs of the channel's campaign may use. The command's own
    service still checks inside its transaction (a GM removed meanwhile); this refuses anyone else first."""

    def mark(callback: CommandCallback[GroupT, P, T]) -> app_commands.Command[GroupT, P, T]:
        described = locale_str(gm_only_description(description, ENGLISH), **{GM_ONLY: True})
        command = app_commands.command(name=name, description=described, extras={GM_ONLY: True})(callback)
        command.add_check(_by_a_gm)
        return command

    return mark


def is_gm_command(command: app_commands.Command[Any, ..., Any]) -> bool:
    return bool(command.extras.get(GM_ONLY))
