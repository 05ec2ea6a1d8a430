"""Characters as the rules see them: stored rows with fresh pools and the characters they are bound to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import JSON, Select, bindparam, case, null, outerjoin, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from bot.db.models import Campaign, Character, CharacterLink, ExchangeRole, ResourcePool, table_of
from bot.errors import UserError
from bot.rulesets.base import Ruleset
from rules.exchange import Text
from rules.play import CharacterDraft, CharacterSnapshot, Play, Pool

PlayT = TypeVar("PlayT", bound=Play)


def ruleset_play(rulesets: Mapping[str, Ruleset], campaign: Campaign, ruleset_id: str, kind: type[PlayT]) -> PlayT:
    """The campaign's rules when they are `ruleset_id`'s: that ruleset's own commands, used in another's
    campaign, say whose they are."""
    play = play_of(rulesets, campaign) if campaign.ruleset == ruleset_id else None
    if not isinstance(play, kind):
        raise UserError("error.belongs_to_ruleset", ruleset=Text(rulesets[ruleset_id].name_key))
    return play


def play_of(rulesets: Mapping[str, Ruleset], campaign: Campaign) -> Play:
    """The campaign's rules, among the `rulesets` the bot serves."""
    play = rulesets[campaign.ruleset].play
    if play is None:
        raise UserError("error.ruleset_not_playable")
    return play


class _PoolRows(FunctionElement[Any]):
    """A character's pools as one JSON array of `[id, name, current, maximum, minimum]` arrays, in no set order
    (SQLite before 3.44 orders no aggregate); None where it has none (PostgreSQL's `json_agg` of no rows)."""

    type = JSON()
    inherit_cache = True


@compiles(_PoolRows, "sqlite")
def _pool_rows_sqlite(element: _PoolRows, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_group_array(json_array({compiler.process(element.clauses, **kw)}))"


@compiles(_PoolRows, "postgresql")
def _pool_rows_postgresql(element: _PoolRows, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_agg(json_build_array({compiler.process(element.clauses, **kw)}))"


_CHARACTERS = table_of(Character).c
_ROLES = table_of(ExchangeRole).c


def _characters_read(given: Select[Any], given_ids: Any, *, with_links: bool = True) -> Select[Any]:
    """Built once (a fight reads its scene at every step): in one statement, a row for each of the `given`
    characters and one for each link of theirs (`given_ids`: their ids), each with the pools of the character it
    leads to. A link's row also brings the character at its other end, so the partners arrive with it; so does an
    exchange's role. Pools are values, not objects: they change through UPDATE ... RETURNING, which objects the
    session kept would not see."""
    link = table_of(CharacterLink).c
    pool = table_of(ResourcePool).c
    other_end = case((link.character_id.in_(given_ids), link.target_id), else_=link.character_id)
    linked = select(
        other_end.label("end_id"),
        link.character_id.label("bound_id"),
        link.target_id.label("to_id"),
        link.relation,
        link.id.label("link_id"),
        null().label("role"),
        null().label("position"),
        null().label("side_id"),
    ).where(link.character_id.in_(given_ids) | link.target_id.in_(given_ids))
    ends = (union_all(given, linked) if with_links else given).subquery()
    pools = (
        select(_PoolRows(pool.id, pool.name, pool.current, pool.maximum, pool.minimum))
        .where(pool.character_id == ends.c.end_id)
        .scalar_subquery()
    )
    read_whole = ends.c.link_id.is_not(None) | ends.c.role.is_not(None)
    return (
        select(ends, Character, pools)
        .select_from(outerjoin(ends, Character, (Character.id == ends.c.end_id) & read_whole))
        .order_by(ends.c.link_id, ends.c.role, ends.c.position)
    )


def _by_ids() -> Select[Any]:
    return select(
        _CHARACTERS.id.label("end_id"),
        *(null().label(name) for name in ("bound_id", "to_id", "relation", "link_id", "role", "position", "side_id")),
    ).where(_CHARACTERS.id.in_(bindparam("ids")))


def _of_exchange() -> Select[Any]:
    return select(
        _ROLES.character_id.label("end_id"),
        *(null().label(name) for name in ("bound_id", "to_id", "relation", "link_id")),
        _ROLES.role,
        _ROLES.position,
        _ROLES.side_id,
    ).where(_ROLES.exchange_id == bindparam("exchange_id"))


_CHARACTERS_READ = {
    with_links: _characters_read(_by_ids(), bindparam("ids"), with_links=with_links) for with_links in (False, True)
}
_CAST_READ = _characters_read(
    _of_exchange(), select(_ROLES.character_id).where(_ROLES.exchange_id == bindparam("exchange_id"))
)


@dataclass(frozen=True)
class Role:
    """A place in an exchange's cast as stored: a character or a side (neither once its character was deleted,
    which empties the place)."""

    role: str
    character: Character | None
    side_id: int | None


class _Read:
    """The rows of a characters read, gathered into snapshots."""

    def __init__(self, involved: dict[int, Character]) -> None:
        self.involved = involved
        self.links: list[tuple[int, int, str]] = []  # the bound character, the one it is bound to, the relation
        self.pools: dict[int, dict[str, Pool]] = {}
        self.pool_ids: dict[tuple[int, str], int] = {}
        self.roles: list[Role] = []

    async def run(self, session: AsyncSession, statement: Select[Any], parameters: dict[str, Any]) -> _Read:
        rows = await session.execute(statement, parameters)
        for end_id, bound, to, relation, link_id, role, _, side_id, character, pool_rows in rows:
            if link_id is not None:
                self.links.append((bound, to, relation))
            if role is not None:
                self.roles.append(Role(role, character, side_id))
            if character is not None:
                self.involved.setdefault(end_id, character)
            if end_id is None:
                continue
            own = self.pools.setdefault(end_id, {})
            # In the order the pools were stored, the order a sheet lists them in.
            for pool_id, name, current, maximum, minimum in sorted(pool_rows or ()):
                own[name] = Pool(current, maximum, minimum)
                self.pool_ids[(end_id, name)] = pool_id
        return self

    def shown(self, ids: Sequence[int], *, with_links: bool = True) -> list[CharacterSnapshot]:
        pools = self.pools
        alone = {key: _snapshot(character, pools.get(key, {})) for key, character in self.involved.items()}
        if not with_links:
            return [alone[character_id] for character_id in ids]
        found = []
        for character_id in ids:
            bound_to: dict[str, tuple[CharacterSnapshot, ...]] = {}
            bound_by: dict[str, tuple[CharacterSnapshot, ...]] = {}
            for bound, to, relation in self.links:
                if bound == character_id:
                    bound_to[relation] = (*bound_to.get(relation, ()), alone[to])
                if to == character_id:
                    bound_by[relation] = (*bound_by.get(relation, ()), alone[bound])
            found.append(_snapshot(self.involved[character_id], pools.get(character_id, {}), bound_to, bound_by))
        return found


async def snapshots(
    session: AsyncSession,
    characters: Sequence[Character],
    *,
    with_links: bool = True,
    loaded: dict[int, Character] | None = None,
    pool_ids: dict[tuple[int, str], int] | None = None,
) -> list[CharacterSnapshot]:
    """The characters as the rules see them: fresh pools, and (one level deep) the characters each is bound to
    and bound by. One statement however many characters there are (`_characters_read`): a fight builds its scene
    at every step.

    `loaded` receives every row read, by id: the session holds its rows only while someone else does, so a
    caller that wants the partners' rows too keeps them here rather than reading them again; `pool_ids` receives
    the id of every pool read, by character and name, for a caller that changes them next."""
    ids = [character.id for character in characters]
    if not ids:
        return []
    read = _Read({character.id: character for character in characters})
    await read.run(session, _CHARACTERS_READ[with_links], {"ids": list(read.involved)})
    if loaded is not None:
        loaded.update(read.involved)
    if pool_ids is not None:
        pool_ids.update(read.pool_ids)
    return read.shown(ids, with_links=with_links)


@dataclass
class Seen:
    """Characters a transaction has read as the rules see them, the rows behind them and their partners, and the
    ids of their pools: a service that reads a character before it runs an exchange with it hands these to the
    engine, which reads only the rest of its cast. Valid only until the transaction changes one of them."""

    shown: dict[int, CharacterSnapshot] = field(default_factory=dict)
    rows: dict[int, Character] = field(default_factory=dict)
    pool_ids: dict[tuple[int, str], int] = field(default_factory=dict)

    async def snapshots(self, session: AsyncSession, characters: Sequence[Character]) -> list[CharacterSnapshot]:
        """`snapshots` of the characters (with their links), reading only those not seen yet."""
        unread = list({character.id: character for character in characters if character.id not in self.shown}.values())
        read = await snapshots(session, unread, loaded=self.rows, pool_ids=self.pool_ids)
        self.shown.update(zip((character.id for character in unread), read, strict=True))
        return [self.shown[character.id] for character in characters]

    async def cast_of(self, session: AsyncSession, exchange_id: int) -> list[Role]:
        """An exchange's cast by role, in the order stored, and (in the same statement) its characters as the
        rules see them, kept as seen."""
        read = await _Read({}).run(session, _CAST_READ, {"exchange_id": exchange_id})
        self.rows.update(read.involved)
        self.pool_ids.update(read.pool_ids)
        given = list({role.character.id: None for role in read.roles if role.character is not None})
        self.shown.update(zip(given, read.shown(given), strict=True))
        return read.roles


async def snapshot(session: AsyncSession, character: Character, *, with_links: bool = True) -> CharacterSnapshot:
    """One character as the rules see it (see `snapshots`)."""
    (found,) = await snapshots(session, [character], with_links=with_links)
    return found


def _snapshot(
    character: Character,
    pools: dict[str, Pool],
    bound_to: dict[str, tuple[CharacterSnapshot, ...]] | None = None,
    bound_by: dict[str, tuple[CharacterSnapshot, ...]] | None = None,
) -> CharacterSnapshot:
    return CharacterSnapshot(
        character.id,
        character.name,
        character.kind,
        character.owner_id,
        character.sheet,
        pools,
        character.state,
        character.gm_run,
        bound_to or {},
        bound_by or {},
        character.portrait_url,
    )


async def store_character(
    session: AsyncSession,
    campaign: Campaign,
    owner_id: int,
    draft: CharacterDraft,
    gm_run: bool,
    state: Mapping[str, Any],
    now: datetime,
) -> Character:
    """A built character and its pools, added to the campaign."""
    character = Character(
        campaign_id=campaign.id,
        owner_id=owner_id,
        name=draft.name,
        kind=draft.kind,
        sheet=draft.sheet,
        state=dict(state),
        gm_run=gm_run,
        created_at=now,
    )
    session.add(character)
    await session.flush()
    for name, pool in draft.pools.items():
        session.add(
            ResourcePool(
                character_id=character.id, name=name, current=pool.current, maximum=pool.maximum, minimum=pool.minimum
            )
        )
    return character
