"""Building Cờ Toán positions for tests from cell → value maps."""

from __future__ import annotations

from games.cotoan import Board, parse_cell
from games.cotoan.board import FILES, RANKS


def position(white: dict[str, int], black: dict[str, int], *, turn: str = "w", operations: str = "+-*:",
             target: str = "-", scores: str | None = None, zeros: bool = True) -> str:
    """A position string with White's and Black's pieces (each 0 on its marked cell unless
    `zeros` is False or the map places it). Scores default to what is missing from each set."""
    cells = [["." for _ in range(FILES)] for _ in range(RANKS)]
    white, black = dict(white), dict(black)
    if zeros:
        white.setdefault("e2", 0)
        black.setdefault("e10", 0)
    for pieces, prefix in ((white, ""), (black, "-")):
        for name, value in pieces.items():
            point = parse_cell(name)
            cells[point.rank][point.file] = f"{prefix}{value}"
    rows = "/".join("".join(cells[rank]) for rank in range(RANKS - 1, -1, -1))
    if scores is None:
        scores = f"{45 - sum(black.values())}-{45 - sum(white.values())}"
    return f"{rows} {turn} {operations} {target} {scores} {turn} 1"


def board(white: dict[str, int], black: dict[str, int], **kwargs) -> Board:
    return Board(position(white, black, **kwargs))


def written(board: Board) -> set[str]:
    """Every legal move in the notation."""
    from games.cotoan import NOTATION

    return {NOTATION.format(board, move) for move in board.legal_moves}


def captures(board: Board) -> set[str]:
    return {text for text in written(board) if "x" in text}


def destinations(board: Board, cell: str) -> set[str]:
    """Cells the piece on `cell` reaches by plain moves."""
    start = parse_cell(cell)
    from games.cotoan import cell_name

    return {cell_name(m.to_point) for m in board.legal_moves if m.from_point == start and not m.is_capture}
