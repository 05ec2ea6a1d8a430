"""Whose move it is, and reminding them: the open waits of a campaign or of a player, a campaign's reminder delay,
users' reminder settings, and the notices (reminders, the GMs' daily digest) claimed once and sent.

A notice is claimed in the database by a unique key before it is sent, so that however many times the claim is
tried (a restart, another process) one row holds it; it keeps a nonce that goes with its message, so that
Discord keeps one copy when a restart sends a claimed notice again. A direct message Discord refuses (the user's
DMs are closed) is replaced, in the transaction that ends it, by a notice of its own to ping the user in the
campaign's channel, claimed and sent the same way.

A GM's digest covers every campaign they run, on every shard: its key names the GM and the day, not a campaign,
so whichever process claims it first sends it (a direct message needs no shard), with what the database says of
all their campaigns.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlalchemy import ColumnElement, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import (
    CAMPAIGN_ACTIVE,
    PENDING,
    REMIND_DM,
    REMIND_OFF,
    REMIND_PING,
    ROLE_GM,
    Campaign,
    Exchange,
    Membership,
    Notice,
    UserSettings,
    WaitRow,
)
from bot.errors import UserError
from bot.services.common import (
    Actor,
    Clock,
    Place,
    active_campaign,
    is_gm,
    on_shards,
    readable,
    record_event,
    require_gm,
)
from bot.shards import EVERY_GUILD, Shards
from rules.exchange import Text, Wait

REMIND_CHOICES = (REMIND_PING, REMIND_DM, REMIND_OFF)
LONGEST_DELAY_HOURS = 24 * 7
# A GM's digest names waits stuck for at least this long when the campaign sends no reminders.
DIGEST_STUCK_HOURS = 24
# The least time a wait is open before a notice of it falls due: the shortest reminder delay a GM can set, a whole
# hour (the digest waits longer). The look for due notices reads only waits at least this old, so the waits opened
# within the hour, however many campaigns there are, cost it nothing.
NOTICE_AFTER_AT_LEAST = timedelta(hours=1)
# Notices claimed but not yet sent, older than this, are given up: Discord keeps a nonce only for minutes.
RESEND_WITHIN = timedelta(minutes=5)
# The key of a notice that pings in the channel for a direct message refused: this, then the refused one's id.
IN_CHANNEL = "in-channel:"
# The title a wait whose stored question no longer reads is listed under.
UNREADABLE = Text("wait.unreadable")


@dataclass(frozen=True)
class OpenWait:
    """A wait still open, as a list of whose move it is shows it."""

    ruleset: str
    campaign_id: int
    campaign_name: str
    guild_id: int
    channel_id: int
    wait_id: int
    title: Text
    subject: str | None
    audience_ids: tuple[int, ...]
    to_gms: bool
    open_to_players: bool
    created_at: datetime
    message_id: int | None
    # The error id of its latest failure, once the deadlines gave up on it and left it to the GMs.
    given_up_error: str | None = None
    # Whom it waits for in its ruleset's words, where its audience would not tell (`Wait.waiting_for`).
    waiting_for: Text | None = None
    # An offer nothing waits on (`Wait.optional`): never reminded of, never stuck.
    optional: bool = False

    @property
    def link(self) -> str | None:
        if self.message_id is None:
            return None
        return f"https://discord.com/channels/{self.guild_id}/{self.channel_id}/{self.message_id}"


@dataclass(frozen=True)
class Settings:
    remind_by: str
    time_zone: str
    quiet_from: int | None
    quiet_to: int | None

    def quiet_at(self, moment: datetime) -> bool:
        """Whether the moment falls in the user's quiet hours, in their time zone (which may wrap midnight)."""
        if self.quiet_from is None or self.quiet_to is None or self.quiet_from == self.quiet_to:
            return False
        hour = moment.astimezone(ZoneInfo(self.time_zone)).hour
        if self.quiet_from < self.quiet_to:
            return self.quiet_from <= hour < self.quiet_to
        return hour >= self.quiet_from or hour < self.quiet_to

    def day_of(self, moment: datetime) -> int:
        """The user's calendar day at the moment, in their time zone (what "once a day" counts for them)."""
        return moment.astimezone(ZoneInfo(self.time_zone)).date().toordinal()


DEFAULT_SETTINGS = Settings(REMIND_PING, "UTC", None, None)


@dataclass(frozen=True)
class Stuck:
    """One campaign's part of a GM's digest: its waits open for longer than `after`."""

    campaign_id: int
    campaign_name: str
    after: timedelta
    waits: tuple[OpenWait, ...]


@dataclass(frozen=True)
class Due:
    """A notice claimed and not yet sent: a reminder of one wait to one user, or a GM's digest of every campaign
    they run; by DM or by a ping in `channel_id` (the wait's, or for a digest the campaign's it was claimed in)."""

    notice_id: int
    nonce: int
    user_id: int
    by: str
    locale: str | None
    guild_id: int
    channel_id: int
    campaign_language: str | None
    wait: OpenWait | None  # a reminder's; None for a digest
    stuck: tuple[Stuck, ...]  # a digest's, campaign by campaign
    instead_of_dm: bool  # a ping for a direct message Discord refused

    @property
    def kind(self) -> str:
        """What it is, in the words of the log."""
        return "reminder" if self.wait is not None else "digest"

    @property
    def campaign_ids(self) -> tuple[int, ...]:
        if self.wait is not None:
            return (self.wait.campaign_id,)
        return tuple(part.campaign_id for part in self.stuck)


def _open_wait(campaign: Campaign, wait: WaitRow, stored_title: dict[str, Any]) -> OpenWait:
    """The wait as a list shows it; one whose question or title no longer reads, as one for the GMs (only they can
    end it) under a title that says so: listed, never reminded of, and in the GMs' digest."""
    read = readable(
        f"wait {wait.id} of campaign {campaign.id}",
        lambda: (Wait.from_dict(wait.spec), Text.from_dict(stored_title), tuple(wait.audience_ids)),
    )
    spec, title, audience_ids = read if read is not None else (None, UNREADABLE, ())
    kind = spec.audience.kind if spec is not None else "gms"
    return OpenWait(
        campaign.ruleset,
        campaign.id,
        campaign.name,
        campaign.guild_id,
        wait.channel_id,
        wait.id,
        title,
        wait.subject,
        audience_ids,
        kind == "gms",
        kind == "players",
        wait.created_at,
        wait.message_id,
        wait.given_up_error,
        spec.waiting_for if spec is not None else None,
        spec is not None and spec.optional,
    )


async def _open_waits(session: AsyncSession, *conditions: ColumnElement[bool]) -> list[OpenWait]:
    rows = await session.execute(
        select(Campaign, WaitRow, Exchange.title)
        .join(WaitRow, WaitRow.campaign_id == Campaign.id)
        .join(Exchange, Exchange.id == WaitRow.exchange_id)
        .where(Campaign.status == CAMPAIGN_ACTIVE, WaitRow.status == PENDING, *conditions)
        .order_by(WaitRow.created_at, WaitRow.id)
    )
    return [_open_wait(campaign, wait, title) for campaign, wait, title in rows]


def _old_enough(now: datetime) -> ColumnElement[bool]:
    """Waits open long enough that a notice of them may be due."""
    return WaitRow.created_at <= now - NOTICE_AFTER_AT_LEAST


def _settings(stored: UserSettings | None) -> Settings:
    if stored is None:
        return DEFAULT_SETTINGS
    return Settings(stored.remind_by, stored.time_zone, stored.quiet_from, stored.quiet_to)


@functools.cache
def time_zones() -> dict[str, str]:
    """Every IANA time zone this machine knows, by its name in lower case (read once: it scans the zone files)."""
    return {zone.lower(): zone for zone in available_timezones()}


def known_time_zone(name: str) -> str:
    """The IANA time zone named (any case), or a refusal that says how to find one."""
    found = time_zones().get(name.strip().lower())
    if found is None:
        raise UserError("error.unknown_time_zone", zone=name.strip()[:64])
    try:
        ZoneInfo(found)
    except ZoneInfoNotFoundError as missing:
        raise UserError("error.unknown_time_zone", zone=found) from missing
    return found


def time_zones_like(typed: str, limit: int) -> list[str]:
    needle = typed.strip().lower()
    return sorted(zone for lower, zone in time_zones().items() if needle in lower)[:limit]


def stuck_after(campaign: Campaign) -> timedelta:
    """How long a wait is open before the GMs' digest names it: the reminder delay, or a day without one."""
    return timedelta(hours=campaign.reminder_hours or DIGEST_STUCK_HOURS)


async def _stuck_for(session: AsyncSession, now: datetime, gm_ids: set[int]) -> dict[int, tuple[Stuck, ...]]:
    """What each GM's digest lists: the stuck waits of every active campaign they run, whatever its shard, one
    part per campaign, the campaign of the longest stuck wait first."""
    if not gm_ids:
        return {}
    runs: dict[int, list[int]] = {}
    for gm, campaign_id in await session.execute(
        select(Membership.user_id, Membership.campaign_id).where(
            Membership.user_id.in_(gm_ids), Membership.role == ROLE_GM
        )
    ):
        runs.setdefault(gm, []).append(campaign_id)
    run = {campaign_id for campaign_ids in runs.values() for campaign_id in campaign_ids}
    stuck: dict[int, list[OpenWait]] = {}
    for wait in await _open_waits(session, Campaign.id.in_(run), _old_enough(now)):
        if wait.optional:
            continue
        # `_open_waits` loaded the wait's campaign into the session: `get_one` finds it there, with no query.
        if now - wait.created_at >= stuck_after(await session.get_one(Campaign, wait.campaign_id)):
            stuck.setdefault(wait.campaign_id, []).append(wait)
    parts = {
        campaign_id: Stuck(
            campaign_id, waits[0].campaign_name, stuck_after(await session.get_one(Campaign, campaign_id)), tuple(waits)
        )
        for campaign_id, waits in stuck.items()
    }
    return {
        gm: tuple(
            sorted(
                (parts[campaign_id] for campaign_id in campaign_ids if campaign_id in parts),
                key=lambda part: (part.waits[0].created_at, part.campaign_id),
            )
        )
        for gm, campaign_ids in runs.items()
    }


class ReminderService:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock

    async def campaign_waits(self, place: Place, actor: Actor) -> tuple[Campaign, list[OpenWait]]:
        """Every open wait of the channel's campaign: all of them for its GMs; for everyone else those whose
        prompt is in the channel for all to see."""
        async with self.database.read() as session:
            campaign = await active_campaign(session, place)
            waits = await _open_waits(session, Campaign.id == campaign.id)
            if not await is_gm(session, campaign.id, actor):
                waits = [wait for wait in waits if wait.message_id is not None]
            return campaign, waits

    async def waiting_on(self, guild_id: int, user_id: int) -> list[OpenWait]:
        """What waits for the user across the server's campaigns: waits addressed to them by name."""
        async with self.database.read() as session:
            waits = await _open_waits(session, Campaign.guild_id == guild_id)
            return [wait for wait in waits if user_id in wait.audience_ids and not wait.open_to_players]

    async def set_delay(self, place: Place, actor: Actor, hours: int) -> tuple[Campaign, int]:
        """The campaign's reminder delay (0: no reminders); the old one is returned with the campaign."""
        if not 0 <= hours <= LONGEST_DELAY_HOURS:
            raise UserError("error.reminder_hours", most=LONGEST_DELAY_HOURS)
        async with self.database.write() as session:
            campaign = await active_campaign(session, place, lock=True)
            await require_gm(session, campaign.id, actor)
            old, campaign.reminder_hours = campaign.reminder_hours, hours
            record_event(
                session,
                campaign.id,
                "campaign.reminders",
                actor_id=actor.user_id,
                payload={"old": old, "hours": hours},
                created_at=self.clock(),
            )
            return campaign, old

    async def settings(self, user_id: int) -> Settings:
        async with self.database.read() as session:
            return _settings(await session.get(UserSettings, user_id))

    async def change_settings(
        self,
        user_id: int,
        locale: str | None,
        *,
        remind_by: str | None = None,
        time_zone: str | None = None,
        quiet_from: int | None = None,
        quiet_to: int | None = None,
        clear_quiet: bool = False,
    ) -> Settings:
        """Change what is given, keep the rest; quiet hours need both ends (or `clear_quiet`)."""
        if remind_by is not None and remind_by not in REMIND_CHOICES:
            raise UserError("error.remind_by")
        for hour in (quiet_from, quiet_to):
            if hour is not None and not 0 <= hour <= 23:
                raise UserError("error.quiet_hour")
        zone = known_time_zone(time_zone) if time_zone is not None else None
        async with self.database.write() as session:
            stored = await session.get(UserSettings, user_id)
            if stored is None:
                stored = UserSettings(user_id=user_id, remind_by=REMIND_PING, time_zone="UTC")
                session.add(stored)
            if remind_by is not None:
                stored.remind_by = remind_by
            if zone is not None:
                stored.time_zone = zone
            if clear_quiet:
                stored.quiet_from = stored.quiet_to = None
            elif quiet_from is not None or quiet_to is not None:
                start = quiet_from if quiet_from is not None else stored.quiet_from
                end = quiet_to if quiet_to is not None else stored.quiet_to
                if start is None or end is None:
                    raise UserError("error.quiet_both")
                stored.quiet_from, stored.quiet_to = start, end
            stored.locale = locale or stored.locale
            return _settings(stored)

    async def claim_due(self, shards: Shards = EVERY_GUILD) -> list[Due]:
        """Claim every reminder and digest of `shards`' guilds now due (each once, whoever else tries), and
        return every notice of theirs claimed and not yet sent: these and any a restart left unsent. Only the
        process that runs a guild's shard sends its notices, so no two processes send the same one; a GM's digest
        is claimed once a day for all their campaigns, in one of those the claiming process runs."""
        now = self.clock()
        async with self.database.read() as session:
            waits = await _open_waits(session, on_shards(Campaign.guild_id, shards), _old_enough(now))
            waiting = {wait.campaign_id for wait in waits}
            # `_open_waits` loaded each of these campaigns into the session: `get_one` finds it there, with no query.
            campaigns = {campaign_id: await session.get_one(Campaign, campaign_id) for campaign_id in waiting}
            gms: dict[int, list[int]] = {campaign_id: [] for campaign_id in waiting}
            for campaign_id, gm in await session.execute(
                select(Membership.campaign_id, Membership.user_id)
                .where(Membership.campaign_id.in_(waiting), Membership.role == ROLE_GM)
                .order_by(Membership.id)
            ):
                gms[campaign_id].append(gm)
            users = {user for wait in waits for user in wait.audience_ids} | {gm for ids in gms.values() for gm in ids}
            settings = {
                stored.user_id: stored
                for stored in await session.scalars(select(UserSettings).where(UserSettings.user_id.in_(users)))
            }
        wanted: dict[str, tuple[OpenWait, int, str, bool]] = {}
        for wait in waits:
            hours = campaigns[wait.campaign_id].reminder_hours
            if hours == 0 or wait.to_gms or wait.open_to_players or wait.optional:
                continue
            # One reminder for each whole delay the wait has waited: a later one only after as long again.
            number = int((now - wait.created_at) / timedelta(hours=hours))
            for user_id in wait.audience_ids:
                chosen = _settings(settings.get(user_id))
                if number >= 1 and chosen.remind_by != REMIND_OFF and not chosen.quiet_at(now):
                    wanted[f"reminder:{wait.wait_id}:{user_id}:{number}"] = (wait, user_id, chosen.remind_by, False)
        for wait in waits:
            if wait.optional or now - wait.created_at < stuck_after(campaigns[wait.campaign_id]):
                continue
            for gm in gms[wait.campaign_id]:
                chosen = _settings(settings.get(gm))
                if not chosen.quiet_at(now):
                    wanted.setdefault(f"digest:{gm}:{chosen.day_of(now)}", (wait, gm, REMIND_DM, True))
        if wanted:
            async with self.database.read() as session:
                claimed = set(await session.scalars(select(Notice.key).where(Notice.key.in_(list(wanted)))))
            for key in wanted.keys() - claimed:
                wait, user_id, by, digest = wanted[key]
                await self._claim(key, wait, user_id, by, digest=digest)
        return await self._unsent(now, waits, settings, shards)

    async def _claim(self, key: str, wait: OpenWait, user_id: int, by: str, *, digest: bool) -> None:
        try:
            async with self.database.write() as session:
                wait_id = None if digest else wait.wait_id
                session.add(
                    Notice(
                        key=key,
                        campaign_id=wait.campaign_id,
                        wait_id=wait_id,
                        user_id=user_id,
                        by=by,
                        nonce=secrets.randbits(62),
                        created_at=self.clock(),
                    )
                )
        except IntegrityError:
            return  # claimed by another process meanwhile

    async def _unsent(
        self, now: datetime, waits: list[OpenWait], settings: dict[int, UserSettings], shards: Shards
    ) -> list[Due]:
        async with self.database.read() as session:
            unsent = list(
                await session.execute(
                    select(Notice, Campaign)
                    .join(Campaign, Campaign.id == Notice.campaign_id)
                    .where(Notice.sent_at.is_(None), on_shards(Campaign.guild_id, shards))
                    .order_by(Notice.id)
                )
            )
            stuck = await _stuck_for(session, now, {notice.user_id for notice, _ in unsent if notice.wait_id is None})
        still_open = {wait.wait_id: wait for wait in waits}
        due = []
        for notice, campaign in unsent:
            wait = still_open.get(notice.wait_id) if notice.wait_id is not None else None
            parts = stuck.get(notice.user_id, ()) if notice.wait_id is None else ()
            if (wait is None and not parts) or now - notice.created_at > RESEND_WITHIN:
                # Answered, ended, or claimed so long ago that Discord would no longer know its nonce: a copy
                # sent now could be a second one. Nothing is sent.
                await self.mark_sent(notice.id, given_up=True)
                continue
            stored = settings.get(notice.user_id)
            due.append(
                Due(
                    notice.id,
                    notice.nonce,
                    notice.user_id,
                    notice.by,
                    stored.locale if stored else None,
                    campaign.guild_id,
                    wait.channel_id if wait is not None else campaign.channel_id,
                    campaign.language,
                    wait,
                    parts,
                    notice.key.startswith(IN_CHANNEL),
                )
            )
        return due

    async def in_channel_instead(self, due: Due) -> Due | None:
        """The notice whose direct message Discord refused (closed DMs), ended and replaced in one transaction by
        a notice to ping the user in the channel, claimed under a key of the refused one's: however often this is
        tried, one ping is claimed. None when it was done already."""
        try:
            async with self.database.write() as session:
                refused = await session.get(Notice, due.notice_id)
                if refused is None or refused.sent_at is not None:
                    return None
                refused.sent_at = self.clock()
                ping = Notice(
                    key=f"{IN_CHANNEL}{refused.id}",
                    campaign_id=refused.campaign_id,
                    wait_id=refused.wait_id,
                    user_id=refused.user_id,
                    by=REMIND_PING,
                    nonce=secrets.randbits(62),
                    created_at=self.clock(),
                )
                session.add(ping)
                await session.flush()
                claimed = replace(due, notice_id=ping.id, nonce=ping.nonce, by=REMIND_PING, instead_of_dm=True)
        except IntegrityError:
            return None  # replaced by another process meanwhile
        return claimed

    async def mark_sent(self, notice_id: int, *, given_up: bool = False, campaign_ids: tuple[int, ...] = ()) -> None:
        """The notice done; its event in the log of each campaign it told of (`campaign_ids`, else its own)."""
        async with self.database.write() as session:
            notice = await session.get(Notice, notice_id)
            if notice is not None and notice.sent_at is None:
                notice.sent_at = self.clock()
                # A reminder is the table's to know of; a digest, or a notice given up, the GMs'.
                digest = notice.wait_id is None
                if given_up:
                    kind = "notice.given_up"
                elif digest:
                    kind = "notice.digest_in_channel" if notice.key.startswith(IN_CHANNEL) else "notice.digest"
                else:
                    kind = "notice.reminder"
                for campaign_id in campaign_ids or (notice.campaign_id,):
                    record_event(
                        session,
                        campaign_id,
                        kind,
                        actor_id=None,
                        payload={"user": notice.user_id, "wait": notice.wait_id},
                        created_at=notice.sent_at,
                        secret=digest or given_up,
                    )
