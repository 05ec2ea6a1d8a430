"""The least a discord.py bot can do with a slash command: what discord.py and the emulator cost by themselves,
the floor that `fatebot bench` and the benchmarks measure the bot against."""

from __future__ import annotations

import discord
from discord import app_commands


class FloorBot(discord.AutoShardedClient):
    """A bare client whose `/noop` answers "ok" at once, sharded as the bot is (on every shard)."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True), max_messages=None)
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="noop", description="Answer at once")
        async def noop(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok")

    async def setup_hook(self) -> None:
        await self.tree.sync()
