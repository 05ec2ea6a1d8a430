"""Posting in character through the emulator: `/say` and `/me` through the channel's webhook (made once, found
again after a restart, made anew when deleted), portraits, no pings, edits and deletions of one's own posts, the
log and the export, threads, and a clear refusal where the bot may not manage webhooks."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator

import pytest
from PIL import Image

from bot.emulator.models import Channel, Message
from bot.emulator.world import MANAGE_WEBHOOKS
from bot.pictures import plain
from tests.databases import BACKENDS
from tests.e2e.fate_table import Table, fate_points_table


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """A Fate/Points campaign: bob plays Rin and Archer (acting as Archer), mei (in Japanese) Sakura and Rider."""
    async with fate_points_table(request.param, tmp_path_factory.mktemp("dialogue")) as table:
        yield table


def posts_in(table: Table, channel: Channel | None = None) -> list[Message]:
    """The posts made through a webhook, in the channel."""
    shown = table.harness.emulator.visible_to(table.players.gm, channel or table.channel)
    return [message for message in shown if message.webhook_id is not None and not message.deleted]


async def test_a_character_speaks_and_acts_under_its_name_and_pings_no_one(table: Table) -> None:
    harness, bob, mei = table.harness, table.players.player, table.players.defender
    said = await harness.slash(bob, table.channel, "say", text=f"Hello {mei.mention} and @everyone.")
    assert said.reply.ephemeral and said.reply.content == "Posted as Archer."
    post = posts_in(table)[-1]
    assert post.author.name == "Archer" and post.content == f"Hello {mei.mention} and @everyone."
    assert post.notified == frozenset()  # a mention in a character's words pings nobody
    acted = await harness.slash(bob, table.channel, "me", text="draws a bow of light")
    assert acted.error is None and posts_in(table)[-1].content == "*draws a bow of light*"
    # An asterisk or underscore in the action stays as typed: it does not end the italics.
    await harness.slash(bob, table.channel, "me", text="grins *wickedly* at 2*3_")
    assert posts_in(table)[-1].content == "*grins \\*wickedly\\* at 2\\*3\\_*"
    stars = await harness.slash(bob, table.channel, "me", text="*" * 1200)
    assert stars.reply.ephemeral and "2000" in stars.reply.content
    assert posts_in(table)[-1].content == "*grins \\*wickedly\\* at 2\\*3\\_*"  # nothing posted
    assert len(harness.emulator.world.webhooks) == 1  # one webhook for the channel, made once

    # Speaking as Rin, bob's other character; not as mei's.
    await harness.slash(bob, table.channel, "say", text="Archer, stand down.", character="rin")
    assert posts_in(table)[-1].author.name == "Rin"
    refused = (await harness.slash(mei, table.channel, "say", text="I am Archer.", character="Archer")).reply
    assert refused.ephemeral and "Archer" in refused.content
    assert posts_in(table)[-1].content == "Archer, stand down."

    log = (await harness.slash(mei, table.channel, "log show")).reply.text()
    assert f"Archer「Hello {mei.mention} and @everyone.」" in log and "*Archer：draws a bow of light*" in log
    assert "*Archer：grins \\*wickedly\\* at 2\\*3\\_*" in log
    exported = (await harness.slash(bob, table.channel, "log export", format="json")).reply
    events = json.loads(exported.attachments[0].data)["events"]
    spoken = [event for event in events if event["kind"] == "dialogue.say"]
    assert [event["payload"]["text"] for event in spoken][-1] == "Archer, stand down."


async def test_a_long_post_in_a_form_and_a_picture_beside_the_words(table: Table) -> None:
    harness, bob = table.harness, table.players.player
    form = await harness.slash(bob, table.channel, "say")
    assert form.modal is not None and form.modal["title"] == "What your character says"
    spoken = "I am the bone of my sword.\n\nSteel is my body, and fire is my blood."
    sent = await harness.emulator.submit_modal(bob, form, {"Words (line breaks are kept)": spoken})
    assert sent.reply.ephemeral and sent.reply.content == "Posted as Archer."
    assert posts_in(table)[-1].content == spoken and posts_in(table)[-1].author.name == "Archer"

    picture = Image.new("RGB", (8, 8), "red")
    data = io.BytesIO()
    picture.save(data, format="PNG")
    shown = await harness.slash(
        bob, table.channel, "me", text="raises a red shroud", image=("shroud.png", data.getvalue())
    )
    assert shown.error is None
    post = posts_in(table)[-1]
    assert post.content == "*raises a red shroud*"
    assert [(file.filename, file.data) for file in post.attachments] == [("shroud.png", data.getvalue())]
    refused = await harness.slash(bob, table.channel, "say", text="Look.", image=("notes.txt", b"not a picture"))
    assert refused.reply.ephemeral and "notes.txt is not a picture" in refused.reply.content
    assert posts_in(table)[-1] == post
    exported = (await harness.slash(bob, table.channel, "log export", format="json")).reply
    events = json.loads(exported.attachments[0].data)["events"]
    assert [event["payload"].get("image") for event in events if event["kind"] == "dialogue.me"][-1] == "shroud.png"


@pytest.mark.parametrize(
    "address",
    ["https://[", "https://[::1", "https://example.com:99999/a.png", "https://exa mple.com/a.png",
     "https://example.com/a\x01.png", "https://ex\u200bample.com/a.png", "https:///a.png", "https://-/a.png",
     "https://a..b/a.png", "https://example.com/<a>.png", "http:/example.com/a.png", "ftp://example.com/a.png"],
)  # fmt: skip
async def test_a_portrait_discord_could_not_fetch_is_refused_and_the_old_one_kept(table: Table, address: str) -> None:
    harness, bob = table.harness, table.players.player
    kept = "https://example.com/kept.png"
    await harness.slash(bob, table.channel, "character portrait", name="Archer", url=kept)
    refused = (await harness.slash(bob, table.channel, "character portrait", name="Archer", url=address)).reply
    assert refused.ephemeral
    assert refused.content == "A portrait is an image's web address starting with https:// (at most 500 characters)."
    await harness.slash(bob, table.channel, "say", text="Still me.")
    assert posts_in(table)[-1].avatar_url == kept


async def test_portraits_edits_and_deletions_are_the_speakers_own(table: Table) -> None:
    harness, bob, mei = table.harness, table.players.player, table.players.defender
    bad = (
        await harness.slash(bob, table.channel, "character portrait", name="Archer", url="javascript:alert(1)")
    ).reply
    assert bad.ephemeral and "https://" in bad.content
    taken = (await harness.slash(mei, table.channel, "character portrait", name="Archer",
                                 url="https://example.com/not-yours.png")).reply  # fmt: skip
    assert taken.ephemeral
    set_ = (await harness.slash(bob, table.channel, "character portrait", name="Archer",
                                url="https://example.com/archer.png")).reply  # fmt: skip
    assert set_.content == "Archer's posts in character now carry this portrait."
    await harness.slash(bob, table.channel, "say", text="Trace on.")
    post = posts_in(table)[-1]
    assert post.avatar_url == "https://example.com/archer.png"

    edited = (await harness.slash(bob, table.channel, "post edit", text="Trace, on.")).reply
    assert edited.content == "Archer's post is changed." and harness.current(post).content == "Trace, on."
    link = f"https://discord.com/channels/{post.guild_id}/{post.channel_id}/{post.id}"
    not_hers = (await harness.slash(mei, table.channel, "post edit", text="Mine now.", message=link)).reply
    assert not_hers.ephemeral and harness.current(post).content == "Trace, on."
    deleted = (await harness.slash(bob, table.channel, "post delete", message=str(post.id))).reply
    assert deleted.content == "Archer's post is deleted." and harness.current(post).deleted
    again = (await harness.slash(bob, table.channel, "post delete", message=str(post.id))).reply
    assert again.ephemeral
    log = (await harness.slash(bob, table.channel, "log show")).reply.text()
    assert "changed Archer's post: “Trace, on.”" in log and "deleted Archer's post" in log


async def test_the_webhook_is_found_after_a_restart_made_anew_when_deleted_and_asked_for_when_refused(
    table: Table,
) -> None:
    harness, emulator, bob = table.harness, table.harness.emulator, table.players.player
    await harness.slash(bob, table.channel, "say", text="Before.")
    (hook,) = emulator.world.webhooks
    await harness.restart()
    await harness.slash(bob, table.channel, "say", text="After a restart.")
    assert list(emulator.world.webhooks) == [hook]  # found again among the channel's webhooks
    emulator.world.delete_webhook(hook)  # a server admin deleted it
    await harness.slash(bob, table.channel, "say", text="After the webhook was deleted.")
    assert posts_in(table)[-1].content == "After the webhook was deleted." and list(emulator.world.webhooks) != [hook]

    guild_id = table.channel.guild_id
    assert guild_id is not None
    emulator.world.bot_denied[guild_id] = MANAGE_WEBHOOKS
    await harness.restart()  # a new process knows no webhook yet, and may not manage any
    before = len(posts_in(table))
    refused = (await harness.slash(bob, table.channel, "say", text="Unheard.")).reply
    assert refused.ephemeral and "Manage Webhooks" in refused.content
    assert len(posts_in(table)) == before
    log = (await harness.slash(bob, table.channel, "log show")).reply.text()
    assert "Unheard." not in log
    del emulator.world.bot_denied[guild_id]


async def test_in_a_thread_the_character_speaks_in_the_thread(table: Table) -> None:
    harness, bob = table.harness, table.players.player
    thread = harness.emulator.add_thread(table.channel, "side scene", owner=bob)
    said = await harness.slash(bob, thread, "say", text="Quietly, here.")
    assert said.error is None and said.reply.ephemeral
    assert posts_in(table, thread)[-1].content == "Quietly, here."
    assert all(post.content != "Quietly, here." for post in posts_in(table))


async def test_a_sheet_and_the_odds_come_with_a_picture_of_the_same_facts(table: Table) -> None:
    harness, bob, mei = table.harness, table.players.player, table.players.defender
    shown = (await harness.slash(bob, table.channel, "character show", name="Archer")).reply
    (card,) = shown.attachments
    assert card.filename == "card.png" and card.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert shown.embeds[0]["image"]["url"] == "attachment://card.png"
    assert shown.embeds[0]["thumbnail"]["url"] == "https://example.com/archer.png"  # its portrait, set above
    pools = next(field["value"] for field in shown.embeds[0]["fields"] if field["name"] == "Pools")
    assert card.description == f"Character card of Archer: {pools}"  # the alt text says what the bars show

    odds = (await harness.slash(mei, table.channel, "odds", attacker="Archer", defender="Rider",
                                action="melee|Invisible Air")).reply  # fmt: skip
    (chart,) = odds.attachments
    assert chart.filename == "odds.png" and chart.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert odds.embeds[0]["image"]["url"] == "attachment://odds.png"
    # The alt text says what the embed says, as plain text: a screen reader reads no Markdown.
    told = odds.embeds[0]["description"]
    assert "**" in told and chart.description is not None and "**" not in chart.description
    assert chart.description.splitlines() == plain(told).splitlines()

    # Odds of a character attacking itself are refused, as /attack refuses it, by any of its names as typed.
    for attacker, defender in (("Archer", "Archer"), ("Archer", "archer")):
        alone = await harness.slash(
            mei, table.channel, "odds", attacker=attacker, defender=defender, action="melee|Invisible Air"
        )
        assert (
            alone.reply.ephemeral and alone.reply.content == "キャラクターは自分自身を攻撃できません。"
        )  # mei reads Japanese
        assert not alone.reply.attachments
