"""a wait's failed deadline answers: how many, and the error id of the latest

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03

No wait has failed before: every one starts at none, with no error id.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("waits") as batch:
        batch.add_column(sa.Column("failures", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("error_id", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("waits") as batch:
        batch.drop_column("error_id")
        batch.drop_column("failures")
