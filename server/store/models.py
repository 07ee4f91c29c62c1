"""The tables. The record is append-only: a correction supersedes moves, it never deletes them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, datetime: DateTime(timezone=True)}


class Event(Base):
    __tablename__ = "events"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("event_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class BoardRow(Base):
    """A physical board of an event, watched by one station (camera process) holding its key."""

    __tablename__ = "boards"
    __table_args__ = (UniqueConstraint("event_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    number: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(200), default="")
    station_key_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("match_id", "match_game", name="uq_games_match_game"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"))
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"))
    board_id: Mapped[int | None] = mapped_column(ForeignKey("boards.id"))
    variant: Mapped[str] = mapped_column(String(40))
    white: Mapped[str] = mapped_column(String(200), default="")
    black: Mapped[str] = mapped_column(String(200), default="")
    start_fen: Mapped[str] = mapped_column(Text)
    initial_ms: Mapped[int | None] = mapped_column(Integer)
    increment_ms: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[str] = mapped_column(String(10), default="*")
    termination: Mapped[str | None] = mapped_column(String(40))
    head_revision: Mapped[int] = mapped_column(Integer, default=0)
    white_number: Mapped[int | None] = mapped_column(Integer)
    black_number: Mapped[int | None] = mapped_column(Integer)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))
    match_game: Mapped[int | None] = mapped_column(Integer)
    # Points the referee entered for a game scored off the board (else they come from the board).
    points_white: Mapped[int | None] = mapped_column(Integer)
    points_black: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Match(Base):
    """A match of several games between two players (Commander Chess 3–5, Cờ Toán 1, 3, 5 …).

    `first` is who moves first in game 1 ("A" or "B"), drawn by lot before the match.
    """

    __tablename__ = "matches"
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"))
    board_id: Mapped[int | None] = mapped_column(ForeignKey("boards.id"))
    player_a: Mapped[str] = mapped_column(String(200))
    player_b: Mapped[str] = mapped_column(String(200))
    number_a: Mapped[int | None] = mapped_column(Integer)
    number_b: Mapped[int | None] = mapped_column(Integer)
    length: Mapped[int] = mapped_column(Integer)
    first: Mapped[str] = mapped_column(String(1))
    initial_ms: Mapped[int | None] = mapped_column(Integer)
    increment_ms: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Player(Base):
    """A player of an event, known by the number drawn for the Berger table (seed 004)."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("event_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200))


class Revision(Base):
    """One change to a game's record: a station's move, a referee's correction, a clock or result.

    `id` is global and increasing: it is the id of the live event that announces the change.
    """

    __tablename__ = "revisions"
    __table_args__ = (UniqueConstraint("game_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    author: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text, default="")
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
    white_ms: Mapped[int | None] = mapped_column(Integer)
    black_ms: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class MoveRow(Base):
    """A move of the record. `superseded_by` is set when a correction replaced it."""

    __tablename__ = "moves"
    __table_args__ = (Index("ix_moves_game_live", "game_id", "superseded_by", "ply"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    ply: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(80))
    notation: Mapped[str] = mapped_column(String(20))
    white_ms: Mapped[int | None] = mapped_column(Integer)
    black_ms: Mapped[int | None] = mapped_column(Integer)
    evidence_id: Mapped[str | None] = mapped_column(String(200))
    revision_id: Mapped[int] = mapped_column(ForeignKey("revisions.id"))
    superseded_by: Mapped[int | None] = mapped_column(ForeignKey("revisions.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Ambiguity(Base):
    """A change the station saw that more than one legal move explains; a referee picks one."""

    __tablename__ = "ambiguities"
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    candidates: Mapped[list[Any]] = mapped_column(default=list)
    evidence_id: Mapped[str | None] = mapped_column(String(200))
    resolved_by: Mapped[int | None] = mapped_column(ForeignKey("revisions.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
