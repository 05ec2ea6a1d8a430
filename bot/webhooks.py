"""The channel webhooks through which characters post: one per channel, made by the bot on first use, found again
after a restart (or by another process) among the channel's webhooks, and made anew when someone deleted it."""

from __future__ import annotations

from collections.abc import Awaitable

import discord

from bot import output
from bot.errors import UserError

# The name the bot's webhook has in a channel's integrations, and how it finds its own again.
WEBHOOK_NAME = "fatebot characters"


class Voices:
    """The bot's webhook of each channel, kept once found."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._known: dict[int, discord.Webhook] = {}

    async def _channel(self, channel_id: int) -> tuple[discord.TextChannel, discord.Thread | None]:
        channel = self.client.get_channel(channel_id) or await self.client.fetch_channel(channel_id)
        if isinstance(channel, discord.Thread):
            parent = channel.parent or await self.client.fetch_channel(channel.parent_id)
            if not isinstance(parent, discord.TextChannel):
                raise UserError("error.no_webhooks_here")
            return parent, channel
        if not isinstance(channel, discord.TextChannel):
            raise UserError("error.no_webhooks_here")
        return channel, None

    async def _webhook(self, channel: discord.TextChannel, *, fresh: bool = False) -> discord.Webhook:
        if not fresh and channel.id in self._known:
            return self._known[channel.id]
        try:
            own = self.client.user
            found = [
                hook
                for hook in await channel.webhooks()
                if hook.token and hook.user is not None and own is not None and hook.user.id == own.id
            ]
            hook = found[0] if found else await channel.create_webhook(name=WEBHOOK_NAME)
        except discord.Forbidden as refused:
            raise UserError("error.no_manage_webhooks") from refused
        self._known[channel.id] = hook
        return hook

    async def post(
        self, channel_id: int, content: str, *, name: str, avatar_url: str | None, upload: output.Upload | None = None
    ) -> discord.Message:
        channel, thread = await self._channel(channel_id)
        try:
            return await self._post_with(await self._webhook(channel), thread, content, name, avatar_url, upload)
        except discord.NotFound:  # deleted by someone: made again, once
            self._known.pop(channel.id, None)
            hook = await self._webhook(channel, fresh=True)
            return await self._post_with(hook, thread, content, name, avatar_url, upload)

    async def _post_with(
        self,
        hook: discord.Webhook,
        thread: discord.Thread | None,
        content: str,
        name: str,
        avatar_url: str | None,
        upload: output.Upload | None,
    ) -> discord.Message:
        try:
            return await output.post_as(hook, content, name=name, avatar_url=avatar_url, thread=thread, upload=upload)
        except discord.Forbidden as refused:
            raise UserError("error.no_manage_webhooks") from refused
        except discord.HTTPException as refused:
            if refused.status == 400:  # a name Discord will not post under
                raise UserError("error.poster_name", name=name) from refused
            raise

    async def rewrite(self, channel_id: int, message_id: int, content: str) -> None:
        channel, thread = await self._channel(channel_id)
        await self._gone_if_missing(output.rewrite_as(await self._webhook(channel), message_id, content, thread))

    async def take_down(self, channel_id: int, message_id: int) -> None:
        channel, thread = await self._channel(channel_id)
        hook = await self._webhook(channel)
        await self._gone_if_missing(hook.delete_message(message_id, thread=thread or discord.utils.MISSING))

    async def _gone_if_missing(self, change: Awaitable[None]) -> None:
        try:
            await change
        except discord.NotFound as missing:
            raise UserError("error.post_gone") from missing
