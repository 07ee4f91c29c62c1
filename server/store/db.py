"""Engines and migrations: SQLite in the user's data directory unless BANCO_DATABASE_URL names another."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")


def default_url() -> str:
    url = os.environ.get("BANCO_DATABASE_URL")
    if url:
        return url
    from platformdirs import user_data_dir

    directory = Path(user_data_dir("banco", appauthor=False))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'banco.sqlite3'}"


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets viewers read while a move is written; FULL syncs each commit, so a move that was
    # acknowledged survives a crash of the process or of the machine.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str | None = None) -> Engine:
    url = url or default_url()
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    return engine


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema up to `revision` with the migrations shipped in this package."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
