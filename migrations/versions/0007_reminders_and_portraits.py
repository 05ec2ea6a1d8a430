"""reminders and posts in character: a campaign's reminder delay, users' reminder settings, the notices sent,
and a character's portrait

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02

Events written in batches on SQLite get the timestamp text every other row has. Every campaign gets the default
delay of 12 hours; no user has settings until they choose some; no character has a portrait until its player
gives one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # Events written in batches were stored with sqlite3's own timestamp text ("...+00:00"), which sorts
        # apart from the rest: every one is brought to SQLAlchemy's form, the form every other row has.
        op.execute(
            "UPDATE events SET created_at = substr(created_at, 1, length(created_at) - 6) "
            "WHERE created_at LIKE '%+00:00'"
        )
        op.execute("UPDATE events SET created_at = created_at || '.000000' WHERE length(created_at) = 19")
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("reminder_hours", sa.Integer(), nullable=False, server_default="12"))
    with op.batch_alter_table("characters") as batch:
        batch.add_column(sa.Column("portrait_url", sa.String(500), nullable=True))
    op.create_table(
        "user_settings",
        sa.Column("user_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("remind_by", sa.String(8), nullable=False),
        sa.Column("time_zone", sa.String(64), nullable=False),
        sa.Column("quiet_from", sa.Integer(), nullable=True),
        sa.Column("quiet_to", sa.Integer(), nullable=True),
        sa.Column("locale", sa.String(16), nullable=True),
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False),
        sa.Column("wait_id", sa.Integer(), sa.ForeignKey("waits.id", ondelete="CASCADE"), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("by", sa.String(8), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("key", name="uq_notices_key"),
    )
    op.create_index("ix_notices_campaign_id", "notices", ["campaign_id"])
    op.create_index("ix_notices_sent_at", "notices", ["sent_at"])


def downgrade() -> None:
    op.drop_table("notices")
    op.drop_table("user_settings")
    with op.batch_alter_table("characters") as batch:
        batch.drop_column("portrait_url")
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("reminder_hours")
