"""Upgrading a database of the previous version keeps its waiting attacks, its requests and its contracts."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Connection, inspect, select, text

from bot.db.engine import Database
from bot.db.migrate import alembic_config, upgrade
from bot.db.models import Campaign, CharacterLink, WaitRow
from bot.rulesets.registry import RULESETS
from bot.services.common import Actor
from bot.services.exchanges import ExchangeEngine, ExchangeService
from rules.dice import SeededDice
from rules.fate_points import AttackOutcome, AttackSpec, FatePointsOptions, attack
from rules.fate_points.events import AttackResolved, FateSpent
from rules.fate_points.play import CONTRACT, FatePointsPlay, combatant
from rules.play import CharacterSnapshot
from tests.databases import BACKENDS, fresh_database_url
from tests.examples import FATE_MASTER as MASTER_TEMPLATE
from tests.examples import FATE_SERVANT as SERVANT_TEMPLATE

GUILD, CHANNEL, OWNER, GM = 10, 20, 30, 40
NOW = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.fixture(scope="module", params=BACKENDS)
async def previous(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Database]:
    """A database filled at revision 0003 and upgraded: a campaign that ended no turn yet, a Master, its Servant,
    a waiting attack and a waiting request."""
    async with fresh_database_url(request.param, tmp_path_factory.mktemp("migration")) as url:
        database = Database.from_url(url)
        try:
            await upgrade(database.engine, "0003")
            await _fill(database)
            await upgrade(database.engine)
            yield database
        finally:
            await database.dispose()


async def _fill(database: Database) -> None:
    play, options, dice = FatePointsPlay(), FatePointsOptions(), SeededDice(3)
    master = play.build("master", MASTER_TEMPLATE, {}, dice, options)
    master_now = CharacterSnapshot(1, master.name, "master", OWNER, master.sheet, master.pools, {})
    servant = play.build("servant", SERVANT_TEMPLATE, {"master": master_now}, dice, options)
    servant_now = CharacterSnapshot(2, servant.name, "servant", OWNER, servant.sheet, servant.pools, {})
    spec = AttackSpec(attack_type="melee", weapon="Invisible Air")
    # The Master stands with his living Servant (R11), so he may defend.
    defended = replace(master_now, bound_by={CONTRACT: (servant_now,)})
    swing = attack(combatant(servant_now), combatant(defended), spec, 1, dice, options)
    assert isinstance(swing, AttackOutcome)
    payload = {"state": {"attack": swing.to_dict(), "spec": spec.to_dict(), "attacker_fate": {}},
               "options": list(swing.defence_options)}  # fmt: skip
    async with database.write() as session:

        async def run(sql: str, **values: object) -> None:
            await session.execute(text(sql), values)

        await run(
            "INSERT INTO campaigns (id, guild_id, channel_id, name, ruleset, options, session_number, turn_number,"
            " status, created_at, round_number, combat) VALUES (1, :guild, :channel, 'War', 'fate_points', '{}', 1,"
            " 0, 'active', :now, 1, '{}')", guild=GUILD, channel=CHANNEL, now=NOW,
        )  # fmt: skip
        await run("INSERT INTO memberships (campaign_id, user_id, role, joined_at) VALUES (1, :gm, 'gm', :now)",
                  gm=GM, now=NOW)  # fmt: skip
        for character_id, draft, master_id in ((1, master, None), (2, servant, 1)):
            await run(
                "INSERT INTO characters (id, campaign_id, owner_id, name, kind, sheet, created_at, state, master_id)"
                " VALUES (:id, 1, :owner, :name, :kind, :sheet, :now, '{}', :master)",
                id=character_id, owner=OWNER, name=draft.name, kind=draft.kind, sheet=json.dumps(draft.sheet),
                now=NOW, master=master_id,
            )  # fmt: skip
            for name, pool in draft.pools.items():
                await run(
                    "INSERT INTO resource_pools (character_id, name, current, maximum, minimum)"
                    " VALUES (:id, :name, :current, :maximum, :minimum)",
                    id=character_id, name=name, current=pool.current + (3 if name == "fate_points" else 0),
                    maximum=pool.maximum, minimum=pool.minimum,
                )  # fmt: skip
        pending = (
            "INSERT INTO pending_actions (campaign_id, kind, awaiting_user_id, actor_character_id,"
            " target_character_id, channel_id, message_id, payload, status, created_at)"
            " VALUES (1, :kind, :awaiting, :actor, :target, :channel, :message, :payload, :status, :now)"
        )
        await run(pending, kind="attack", awaiting=OWNER, actor=2, target=1, channel=CHANNEL, message=77,
                  payload=json.dumps(payload), status="pending", now=NOW)  # fmt: skip
        await run(pending, kind="fate.spend", awaiting=None, actor=1, target=None, channel=CHANNEL, message=78,
                  payload=json.dumps({"use": "boost_stat", "stat": "AGI"}), status="pending", now=NOW)  # fmt: skip
        await run(pending, kind="attack", awaiting=OWNER, actor=2, target=1, channel=CHANNEL, message=79,
                  payload=json.dumps(payload), status="resolved", now=NOW)  # fmt: skip


async def test_a_campaign_that_ended_no_turn_is_in_turn_one(previous: Database) -> None:
    async with previous.read() as session:
        campaign = await session.get(Campaign, 1)
    assert campaign is not None
    assert campaign.turn_number == 1


async def test_a_servants_master_becomes_a_link(previous: Database) -> None:
    async with previous.read() as session:
        links = list(await session.scalars(select(CharacterLink)))
    assert [(link.character_id, link.target_id, link.relation) for link in links] == [(2, 1, "master")]


async def test_waiting_actions_become_waits_that_still_answer(previous: Database) -> None:
    async with previous.read() as session:
        waits = list(await session.scalars(select(WaitRow).order_by(WaitRow.id)))
    assert [(wait.key, wait.message_id, wait.status) for wait in waits] == [
        ("defence", 77, "pending"), ("approval", 78, "pending"),
    ]  # fmt: skip
    service = ExchangeService(previous, lambda: NOW, ExchangeEngine(lambda: NOW, RULESETS))
    answered = await service.answer(GUILD, waits[0].id, Actor(OWNER), "take", SeededDice(5))
    resolved = answered.steps[-1].outcomes[0]
    assert isinstance(resolved, AttackResolved)
    assert (resolved.attacker, resolved.defender, resolved.result.choice) == ("Saber", "Rin Tohsaka", "take")
    approved = await service.answer(GUILD, waits[1].id, Actor(GM), "approve", SeededDice(5))
    granted = approved.steps[-1].outcomes[0]
    assert isinstance(granted, FateSpent)
    assert granted.effect["boost"] == "AGI"


async def test_waits_from_before_have_failed_at_no_deadline(previous: Database) -> None:
    async with previous.read() as session:
        waits = list(await session.scalars(select(WaitRow).order_by(WaitRow.id)))
    assert [(wait.failures, wait.error_id) for wait in waits] == [(0, None), (0, None)]


def _wait_columns(connection: Connection) -> set[str]:
    return {column["name"] for column in inspect(connection).get_columns("waits")}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_failures_of_waits_go_with_their_revision(backend: str, tmp_path: Path) -> None:
    async with fresh_database_url(backend, tmp_path) as url:
        database = Database.from_url(url)
        try:
            await upgrade(database.engine)
            async with database.engine.begin() as connection:
                assert {"failures", "error_id"} <= await connection.run_sync(_wait_columns)
                await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), "0007"))
                assert not {"failures", "error_id"} & await connection.run_sync(_wait_columns)
        finally:
            await database.dispose()
