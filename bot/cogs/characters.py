"""/character: templates, imports (file or form), the sheet, the roster, the active character."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord
import yaml
from discord import app_commands
from discord.ext import commands

from bot import output, pages
from bot.errors import UserError
from bot.exchange_views import close_prompts, post_prompts
from bot.files import MAX_FILE_BYTES, load_document, parse_sheet, parse_sheet_file
from bot.i18n import Translator, mention
from bot.interactions import (
    Interaction,
    NameText,
    WordText,
    actor_of,
    begin,
    character_choices,
    place_of,
    public_translator,
    report_error,
    translator,
)
from bot.pictures import Meter, character_card
from bot.render import pool_label, pools_text, rolls_text
from bot.services.characters import Created
from bot.services.held import HELD, REJECTED
from bot.sheet_paths import MAX_PATH, field_paths, shown_value
from bot.workers import WORKERS
from rules.exchange import Text
from rules.play import CharacterSnapshot, Play, SheetLine

if TYPE_CHECKING:
    from bot.app import Fatebot

ROSTER_PAGES = "roster"
ROSTER_LINES_PER_PAGE = 20
SHEET_COLOUR = discord.Colour.dark_teal()
FORM_LIMIT = 4000  # what Discord lets a text box hold


def worded(tr: Translator, value: Any) -> Any:
    """A template with its catalog texts (the example's names) in words."""
    if isinstance(value, Text):
        return tr.text(value)
    if isinstance(value, Mapping):
        return {key: worded(tr, item) for key, item in value.items()}
    if isinstance(value, list):
        return [worded(tr, item) for item in value]
    return value


def template_body(tr: Translator, play: Play, kind: str) -> str:
    return yaml.safe_dump({"kind": kind, **worded(tr, play.template(kind))}, allow_unicode=True, sort_keys=False)


def _comment(text: str) -> list[str]:
    return [f"# {line}" for line in text.splitlines()]


def commented(tr: Translator, play: Play, kind: str, body: str) -> str:
    """The template with a comment above each field the ruleset words, in the reader's language: the field names
    stay the rules' own, so a file filled in any language still imports."""
    fields = set(play.template_comments(kind))
    lines: list[str] = []
    for line in body.splitlines():
        # A top-level field starts its line; nested ones and a long value's continuations are indented.
        field = line.partition(":")[0]
        if field in fields and not line[:1].isspace():
            lines += _comment(tr(f"template.{kind}.{field}"))
        lines.append(line)
    return "\n".join(lines) + "\n"


def sheet_text(tr: Translator, play: Play, kind: str, body: str) -> str:
    note = tr(play.template_note_key, kind=tr(f"kind.{kind}"))
    header = "\n".join(_comment(note))
    return f"{header}\n{commented(tr, play, kind, body)}"


def sheet_embed(tr: Translator, character: CharacterSnapshot, lines: list[SheetLine], *, full: bool) -> discord.Embed:
    """A sheet; without `full` (a player looking at a character the GMs run) only what the ruleset shows."""
    owner = (
        tr("character.run_by_gms") if character.gm_run else tr("character.owned_by", user=mention(character.owner_id))
    )
    embed = discord.Embed(
        title=tr("character.sheet_title", name=character.name, kind=tr(f"kind.{character.kind}")),
        description=owner,
        colour=SHEET_COLOUR,
    )
    held = character.state.get(HELD)
    if held:
        title, note = (
            ("character.rejected", "character.rejected_note")
            if held == REJECTED
            else ("character.held", "character.held_note")
        )
        embed.add_field(name=tr(title), value=tr(note, name=character.name), inline=False)
    if full:
        embed.add_field(name=tr("character.pools"), value=pools_text(tr, character.pools), inline=False)
    for line in lines:
        value = tr.text(line.value) if isinstance(line.value, Text) else line.value
        embed.add_field(name=tr(line.label_key), value=value or "—", inline=line.inline)
    return embed


CARD = "card.png"


def sheet_card(tr: Translator, character: CharacterSnapshot, lines: list[SheetLine], *, full: bool) -> output.Picture:
    """The sheet as a card: the same facts as its embed (pools only with `full`), drawn in the reader's language."""
    meters = [Meter(pool_label(tr, name), pool.current, pool.maximum) for name, pool in character.pools.items()]
    facts = [
        (tr(line.label_key), tr.text(line.value) if isinstance(line.value, Text) else line.value or "—")
        for line in lines
    ]
    title = tr("character.sheet_title", name=character.name, kind=tr(f"kind.{character.kind}"))
    owner = tr("character.run_by_gms") if character.gm_run else tr("character.played")
    drawn = character_card(title, owner, tuple(meters) if full else (), tuple(facts), tr.language)
    pools = pools_text(tr, character.pools) if full else tr("character.hidden")
    return output.Picture(CARD, drawn, tr("character.card_alt", name=character.name, pools=pools))


class SheetModal(discord.ui.Modal):
    """The form path: the template in a text box, sent back through the same validation as a file."""

    def __init__(self, cog: CharacterCog, tr: Translator, kind: str, template: str, *, gm_run: bool) -> None:
        super().__init__(title=tr("character.form_title", kind=tr(f"kind.{kind}")))
        self.cog = cog
        self.kind = kind
        self.gm_run = gm_run
        self.sheet: discord.ui.TextInput[SheetModal] = discord.ui.TextInput(
            label=tr("character.form_label"), style=discord.TextStyle.paragraph, default=template, max_length=FORM_LIMIT
        )
        self.add_item(self.sheet)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        begin(interaction)
        kind, data = await WORKERS.run(interaction.user.id, parse_sheet, self.sheet.value)
        await self.cog.create_and_announce(interaction, kind, data, gm_run=self.gm_run)

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, /) -> None:  # type: ignore[override]
        await report_error(interaction, error)


@app_commands.guild_only()
class CharacterCog(commands.GroupCog, group_name="character", group_description="Your characters in this campaign"):
    def __init__(self, bot: Fatebot) -> None:
        self.bot = bot
        super().__init__()

    async def create_and_announce(
        self, interaction: Interaction, kind: str, data: dict[str, Any], *, gm_run: bool
    ) -> None:
        created: Created = await self.bot.characters.create(
            place_of(interaction), actor_of(interaction), kind, data, self.bot.dice, gm_run=gm_run
        )
        tr = translator(interaction, created.campaign.ruleset)
        public = public_translator(interaction, created.campaign.language, created.campaign.ruleset)
        if gm_run:
            # What the GMs' characters hide stays with the GMs: the channel learns only that one arrived.
            await output.reply(
                interaction,
                public("character.created_for_gms", name=created.draft.name, kind=public(f"kind.{kind}")),
            )
            embed = discord.Embed(
                title=tr("character.created", name=created.draft.name, kind=tr(f"kind.{kind}")),
                description=rolls_text(tr, created.draft.rolls),
                colour=SHEET_COLOUR,
            )
            embed.add_field(name=tr("character.pools"), value=pools_text(tr, created.draft.pools))
            await output.reply(interaction, embed=embed, ephemeral=True)
            return
        tr = public
        embed = discord.Embed(
            title=tr("character.created", name=created.draft.name, kind=tr(f"kind.{kind}")),
            description=rolls_text(tr, created.draft.rolls),
            colour=SHEET_COLOUR,
        )
        play = self.bot.rulesets[created.campaign.ruleset].play
        if play is None or not play.private_sheets:  # where sheets are private, the pools are the owner's to see
            embed.add_field(name=tr("character.pools"), value=pools_text(tr, created.draft.pools))
        if created.held:
            embed.add_field(
                name=tr("character.held"), value=tr("character.held_note", name=created.draft.name), inline=False
            )
        if created.active:
            embed.set_footer(text=tr("character.now_active", name=created.draft.name))
        await output.reply(interaction, embed=embed)
        if created.progress is not None:
            await post_prompts(self.bot, created.progress, interaction.guild_locale)

    async def _play_with_kind(self, interaction: Interaction, kind: str) -> tuple[Translator, Play, str]:
        """The reader's words, the ruleset's mechanics, and the kind's example file: its names in the campaign's
        language, as the campaign's characters are named."""
        place = place_of(interaction)
        ruleset, play = await self.bot.characters.ruleset(place)
        if kind not in play.kinds:
            raise UserError("error.unknown_kind", kind=kind, kinds=", ".join(play.kinds))
        named = public_translator(interaction, await self.bot.characters.language(place), ruleset.id)
        return translator(interaction, ruleset.id), play, template_body(named, play, kind)

    @app_commands.command(name="template", description="Get an example character file to fill in")
    @app_commands.describe(kind="What kind of character")
    async def template(self, interaction: Interaction, kind: WordText) -> None:
        tr, play, body = await self._play_with_kind(interaction, kind)
        text = sheet_text(tr, play, kind, body)
        await output.reply(
            interaction,
            tr("character.template_ready", kind=tr(f"kind.{kind}")),
            files=[(f"{kind}.yaml", text.encode())],
            ephemeral=True,
        )

    @app_commands.command(name="import", description="Create a character from a filled-in file (YAML or JSON)")
    @app_commands.describe(file="The character file", npc="Run by the GMs: an NPC, a creature, an enemy (GM only)")
    async def import_file(self, interaction: Interaction, file: discord.Attachment, npc: bool = False) -> None:
        if file.size > MAX_FILE_BYTES:  # said before anything is downloaded
            raise UserError("error.file_too_large", limit=MAX_FILE_BYTES // 1024)
        content = await file.read()
        # Reading the file is bounded work, but never on the event loop that answers everyone else.
        kind, data = await WORKERS.run(interaction.user.id, parse_sheet_file, content)
        await self.create_and_announce(interaction, kind, data, gm_run=npc)

    @app_commands.command(name="create", description="Create a character by filling in a form")
    @app_commands.describe(kind="What kind of character", npc="Run by the GMs: an NPC, a creature, an enemy (GM only)")
    async def create(self, interaction: Interaction, kind: WordText, npc: bool = False) -> None:
        tr, play, body = await self._play_with_kind(interaction, kind)
        await output.show_modal(interaction, SheetModal(self, tr, kind, commented(tr, play, kind, body), gm_run=npc))

    @template.autocomplete("kind")
    @create.autocomplete("kind")
    async def kind_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            ruleset, play = await self.bot.characters.ruleset(place_of(interaction))
        except UserError:
            return []
        tr = translator(interaction, ruleset.id)
        return output.fit_choices(
            app_commands.Choice(name=tr(f"kind.{kind}"), value=kind) for kind in play.kinds if current in kind
        )

    @app_commands.command(name="show", description="Show a character sheet (default: your active character)")
    @app_commands.describe(name="Whose sheet")
    async def show(self, interaction: Interaction, name: NameText | None = None) -> None:
        shown = await self.bot.characters.show(place_of(interaction), actor_of(interaction), name)
        # A look at a character the GMs run, or at any where sheets are private, is the reader's alone, in their
        # language; any other sheet is posted for all.
        tr = (
            translator(interaction, shown.campaign.ruleset)
            if shown.private
            else public_translator(interaction, shown.campaign.language, shown.campaign.ruleset)
        )
        lines = shown.play.sheet_lines(shown.character, shown.options, full=shown.full)
        embed = sheet_embed(tr, shown.character, lines, full=shown.full)
        card = await WORKERS.run(interaction.user.id, sheet_card, tr, shown.character, lines, full=shown.full)
        embed.set_image(url=card.url)
        if shown.character.portrait_url:
            # Discord shows the portrait beside the card: the bot never fetches an address a player gave.
            embed.set_thumbnail(url=shown.character.portrait_url)
        await output.reply(interaction, embed=embed, ephemeral=shown.private, pictures=[card])

    @app_commands.command(name="list", description="List the characters of this campaign")
    async def list_characters(self, interaction: Interaction) -> None:
        await pages.show(interaction, ROSTER_PAGES)

    @app_commands.command(name="use", description="Choose which of your characters acts")
    @app_commands.describe(name="Your character")
    async def use(self, interaction: Interaction, name: NameText) -> None:
        character = await self.bot.characters.use(place_of(interaction), actor_of(interaction), name)
        await output.reply(
            interaction, translator(interaction)("character.now_active", name=character.name), ephemeral=True
        )

    @app_commands.command(name="portrait", description="The picture your character's posts in character carry")
    @app_commands.describe(name="Your character", url="The image's web address (https://...); none removes it")
    async def portrait(
        self, interaction: Interaction, name: NameText, url: app_commands.Range[str, 1, 500] | None = None
    ) -> None:
        named = await self.bot.dialogue.set_portrait(place_of(interaction), actor_of(interaction), name, url)
        key = "character.portrait_set" if url else "character.portrait_removed"
        await output.reply(interaction, translator(interaction)(key, name=named), ephemeral=True)

    @app_commands.command(name="delete", description="Delete a character (its owner or a GM)")
    @app_commands.describe(name="The character")
    async def delete(self, interaction: Interaction, name: NameText) -> None:
        deleted = await self.bot.characters.delete(place_of(interaction), actor_of(interaction), name)
        public = public_translator(interaction, deleted.language, deleted.ruleset)
        await output.reply(
            interaction, public("character.deleted", name=deleted.name, user=mention(interaction.user.id))
        )
        await close_prompts(self.bot, public, deleted.closed, skip=None)

    @app_commands.command(name="edit", description="Change one field of a character's file (GMs: any field)")
    @app_commands.describe(
        name="The character",
        field="The field, as the file writes it: STR, weapons.0.name...",
        value="The new value, as a file would write it (null removes the field)",
    )
    async def edit(
        self,
        interaction: Interaction,
        name: NameText,
        field: app_commands.Range[str, 1, MAX_PATH],
        value: app_commands.Range[str, 1, 1000],
    ) -> None:
        edited = await self.bot.characters.edit_field(
            place_of(interaction), actor_of(interaction), name, field.strip(), load_document(value)
        )
        # A hidden sheet's change is told to whoever made it, in their language; anything else to the table.
        tr = (
            translator(interaction, edited.ruleset)
            if edited.private
            else public_translator(interaction, edited.language, edited.ruleset)
        )
        text = tr(
            "character.edited",
            user=mention(interaction.user.id),
            name=edited.name,
            field=edited.field,
            old=shown_value(edited.old),
            new=shown_value(edited.new),
        )
        await output.reply(interaction, text, ephemeral=edited.private)

    @edit.autocomplete("field")
    async def field_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            shown = await self.bot.characters.show(
                place_of(interaction), actor_of(interaction), interaction.namespace.name or None
            )
        except UserError:
            return []
        if not shown.full:
            return []
        paths = [path for path in field_paths(shown.character.sheet["file"]) if current.lower() in path.lower()]
        return output.fit_choices(app_commands.Choice(name=path, value=path) for path in paths)

    @show.autocomplete("name")
    @use.autocomplete("name")
    @portrait.autocomplete("name")
    @delete.autocomplete("name")
    @edit.autocomplete("name")
    async def character_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)


@pages.source(ROSTER_PAGES)
async def roster_page(interaction: Interaction, number: int) -> pages.Page:
    """A page of the campaign's characters with their pools (hidden from players for the GMs' characters, and for
    rivals' where sheets are private)."""
    campaign, roster, gm = await interaction.client.characters.roster(place_of(interaction), actor_of(interaction))
    play = interaction.client.rulesets[campaign.ruleset].play
    tr = translator(interaction, campaign.ruleset)
    lines = [
        tr(
            "character.roster_line",
            name=c.name,
            kind=tr(f"kind.{c.kind}"),
            user=tr("character.run_by_gms") if c.gm_run else mention(c.owner_id),
            pools=pools_text(tr, c.pools)
            if play is None or play.pools_shown(c, interaction.user.id, gm=gm)
            else tr("character.hidden"),
        )
        for c in roster
    ]
    split = pages.split_lines(lines, ROSTER_LINES_PER_PAGE)
    shown = pages.clamp(number, len(split))
    embed = discord.Embed(
        title=tr("character.roster_title", name=campaign.name),
        description="\n".join(split[shown]) or tr("character.roster_empty"),
        colour=SHEET_COLOUR,
    )
    return pages.Page(embed, shown, len(split), tr)


async def setup(bot: Fatebot) -> None:
    await bot.add_cog(CharacterCog(bot))
