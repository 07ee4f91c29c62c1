"""Building Commander Chess positions for tests: ``make({"9,2": "(NTF)", "11,4": "c"})``."""

from games.commander import Board
from games.commander.board import _parse_pieces
from games.commander.terrain import parse_point

EMPTY = "/".join(["11"] * 12)


def make(pieces: dict[str, str], turn: str = "r", mode: str = "w", **options) -> Board:
    """A board with `pieces` (point → FEN stack, Red uppercase), `turn` to move, `mode` field."""
    board = Board(f"{EMPTY} {turn} - {mode} 0 1", **options)
    for point, text in pieces.items():
        board.set_stack_at(parse_point(point), _parse_pieces(text.strip("()"), 0) if text else None)
    # Re-read through FEN so terrain and counts are validated like any position.
    return Board(board.fen(), **options)


def names(board: Board) -> set[str]:
    return {turn.name() for turn in board.legal_moves}
