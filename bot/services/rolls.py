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
from rules.dice import (
    DIALECTS,
    DiceDialect,
    DiceSource,
    RollResult,
    SuccessCount,
    Summary,
    TargetVerdict,
    dialect_for_language,
    parse,
    summaries,
)
from rules.exchange import Text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RollOutcome:
    result: RollResult
    campaign_id: int | None
    gm_ids: list[int]
    language: str | None = None  # the campaign's language for public messages (None: the server's)


def dice_dialect(chosen: str | None, language: str) -> DiceDialect:
    """How a table reads dice: as its GMs chose, else as the tables of its language do."""
    return next((dialect for dialect in DIALECTS if dialect == chosen), None) or dialect_for_language(language)


def summary_text(summary: Summary) -> Text:
    """What a roll's numbers mean, as the catalogs word it."""
    if isinstance(summary, SuccessCount):
        key = "dice.successes.one" if summary.counted == 1 else "dice.successes.other"
        return Text(key, {"count": summary.counted, "criteria": summary.criteria})
    if isinstance(summary, TargetVerdict):
        return Text("dice.target", {"target": summary.target, "verdict": verdict_text(summary.met)})
    return Text("dice.tally", {"target": summary.target, "met": summary.met, "rolls": summary.rolls})


def verdict_text(met: bool) -> Text:
    return Text("dice.verdict.success" if met else "dice.verdict.failure")


def roll_summary(result: RollResult) -> Text | None:
    """The roll's summaries in one text, for its line in the log."""
    texts = [summary_text(summary) for summary in summaries(result)]
    if not texts:
        return None
    return texts[0] if len(texts) == 1 else Text("dice.summaries", {"first": texts[0], "second": texts[1]})


class RollService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.journal = EventJournal(database)

    async def roll(
        self,
        place: Place,
        actor: Actor,
        expression: str,
        dice: DiceSource,
        *,
        label: str | None,
        secret: bool,
        reader_language: str,
        server_language: str,
    ) -> RollOutcome:
        """Roll as the channel's campaign reads dice; outside a campaign, as the roller's language does."""
        known = await campaign_at(self.database, place)
        campaign_id = known.campaign_id
        if campaign_id is None:
            dialect = dialect_for_language(reader_language)
        else:
            dialect = dice_dialect(known.dice_dialect, known.language or server_language)
        parsed = parse(expression, dialect=dialect)
        if secret and campaign_id is None:
            raise UserError("error.secret_needs_campaign")
        result = parsed.evaluate(dice)
        record = result.to_dict()
        log.info(
            "roll guild=%s channel=%s user=%s secret=%s %s",
            place.guild_id,
            place.channel_id,
            actor.user_id,
            secret,
            record,
        )
        if campaign_id is None:
            return RollOutcome(result, None, [])
        payload = {"expression": expression, "label": label, "total": result.total, "roll": record}
        summary = roll_summary(result)
        if summary is not None:
            payload["summary"] = summary.to_dict()
        await self.journal.append(NewEvent(campaign_id, "roll", actor.user_id, payload, self.clock(), secret))
        if not secret:
            return RollOutcome(result, campaign_id, [], known.language)
        async with self.database.read() as session:
            return RollOutcome(result, campaign_id, await gm_ids(session, campaign_id), known.language)
