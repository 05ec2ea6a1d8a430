"""Everything the bot sends goes through here and stays within Discord's limits.

Long content is split at line ends into several messages; a long description or field value continues in
more embeds or fields; titles, names and labels are shortened with an ellipsis; embeds are packed so no
message holds more than ten of them or 6,000 characters; a file over the attachment limit is compressed,
then split. Every view sent has its labels shortened (`fit_view`), buttons too many for Discord's rows are laid out
a page at a time (`paged_view`), suggestions are cut to what Discord shows (`fit_choices`), and forms fitted
(`show_modal`). Nothing here decides what to say: it only makes what the cogs say fit.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import itertools
import logging
import secrets
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.utils import MISSING

from bot.db.engine import LONG_WAIT
from bot.pictures import plain
from bot.workers import WORKERS

log = logging.getLogger(__name__)
ChoiceT = TypeVar("ChoiceT", str, int, float)

CONTENT_LIMIT = 2000
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
FIELDS_PER_EMBED = 25
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
BUTTON_LABEL_LIMIT = 80
# A select menu's placeholder, and each of its options' label and description.
PLACEHOLDER_LIMIT = 150
SELECT_OPTION_LIMIT = 100
# Buttons to a row and rows to a message (the action rows every message of the bot carries).
ROW_WIDTH = 5
ROWS = 5
MODAL_TITLE_LIMIT = 45
INPUT_LABEL_LIMIT = 45
# A text box's placeholder, and a form label's description.
INPUT_PLACEHOLDER_LIMIT = 100
INPUT_VALUE_LIMIT = 4000
# Suggestions while a command is typed: how many, and how long each one's name.
CHOICES_LIMIT = 25
CHOICE_NAME_LIMIT = 100
# Discord's upload limit for a server without boosts.
FILE_LIMIT = 10 * 1024 * 1024
ELLIPSIS = "…"
# Discord drops an interaction not answered within 3 seconds: a command still working after this long says
# it is thinking, and answers in a followup when it is done.
DEFER_AFTER_SECONDS = 1.5
# Discord's code for an interaction it no longer knows: one whose first answer came after its 3 seconds.
UNKNOWN_INTERACTION = 10062
_LOCK = "fatebot.reply_lock"
_DEFERRED = "fatebot.deferred"
_WATCH = "fatebot.deadline"


def shorten(text: str, limit: int) -> str:
    """The text, cut to `limit` characters with an ellipsis if it is longer."""
    return text if len(text) <= limit else f"{text[: limit - 1]}{ELLIPSIS}"


def shorten_label(text: str, limit: int) -> str:
    """A choice's label (a button, a menu's option, a suggestion) cut in its middle with an ellipsis if it is
    longer than `limit`: choices that share a long start (a character's name, the start of a weapon's) are told
    apart by their ends (the skill, the rest of the name, the kind), which a cut at the end would lose."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return f"{text[:head]}{ELLIPSIS}{text[len(text) - (limit - 1 - head) :]}"


def chunks(text: str, limit: int) -> list[str]:
    """The text in pieces of at most `limit` characters, cut at line ends where a line fits."""
    pieces: list[str] = []
    current = ""
    for whole in text.split("\n"):
        line = whole
        while len(line) > limit:  # a single line longer than a piece: cut it where it must be cut
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            candidate = line
        current = candidate
    if current or not pieces:
        pieces.append(current)
    return [piece for piece in pieces if piece] or [""]


def _size(embed: discord.Embed) -> int:
    """What counts towards the 6,000 characters of an embed: discord.py counts the same parts."""
    return len(embed)


def _continuation(embed: discord.Embed) -> discord.Embed:
    return discord.Embed(colour=embed.colour)


def _fits(embed: discord.Embed) -> bool:
    """Whether Discord takes the embed as it is: almost every embed the bot builds, checked in one pass."""
    fields = embed.fields
    if len(fields) > FIELDS_PER_EMBED or any(not field.name or not field.value for field in fields):
        return False
    size = _size(embed)
    if size <= TITLE_LIMIT:  # the smallest limit of any part: none can be over its own
        return True
    return (
        size <= EMBED_TOTAL_LIMIT
        and len(embed.title or "") <= TITLE_LIMIT
        and len(embed.description or "") <= DESCRIPTION_LIMIT
        and len(embed.footer.text or "") <= FOOTER_LIMIT
        and len(embed.author.name or "") <= TITLE_LIMIT
        and all(
            len(field.name or "") <= FIELD_NAME_LIMIT and len(field.value or "") <= FIELD_VALUE_LIMIT
            for field in fields
        )
    )


def fit_embed(embed: discord.Embed) -> list[discord.Embed]:
    """One embed as one or more that each fit: a long description or field goes on in the next ones."""
    if _fits(embed):
        return [embed]
    footer = shorten(embed.footer.text, FOOTER_LIMIT) if embed.footer.text else None
    # The first part keeps what is not text (colour, link, time, pictures); the text is laid out again below.
    first = discord.Embed(
        title=shorten(embed.title, TITLE_LIMIT) if embed.title else None,
        colour=embed.colour,
        url=embed.url,
        timestamp=embed.timestamp,
    )
    if embed.image.url:
        first.set_image(url=embed.image.url)
    if embed.thumbnail.url:
        first.set_thumbnail(url=embed.thumbnail.url)
    if embed.author.name:
        first.set_author(
            name=shorten(embed.author.name, TITLE_LIMIT), url=embed.author.url, icon_url=embed.author.icon_url
        )
    parts = [first]
    descriptions = chunks(embed.description, DESCRIPTION_LIMIT) if embed.description else []
    for index, piece in enumerate(descriptions):
        if index:
            parts.append(_continuation(embed))
        parts[-1].description = piece
    reserve = len(footer or "")
    for field in embed.fields:
        name = shorten(field.name or "\u200b", FIELD_NAME_LIMIT)
        for value in chunks(field.value or "\u200b", FIELD_VALUE_LIMIT):
            current = parts[-1]
            full = len(current.fields) >= FIELDS_PER_EMBED
            if full or _size(current) + len(name) + len(value) + reserve > EMBED_TOTAL_LIMIT:
                current = _continuation(embed)
                parts.append(current)
            current.add_field(name=name, value=value or "\u200b", inline=bool(field.inline))
    if footer:
        parts[-1].set_footer(text=footer)
    return parts


@dataclass(frozen=True)
class Part:
    """What one message carries."""

    content: str | None
    embeds: tuple[discord.Embed, ...]


def pack(content: str | None, embeds: Sequence[discord.Embed]) -> list[Part]:
    """Content and embeds as messages that each fit: content first, split at line ends, the embeds after it,
    ten at most and 6,000 characters at most in each message."""
    texts = [text for text in chunks(content, CONTENT_LIMIT) if text.strip()] if content else []
    fitted = [part for embed in embeds for part in fit_embed(embed)]
    groups: list[list[discord.Embed]] = []
    for embed in fitted:
        size = _size(embed)
        crowded = bool(groups) and (
            len(groups[-1]) >= EMBEDS_PER_MESSAGE or sum(map(_size, groups[-1])) + size > EMBED_TOTAL_LIMIT
        )
        if not groups or crowded:
            groups.append([])
        groups[-1].append(embed)
    parts = [Part(text, ()) for text in texts]
    if parts and groups:  # the last piece of text and the first embeds share a message
        last = parts.pop()
        parts.append(Part(last.content, tuple(groups.pop(0))))
    parts += [Part(None, tuple(group)) for group in groups]
    return parts or [Part(None, ())]


def _underlying(item: discord.ui.Item[Any]) -> discord.ui.Item[Any]:
    """The component a persistent item wraps (its label is the wrapped button's)."""
    return item.item if isinstance(item, discord.ui.DynamicItem) else item


def fit_view(view: discord.ui.View | None) -> None:
    """Every text of the view's components within Discord's limits, shortened with an ellipsis in place. A
    component's custom_id and an option's value are ids the bot reads back, never shortened: they are built
    within the limit (`bot.views`)."""
    for child in view.children if view is not None else ():
        item = _underlying(child)
        if isinstance(item, discord.ui.Button) and item.label:
            item.label = shorten_label(item.label, BUTTON_LABEL_LIMIT)
        elif isinstance(item, discord.ui.Select):
            if item.placeholder:
                item.placeholder = shorten(item.placeholder, PLACEHOLDER_LIMIT)
            for option in item.options:
                option.label = shorten_label(option.label, SELECT_OPTION_LIMIT)
                if option.description:
                    option.description = shorten(option.description, SELECT_OPTION_LIMIT)


# A button that turns to page `number` of `count`.
PageTurn = Callable[[int, int], discord.ui.Item[Any]]


def pages_of(choices: int, kept: int) -> tuple[int, int]:
    """How many buttons of `choices` a page holds, and how many pages they take, beside `kept` buttons on every
    page (a cancel): all on one page when they fit in Discord's rows, else a page's full rows and a last row for
    the `kept` ones and the button to the next page."""
    if choices + kept <= ROWS * ROW_WIDTH:
        return max(choices, 1), 1
    navigation_rows = -(-(kept + 1) // ROW_WIDTH)
    per_page = (ROWS - navigation_rows) * ROW_WIDTH
    if per_page < 1:
        raise ValueError(f"{kept} buttons kept on every page leave no room for a choice")
    return per_page, -(-choices // per_page)


def paged_view(
    choices: Sequence[discord.ui.Item[Any]],
    kept: Sequence[discord.ui.Item[Any]],
    number: int,
    turn: PageTurn,
) -> discord.ui.View:
    """Buttons laid out within Discord's rows, in their order: the `choices` a page at a time when they do not fit
    in one (the first page holds the first), each page with the `kept` buttons and `turn`'s button to the next
    page (the last leads back to the first), so none is ever left out. A page number past the end shows the
    last page."""
    per_page, count = pages_of(len(choices), len(kept))
    number = max(0, min(number, count - 1))
    view = discord.ui.View(timeout=None)
    shown = list(choices[number * per_page : (number + 1) * per_page])
    # On more than one page, the way on starts a row of its own, where every page has it.
    rows = [[*shown, *kept]] if count == 1 else [shown, [turn((number + 1) % count, count), *kept]]
    first = 0
    for items in rows:
        for index, item in enumerate(items):
            item.row = first + index // ROW_WIDTH
            view.add_item(item)
        first += -(-len(items) // ROW_WIDTH)
    return view


def fit_choices(choices: Iterable[app_commands.Choice[ChoiceT]]) -> list[app_commands.Choice[ChoiceT]]:
    """Suggestions as Discord takes them: the first 25 (the list's order puts the best first), each name
    shortened; what the user types narrows the list to the others. A text too long for Discord to carry as a
    value is not suggested (cut, it would send other words): the user may still type it."""
    carried = (
        choice for choice in choices if not isinstance(choice.value, str) or len(choice.value) <= CHOICE_NAME_LIMIT
    )
    return [
        app_commands.Choice(name=shorten_label(choice.name, CHOICE_NAME_LIMIT), value=choice.value)
        for choice in itertools.islice(carried, CHOICES_LIMIT)
    ]


def fit_modal(modal: discord.ui.Modal) -> discord.ui.Modal:
    """A form's title and each text box's label, placeholder and prefilled text within Discord's limits (the text
    within its box's own most too), in place."""
    modal.title = shorten(modal.title, MODAL_TITLE_LIMIT)
    for child in modal.walk_children():
        if isinstance(child, discord.ui.Label):
            child.text = shorten(child.text, INPUT_LABEL_LIMIT)
            if child.description:
                child.description = shorten(child.description, INPUT_PLACEHOLDER_LIMIT)
        elif isinstance(child, discord.ui.TextInput):
            # A text box's own label (a form without a Label component) is read where discord.py keeps it, whose
            # property for it warns of its deprecation at each use.
            box = child._underlying
            if box.label:
                box.label = shorten(box.label, INPUT_LABEL_LIMIT)
            if child.placeholder:
                child.placeholder = shorten(child.placeholder, INPUT_PLACEHOLDER_LIMIT)
            if child.default:
                child.default = shorten(child.default, min(child.max_length or INPUT_VALUE_LIMIT, INPUT_VALUE_LIMIT))
    return modal


async def show_modal(interaction: discord.Interaction[discord.Client], modal: discord.ui.Modal) -> None:
    """A form, as the answer to a command or a click."""
    async with _lock(interaction):
        await interaction.response.send_modal(fit_modal(modal))


# Discord's limit on an attachment's description (what screen readers say of an image).
ALT_TEXT_LIMIT = 1024


@dataclass(frozen=True)
class Picture:
    """An image sent with a reply, and its alt text; an embed shows it with `attachment://<filename>`."""

    filename: str
    data: bytes
    description: str

    @property
    def url(self) -> str:
        return f"attachment://{self.filename}"


def fit_files(files: Sequence[tuple[str, bytes]]) -> list[discord.File]:
    """Files within the upload limit: a large one gzipped, and a still larger one cut into numbered parts."""
    fitted: list[discord.File] = []
    for given_name, given_data in files:
        name, data = given_name, given_data
        if len(data) > FILE_LIMIT:
            name, data = f"{name}.gz", gzip.compress(data, mtime=0)
        pieces = range(0, len(data), FILE_LIMIT) if len(data) > FILE_LIMIT else [0]
        names = [name] if len(pieces) == 1 else [f"{name}.part{index + 1}" for index in range(len(pieces))]
        fitted += [
            discord.File(io.BytesIO(data[start : start + FILE_LIMIT]), filename=part)
            for part, start in zip(names, pieces, strict=True)
        ]
    return fitted


def fit_path(path: Path) -> list[Path]:
    """A file on disk within the upload limit, the same way: gzipped beside it if too large, then cut into
    numbered parts. Streams, so a large log never sits in memory; blocking, so run it in a thread."""
    if path.stat().st_size <= FILE_LIMIT:
        return [path]
    packed = path.with_name(f"{path.name}.gz")
    with path.open("rb") as source, gzip.GzipFile(packed, "wb", mtime=0) as sink:
        shutil.copyfileobj(source, sink)
    if packed.stat().st_size <= FILE_LIMIT:
        return [packed]
    parts: list[Path] = []
    with packed.open("rb") as source:
        while piece := source.read(FILE_LIMIT):
            part = packed.with_name(f"{packed.name}.part{len(parts) + 1}")
            part.write_bytes(piece)
            parts.append(part)
    return parts


Mentions = discord.AllowedMentions


def _release(view: discord.ui.View | None) -> None:
    """Our buttons are dynamic items, answered from the message's own components whenever they are clicked; a
    view kept in discord.py's store would only hold memory for every prompt ever posted (and, on an ephemeral
    message, a timer for 15 minutes)."""
    if view is not None:
        view.stop()


def _lock(interaction: discord.Interaction[discord.Client]) -> asyncio.Lock:
    lock = interaction.extras.get(_LOCK)
    if not isinstance(lock, asyncio.Lock):
        lock = interaction.extras[_LOCK] = asyncio.Lock()
    return lock


def guard(interaction: discord.Interaction[discord.Client]) -> None:
    """Answer Discord in time whatever the command waits for (a lock, a download, a long batch): if it has
    not replied after `DEFER_AFTER_SECONDS`, defer; its reply then comes as a followup."""

    async def defer_if_slow() -> None:
        async with _lock(interaction):
            if interaction.response.is_done():
                return
            if interaction.type is discord.InteractionType.component:
                # A click: its message is edited (or followed up) once the answer is ready.
                await interaction.response.defer()
            else:
                await interaction.response.defer(thinking=True)
                interaction.extras[_DEFERRED] = True

    def on_deadline() -> None:
        # Almost every command has answered by now: the task is only made for those that have not.
        if not interaction.response.is_done() and _WATCH not in interaction.extras:
            interaction.extras[_WATCH] = asyncio.create_task(defer_if_slow())

    asyncio.get_running_loop().call_later(DEFER_AFTER_SECONDS, on_deadline)
    # In a burst the loop is too busy to keep that appointment: a command queueing behind many others to write
    # defers as it joins the queue.
    LONG_WAIT.set(on_deadline)


async def defer(interaction: discord.Interaction[discord.Client], *, ephemeral: bool) -> None:
    """Say at once that the answer will take a while (an export): the reply follows when it is ready."""
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)


async def _unthink(interaction: discord.Interaction[discord.Client], ephemeral: bool) -> None:
    """After a public "thinking..." the first reply replaces it; a private one cannot, so it goes away."""
    if interaction.extras.pop(_DEFERRED, False) and ephemeral:
        await interaction.delete_original_response()


async def reply(
    interaction: discord.Interaction[discord.Client],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    files: Sequence[tuple[str, bytes]] = (),
    paths: Sequence[Path] = (),
    ephemeral: bool = False,
    mentions: Mentions | None = None,
    pictures: Sequence[Picture] = (),
) -> None:
    """The interaction's reply (or its followups, once it has answered or deferred), in as many messages as it
    takes. The view and the files (in memory, or on disk for large ones; pictures with their alt text) go with
    the last message."""
    parts = pack(content, [*([embed] if embed else []), *embeds])
    attached = fit_files(files) + [
        discord.File(
            io.BytesIO(picture.data),
            filename=picture.filename,
            description=shorten(plain(picture.description), ALT_TEXT_LIMIT),
        )
        for picture in pictures
    ]
    for path in paths:
        attached += [discord.File(fitted) for fitted in await WORKERS.run(interaction.user.id, fit_path, path)]
    fit_view(view)
    async with _lock(interaction):
        await _unthink(interaction, ephemeral)
        try:
            await _send(interaction, parts, attached, view, ephemeral, mentions)
        except discord.NotFound as error:
            channel = interaction.channel
            if not _expired(interaction, error) or ephemeral or not isinstance(channel, discord.abc.Messageable):
                raise
            # Discord dropped the interaction before its answer arrived (a slow network, a loop busy with a
            # burst). What the command did was saved: the table still reads it, in a message of the bot's own.
            log.warning("interaction %s expired before its reply: posted in its channel instead", interaction.id)
            for file in attached:
                file.reset(seek=True)
            await _post_parts(channel, parts, view, mentions, attached)
    _release(view)


def _expired(interaction: discord.Interaction[discord.Client], error: discord.NotFound) -> bool:
    """Whether the first answer to the interaction failed because Discord no longer knows it."""
    return error.code == UNKNOWN_INTERACTION and not interaction.response.is_done()


async def _send(
    interaction: discord.Interaction[discord.Client],
    parts: Sequence[Part],
    attached: Sequence[discord.File],
    view: discord.ui.View | None,
    ephemeral: bool,
    mentions: Mentions | None,
) -> None:
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        text, shown = part.content or MISSING, list(part.embeds) or MISSING
        buttons = view if last and view is not None else MISSING
        carried = attached if last and attached else MISSING
        if interaction.response.is_done():
            await interaction.followup.send(
                text,
                embeds=shown,
                view=buttons,
                files=carried,
                ephemeral=ephemeral,
                allowed_mentions=mentions or MISSING,
            )
        else:
            await interaction.response.send_message(
                text,
                embeds=shown,
                view=buttons,
                files=carried,
                ephemeral=ephemeral,
                allowed_mentions=mentions or MISSING,
            )


async def update(
    interaction: discord.Interaction[discord.Client],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """The clicked message, rewritten: one message, so a long content is shortened and an embed keeps what
    fits in one (a page of a list is built to fit)."""
    shown = shorten(content, CONTENT_LIMIT) if content is not None else MISSING
    fitted = fit_embed(embed)[0] if embed is not None else MISSING
    fit_view(view)
    async with _lock(interaction):
        if interaction.response.is_done():  # deferred by `guard`: the clicked message is the original one
            await interaction.edit_original_response(content=shown, embed=fitted, view=view)
        else:
            try:
                await interaction.response.edit_message(content=shown, embed=fitted, view=view)
            except discord.NotFound as error:
                message = interaction.message
                if not _expired(interaction, error) or message is None or message.flags.ephemeral:
                    raise
                # Too late for Discord to take it as the click's answer: the message is still the bot's to edit.
                log.warning("interaction %s expired before its update: the message edited instead", interaction.id)
                await message.edit(content=shown, embed=fitted, view=view)
    _release(view)


async def acknowledge(interaction: discord.Interaction[discord.Client]) -> None:
    """A click that changes nothing on its message: Discord is told so, unless that was done already."""
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer()


async def post(
    channel: discord.abc.Messageable,
    content: str | None = None,
    *,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    mentions: Mentions | None = None,
    nonce: int | None = None,
) -> discord.Message:
    """A message of the bot's own (a prompt, what a deadline did, a DM), in as many messages as it takes;
    the view goes with the last, which is returned. With a `nonce`, Discord keeps one copy of each part however
    often the same post is sent again within minutes (a notice resent after a restart)."""
    fit_view(view)
    sent = await _post_parts(channel, pack(content, embeds), view, mentions, nonce=nonce)
    _release(view)
    return sent


async def _post_parts(
    channel: discord.abc.Messageable,
    parts: Sequence[Part],
    view: discord.ui.View | None,
    mentions: Mentions | None,
    files: Sequence[discord.File] = (),
    *,
    nonce: int | None = None,
) -> discord.Message:
    sent: discord.Message | None = None
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        sent = await channel.send(
            content=part.content,
            embeds=list(part.embeds) or MISSING,
            view=view if last and view is not None else MISSING,
            files=files if last and files else MISSING,
            allowed_mentions=mentions or MISSING,
            nonce=secrets.randbits(64) if nonce is None else nonce + index,
        )
    assert sent is not None
    return sent


async def rewrite(message: discord.PartialMessage | discord.Message, content: str) -> None:
    """Another message of the bot's, rewritten without its buttons (shortened if it must be)."""
    await message.edit(content=shorten(content, CONTENT_LIMIT), view=None)


# Discord's limit on the name a webhook posts under.
POSTER_NAME_LIMIT = 80


@dataclass(frozen=True)
class Upload:
    """A file a user gave, to post again as it came (a picture beside a character's words)."""

    filename: str
    data: bytes


async def post_as(
    webhook: discord.Webhook,
    content: str,
    *,
    name: str,
    avatar_url: str | None,
    thread: discord.Thread | None,
    upload: Upload | None = None,
) -> discord.WebhookMessage:
    """A post through a channel webhook under a character's name and picture, in one message, pinging no one
    (whatever mentions its text holds)."""
    file = discord.File(io.BytesIO(upload.data), filename=upload.filename) if upload is not None else MISSING
    return await webhook.send(
        shorten(content, CONTENT_LIMIT),
        username=shorten(name, POSTER_NAME_LIMIT),
        avatar_url=avatar_url or MISSING,
        allowed_mentions=discord.AllowedMentions.none(),
        wait=True,
        thread=thread or MISSING,
        file=file,
    )


async def rewrite_as(webhook: discord.Webhook, message_id: int, content: str, thread: discord.Thread | None) -> None:
    """A webhook's post given new text, pinging no one."""
    await webhook.edit_message(
        message_id,
        content=shorten(content, CONTENT_LIMIT),
        allowed_mentions=discord.AllowedMentions.none(),
        thread=thread or MISSING,
    )
