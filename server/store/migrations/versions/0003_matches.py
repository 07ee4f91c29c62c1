"""Matches between two players (Commander Chess, Cờ Toán) and their games; points entered by the referee.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False, index=True),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id")),
        sa.Column("board_id", sa.Integer, sa.ForeignKey("boards.id")),
        sa.Column("player_a", sa.String(200), nullable=False),
        sa.Column("player_b", sa.String(200), nullable=False),
        sa.Column("number_a", sa.Integer),
        sa.Column("number_b", sa.Integer),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("first", sa.String(1), nullable=False),
        sa.Column("initial_ms", sa.Integer),
        sa.Column("increment_ms", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", name="fk_games_match_id")))
        batch.add_column(sa.Column("match_game", sa.Integer))
        batch.add_column(sa.Column("points_white", sa.Integer))
        batch.add_column(sa.Column("points_black", sa.Integer))
        batch.create_unique_constraint("uq_games_match_game", ["match_id", "match_game"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_match_game", type_="unique")
        batch.drop_column("points_black")
        batch.drop_column("points_white")
        batch.drop_column("match_game")
        batch.drop_column("match_id")
    op.drop_table("matches")
