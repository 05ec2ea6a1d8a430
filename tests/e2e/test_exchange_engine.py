"""The exchange engine through the emulator, with a ruleset that exists only here (tests/e2e/engine_ruleset).

Three shapes: a step that resolves at once and offers a third party a reaction with a deadline; a chain of
four waits (attack, defence, withstand, overflow) with a restart between two of them; and two sides picking
in turn, a number given by command, every member of a side answering, and a commitment checked against its
reveal. Each answers exactly once however many clicks arrive together. Every test makes its own characters.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import yaml

from bot.emulator.models import EVERYONE, Channel, Guild, Message, User
from bot.rulesets.registry import RULESETS
from rules.commitment import digest_of
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.engine_ruleset import RULESET as ENGINE
from tests.e2e.engine_ruleset.play import REACTION_SECONDS, commitment_prefix
from tests.e2e.harness import Harness, running_harness

_names = itertools.count(1)


@dataclass(frozen=True)
class Arena:
    harness: Harness
    guild: Guild
    channel: Channel
    campaign_id: int
    gm: User
    ann: User
    bea: User
    cid: User


@pytest.fixture(scope="module", params=BACKENDS)
async def arena(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    # Registered before the bot loads its extensions, so the test ruleset's commands are synced too.
    RULESETS[ENGINE.id] = ENGINE
    try:
        async with (
            fresh_database_url(request.param, tmp_path_factory.mktemp("engine")) as url,
            running_harness(url) as harness,
        ):
            emulator = harness.emulator
            gm, ann, bea, cid = (emulator.add_user(name) for name in ("ares", "ann", "bea", "cid"))
            guild = emulator.add_guild("Arena", owner=gm)
            for player in (ann, bea, cid):
                emulator.add_member(guild, player)
            await harness.start_bot()
            channel = harness.new_channel(guild)
            campaign_id = int((await harness.slash(gm, channel, "engine start")).reply.content)
            yield Arena(harness, guild, channel, campaign_id, gm, ann, bea, cid)
    finally:
        del RULESETS[ENGINE.id]


async def _hero(arena: Arena, user: User, name: str) -> str:
    """A new hero of the user's, unique to the test, and made their active character."""
    unique = f"{name}{next(_names)}"
    sheet = yaml.safe_dump({"kind": "hero", "name": unique}).encode()
    created = (await arena.harness.slash(user, arena.channel, "character import", file=("hero.yaml", sheet))).reply
    assert created.visible_to is EVERYONE, created.content
    await arena.harness.slash(user, arena.channel, "character use", name=unique)
    return unique


async def _pools(arena: Arena, name: str) -> dict[str, int]:
    roster = (await arena.harness.slash(arena.gm, arena.channel, "character list")).reply
    line = next(line for line in roster.embeds[0]["description"].splitlines() if f"**{name}**" in line)
    return {pool.lower(): int(current) for pool, current in re.findall(r"(\w+) (-?\d+)/", line.split("): ")[1])}


def _prompt(arena: Arena, user: User) -> Message:
    """The newest prompt the user can answer: a public message with buttons (refusals to others' clicks are
    private and may come later)."""
    return next(message for message in reversed(arena.harness.emulator.visible_to(user, arena.channel))
                if message.visible_to is EVERYONE and message.buttons())  # fmt: skip


def _seen(arena: Arena, user: User) -> str:
    return arena.harness.seen_by(user, arena.channel)


async def test_a_reaction_answered_in_time_resolves_once(arena: Arena) -> None:
    harness = arena.harness
    ann, bea, cid = (await _hero(arena, arena.ann, "Ann"), await _hero(arena, arena.bea, "Bea"),
                     await _hero(arena, arena.cid, "Cid"))  # fmt: skip
    harness.dice.queue([4])
    struck = (await harness.slash(arena.ann, arena.channel, "engine strike", target=bea, ally=cid)).reply
    assert f"{ann} strikes {bea} for 4." in struck.text()
    assert (await _pools(arena, bea))["hp"] == 6
    prompt = _prompt(arena, arena.cid)
    assert prompt.notified == frozenset({arena.cid.id})
    assert prompt.buttons() == ["Shield", "Let it be", "Cancel (GM)"]
    assert "Answers close <t:" in prompt.content

    refused = await harness.emulator.click(arena.bea, prompt, "Shield")
    assert refused.reply.ephemeral
    assert refused.reply.content == "This waits for someone else's answer (or a GM's)."

    first, second = await asyncio.gather(
        harness.emulator.click(arena.cid, prompt, "Shield"), harness.emulator.click(arena.cid, prompt, "Shield")
    )
    texts = [first.replies[-1].text(), second.replies[-1].text()]
    assert sum(text == "That has already been answered." for text in texts) == 1
    assert harness.current(prompt).buttons() == []
    assert harness.current(prompt).content == f"{cid} answered: Shield."
    assert f"{cid} shields {bea}: 4 HP back." in _seen(arena, arena.gm)
    assert (await _pools(arena, bea))["hp"] == 10
    assert (await _pools(arena, cid))["resolve"] == 4


async def test_a_reaction_left_to_expire_takes_its_default(arena: Arena) -> None:
    harness = arena.harness
    bea, cid = await _hero(arena, arena.bea, "Bea"), await _hero(arena, arena.cid, "Cid")
    await _hero(arena, arena.ann, "Ann")
    harness.dice.queue([3])
    await harness.slash(arena.ann, arena.channel, "engine strike", target=bea, ally=cid)
    prompt = _prompt(arena, arena.cid)
    listed = await harness.slash(arena.gm, arena.channel, "gm pending")
    assert listed.replies[0].content.startswith("Waiting for an answer (oldest first):")
    assert any(f"waiting for {cid}" in reply.content for reply in listed.replies[1:])

    harness.emulator.clock.advance(REACTION_SECONDS - 5)
    await asyncio.sleep(0.2)
    assert harness.current(prompt).buttons() != [], "the deadline has not passed yet"
    harness.emulator.clock.advance(10)
    await harness.eventually(lambda: harness.current(prompt).buttons() == [])
    assert harness.current(prompt).content == "Time is up: Let it be."
    await harness.eventually(lambda: f"{cid} did not shield {bea} in time." in _seen(arena, arena.gm))
    assert (await _pools(arena, bea))["hp"] == 7
    late = await harness.emulator.click(arena.cid, prompt, "Shield") if prompt.buttons() else None
    assert late is None or late.reply.ephemeral


async def test_a_reaction_that_can_no_longer_go_on_ends_at_its_deadline(arena: Arena) -> None:
    harness = arena.harness
    await _hero(arena, arena.ann, "Ann")
    bea, cid = await _hero(arena, arena.bea, "Bea"), await _hero(arena, arena.cid, "Cid")
    await harness.slash(arena.ann, arena.channel, "engine strike", target=bea, ally=cid)
    prompt = _prompt(arena, arena.cid)
    await harness.slash(arena.gm, arena.channel, "character delete", name=cid)
    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await harness.eventually(lambda: harness.current(prompt).buttons() == [])
    assert harness.current(prompt).content == "Time is up, but this cannot go on: A hero of this exchange is gone."
    nothing = (await harness.slash(arena.gm, arena.channel, "gm pending")).reply
    assert f"waiting for {cid}" not in nothing.text()


async def test_a_chain_of_four_waits_survives_a_restart(arena: Arena) -> None:
    harness = arena.harness
    await _hero(arena, arena.ann, "Ann")
    bea = await _hero(arena, arena.bea, "Bea")
    await harness.slash(arena.gm, arena.channel, "gm award", character=bea, resource="hp", amount=-5)
    harness.dice.queue([15])
    await harness.slash(arena.ann, arena.channel, "engine duel", target=bea)
    defence = _prompt(arena, arena.bea)
    assert defence.buttons() == ["Dodge", "Brace", "Cancel (GM)"]
    harness.dice.queue([3])  # 3 < 15: hit
    await harness.emulator.click(arena.bea, defence, "Dodge")
    withstand = _prompt(arena, arena.bea)
    assert withstand.buttons() == ["Armor", "Endure", "Cancel (GM)"]

    await harness.restart()

    harness.dice.queue([6])  # 6 + 4 - 1 (armor) = 9 against 5 HP: 4 overflow
    first, second = await asyncio.gather(
        harness.emulator.click(arena.bea, withstand, "Armor"), harness.emulator.click(arena.bea, withstand, "Armor")
    )
    assert sum(reply.text() == "That has already been answered." for reply in (first.reply, second.reply)) == 1
    overflow = _prompt(arena, arena.bea)
    assert overflow.buttons() == ["Resolve", "Luck", "Cancel (GM)"]
    assert f"{bea}, 4 more: from which pool?" in overflow.content
    await harness.emulator.click(arena.bea, overflow, "Resolve")
    assert f"{bea} takes 4 from resolve." in _seen(arena, arena.gm)
    pools = await _pools(arena, bea)
    assert (pools["hp"], pools["resolve"], pools["luck"]) == (0, 1, 3)
    for step in (defence, withstand, overflow):
        assert harness.current(step).buttons() == []


async def test_sides_pick_in_turn_and_the_commitment_checks_out(arena: Arena) -> None:
    harness = arena.harness
    ann, bea, cid = (await _hero(arena, arena.ann, "Ann"), await _hero(arena, arena.bea, "Bea"),
                     await _hero(arena, arena.cid, "Cid"))  # fmt: skip
    red, blue = f"Red{next(_names)}", f"Blue{next(_names)}"
    await harness.slash(arena.gm, arena.channel, "engine side", name=red, members=f"{ann}, {bea}")
    await harness.slash(arena.gm, arena.channel, "engine side", name=blue, members=cid)
    harness.dice.queue([43])  # the secret: 42
    committed = (await harness.slash(arena.gm, arena.channel, "engine draft", first=red, second=blue)).reply
    digest = committed.content.removeprefix("Committed: ")
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    pick = _prompt(arena, arena.ann)
    assert pick.notified == frozenset({arena.ann.id, arena.bea.id})
    assert digest in pick.content

    refused = await harness.emulator.click(arena.cid, pick, "Sword")
    assert refused.reply.ephemeral
    picks = await asyncio.gather(
        harness.emulator.click(arena.ann, pick, "Sword"), harness.emulator.click(arena.bea, pick, "Sword")
    )
    assert sum(record.reply.text() == "That has already been answered." for record in picks) == 1
    second = _prompt(arena, arena.cid)
    assert second.buttons() == ["Bow", "Lance", "Axe", "Cancel (GM)"]
    await harness.emulator.click(arena.cid, second, "Bow")
    number_prompt = _prompt(arena, arena.cid)
    assert "Answer with a number from 1 to 100." in number_prompt.content

    not_theirs = (await harness.slash(arena.ann, arena.channel, "engine number", value=7)).reply
    assert not_theirs.content == "Nothing here waits for a number from you."
    out_of_range = (await harness.slash(arena.cid, arena.channel, "engine number", value=101)).reply
    assert out_of_range.content == "101 is outside 1..100."
    numbers = await asyncio.gather(
        harness.slash(arena.cid, arena.channel, "engine number", value=60),
        harness.slash(arena.cid, arena.channel, "engine number", value=61),
    )
    accepted = [record for record in numbers if not record.reply.ephemeral]
    assert len(accepted) == 1
    number = 60 if accepted[0] is numbers[0] else 61

    seal = _prompt(arena, arena.ann)
    assert seal.buttons() == ["Ready", "Cancel (GM)"]
    recorded = await harness.emulator.click(arena.ann, seal, "Ready")
    assert recorded.reply.content == "Your answer is recorded; the others' are still awaited."
    again = await harness.emulator.click(arena.ann, seal, "Ready")
    assert again.reply.content == "You have already answered; the others' answers are still awaited."
    assert harness.current(seal).buttons() == ["Ready", "Cancel (GM)"]
    await harness.emulator.click(arena.bea, seal, "Ready")
    revealed = _last_with(harness, arena, "Revealed:")
    found = re.search(r"secret (\d+), nonce ([0-9a-f]+), digest ([0-9a-f]+); number (\d+); value (\d+); sealed by (\d)",
                      revealed.content)  # fmt: skip
    assert found is not None
    secret, nonce, shown_digest = found[1], found[2], found[3]
    assert (secret, shown_digest, int(found[4]), int(found[6])) == ("42", digest, number, 2)
    assert digest_of(commitment_prefix(arena.campaign_id), secret, nonce) == digest
    assert int(found[5]) == (42 + number) % 100


def _last_with(harness: Harness, arena: Arena, text: str) -> Message:
    return next(message for message in reversed(harness.emulator.visible_to(arena.gm, arena.channel))
                if text in message.text())  # fmt: skip
