"""/say and /me: posts in character through the channel's webhook, logged as dialogue; /post edits or deletes
one's own; /character portrait is in the characters' commands."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot import output
from bot.app import Fatebot, Interaction, NameText, actor_of, place_of, translator
from bot.cogs.characters import character_choices
from bot.db.engine import COMMITTED
from bot.errors import UserError
from bot.services.dialogue import ME, SAY, Post, Speaker
from bot.webhooks import Voices

# What one post may say: a message's 2,000 characters, less the room an action line's asterisks take.
SAID_LIMIT = 1990
SaidText = app_commands.Range[str, 1, SAID_LIMIT]


def as_posted(kind: str, text: str) -> str:
    """What the channel shows: speech as it is, an action line in italics (Markdown's asterisks)."""
    return f"*{text}*" if kind == ME else text


class DialogueCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        self.voices = Voices(bot)

    async def _post(self, interaction: Interaction, kind: str, text: str, character: str | None) -> None:
        tr = translator(interaction)
        place, actor = place_of(interaction), actor_of(interaction)
        speaker: Speaker = await self.bot.dialogue.speaker(place, actor, character)
        channel_id = interaction.channel_id or place.channel_id
        shown = as_posted(kind, text)
        posted = await self.voices.post(channel_id, shown, name=speaker.character, avatar_url=speaker.portrait_url)
        try:
            await self.bot.dialogue.posted(place, actor, speaker, kind, text, posted.id, channel_id)
        except Exception:
            # Not in the log, so not in the channel either: the table never reads what the log lacks.
            await self.voices.take_down(channel_id, posted.id)
            raise
        await output.reply(interaction, tr("dialogue.posted", name=speaker.character), ephemeral=True)

    @app_commands.command(name="say", description="Say something as your character, under its name and portrait")
    @app_commands.describe(text="What your character says", character="Who speaks (default: your active character)")
    @app_commands.guild_only()
    async def say(self, interaction: Interaction, text: SaidText, character: NameText | None = None) -> None:
        await self._post(interaction, SAY, text, character)

    @app_commands.command(name="me", description="An action line for your character, in italics under its name")
    @app_commands.describe(text="What your character does", character="Who acts (default: your active character)")
    @app_commands.guild_only()
    async def me(self, interaction: Interaction, text: SaidText, character: NameText | None = None) -> None:
        await self._post(interaction, ME, text, character)

    post = app_commands.Group(name="post", description="Your posts in character", guild_only=True)

    async def _own(self, interaction: Interaction, message: str | None) -> Post:
        """The user's post named by its link or id, or their latest."""
        message_id = None
        if message is not None:
            last = message.strip().rstrip("/").rsplit("/", 1)[-1]
            if not last.isdigit():
                raise UserError("error.not_your_post")
            message_id = int(last)
        return await self.bot.dialogue.own_post(place_of(interaction), actor_of(interaction), message_id)

    @post.command(name="edit", description="Change the text of your post in character (default: your latest)")
    @app_commands.describe(text="Its new text", message="The post's link or id (default: your latest post)")
    async def edit(self, interaction: Interaction, text: SaidText, message: str | None = None) -> None:
        tr = translator(interaction)
        post = await self._own(interaction, message)
        await self.voices.rewrite(post.channel_id, post.message_id, as_posted(post.kind, text))
        COMMITTED.set(True)  # the channel shows the change already: a failure from here on must not deny it
        await self.bot.dialogue.changed(place_of(interaction), actor_of(interaction), post, text)
        await output.reply(interaction, tr("dialogue.edited", name=post.character), ephemeral=True)

    @post.command(name="delete", description="Delete your post in character (default: your latest)")
    @app_commands.describe(message="The post's link or id (default: your latest post)")
    async def delete(self, interaction: Interaction, message: str | None = None) -> None:
        tr = translator(interaction)
        post = await self._own(interaction, message)
        await self.voices.take_down(post.channel_id, post.message_id)
        COMMITTED.set(True)  # the channel shows the change already: a failure from here on must not deny it
        await self.bot.dialogue.changed(place_of(interaction), actor_of(interaction), post, None)
        await output.reply(interaction, tr("dialogue.deleted", name=post.character), ephemeral=True)

    @say.autocomplete("character")
    @me.autocomplete("character")
    async def speakers(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(DialogueCog(bot))
