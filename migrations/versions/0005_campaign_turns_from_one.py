"""campaign turns counted from 1

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

A campaign's turn number was the count of turns ended (a new campaign said "turn 0"); it is now the turn in
play, so every stored number moves up by one.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE campaigns SET turn_number = turn_number + 1")


def downgrade() -> None:
    op.execute("UPDATE campaigns SET turn_number = turn_number - 1")
