"""/say and /me: posts in character through the channel's webhook, logged as dialogue; /post edits or deletes
one's own; /character portrait is in the characters' commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.utils import escape_markdown

from bot import output
from bot.db.engine import COMMITTED
from bot.errors import UserError
from bot.i18n import Translator
from bot.interactions import (
    Interaction,
    NameText,
    actor_of,
    begin,
    character_choices,
    place_of,
    report_error,
    translator,
)
from bot.services.dialogue import ME, SAY, Post, Speaker
from bot.webhooks import Voices

if TYPE_CHECKING:
    from bot.app import Fatebot

# What one post may say: a message's 2,000 characters, less the room an action line's asterisks take.
SAID_LIMIT = 1990
SaidText = app_commands.Range[str, 1, SAID_LIMIT]
# A picture posted with a character's words, as Discord takes a bot's upload.
PICTURE_LIMIT = 8 * 1024 * 1024


def as_posted(kind: str, text: str) -> str:
    """What the channel shows: speech as it is, an action line in italics (Markdown's asterisks) with its own
    Markdown shown as typed, so that an asterisk inside it does not end the italics. Refused where the escapes
    make it longer than a message holds."""
    if kind != ME:
        return text
    shown = f"*{escape_markdown(text)}*"
    if len(shown) > output.CONTENT_LIMIT:
        raise UserError("error.action_too_long", limit=output.CONTENT_LIMIT)
    return shown


class DialogueCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        self.voices = Voices(bot)

    async def _post(
        self, interaction: Interaction, kind: str, text: str, character: str | None, picture: output.Upload | None
    ) -> None:
        tr = translator(interaction)
        place, actor = place_of(interaction), actor_of(interaction)
        speaker: Speaker = await self.bot.dialogue.speaker(place, actor, character)
        channel_id = interaction.channel_id or place.channel_id
        shown = as_posted(kind, text)
        posted = await self.voices.post(
            channel_id, shown, name=speaker.character, avatar_url=speaker.portrait_url, upload=picture
        )
        try:
            image = picture.filename if picture is not None else None
            await self.bot.dialogue.posted(place, actor, speaker, kind, text, posted.id, channel_id, image)
        except Exception:
            # Not in the log, so not in the channel either: the table never reads what the log lacks.
            await self.voices.take_down(channel_id, posted.id)
            raise
        await output.reply(interaction, tr("dialogue.posted", name=speaker.character), ephemeral=True)

    async def _said(
        self,
        interaction: Interaction,
        kind: str,
        text: str | None,
        character: str | None,
        image: discord.Attachment | None,
    ) -> None:
        """Posted at once, or (without text) once the form that takes a long text with its line breaks is sent."""
        picture = await _picture(image) if image is not None else None
        if text is None:
            await output.show_modal(interaction, SaidModal(self, translator(interaction), kind, character, picture))
            return
        await self._post(interaction, kind, text, character, picture)

    @app_commands.command(name="say", description="Say something as your character, under its name and portrait")
    @app_commands.describe(
        text="What your character says (leave it out for a form with room for paragraphs)",
        character="Who speaks (default: your active character)",
        image="A picture to post with it",
    )
    @app_commands.guild_only()
    async def say(
        self,
        interaction: Interaction,
        text: SaidText | None = None,
        character: NameText | None = None,
        image: discord.Attachment | None = None,
    ) -> None:
        await self._said(interaction, SAY, text, character, image)

    @app_commands.command(name="me", description="An action line for your character, in italics under its name")
    @app_commands.describe(
        text="What your character does (leave it out for a form with room for paragraphs)",
        character="Who acts (default: your active character)",
        image="A picture to post with it",
    )
    @app_commands.guild_only()
    async def me(
        self,
        interaction: Interaction,
        text: SaidText | None = None,
        character: NameText | None = None,
        image: discord.Attachment | None = None,
    ) -> None:
        await self._said(interaction, ME, text, character, image)

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


async def _picture(image: discord.Attachment) -> output.Upload:
    """The picture a post in character carries: an image, within what a bot may upload, as it came."""
    if not (image.content_type or "").startswith("image/"):
        raise UserError("error.not_a_picture", name=image.filename)
    if image.size > PICTURE_LIMIT:  # said before anything is downloaded
        raise UserError("error.picture_too_large", limit=PICTURE_LIMIT // (1024 * 1024))
    return output.Upload(image.filename, await image.read())


class SaidModal(discord.ui.Modal):
    """What a character says or does, in a box that holds paragraphs."""

    def __init__(
        self, cog: DialogueCog, tr: Translator, kind: str, character: str | None, picture: output.Upload | None
    ) -> None:
        super().__init__(title=tr(f"dialogue.form_title.{kind}"))
        self.cog, self.kind, self.character, self.picture = cog, kind, character, picture
        self.text: discord.ui.TextInput[SaidModal] = discord.ui.TextInput(
            label=tr(f"dialogue.form_label.{kind}"), style=discord.TextStyle.paragraph, max_length=SAID_LIMIT
        )
        self.add_item(self.text)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        begin(interaction)
        await self.cog._post(interaction, self.kind, self.text.value, self.character, self.picture)

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, /) -> None:  # type: ignore[override]
        await report_error(interaction, error)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(DialogueCog(bot))
