"""The campaign log: recent events and full exports, secret results hidden from those who may not see them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
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
        if self.redacted:
            return {"label": self.event.payload.get("label")}
        return self.event.payload


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

    async def export(self, place: Place, actor: Actor, campaign_id: int | None) -> CampaignLog:
        async with self.database.read() as session:
            if campaign_id is None:
                campaign = await latest_campaign(session, place)
            else:
                found = await session.get(Campaign, campaign_id)
                # Another channel's campaign: only its GMs, so a log never leaks into a channel that cannot see it.
                if found is None or found.guild_id != place.guild_id:
                    raise UserError("error.unknown_campaign")
                if found.channel_id != place.channel_id and not await is_gm(session, found.id, actor):
                    raise UserError("error.export_gm_only")
                campaign = found
            events = list(
                await session.scalars(select(Event).where(Event.campaign_id == campaign.id).order_by(Event.id))
            )
            return CampaignLog(campaign, await _entries(session, campaign, actor, events))
