"""/help: what waits on the reader in the channel's campaign, the commands their role may use, and each procedure
of the channel's ruleset in a few lines.

Every list is in the catalogs: a shared group's commands are `help.group.<group>`, and a ruleset adds its own to a
group as `help.own.<group>` in its catalog. A topic is `help.topic.<name>.title` and `.text`, in the shared catalog
for the topics of every campaign and in a ruleset's for its own, so a ruleset declares its help by its catalog alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import output
from bot.errors import UserError
from bot.i18n import ENGLISH, Translator, catalog, scoped
from bot.interactions import Interaction, WordText, actor_of, place_of, translator
from bot.render import open_wait_line, ruleset_name

if TYPE_CHECKING:
    from bot.app import Fatebot
    from bot.db.models import Campaign

# What one does, in the order a newcomer meets it; the GMs' tools last, for the GMs alone.
PLAYER_GROUPS = ("character", "act", "answer", "post")
GM_GROUP = "gm"
SHARED_TOPICS = ("dice", "posting", "reminders")
TOPIC = "help.topic."


def ruleset_topics(ruleset: str) -> list[str]:
    """The topics a ruleset's catalog explains, in its catalog's order."""
    own = scoped(ruleset, TOPIC)
    return [
        key.removeprefix(own).removesuffix(".title")
        for key in catalog(ENGLISH)
        if key.startswith(own) and key.endswith(".title")
    ]


def topics_of(ruleset: str | None) -> list[str]:
    """The topics offered in a channel: the shared ones, then its campaign's ruleset's."""
    return [*SHARED_TOPICS, *(ruleset_topics(ruleset) if ruleset else ())]


def topic_title(tr: Translator, topic: str) -> str:
    return tr(f"{TOPIC}{topic}.title")


def group_embed(tr: Translator, group: str, *, last: bool = False) -> discord.Embed:
    """A group's shared commands, then those its ruleset adds; the last group says where to read more (a footer
    would not make its command a mention)."""
    lines = [tr(f"help.group.{group}")]
    if tr.has(f"help.own.{group}"):
        lines.append(tr(f"help.own.{group}"))
    if last:
        lines.append(topics_line(tr, tr.ruleset))
    return discord.Embed(title=tr(f"help.group.{group}.title"), description="\n".join(lines))


def rulesets_embed(tr: Translator, rulesets: list[str]) -> discord.Embed:
    lines = [tr("help.no_campaign")]
    lines.extend(
        tr("help.ruleset_line", name=ruleset_name(tr, ruleset), about=tr.scoped(ruleset)("help.about"))
        for ruleset in rulesets
    )
    lines.append(topics_line(tr, None))
    return discord.Embed(title=tr("help.title"), description="\n".join(lines))


def topics_line(tr: Translator, ruleset: str | None) -> str:
    return tr("help.topics", topics=tr("help.separator").join(topic_title(tr, topic) for topic in topics_of(ruleset)))


class HelpCog(commands.Cog):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot

    async def _campaign(self, interaction: Interaction) -> tuple[Campaign, bool] | None:
        """The channel's campaign and whether the reader is its GM; None where no campaign plays."""
        try:
            return await self.bot.campaigns.seen_by(place_of(interaction), actor_of(interaction))
        except UserError as error:
            if error.key != "error.no_campaign":
                raise
            return None

    @app_commands.command(name="help", description="What waits for you here, the commands you may use, how play goes")
    @app_commands.describe(topic="A procedure explained in a few lines")
    @app_commands.guild_only()
    async def help(self, interaction: Interaction, topic: WordText | None = None) -> None:
        seen = await self._campaign(interaction)
        ruleset = seen[0].ruleset if seen else None
        tr = translator(interaction, ruleset)
        if topic is not None:
            await self._topic(interaction, tr, ruleset, topic)
            return
        if seen is None:
            await output.reply(interaction, embed=rulesets_embed(tr, list(self.bot.rulesets)), ephemeral=True)
            return
        campaign, gm = seen
        waits = [
            wait
            for wait in await self.bot.reminders.waiting_on(campaign.guild_id, interaction.user.id)
            if wait.campaign_id == campaign.id
        ]
        lines = [tr("waiting.yours", count=len(waits))] if waits else [tr("help.nothing_waits")]
        lines.extend(open_wait_line(tr, wait, with_campaign=False) for wait in waits)
        title = tr("help.title_campaign", name=campaign.name, ruleset=ruleset_name(tr, campaign.ruleset))
        embeds = [discord.Embed(title=title, description="\n".join(lines))]
        groups = (*PLAYER_GROUPS, *((GM_GROUP,) if gm else ()))
        embeds.extend(group_embed(tr, group, last=group == groups[-1]) for group in groups)
        await output.reply(interaction, embeds=embeds, ephemeral=True)

    async def _topic(self, interaction: Interaction, tr: Translator, ruleset: str | None, topic: str) -> None:
        offered = topics_of(ruleset)
        if topic not in offered:
            raise UserError(
                "help.no_topic", topics=tr("help.separator").join(topic_title(tr, name) for name in offered)
            )
        embed = discord.Embed(title=topic_title(tr, topic), description=tr(f"{TOPIC}{topic}.text"))
        await output.reply(interaction, embed=embed, ephemeral=True)

    @help.autocomplete("topic")
    async def topic_choices(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
        seen = await self._campaign(interaction)
        ruleset = seen[0].ruleset if seen else None
        tr = translator(interaction, ruleset)
        wanted = typed.casefold()
        titles = {topic: topic_title(tr, topic) for topic in topics_of(ruleset)}
        return output.fit_choices(
            app_commands.Choice(name=title, value=topic)
            for topic, title in titles.items()
            if wanted in topic or wanted in title.casefold()
        )


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(HelpCog(bot))
