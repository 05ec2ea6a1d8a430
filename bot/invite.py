"""The bot's invitation: the OAuth2 URL with the scopes and exactly the permissions it uses, from its token."""

from __future__ import annotations

import base64
import binascii

import discord

# What the bot does in a channel, each as the developer portal names it: posts (in threads too) with embeds and
# pictures, reads back the posts it edits, and posts in character through the channel's webhook (`/say`).
PORTAL_NAMES = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
    "manage_webhooks": "Manage Webhooks",
}
PERMISSIONS = discord.Permissions(**dict.fromkeys(PORTAL_NAMES, True))
# Its commands are slash commands: the bot user, and the right to register them.
SCOPES = ("bot", "applications.commands")


def application_id(token: str) -> int | None:
    """The application of a bot token: its first part is the bot user's id in base64, and a bot's user id is its
    application's id. None for text that is no bot token."""
    head = token.strip().split(".")[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        return None
    return int(decoded) if decoded.isdigit() else None


def invite_url(application: int) -> str:
    return discord.utils.oauth_url(application, permissions=PERMISSIONS, scopes=SCOPES)
