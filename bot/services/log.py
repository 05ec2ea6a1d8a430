"""The campaign log: recent events and full exports, secret results hidden from those who may not see them."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Text, cast, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Character, Event, ExchangeRole
from bot.errors import UserError
from bot.services.common import Actor, Place, is_gm, latest_campaign, payload_as_read
from rules.exchange import member


@dataclass(frozen=True)
class LogEntry:
    event: Event
    redacted: bool
    sees_sheets: bool = True  # whether its reader reads what it tells of a sheet the GMs hide

    @property
    def payload(self) -> dict[str, Any]:
        if self.redacted:  # what the event is about, not what it hides
            return {key: self.event.payload.get(key) for key in ("label", "name", "subject", "title")}
        return payload_as_read(self.event.payload, self.sees_sheets)


# id, created_at, kind, actor_id, secret, payload (the stored JSON text)
ExportRow = tuple[int, datetime, str, int | None, bool, str]


@dataclass(frozen=True)
class Exportable:
    """A campaign whose log is being exported, for whom, and whether they see its secret results."""

    campaign: Campaign
    actor_id: int
    sees_secrets: bool
    user_names: Mapping[int, str] = field(default_factory=dict)  # who each actor id is, as the server names them
    since: datetime | None = None  # only the events from this moment on
    until: datetime | None = None  # only the events up to this moment


@dataclass(frozen=True)
class CampaignLog:
    campaign: Campaign
    entries: list[LogEntry]


async def _sees_secrets(session: AsyncSession, campaign: Campaign, actor: Actor) -> bool:
    # Secret results stay between the roller and the GMs until the campaign ends.
    return not campaign.is_active or await is_gm(session, campaign.id, actor)


async def _entries(session: AsyncSession, campaign: Campaign, actor: Actor, events: list[Event]) -> list[LogEntry]:
    sees_secrets = await _sees_secrets(session, campaign, actor)
    entries = []
    for event in events:
        own = event.actor_id == actor.user_id
        entries.append(
            LogEntry(event, redacted=event.secret and not sees_secrets and not own, sees_sheets=sees_secrets or own)
        )
    return entries


RELATIVE = re.compile(r"(?:(\d{1,3})\s*d)?\s*(?:(\d{1,4})\s*h)?\s*(?:(\d{1,5})\s*m)?", re.IGNORECASE)
DATE_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d")


def typed_span(typed: str) -> timedelta | None:
    """A span of time typed as days, hours and minutes (`2d`, `12h`, `1d6h`, `90m`); None for any other text."""
    relative = RELATIVE.fullmatch(typed.strip())
    if relative is None or not any(relative.groups()):
        return None
    days, hours, minutes = (int(group or 0) for group in relative.groups())
    return timedelta(days=days, hours=hours, minutes=minutes)


def since_moment(typed: str, now: datetime, time_zone: str, error: str = "error.recap_since") -> datetime:
    """The moment a recap starts from: a span back from now (`2d`, `12h`, `1d6h`, `90m`), or a date with an
    optional time (`2026-12-01`, `2026-12-01 18:30`) in the reader's time zone; never in the future. Text that is
    none of these is refused with `error`."""
    text = typed.strip()
    span = typed_span(text)
    if span is not None:
        return now - span
    for layout in DATE_FORMATS:
        try:
            local = datetime.strptime(text, layout)
        except ValueError:
            continue
        return min(local.replace(tzinfo=ZoneInfo(time_zone)).astimezone(UTC), now)
    raise UserError(error, typed=text[:40])


# A recap reads at most this many of the newest events since its start (it counts them all).
RECAP_SCAN = 5000


@dataclass(frozen=True)
class Fall:
    """A character put out of play ("dead", "down"...), as its event names it."""

    name: str
    fate: str


@dataclass(frozen=True)
class Recap:
    """What happened in a campaign since a moment, as one reader may see it."""

    campaign: Campaign
    since: datetime
    events: int
    rolls: int  # every die roll the events carry: /roll's, and those of the steps of exchanges
    # The net change of each pool of every character whose pools the reader may see, by character name.
    changes: dict[str, dict[str, int]]
    falls: list[Fall]
    latest: list[LogEntry]


def _rolls(entry: LogEntry) -> int:
    if entry.event.kind == "roll":
        return 1
    rolls = entry.payload.get("rolls")
    return len(rolls) if isinstance(rolls, list) else 0


def _fall(entry: LogEntry) -> Fall | None:
    fate, name = entry.payload.get("fate"), entry.payload.get("name")
    if isinstance(fate, str) and isinstance(name, str) and entry.event.kind == f"character.{fate}":
        return Fall(name, fate)
    return None


async def _roles(session: AsyncSession, exchange_ids: set[int]) -> dict[int, dict[str, int]]:
    """Each exchange's characters by the role (and position) its steps name them by."""
    roles: dict[int, dict[str, int]] = {}
    rows = await session.execute(
        select(ExchangeRole.exchange_id, ExchangeRole.role, ExchangeRole.position, ExchangeRole.character_id).where(
            ExchangeRole.exchange_id.in_(exchange_ids)
        )
    )
    for exchange_id, role, position, character_id in rows:
        if character_id is not None:
            roles.setdefault(exchange_id, {})[member(role, position)] = character_id
    return roles


def _exported(exportable: Exportable) -> list[Any]:
    """Which events an export holds: its campaign's, within its moments if it names them."""
    table = Event.__table__
    conditions: list[Any] = [table.c.campaign_id == exportable.campaign.id]
    if exportable.since is not None:
        conditions.append(table.c.created_at >= exportable.since)
    if exportable.until is not None:
        conditions.append(table.c.created_at <= exportable.until)
    return conditions


class LogService:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def recap(self, place: Place, actor: Actor, since: datetime | None, latest: int) -> Recap:
        """The campaign since `since`, or since the actor's own last event in it (their last roll, post or
        answer): how many events and rolls, what changed on the pools of every character the actor may see (their
        own, and those the GMs do not hide from them), who fell, and the latest events. Readers who may see the
        same things read the same recap, whoever of them acted."""
        async with self.database.read() as session:
            campaign = await latest_campaign(session, place)
            after = [Event.campaign_id == campaign.id]
            if since is None:
                last = (
                    await session.execute(
                        select(Event.id, Event.created_at)
                        .where(Event.campaign_id == campaign.id, Event.actor_id == actor.user_id)
                        .order_by(Event.id.desc())
                        .limit(1)
                    )
                ).first()
                # After that event rather than its moment: the events of the same step share it.
                after.append(Event.id > last.id if last is not None else Event.created_at > campaign.created_at)
                since = last.created_at if last is not None else campaign.created_at
            else:
                after.append(Event.created_at > since)
            count = await session.scalar(select(func.count()).select_from(Event).where(*after)) or 0
            newest = list(
                await session.scalars(select(Event).where(*after).order_by(Event.id.desc()).limit(RECAP_SCAN))
            )
            newest.reverse()
            seen = [entry for entry in await _entries(session, campaign, actor, newest) if not entry.redacted]
            sees_secrets = await _sees_secrets(session, campaign, actor)
            characters = await session.execute(
                select(Character.id, Character.name, Character.owner_id, Character.gm_run).where(
                    Character.campaign_id == campaign.id
                )
            )
            names: dict[int, str] = {}
            mine: set[str] = set()
            for row in characters:
                names[row.id] = row.name
                if row.owner_id == actor.user_id and not row.gm_run:
                    mine.add(row.name)
            # Events logged before each change named its character: found by the exchange's cast.
            roles = await _roles(session, {int(e.payload["exchange"]) for e in seen if "exchange" in e.payload})
        changes: dict[str, dict[str, int]] = {}

        def changed(name: str, pool: str, net: int) -> None:
            pools = changes.setdefault(name, {})
            pools[pool] = pools.get(pool, 0) + net

        for entry in seen:
            payload = entry.payload
            if entry.event.kind == "gm.award" and isinstance(payload.get("name"), str):
                changed(payload["name"], str(payload["resource"]), int(payload.get("applied", 0)))
            for effect in payload.get("effects", ()):
                if effect.get("type") != "pool_delta":
                    continue
                name = effect.get("name")
                if name is None:
                    who = roles.get(int(payload.get("exchange", 0)), {}).get(effect.get("who", ""))
                    name = names.get(who) if who is not None else None
                if name is None or (effect.get("sheet_hidden") and not sees_secrets and name not in mine):
                    continue
                changed(name, effect["pool"], int(effect.get("applied", effect["delta"])))
        nets = {name: {pool: net for pool, net in pools.items() if net} for name, pools in changes.items()}
        return Recap(
            campaign,
            since,
            count,
            sum(_rolls(entry) for entry in seen),
            {name: pools for name, pools in nets.items() if pools},
            [fall for fall in map(_fall, seen) if fall is not None],
            seen[-latest:] if latest else [],
        )

    async def page(self, place: Place, actor: Actor, number: int, size: int) -> tuple[CampaignLog, int]:
        """Page `number` of the log, newest first (each page oldest to newest), and how many pages there are."""
        async with self.database.read() as session:
            campaign = await latest_campaign(session, place)
            total = await session.scalar(
                select(func.count()).select_from(Event).where(Event.campaign_id == campaign.id)
            )
            count = max(1, -(-(total or 0) // size))
            number = max(0, min(number, count - 1))
            events = list(
                await session.scalars(
                    select(Event)
                    .where(Event.campaign_id == campaign.id)
                    .order_by(Event.id.desc())
                    .offset(number * size)
                    .limit(size)
                )
            )
            events.reverse()
            return CampaignLog(campaign, await _entries(session, campaign, actor, events)), count

    async def exportable(self, place: Place, actor: Actor, campaign_id: int | None) -> Exportable:
        """The campaign whose whole log the actor may export: this channel's, or another of the server's for its
        GMs, so a log never leaks into a channel that cannot see it."""
        async with self.database.read() as session:
            if campaign_id is None:
                campaign = await latest_campaign(session, place)
            else:
                found = await session.get(Campaign, campaign_id)
                if found is None or found.guild_id != place.guild_id:
                    raise UserError("error.unknown_campaign")
                if found.channel_id != place.channel_id and not await is_gm(session, found.id, actor):
                    raise UserError("error.export_gm_only")
                campaign = found
            sees_secrets = not campaign.is_active or await is_gm(session, campaign.id, actor)
            return Exportable(campaign, actor.user_id, sees_secrets)

    async def actor_ids(self, exportable: Exportable, limit: int) -> list[int]:
        """The users who acted in the campaign (at most `limit`), so an export can name them."""
        table = Event.__table__
        async with self.database.read() as session:
            found = await session.scalars(
                select(table.c.actor_id)
                .where(table.c.campaign_id == exportable.campaign.id, table.c.actor_id.is_not(None))
                .distinct()
                .limit(limit)
            )
            return [int(actor_id) for actor_id in found]

    async def span(self, exportable: Exportable) -> tuple[datetime, datetime] | None:
        """The moments of the export's first and last events; None when it has none."""
        table = Event.__table__
        async with self.database.read() as session:
            first, last = (
                await session.execute(
                    select(func.min(table.c.created_at), func.max(table.c.created_at)).where(*_exported(exportable))
                )
            ).one()
        return None if first is None else (first, last)

    async def rows(self, exportable: Exportable, page_size: int) -> AsyncIterator[list[ExportRow]]:
        """The whole log in pages of plain rows, oldest first, each page read in a short transaction of its own
        with Core (an export of a long log must not build an object per event): memory holds one page, and no
        transaction stays open while the file is written."""
        table = Event.__table__
        # The payload as JSON text cast by the database: decoding it only to encode it again is most of an
        # export's time (and PostgreSQL's driver would hand back decoded objects).
        payload = cast(table.c.payload, Text).label("payload")
        columns = (table.c.id, table.c.created_at, table.c.kind, table.c.actor_id, table.c.secret, payload)
        last_id = 0
        while True:
            async with self.database.read() as session:
                found = (
                    await session.execute(
                        select(*columns)
                        .where(*_exported(exportable), table.c.id > last_id)
                        .order_by(table.c.id)
                        .limit(page_size)
                    )
                ).all()
            if not found:
                return
            last_id = found[-1][0]
            yield [tuple(row) for row in found]
