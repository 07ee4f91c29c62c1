"""Alembic environment: run on the connection the caller passes (see server.store.db.migrate)."""

from alembic import context

from server.store.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
