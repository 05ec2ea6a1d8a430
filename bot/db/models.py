"""SQLAlchemy 2.0 models. The schema itself comes only from the Alembic migrations."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.ext.asyncio import AsyncAttrs
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware timestamp on every backend (SQLite stores none, so UTC is restored on read)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetimes are not stored")
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(AsyncAttrs, DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UtcDateTime(), dict[str, Any]: JSON()}


def table_of(model: type[Base]) -> Table:
    """The model's table, for statements of SQLAlchemy Core: a statement built on a model's attributes runs through
    the ORM's own handling (an UPDATE costs about twice as much so on SQLite), which a statement that loads no
    objects does not need."""
    return cast(Table, model.__table__)


CAMPAIGN_ACTIVE = "active"
CAMPAIGN_ENDED = "ended"
ROLE_GM = "gm"
ROLE_PLAYER = "player"
# Exchanges: open while they wait for someone, then closed or cancelled.
EXCHANGE_OPEN = "open"
EXCHANGE_CLOSED = "closed"
EXCHANGE_CANCELLED = "cancelled"
# Waits: pending until answered, expired (the deadline chose the default), superseded (a sibling wait
# of the same step was answered first) or cancelled (a GM cancelled the exchange).
PENDING = "pending"
ANSWERED = "answered"
EXPIRED = "expired"
SUPERSEDED = "superseded"
CANCELLED = "cancelled"
# A wait whose answer at its deadline raised this many times is tried no more by the deadlines (retried at every
# look, it would fail there for ever): it stays pending for its GMs to answer or cancel.
DEADLINE_TRIES = 3


class Campaign(Base):
    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    ruleset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    session_number: Mapped[int] = mapped_column(Integer, default=1)
    turn_number: Mapped[int] = mapped_column(Integer, default=1)
    round_number: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # The fight in progress, if any: {"order": [character ids], "turn": index into order}.
    combat: Mapped[dict[str, Any]] = mapped_column(default=dict, server_default="{}")
    status: Mapped[str] = mapped_column(String(16), default=CAMPAIGN_ACTIVE)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(default=None)
    # The language of the campaign's public messages (a Discord locale); None: the server's.
    language: Mapped[str | None] = mapped_column(String(16), default=None)
    # How long a wait stays unanswered before whoever it waits for is reminded (and again after as long); 0: never.
    reminder_hours: Mapped[int] = mapped_column(Integer, default=12, server_default="12")

    __table_args__ = (
        Index(
            "uq_campaigns_active_channel",
            "channel_id",
            unique=True,
            sqlite_where=text("status = 'active'"),
            postgresql_where=text("status = 'active'"),
        ),
    )

    @property
    def is_active(self) -> bool:
        return self.status == CAMPAIGN_ACTIVE


class Membership(Base):
    __tablename__ = "memberships"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(BigInteger)
    role: Mapped[str] = mapped_column(String(16))
    active_character_id: Mapped[int | None] = mapped_column(
        ForeignKey("characters.id", ondelete="SET NULL"), default=None
    )
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("campaign_id", "user_id"),)


class Character(Base):
    __tablename__ = "characters"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(32))
    sheet: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # What the rules track between rolls (defence streaks, staggers, effects...).
    state: Mapped[dict[str, Any]] = mapped_column(default=dict, server_default="{}")
    # Run by the campaign's GMs (an NPC, a creature, an enemy Servant): any GM answers its waits.
    gm_run: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A GM's answers given in advance for this character's waits, by wait key.
    auto_answers: Mapped[dict[str, Any]] = mapped_column(default=dict, server_default="{}")
    # The picture its in-character posts carry (an image's address on the web).
    portrait_url: Mapped[str | None] = mapped_column(String(500), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("campaign_id", "name"),)


class ResourcePool(Base):
    """HP, prana, Fate Points...: changed only by `atomic.apply_pool_delta`."""

    __tablename__ = "resource_pools"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(32))
    current: Mapped[int] = mapped_column(Integer)
    maximum: Mapped[int | None] = mapped_column(Integer, default=None)
    minimum: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (UniqueConstraint("character_id", "name"),)


class CharacterLink(Base):
    """A character bound to another (a Servant to its Master...), under a relation its ruleset names."""

    __tablename__ = "character_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"), index=True)
    target_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"), index=True)
    relation: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("character_id", "relation", "target_id"),)


class Side(Base):
    """A group of characters that acts together (a camp): its ruleset gives its members their places."""

    __tablename__ = "sides"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    state: Mapped[dict[str, Any]] = mapped_column(default=dict, server_default="{}")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("campaign_id", "name"),)


class SideMember(Base):
    __tablename__ = "side_members"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    side_id: Mapped[int] = mapped_column(ForeignKey("sides.id", ondelete="CASCADE"), index=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"), index=True)
    place: Mapped[str] = mapped_column(String(32), default="member")

    __table_args__ = (UniqueConstraint("side_id", "character_id"),)


class Exchange(Base):
    """An exchange that waits for someone: its ruleset's handler resumes it with `state` and the answer."""

    __tablename__ = "exchanges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(48))
    # What players read about it ("Archer attacks Rider"): a catalog text as JSON.
    title: Mapped[dict[str, Any]] = mapped_column(default=dict)
    handler: Mapped[str | None] = mapped_column(String(48), default=None)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Counts the steps that paused, so the waits of one step are told from those of the next.
    step: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default=EXCHANGE_OPEN)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    created_by: Mapped[int | None] = mapped_column(BigInteger, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(default=None)


class ExchangeRole(Base):
    """Who plays which role in an exchange: a character, or a side, at a position within the role."""

    __tablename__ = "exchange_roles"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    exchange_id: Mapped[int] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(48))
    position: Mapped[int] = mapped_column(Integer, default=0)
    character_id: Mapped[int | None] = mapped_column(ForeignKey("characters.id", ondelete="SET NULL"), default=None)
    side_id: Mapped[int | None] = mapped_column(ForeignKey("sides.id", ondelete="SET NULL"), default=None)

    __table_args__ = (UniqueConstraint("exchange_id", "role", "position"),)


class WaitRow(Base):
    """One wait of an exchange's step (`rules.exchange.Wait` as `spec`); leaves 'pending' exactly once."""

    __tablename__ = "waits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    exchange_id: Mapped[int] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"), index=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    key: Mapped[str] = mapped_column(String(40))
    spec: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # The users who may answer; empty: the GMs (a GM may always answer for the others).
    audience_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    # The character the wait is for, by name, as prompts show it.
    subject: Mapped[str | None] = mapped_column(String(100), default=None)
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    deadline_at: Mapped[datetime | None] = mapped_column(default=None)
    answer: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(default=None)
    # How often its answer at the deadline raised (a fault of the bot, not a refusal of the rules), and the id the
    # latest failure was logged with: after `DEADLINE_TRIES` the deadlines leave it, still pending, to the GMs, who
    # see that id.
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    error_id: Mapped[str | None] = mapped_column(String(16), default=None)

    @property
    def given_up_error(self) -> str | None:
        """The error id the wait last failed with, once the deadlines gave up on it; None while they still try."""
        return self.error_id if self.failures >= DEADLINE_TRIES else None

    # The deadlines look for pending waits by deadline, the reminders for those open long enough; a campaign's
    # open waits (`/gm pending`, `/campaign waiting`) are read by campaign and status, not among every wait it
    # ever had.
    __table_args__ = (
        Index("ix_waits_status_deadline_at", "status", "deadline_at"),
        Index("ix_waits_status_created_at", "status", "created_at"),
        Index("ix_waits_campaign_id_status", "campaign_id", "status"),
    )


class WaitAnswer(Base):
    """One member's answer to a wait that needs every member's."""

    __tablename__ = "wait_answers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    wait_id: Mapped[int] = mapped_column(ForeignKey("waits.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    answer: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("wait_id", "user_id"),)


class Commitment(Base):
    """A committed secret: `digest` public at once, `secret` and `nonce` shown only once revealed."""

    __tablename__ = "commitments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    exchange_id: Mapped[int | None] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(40))
    digest: Mapped[str] = mapped_column(String(64))
    secret: Mapped[str] = mapped_column(String(100))
    nonce: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revealed_at: Mapped[datetime | None] = mapped_column(default=None)

    __table_args__ = (UniqueConstraint("exchange_id", "key"),)


REMIND_PING = "ping"
REMIND_DM = "dm"
REMIND_OFF = "off"


class UserSettings(Base):
    """How a user wants to be reminded, wherever they play: in the channel or by DM, and never in their quiet
    hours (`quiet_from` to `quiet_to`, whole hours of their time zone; none when either is missing)."""

    __tablename__ = "user_settings"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    remind_by: Mapped[str] = mapped_column(String(8), default=REMIND_PING)
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC")
    quiet_from: Mapped[int | None] = mapped_column(Integer, default=None)
    quiet_to: Mapped[int | None] = mapped_column(Integer, default=None)
    # The Discord locale the user last used, for what reaches them outside an interaction (a DM).
    locale: Mapped[str | None] = mapped_column(String(16), default=None)


class Notice(Base):
    """A reminder or a GM's digest, claimed once by its unique `key` before it is sent; `nonce` goes with the
    message so that Discord keeps one copy if a restart sends it again."""

    __tablename__ = "notices"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(80), unique=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    wait_id: Mapped[int | None] = mapped_column(ForeignKey("waits.id", ondelete="CASCADE"), default=None)
    user_id: Mapped[int] = mapped_column(BigInteger)
    by: Mapped[str] = mapped_column(String(8))
    nonce: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(default=None, index=True)


class Event(Base):
    """One roll or state change of a campaign: the campaign's log."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    kind: Mapped[str] = mapped_column(String(48))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    secret: Mapped[bool] = mapped_column(Boolean, default=False)

    # A page of the log reads by id; a recap finds its reader's last event, or counts from a moment: each by an
    # index, so that none of them reads the rest of a long log.
    __table_args__ = (
        Index("ix_events_campaign_id_id", "campaign_id", "id"),
        Index("ix_events_campaign_id_actor_id_id", "campaign_id", "actor_id", "id"),
        Index("ix_events_campaign_id_created_at", "campaign_id", "created_at"),
    )
