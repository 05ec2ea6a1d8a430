"""Characters as the rules see them: stored rows with fresh pools and the characters they are bound to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import bindparam, case, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Campaign, Character, CharacterLink, ResourcePool, table_of
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


# Built once (a fight reads its scene at every step), the characters' ids given as parameters. A link comes with
# the character at its other end, so the partners arrive with it (and those already read are not decoded again).
_LINK_COLUMNS = table_of(CharacterLink).c
_LINKS = (
    select(_LINK_COLUMNS.character_id, _LINK_COLUMNS.target_id, _LINK_COLUMNS.relation, Character)
    .join(
        Character,
        Character.id
        == case(
            (_LINK_COLUMNS.character_id.in_(bindparam("bound_ids")), _LINK_COLUMNS.target_id),
            else_=_LINK_COLUMNS.character_id,
        ),
    )
    .where(_LINK_COLUMNS.character_id.in_(bindparam("ids")) | _LINK_COLUMNS.target_id.in_(bindparam("target_ids")))
    .order_by(_LINK_COLUMNS.id)
)
# Values, not objects: pools change through UPDATE ... RETURNING, which objects the session kept would not see.
_POOL_COLUMNS = table_of(ResourcePool).c
_POOLS = (
    select(
        _POOL_COLUMNS.id,
        _POOL_COLUMNS.character_id,
        _POOL_COLUMNS.name,
        _POOL_COLUMNS.current,
        _POOL_COLUMNS.maximum,
        _POOL_COLUMNS.minimum,
    )
    .where(_POOL_COLUMNS.character_id.in_(bindparam("ids")))
    .order_by(_POOL_COLUMNS.id)
)


async def snapshots(
    session: AsyncSession,
    characters: Sequence[Character],
    *,
    with_links: bool = True,
    loaded: dict[int, Character] | None = None,
    pool_ids: dict[tuple[int, str], int] | None = None,
) -> list[CharacterSnapshot]:
    """The characters as the rules see them: fresh pools, and (one level deep) the characters each is bound to
    and bound by. Two queries however many characters there are (the links with the characters at their other
    ends, then every pool of them all): a fight builds its scene at every step.

    `loaded` receives every row read, by id: the session holds its rows only while someone else does, so a
    caller that wants the partners' rows too keeps them here rather than reading them again; `pool_ids` receives
    the id of every pool read, by character and name, for a caller that changes them next."""
    ids = [character.id for character in characters]
    if not ids:
        return []
    involved = {character.id: character for character in characters}
    links: list[tuple[int, int, str]] = []  # the bound character, the one it is bound to, the relation
    if with_links:
        every_end = {"ids": ids, "target_ids": ids, "bound_ids": ids}
        for bound, to, relation, end in await session.execute(_LINKS, every_end):
            links.append((bound, to, relation))
            involved.setdefault(end.id, end)
    pools: dict[int, dict[str, Pool]] = {character_id: {} for character_id in involved}
    for pool_id, character_id, name, current, maximum, minimum in await session.execute(
        _POOLS, {"ids": list(involved)}
    ):
        pools[character_id][name] = Pool(current, maximum, minimum)
        if pool_ids is not None:
            pool_ids[(character_id, name)] = pool_id
    if loaded is not None:
        loaded.update(involved)
    alone = {character_id: _snapshot(character, pools[character_id]) for character_id, character in involved.items()}
    if not with_links:
        return [alone[character_id] for character_id in ids]
    found = []
    for character_id in ids:
        bound_to: dict[str, tuple[CharacterSnapshot, ...]] = {}
        bound_by: dict[str, tuple[CharacterSnapshot, ...]] = {}
        for bound, to, relation in links:
            if bound == character_id:
                bound_to[relation] = (*bound_to.get(relation, ()), alone[to])
            if to == character_id:
                bound_by[relation] = (*bound_by.get(relation, ()), alone[bound])
        found.append(_snapshot(involved[character_id], pools[character_id], bound_to, bound_by))
    return found


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
