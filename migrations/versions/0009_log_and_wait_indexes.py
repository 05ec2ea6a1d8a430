"""indexes for a recap's reads and a campaign's open waits

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03

A recap finds its reader's last event (`campaign_id, actor_id, id`) or counts from a moment (`campaign_id,
created_at`); `/gm pending` and `/campaign waiting` read a campaign's open waits (`campaign_id, status`). Without
them each read walks the campaign's whole log or every wait it ever had.
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_events_campaign_id_actor_id_id", "events", ["campaign_id", "actor_id", "id"])
    op.create_index("ix_events_campaign_id_created_at", "events", ["campaign_id", "created_at"])
    op.create_index("ix_waits_campaign_id_status", "waits", ["campaign_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_waits_campaign_id_status", table_name="waits")
    op.drop_index("ix_events_campaign_id_created_at", table_name="events")
    op.drop_index("ix_events_campaign_id_actor_id_id", table_name="events")
