"""The campaign log: recent events and full exports, secret results hidden from those who may not see them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import Campaign, Event
from bot.errors import UserError
from bot.services.common import Actor, Place, is_gm, latest_campaign


@dataclass(frozen=True)
class LogEntry:
    event: Event
    redacted: bool

    @property
    def payload(self) -> dict[str, Any]:
        if self.redacted:  # what the event is about, not what it hides
            return {key: self.event.payload.get(key) for key in ("label", "name", "subject", "title")}
        return self.event.payload


# id, created_at, kind, actor_id, secret, payload (the stored JSON text)
ExportRow = tuple[int, datetime, str, int | None, bool, str]


@dataclass(frozen=True)
class Exportable:
    """A campaign whose log is being exported, for whom, and whether they see its secret results."""

    campaign: Campaign
    actor_id: int
    sees_secrets: bool
    user_names: Mapping[int, str] = field(default_factory=dict)  # who each actor id is, as the server names them


@dataclass(frozen=True)
class CampaignLog:
    campaign: Campaign
    entries: list[LogEntry]


async def _entries(session: AsyncSession, campaign: Campaign, actor: Actor, events: list[Event]) -> list[LogEntry]:
    # Secret results stay between the roller and the GMs until the campaign ends.
    sees_secrets = not campaign.is_active or await is_gm(session, campaign.id, actor)
    return [
        LogEntry(event, redacted=event.secret and not sees_secrets and event.actor_id != actor.user_id)
        for event in events
    ]


class LogService:
    def __init__(self, database: Database) -> None:
        self.database = database

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
                        .where(table.c.campaign_id == exportable.campaign.id, table.c.id > last_id)
                        .order_by(table.c.id)
                        .limit(page_size)
                    )
                ).all()
            if not found:
                return
            last_id = found[-1][0]
            yield [tuple(row) for row in found]
