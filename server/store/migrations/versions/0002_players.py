"""Players of an event by their drawn number, and which numbers play each game.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.UniqueConstraint("event_id", "number"),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("white_number", sa.Integer))
        batch.add_column(sa.Column("black_number", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("black_number")
        batch.drop_column("white_number")
    op.drop_table("players")
