"""Campaigns: one active per channel, their GMs and their options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from cachetools import TTLCache
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from bot.db.atomic import lock_campaign
from bot.db.engine import Database
from bot.db.models import CAMPAIGN_ENDED, ROLE_GM, ROLE_PLAYER, Campaign, Membership
from bot.errors import UserError
from bot.options import AcceptedWords, OptionWords, ValueWords, option_text
from bot.rulesets.base import Ruleset
from bot.services.common import Actor, Clock, Place, active_campaign, gm_ids, is_gm, record_event, require_gm
from rules.exchange import UserRef
from rules.options import CampaignOptions, OptionError, with_option
from rules.text import unseen_character


@dataclass(frozen=True)
class CampaignSummary:
    campaign: Campaign
    gm_ids: list[int]
    player_count: int
    changed_options: dict[str, Any]


@dataclass(frozen=True)
class OptionChange:
    campaign: Campaign
    option: str
    old: Any
    new: Any


# The event of a GM's change of an option.
OPTION_SET = "campaign.option_set"
# The event of a GM's change of the language of public messages.
LANGUAGE_SET = "campaign.language"


def campaign_options(rulesets: Mapping[str, Ruleset], campaign: Campaign) -> CampaignOptions:
    return rulesets[campaign.ruleset].options_model.model_validate(campaign.options)


# How long the check before a GM's command remembers that a user is a GM of a campaign. Only a confirmation is
# remembered, so a GM named a moment ago is never refused; one removed meanwhile passes this first check and is
# refused by the command's own, inside its transaction.
GM_CONFIRMED_SECONDS: Final = 60.0
GMS_CONFIRMED: Final = 10_000


class CampaignService:
    def __init__(self, database: Database, clock: Clock, rulesets: Mapping[str, Ruleset]) -> None:
        self.database = database
        self.clock = clock
        self.rulesets = rulesets
        self._gms_confirmed: TTLCache[tuple[int, int], bool] = TTLCache(GMS_CONFIRMED, GM_CONFIRMED_SECONDS)

    async def start(self, place: Place, actor: Actor, ruleset: str, name: str, language: str | None = None) -> Campaign:
        """A campaign in the channel, its starter its GM; `language` that of its public messages (None: the
        server's)."""
        if ruleset not in self.rulesets:
            raise UserError("error.unknown_ruleset", ruleset=ruleset)
        if (code := unseen_character(name)) is not None:
            raise UserError("error.name_characters", code=code)
        try:
            async with self.database.write() as session:
                now = self.clock()
                campaign = Campaign(
                    guild_id=place.guild_id,
                    channel_id=place.channel_id,
                    name=name,
                    ruleset=ruleset,
                    options={},
                    language=language,
                    created_at=now,
                )
                session.add(campaign)
                await session.flush()
                session.add(Membership(campaign_id=campaign.id, user_id=actor.user_id, role=ROLE_GM, joined_at=now))
                record_event(
                    session,
                    campaign.id,
                    "campaign.started",
                    actor_id=actor.user_id,
                    payload={"name": name, "ruleset": ruleset, **({"language": language} if language else {})},
                    created_at=now,
                )
        except IntegrityError as error:
            raise UserError("error.campaign_exists") from error
        finally:
            await self.database.forget_channel(place.guild_id, place.channel_id)
        return campaign

    async def summary(self, place: Place) -> CampaignSummary:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            players = await session.scalar(
                select(func.count())
                .select_from(Membership)
                .where(Membership.campaign_id == campaign.id, Membership.role == ROLE_PLAYER)
            )
            return CampaignSummary(campaign, await gm_ids(session, campaign.id), players or 0, dict(campaign.options))

    async def active(self, place: Place) -> Campaign:
        async with self.database.read() as session:
            return await active_campaign(session, place)

    async def seen_by(self, place: Place, actor: Actor) -> tuple[Campaign, bool]:
        """The channel's campaign, and whether the actor is one of its GMs (whose tools they may use)."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            return campaign, await is_gm(session, campaign.id, actor)

    async def gm_campaign(self, place: Place, actor: Actor) -> Campaign:
        """The channel's campaign, for one of its GMs; anyone else is refused."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            await require_gm(session, campaign.id, actor)
            return campaign

    async def refuse_unless_gm(self, place: Place, actor: Actor) -> None:
        """What `gm_campaign` refuses, before a GM's command runs (its service checks again in its transaction):
        without a read when the channel's campaign is known and the actor manages the server or was confirmed
        as one of its GMs lately."""
        known = self.database.directory.get(place.guild_id, place.channel_id)
        campaign_id = known.campaign_id if known is not None else None
        if campaign_id is not None and (actor.manages_guild or (campaign_id, actor.user_id) in self._gms_confirmed):
            return
        campaign = await self.gm_campaign(place, actor)
        self._gms_confirmed[(campaign.id, actor.user_id)] = True

    async def end(self, guild_id: int, campaign_id: int, actor: Actor) -> Campaign:
        async with self.database.write() as session:
            campaign = await lock_campaign(session, campaign_id)
            if campaign is None or campaign.guild_id != guild_id:
                raise UserError("error.no_campaign")
            if not campaign.is_active:
                raise UserError("error.campaign_already_ended", name=campaign.name)
            await require_gm(session, campaign.id, actor)
            now = self.clock()
            campaign.status = CAMPAIGN_ENDED
            campaign.ended_at = now
            record_event(session, campaign.id, "campaign.ended", actor_id=actor.user_id, payload={}, created_at=now)
        await self.database.forget_channel(campaign.guild_id, campaign.channel_id)
        return campaign

    async def set_gm(self, place: Place, actor: Actor, user_id: int, *, remove: bool) -> Campaign:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            current_gms = await gm_ids(session, campaign.id)
            now = self.clock()
            if remove:
                if user_id not in current_gms:
                    raise UserError("error.not_a_gm", user=UserRef(user_id))
                if current_gms == [user_id]:
                    raise UserError("error.last_gm")
                # Demoted, not removed: a GM who also plays keeps their characters and active character.
                await session.execute(
                    update(Membership)
                    .where(Membership.campaign_id == campaign.id, Membership.user_id == user_id)
                    .values(role=ROLE_PLAYER)
                )
                kind = "campaign.gm_removed"
            else:
                if user_id in current_gms:
                    raise UserError("error.already_gm", user=UserRef(user_id))
                membership = await session.scalar(
                    select(Membership).where(Membership.campaign_id == campaign.id, Membership.user_id == user_id)
                )
                if membership is None:
                    session.add(Membership(campaign_id=campaign.id, user_id=user_id, role=ROLE_GM, joined_at=now))
                else:
                    membership.role = ROLE_GM
                kind = "campaign.gm_added"
            record_event(session, campaign.id, kind, actor_id=actor.user_id, payload={"user": user_id}, created_at=now)
            return campaign

    async def option_values(self, place: Place) -> tuple[Campaign, CampaignOptions]:
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            return campaign, campaign_options(self.rulesets, campaign)

    async def set_option(self, place: Place, actor: Actor, option: str, raw_value: str) -> OptionChange:
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            current = campaign_options(self.rulesets, campaign)
            model = type(current)
            try:
                updated = with_option(current, option, raw_value)
            except OptionError as error:
                # In the reader's words, the ruleset's catalog naming the option and what it takes.
                accepts = {"expected": AcceptedWords(model, error.option)} if error.option in model.model_fields else {}
                raise UserError(
                    f"error.option_{error.code}", option=OptionWords(error.option), value=raw_value, **accepts
                ).within(campaign.ruleset) from error
            old, new = getattr(current, option), getattr(updated, option)
            if old == new:
                raise UserError(
                    "error.option_unchanged", option=OptionWords(option), value=ValueWords(option, option_text(new))
                ).within(campaign.ruleset)
            # Replaced, never mutated in place, so the change is always written; defaults stay implicit.
            campaign.options = updated.model_dump(mode="json", exclude_defaults=True)
            record_event(
                session,
                campaign.id,
                OPTION_SET,
                actor_id=actor.user_id,
                payload={"option": option, "old": old, "new": new},
                created_at=self.clock(),
            )
        # The directory remembers the dice dialect for /roll, which skips loading the campaign.
        await self.database.forget_channel(campaign.guild_id, campaign.channel_id)
        return OptionChange(campaign, option, old, new)

    async def set_language(self, place: Place, actor: Actor, language: str | None) -> tuple[Campaign, str | None]:
        """The language of the campaign's public messages (None: the server's); returns the campaign and the old
        one. Private replies stay in each reader's own language."""
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            old = campaign.language
            if old == language:
                raise UserError("error.language_unchanged")
            campaign.language = language
            record_event(
                session,
                campaign.id,
                LANGUAGE_SET,
                actor_id=actor.user_id,
                payload={"old": old, "new": language},
                created_at=self.clock(),
            )
        # The directory remembers each channel's language for the commands that skip loading the campaign.
        await self.database.forget_channel(campaign.guild_id, campaign.channel_id)
        return campaign, old

    async def in_guild(self, guild_id: int) -> list[Campaign]:
        async with self.database.read() as session:
            result = await session.scalars(
                select(Campaign).where(Campaign.guild_id == guild_id).order_by(Campaign.id.desc())
            )
            return list(result)
