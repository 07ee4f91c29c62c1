"""Repetition under seed 001: perpetual check or chase loses, other repetition draws.

Placeholder judgement (threefold repetition is a draw); the full AXF chase rules follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.base import Outcome, Termination

if TYPE_CHECKING:
    from games.xiangqi.board import Board


def judge_repetition(board: Board) -> Outcome | None:
    keys = [undo.key for undo in board._undo] + [board.zobrist()]
    if keys.count(board.zobrist()) >= 3:
        return Outcome(Termination.REPETITION, None)
    return None
