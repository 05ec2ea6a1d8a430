"""/roll: dice rolled, shown and logged in the channel's campaign."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import CAMPAIGN_ACTIVE, Campaign
from bot.errors import UserError
from bot.services.common import Actor, Clock, Place, gm_ids, record_event
from rules.dice import DiceSource, RollResult, parse

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollOutcome:
    result: RollResult
    campaign: Campaign | None
    gm_ids: list[int]


class RollService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def roll(
        self, place: Place, actor: Actor, expression: str, dice: DiceSource, *, label: str | None, secret: bool
    ) -> RollOutcome:
        parsed = parse(expression)
        async with self.database.write() as session:
            campaign = await session.scalar(
                select(Campaign).where(
                    Campaign.guild_id == place.guild_id,
                    Campaign.channel_id == place.channel_id,
                    Campaign.status == CAMPAIGN_ACTIVE,
                )
            )
            if secret and campaign is None:
                raise UserError("error.secret_needs_campaign")
            result = parsed.evaluate(dice)
            log.info(
                "roll guild=%s channel=%s user=%s secret=%s %s",
                place.guild_id,
                place.channel_id,
                actor.user_id,
                secret,
                result.to_dict(),
            )
            if campaign is None:
                return RollOutcome(result, None, [])
            record_event(
                session,
                campaign.id,
                "roll",
                actor_id=actor.user_id,
                payload={"expression": expression, "label": label, "total": result.total, "roll": result.to_dict()},
                created_at=self.clock(),
                secret=secret,
            )
            return RollOutcome(result, campaign, await gm_ids(session, campaign.id) if secret else [])
