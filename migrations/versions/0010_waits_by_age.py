"""an index for the look for due notices

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

The reminders' look reads the open waits old enough for a notice (`status, created_at`): without the index it
reads every open wait of every campaign, every minute, however new.
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_waits_status_created_at", "waits", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_waits_status_created_at", table_name="waits")
