"""Alembic environment: always handed an open connection by `bot.db.migrate`."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from bot.db.models import Base

connection: Connection | None = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with `fatebot db upgrade`, which provides the database connection")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
