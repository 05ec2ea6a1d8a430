"""What every service needs: who acts, where, and the campaign's log."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Integer, bindparam, literal, select, true
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from bot.db.atomic import lock_campaign, lock_holds_joined_rows
from bot.db.directory import CampaignDirectory, Known
from bot.db.engine import DIRECTORY_KEY, Database
from bot.db.held_events import hold
from bot.db.models import CAMPAIGN_ACTIVE, ROLE_GM, Campaign, Character, Membership
from bot.errors import UserError
from bot.shards import Shards
from rules.dice import DiceSource

T = TypeVar("T")

# The shared campaign option the directory remembers with each channel's campaign: /roll reads it there.
DICE_DIALECT = "dice_dialect"

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Actor:
    """The user behind a command. Server managers may always act as a GM, so a campaign never gets stuck."""

    user_id: int
    manages_guild: bool = False


@dataclass(frozen=True)
class Place:
    """Where a command was used: threads count as their parent channel."""

    guild_id: int
    channel_id: int


@dataclass(frozen=True)
class Call:
    """One command as a service sees it: where, by whom, with which dice, and the channel its replies go to
    (a thread's own id, where `place` names its parent's campaign)."""

    place: Place
    actor: Actor
    dice: DiceSource
    channel_id: int


def on_shards(guild_id: InstrumentedAttribute[int], shards: Shards) -> ColumnElement[bool]:
    """Rows of the guilds on `shards`, in SQL (the same formula as `shard_of`, which both databases can run)."""
    if shards.count == 1:
        return true()
    # PostgreSQL shifts a bigint by an integer only.
    return (guild_id.op(">>")(literal(22, Integer)) % shards.count).in_(sorted(shards.ids))


async def channel_campaign(session: AsyncSession, place: Place) -> Known:
    """The channel's active campaign (its id and language), from the database's directory when it knows."""
    directory: CampaignDirectory | None = session.info.get(DIRECTORY_KEY)
    known = directory.get(place.guild_id, place.channel_id) if directory is not None else None
    if known is not None:
        return known
    generation = directory.generation if directory is not None else 0
    found = (
        await session.execute(
            select(Campaign.id, Campaign.language, Campaign.options).where(
                Campaign.guild_id == place.guild_id,
                Campaign.channel_id == place.channel_id,
                Campaign.status == CAMPAIGN_ACTIVE,
            )
        )
    ).first()
    known = Known(found[0], found[1], found[2].get(DICE_DIALECT)) if found is not None else Known(None)
    if directory is not None:
        directory.remember(
            place.guild_id, place.channel_id, known.campaign_id, generation, known.language, known.dice_dialect
        )
    return known


async def campaign_at(database: Database, place: Place) -> Known:
    """`channel_campaign` for a command that may need no transaction at all when the directory knows."""
    known = database.directory.get(place.guild_id, place.channel_id)
    if known is not None:
        return known
    async with database.read() as session:
        return await channel_campaign(session, place)


# Where a transaction keeps the active character it read with the campaign (`active_campaign` given the member),
# by campaign and user (None: the member has none): `active_character` finds it there.
ACTIVE_READ = "active_read"


# The campaign with the member's role and active character. Never locking: where the lock would not hold what it
# joins (`lock_holds_joined_rows`), the campaign is locked by `lock_campaign` and the member read after.
_CAMPAIGN_AND_MEMBER = (
    select(Campaign, Character, Membership.role)
    .outerjoin(Membership, (Membership.campaign_id == Campaign.id) & (Membership.user_id == bindparam("user_id")))
    .outerjoin(Character, Character.id == Membership.active_character_id)
    .where(Campaign.id == bindparam("campaign_id"))
    .execution_options(populate_existing=True)
)
_MEMBER = (
    select(Character, Membership.role)
    .select_from(Membership)
    .outerjoin(Character, Character.id == Membership.active_character_id)
    .where(Membership.campaign_id == bindparam("campaign_id"), Membership.user_id == bindparam("user_id"))
    .execution_options(populate_existing=True)
)


async def _campaign_with_member(
    session: AsyncSession, campaign_id: int, user_id: int, *, lock: bool
) -> Campaign | None:
    """The campaign (locked, with `lock`) and the member's role and active character, kept for `is_gm` and
    `active_character` in this transaction: in the same statement where that reads them as they stand once the
    campaign is locked (`lock_holds_joined_rows`), else in a second one after the lock."""
    parameters = {"campaign_id": campaign_id, "user_id": user_id}
    if lock and not lock_holds_joined_rows(session):
        campaign = await lock_campaign(session, campaign_id)
        if campaign is None:
            return None
        character, role = (await session.execute(_MEMBER, parameters)).first() or (None, None)
    else:
        found = (await session.execute(_CAMPAIGN_AND_MEMBER, parameters)).first()
        if found is None:
            return None
        campaign, character, role = found
    role_read(session, campaign_id, user_id, role)
    session.info.setdefault(ACTIVE_READ, {})[(campaign_id, user_id)] = character
    return campaign


async def active_campaign(
    session: AsyncSession, place: Place, *, lock: bool = False, member: Actor | None = None
) -> Campaign:
    """The channel's active campaign (locked for the transaction with `lock`); with `member`, that user's role
    and active character too (in the same statement, or just after the lock: `_campaign_with_member`)."""
    directory: CampaignDirectory | None = session.info.get(DIRECTORY_KEY)
    for first_try in (True, False):
        campaign_id = (await channel_campaign(session, place)).campaign_id
        if campaign_id is None:
            break
        if member is not None:
            campaign = await _campaign_with_member(session, campaign_id, member.user_id, lock=lock)
        elif lock:
            campaign = await lock_campaign(session, campaign_id)
        else:
            campaign = await session.get(Campaign, campaign_id)
        if campaign is not None and campaign.is_active:
            return campaign
        if not first_try or directory is None:
            break
        # Ended by a writer this process did not see, or while this command waited for the lock: the channel
        # may have a new campaign already, so the database is asked once more.
        directory.forget(place.guild_id, place.channel_id)
    raise UserError("error.no_campaign")


async def latest_campaign(session: AsyncSession, place: Place) -> Campaign:
    """The channel's active campaign, or else the one that ended last: its log stays readable."""
    campaign = await session.scalar(
        select(Campaign)
        .where(Campaign.guild_id == place.guild_id, Campaign.channel_id == place.channel_id)
        .order_by((Campaign.status == CAMPAIGN_ACTIVE).desc(), Campaign.id.desc())
        .limit(1)
    )
    if campaign is None:
        raise UserError("error.no_campaign")
    return campaign


async def gm_ids(session: AsyncSession, campaign_id: int) -> list[int]:
    result = await session.scalars(
        select(Membership.user_id)
        .where(Membership.campaign_id == campaign_id, Membership.role == ROLE_GM)
        .order_by(Membership.id)
    )
    return list(result)


# Where a transaction keeps the campaign roles it has read (`session.info`), by campaign and user: a command that
# found its actor's character (`active_character`) asks the actor's role next, and the row was in the same read.
ROLES_READ = "roles_read"
NO_ROLE = ""


def role_read(session: AsyncSession, campaign_id: int, user_id: int, role: str | None) -> None:
    """Note a membership's role read in this transaction, or (None) that the user is no member (roles change only
    in transactions that read none)."""
    session.info.setdefault(ROLES_READ, {})[(campaign_id, user_id)] = role or NO_ROLE


_ROLE = select(Membership.role).where(
    Membership.campaign_id == bindparam("campaign_id"), Membership.user_id == bindparam("user_id")
)


async def is_gm(session: AsyncSession, campaign_id: int, actor: Actor) -> bool:
    if actor.manages_guild:
        return True
    role: str | None = session.info.get(ROLES_READ, {}).get((campaign_id, actor.user_id))
    if role is None:
        role = await session.scalar(_ROLE, {"campaign_id": campaign_id, "user_id": actor.user_id})
    return role == ROLE_GM


async def require_gm(session: AsyncSession, campaign_id: int, actor: Actor) -> None:
    if not await is_gm(session, campaign_id, actor):
        raise UserError("error.gm_only")


# The part of an event's payload only the GMs and the event's actor read: what it tells of a sheet the GMs hide
# (its rolls' terms by name, an attack's cost). The rest of the payload is what everyone else reads.
SHEET_SECRETS = "sheet_secrets"


def payload_as_read(payload: dict[str, Any], sees_sheets: bool) -> dict[str, Any]:
    """An event's payload as one reader reads it: with its sheet secrets in place, or without them."""
    kept = payload.get(SHEET_SECRETS)
    if kept is None:
        return payload
    shown = {key: value for key, value in payload.items() if key != SHEET_SECRETS}
    return {**shown, **kept} if sees_sheets else shown


def record_event(
    session: AsyncSession,
    campaign_id: int,
    kind: str,
    *,
    actor_id: int | None,
    payload: dict[str, Any],
    created_at: datetime,
    secret: bool = False,
) -> None:
    """An event in the campaign's log, inserted with the transaction's others when it commits (`held_events`)."""
    row = {
        "campaign_id": campaign_id,
        "kind": kind,
        "actor_id": actor_id,
        "payload": payload,
        "secret": secret,
        "created_at": created_at,
    }
    hold(session.sync_session, row)


def readable(what: str, read: Callable[[], T]) -> T | None:
    """What `read` makes of data stored by rules that may have changed since (a wait's question), or None where it
    no longer reads: logged, so that one such row keeps no list, reminder or digest from the others."""
    try:
        return read()
    except Exception:
        log.exception("%s can no longer be read", what)
        return None
