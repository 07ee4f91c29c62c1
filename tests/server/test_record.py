"""The record on SQLite and on PostgreSQL: durable before broadcast, corrections as revisions."""

from __future__ import annotations

import pytest
from sqlalchemy import func, inspect, select

from games.base import GameOverError, IllegalMoveError
from server.record import ConflictError, Recorder, RecordError
from server.store import MoveRow, Revision, make_engine, migrate, session_factory

OPENING = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]


@pytest.fixture
def engine(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


def recorder(engine, clock=None) -> Recorder:
    return Recorder(session_factory(engine), **({"now": clock} if clock else {}))


def stored_moves(engine, game_id: int) -> list[str]:
    """Read the record with a connection of its own, as another process would."""
    with session_factory(engine)() as session:
        return list(session.scalars(select(MoveRow.text).where(MoveRow.game_id == game_id,
                                                                MoveRow.superseded_by.is_(None))
                                    .order_by(MoveRow.ply)))


def test_migrations_create_every_table_and_run_twice(engine):
    migrate(engine)
    tables = set(inspect(engine).get_table_names())
    assert {"events", "rounds", "boards", "games", "revisions", "moves", "ambiguities", "alembic_version"} <= tables


def test_a_move_is_stored_before_its_snapshot_is_returned(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi", "A", "B", initial_ms=600_000)
    for ply, move in enumerate(OPENING, start=1):
        snapshot = rec.commit_move(game.id, move, evidence_id=f"frame-{ply}", white_ms=600_000 - ply,
                                   black_ms=600_000 - 2 * ply)
        assert stored_moves(engine, game.id) == OPENING[:ply]
        assert snapshot["ply"] == ply and snapshot["moves"]["iccs"] == OPENING[:ply]
    with session_factory(engine)() as session:
        last = session.scalars(select(MoveRow).order_by(MoveRow.ply.desc())).first()
        assert (last.evidence_id, last.white_ms, last.black_ms) == ("frame-6", 599_994, 599_988)


def test_a_restarted_recorder_serves_the_same_snapshot(engine):
    first = recorder(engine)
    game = first.create_game("xiangqi", initial_ms=60_000)
    for move in OPENING:
        first.commit_move(game.id, move)
    before = first.snapshot(game.id)
    again = recorder(engine).snapshot(game.id)
    for key in ("seq", "revision", "fen", "moves", "last_move", "pieces", "result"):
        assert again[key] == before[key], key
    assert again["clocks"]["white_ms"] == before["clocks"]["white_ms"]


def test_an_illegal_move_is_refused_and_nothing_is_stored(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    rec.commit_move(game.id, "h2e2")
    with pytest.raises(IllegalMoveError, match="h2e2"):
        rec.commit_move(game.id, "h2e2")
    assert stored_moves(engine, game.id) == ["h2e2"]
    assert rec.snapshot(game.id)["ply"] == 1


def test_corrections_are_new_revisions_with_who_and_why(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    for move in OPENING[:4]:
        rec.commit_move(game.id, move)
    rec.correct(game.id, "correct", ply=3, move="b0c2", reason="camera misread the horse", author="referee A")
    assert stored_moves(engine, game.id) == ["h2e2", "h9g7", "b0c2", "i9h9"]
    rec.correct(game.id, "takeback", reason="played after flag", author="referee B")
    assert stored_moves(engine, game.id) == ["h2e2", "h9g7", "b0c2"]
    with pytest.raises(ConflictError, match="b0c2"):  # inserting one move hands b0c2 to Black
        rec.correct(game.id, "insert", ply=3, move="c3c4", reason="missed move", author="referee A")
    rec.correct(game.id, "insert", ply=4, move="i9h9", reason="missed move", author="referee A")
    assert stored_moves(engine, game.id) == ["h2e2", "h9g7", "b0c2", "i9h9"]
    history = rec.audit(game.id)
    corrections = [(r.kind, r.author, r.reason) for r in history if r.kind in ("correct", "takeback", "insert")]
    assert corrections == [("correct", "referee A", "camera misread the horse"),
                           ("takeback", "referee B", "played after flag"),
                           ("insert", "referee A", "missed move")]
    assert [r.number for r in history] == list(range(1, len(history) + 1))
    with session_factory(engine)() as session:
        # Nothing was deleted: every version of every move is still there.
        assert session.scalar(select(func.count()).select_from(MoveRow)) == 4 + 2 + 0 + 1
        assert session.scalar(select(func.count()).select_from(Revision)) == len(history)


def test_a_correction_that_breaks_later_moves_is_refused_and_changes_nothing(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    for move in OPENING[:4]:
        rec.commit_move(game.id, move)
    before = rec.snapshot(game.id)
    # With b9c7 instead of h9g7 the horse still stands on h9, so the chariot's i9h9 is illegal.
    with pytest.raises(ConflictError, match="i9h9"):
        rec.correct(game.id, "correct", ply=2, move="b9c7", reason="misread")
    assert rec.snapshot(game.id) == before
    assert stored_moves(engine, game.id) == OPENING[:4]
    assert [r.kind for r in rec.audit(game.id)][-1] == "move"


def test_ambiguity_then_resolution(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    snapshot = rec.raise_ambiguity(game.id, ["h2e2", "b2e2"], evidence_id="frame-9")
    assert [c["text"] for c in snapshot["ambiguity"]["candidates"]] == ["h2e2", "b2e2"]
    assert recorder(engine).snapshot(game.id)["ambiguity"]["id"] == snapshot["ambiguity"]["id"]
    resolved = rec.resolve_ambiguity(game.id, snapshot["ambiguity"]["id"], "b2e2", reason="replay")
    assert resolved["ambiguity"] is None and resolved["moves"]["iccs"] == ["b2e2"]
    with session_factory(engine)() as session:
        assert session.scalar(select(MoveRow.evidence_id)) == "frame-9"
    with pytest.raises(ConflictError, match="already resolved"):
        rec.resolve_ambiguity(game.id, snapshot["ambiguity"]["id"], "h9g7")


def test_an_ambiguity_between_one_move_twice_is_refused(engine):
    from server.record import RecordError

    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    # The same move, written twice or in two notations: nothing for the referee to choose.
    for candidates in (["h2e2", "h2e2"], ["h2e2", "C2.5"]):
        with pytest.raises(RecordError, match="are the same move"):
            rec.raise_ambiguity(game.id, candidates)
    assert rec.snapshot(game.id)["ambiguity"] is None


def test_result_ends_the_game_and_clocks_stop(engine):
    now = [1000.0]
    rec = recorder(engine, clock=lambda: now[0])
    game = rec.create_game("xiangqi", initial_ms=300_000, increment_ms=5_000)
    rec.commit_move(game.id, "h2e2")
    now[0] += 12.5
    snapshot = rec.commit_move(game.id, "h9g7")
    assert snapshot["clocks"]["black_ms"] == 300_000 - 12_500 + 5_000
    snapshot = rec.set_result(game.id, "0-1", termination="resignation", reason="White resigned")
    assert (snapshot["result"], snapshot["termination"], snapshot["clocks"]["running"]) == ("0-1", "resignation", None)
    with pytest.raises(GameOverError, match="over"):
        rec.commit_move(game.id, "h0g2")
    with pytest.raises(RecordError, match="2-0"):
        rec.set_result(game.id, "2-0")


def test_a_restarted_server_reads_the_clocks_a_result_stopped(engine):
    """The time charged when a result stops the clock, and a clock left stopped when the game
    is taken up again, are what a restarted process (or a second one) serves too."""
    now = [1000.0]
    rec = recorder(engine, clock=lambda: now[0])
    game = rec.create_game("xiangqi", initial_ms=300_000)
    rec.commit_move(game.id, "h2e2", white_ms=290_000, black_ms=300_000)
    now[0] += 11.0
    stopped = rec.set_result(game.id, "1-0")["clocks"]
    assert (stopped["black_ms"], stopped["running"]) == (289_000, None)
    assert recorder(engine, clock=lambda: now[0] + 60).snapshot(game.id)["clocks"] == stopped
    now[0] += 5.0
    reopened = rec.set_result(game.id, "*")["clocks"]
    assert (reopened["black_ms"], reopened["running"]) == (289_000, None)
    assert recorder(engine, clock=lambda: now[0] + 60).snapshot(game.id)["clocks"] == reopened


def test_two_processes_writing_one_game_stay_consistent(engine):
    one, two = recorder(engine), recorder(engine)
    game = one.create_game("xiangqi")
    one.commit_move(game.id, "h2e2")
    two.snapshot(game.id)  # two caches the game at ply 1
    one.commit_move(game.id, "h9g7")
    snapshot = two.commit_move(game.id, "h0g2")  # two must notice the change and build on it
    assert snapshot["moves"]["iccs"] == ["h2e2", "h9g7", "h0g2"]
    assert stored_moves(engine, game.id) == ["h2e2", "h9g7", "h0g2"]


def test_checkmate_sets_the_result(engine):
    rec = recorder(engine)
    # Two chariots: a8 holds rank 8, b7b9 checks along rank 9 and the general has no square.
    game = rec.create_game("xiangqi", start_fen="4k4/R8/1R7/9/9/9/9/9/9/3K5 w - - 0 1")
    snapshot = rec.commit_move(game.id, "b7b9")
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "checkmate")
    assert recorder(engine).snapshot(game.id)["result"] == "1-0"


@pytest.mark.parametrize("variant", ["xiangqi", "commander"])
def test_snapshots_number_the_last_move_as_a_viewer_reads_it(sqlite_url, variant):
    import games

    engine = make_engine(sqlite_url)
    migrate(engine)
    record = recorder(engine)
    game = record.create_game(variant)
    assert record.snapshot(game.id)["first_move"] == {"number": 1, "color": "w"}
    board = games.get(variant).board()
    seen = []
    for _ in range(3):
        move = next(iter(board.legal_moves))
        text = games.get(variant).notation(next(iter(games.get(variant).notations))).format(board, move)
        board.push(move)
        last = record.commit_move(game.id, text)["last_move"]
        seen.append((last["number"], last["color"]))
    assert seen == [(1, "w"), (1, "b"), (2, "w")]
    engine.dispose()


def test_a_record_starting_with_black_to_move_begins_with_an_ellipsis_number(sqlite_url):
    engine = make_engine(sqlite_url)
    migrate(engine)
    record = recorder(engine)
    after_cannon = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 12"
    game = record.create_game("xiangqi", start_fen=after_cannon)
    assert record.snapshot(game.id)["first_move"] == {"number": 12, "color": "b"}
    first = record.commit_move(game.id, "h9g7")["last_move"]
    second = record.commit_move(game.id, "h0g2")["last_move"]
    assert (first["number"], first["color"], second["number"], second["color"]) == (12, "b", 13, "w")
    engine.dispose()


def test_a_commander_referee_record_takes_a_penalty_turn_and_exports_it(sqlite_url):
    """§6.5: a heavy piece that crossed deep water is put back by the referee and the turn
    passes; the record keeps that `$` turn (and survives a reload from the database)."""
    import games
    from models.synth.playout import random_game

    moves = random_game("commander", 80, seed=3, penalties=0.05)
    first_penalty = next(i for i, text in enumerate(moves) if "$" in text)
    engine = make_engine(sqlite_url)
    migrate(engine)
    record = recorder(engine)
    game = record.create_game("commander")
    for text in moves[:first_penalty + 2]:
        record.commit_move(game.id, text)
    assert stored_moves(engine, game.id)[first_penalty].endswith("$")
    again = recorder(engine).snapshot(game.id)
    assert len(again["moves"][again["default_notation"]]) == first_penalty + 2
    plain = games.get("commander").board()
    for text in moves[:first_penalty]:
        plain.push(games.get("commander").parse_move(plain, text))
    with pytest.raises(IllegalMoveError):  # only a referee's board takes it
        games.get("commander").parse_move(plain, moves[first_penalty])
    engine.dispose()


def test_a_commander_game_keeps_no_increment_in_its_record(engine):
    """Timed by its duration (COMMANDER_RULES D34), a Commander game hands no time back: a 15+10
    request is stored as 15 minutes without increment, as the station plays it."""
    rec = recorder(engine)
    row = rec.create_game("commander", initial_ms=900_000, increment_ms=10_000)
    assert (row.initial_ms, row.increment_ms) == (900_000, 0)
    row = rec.create_game("xiangqi", initial_ms=900_000, increment_ms=10_000)
    assert (row.initial_ms, row.increment_ms) == (900_000, 10_000)


def test_a_takeback_turns_the_clocks_back_and_a_restarted_recorder_agrees(engine):
    now = [1000.0]
    rec = recorder(engine, clock=lambda: now[0])
    game = rec.create_game("xiangqi", initial_ms=900_000)
    rec.commit_move(game.id, "h2e2", white_ms=890_000, black_ms=900_000)
    now[0] += 20
    rec.commit_move(game.id, "h9g7", white_ms=890_000, black_ms=880_000)
    now[0] += 5
    clocks = rec.correct(game.id, "takeback", reason="touched, not moved")["clocks"]
    # Black's move is gone: Black's clock reads what it read before it, and runs.
    assert (clocks["white_ms"], clocks["black_ms"], clocks["running"]) == (890_000, 900_000, "b")
    again = recorder(engine, clock=lambda: now[0]).snapshot(game.id)["clocks"]
    assert (again["white_ms"], again["black_ms"], again["running"]) == (890_000, 900_000, "b")
    clocks = rec.correct(game.id, "takeback", reason="back to the start")["clocks"]
    assert (clocks["white_ms"], clocks["black_ms"], clocks["running"]) == (900_000, 900_000, None)


def test_a_correction_voids_the_open_question_and_a_stale_answer_is_refused(engine):
    rec = recorder(engine)
    game = rec.create_game("xiangqi")
    rec.commit_move(game.id, "h2e2")
    asked = rec.raise_ambiguity(game.id, ["h9g7", "b9c7"], evidence_id="frame-9")["ambiguity"]
    assert rec.correct(game.id, "takeback", reason="misread")["ambiguity"] is None
    assert recorder(engine).snapshot(game.id)["ambiguity"] is None
    with pytest.raises(ConflictError, match=f"ambiguity {asked['id']} was replaced by revision"):
        rec.resolve_ambiguity(game.id, asked["id"], "h2e2")
    assert stored_moves(engine, game.id) == []
