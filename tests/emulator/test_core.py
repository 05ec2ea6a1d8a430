from __future__ import annotations

import asyncio

import discord
import pytest

from bot.emulator import EVERYONE, BotOutput, EmulatorError
from tests.emulator.conftest import Scene


async def test_login_ready_and_sync(scene: Scene) -> None:
    emu, bot = scene.emu, scene.bot
    assert bot.user is not None and bot.user.id == emu.bot_user.id
    assert bot.application_id == emu.application_id
    names = {c["name"] for c in emu.commands()}
    assert {"campaign", "roll", "secret", "panel", "pick"} <= names
    assert all(c["application_id"] == str(emu.application_id) for c in emu.commands())
    assert {g.id for g in bot.guilds} == {scene.alpha.id, scene.beta.id}
    alpha = bot.get_guild(scene.alpha.id)
    assert alpha is not None and alpha.member_count == 3
    assert bot.ready_count == 1


async def test_slash_converts_options_by_synced_type(scene: Scene) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "roll", {"sides": "20"})
    assert record.error is None and record.response_type == 4
    assert record.reply.content == "rolled d20"
    assert record.reply.interaction_id == record.id
    assert record.reply.visible_to is EVERYONE


async def test_subcommand_with_user_option_mentions(scene: Scene) -> None:
    emu = scene.emu
    record = await emu.slash(scene.alice, scene.general, "campaign start", {"name": "Fuyuki", "master": scene.carol})
    reply = record.reply
    assert reply.content == f"campaign Fuyuki started by <@{scene.carol.id}>"
    assert reply.notified == frozenset({scene.carol.id})


async def test_attachment_option_is_readable_by_the_bot(scene: Scene) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "campaign upload", {"sheet": ("saber.txt", b"STR A")})
    assert record.reply.content == "saber.txt: STR A"


async def test_autocomplete_returns_the_bots_choices(scene: Scene) -> None:
    choices = await scene.emu.autocomplete(scene.alice, scene.general, "pick", {"fruit": "ap"}, "fruit")
    assert choices == [{"name": "Apple", "value": "apple"}, {"name": "Apricot", "value": "apricot"}]
    with pytest.raises(EmulatorError, match="autocomplete"):
        await scene.emu.autocomplete(scene.alice, scene.general, "pick", {"fruit": "a", "amount": 2}, "amount")


async def test_ephemeral_reply_is_only_visible_to_the_invoker(scene: Scene) -> None:
    emu = scene.emu
    record = await emu.slash(scene.alice, scene.general, "secret")
    reply = record.reply
    assert reply.ephemeral and reply.visible_to == frozenset({scene.alice.id})
    assert reply in emu.visible_to(scene.alice, scene.general)
    assert reply not in emu.visible_to(scene.carol, scene.general)
    assert emu.last_message(scene.general, visible_to=scene.carol) is not reply


async def test_deferred_reply_then_followups(scene: Scene) -> None:
    emu = scene.emu
    record = await emu.slash(scene.alice, scene.general, "slow")
    assert record.response_type == 5
    first, second = record.replies
    assert first.content == "done thinking" and not first.loading and not first.ephemeral
    assert second.content == "and one more" and second.ephemeral
    hidden = await emu.slash(scene.alice, scene.general, "slow", {"hidden": True})
    assert hidden.replies[0].ephemeral


async def test_file_reply(scene: Scene) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "file")
    [attachment] = record.reply.attachments
    assert (attachment.filename, attachment.data) == ("hello.txt", b"hello")


async def test_dm_is_only_visible_to_the_recipient(scene: Scene) -> None:
    emu = scene.emu
    record = await emu.slash(scene.carol, scene.general, "dm")
    assert record.reply.content == "sent"
    [dm] = emu.dms(scene.carol)
    assert dm.content == "psst" and dm.guild_id is None
    assert dm in emu.visible_to(scene.carol)
    assert dm not in emu.visible_to(scene.alice)
    emu.set_dms_open(scene.carol, False)
    try:
        await emu.slash(scene.carol, scene.general, "dm")
    finally:
        emu.set_dms_open(scene.carol, True)
    assert ("dm", 50007) in scene.bot.errors


async def test_mentions_notify_unless_allowed_mentions_none(scene: Scene) -> None:
    emu = scene.emu
    loud = await emu.slash(scene.alice, scene.general, "ping", {"who": scene.carol})
    assert loud.reply.notified == frozenset({scene.carol.id})
    quiet = await emu.slash(scene.alice, scene.general, "ping", {"who": scene.carol, "quiet": True})
    assert quiet.reply.content == f"hey <@{scene.carol.id}>"
    assert quiet.reply.notified == frozenset()
    # Bob is not in Alpha: a mention cannot reach him there.
    outsider = await emu.slash(scene.alice, scene.general, "ping", {"who": scene.bob})
    assert outsider.reply.notified == frozenset()


async def test_button_click_routes_to_the_view(scene: Scene) -> None:
    emu = scene.emu
    panel = (await emu.slash(scene.alice, scene.general, "panel")).reply
    assert panel.buttons() == ["Join", "Rename"]
    click = await emu.click(scene.carol, panel, "Join")
    assert click.reply.content == "carol joined" and click.reply.visible_to == frozenset({scene.carol.id})
    update = await emu.click(scene.carol, panel, "Rename")
    assert update.response_type == 7 and panel.content == "renamed panel" and panel.edited == 1
    with pytest.raises(EmulatorError, match="no button 'Leave'"):
        await emu.click(scene.carol, panel, "Leave")


async def test_clicks_keep_working_after_15_minutes(scene: Scene) -> None:
    emu = scene.emu
    panel = (await emu.slash(scene.alice, scene.general, "panel")).reply
    emu.clock.advance(16 * 60)
    click = await emu.click(scene.alice, panel, "Join")
    assert click.error is None and click.reply.content == "alice joined"


async def test_second_callback_is_rejected_with_40060(scene: Scene) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "twice")
    assert record.reply.content == "first" and len(record.replies) == 1
    assert record.error is not None and (record.error.status, record.error.code) == (400, 40060)
    assert ("twice", 40060) in scene.bot.errors


async def test_late_callback_is_rejected_with_10062(scene: Scene) -> None:
    emu, bot = scene.emu, scene.bot
    bot.gate.clear()
    record = await emu.slash(scene.alice, scene.general, "late", wait=False)
    assert not record.acknowledged
    emu.clock.advance(3.5)
    bot.gate.set()
    await emu.settle()
    assert record.error is not None and (record.error.status, record.error.code) == (404, 10062)
    assert record.replies == [] and ("late", 10062) in bot.errors


async def test_late_followup_is_rejected_with_50027(scene: Scene) -> None:
    emu, bot = scene.emu, scene.bot
    bot.gate.clear()
    record = await emu.slash(scene.alice, scene.general, "later")
    assert record.reply.content == "first"
    emu.clock.advance(15 * 60 + 1)
    bot.gate.set()
    await emu.settle()
    assert record.error is not None and (record.error.status, record.error.code) == (401, 50027)
    assert ("later", 50027) in bot.errors


@pytest.mark.parametrize("kind", ["content", "fields", "embed_total", "buttons"])
async def test_oversize_messages_are_rejected(scene: Scene, kind: str) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "big", {"kind": kind})
    assert record.error is not None and (record.error.status, record.error.code) == (400, 50035)
    assert (kind, 50035) in scene.bot.errors
    assert record.reply.content == "rejected 50035"


async def test_modal_round_trip(scene: Scene) -> None:
    emu = scene.emu
    opened = await emu.slash(scene.alice, scene.general, "feedback")
    assert opened.response_type == 9 and opened.modal is not None
    submitted = await emu.submit_modal(scene.alice, opened, {"subject": "Hi", "Body": "long text"})
    assert submitted.reply.content == "feedback: Hi / long text"
    with pytest.raises(EmulatorError, match="required"):
        await emu.submit_modal(scene.alice, opened, {"Body": "no subject"})
    with pytest.raises(EmulatorError, match="no inputs"):
        await emu.submit_modal(scene.alice, opened, {"subject": "x", "colour": "red"})


async def test_driving_mistakes_raise_emulator_error(scene: Scene) -> None:
    emu = scene.emu
    with pytest.raises(EmulatorError, match="unknown command 'nope'"):
        await emu.slash(scene.alice, scene.general, "nope")
    with pytest.raises(EmulatorError, match="no subcommand 'stop'"):
        await emu.slash(scene.alice, scene.general, "campaign stop")
    with pytest.raises(EmulatorError, match="needs a subcommand"):
        await emu.slash(scene.alice, scene.general, "campaign")
    with pytest.raises(EmulatorError, match="unknown option 'faces'"):
        await emu.slash(scene.alice, scene.general, "roll", {"faces": 3})
    with pytest.raises(EmulatorError, match="missing required option 'name'"):
        await emu.slash(scene.alice, scene.general, "campaign start")
    with pytest.raises(EmulatorError, match="needs an integer"):
        await emu.slash(scene.alice, scene.general, "roll", {"sides": "three"})
    with pytest.raises(EmulatorError, match="between 1 and 100"):
        await emu.slash(scene.alice, scene.general, "roll", {"sides": 101})
    with pytest.raises(EmulatorError, match="only accepts one of"):
        await emu.slash(scene.alice, scene.general, "big", {"kind": "huge"})
    with pytest.raises(EmulatorError, match="not a member"):
        await emu.slash(scene.bob, scene.general, "roll")


async def test_guilds_are_isolated(scene: Scene) -> None:
    emu = scene.emu
    record = await emu.slash(scene.bob, scene.beta_general, "roll")
    assert record.reply.guild_id == scene.beta.id
    assert record.reply in emu.visible_to(scene.bob)
    assert record.reply not in emu.visible_to(scene.alice)
    assert all(m.channel_id == scene.beta_general.id for m in emu.visible_to(scene.bob))


async def test_thread_channel_and_locales(scene: Scene) -> None:
    emu = scene.emu
    in_thread = await emu.slash(scene.carol, scene.scene_thread, "where")
    assert in_thread.reply.content == f"Thread parent={scene.table.id} locale=zh-CN guild=en-US"
    overridden = await emu.slash(scene.alice, scene.general, "where", locale="ja")
    assert overridden.reply.content == "TextChannel parent=None locale=ja guild=en-US"


async def test_channel_messages_edits_and_listener(scene: Scene) -> None:
    emu = scene.emu
    seen: list[BotOutput] = []
    emu.add_listener(seen.append)
    try:
        await emu.slash(scene.alice, scene.table, "announce", {"text": "session at 8"})
    finally:
        emu.remove_listener(seen.append)
    kinds = [(o.kind, o.message.content) for o in seen]
    assert kinds == [
        ("create", "session at 8"),
        ("edit", "session at 8 (edited)"),
        ("create", "announced"),
    ]
    posted = emu.last_message(scene.table, visible_to=scene.carol)
    assert posted.content == "session at 8 (edited)" and posted.edited == 1 and posted.interaction_id is None


async def test_live_additions_reach_the_bot(scene: Scene) -> None:
    emu, bot = scene.emu, scene.bot
    dave = emu.add_user("dave")
    emu.add_member(scene.alpha, dave)
    lounge = emu.add_channel(scene.alpha, "lounge")
    thread = emu.add_thread(lounge, "ooc")
    gamma = emu.add_guild("Gamma", owner=dave)
    await emu.settle()
    alpha = bot.get_guild(scene.alpha.id)
    # Without the members intent discord.py counts the new member but does not cache it.
    assert alpha is not None and alpha.member_count == 4
    assert isinstance(bot.get_channel(lounge.id), discord.TextChannel)
    fetched = bot.get_channel(thread.id)
    assert isinstance(fetched, discord.Thread) and fetched.parent_id == lounge.id
    for _ in range(100):
        if bot.get_guild(gamma.id) is not None:
            break
        await asyncio.sleep(0.01)
    assert bot.get_guild(gamma.id) is not None
    record = await emu.slash(dave, lounge, "roll", {"sides": 4})
    assert record.reply.content == "rolled d4"


async def test_fetches_used_by_discord_py(scene: Scene) -> None:
    bot = scene.bot
    user = await bot.fetch_user(scene.carol.id)
    assert user.name == "carol"
    guild = bot.get_guild(scene.alpha.id)
    assert guild is not None
    member = await guild.fetch_member(scene.carol.id)
    assert member.id == scene.carol.id
    with pytest.raises(discord.NotFound):
        await guild.fetch_member(scene.bob.id)
    channel = await bot.fetch_channel(scene.general.id)
    assert isinstance(channel, discord.TextChannel)
    history = [m async for m in channel.history(limit=3)]
    expected = [m for m in scene.emu.messages if m.channel_id == scene.general.id and not m.ephemeral]
    assert [m.id for m in history] == [m.id for m in reversed(expected[-3:])]


async def test_original_response_edit_and_followup_delete(scene: Scene) -> None:
    record = await scene.emu.slash(scene.alice, scene.general, "edit")
    original, temporary = record.replies
    assert original.content == "v1 -> v2" and original.edited == 1
    assert temporary.content == "temporary (edited)" and temporary.deleted
    assert temporary not in scene.emu.visible_to(scene.alice)
    assert record.errors == []


async def test_select_menu(scene: Scene) -> None:
    emu = scene.emu
    menu = (await emu.slash(scene.alice, scene.general, "classes")).reply
    record = await emu.select(scene.carol, menu, "Pick a class", ["archer"])
    assert record.reply.content == "class: archer"
    with pytest.raises(EmulatorError, match="accepts"):
        await emu.select(scene.carol, menu, "class", ["caster"])


async def test_user_messages_reach_the_bot_without_content(scene: Scene) -> None:
    emu, bot = scene.emu, scene.bot
    await emu.post(scene.carol, scene.table, "I attack!")
    await emu.post(scene.carol, scene.table, f"{emu.bot_user.mention} help")
    # No message-content intent: Discord blanks content unless the bot is mentioned.
    assert bot.seen_messages[-2:] == [("carol", ""), ("carol", f"<@{emu.bot_user.id}> help")]
    assert emu.last_message(scene.table).author == scene.carol


async def test_invalid_command_sync_raises_command_sync_failure(scene: Scene) -> None:
    bot = scene.bot
    guild = discord.Object(scene.beta.id)

    @discord.app_commands.command(name="menu", description="Too many choices")
    @discord.app_commands.choices(dish=[discord.app_commands.Choice(name=f"dish {i}", value=i) for i in range(26)])
    async def menu(interaction: discord.Interaction, dish: int) -> None:
        await interaction.response.send_message(str(dish))

    bot.tree.add_command(menu, guild=guild)
    try:
        with pytest.raises(discord.app_commands.CommandSyncFailure) as failure:
            await bot.tree.sync(guild=guild)
    finally:
        bot.tree.remove_command("menu", guild=guild)
    assert failure.value.code == 50035 and failure.value.status == 400
    assert "Must be 25 or fewer in length." in str(failure.value)
    assert scene.emu.commands(scene.beta) == []


async def test_slash_in_a_dm(scene: Scene) -> None:
    emu = scene.emu
    dm = emu.dm_channel(scene.alice)
    record = await emu.slash(scene.alice, dm, "where")
    assert record.reply.content == "DMChannel parent=None locale=en-US guild=None"
    assert record.reply in emu.dms(scene.alice) and record.reply.visible_to == frozenset({scene.alice.id})
    with pytest.raises(EmulatorError, match="another user's DM"):
        await emu.slash(scene.carol, dm, "where")


async def test_listener_sees_a_deferred_reply_fill_in(scene: Scene) -> None:
    emu = scene.emu
    seen: list[BotOutput] = []
    emu.add_listener(seen.append)
    try:
        record = await emu.slash(scene.alice, scene.general, "slow")
    finally:
        emu.remove_listener(seen.append)
    original = record.replies[0]
    assert [(o.kind, o.message.id, o.message.loading) for o in seen] == [
        ("create", original.id, True),
        ("edit", original.id, False),
        ("create", record.replies[1].id, False),
    ]


async def test_set_locale_changes_later_interactions(scene: Scene) -> None:
    emu = scene.emu
    eve = emu.add_user("eve")
    emu.add_member(scene.alpha, eve)
    german = emu.set_locale(eve, "de")
    assert german == eve and german.locale == "de"
    record = await emu.slash(eve, scene.general, "where")
    assert "locale=de" in record.reply.content


async def test_a_rate_limited_route_is_retried_after_retry_after(scene: Scene) -> None:
    emu = scene.emu
    fault = emu.rate_limit_next("POST", r"/interactions/\d+/[^/]+/callback$", retry_after=0.3)
    started = asyncio.get_running_loop().time()
    record = await emu.slash(scene.alice, scene.general, "roll")
    assert fault.met == 1 and record.reply.content == "rolled d6" and len(record.replies) == 1
    assert asyncio.get_running_loop().time() - started >= 0.3


async def test_a_global_rate_limit_is_waited_out(scene: Scene) -> None:
    emu = scene.emu
    fault = emu.rate_limit_next("POST", r"/channels/\d+/messages$", retry_after=0.3, scope="global")
    record = await emu.slash(scene.alice, scene.general, "dm")
    assert fault.met == 1 and record.reply.content == "sent"
    assert [message.content for message in emu.dms(scene.alice)][-1:] == ["psst"]
    with pytest.raises(EmulatorError):
        emu.rate_limit_next("POST", "/x", retry_after=1, scope="nowhere")


@pytest.mark.parametrize("status", [500, 502])
async def test_a_server_error_is_retried(scene: Scene, status: int) -> None:
    emu = scene.emu
    fault = emu.refuse_next("POST", r"/interactions/\d+/[^/]+/callback$", status=status, code=0)
    record = await emu.slash(scene.alice, scene.general, "roll", {"sides": 4})
    assert fault.met == 1 and record.reply.content == "rolled d4" and len(record.replies) == 1


async def test_a_slow_callback_past_three_seconds_is_unknown(scene: Scene) -> None:
    emu = scene.emu
    fault = emu.slow_next("POST", r"/interactions/\d+/[^/]+/callback$", seconds=0.2)
    assert (await emu.slash(scene.alice, scene.general, "roll")).reply.content == "rolled d6"
    assert fault.met == 1
    # Held while Discord's clock passes its deadline: the callback arrives too late.
    held = emu.slow_next("POST", r"/interactions/\d+/[^/]+/callback$", seconds=0.3)
    record = await emu.slash(scene.alice, scene.general, "roll", {"sides": 12}, wait=False, settle=False)
    await asyncio.wait_for(held.arrived.wait(), 5)
    emu.clock.advance(3.5)
    await emu.settle()
    assert record.error is not None and (record.error.status, record.error.code) == (404, 10062)
    assert record.replies == []
