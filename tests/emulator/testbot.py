"""A tiny discord.py bot that exercises what the emulator has to support (not the project's bot)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator
from typing import TypeVar

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.emulator import Emulator

FRUITS = ["apple", "apricot", "banana", "blueberry", "cherry"]


class JoinView(discord.ui.View):
    """Persistent: timeout None and a fixed custom_id, re-added in setup_hook after a restart."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", custom_id="panel:join", style=discord.ButtonStyle.primary)
    async def join(self, interaction: discord.Interaction, _button: discord.ui.Button[JoinView]) -> None:
        await interaction.response.send_message(f"{interaction.user.name} joined", ephemeral=True)

    @discord.ui.button(label="Rename", custom_id="panel:rename")
    async def rename(self, interaction: discord.Interaction, _button: discord.ui.Button[JoinView]) -> None:
        await interaction.response.edit_message(content="renamed panel")


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    subject: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(label="Subject", custom_id="subject")
    body: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(
        label="Body", custom_id="body", style=discord.TextStyle.paragraph, required=False, max_length=50
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"feedback: {self.subject.value} / {self.body.value}")


class ClassSelect(discord.ui.View):
    @discord.ui.select(
        placeholder="Pick a class",
        custom_id="class",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("saber", "archer", "lancer")],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[ClassSelect]) -> None:
        await interaction.response.send_message(f"class: {select.values[0]}")


class MiniBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05, help_command=None
        )
        self.errors: list[tuple[str, int]] = []
        self.gate = asyncio.Event()
        self.ready_count = 0
        self.resumed_count = 0
        self.seen_messages: list[tuple[str, str]] = []
        self._add_commands()

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append((message.author.name, message.content))

    async def setup_hook(self) -> None:
        self.add_view(JoinView())
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py sleeps 5 s before a re-IDENTIFY to respect Discord's rate limit; not needed here.
        return

    async def on_ready(self) -> None:
        self.ready_count += 1

    async def on_resumed(self) -> None:
        self.resumed_count += 1

    def _add_commands(self) -> None:
        tree = self.tree
        campaign = app_commands.Group(name="campaign", description="Campaign commands")

        @campaign.command(name="start", description="Start a campaign")
        @app_commands.describe(name="Campaign name", master="Game master")
        async def start(interaction: discord.Interaction, name: str, master: discord.Member | None = None) -> None:
            who = master.mention if master is not None else "nobody"
            await interaction.response.send_message(f"campaign {name} started by {who}")

        @campaign.command(name="upload", description="Upload a character sheet")
        async def upload(interaction: discord.Interaction, sheet: discord.Attachment) -> None:
            data = await sheet.read()
            await interaction.response.send_message(f"{sheet.filename}: {data.decode()}")

        tree.add_command(campaign)

        @tree.command(name="roll", description="Roll a die")
        async def roll(interaction: discord.Interaction, sides: app_commands.Range[int, 1, 100] = 6) -> None:
            await interaction.response.send_message(f"rolled d{sides}")

        @tree.command(name="secret", description="Ephemeral reply")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("only you", ephemeral=True)

        @tree.command(name="slow", description="Deferred reply")
        async def slow(interaction: discord.Interaction, hidden: bool = False) -> None:
            await interaction.response.defer(ephemeral=hidden, thinking=True)
            await interaction.followup.send("done thinking")
            await interaction.followup.send("and one more", ephemeral=True)

        @tree.command(name="file", description="Reply with a file")
        async def file(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("here", file=discord.File(io.BytesIO(b"hello"), "hello.txt"))

        @tree.command(name="dm", description="DM the invoker")
        async def dm(interaction: discord.Interaction) -> None:
            try:
                await interaction.user.send("psst")
            except discord.HTTPException as exc:
                self.errors.append(("dm", exc.code))
                await interaction.response.send_message("could not DM you", ephemeral=True)
            else:
                await interaction.response.send_message("sent", ephemeral=True)

        @tree.command(name="ping", description="Mention someone")
        async def ping(interaction: discord.Interaction, who: discord.User, quiet: bool = False) -> None:
            mentions = discord.AllowedMentions.none() if quiet else discord.utils.MISSING
            await interaction.response.send_message(f"hey {who.mention}", allowed_mentions=mentions)

        @tree.command(name="panel", description="Post the join panel")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("join here", view=JoinView())

        @tree.command(name="twice", description="Answer twice")
        async def twice(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("first")
            # discord.py refuses a second response locally; forget the first so the request reaches Discord.
            interaction.response._response_type = None
            try:
                await interaction.response.send_message("second")
            except discord.HTTPException as exc:
                self.errors.append(("twice", exc.code))

        @tree.command(name="late", description="Answer after the gate opens")
        async def late(interaction: discord.Interaction) -> None:
            await self.gate.wait()
            try:
                await interaction.response.send_message("too late?")
            except discord.HTTPException as exc:
                self.errors.append(("late", exc.code))

        @tree.command(name="later", description="Followup after the gate opens")
        async def later(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("first")
            await self.gate.wait()
            try:
                await interaction.followup.send("much later")
            except discord.HTTPException as exc:
                self.errors.append(("later", exc.code))

        @tree.command(name="big", description="Send something too large")
        @app_commands.choices(
            kind=[app_commands.Choice(name=k, value=k) for k in ("content", "fields", "embed_total", "buttons")]
        )
        async def big(interaction: discord.Interaction, kind: str) -> None:
            try:
                if kind == "content":
                    await interaction.response.send_message("x" * 2001)
                elif kind == "fields":
                    embed = discord.Embed(title="sheet")
                    for i in range(26):
                        embed.add_field(name=f"stat {i}", value="A")
                    await interaction.response.send_message(embed=embed)
                elif kind == "embed_total":
                    embeds = [discord.Embed(description="y" * 4000) for _ in range(2)]
                    await interaction.response.send_message(embeds=embeds)
                else:
                    view = discord.ui.View()
                    for row in range(5):
                        for col in range(5):
                            view.add_item(discord.ui.Button(label="b" * 81, custom_id=f"b{row}{col}", row=row))
                    await interaction.response.send_message("buttons", view=view)
            except discord.HTTPException as exc:
                self.errors.append((kind, exc.code))
                await interaction.response.send_message(f"rejected {exc.code}", ephemeral=True)

        @tree.command(name="feedback", description="Open a modal")
        async def feedback(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(FeedbackModal())

        @tree.command(name="where", description="Where am I")
        async def where(interaction: discord.Interaction) -> None:
            channel = interaction.channel
            parent = getattr(channel, "parent_id", None)
            guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
            await interaction.response.send_message(
                f"{type(channel).__name__} parent={parent} locale={interaction.locale.value} guild={guild_locale}"
            )

        @tree.command(name="pick", description="Pick a fruit")
        async def pick(interaction: discord.Interaction, fruit: str, amount: int = 1) -> None:
            await interaction.response.send_message(f"{amount} x {fruit}")

        @pick.autocomplete("fruit")
        async def pick_fruit(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=f.title(), value=f) for f in FRUITS if f.startswith(current)]

        @tree.command(name="edit", description="Edit and delete responses")
        async def edit(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("v1")
            original = await interaction.original_response()
            await interaction.edit_original_response(content=f"{original.content} -> v2")
            temporary = await interaction.followup.send("temporary", wait=True)
            await temporary.edit(content="temporary (edited)")
            await temporary.delete()

        @tree.command(name="classes", description="Post a select menu")
        async def classes(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("choose", view=ClassSelect())

        @tree.command(name="announce", description="Post to a channel and edit it")
        async def announce(interaction: discord.Interaction, text: str) -> None:
            assert isinstance(interaction.channel, discord.abc.Messageable)
            message = await interaction.channel.send(text)
            await message.edit(content=f"{text} (edited)")
            await interaction.response.send_message("announced", ephemeral=True)


BotT = TypeVar("BotT", bound=commands.Bot)


@contextlib.asynccontextmanager
async def running(bot: BotT, emu: Emulator) -> AsyncIterator[BotT]:
    """Run `bot` against `emu` with discord.py pointed at the emulator, restoring the URLs after."""
    old_base, old_gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = emu.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)
    task = asyncio.create_task(bot.start(emu.bot_token))
    try:
        await emu.wait_ready()
        await asyncio.wait_for(bot.wait_until_ready(), 10)
        yield bot
    finally:
        await bot.close()
        await task
        await emu.wait_disconnected()
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
