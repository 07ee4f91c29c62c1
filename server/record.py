"""The game record: every change is written to the database before anyone is told of it.

A `Recorder` turns station events and referee decisions into revisions. Each call opens one
transaction; the snapshot it returns describes the committed state and is what the live feed
broadcasts. Boards are rebuilt from the stored moves, so a restarted process serves exactly
what was committed.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

import games
from games.base import BancoError, Color, GameOverError, Move, Outcome, Termination
from hardware.clock import TIMED_BY_DURATION
from server.store import Ambiguity, BoardRow, Event, GameRow, MoveRow, Revision, Round

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# A notation that names origin and destination reads back without its position's context.
CANONICAL_PREFERENCE = ("iccs", "uci", "coord", "lan")


class RecordError(BancoError):
    """A request the record cannot accept."""


class NotFoundError(RecordError):
    """Something asked for by id that does not exist."""


class ConflictError(RecordError):
    """A change that conflicts with the current record (finished game, changed meanwhile)."""


def canonical_notation(variant: games.Variant) -> str:
    for name in CANONICAL_PREFERENCE:
        if name in variant.notations:
            return name
    return variant.default_notation


# Commander Chess (seed 000, COMMANDER_RULES §12): a 30-minute game is total war, a shorter one the
# battle mode; the time a game is given is how the players choose between them.
COMMANDER_TOTAL_WAR_MS = 30 * 60_000


def commander_mode_for(initial_ms: int) -> str:
    """The Commander Chess mode (`games.commander.Mode` value) a game timed `initial_ms` is played in.

    >>> commander_mode_for(15 * 60_000), commander_mode_for(30 * 60_000)
    ('battle', 'war')
    """
    return "war" if initial_ms >= COMMANDER_TOTAL_WAR_MS else "battle"


def timed_start_fen(variant_name: str, initial_ms: int | None, fen: str | None = None) -> str | None:
    """The start position of a game given `initial_ms` (None: untimed): `fen`, or the game's own
    start when `fen` is None; in a timed Commander Chess game, with the mode its time chooses
    (15 minutes: battle, ended by the first battle won; 30: total war, ended only by a commander's
    capture). A 15-minute game set up as the 9-piece battle, or as a battle over some of the
    objectives, keeps them. Any other game's `fen` comes back as it was.

    >>> timed_start_fen("commander", 30 * 60_000).split()[3]
    'w'
    >>> timed_start_fen("xiangqi", 30 * 60_000) is None
    True
    """
    variant = games.get(variant_name)
    if variant.name != "commander" or initial_ms is None:
        return fen
    board = variant.board(fen)
    mode = commander_mode_for(initial_ms)
    if mode == "battle" and board.mode.value in ("battle", "nine"):
        # Both are 15-minute games: the position keeps its own, and a battle its objectives (D34).
        return board.fen()
    board.set_mode(mode)
    return board.fen()


def points_summary(board: Any, *, stopped: bool = False) -> str | None:
    """What a referee needs of a game decided on points: ``Red 23 – Blue 17 points`` for a
    finished Commander Chess board (captures and battle bonuses, COMMANDER_RULES §11–§12), with
    the time declared up first when the clock ended it; ``White 12 – Black 7 points`` for a
    Cờ Toán board that ended, or that time stopped (`stopped`: the face values captured). None
    while the game goes on, or for a game the engine does not score in points.

    >>> import games
    >>> board = games.get("commander").board()
    >>> board.declare_time_up()
    >>> points_summary(board)
    'Red 0 – Blue 0 points'
    >>> points_summary(games.get("cotoan").board(), stopped=True)
    'White 0 – Black 0 points'
    """
    finished = board.result() if callable(getattr(board, "result", None)) else None
    points = getattr(finished, "points", None)
    if points is not None:
        return f"Red {points[Color.WHITE]} – Blue {points[Color.BLACK]} points"
    scores = getattr(board, "scores", None)
    if isinstance(scores, tuple) and (stopped or board.outcome() is not None):
        return f"White {scores[0]} – Black {scores[1]} points"
    return None


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _points(move: Move) -> tuple[list[int] | None, list[int] | None]:
    origin = getattr(move, "from_point", None)
    target = getattr(move, "to_point", None)
    return (list(origin) if origin is not None else None, list(target) if target is not None else None)


def _color_code(color: object) -> str:
    """'w' or 'b' for any engine's colour enum (Trắng/White/Red are 'w')."""
    value = str(getattr(color, "value", color)).lower()
    name = str(getattr(color, "name", "")).lower()
    return "w" if value[:1] in ("w", "r") or name in ("white", "red") else "b"


def _label(variant: games.Variant, piece: object) -> str:
    """The letter printed on the disc: the variant's own letter for the piece's kind (the
    Vietnamese federation letters for Xiangqi), else its number (Cờ Toán), else its symbol."""
    kind = getattr(piece, "kind", None)
    if kind is not None:
        name = str(getattr(kind, "name", kind)).lower()
        for letter, kind_name in variant.pieces.items():
            if str(kind_name).lower() == name:
                return letter
    value = getattr(piece, "value", None)
    if isinstance(value, int):
        return str(value)
    symbol = piece.symbol() if callable(getattr(piece, "symbol", None)) else str(piece)
    return symbol.lstrip("-+").upper()[:2]


def describe_piece(variant: games.Variant, piece: object) -> dict[str, Any]:
    """A piece (or a stack of pieces, carrier first) as the pages draw it."""
    # A stack is a plain sequence of pieces; a piece may itself be a NamedTuple (Xiangqi, Cờ Toán).
    is_stack = isinstance(piece, tuple | list) and not hasattr(piece, "_fields")
    stack = list(piece) if is_stack else [piece]
    carrier = stack[0]
    symbols = [p.symbol() if callable(getattr(p, "symbol", None)) else _label(variant, p) for p in stack]
    return {"symbol": "".join(symbols), "color": _color_code(getattr(carrier, "color", "")),
            "label": "".join(_label(variant, p) for p in stack)[:3], "stack": len(stack)}


def pieces_of(variant: games.Variant, board: Any) -> list[dict[str, Any]]:
    """Every piece on `board` with its point, as the snapshots and diagrams describe them."""
    pieces = []
    for point in variant.geometry.points():
        piece = board.piece_at(point)
        if piece is not None:
            pieces.append({"file": point.file, "rank": point.rank, **describe_piece(variant, piece)})
    return pieces


def position_view(variant: games.Variant, board: Any, last: Move | None = None) -> dict[str, Any]:
    """What a diagram needs of a position: its pieces, FEN and the move that led to it."""
    last_move = None
    if last is not None:
        origin, target = _points(last)
        last_move = {"from": origin, "to": target}
    return {"variant": variant.name, "fen": board.fen(), "pieces": pieces_of(variant, board),
            "last_move": last_move, "ambiguity": None}


@dataclass
class _Clock:
    white_ms: int | None = None
    black_ms: int | None = None
    running: Color | None = None
    since: float | None = None


@dataclass
class _State:
    """What the recorder keeps in memory for a game; rebuilt from the database when stale."""

    row: GameRow
    variant: games.Variant
    board: Any
    texts: list[str]
    formatted: dict[str, list[str]]
    head_id: int
    head_number: int
    clock: _Clock
    ambiguity: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    snapshot_cache: dict[str, Any] | None = None
    first_move: dict[str, Any] | None = None  # the start position's move number and side to move


def move_number(first: dict[str, Any], ply: int) -> dict[str, Any]:
    """The move number and mover of the record's `ply`-th move (1-based), counted as PGN does:
    the number goes up after the second side moves; a record that starts with the second side
    to move begins ``1...``.

    >>> [move_number({"number": 1, "color": "w"}, ply) for ply in (1, 2, 3)]
    [{'number': 1, 'color': 'w'}, {'number': 1, 'color': 'b'}, {'number': 2, 'color': 'w'}]
    >>> move_number({"number": 7, "color": "b"}, 2)
    {'number': 8, 'color': 'w'}
    """
    index = ply - 1 + (1 if first["color"] == "b" else 0)
    return {"number": first["number"] + index // 2, "color": "w" if index % 2 == 0 else "b"}


class Recorder:
    """Writes the record and answers questions about it."""

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.now = now
        self._states: dict[int, _State] = {}
        self._states_lock = threading.Lock()

    # --- events, rounds, boards, games -----------------------------------------------------

    def create_event(self, name: str, game: str) -> Event:
        variant = games.get(game)
        with self.sessions.begin() as session:
            row = Event(name=name, game=variant.name)
            session.add(row)
        return row

    def list_events(self) -> list[Event]:
        with self.sessions() as session:
            return list(session.scalars(select(Event).order_by(Event.id)))

    def get_event(self, event_id: int) -> Event:
        with self.sessions() as session:
            return self._get(session, Event, event_id)

    def create_round(self, event_id: int, number: int) -> Round:
        with self.sessions.begin() as session:
            self._get(session, Event, event_id)
            if session.scalar(select(Round).where(Round.event_id == event_id, Round.number == number)):
                raise ConflictError(f"event {event_id} already has round {number}")
            row = Round(event_id=event_id, number=number)
            session.add(row)
        return row

    def list_rounds(self, event_id: int) -> list[Round]:
        with self.sessions() as session:
            self._get(session, Event, event_id)
            return list(session.scalars(select(Round).where(Round.event_id == event_id).order_by(Round.number)))

    def get_round(self, round_id: int) -> Round:
        with self.sessions() as session:
            return self._get(session, Round, round_id)

    def create_board(self, event_id: int, number: int, label: str = "") -> tuple[BoardRow, str]:
        """A board and its station key; only the key's hash is stored, so it is shown once."""
        key = secrets.token_urlsafe(24)
        with self.sessions.begin() as session:
            self._get(session, Event, event_id)
            if session.scalar(select(BoardRow).where(BoardRow.event_id == event_id, BoardRow.number == number)):
                raise ConflictError(f"event {event_id} already has board {number}")
            row = BoardRow(event_id=event_id, number=number, label=label, station_key_hash=hash_key(key))
            session.add(row)
        return row, key

    def list_boards(self, event_id: int) -> list[BoardRow]:
        with self.sessions() as session:
            self._get(session, Event, event_id)
            return list(session.scalars(select(BoardRow).where(BoardRow.event_id == event_id)
                                        .order_by(BoardRow.number)))

    def get_board(self, board_id: int) -> BoardRow:
        with self.sessions() as session:
            return self._get(session, BoardRow, board_id)

    def create_game(self, variant_name: str, white: str = "", black: str = "", *, event_id: int | None = None,
                    round_id: int | None = None, board_id: int | None = None, start_fen: str | None = None,
                    initial_ms: int | None = None, increment_ms: int = 0, white_number: int | None = None,
                    black_number: int | None = None, match_id: int | None = None,
                    match_game: int | None = None) -> GameRow:
        """A new game. Without `start_fen` it starts from the game's start position, and a timed
        Commander Chess game in the mode its time chooses (`timed_start_fen`)."""
        variant = games.get(variant_name)
        if start_fen is None:  # every way a game is made (API, schedule, match, station) comes here
            start_fen = timed_start_fen(variant.name, initial_ms)
        if variant.name in TIMED_BY_DURATION:
            increment_ms = 0  # no time is handed back (hardware.clock.game_duration_control)
        board = variant.record_board(start_fen)  # raises InvalidFenError on a bad position
        with self.sessions.begin() as session:
            if event_id is not None:
                self._get(session, Event, event_id)
            if round_id is not None:
                rnd = self._get(session, Round, round_id)
                if event_id is not None and rnd.event_id != event_id:
                    raise RecordError(f"round {round_id} belongs to event {rnd.event_id}, not {event_id}")
                event_id = rnd.event_id
            if board_id is not None:
                physical = self._get(session, BoardRow, board_id)
                if event_id is not None and physical.event_id != event_id:
                    raise RecordError(f"board {board_id} belongs to event {physical.event_id}, not {event_id}")
                event_id = physical.event_id
            row = GameRow(variant=variant.name, white=white, black=black, event_id=event_id, round_id=round_id,
                          board_id=board_id, start_fen=board.fen(), initial_ms=initial_ms,
                          increment_ms=increment_ms, result="*", head_revision=0, white_number=white_number,
                          black_number=black_number, match_id=match_id, match_game=match_game)
            session.add(row)
            session.flush()
            revision = Revision(game_id=row.id, number=1, kind="create", author="referee", reason="",
                                detail={"white": white, "black": black, "fen": row.start_fen},
                                white_ms=initial_ms, black_ms=initial_ms)
            session.add(revision)
            row.head_revision = 1
        return row

    def list_games(self, event_id: int | None = None, round_id: int | None = None) -> list[GameRow]:
        with self.sessions() as session:
            query = select(GameRow).order_by(GameRow.id)
            if event_id is not None:
                query = query.where(GameRow.event_id == event_id)
            if round_id is not None:
                query = query.where(GameRow.round_id == round_id)
            return list(session.scalars(query))

    def get_game(self, game_id: int) -> GameRow:
        return self._state(game_id).row

    def station_may_write(self, game_id: int, key: str) -> bool:
        """Whether `key` is the station key of the board `game_id` is played on; `NotFoundError`
        for a game that does not exist (a station told its game id wrong, not its key)."""
        with self.sessions() as session:
            row = self._get(session, GameRow, game_id)
            if row.board_id is None:
                return False
            physical = session.get(BoardRow, row.board_id)
            return physical is not None and secrets.compare_digest(physical.station_key_hash, hash_key(key))

    def current_game(self, key: str) -> GameRow:
        """The game a board's station records now: the newest unfinished game on the board whose
        station key is `key`. A station started with its key alone finds it here, and after a
        restart the same one."""
        with self.sessions() as session:
            physical = session.scalar(select(BoardRow).where(BoardRow.station_key_hash == hash_key(key)))
            if physical is None:
                raise NotFoundError("no board has this station key")
            game = session.scalar(select(GameRow).where(GameRow.board_id == physical.id, GameRow.result == "*")
                                  .order_by(GameRow.id.desc()).limit(1))
            if game is None:
                raise NotFoundError(f"board {physical.number} ({physical.label or 'no label'}) has no game in "
                                    "progress; the referee creates the next game on it")
            session.expunge(game)
            return game

    # --- the record ------------------------------------------------------------------------

    def snapshot(self, game_id: int) -> dict[str, Any]:
        state = self._state(game_id)
        with state.lock:
            if state.snapshot_cache is None:
                state.snapshot_cache = self._snapshot(state)
            return state.snapshot_cache

    def board(self, game_id: int) -> Any:
        """A copy of the game's current board (the engine's, for points and outcomes)."""
        state = self._state(game_id)
        with state.lock:
            return state.board.copy()

    def position(self, game_id: int, ply: int) -> dict[str, Any]:
        """The game's position after its first `ply` moves (0: the start), for a diagram."""
        state = self._state(game_id)
        with state.lock:
            texts, start_fen, variant = list(state.texts), state.row.start_fen, state.variant
        if not 0 <= ply <= len(texts):
            raise RecordError(f"ply {ply} is outside game {game_id}'s record (0…{len(texts)})")
        board = variant.record_board(start_fen)
        reader = variant.notation(canonical_notation(variant))
        last = None
        for text in texts[:ply]:
            last = reader.parse(board, text)
            board.push(last)
        return position_view(variant, board, last)

    def moves(self, game_id: int) -> list[MoveRow]:
        self._state(game_id)
        with self.sessions() as session:
            return list(session.scalars(select(MoveRow).where(MoveRow.game_id == game_id,
                                                              MoveRow.superseded_by.is_(None))
                                        .order_by(MoveRow.ply)))

    def audit(self, game_id: int) -> list[Revision]:
        self._state(game_id)
        with self.sessions() as session:
            return list(session.scalars(select(Revision).where(Revision.game_id == game_id)
                                        .order_by(Revision.number)))

    def commit_move(self, game_id: int, text: str, *, notation: str | None = None, white_ms: int | None = None,
                    black_ms: int | None = None, evidence_id: str | None = None,
                    author: str = "station") -> dict[str, Any]:
        """Store a move played on the board; returns the snapshot to broadcast."""
        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            self._require_running(state)
            move = self._parse(state, text, notation)
            ply = len(state.texts) + 1
            revision = self._add_revision(state, session, "move", author, "", {"ply": ply})
            clock = self._clock_after_move(state, white_ms, black_ms)
            self._push(state, session, move, revision, evidence_id, clock)
            self._note_outcome(state, session, revision)
            return "", {}, ""
        return self._write(game_id, change)

    def raise_ambiguity(self, game_id: int, candidates: list[str], *, notation: str | None = None,
                        evidence_id: str | None = None, author: str = "station") -> dict[str, Any]:
        """The station saw a change that several legal moves explain; a referee must choose."""
        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            self._require_running(state)
            if len(candidates) < 2:
                raise RecordError(f"an ambiguity needs at least two candidate moves, got {len(candidates)}")
            moves = [self._parse(state, text, notation) for text in candidates]
            for index, move in enumerate(moves):
                if move in moves[:index]:
                    first = candidates[moves.index(move)]
                    raise RecordError(f"candidates {first!r} and {candidates[index]!r} are the same move: "
                                      "an ambiguity is between different moves")
            canonical = state.variant.notation(canonical_notation(state.variant))
            texts = [canonical.format(state.board, move) for move in moves]
            revision = self._add_revision(state, session, "ambiguity", author, "",
                                          {"candidates": texts, "evidence_id": evidence_id})
            for row in session.scalars(select(Ambiguity).where(Ambiguity.game_id == state.row.id,
                                                               Ambiguity.resolved_by.is_(None))):
                row.resolved_by = revision.id  # a newer question replaces an unanswered one
            row = Ambiguity(game_id=state.row.id, ply=len(state.texts) + 1, candidates=texts,
                            evidence_id=evidence_id)
            session.add(row)
            session.flush()
            state.ambiguity = {"id": row.id, "candidates": texts, "moves": moves}
            return "", {}, ""
        return self._write(game_id, change)

    def resolve_ambiguity(self, game_id: int, ambiguity_id: int, text: str, *, notation: str | None = None,
                          reason: str = "", author: str = "referee") -> dict[str, Any]:
        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            row = session.get(Ambiguity, ambiguity_id)
            if row is None or row.game_id != state.row.id:
                raise NotFoundError(f"game {state.row.id} has no ambiguity {ambiguity_id}")
            if row.resolved_by is not None:
                by = session.get(Revision, row.resolved_by)
                if by is not None and by.kind != "resolve":
                    raise ConflictError(f"ambiguity {ambiguity_id} was replaced by revision {by.number} ({by.kind}); "
                                        "answer the game's current question, if any")
                raise ConflictError(f"ambiguity {ambiguity_id} was already resolved")
            if row.ply != len(state.texts) + 1:
                raise ConflictError(f"ambiguity {ambiguity_id} asks for ply {row.ply}, but the record now waits for "
                                    f"ply {len(state.texts) + 1}")
            self._require_running(state)
            move = self._parse(state, text, notation)
            canonical = state.variant.notation(canonical_notation(state.variant)).format(state.board, move)
            revision = self._add_revision(state, session, "resolve", author, reason,
                                          {"ambiguity": ambiguity_id, "move": canonical,
                                           "candidates": row.candidates})
            row.resolved_by = revision.id
            clock = self._clock_after_move(state, None, None)
            self._push(state, session, move, revision, row.evidence_id, clock)
            state.ambiguity = None
            self._note_outcome(state, session, revision)
            return "", {}, ""
        return self._write(game_id, change)

    def correct(self, game_id: int, action: str, *, ply: int | None = None, move: str | None = None,
                notation: str | None = None, reason: str = "", author: str = "referee") -> dict[str, Any]:
        """A referee's correction, as a new revision: `correct` replaces the move at `ply`, `insert`
        puts a move before `ply`, `takeback` removes the moves from `ply` (default: the last one).
        The moves after the change are played again; one that is no longer legal is refused."""
        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            count = len(state.texts)
            target = ply if ply is not None else (count if action == "takeback" else count + 1)
            upper = count + 1 if action == "insert" else count
            if not 1 <= target <= max(upper, 0):
                raise RecordError(f"ply {target} is outside the record (1…{upper}) for {action}")
            if action in ("correct", "insert") and not move:
                raise RecordError(f"{action} needs the move to write")
            live = list(session.scalars(select(MoveRow).where(MoveRow.game_id == state.row.id,
                                                              MoveRow.superseded_by.is_(None))
                                        .order_by(MoveRow.ply)))
            kept, replaced = live[:target - 1], live[target - 1:]
            board = state.variant.record_board(state.row.start_fen)
            reader = state.variant.notation(canonical_notation(state.variant))
            for row in kept:
                board.push(reader.parse(board, row.text))
            state.board, state.texts = board, [row.text for row in kept]
            state.formatted = {name: moves[:target - 1] for name, moves in state.formatted.items()}
            new_rows: list[tuple[str, Any, MoveRow | None]] = []
            if action in ("correct", "insert"):
                new_rows.append(("new", self._parse(state, move or "", notation), None))
            following = replaced[1:] if action in ("correct", "takeback") else replaced
            if action == "takeback":
                following = []
            revision = self._add_revision(state, session, action, author, reason,
                                          {"ply": target, "move": move,
                                           "removed": [row.text for row in replaced]})
            for row in replaced:
                row.superseded_by = revision.id
            # An open question was about the record as it stood: the correction answers it or voids
            # it (the station asks again if it still doubts).
            for row in session.scalars(select(Ambiguity).where(Ambiguity.game_id == state.row.id,
                                                               Ambiguity.resolved_by.is_(None))):
                row.resolved_by = revision.id
            state.ambiguity = None
            for _, parsed, _ in new_rows:
                self._push(state, session, parsed, revision, None, self._last_clock(live, target - 1, state))
            for row in following:
                try:
                    parsed = reader.parse(state.board, row.text)
                except BancoError as error:
                    raise ConflictError(f"after {action} at ply {target}, the later move {row.text!r} "
                                        f"(ply {row.ply}) is no longer legal: {error}") from None
                self._push(state, session, parsed, revision, row.evidence_id,
                           _Clock(row.white_ms, row.black_ms))
            if state.row.termination and state.row.termination != Termination.ARBITER.value:
                state.row.result, state.row.termination = "*", None  # an automatic ending may be undone
            if action == "takeback":
                # The clocks go back to their readings after the last move kept, and the side now to
                # move has the move; kept on the revision, so that a restarted process reads the same.
                clock = self._last_clock(live, target - 1, state)
                revision.white_ms, revision.black_ms = clock.white_ms, clock.black_ms
                state.clock.white_ms, state.clock.black_ms = clock.white_ms, clock.black_ms
                running = bool(state.texts) and clock.white_ms is not None and state.row.result == "*"
                state.clock.running = state.board.turn if running else None
                state.clock.since = self.now() if running else None
            self._note_outcome(state, session, revision)
            return "", {}, ""
        return self._write(game_id, change)

    def adjust_clock(self, game_id: int, white_ms: int, black_ms: int, *, reason: str = "",
                     author: str = "referee") -> dict[str, Any]:
        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            if white_ms < 0 or black_ms < 0:
                raise RecordError(f"clock times must not be negative (white {white_ms}, black {black_ms})")
            revision = self._add_revision(state, session, "clock", author, reason, {})
            revision.white_ms, revision.black_ms = white_ms, black_ms
            state.clock.white_ms, state.clock.black_ms = white_ms, black_ms
            if state.clock.running is not None:
                state.clock.since = self.now()
            return "", {}, ""
        return self._write(game_id, change)

    def set_result(self, game_id: int, result: str, *, termination: str | None = None, reason: str = "",
                   author: str = "referee") -> dict[str, Any]:
        if result not in RESULTS:
            raise RecordError(f"result {result!r} is not one of {', '.join(RESULTS)}")
        known = {t.value for t in Termination}
        if termination is not None and termination not in known:
            raise RecordError(f"termination {termination!r} is not one of {', '.join(sorted(known))}")

        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            revision = self._add_revision(state, session, "result", author, reason,
                                          {"result": result, "termination": termination})
            state.row.result = result
            state.row.termination = None if result == "*" else (termination or Termination.ARBITER.value)
            if result != "*":
                self._stop_clock(state)
                if state.row.termination == Termination.TIME_FORFEIT.value and state.clock.white_ms is not None:
                    # A flag fell: the loser's clock reads zero, not what the server's count says.
                    if result == "1-0":
                        state.clock.black_ms = 0
                    elif result == "0-1":
                        state.clock.white_ms = 0
            if state.clock.white_ms is not None:
                # The times as the result stopped them (a game taken up again stays stopped until
                # its next move): a restarted server reads them back from here (`_load`).
                revision.white_ms, revision.black_ms = state.clock.white_ms, state.clock.black_ms
            return "", {}, ""
        return self._write(game_id, change)

    def enter_points(self, game_id: int, points_white: int, points_black: int, *, reason: str = "",
                     author: str = "referee") -> dict[str, Any]:
        """A game's points as the referee scored them off the board (a match game), as a `points`
        revision that keeps the points it replaces."""
        if points_white < 0 or points_black < 0:
            raise RecordError(f"points must not be negative (white {points_white}, black {points_black})")

        def change(state: _State, session: Session) -> tuple[str, dict[str, Any], str]:
            row = self._get(session, GameRow, state.row.id)
            self._add_revision(state, session, "points", author, reason,
                               {"white": points_white, "black": points_black,
                                "before": {"white": row.points_white, "black": row.points_black}})
            row.points_white, row.points_black = points_white, points_black
            return "", {}, ""
        return self._write(game_id, change)

    # --- internals -------------------------------------------------------------------------

    @staticmethod
    def _get(session: Session, model: type, ident: int):
        row = session.get(model, ident)
        if row is None:
            raise NotFoundError(f"no {model.__tablename__[:-1]} with id {ident}")
        return row

    def _state(self, game_id: int) -> _State:
        with self._states_lock:
            state = self._states.get(game_id)
        if state is not None:
            return state
        with self.sessions() as session:
            state = self._load(session, game_id)
        with self._states_lock:
            return self._states.setdefault(game_id, state)

    def _load(self, session: Session, game_id: int) -> _State:
        row = self._get(session, GameRow, game_id)
        session.expunge(row)
        variant = games.get(row.variant)
        board = variant.record_board(row.start_fen)
        reader = variant.notation(canonical_notation(variant))
        moves = list(session.scalars(select(MoveRow).where(MoveRow.game_id == game_id,
                                                           MoveRow.superseded_by.is_(None))
                                     .order_by(MoveRow.ply)))
        head = session.scalar(select(Revision).where(Revision.game_id == game_id)
                              .order_by(Revision.number.desc()).limit(1))
        state = _State(row=row, variant=variant, board=board, texts=[], formatted={n: [] for n in variant.notations},
                       head_id=head.id if head else 0, head_number=head.number if head else 0, clock=_Clock())
        for move_row in moves:
            self._append(state, reader.parse(board, move_row.text), move_row.text)
        clocked = session.scalar(select(Revision).where(Revision.game_id == game_id, Revision.white_ms.is_not(None))
                                 .order_by(Revision.number.desc()).limit(1))
        if clocked is not None:
            state.clock.white_ms, state.clock.black_ms = clocked.white_ms, clocked.black_ms
            # Running since the last clocked change, unless a result stopped it after the last move.
            stopped = session.scalar(select(Revision.number).where(Revision.game_id == game_id,
                                                                   Revision.kind == "result")
                                     .order_by(Revision.number.desc()).limit(1))
            moving = ("move", "resolve", "correct", "insert", "takeback")
            moved = session.scalar(select(Revision.number).where(Revision.game_id == game_id,
                                                                 Revision.kind.in_(moving))
                                   .order_by(Revision.number.desc()).limit(1))
            if moves and row.result == "*" and (stopped is None or (moved or 0) > stopped):
                state.clock.running = state.board.turn
                stamp = clocked.created_at
                if stamp.tzinfo is None:  # SQLite hands back naive times; they were written in UTC
                    stamp = stamp.replace(tzinfo=UTC)
                state.clock.since = stamp.timestamp()
        pending = session.scalar(select(Ambiguity).where(Ambiguity.game_id == game_id,
                                                         Ambiguity.resolved_by.is_(None))
                                 .order_by(Ambiguity.id.desc()).limit(1))
        if pending is not None and pending.ply == len(state.texts) + 1:
            state.ambiguity = {"id": pending.id, "candidates": pending.candidates,
                               "moves": [reader.parse(state.board, text) for text in pending.candidates]}
        return state

    def _write(self, game_id: int, change) -> dict[str, Any]:
        state = self._state(game_id)
        with state.lock:
            try:
                with self.sessions.begin() as session:
                    current = session.scalar(select(GameRow.head_revision).where(GameRow.id == game_id))
                    if current != state.head_number:  # another process wrote: start from the database
                        fresh = self._load(session, game_id)
                        fresh.lock = state.lock
                        state.__dict__.update({k: v for k, v in fresh.__dict__.items() if k != "lock"})
                    saved = self._save_point(state)
                    try:
                        change(state, session)
                        session.execute(update(GameRow).where(GameRow.id == game_id).values(
                            head_revision=state.head_number, result=state.row.result,
                            termination=state.row.termination))
                    except BaseException:
                        self._restore(state, saved)
                        raise
            except IntegrityError:
                with self.sessions() as session:
                    fresh = self._load(session, game_id)
                fresh.lock = state.lock
                state.__dict__.update({k: v for k, v in fresh.__dict__.items() if k != "lock"})
                raise ConflictError(f"game {game_id} changed meanwhile; send the change again") from None
            state.snapshot_cache = self._snapshot(state)
            return state.snapshot_cache

    @staticmethod
    def _save_point(state: _State) -> dict[str, Any]:
        return {"board": state.board.copy(), "texts": list(state.texts),
                "formatted": {k: list(v) for k, v in state.formatted.items()},
                "head_id": state.head_id, "head_number": state.head_number,
                "clock": _Clock(**state.clock.__dict__), "ambiguity": state.ambiguity,
                "result": state.row.result, "termination": state.row.termination}

    @staticmethod
    def _restore(state: _State, saved: dict[str, Any]) -> None:
        state.board, state.texts, state.formatted = saved["board"], saved["texts"], saved["formatted"]
        state.head_id, state.head_number = saved["head_id"], saved["head_number"]
        state.clock, state.ambiguity = saved["clock"], saved["ambiguity"]
        state.row.result, state.row.termination = saved["result"], saved["termination"]

    def _add_revision(self, state: _State, session: Session, kind: str, author: str, reason: str,
                      detail: dict[str, Any]) -> Revision:
        revision = Revision(game_id=state.row.id, number=state.head_number + 1, kind=kind, author=author,
                            reason=reason, detail=detail)
        session.add(revision)
        session.flush()
        state.head_id, state.head_number = revision.id, revision.number
        return revision

    def _parse(self, state: _State, text: str, notation: str | None) -> Move:
        if not isinstance(text, str) or not text.strip():
            raise RecordError("the move is empty")
        if notation:
            return state.variant.notation(notation).parse(state.board, text)
        return state.variant.parse_move(state.board, text)

    @staticmethod
    def _require_running(state: _State) -> None:
        if state.row.result != "*":
            raise GameOverError(f"game {state.row.id} is over ({state.row.result}, {state.row.termination}); "
                                "a referee correction is needed to continue it")

    def _append(self, state: _State, move: Move, text: str) -> None:
        for name, writer in state.variant.notations.items():
            try:
                state.formatted[name].append(writer.format(state.board, move))
            except Exception:  # a notation that cannot write this move still leaves the record whole
                state.formatted[name].append(text)
        state.board.push(move)
        state.texts.append(text)

    def _push(self, state: _State, session: Session, move: Move, revision: Revision, evidence_id: str | None,
              clock: _Clock) -> None:
        canonical_name = canonical_notation(state.variant)
        text = state.variant.notation(canonical_name).format(state.board, move)
        ply = len(state.texts) + 1
        self._append(state, move, text)
        session.add(MoveRow(game_id=state.row.id, ply=ply, text=text, notation=canonical_name,
                            white_ms=clock.white_ms, black_ms=clock.black_ms, evidence_id=evidence_id,
                            revision_id=revision.id))
        revision.white_ms, revision.black_ms = clock.white_ms, clock.black_ms
        state.clock.white_ms, state.clock.black_ms = clock.white_ms, clock.black_ms
        state.clock.running, state.clock.since = state.board.turn, self.now()
        state.ambiguity = None

    def _clock_after_move(self, state: _State, white_ms: int | None, black_ms: int | None) -> _Clock:
        """The station's clock readings when it has a clock; otherwise the server's own count."""
        clock = state.clock
        white, black = clock.white_ms, clock.black_ms
        if white_ms is not None or black_ms is not None:
            return _Clock(white_ms if white_ms is not None else white, black_ms if black_ms is not None else black)
        if white is None or black is None:
            return _Clock(white, black)
        mover = state.board.turn
        spent = int((self.now() - clock.since) * 1000) if clock.running is mover and clock.since else 0
        bonus = state.row.increment_ms or 0
        if mover is Color.WHITE:
            white = max(0, white - spent) + bonus
        else:
            black = max(0, black - spent) + bonus
        return _Clock(white, black)

    @staticmethod
    def _last_clock(live: list[MoveRow], upto: int, state: _State) -> _Clock:
        for row in reversed(live[:upto]):
            if row.white_ms is not None:
                return _Clock(row.white_ms, row.black_ms)
        return _Clock(state.row.initial_ms, state.row.initial_ms)

    def _stop_clock(self, state: _State) -> None:
        clock = state.clock
        if clock.running is not None and clock.since is not None and clock.white_ms is not None:
            spent = int((self.now() - clock.since) * 1000)
            if clock.running is Color.WHITE:
                clock.white_ms = max(0, clock.white_ms - spent)
            else:
                clock.black_ms = max(0, (clock.black_ms or 0) - spent)
        clock.running, clock.since = None, None

    def _note_outcome(self, state: _State, session: Session, revision: Revision) -> None:
        outcome: Outcome | None = state.board.outcome()
        if outcome is not None and state.row.result == "*":
            state.row.result, state.row.termination = outcome.result(), outcome.termination.value
            revision.detail = {**revision.detail, "result": outcome.result(),
                               "termination": outcome.termination.value}
            points = points_summary(state.board)
            if points is not None:  # a battle won is decided on points too (§12.1): the referee needs them
                revision.detail["points"] = points
            self._stop_clock(state)

    @staticmethod
    def _first_move(state: _State) -> dict[str, Any]:
        if state.first_move is None:
            start = state.variant.record_board(state.row.start_fen)
            state.first_move = {"number": int(getattr(start, "fullmove_number", 1) or 1),
                                "color": _color_code(start.turn)}
        return state.first_move

    def _snapshot(self, state: _State) -> dict[str, Any]:
        board, variant = state.board, state.variant
        first = self._first_move(state)
        last = None
        if state.texts:
            copy = board.copy()
            move = copy.pop()
            origin, target = _points(move)
            last = {"text": state.texts[-1], "from": origin, "to": target,
                    "formatted": {name: moves[-1] for name, moves in state.formatted.items()},
                    **move_number(first, len(state.texts))}
        pieces = pieces_of(variant, board)
        clock = state.clock
        ambiguity = None
        if state.ambiguity is not None:
            ambiguity = {"id": state.ambiguity["id"], "candidates": [
                {"text": text, "from": _points(move)[0], "to": _points(move)[1]}
                for text, move in zip(state.ambiguity["candidates"], state.ambiguity["moves"], strict=True)]}
        row = state.row
        return {
            "seq": state.head_id, "revision": state.head_number, "game_id": row.id, "variant": row.variant,
            "event_id": row.event_id, "round_id": row.round_id, "board_id": row.board_id,
            "white": row.white, "black": row.black, "fen": board.fen(), "turn": board.turn.value,
            "ply": len(state.texts), "check": bool(board.is_check()), "last_move": last, "first_move": first,
            "moves": {name: list(moves) for name, moves in state.formatted.items()},
            "default_notation": variant.default_notation,
            "clocks": {"white_ms": clock.white_ms, "black_ms": clock.black_ms,
                       "running": clock.running.value if clock.running else None, "since": clock.since},
            "result": row.result, "termination": row.termination, "pieces": pieces, "ambiguity": ambiguity,
        }
