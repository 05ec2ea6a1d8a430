"""Names and lists at their longest, in CJK: every attack offered can be picked, and no problem of a file goes
unsaid."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import yaml

from bot.emulator.models import Channel, Guild, User
from rules.exchange import Text
from rules.play import Choice, chosen, sendable
from rules.text import NAME_LIMIT
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.harness import Harness, running_harness

LONGEST = "剣" * NAME_LIMIT


@dataclass(frozen=True)
class Hall:
    harness: Harness
    guild: Guild
    gm: User
    player: User


@pytest.fixture(scope="module", params=BACKENDS)
async def hall(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Hall]:
    async with (
        fresh_database_url(request.param, tmp_path_factory.mktemp("longest")) as url,
        running_harness(url) as harness,
    ):
        gm, player = harness.emulator.add_user("gm"), harness.emulator.add_user("player")
        guild = harness.emulator.add_guild("Fuyuki", owner=gm)
        harness.emulator.add_member(guild, player)
        await harness.start_bot()
        yield Hall(harness, guild, gm, player)


async def _import(hall: Hall, channel: Channel, kind: str, **fields: object) -> None:
    template = (await hall.harness.slash(hall.player, channel, "character template", kind=kind)).reply
    data = {"kind": kind, **yaml.safe_load(template.attachments[0].data), **fields}
    created = await hall.harness.slash(
        hall.player, channel, "character import", file=("sheet.yaml", yaml.safe_dump(data, allow_unicode=True).encode())
    )
    assert created.error is None, created.error
    held = hall.harness.last(channel, hall.gm)
    if str(data["name"]) in held.content and held.buttons():  # a value only a GM may set waits for approval
        await hall.harness.approve_sheet(hall.gm, channel, str(data["name"]))


# Per ruleset: the sheets the attacker needs (the last one attacks, with the part of its file that gives it an attack
# named at the longest), the defender's kind, and what the attack's report says when the attack was that one.
ATTACKS: list[tuple[str, list[tuple[str, dict[str, object]]], str, str]] = [
    ("fate_points", [("master", {"weapons": [{"name": LONGEST, "type": "magic"}]})], "master", "(MAG)"),
    ("crest_magia", [("bearer", {"crests": [{"name": LONGEST, "category": "magical", "damage_type": "fire"}]})],
     "bearer", "Intelligence die"),
    ("crest_magia", [("bearer", {"weapons": [{"name": LONGEST, "kind": "melee", "damage_type": "slashing"}]})],
     "bearer", "(Melee)"),
    ("grail_zh", [("master", {}), ("servant", {"noble_phantasms": [{"name": LONGEST, "rank": "A",
                                                                  "scope": "anti_unit", "mode": "one_shot"}]})],
     "master", LONGEST),
]  # fmt: skip


@pytest.mark.parametrize(
    ("ruleset", "sheets", "defender_kind", "report"), ATTACKS, ids=["weapon", "crest", "crest weapon", "phantasm"]
)
async def test_an_attack_named_at_the_longest_is_offered_and_taken(
    hall: Hall, ruleset: str, sheets: list[tuple[str, dict[str, object]]], defender_kind: str, report: str
) -> None:
    harness = hall.harness
    channel = harness.new_channel(hall.guild)
    await harness.slash(hall.gm, channel, "campaign start", ruleset=ruleset, name=ruleset)
    attacker = "攻" * NAME_LIMIT
    for kind, armed in sheets[:-1]:
        await _import(hall, channel, kind, **armed)
    await _import(hall, channel, sheets[-1][0], name=attacker, **sheets[-1][1])
    await _import(hall, channel, defender_kind, name="Target")
    await harness.slash(hall.player, channel, "character use", name=attacker)
    choices = await harness.emulator.autocomplete(hall.player, channel, "attack", {"target": "Target", "action": ""},
                                                  "action")  # fmt: skip
    offered = [choice for choice in choices if LONGEST[:20] in choice["name"]]
    assert len(offered) == 1, choices
    rejected = len(harness.emulator.rejections)
    odds = await harness.slash(
        hall.player, channel, "odds", attacker=attacker, defender="Target", action=offered[0]["value"]
    )
    assert odds.error is None and odds.reply.embeds, odds.reply.content
    attacked = await harness.slash(hall.player, channel, "attack", target="Target", action=offered[0]["value"])
    assert attacked.error is None, attacked.error
    assert report in "\n".join(reply.text() for reply in attacked.replies)
    assert harness.emulator.rejections[rejected:] == []


def test_a_place_stands_only_for_a_value_too_long_to_send() -> None:
    short, long = Choice("melee|Sword", Text("x")), Choice(f"melee|{LONGEST}", Text("y"))
    offered = sendable([short, long])
    assert [choice.value for choice in offered] == ["melee|Sword", "#2"]
    assert chosen([short, long], "#2") == long.value
    # A typed text that looks like a place is read as typed where no long value stands there (a weapon named "#1").
    assert [chosen([short, long], typed) for typed in ("#1", "#3", "#0", "melee|Sword")] == [
        "#1",
        "#3",
        "#0",
        "melee|Sword",
    ]


async def test_a_file_wrong_everywhere_is_answered_in_whole_lines_and_counts_the_rest(hall: Hall) -> None:
    harness = hall.harness
    channel = harness.new_channel(hall.guild)
    await harness.slash(hall.gm, channel, "campaign start", ruleset="fate_points", name="Wrong")
    template = (await harness.slash(hall.player, channel, "character template", kind="master")).reply
    sheet = yaml.safe_load(template.attachments[0].data) | {
        "weapons": [{"name": f"剣{index:03d}", "type": "none"} for index in range(300)]
    }
    refused = await harness.slash(
        hall.player,
        channel,
        "character import",
        file=("sheet.yaml", yaml.safe_dump(sheet, allow_unicode=True).encode()),
    )
    heading, *lines, more = refused.reply.content.splitlines()
    assert refused.reply.ephemeral and len(refused.replies) == 1
    assert heading == "The character was not created. Fix these fields and try again:"
    assert lines and all(line.startswith("• `weapons.") and line.endswith(", magic") for line in lines), lines
    assert more == f"…and {300 - len(lines)} more: fix these and try again to see them."
