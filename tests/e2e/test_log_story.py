"""The campaign log tells the story: events in order of cause, each credited to whoever acted, every roll counted,
a recap of what happened to whom that readers entitled to the same facts read alike, in their own words.

One emulator and bot for the module; each test plays a campaign in a channel of its own.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml

from bot.emulator.models import Channel, User
from bot.i18n import Translator
from tests.e2e.readers import Table, readers_table

HOUR = 3600
FATE = "fate_points"
# What no reader should meet in a log line: how Python writes a stored value, a language by its code.
INTERNAL = ("True", "False", "None", "→ ja")


@pytest.fixture(scope="module")
async def table(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    async with readers_table(tmp_path_factory.mktemp("story")) as table:
        yield table


def words(user: User, ruleset: str) -> Translator:
    return Translator.for_locale(user.locale, ruleset)


async def _campaign(table: Table, ruleset: str) -> Channel:
    channel = table.harness.new_channel(table.guild)
    await table.harness.slash(table.gm, channel, "campaign start", ruleset=ruleset, name="Fifth War")
    return channel


async def _sheet(
    table: Table, channel: Channel, user: User, kind: str, *, approved: bool = True, **fields: Any
) -> None:
    """A character from the ruleset's template; a player's approved by a GM where its file holds GM values."""
    harness = table.harness
    template = (await harness.slash(user, channel, "character template", kind=kind)).reply
    data = {**yaml.safe_load(template.attachments[0].data), **fields}
    text = yaml.safe_dump(data, allow_unicode=True).encode()
    await harness.slash(user, channel, "character import", file=("sheet.yaml", text), npc=user == table.gm)
    if approved and user != table.gm:
        await harness.approve_sheet(table.gm, channel, fields["name"])


async def _events(table: Table, channel: Channel) -> list[dict[str, Any]]:
    exported = (await table.harness.slash(table.gm, channel, "log export", format="json")).reply
    events: list[dict[str, Any]] = json.loads(exported.attachments[0].data)["events"]
    return events


def _actor(event: dict[str, Any]) -> int | None:
    """Who an exported event is credited to (an export writes ids as strings: JSON numbers lose their digits)."""
    return int(event["actor_id"]) if event["actor_id"] is not None else None


async def _lone_masters(table: Table) -> Channel:
    """bob's Archer with Rin; mei's Sakura and the GMs' Kayneth, Masters whose Servants are away."""
    harness, gm = table.harness, table.gm
    channel = await _campaign(table, FATE)
    await _sheet(table, channel, table.bob, "master", name="Rin")
    await _sheet(table, channel, table.bob, "servant", name="Archer", master="Rin", servant_class="Archer")
    await harness.slash(table.bob, channel, "character use", name="Archer")
    await _sheet(table, channel, table.mei, "master", name="Sakura")
    await harness.slash(table.mei, channel, "character use", name="Sakura")
    await _sheet(table, channel, gm, "master", name="Kayneth")
    for master in ("Sakura", "Kayneth"):
        await harness.slash(gm, channel, "fate presence", master=master, present=False)
    return channel


async def test_a_fall_follows_the_hit_and_every_reader_recaps_the_same_story(table: Table) -> None:
    harness, gm, bob = table.harness, table.gm, table.bob
    channel = await _lone_masters(table)
    harness.emulator.clock.advance(HOUR)
    await harness.slash(gm, channel, "gm award", character="Sakura", resource="hp", amount=-2)
    # With her Servant away Sakura is hit at once (R11), for more than the 5 HP she has left: the pool stops at 0.
    harness.dice.queue([15])
    await harness.slash(bob, channel, "attack", target="Sakura", action="melee|Invisible Air")
    await harness.slash(gm, channel, "combat round")
    harness.dice.queue([15])
    await harness.slash(bob, channel, "attack", target="Kayneth", action="melee|Invisible Air")

    events = await _events(table, channel)
    kinds = [event["kind"] for event in events]
    # The hit's events first, with its roll; then who fell because of it.
    first = kinds.index("attack.declared")
    assert kinds[first : first + 3] == ["attack.declared", "attack.resolved", "character.down"]
    hit, fell = events[first + 1], events[first + 2]
    assert (fell["payload"]["name"], fell["payload"]["fate"]) == ("Sakura", "down")
    assert _actor(hit) == bob.id  # bob's attack, though nobody answered for Sakura
    declared = [event for event in events if event["kind"] == "attack.declared"]
    assert [len(event["payload"]["rolls"]) for event in declared] == [1, 1]
    hp = next(e for e in events[first]["payload"]["effects"] if e["type"] == "pool_delta" and e["name"] == "Sakura")
    assert hp["applied"] == -5

    for reader in table.readers:
        tr = words(reader, FATE)
        text = (await harness.slash(reader, channel, "log recap", since="30m")).reply.text()
        # The award, two attacks with what they resolved to, a round, two falls; the dice of both attacks.
        assert tr("recap.counts", events=len(events) - kinds.index("gm.award"), rolls=2) in text, text
        assert tr("recap.character", name="Sakura", changes=f"{tr('pool.hp')} -7") in text, text
        for master in ("Sakura", "Kayneth"):
            assert tr("event.character.down", name=master) in text, text
        # The GMs hide Kayneth's sheet: what his HP lost tells the players what is left of it.
        assert ("**Kayneth**" in text) is (reader == gm), text
    # Since bob's own last move (his attack on Kayneth), only its consequence: Kayneth down.
    own = (await harness.slash(bob, channel, "log recap")).reply.text()
    tr = words(bob, FATE)
    assert tr("recap.counts", events=1, rolls=0) in own, own
    assert tr("event.character.down", name="Kayneth") in own and "Sakura" not in own, own


async def test_a_granted_attack_is_the_players_and_the_grant_the_gms(table: Table) -> None:
    harness, gm, bob = table.harness, table.gm, table.bob
    channel = await _campaign(table, "crest_magia")
    await _sheet(table, channel, bob, "bearer", approved=False, name="Aiko")
    await _sheet(table, channel, table.mei, "bearer", approved=False, name="Bram")
    harness.emulator.clock.advance(HOUR)
    asked = (await harness.slash(bob, channel, "attack", target="Bram", action="melee|Sword", details="boons:1")).reply
    harness.dice.queue([4, 2, 5, 2])
    await harness.emulator.click(gm, asked, "Grant")

    events = await _events(table, channel)
    story = [(event["kind"], _actor(event)) for event in events if event["kind"].startswith(("request", "att"))]
    assert story == [("request.asked", bob.id), ("request.granted", gm.id), ("attack.declared", bob.id)]
    by_kind = {event["kind"]: event["payload"] for event in events}
    assert "rolls" not in by_kind["request.granted"]  # the grant rolls nothing: the dice are the attack's
    assert len(by_kind["attack.declared"]["rolls"]) == 3  # base dice, the boon, the stat die

    for reader in table.readers:
        tr = words(reader, "crest_magia")
        text = (await harness.slash(reader, channel, "log recap", since="30m")).reply.text()
        assert tr("recap.counts", events=4, rolls=3) in text, text  # asked, the GM's answer, granted, declared
        log = (await harness.slash(reader, channel, "log show")).reply.text()
        assert tr("event.request.granted", user=gm.mention, name="Aiko", asked=tr("term.boons", value=1)) in log


async def test_no_internal_value_shows_in_any_language(table: Table) -> None:
    harness, gm = table.harness, table.gm
    channel = await _lone_masters(table)
    await harness.slash(gm, channel, "campaign language", language="ja")
    await harness.slash(gm, channel, "character edit", name="Sakura", field="weapons.0.magical", value="true")
    for reader in table.readers:
        tr = words(reader, FATE)
        log = (await harness.slash(reader, channel, "log show")).reply.text()
        for value in INTERNAL:
            assert value not in log, (value, log)
        assert tr("event.fate.presence", actor=gm.mention, name="Sakura", present=tr("log.no")) in log, log
        old, new = tr("campaign.language.server"), tr("campaign.language.ja")
        assert tr("event.campaign.language", actor=gm.mention, old=old, new=new) in log, log
        no, yes = tr("log.no"), tr("log.yes")
        edited = tr(
            "event.character.edited", actor=gm.mention, field="weapons.0.magical", name="Sakura", old=no, new=yes
        )
        assert edited in log, log
