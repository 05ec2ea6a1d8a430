"""`/help` through the emulator, in a campaign of every ruleset: privately and in the reader's language, what waits
on the reader first (with a link to its prompt), then the commands of their role, every one a mention of a command
the tree synced; without a campaign, how to start one in each ruleset; `/help topic:` offering the channel's
ruleset's procedures and refusing another ruleset's."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.bench import Players, import_sheet, set_the_tables, template, the_players
from bot.emulator.models import Channel, InteractionRecord, User
from bot.i18n import CHINESE, ENGLISH, JAPANESE, LANGUAGES, Translator, catalog, scoped
from bot.rulesets.registry import RULESETS
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.declared import ANSWERED_BY_A_CLICK, Declared
from tests.e2e.every_ruleset import gm_marked, leaves
from tests.e2e.harness import Harness, running_harness

MENTION = re.compile(r"</([^:<>]+):(\d+)>")
PROMPT_LINK = re.compile(r"https://discord\.com/channels/(\d+)/(\d+)/(\d+)")
LOCALES = {ENGLISH: "en-US", CHINESE: "zh-CN", JAPANESE: "ja"}


@dataclass(frozen=True)
class Table:
    harness: Harness
    players: Players
    kibitzer: User
    bare: Channel

    def channel(self, ruleset: str) -> Channel:
        return self.players.channels[ruleset][0]


@pytest.fixture(scope="module", params=BACKENDS)
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """A campaign of every ruleset (kirei its GM, bob and mei its players), each with its exchange opened as far
    as its last move, which waits for mei's click; where that move is an anchor, open to every player and so
    waiting on nobody by name, a battle waits for bob's side instead. ken, a member of the server, plays
    nothing. One channel plays no campaign."""
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("help")) as url,
        running_harness(url) as harness,
    ):
        players = the_players(harness.emulator)
        kibitzer = harness.emulator.add_user("ken")
        harness.emulator.add_member(players.guild, kibitzer)
        await harness.start_bot()
        for ruleset in RULESETS:
            players.add_channels(ruleset, 1)
        await set_the_tables(players)
        for ruleset, channels in players.channels.items():
            declared = Declared(players, ruleset, channels[0])
            if ruleset in ANSWERED_BY_A_CLICK:
                await declared.made(list(declared.exchange.moves[:-1]))
            else:
                await battle(players, ruleset, channels[0])
        bare = harness.emulator.add_channel(players.guild, "lobby")
        yield Table(harness, players, kibitzer, bare)


async def battle(players: Players, ruleset: str, channel: Channel) -> None:
    """A battle between bob's camp and mei's, which first waits for bob's side."""
    play = RULESETS[ruleset].play
    assert play is not None
    sheet = await template(players, channel, play.kinds[0])
    await import_sheet(players, players.defender, channel, {**sheet, "name": "Rival"})
    emulator, gm = players.emulator, players.gm
    for camp, member, player in (("Red", sheet["name"], players.player), ("Blue", "Rival", players.defender)):
        await emulator.slash(gm, channel, "anka camp", {"name": camp, "members": member})
        await emulator.slash(player, channel, "anka formation", {"camp": camp, "main": member})
    started = await emulator.slash(gm, channel, "anka battle", {"first": "Red", "second": "Blue"})
    assert not started.reply.ephemeral, started.reply.content


async def asked(table: Table, user: User, channel: Channel, language: str, **options: object) -> InteractionRecord:
    record = await table.harness.slash(user, channel, "help", locale=LOCALES[language], **options)
    assert record.error is None, record.error
    assert record.replies and all(reply.ephemeral for reply in record.replies)
    return record


def text_of(record: InteractionRecord) -> str:
    return "\n".join(reply.text() for reply in record.replies)


def mentioned(table: Table, text: str) -> set[str]:
    """Every command the text mentions, each checked against the synced tree: its name runs, its id is its own."""
    synced = table.harness.emulator.commands()
    ids = {command["name"]: command["id"] for command in synced}
    runnable = {name for name, _, _ in leaves(synced)}
    found = set()
    for path, command_id in MENTION.findall(text):
        assert path in runnable, path
        assert str(ids[path.split()[0]]) == command_id, path
        found.add(path)
    return found


def waited(table: Table, ruleset: str) -> User:
    return table.players.defender if ruleset in ANSWERED_BY_A_CLICK else table.players.player


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("ruleset", list(RULESETS))
async def test_help_lists_the_readers_commands_and_what_waits_on_them_first(
    table: Table, ruleset: str, language: str
) -> None:
    players, channel = table.players, table.channel(ruleset)
    tr = Translator(language, ruleset)
    player = waited(table, ruleset)
    for_player = await asked(table, player, channel, language)
    for_other = await asked(table, table.kibitzer, channel, language)
    for_gm = await asked(table, players.gm, channel, language)

    first = for_player.replies[0].embeds[0]
    assert first["description"].startswith(tr("waiting.yours", count=1))
    link = PROMPT_LINK.search(first["description"])
    assert link is not None
    prompts = [message for message in table.harness.emulator.messages if message.id == int(link.group(3))]
    assert [prompt.channel_id for prompt in prompts] == [channel.id]
    assert for_other.replies[0].embeds[0]["description"].startswith(tr("help.nothing_waits"))
    assert PROMPT_LINK.search(text_of(for_other)) is None

    marked = gm_marked(table.harness)
    gms, players_own = mentioned(table, text_of(for_gm)), mentioned(table, text_of(for_player))
    assert gms & marked
    assert players_own == mentioned(table, text_of(for_other)) == gms - marked
    assert {"character create", "attack", "say", "waiting"} <= players_own
    # The ruleset's own commands come in its groups: some command its cog alone adds is listed.
    shared = {path for key in catalog(ENGLISH) if (path := shared_command(key))}
    assert players_own - shared and gms - players_own - shared


def shared_command(key: str) -> str | None:
    """The command a shared catalog's `cmd.<path>.name` key names."""
    if ":" in key or not key.startswith("cmd.") or not key.endswith(".name") or ".arg." in key:
        return None
    return key.removeprefix("cmd.").removesuffix(".name").replace(".", " ")


@pytest.mark.parametrize("language", LANGUAGES)
async def test_help_without_a_campaign_tells_how_to_start_one_in_each_ruleset(table: Table, language: str) -> None:
    tr = Translator(language)
    text = text_of(await asked(table, table.players.player, table.bare, language))
    assert "campaign start" in mentioned(table, text)
    for ruleset in RULESETS:
        assert tr(scoped(ruleset, f"ruleset.{ruleset}")) in text
        assert tr.scoped(ruleset)("help.about") in text


async def test_help_topics_are_the_channels_rulesets_and_the_shared_ones(table: Table) -> None:
    emulator = table.harness.emulator
    first, second = list(RULESETS)[:2]
    choices = {
        ruleset: await emulator.autocomplete(
            table.players.player, table.channel(ruleset), "help", {"topic": ""}, "topic"
        )
        for ruleset in (first, second)
    }
    offered = {ruleset: {choice["value"] for choice in shown} for ruleset, shown in choices.items()}
    own = {ruleset: offered[ruleset] - offered[second if ruleset == first else first] for ruleset in offered}
    assert own[first] and own[second] and {"dice", "posting", "reminders"} <= offered[first] & offered[second]

    topic = sorted(own[first])[0]
    shown = await asked(table, table.players.player, table.channel(first), ENGLISH, topic=topic)
    tr = Translator(ENGLISH, first)
    assert shown.replies[0].embeds[0]["title"] == tr(f"help.topic.{topic}.title")
    assert mentioned(table, text_of(shown))

    refused = await table.harness.slash(table.players.player, table.channel(second), "help", topic=topic)
    titles = Translator(ENGLISH)("help.separator").join(choice["name"] for choice in choices[second])
    assert refused.reply.ephemeral
    assert refused.reply.content == Translator(ENGLISH, second)("help.no_topic", topics=titles)
