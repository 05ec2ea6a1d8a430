"""The output layer: whatever the bot has to say, every message it sends fits Discord's limits, and no text
is lost on the way (only titles, names and labels may be shortened)."""

from __future__ import annotations

import gzip

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import output

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
