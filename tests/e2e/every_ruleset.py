"""What the tests generated from the command tree share: a campaign of every ruleset with a player's own
character in each, the option types Discord declares, the command tree's leaves and the GMs' commands."""

from __future__ import annotations

from typing import Any

import yaml
from discord import app_commands

from bot.emulator.models import Channel, User
from bot.gm_only import is_gm_command
from bot.rulesets.registry import RULESETS
from tests.e2e.harness import Harness

SUBCOMMAND, GROUP = 1, 2
# A component's type.
BUTTON = 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11


async def own_character(harness: Harness, player: User, channel: Channel, ruleset: str, name: str | None = None) -> str:
    """A character of the player's own, from the ruleset's template (held for a GM where it must be), under the
    template's name unless given another."""
    play = RULESETS[ruleset].play
    assert play is not None
    kind = play.kinds[0]
    template = (await harness.slash(player, channel, "character template", kind=kind)).reply
    data = yaml.safe_load(template.attachments[0].data) or {}
    if name is not None:
        data["name"] = name
    created = await harness.slash(player, channel, "character import",
                                  file=("sheet.yaml", yaml.safe_dump({"kind": kind, **data}).encode()))  # fmt: skip
    assert created.error is None, created.error
    return str(data["name"])


async def campaign_of_every_ruleset(
    harness: Harness, gm: User, player: User
) -> tuple[dict[str, Channel], dict[str, str]]:
    """A channel per ruleset with a campaign the GM started, and the name of the player's character in each."""
    emulator = harness.emulator
    guild = emulator.add_guild("Fuyuki", owner=gm)
    emulator.add_member(guild, player)
    await harness.start_bot()
    channels, names = {}, {}
    for ruleset in RULESETS:
        channel = emulator.add_channel(guild, ruleset)
        await harness.slash(gm, channel, "campaign start", ruleset=ruleset, name=ruleset)
        channels[ruleset] = channel
        names[ruleset] = await own_character(harness, player, channel, ruleset)
    return channels, names


def leaves(commands: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """Every command that runs (a subcommand, or a command without any): its full name, description, options."""
    found = []
    for command in commands:
        subcommands = [option for option in command.get("options", []) if option["type"] in (SUBCOMMAND, GROUP)]
        if not subcommands:
            found.append((command["name"], command["description"], command.get("options", [])))
        for sub in subcommands:
            nested = [option for option in sub.get("options", []) if option["type"] == SUBCOMMAND]
            for leaf in nested or [sub]:
                parts = (command["name"], sub["name"] if nested else None, leaf["name"])
                name = " ".join(part for part in parts if part)
                found.append((name, leaf["description"], leaf.get("options", [])))
    return found


def gm_marked(harness: Harness) -> frozenset[str]:
    """The full names of the commands the bot marks as the GMs'."""
    assert harness.bot is not None
    return frozenset(
        command.qualified_name
        for command in harness.bot.tree.walk_commands()
        if isinstance(command, app_commands.Command) and is_gm_command(command)
    )
