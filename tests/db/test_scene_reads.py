"""A scene's characters as the rules see them come in one statement: the characters given (or an exchange's cast),
the characters bound to them, and every pool of them all, with nothing lost or doubled on the way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.db.engine import Database
from bot.db.models import Campaign, Character, CharacterLink, Exchange, ExchangeRole, ResourcePool, Side
from bot.services.snapshots import Seen, snapshots
from rules.play import Pool
from tests.databases import BACKENDS, migrated_database
from tests.e2e.statements import statements_run

NOW = datetime(2026, 12, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Stored:
    database: Database
    ids: dict[str, int]  # each character's id by name
    exchange_id: int
    side_id: int


@pytest.fixture(scope="module", params=BACKENDS)
async def stored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stored]:
    """Saber (three pools, stored out of name order) and her Master Kiritsugu (two); Archer, with no pools,
    bound to Rin (one), who is bound back to him; Lancer, bound to no one. An exchange with Saber and Archer as
    attackers, Lancer deleted from its defenders, and a side."""
    directory: Path = tmp_path_factory.mktemp("scene-reads")
    async with migrated_database(request.param, directory) as database:
        async with database.write() as session:
            campaign = Campaign(guild_id=1, channel_id=2, name="Fuyuki", ruleset="fate_points", created_at=NOW)
            session.add(campaign)
            await session.flush()
            names = ("Saber", "Kiritsugu", "Archer", "Rin", "Lancer")
            characters = {
                name: Character(
                    campaign_id=campaign.id,
                    owner_id=owner,
                    name=name,
                    kind="servant",
                    sheet={"n": owner},
                    created_at=NOW,
                )
                for owner, name in enumerate(names, start=1)
            }
            session.add_all(characters.values())
            await session.flush()
            ids = {name: character.id for name, character in characters.items()}
            pools = [("Saber", "prana", 4, 9), ("Saber", "hp", 20, 20), ("Saber", "fate", 1, None)]
            pools += [("Kiritsugu", "seals", 3, 3), ("Kiritsugu", "hp", 10, 12), ("Rin", "hp", 11, 11)]
            for name, pool, current, maximum in pools:
                session.add(ResourcePool(character_id=ids[name], name=pool, current=current, maximum=maximum))
                await session.flush()  # stored in this order, the order a sheet lists them in
            session.add_all(
                [
                    CharacterLink(
                        campaign_id=campaign.id,
                        character_id=ids["Saber"],
                        target_id=ids["Kiritsugu"],
                        relation="master",
                    ),
                    CharacterLink(
                        campaign_id=campaign.id, character_id=ids["Archer"], target_id=ids["Rin"], relation="master"
                    ),
                    CharacterLink(
                        campaign_id=campaign.id, character_id=ids["Rin"], target_id=ids["Archer"], relation="servant"
                    ),
                ]
            )
            side = Side(campaign_id=campaign.id, name="Einzbern", created_at=NOW)
            exchange = Exchange(campaign_id=campaign.id, kind="attack", channel_id=2, created_at=NOW)
            session.add_all([side, exchange])
            await session.flush()
            roles: list[tuple[str, int, int | None, int | None]] = [
                ("attacker", 0, ids["Saber"], None),
                ("attacker", 1, ids["Archer"], None),
            ]
            roles += [("defender", 0, ids["Lancer"], None), ("allies", 0, None, side.id)]
            session.add_all(
                ExchangeRole(exchange_id=exchange.id, role=role, position=position, character_id=who, side_id=side_id)
                for role, position, who, side_id in roles
            )
            await session.flush()
            await session.delete(characters["Lancer"])
        yield Stored(database, ids, exchange.id, side.id)


async def test_characters_their_partners_and_every_pool_come_in_one_statement(stored: Stored) -> None:
    async with stored.database.read() as session:
        given = [await session.get(Character, stored.ids[name]) for name in ("Saber", "Archer", "Saber")]
        pool_ids: dict[tuple[int, str], int] = {}
        loaded: dict[int, Character] = {}
        with statements_run(stored.database) as run:
            saber, archer, again = await snapshots(
                session, [c for c in given if c is not None], loaded=loaded, pool_ids=pool_ids
            )
    assert len(run) == 1, run
    assert again == saber
    assert list(saber.pools) == ["prana", "hp", "fate"]
    assert saber.pools["fate"] == Pool(1, None, 0)
    (kiritsugu,) = saber.bound_to["master"]
    assert kiritsugu.name == "Kiritsugu" and list(kiritsugu.pools) == ["seals", "hp"]
    assert kiritsugu.sheet == {"n": 2}
    assert archer.pools == {}
    assert [rin.name for rin in archer.bound_to["master"]] == ["Rin"]
    assert [rin.name for rin in archer.bound_by["servant"]] == ["Rin"]
    assert archer.bound_to["master"][0].pools == {"hp": Pool(11, 11, 0)}
    assert set(loaded) == {stored.ids[name] for name in ("Saber", "Kiritsugu", "Archer", "Rin")}
    assert len(pool_ids) == 6 and len(set(pool_ids.values())) == 6


async def test_without_links_only_the_characters_own_pools_are_read(stored: Stored) -> None:
    async with stored.database.read() as session:
        rin = await session.get(Character, stored.ids["Rin"])
        assert rin is not None
        (shown,) = await snapshots(session, [rin], with_links=False)
    assert shown.pools == {"hp": Pool(11, 11, 0)}
    assert shown.bound_to == {} and shown.bound_by == {}


async def test_an_exchanges_cast_comes_with_its_characters_as_the_rules_see_them(stored: Stored) -> None:
    seen = Seen()
    async with stored.database.read() as session:
        with statements_run(stored.database) as run:
            cast = await seen.cast_of(session, stored.exchange_id)
        assert len(run) == 1, run
        shown_saber = seen.shown[stored.ids["Saber"]]
        with statements_run(stored.database) as again:
            rows = [seen.rows[stored.ids[name]] for name in ("Saber", "Archer")]
            assert await seen.snapshots(session, rows) == [shown_saber, seen.shown[stored.ids["Archer"]]]
        assert again == []  # the cast was seen: nothing is read twice
    by_place = [(role.role, role.character.name if role.character else None, role.side_id) for role in cast]
    assert by_place == [
        ("allies", None, stored.side_id),
        ("attacker", "Saber", None),
        ("attacker", "Archer", None),
        ("defender", None, None),  # Lancer's place: deleting him emptied it
    ]
    assert shown_saber.bound_to["master"][0].pools["seals"] == Pool(3, 3, 0)
    assert (stored.ids["Kiritsugu"], "hp") in seen.pool_ids
