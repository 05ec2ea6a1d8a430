"""rounds, character state and masters

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("round_number", sa.Integer(), server_default="1", nullable=False))

    with op.batch_alter_table("characters", schema=None) as batch_op:
        batch_op.add_column(sa.Column("state", sa.JSON(), server_default="{}", nullable=False))
        batch_op.add_column(sa.Column("master_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_characters_master_id_characters"), "characters", ["master_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("characters", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_characters_master_id_characters"), type_="foreignkey")
        batch_op.drop_column("master_id")
        batch_op.drop_column("state")

    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.drop_column("round_number")
