"""The first schema: events, rounds, boards, games, revisions, moves, ambiguities.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = dict(nullable=False)
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
        sa.UniqueConstraint("event_id", "number"),
    )
    op.create_table(
        "boards",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("station_key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
        sa.UniqueConstraint("event_id", "number"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id")),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id")),
        sa.Column("board_id", sa.Integer, sa.ForeignKey("boards.id")),
        sa.Column("variant", sa.String(40), nullable=False),
        sa.Column("white", sa.String(200), nullable=False),
        sa.Column("black", sa.String(200), nullable=False),
        sa.Column("start_fen", sa.Text, nullable=False),
        sa.Column("initial_ms", sa.Integer),
        sa.Column("increment_ms", sa.Integer, nullable=False),
        sa.Column("result", sa.String(10), nullable=False),
        sa.Column("termination", sa.String(40)),
        sa.Column("head_revision", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
    )
    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
        sa.Column("white_ms", sa.Integer),
        sa.Column("black_ms", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
        sa.UniqueConstraint("game_id", "number"),
    )
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("text", sa.String(80), nullable=False),
        sa.Column("notation", sa.String(20), nullable=False),
        sa.Column("white_ms", sa.Integer),
        sa.Column("black_ms", sa.Integer),
        sa.Column("evidence_id", sa.String(200)),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), nullable=False),
        sa.Column("superseded_by", sa.Integer, sa.ForeignKey("revisions.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
    )
    op.create_index("ix_moves_game_live", "moves", ["game_id", "superseded_by", "ply"])
    op.create_table(
        "ambiguities",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("candidates", sa.JSON, nullable=False),
        sa.Column("evidence_id", sa.String(200)),
        sa.Column("resolved_by", sa.Integer, sa.ForeignKey("revisions.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), **now),
    )


def downgrade() -> None:
    for table in ("ambiguities", "moves", "revisions", "games", "boards", "rounds", "events"):
        op.drop_table(table)
