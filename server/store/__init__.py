"""Durable storage: SQLAlchemy models, Alembic migrations, engine setup."""

from server.store.db import make_engine, migrate, session_factory
from server.store.models import Ambiguity, Base, BoardRow, Event, GameRow, Match, MoveRow, Player, Revision, Round

__all__ = ["Ambiguity", "Base", "BoardRow", "Event", "GameRow", "Match", "MoveRow", "Player", "Revision", "Round",
           "make_engine", "migrate", "session_factory"]
