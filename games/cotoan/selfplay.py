"""Seeded random games to the end, checking the board's invariants at every ply.

Used by the tests (a few hundred games) and by ``benchmarks/cotoan_random_games.py`` (5,000).
Pure: the randomness comes from a `random.Random` seeded by the caller.

>>> summary = play_random_game(7)
>>> summary.outcome is not None and summary.plies > 0
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.base import BLACK, WHITE, Outcome
from games.cotoan.board import SET_POINTS, Board
from games.cotoan.options import TARGETS, GameOptions

OPERATION_SETS = ("+-*:", "+", "+-", "+*", "+:", "-*:", "*")
# A random game that has not ended after this many plies is stopped and decided on points, as
# the seed allows when "hai bên chơi 1 thời gian dài nhưng không thể ăn quân 0 của nhau".
MAX_PLIES = 400


class InvariantError(AssertionError):
    """The board broke one of its own invariants during a random game."""


@dataclass(frozen=True)
class GameSummary:
    seed: int
    options: GameOptions
    greedy: bool
    plies: int
    captures: int
    stopped: bool
    outcome: Outcome


def random_options(rng: random.Random) -> GameOptions:
    return GameOptions(
        operations=rng.choice(OPERATION_SETS),
        target=rng.choice((None, *TARGETS)),
        first=rng.choice((WHITE, BLACK)),
    )


def _check(condition: bool, seed: int, board: Board, message: str) -> None:
    if not condition:
        raise InvariantError(f"seed {seed}, ply {len(board.move_stack)}: {message} in {board.fen()}")


def play_random_game(seed: int, max_plies: int = MAX_PLIES) -> GameSummary:
    """Play one game of random legal moves from the start, checking after every ply that

    - the piece count falls by one on a capture and stays the same otherwise;
    - each side's score is what is missing from the other side's set;
    - the position string reads back to the same string, side, scores and legal moves;
    - popping every move returns to the start.

    Half the games (by seed) prefer captures, so that targets and 0 captures are reached often.
    """
    rng = random.Random(seed)
    options = random_options(rng)
    greedy = rng.random() < 0.5
    board = Board.new_game(options)
    start = board.fen()
    captures = 0
    while board.outcome() is None and len(board.move_stack) < max_plies:
        moves = list(board.legal_moves)
        capturing = [move for move in moves if move.is_capture]
        move = rng.choice(capturing if greedy and capturing and rng.random() < 0.7 else moves)
        before = board.piece_count()
        board.push(move)
        captures += move.is_capture
        _check(board.piece_count() == before - (1 if move.is_capture else 0), seed, board,
               f"piece count {before} → {board.piece_count()} after {move}")
        for color, other in ((WHITE, BLACK), (BLACK, WHITE)):
            _check(board.score(color) == SET_POINTS - board.material(other), seed, board,
                   f"{color.name} score is off")
        fen = board.fen()
        again = Board(fen)
        _check(again.fen() == fen, seed, board, f"position string reads back as {again.fen()}")
        _check(list(again.legal_moves) == list(board.legal_moves), seed, board,
               "the position string's board has other legal moves")
        _check(again.outcome() == board.outcome(), seed, board, "the position string's board ends otherwise")
    stopped = board.outcome() is None
    outcome = board.outcome(stop=True)
    assert outcome is not None
    plies = len(board.move_stack)
    while board.move_stack:
        board.pop()
    _check(board.fen() == start, seed, board, "popping every move does not return to the start")
    return GameSummary(seed, options, greedy, plies, captures, stopped, outcome)
