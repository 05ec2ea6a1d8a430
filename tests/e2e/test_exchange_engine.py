"""The exchange engine through the emulator, with a ruleset that exists only here (tests/e2e/engine_ruleset).

Three shapes: a step that resolves at once and offers a third party a reaction with a deadline; a chain of
four waits (attack, defence, withstand, overflow) with a restart between two of them; and two sides picking
in turn, a number given by command, every member of a side answering, and a commitment checked against its
reveal. Each answers exactly once however many clicks arrive together. Deadlines that fail (a broken handler, a
post Discord refuses) stop no other. Every test makes its own characters.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace

import pytest
import yaml
from sqlalchemy import func, select, update
from sqlalchemy.exc import TimeoutError as PoolTimeout

from bot.db.atomic import apply_pool_delta, lock_campaign
from bot.db.engine import Busy, Database
from bot.db.models import ANSWERED, DEADLINE_TRIES, Character, Event, ResourcePool, WaitRow
from bot.emulator.models import EVERYONE, Channel, Guild, Message, User
from bot.errors import WaitClosed
from bot.rulesets.registry import RULESETS
from bot.services.common import record_event
from bot.services.exchanges import ExchangeEngine, Progress
from rules.commitment import digest_of
from rules.exchange import Answer
from tests.databases import BACKENDS, fresh_database_url
from tests.e2e.engine_ruleset import RULESET as ENGINE
from tests.e2e.engine_ruleset.play import (
    BROKEN_SHIELD,
    BUSY_SHIELD,
    BUSY_TRIES,
    LOST_SHIELD,
    REACTION_SECONDS,
    SHIELD,
    STALE_SHIELD,
    EnginePlay,
    commitment_prefix,
)
from tests.e2e.every_ruleset import leaves
from tests.e2e.harness import DEADLINE_POLL_SECONDS, EVENTUALLY_SECONDS, Harness, running_harness
from tests.e2e.ledger import RESOLUTION_EVENTS, Ledger, assert_accounts_for, read_ledger

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


async def test_every_service_runs_its_exchanges_through_the_one_engine_of_the_process(arena: Arena) -> None:
    bot = arena.harness.bot
    assert bot is not None
    holders = [bot, *bot.cogs.values()]
    services = {type(value).__name__: value for holder in holders for value in vars(holder).values()
                if isinstance(getattr(value, "engine", None), ExchangeEngine)}  # fmt: skip
    # The shared services and each ruleset's own (the one of this module's ruleset among them).
    assert {"CharacterService", "PlayService", "CombatService", "ExchangeService", "EngineService"} <= set(services)
    assert len(services) >= 5 + len(RULESETS) - 1
    assert all(service.engine is bot.engine for service in services.values()), services


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


async def test_a_side_named_as_one_there_is_in_other_letters_is_refused(arena: Arena) -> None:
    harness = arena.harness
    ann, bea = await _hero(arena, arena.ann, "Ann"), await _hero(arena, arena.bea, "Bea")
    gold = f"Gold{next(_names)}"
    await harness.slash(arena.gm, arena.channel, "engine side", name=gold, members=ann)
    again = (await harness.slash(arena.gm, arena.channel, "engine side", name=gold.upper(), members=bea)).reply
    assert again.content == f"This campaign already has a side called {gold.upper()}."


def _last_with(harness: Harness, arena: Arena, text: str) -> Message:
    return next(message for message in reversed(harness.emulator.visible_to(arena.gm, arena.channel))
                if text in message.text())  # fmt: skip


async def _campaign_of_its_own(arena: Arena) -> Arena:
    """The arena with another channel and its own campaign, for a test that leaves its ledger wrong on purpose."""
    channel = arena.harness.new_channel(arena.guild)
    campaign_id = int((await arena.harness.slash(arena.gm, channel, "engine start")).reply.content)
    return replace(arena, channel=channel, campaign_id=campaign_id)


async def _struck(arena: Arena) -> tuple[str, str, Ledger]:
    """Bea, at 5 HP of 10 (room for a shield given twice), struck for 4, with Cid offered to shield her (both new);
    and the ledger from before the strike."""
    harness = arena.harness
    await _hero(arena, arena.ann, "Ann")
    bea, cid = await _hero(arena, arena.bea, "Bea"), await _hero(arena, arena.cid, "Cid")
    await harness.slash(arena.gm, arena.channel, "gm award", character=bea, resource="hp", amount=-5)
    baseline = await read_ledger(harness.database_url, arena.campaign_id)
    harness.dice.queue([4])
    await harness.slash(arena.ann, arena.channel, "engine strike", target=bea, ally=cid)
    return bea, cid, baseline


def _database(arena: Arena) -> Database:
    assert arena.harness.bot is not None
    return arena.harness.bot.database


async def _shield_wait(arena: Arena) -> int:
    async with _database(arena).read() as session:
        wait_id = await session.scalar(
            select(func.max(WaitRow.id)).where(WaitRow.campaign_id == arena.campaign_id, WaitRow.key == "shield")
        )
    assert wait_id is not None
    return wait_id


async def _shield_through_the_engine(arena: Arena, wait_id: int) -> Progress:
    """Cid's shield given to the engine itself, by a caller that read the wait before it locked the campaign."""
    bot = arena.harness.bot
    assert bot is not None
    async with bot.database.write() as session:
        wait = await session.get(WaitRow, wait_id)
        assert wait is not None
        campaign = await lock_campaign(session, wait.campaign_id)
        assert campaign is not None
        answer = Answer(wait.key, option="shield", by=arena.cid.id)
        return await bot.exchanges.engine.answer(session, campaign, wait, answer, arena.harness.dice)


@pytest.mark.parametrize("closed_by", ["a racing answer", "its deadline"])
async def test_the_engine_resolves_a_wait_once_whatever_closes_it_first(arena: Arena, closed_by: str) -> None:
    """Answers given straight to the engine, past the service's own look at the wait: two racing, or one after
    the deadline took the default. The wait's step is applied and logged once; every other answer is refused."""
    harness = arena.harness
    bea, cid, baseline = await _struck(arena)
    wait_id = await _shield_wait(arena)
    answers = 2
    if closed_by == "its deadline":
        prompt = _prompt(arena, arena.cid)
        harness.emulator.clock.advance(REACTION_SECONDS + 1)
        await harness.eventually(lambda: harness.current(prompt).buttons() == [])
        answers = 1
    outcomes = await asyncio.gather(
        *(_shield_through_the_engine(arena, wait_id) for _ in range(answers)), return_exceptions=True
    )
    shielded = closed_by == "a racing answer"
    assert sum(isinstance(outcome, Progress) for outcome in outcomes) == int(shielded), outcomes
    assert all(isinstance(outcome, Progress | WaitClosed) for outcome in outcomes), outcomes
    now = await read_ledger(harness.database_url, arena.campaign_id, since_event=baseline.last_event)
    assert_accounts_for(baseline, now)
    assert (now.pools[(bea, "hp")], now.pools[(cid, "resolve")]) == ((5, 4) if shielded else (1, 5))


async def _applied_again(arena: Arena, since_event: int, *, through_a_twin: bool) -> None:
    """What the log says happened after `since_event` (one answer) applied and logged once more, as an answer taken
    twice would be. `through_a_twin`: as the answer to another wait of the same step, one the first answer
    superseded, which then has an event of its own."""
    changes = (await read_ledger(arena.harness.database_url, arena.campaign_id, since_event=since_event)).logged_changes
    async with _database(arena).write() as session:
        events = await session.scalars(
            select(Event).where(Event.campaign_id == arena.campaign_id, Event.id > since_event).order_by(Event.id)
        )
        for event in list(events):
            payload = dict(event.payload)
            if through_a_twin and event.kind in RESOLUTION_EVENTS:
                wait = await session.get(WaitRow, payload["wait_id"])
                assert wait is not None
                twin = WaitRow(exchange_id=wait.exchange_id, campaign_id=wait.campaign_id, step=wait.step,
                               key=wait.key, spec=wait.spec, audience_ids=wait.audience_ids, subject=wait.subject,
                               status=ANSWERED, answer=wait.answer, channel_id=wait.channel_id)  # fmt: skip
                session.add(twin)
                await session.flush()
                payload["wait_id"] = twin.id
            record_event(session, arena.campaign_id, event.kind, actor_id=event.actor_id, payload=payload,
                         created_at=event.created_at)  # fmt: skip
        for (name, pool), delta in changes.items():
            pool_id = await session.scalar(
                select(ResourcePool.id)
                .join(Character, Character.id == ResourcePool.character_id)
                .where(Character.campaign_id == arena.campaign_id, Character.name == name, ResourcePool.name == pool)
            )
            assert pool_id is not None
            await apply_pool_delta(session, pool_id, delta)


@pytest.mark.parametrize("through_a_twin", [False, True], ids=["again", "through_a_superseded_twin"])
async def test_an_answer_applied_and_logged_twice_fails_the_ledger(arena: Arena, through_a_twin: bool) -> None:
    """The ledger the fault and crash tests trust: it passes the play as it happened, and fails it with the answer's
    change applied twice and logged twice, where the pools still add up to what the log says."""
    table = await _campaign_of_its_own(arena)
    harness, url = table.harness, table.harness.database_url
    bea, cid, baseline = await _struck(table)
    answered_after = (await read_ledger(url, table.campaign_id)).last_event
    await harness.emulator.click(table.cid, _prompt(table, table.cid), "Shield")
    played = await read_ledger(url, table.campaign_id, since_event=baseline.last_event)
    assert_accounts_for(baseline, played)

    await _applied_again(table, answered_after, through_a_twin=through_a_twin)
    doubled = await read_ledger(url, table.campaign_id, since_event=baseline.last_event)
    assert (doubled.pools[(bea, "hp")], doubled.pools[(cid, "resolve")]) == (9, 3)
    assert all(value == baseline.pools[key] + doubled.logged_changes[key] for key, value in doubled.pools.items())
    with pytest.raises(AssertionError):
        assert_accounts_for(baseline, doubled)


async def test_the_gms_mark_alone_refuses_a_player_before_the_command_runs(arena: Arena) -> None:
    """`/engine marked` checks no one itself: its mark describes it as the GMs' and refuses a player."""
    harness = arena.harness
    refused = (await harness.slash(arena.ann, arena.channel, "engine marked")).reply
    assert refused.ephemeral and refused.content == "Only a GM of this campaign can do that."
    assert (await harness.slash(arena.gm, arena.channel, "engine marked")).reply.content == "ran"
    described = {name: description for name, description, _ in leaves(harness.emulator.commands())}
    assert described["engine marked"] == "The GMs' by its mark alone: its own code checks no one (GM only)"


async def _until(check: Callable[[], bool]) -> None:
    """Wait for something the bot does with no message to show for it (another try of a deadline)."""
    async with asyncio.timeout(EVENTUALLY_SECONDS):
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(DEADLINE_POLL_SECONDS)


def _line_about(replies: list[Message], name: str) -> str:
    return next(reply.content for reply in replies if f"waiting for {name}" in reply.content)


async def test_a_deadline_that_keeps_failing_is_left_to_the_gms_and_stops_no_other(
    arena: Arena, caplog: pytest.LogCaptureFixture
) -> None:
    table, play = await _campaign_of_its_own(arena), ENGINE.play
    assert isinstance(play, EnginePlay)
    harness = table.harness
    await _hero(table, table.ann, "Ann")
    bea = await _hero(table, table.bea, "Bea")
    answered, cancelled, healthy = [await _hero(table, table.cid, name) for name in ("Cia", "Cib", "Cic")]
    harness.dice.queue([1, 1, 1])
    prompts = {}
    for ally in (answered, cancelled, healthy):  # their deadlines in this order: the broken ones come first
        reaction = SHIELD if ally == healthy else BROKEN_SHIELD
        await harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=ally, reaction=reaction)
        prompts[ally] = _prompt(table, table.cid)
    caplog.set_level(logging.ERROR, logger="bot.services.exchanges")

    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await harness.eventually(lambda: harness.current(prompts[healthy]).buttons() == [])
    assert f"{healthy} did not shield {bea} in time." in _seen(table, table.gm)
    await _until(lambda: min(play.tries[answered], play.tries[cancelled]) >= DEADLINE_TRIES)
    await asyncio.sleep(20 * DEADLINE_POLL_SECONDS)  # many more looks, and none tries them again
    assert (play.tries[answered], play.tries[cancelled]) == (DEADLINE_TRIES, DEADLINE_TRIES)
    for ally in (answered, cancelled):
        assert harness.current(prompts[ally]).buttons() == ["Shield", "Let it be", "Cancel (GM)"]

    pending = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    assert all(f"waiting for {healthy}" not in reply.content for reply in pending)
    errors = {}
    for ally in (answered, cancelled):
        line = _line_about(pending, ally)
        found = re.fullmatch(r"#(\d+):.*\n⚠ Failed 3 times when its time was up \(error ([0-9a-f]{8})\): it is no "
                             r"longer answered on its own; a GM answers or cancels it\.", line, re.DOTALL)  # fmt: skip
        assert found is not None, line
        errors[ally] = found[2]
        logged = f"the deadline of wait {found[1]} of campaign {table.campaign_id} failed [error {found[2]}], failure 3"
        assert any(record.getMessage().startswith(logged) for record in caplog.records), logged
    waiting = (await harness.slash(table.gm, table.channel, "campaign waiting")).reply.content
    for ally, error_id in errors.items():
        given_up = rf"waiting for {ally} \(<@\d+>\).*\n⚠ Failed 3 times when its time was up \(error {error_id}\)"
        assert re.search(given_up, waiting), waiting

    refused = await harness.emulator.click(table.gm, prompts[answered], "Let it be")
    assert refused.reply.ephemeral
    assert re.fullmatch(r"Something went wrong and nothing was changed \(error [0-9a-f]{8}, logged\)\.",
                        refused.reply.content), refused.reply.content  # fmt: skip
    assert harness.current(prompts[answered]).buttons() != []
    await harness.emulator.click(table.gm, prompts[answered], "Shield")
    assert harness.current(prompts[answered]).content == f"A GM answered for {answered}: Shield."
    assert f"{answered} shields {bea}: 1 HP back." in _seen(table, table.gm)

    await harness.emulator.click(table.gm, prompts[cancelled], "Cancel (GM)")
    assert harness.current(prompts[cancelled]).buttons() == []
    assert harness.current(prompts[cancelled]).content == f"Cancelled by <@{table.gm.id}>."
    left = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    assert not any(ally in reply.content for reply in left for ally in (answered, cancelled))


async def _two_allies_asked_to_shield(
    table: Arena, first_name: str, second_name: str
) -> tuple[str, tuple[str, str], dict[str, Message]]:
    """Ann strikes Bea twice, each time with one of Cid's two heroes asked to shield her: Bea, the two allies, and
    the prompt each ally's player got."""
    await _hero(table, table.ann, "Ann")
    bea = await _hero(table, table.bea, "Bea")
    first, second = await _hero(table, table.cid, first_name), await _hero(table, table.cid, second_name)
    prompts = {}
    for ally in (first, second):
        await table.harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=ally)
        prompts[ally] = _prompt(table, table.cid)
    return bea, (first, second), prompts


async def test_a_post_that_fails_at_a_deadline_stops_no_other(arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    table = await _campaign_of_its_own(arena)
    harness = table.harness
    bea, (first, second), prompts = await _two_allies_asked_to_shield(table, "Cid", "Cie")
    caplog.set_level(logging.ERROR, logger="bot.exchange_views")
    refused = harness.emulator.refuse_next("POST", rf"/channels/{table.channel.id}/messages$", status=403, code=50013)

    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await harness.eventually(lambda: harness.current(prompts[second]).buttons() == [])
    assert refused.count == 0, "the first deadline's post was refused"
    seen = _seen(table, table.gm)
    assert f"{second} did not shield {bea} in time." in seen
    assert f"{first} did not shield {bea} in time." not in seen
    logged = f"posting what the deadline did in campaign {table.campaign_id} failed"
    assert any(record.getMessage().startswith(logged) for record in caplog.records)


async def test_a_post_that_hangs_at_a_deadline_holds_up_no_other(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = await _campaign_of_its_own(arena)
    harness = table.harness
    bea, (_, second), prompts = await _two_allies_asked_to_shield(table, "Cih", "Cii")
    # The module the bot runs: it loads its extensions afresh, so it is not one a test could import beforehand.
    monkeypatch.setattr(sys.modules["bot.exchange_views"], "DEADLINE_POST_SECONDS", 0.5)
    caplog.set_level(logging.ERROR, logger="bot.exchange_views")
    # Longer than anything is waited for below: the second outcome is posted only if the first post is cut short.
    harness.emulator.slow_next("POST", rf"/channels/{table.channel.id}/messages$", seconds=EVENTUALLY_SECONDS + 1)

    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await harness.eventually(lambda: harness.current(prompts[second]).buttons() == [])
    assert f"{second} did not shield {bea} in time." in _seen(table, table.gm)
    logged = f"posting what the deadline did in campaign {table.campaign_id} failed"
    assert any(record.getMessage().startswith(logged) for record in caplog.records)
    await harness.emulator.settle(timeout=2 * EVENTUALLY_SECONDS)  # the slow reply, before the next test


@pytest.mark.parametrize("trouble", [Busy, PoolTimeout, ConnectionResetError])
async def test_a_deadline_the_database_fails_for_a_while_is_not_counted_against_its_wait(
    arena: Arena, trouble: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, play = await _campaign_of_its_own(arena), ENGINE.play
    assert isinstance(play, EnginePlay)
    monkeypatch.setattr(play, "database_trouble", trouble)
    harness = table.harness
    await _hero(table, table.ann, "Ann")
    bea, cid = await _hero(table, table.bea, "Bea"), await _hero(table, table.cid, "Cid")
    await harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=cid, reaction=BUSY_SHIELD)
    prompt = _prompt(table, table.cid)

    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await harness.eventually(lambda: harness.current(prompt).buttons() == [])
    assert play.tries[cid] == BUSY_TRIES + 1 > DEADLINE_TRIES
    assert harness.current(prompt).content == "Time is up: Let it be."
    assert f"{cid} did not shield {bea} in time." in _seen(table, table.gm)


async def _until_given_up(arena: Arena, wait_id: int) -> None:
    """Wait until the deadlines gave up on the wait."""
    async with asyncio.timeout(EVENTUALLY_SECONDS):
        while True:
            async with _database(arena).read() as session:
                if await session.scalar(select(WaitRow.failures).where(WaitRow.id == wait_id)) == DEADLINE_TRIES:
                    return
            await asyncio.sleep(DEADLINE_POLL_SECONDS)


@pytest.mark.parametrize("stored", [{"written": "by rules long gone"}, [], None], ids=["keys", "list", "null"])
async def test_a_wait_that_no_longer_reads_hides_no_other_and_its_gms_cancel_it(
    arena: Arena, stored: object
) -> None:  # fmt: skip
    table = await _campaign_of_its_own(arena)
    harness, cid = table.harness, table.cid
    await _hero(table, table.ann, "Ann")
    bea = await _hero(table, table.bea, "Bea")
    ally, defender = await _hero(table, cid, "Cir"), await _hero(table, cid, "Cis")
    await harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=ally)
    unreadable = await _shield_wait(table)
    harness.dice.queue([15])
    await harness.slash(table.ann, table.channel, "engine duel", target=defender)
    defence = _prompt(table, cid)
    async with _database(table).write() as session:
        await session.execute(update(WaitRow).where(WaitRow.id == unreadable).values(spec=stored))

    pending = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    broken = next(reply for reply in pending if reply.content.startswith(f"#{unreadable}:"))
    assert "an exchange that can no longer be read, waiting for the GMs" in broken.content, broken.content
    assert broken.buttons() == ["Cancel (GM)"]
    assert _line_about(pending, defender) and _prompt(table, cid) == defence
    await harness.slash(table.gm, table.channel, "campaign reminders", hours=1)
    harness.emulator.clock.advance(3600 + 1)
    reminded = f"<@{cid.id}> a reminder:"
    await harness.eventually(lambda: any(reminded in message.text() and defender in message.text()
                                         for message in harness.emulator.visible_to(cid, table.channel)))  # fmt: skip
    await _until_given_up(table, unreadable)
    waiting = (await harness.slash(table.gm, table.channel, "campaign waiting")).reply.content
    assert "an exchange that can no longer be read: waiting for the GMs" in waiting, waiting
    assert f"waiting for {defender}" in waiting and "⚠ Failed 3 times" in waiting
    yours = (await harness.slash(cid, table.channel, "waiting")).reply.content
    assert defender in yours and "can no longer be read" not in yours

    pending = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    broken = next(reply for reply in pending if reply.content.startswith(f"#{unreadable}:"))
    assert "⚠ Failed 3 times when its time was up" in broken.content
    await harness.emulator.click(table.gm, broken, "Cancel (GM)")
    left = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    assert not any(reply.content.startswith(f"#{unreadable}:") for reply in left)
    assert _line_about(left, defender)


async def test_an_exchange_whose_undo_fails_as_its_answers_do_is_cancelled_by_its_gm_after_a_restart(
    arena: Arena,
) -> None:
    table = await _campaign_of_its_own(arena)
    harness = table.harness
    await _hero(table, table.ann, "Ann")
    bea, ally = await _hero(table, table.bea, "Bea"), await _hero(table, table.cid, "Cit")
    harness.dice.queue([1])
    await harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=ally, reaction=STALE_SHIELD)
    prompt, wait_id = _prompt(table, table.cid), await _shield_wait(table)
    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await _until_given_up(table, wait_id)
    refused = (await harness.emulator.click(table.cid, prompt, "Shield")).reply
    assert refused.ephemeral and "nothing was changed" in refused.content, refused.content

    await harness.restart()
    listed = next(reply for reply in (await harness.slash(table.gm, table.channel, "gm pending")).replies
                  if reply.content.startswith(f"#{wait_id}:"))  # fmt: skip
    assert "⚠ Failed 3 times when its time was up" in listed.content
    await harness.emulator.click(table.gm, listed, "Cancel (GM)")
    assert harness.current(prompt).buttons() == []
    assert harness.current(prompt).content == f"Cancelled by <@{table.gm.id}>."
    left = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    assert not any(reply.content.startswith(f"#{wait_id}:") for reply in left)
    assert await _pools(table, bea) == {"hp": 10 - 1, "resolve": 5, "luck": 3}


async def test_a_deadline_whose_rules_miss_a_file_is_counted_as_its_own_failure_and_given_up(arena: Arena) -> None:
    table = await _campaign_of_its_own(arena)
    harness = table.harness
    await _hero(table, table.ann, "Ann")
    bea, ally = await _hero(table, table.bea, "Bea"), await _hero(table, table.cid, "Ciu")
    await harness.slash(table.ann, table.channel, "engine strike", target=bea, ally=ally, reaction=LOST_SHIELD)
    wait_id = await _shield_wait(table)
    harness.emulator.clock.advance(REACTION_SECONDS + 1)
    await _until_given_up(table, wait_id)
    listed = (await harness.slash(table.gm, table.channel, "gm pending")).replies
    assert "⚠ Failed 3 times when its time was up" in _line_about(listed, ally)
