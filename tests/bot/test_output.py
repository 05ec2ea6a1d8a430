"""The output layer: whatever the bot has to say, every message it sends fits Discord's limits, and no text
is lost on the way (only titles, names and labels may be shortened)."""

from __future__ import annotations

import gzip

import discord
from discord import app_commands
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import output
from bot.emulator.openapi import validate_request
from bot.emulator.validation import validate_choices, validate_message, validate_modal

lines = st.lists(st.text(alphabet="ab 字\n", max_size=200), max_size=20).map("\n".join)
long_text = st.one_of(lines, st.integers(0, 9000).map(lambda size: "x" * size))


@st.composite
def embeds(draw: st.DrawFn) -> discord.Embed:
    embed = discord.Embed(
        title=draw(st.none() | st.text(min_size=1, max_size=400)), description=draw(st.none() | long_text)
    )
    for _ in range(draw(st.integers(0, 40))):
        embed.add_field(
            name=draw(st.text(min_size=1, max_size=300)), value=draw(long_text) or "v", inline=draw(st.booleans())
        )
    if draw(st.booleans()):
        embed.set_footer(text=draw(st.integers(1, 3000).map(lambda size: "f" * size)))
    return embed


def _size(embed: discord.Embed) -> int:
    return (len(embed.title or "") + len(embed.description or "") + len(embed.footer.text or "")
            + sum(len(field.name or "") + len(field.value or "") for field in embed.fields))  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(st.none() | long_text, st.lists(embeds(), max_size=4))
def test_every_message_fits(content: str | None, given: list[discord.Embed]) -> None:
    for part in output.pack(content, given):
        assert part.content is None or 0 < len(part.content) <= output.CONTENT_LIMIT
        assert len(part.embeds) <= output.EMBEDS_PER_MESSAGE
        assert sum(_size(embed) for embed in part.embeds) <= output.EMBED_TOTAL_LIMIT
        for embed in part.embeds:
            assert len(embed.title or "") <= output.TITLE_LIMIT
            assert len(embed.description or "") <= output.DESCRIPTION_LIMIT
            assert len(embed.footer.text or "") <= output.FOOTER_LIMIT
            assert len(embed.fields) <= output.FIELDS_PER_EMBED
            for field in embed.fields:
                assert 0 < len(field.name or "") <= output.FIELD_NAME_LIMIT
                assert 0 < len(field.value or "") <= output.FIELD_VALUE_LIMIT
        body = {"content": part.content, "embeds": [embed.to_dict() for embed in part.embeds]}
        validate_request("POST", "/channels/1/messages", body)
        validate_message(body, file_count=0, partial=True)  # its limits: the bot never replies with nothing at all


@given(long_text, st.integers(10, 2000))
def test_pieces_keep_every_character(text: str, limit: int) -> None:
    pieces = output.chunks(text, limit)
    assert all(len(piece) <= limit for piece in pieces)
    assert "".join(pieces).replace("\n", "") == text.replace("\n", "")


def test_descriptions_and_fields_continue_in_order() -> None:
    embed = discord.Embed(title="T", description="d" * 5000)
    for index in range(30):
        embed.add_field(name=f"f{index}", value="v" * 900)
    parts = output.fit_embed(embed)
    assert parts[0].title == "T"
    assert "".join(part.description or "" for part in parts) == "d" * 5000
    assert [field.name for part in parts for field in part.fields] == [f"f{index}" for index in range(30)]


def test_a_large_file_is_gzipped_then_split() -> None:
    (small,) = output.fit_files([("log.json", b"{}")])
    assert small.filename == "log.json"
    repetitive = b"abc" * (output.FILE_LIMIT // 2)
    (packed,) = output.fit_files([("log.json", repetitive)])
    assert packed.filename == "log.json.gz"
    assert gzip.decompress(packed.fp.read()) == repetitive
    noise = bytes(range(256)) * (output.FILE_LIMIT // 100)  # compresses badly enough to need parts
    parts = output.fit_files([("log.json", noise)])
    assert all(part.filename.startswith("log.json") for part in parts)


def test_shorten_adds_an_ellipsis_only_when_needed() -> None:
    assert output.shorten("abc", 3) == "abc"
    assert output.shorten("abcd", 3) == "ab…"
    assert output.shorten_label("abcd", 4) == "abcd"
    assert output.shorten_label("abcdef", 4) == "a…ef"


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet="名 :", min_size=0, max_size=20) | st.text(alphabet="名 :", min_size=80, max_size=200),
    st.lists(st.text(alphabet="ab字(", min_size=1, max_size=30), min_size=2, max_size=5, unique=True),
)
def test_choices_that_share_a_long_start_are_still_told_apart(start: str, ends: list[str]) -> None:
    """A character of the longest name with each of its skills; a weapon's long name and each of its kinds."""
    view = discord.ui.View(timeout=None)
    for index, end in enumerate(ends):
        view.add_item(_button(f"{start}{end}", index))
    output.fit_view(view)
    shown = [item.label for item in view.children if isinstance(item, discord.ui.Button)]
    assert len(set(shown)) == len(ends), shown
    suggested = output.fit_choices(app_commands.Choice(name=f"{start}{end}", value=end or "-") for end in ends)
    assert len({choice.name for choice in suggested}) == len(ends)


labels = st.text(alphabet="ab 字…", min_size=1, max_size=300)


def _button(label: str, index: int) -> discord.ui.Button[discord.ui.View]:
    return discord.ui.Button(label=label, custom_id=f"choice:{index}")


@settings(max_examples=60, deadline=None)
@given(st.lists(labels, max_size=20), labels, st.lists(st.tuples(labels, st.none() | labels), min_size=1, max_size=25))
def test_every_text_of_a_view_fits(buttons: list[str], placeholder: str, options: list[tuple[str, str | None]]) -> None:
    view = discord.ui.View(timeout=None)
    for index, label in enumerate(buttons):
        view.add_item(_button(label, index))
    menu: discord.ui.Select[discord.ui.View] = discord.ui.Select(custom_id="menu", placeholder=placeholder)
    for index, (label, description) in enumerate(options):
        menu.add_option(label=label, value=f"v{index}", description=description)
    view.add_item(menu)
    output.fit_view(view)
    validate_request("POST", "/channels/1/messages", {"components": view.to_components()})
    validate_message({"components": view.to_components()}, file_count=0, partial=False)
    for item, label in zip(view.children, buttons, strict=False):
        assert isinstance(item, discord.ui.Button) and item.label == output.shorten_label(
            label, output.BUTTON_LABEL_LIMIT
        )
        assert len(item.label) <= output.BUTTON_LABEL_LIMIT
    assert menu.placeholder is not None and len(menu.placeholder) <= output.PLACEHOLDER_LIMIT
    for option, (label, description) in zip(menu.options, options, strict=True):
        assert option.label == output.shorten_label(label, output.SELECT_OPTION_LIMIT)
        assert len(option.description or "") <= output.SELECT_OPTION_LIMIT
        assert (option.description is None) == (description is None)


@settings(max_examples=80, deadline=None)
@given(st.lists(labels, max_size=130), st.integers(0, 3), st.integers(0, 40))
def test_any_count_of_buttons_is_laid_out_and_every_one_reachable(choices: list[str], kept: int, start: int) -> None:
    def view_of(number: int) -> discord.ui.View:
        return output.paged_view(
            [_button(label, index) for index, label in enumerate(choices)],
            [discord.ui.Button(label="Cancel", custom_id=f"kept:{index}") for index in range(kept)],
            number, lambda page, count: discord.ui.Button(label=f"more {page}/{count}", custom_id=f"page:{page}"),
        )  # fmt: skip

    seen: list[str] = []
    page = 0
    for _ in range(len(choices) + 1):
        view = view_of(page)
        validate_message({"content": "?", "components": view.to_components()}, file_count=0, partial=False)
        ids = [item.custom_id for item in view.children if isinstance(item, discord.ui.Button)]
        assert [name for name in ids if name and name.startswith("kept:")] == [f"kept:{i}" for i in range(kept)]
        seen += [name for name in ids if name and name.startswith("choice:")]
        turn = next((name for name in ids if name and name.startswith("page:")), None)
        if turn is None or turn == "page:0":
            break
        page = int(turn.removeprefix("page:"))
    # Page after page from the first, every choice once, in the order given: the first page holds the first.
    assert seen == [f"choice:{index}" for index in range(len(choices))]
    last = view_of(start)  # a page number past the end shows the last page
    assert all(isinstance(item, discord.ui.Button) for item in last.children)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(labels, st.text(max_size=150)), max_size=60))
def test_suggestions_are_the_first_that_discord_carries(given: list[tuple[str, str]]) -> None:
    fitted = output.fit_choices(app_commands.Choice(name=name, value=value) for name, value in given)
    carried = [(name, value) for name, value in given if len(value) <= output.CHOICE_NAME_LIMIT]
    assert len(fitted) == min(len(carried), output.CHOICES_LIMIT)
    for choice, (name, value) in zip(fitted, carried, strict=False):
        assert choice.name == output.shorten_label(name, output.CHOICE_NAME_LIMIT) and choice.value == value
    answer = {"choices": [choice.to_dict() for choice in fitted]}
    validate_request("POST", "/interactions/1/token/callback", {"type": 8, "data": answer})
    validate_choices(answer)


@given(labels, labels, st.text(max_size=5000), st.integers(1, 50) | st.just(output.INPUT_VALUE_LIMIT))
def test_a_form_fits(title: str, label: str, default: str, most: int) -> None:
    modal = discord.ui.Modal(title=title)
    box: discord.ui.TextInput[discord.ui.Modal] = discord.ui.TextInput(
        label=label, placeholder=label, default=default or None, style=discord.TextStyle.paragraph
    )
    modal.add_item(box)
    labelled: discord.ui.Label[discord.ui.Modal] = discord.ui.Label(
        text=label, description=label, component=discord.ui.TextInput(default=default or None, max_length=most)
    )
    modal.add_item(labelled)
    output.fit_modal(modal)
    validate_request("POST", "/interactions/1/token/callback", {"type": 9, "data": modal.to_dict()})
    validate_modal(modal.to_dict())
    assert len(labelled.text) <= output.INPUT_LABEL_LIMIT
    assert len(labelled.description or "") <= output.INPUT_PLACEHOLDER_LIMIT
    assert len(box.placeholder or "") <= output.INPUT_PLACEHOLDER_LIMIT
    assert (box.default or "") == output.shorten(default, output.INPUT_VALUE_LIMIT)
