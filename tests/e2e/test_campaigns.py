"""/campaign, /roll and /log through the emulator, as each user sees them."""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import update

from bot.db.engine import Database
from bot.db.models import CAMPAIGN_ENDED, Campaign
from bot.emulator.models import EVERYONE, Channel, EmulatorError, User
from bot.rulesets.registry import RULESETS
from tests.databases import fresh_database_url
from tests.e2e.conftest import Table
from tests.e2e.harness import Harness, running_harness


async def _start(table: Table, name: str = "Fuyuki War", ruleset: str = "fate_points") -> Channel:
    channel = table.harness.new_channel(table.guild)
    reply = (await table.harness.slash(table.alice, channel, "campaign start", ruleset=ruleset, name=name)).reply
    assert name in reply.content
    assert reply.visible_to is EVERYONE
    assert table.alice.mention in reply.content
    assert reply.notified == frozenset()
    return channel


async def test_start_and_info_in_the_channel_and_its_threads(table: Table) -> None:
    harness = table.harness
    channel = await _start(table, "Fifth War")
    thread = harness.emulator.add_thread(channel, "side-scene")
    info = (await harness.slash(table.bob, thread, "campaign info")).reply
    assert info.embeds[0]["title"] == "Fifth War"
    assert "Fate/Points" in info.text()
    refused = (await harness.slash(table.alice, thread, "campaign start", ruleset="grail_zh")).reply
    assert refused.ephemeral
    assert "already has an active campaign" in refused.content


async def test_a_ruleset_whose_commands_fail_to_load_is_logged_and_the_others_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(RULESETS, "grail_anka", replace(RULESETS["grail_anka"], extension="tests.e2e.broken_commands"))
    async with fresh_database_url("sqlite", tmp_path) as url, running_harness(url) as harness:
        gm = harness.emulator.add_user("gm")
        channel = harness.new_channel(harness.emulator.add_guild("Fuyuki", owner=gm))
        await harness.start_bot()
        assert any("tests.e2e.broken_commands" in record.getMessage() and record.exc_info
                   for record in caplog.records if record.levelno == logging.ERROR)  # fmt: skip
        with pytest.raises(EmulatorError):
            await harness.slash(gm, channel, "anka camps")
        harness.dice.queue([4])
        assert "= 4" in (await harness.slash(gm, channel, "roll", dice="1d6")).reply.text()
        await harness.slash(gm, channel, "campaign start", ruleset="grail_zh", name="War")
        where = (await harness.slash(gm, channel, "grail where")).reply
        assert where.ephemeral and "no characters here" in where.content


async def test_commands_need_a_campaign(table: Table) -> None:
    channel = table.harness.new_channel(table.guild)
    reply = (await table.harness.slash(table.bob, channel, "campaign info")).reply
    assert reply.ephemeral
    assert "no active campaign" in reply.content


async def test_plain_roll_is_public_and_logged(table: Table) -> None:
    harness = table.harness
    channel = await _start(table)
    harness.dice.queue([5, 3, 1, 6])
    reply = (await harness.slash(table.bob, channel, "roll", dice="4d6kh3", label="Strength")).reply
    assert reply.visible_to is EVERYONE
    assert reply.embeds[0]["title"] == "bob: Strength"
    assert reply.embeds[0]["description"] == "4d6kh3 [5, 3, ~~1~~, 6] = 14"
    log = (await harness.slash(table.bob, channel, "log show")).reply
    assert "`4d6kh3` (Strength): **14**" in log.text()


async def test_bad_dice_are_refused_privately_and_change_nothing(table: Table) -> None:
    harness = table.harness
    channel = await _start(table)
    before = harness.seen_by(table.alice, channel)
    for expression, expected in (("1d1!", "never end"), ("2d", "cannot be read"), ("900d6", "at most 500")):
        reply = (await harness.slash(table.bob, channel, "roll", dice=expression)).reply
        assert reply.ephemeral
        assert reply.visible_to == frozenset({table.bob.id})
        assert expected in reply.content
    assert harness.seen_by(table.alice, channel) == before
    log = (await harness.slash(table.alice, channel, "log show")).reply
    assert "rolled" not in log.text()


async def test_a_gm_removed_just_after_a_gm_command_is_refused_the_next(table: Table) -> None:
    """The check before a GM's command remembers the GMs it confirmed; a removal still takes effect at once."""
    harness = table.harness
    channel = await _start(table)
    await harness.slash(table.alice, channel, "campaign gm", user=table.ken)
    named = await harness.slash(table.ken, channel, "campaign gm", user=table.mei)
    assert not named.reply.ephemeral, named.reply.content
    await harness.slash(table.alice, channel, "campaign gm", user=table.ken, remove=True)
    refused = await harness.slash(table.ken, channel, "campaign gm", user=table.bob)
    assert refused.reply.ephemeral
    assert refused.reply.content == "それができるのはこのキャンペーンのGMだけです。"  # ken reads Japanese
    not_named = await harness.slash(table.bob, channel, "campaign gm", user=table.bob)
    assert not_named.reply.content == "Only a GM of this campaign can do that."  # ken's command changed nothing


def _has_dm(harness: Harness, user: User, text: str) -> bool:
    return any(text in message.text() for message in harness.emulator.dms(user))


async def test_secret_roll_reaches_only_the_roller_and_the_gms(table: Table) -> None:
    harness = table.harness
    channel = await _start(table)
    await harness.slash(table.alice, channel, "campaign gm", user=table.ken)
    harness.dice.queue([17])
    record = await harness.slash(table.bob, channel, "roll", dice="1d20+4", label="Sneak", secret=True)
    private = record.reply
    assert private.ephemeral
    assert "= 21" in private.text()
    public = [message for message in record.replies if message.visible_to is EVERYONE]
    assert len(public) == 1
    assert "secret roll" in public[0].content
    assert "Sneak" in public[0].content
    assert "21" not in public[0].text()
    for gm in (table.alice, table.ken):
        await harness.eventually(partial(_has_dm, harness, gm, "= 21"))
    assert "= 21" not in harness.seen_by(table.mei, channel)
    assert all("= 21" not in message.text() for message in harness.emulator.dms(table.mei))

    for viewer, sees in ((table.mei, False), (table.bob, True), (table.alice, True)):
        log = (await harness.slash(viewer, channel, "log show")).reply
        assert ("**21**" in log.text()) is sees, viewer.name

    hidden = (await harness.slash(table.mei, channel, "log export", format="json")).reply
    secret_roll = next(e for e in json.loads(hidden.attachments[0].data)["events"] if e["kind"] == "roll")
    assert secret_roll["redacted"] is True
    assert secret_roll["payload"] == {"label": "Sneak"}

    await harness.slash(table.alice, channel, "campaign end")
    await harness.emulator.click(table.alice, harness.last(channel, table.alice), "End the campaign")
    # Once the campaign has ended, its log (secret results included) is open to its players.
    export = (await harness.slash(table.mei, channel, "log export", format="json")).reply
    rolls = [event for event in json.loads(export.attachments[0].data)["events"] if event["kind"] == "roll"]
    assert rolls[0]["payload"]["total"] == 21
    assert rolls[0]["redacted"] is False


async def test_gm_only_commands_refuse_players(table: Table) -> None:
    harness = table.harness
    channel = await _start(table)
    for command, options in (
        ("campaign set", {"option": "score_floor", "value": "2"}),
        ("campaign gm", {"user": table.bob}),
        ("campaign end", {}),
    ):
        reply = (await harness.slash(table.bob, channel, command, **options)).reply
        assert reply.ephemeral
        assert reply.content == "Only a GM of this campaign can do that."
    info = (await harness.slash(table.bob, channel, "campaign info")).reply
    assert "score_floor" not in info.text()


async def test_options_are_offered_validated_and_logged(table: Table) -> None:
    harness = table.harness
    channel = await _start(table)
    choices = await harness.emulator.autocomplete(table.alice, channel, "campaign set", {"option": "crit"}, "option")
    assert {choice["value"] for choice in choices} == {"crit_on"}
    values = await harness.emulator.autocomplete(
        table.alice, channel, "campaign set", {"option": "crit_on", "value": ""}, "value"
    )
    assert [choice["value"] for choice in values] == ["natural", "final"]
    # An option its ruleset's catalogs do not name shows as the code names it.
    changed = (await harness.slash(table.alice, channel, "campaign set", option="crit_on", value="final")).reply
    assert changed.content == "Option “crit_on” changed: natural → final."
    again = (await harness.slash(table.alice, channel, "campaign set", option="crit_on", value="final")).reply
    assert again.ephemeral
    assert again.content == "Option “crit_on” is already “final”: nothing was changed."
    bad = (await harness.slash(table.alice, channel, "campaign set", option="score_floor", value="99")).reply
    assert bad.ephemeral
    assert "It takes 1 to 20 or none." in bad.content
    unknown = (await harness.slash(table.alice, channel, "campaign set", option="nope", value="1")).reply
    assert "no option `nope`" in unknown.content
    info = (await harness.slash(table.alice, channel, "campaign info")).reply
    assert "crit_on: final" in info.text()
    log = (await harness.slash(table.alice, channel, "log show")).reply
    assert log.text().count("“crit_on”: natural → final") == 1
    assert "final → final" not in log.text()


async def test_options_in_the_words_of_each_language_its_catalogs_name_them_in(table: Table) -> None:
    """A ruleset whose catalogs name its options: names, descriptions and values in the GM's language, typed by
    those words too, and what a free text takes said as its shape; public replies in the campaign's language."""
    harness = table.harness
    channel = await _start(table, "安価", ruleset="grail_anka")
    await harness.slash(table.alice, channel, "campaign language", language="ja")
    ask = partial(harness.emulator.autocomplete, table.alice, channel, "campaign set", locale="ja")
    choices = await ask({"option": "少人数"}, "option")
    assert choices == [{"name": "少人数モード：オフ｜3 分以上あければ同じ人の連投を許可", "value": "low_participation"}]
    values = await ask({"option": "anchor_fallback", "value": ""}, "value")
    assert values == [{"name": "待ち続ける", "value": "wait"}, {"name": "GM が出す", "value": "gm"},
                      {"name": "ボットが引く", "value": "bot_random"}]  # fmt: skip
    english = await harness.emulator.autocomplete(table.alice, channel, "campaign set", {"option": "few"}, "option")
    assert [choice["name"] for choice in english] == [
        "Few players: off — One person may anchor twice in a row, 3 minutes apart"
    ]
    changed = (await harness.slash(table.alice, channel, "campaign set", option="少人数モード", value="オン",
                                   locale="ja")).reply  # fmt: skip
    assert changed.content == "オプション「少人数モード」を変更しました：オフ → オン。"
    assert "low_participation" not in changed.content and "true" not in changed.content
    bad = (await harness.slash(table.alice, channel, "campaign set", option="rank_scale", value="S100",
                               locale="ja")).reply  # fmt: skip
    assert bad.ephemeral
    assert bad.content == (
        "「S100」は「ランク表」に使えない値です。使える値：ランクの文字（E～A、EX）と数値の組をスペース区切りで"
        "（例：E10 D20 C30 B40 A50 EX60）。"
    )
    chinese = (await harness.slash(table.alice, channel, "campaign set", option="max_turns", value="0",
                                   locale="zh-CN")).reply  # fmt: skip
    assert chinese.content == "“0”不是“回合上限”可用的值。可用的值：1～1000或无。"
    info = (await harness.slash(table.ken, channel, "campaign info")).reply
    assert "少人数モード：オン" in info.text()
    log = (await harness.slash(table.ken, channel, "log show")).reply
    assert "「少人数モード」を設定：オフ → オン" in log.text()


async def test_options_typed_as_a_japanese_input_method_writes_them(table: Table) -> None:
    """Digits and letters typed full width, an option's name without its space, a code name in capitals: each read
    as what it says."""
    harness = table.harness
    channel = await _start(table, "安価", ruleset="grail_anka")
    await harness.slash(table.alice, channel, "campaign language", language="ja")
    set_option = partial(harness.slash, table.alice, channel, "campaign set", locale="ja")
    for option, value, changed in (
        ("安価の受付時間（秒）", "１２０", "「安価の受付時間（秒）」を変更しました：600 → 120。"),
        ("ターン数の上限", "１０", "「ターン数の上限」を変更しました：なし → 10。"),
        ("消滅判定にも01・00", "オン", "「消滅判定にも 01・00」を変更しました：オフ → オン。"),
        ("RANK_SCALE", "Ｅ１０ Ｄ２０ Ｃ３０ Ｂ４０ Ａ５０ ＥＸ７０",
         "「ランク表」を変更しました：E10 D20 C30 B40 A50 EX60 → E10 D20 C30 B40 A50 EX70。"),
    ):  # fmt: skip
        reply = (await set_option(option=option, value=value)).reply
        assert not reply.ephemeral and changed in reply.content, reply.content
    kept = (await set_option(option="時間内に安価がないとき", value="待ち続ける")).reply
    assert kept.ephemeral
    assert kept.content == "オプション「時間内に安価がないとき」はすでに「待ち続ける」です。何も変更していません。"


async def test_guilds_never_see_each_others_campaigns(table: Table) -> None:
    harness = table.harness
    await _start(table, "Hidden War")
    elsewhere = harness.new_channel(table.other_guild)
    choices = await harness.emulator.autocomplete(table.bob, elsewhere, "log export", {"campaign": ""}, "campaign")
    assert all("Hidden War" not in choice["name"] for choice in choices)
    campaign_ids = [campaign.id for campaign in await harness.bot.campaigns.in_guild(table.guild.id)]  # type: ignore[union-attr]
    reply = (
        await harness.slash(table.bob, elsewhere, "log export", format="json", campaign=str(campaign_ids[0]))
    ).reply
    assert reply.ephemeral
    assert "no such campaign" in reply.content


async def test_log_export_as_json_and_csv(table: Table) -> None:
    harness = table.harness
    channel = await _start(table, "Export War")
    harness.dice.queue([4, 4])
    await harness.slash(table.bob, channel, "roll", dice="2d6")
    json_reply = (await harness.slash(table.bob, channel, "log export", format="json")).reply
    assert json_reply.ephemeral
    document = json.loads(json_reply.attachments[0].data)
    assert document["campaign"]["name"] == "Export War"
    assert [event["kind"] for event in document["events"]] == ["campaign.started", "roll"]
    assert document["events"][1]["payload"]["total"] == 8
    # Each user is named as well as identified, in the events and once for the whole file.
    assert document["users"][str(table.bob.id)] == "bob"
    assert document["events"][1]["actor_id"] == str(table.bob.id) and document["events"][1]["actor"] == "bob"
    csv_reply = (await harness.slash(table.bob, channel, "log export", format="csv")).reply
    rows = list(csv.DictReader(io.StringIO(csv_reply.attachments[0].data.decode())))
    assert [row["kind"] for row in rows] == ["campaign.started", "roll"]
    assert rows[1]["actor"] == "bob"
    assert csv_reply.attachments[0].filename.endswith(".csv")


async def test_a_campaign_speaks_the_language_of_the_gm_who_starts_it(table: Table) -> None:
    harness = table.harness
    chinese = harness.new_channel(table.guild)
    started = (await harness.slash(table.mei, chinese, "campaign start", ruleset="grail_zh", name="冬木")).reply
    assert started.visible_to is EVERYONE
    assert started.content.startswith("战役 **冬木**")  # on an English server, in its GM's Chinese
    assert "本团的公开消息使用简体中文" in started.content and "</campaign language:" in started.content
    info = (await harness.slash(table.alice, chinese, "campaign info")).reply.text()
    assert "简体中文" in info  # its language, as alice reads the campaign's card

    english = harness.new_channel(table.guild)
    plain = (await harness.slash(table.alice, english, "campaign start", ruleset="fate_points", name="Fuyuki")).reply
    assert re.search(r"\nIts posts are in English; a GM changes that with </campaign language:\d+>\.$", plain.content)
    followed = (await harness.slash(table.alice, english, "campaign info")).reply.text()
    assert "the server's language" in followed  # the server's own: it follows the server's


async def test_players_read_their_language(table: Table) -> None:
    harness = table.harness
    channel = harness.new_channel(table.guild)
    chinese = (await harness.slash(table.mei, channel, "campaign info")).reply
    start = harness.mention("campaign start")
    assert chinese.content == f"本频道没有进行中的战役。GM可以用 {start}（/战役 开始） 开始一场。"
    japanese = (await harness.slash(table.ken, channel, "roll", dice="1d1!")).reply
    assert "ロールが終わりません" in japanese.content
    await harness.slash(table.alice, channel, "campaign start", ruleset="grail_anka", name="聖杯")
    info = (await harness.slash(table.ken, channel, "campaign info")).reply
    assert "聖杯戦争安価" in info.text()
    template = (await harness.slash(table.ken, channel, "character template", kind="master")).reply
    assert template.ephemeral
    assert template.content.startswith("記入用のマスターファイルです。")
    assert "パラメーター" in template.attachments[0].data.decode()
    names = {command["name"]: command for command in harness.emulator.commands()}
    assert names["roll"]["name_localizations"]["zh-CN"] == "掷骰"
    assert names["roll"]["name_localizations"]["ja"] == "ダイス"


async def test_end_confirmation_survives_a_restart_and_campaigns_persist(table: Table) -> None:
    harness = table.harness
    kept = await _start(table, "Kept War")
    ending = await _start(table, "Ending War")
    question = (await harness.slash(table.alice, ending, "campaign end")).reply
    assert question.ephemeral
    assert question.buttons() == ["End the campaign", "Keep playing"]
    await harness.restart()
    harness.emulator.clock.advance(16 * 60)
    click = await harness.emulator.click(table.alice, question, "End the campaign")
    assert click.error is None
    assert any("was ended by" in message.content for message in click.replies)
    after = (await harness.slash(table.bob, ending, "campaign info")).reply
    assert "no active campaign" in after.content
    info = (await harness.slash(table.bob, kept, "campaign info")).reply
    assert info.embeds[0]["title"] == "Kept War"


async def _end(table: Table, channel: Channel) -> None:
    question = (await table.harness.slash(table.alice, channel, "campaign end")).reply
    assert (await table.harness.emulator.click(table.alice, question, "End the campaign")).error is None


async def _labels_in_export(table: Table, channel: Channel) -> list[str]:
    exported = (await table.harness.slash(table.alice, channel, "log export", format="json")).reply
    events = json.loads(exported.attachments[0].data)["events"]
    return [event["payload"]["label"] for event in events if event["kind"] == "roll"]


async def test_each_roll_goes_to_the_campaign_running_in_the_channel_at_that_moment(table: Table) -> None:
    """The bot remembers which campaign each channel runs; starting and ending one must change that at once."""
    harness = table.harness
    channel = harness.new_channel(table.guild)
    await harness.slash(table.bob, channel, "roll", dice="1d1", label="before")
    await harness.slash(table.alice, channel, "campaign start", ruleset="fate_points", name="First")
    await harness.slash(table.bob, channel, "roll", dice="1d1", label="first")
    await _end(table, channel)
    between = (await harness.slash(table.bob, channel, "roll", dice="1d1", label="between")).reply
    assert between.visible_to is EVERYONE
    assert (await _labels_in_export(table, channel)) == ["first"]
    await harness.slash(table.alice, channel, "campaign start", ruleset="fate_points", name="Second")
    await harness.slash(table.bob, channel, "roll", dice="1d1", label="second")
    assert (await _labels_in_export(table, channel)) == ["second"]


async def test_a_campaign_ended_behind_the_bot_is_no_longer_played(table: Table) -> None:
    harness = table.harness
    channel = await _start(table, "Vanishing War")
    assert (await harness.slash(table.bob, channel, "campaign info")).reply.embeds[0]["title"] == "Vanishing War"
    database = Database.from_url(harness.database_url)
    try:
        async with database.write() as session:
            await session.execute(
                update(Campaign).where(Campaign.channel_id == channel.id).values(status=CAMPAIGN_ENDED)
            )
    finally:
        await database.dispose()
    after = (await harness.slash(table.bob, channel, "campaign info")).reply
    assert "no active campaign" in after.content


async def test_time_passing_reads_in_each_language_with_its_plurals(table: Table) -> None:
    harness = table.harness
    channel = await _start(table, "Clockwork")

    async def passes(user: User, hours: int, days: int) -> str:
        return (await harness.slash(user, channel, "campaign time", hours=hours, days=days)).reply.content

    assert await passes(table.alice, 1, 0) == "Time passes: 1 hour."
    assert await passes(table.alice, 3, 2) == "Time passes: 2 days and 3 hours."
    log = (await harness.slash(table.alice, channel, "log show")).reply.text()
    assert f"{table.alice.mention}: time passes (1 hour)" in log
    assert f"{table.alice.mention}: time passes (2 days and 3 hours)" in log
    # Public messages follow the campaign's language, whoever runs the command.
    assert await passes(table.alice, 1, 1) == "Time passes: 1 day and 1 hour."
    await harness.slash(table.alice, channel, "campaign language", language="zh-CN")
    assert await passes(table.alice, 1, 1) == "时间流逝：1天和1小时。"
    await harness.slash(table.alice, channel, "campaign language", language="ja")
    assert await passes(table.alice, 5, 0) == "時間が経過した：5 時間。"


async def test_a_ruleset_command_in_another_rulesets_campaign_says_whose_it_is(table: Table) -> None:
    harness = table.harness
    channel = await _start(table, "Holy Grail", ruleset="grail_zh")
    for user, command, options in (
        (table.bob, "fate transfer", {"amount": 1}),
        (table.alice, "fate rest", {"master": "Nobody"}),
        (table.bob, "fate spend", {"use": "roll_vs_servant"}),
    ):
        refused = (await harness.slash(user, channel, command, **options)).reply
        assert refused.ephemeral
        assert refused.content == "This command belongs to Fate/Points (d20 roll-under) campaigns.", command
