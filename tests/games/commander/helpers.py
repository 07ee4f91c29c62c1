"""Building Commander Chess positions for tests: ``make({"9,2": "(NTF)", "11,4": "c"})``."""

from games.commander import Board
from games.commander.board import _parse_pieces
from games.commander.notation import SECRETARY
from games.commander.terrain import parse_point, seed_name

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


KINGS = {"0,8": "C", "11,6": "c"}  # commanders out of each other's lines


def with_kings(pieces: dict[str, str | None], **kw) -> Board:
    """`pieces` plus the commanders and two spare pieces a side on the back ranks, so that no
    piece becomes a last defender (§10.2) by accident."""
    used = "".join(v or "" for v in pieces.values())
    spare = next(letter for letter in "HEI" if letter not in used.upper())
    padding = {"0,3": spare, "0,4": spare, "11,3": spare.lower(), "11,4": spare.lower()}
    return make({**KINGS, **padding, **pieces}, **kw)


def targets(board: Board, point: str) -> set[str]:
    """Destination names of the single actions starting on `point`."""
    square = parse_point(point)
    return {seed_name(t.actions[0].target) for t in board.turns_from(square) if len(t.actions) == 1}


def play(board: Board, text: str) -> None:
    """Parse a secretary-notation turn and push it."""
    board.push(SECRETARY.parse(board, text))
