"""/roll: dice rolled, shown and logged in the channel's campaign.

The hottest command, so it does no more than it must: the campaign comes from the directory, and the event
is the only write, appended through the journal (one transaction for all the rolls that arrive together).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.db.engine import Database
from bot.db.journal import EventJournal, NewEvent
from bot.errors import UserError
from bot.services.common import Actor, Clock, Place, campaign_at, gm_ids
from rules.dice import DiceSource, RollResult, parse

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollOutcome:
    result: RollResult
    campaign_id: int | None
    gm_ids: list[int]
    language: str | None = None  # the campaign's language for public messages (None: the server's)


class RollService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.journal = EventJournal(database)

    async def roll(
        self, place: Place, actor: Actor, expression: str, dice: DiceSource, *, label: str | None, secret: bool
    ) -> RollOutcome:
        parsed = parse(expression)
        known = await campaign_at(self.database, place)
        campaign_id = known.campaign_id
        if secret and campaign_id is None:
            raise UserError("error.secret_needs_campaign")
        result = parsed.evaluate(dice)
        record = result.to_dict()
        log.info(
            "roll guild=%s channel=%s user=%s secret=%s %s", place.guild_id, place.channel_id, actor.user_id, secret,
            record,
        )  # fmt: skip
        if campaign_id is None:
            return RollOutcome(result, None, [])
        payload = {"expression": expression, "label": label, "total": result.total, "roll": record}
        await self.journal.append(NewEvent(campaign_id, "roll", actor.user_id, payload, self.clock(), secret))
        if not secret:
            return RollOutcome(result, campaign_id, [], known.language)
        async with self.database.read() as session:
            return RollOutcome(result, campaign_id, await gm_ids(session, campaign_id), known.language)
