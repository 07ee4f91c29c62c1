"""What the LEDs mean: pure functions from a game's state to a full-board frame.

A frame (`hardware.protocol.LedFrame`) gives every point a `Cell` (pattern and colour).
Each meaning is a *layer*, a mapping from points to cells; `render` stacks layers on an
all-off board, later layers winning. `frame_for` stacks them in the order of urgency:

    last move < check < lifted piece and its targets < ambiguity < illegal move < game end

The grid comes from a game's `Geometry` or from ``(files, ranks)``; the protocol names
9×10 (Cờ Tướng), 11×12 (Cờ Tư Lệnh) and 9×11 (Cờ Toán).

>>> from games.base import Point
>>> frame = render((9, 10), last_move(Point(7, 2), Point(4, 2)))
>>> frame.cell(4, 2) == LAST_TO, frame.cell(0, 0) == OFF
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from games.base import Color, Geometry, Move, Outcome, Point
from hardware.protocol import GRIDS, OFF, Cell, LedFrame, Pattern

Layer = Mapping[Point, Cell]

# The colours are chosen to be told apart by people with red-green colour blindness too:
# meaning is carried by the pattern (solid, blink, pulse) as much as by the hue.
LAST_FROM = Cell(Pattern.SOLID, 0x403000)
LAST_TO = Cell(Pattern.SOLID, 0xFFC000)
LIFTED = Cell(Pattern.SOLID, 0xFFFFFF)
TARGET = Cell(Pattern.SOLID, 0x00A0FF)
CAPTURE = Cell(Pattern.PULSE, 0x00A0FF)
CHECK = Cell(Pattern.BLINK, 0xFF0000)
ILLEGAL = Cell(Pattern.BLINK, 0xFF00FF)
CANDIDATE_FROM = Cell(Pattern.PULSE, 0x8000FF)
CANDIDATE_TO = Cell(Pattern.PULSE, 0xFF8000)
WINNER = Cell(Pattern.PULSE, 0x00FF00)
LOSER = Cell(Pattern.SOLID, 0xFF0000)
DRAW = Cell(Pattern.PULSE, 0xFFFFFF)


def grid_of(board: Geometry | tuple[int, int] | str) -> tuple[int, int]:
    """``(files, ranks)`` of a `Geometry`, a pair, or a game name the protocol knows.

    >>> grid_of("commander"), grid_of((9, 11))
    ((11, 12), (9, 11))
    """
    if isinstance(board, Geometry):
        return board.files, board.ranks
    if isinstance(board, str):
        try:
            return GRIDS[board]
        except KeyError:
            raise ValueError(f"no LED grid for game {board!r}; known: {', '.join(GRIDS)}") from None
    files, ranks = board
    if files < 1 or ranks < 1:
        raise ValueError(f"grid {files}x{ranks} has no points")
    return files, ranks


def render(board: Geometry | tuple[int, int] | str, *layers: Layer) -> LedFrame:
    """Stack `layers` on a dark board. Points outside the grid are an error, not ignored."""
    files, ranks = grid_of(board)
    cells = [OFF] * (files * ranks)
    for layer in layers:
        for point, cell in layer.items():
            if not (0 <= point.file < files and 0 <= point.rank < ranks):
                raise ValueError(f"point {tuple(point)} is outside the {files}x{ranks} grid")
            cells[point.rank * files + point.file] = cell
    return LedFrame(files, ranks, tuple(cells))


# ---------------------------------------------------------------- layers


def last_move(from_point: Point, to_point: Point) -> Layer:
    """The last move: a dim start and a bright end."""
    return {from_point: LAST_FROM, to_point: LAST_TO}


def lifted_piece(point: Point, targets: Iterable[Point], captures: Iterable[Point] = ()) -> Layer:
    """A piece in the hand: where it came from and where it may legally go (captures pulse)."""
    layer: dict[Point, Cell] = {target: TARGET for target in targets}
    layer.update({target: CAPTURE for target in captures})
    layer[point] = LIFTED
    return layer


def check(general: Point) -> Layer:
    """The general (commander) in check blinks red."""
    return {general: CHECK}


def illegal(points: Iterable[Point]) -> Layer:
    """The points where the board differs from the legal position blink until put right."""
    return {point: ILLEGAL for point in points}


def ambiguity(candidates: Iterable[Move | tuple[Point, Point]]) -> Layer:
    """The moves the camera cannot tell apart: their starts and ends pulse, for a human to pick."""
    layer: dict[Point, Cell] = {}
    for candidate in candidates:
        start, end = (candidate.from_point, candidate.to_point) if isinstance(candidate, Move) else candidate
        layer[start] = CANDIDATE_FROM
        layer[end] = CANDIDATE_TO
    return layer


def game_end(outcome: Outcome, generals: Mapping[Color, Point | None],
             board: Geometry | tuple[int, int] | str | None = None) -> Layer:
    """The winner's general pulses green and the loser's shows red; a draw pulses both white.

    A game without generals (Cờ Toán's 0 may be gone) lights every point in the result's
    colour when `board` is given.
    """
    layer: dict[Point, Cell] = {}
    for color, point in generals.items():
        if point is None:
            continue
        if outcome.winner is None:
            layer[point] = DRAW
        else:
            layer[point] = WINNER if color is outcome.winner else LOSER
    if not layer and board is not None:
        files, ranks = grid_of(board)
        cell = DRAW if outcome.winner is None else WINNER
        layer = {Point(f, r): cell for r in range(ranks) for f in range(files)}
    return layer


# ---------------------------------------------------------------- from a board


def targets_of(board, point: Point) -> tuple[frozenset[Point], frozenset[Point]]:
    """Legal destinations of the piece on `point`: (quiet moves, captures)."""
    quiet, captures = set(), set()
    for move in board.legal_moves:
        if move.from_point == point:
            (captures if board.piece_at(move.to_point) is not None else quiet).add(move.to_point)
    return frozenset(quiet), frozenset(captures)


def general_of(board, color: Color) -> Point | None:
    """Where `color`'s general (Xiangqi `king`) or commander stands, if the board can say; in
    Cờ Toán the 0, whose capture ends the game."""
    for name in ("king", "commander", "general"):
        finder = getattr(board, name, None)
        if callable(finder):
            return finder(color)
    find = getattr(board, "find", None)  # Cờ Toán: `find(value, color)`
    if callable(find):
        return find(0, color)
    square_of = getattr(board, "commander_square", None)  # Commander Chess: a square index, carried or not
    if callable(square_of):
        from games.commander.terrain import to_point

        square = square_of(color)
        return None if square is None else to_point(square)
    return None


def differences(board, observed: Mapping[Point, object | None], points: Iterable[Point]) -> frozenset[Point]:
    """Points whose observed occupant differs from the board's (`None` is empty).

    `observed` maps points to whatever the camera reports (compared with ``str`` of the
    board's piece, or with the piece itself); points missing from it are taken as empty.
    """
    different = set()
    for point in points:
        expected = board.piece_at(point)
        seen = observed.get(point)
        if expected is None and seen is None:
            continue
        if expected is None or seen is None or (seen != expected and str(seen) != str(expected)):
            different.add(point)
    return frozenset(different)


@dataclass(frozen=True)
class LedState:
    """Everything the LEDs can show at once; `frame_for` decides what wins."""

    last_move: tuple[Point, Point] | None = None
    check: Point | None = None
    lifted: Point | None = None
    targets: frozenset[Point] = frozenset()
    captures: frozenset[Point] = frozenset()
    candidates: tuple[tuple[Point, Point], ...] = ()
    illegal: frozenset[Point] = frozenset()
    outcome: Outcome | None = None
    generals: tuple[tuple[Color, Point | None], ...] = ()


def state_of(board, *, lifted: Point | None = None, illegal_points: Iterable[Point] = (),
             candidates: Iterable[Move] = ()) -> LedState:
    """Read a `LedState` from a rules engine's board (duck-typed: python-chess style API)."""
    last = None
    if callable(getattr(board, "peek", None)):
        try:
            move = board.peek()
            last = (move.from_point, move.to_point)
        except (IndexError, AttributeError):
            last = None
    in_check = None
    if board.is_check():
        in_check = general_of(board, board.turn)
    targets, captures = (frozenset(), frozenset())
    if lifted is not None:
        targets, captures = targets_of(board, lifted)
    outcome = board.outcome()
    generals = ()
    if outcome is not None:
        generals = tuple((color, general_of(board, color)) for color in Color)
    return LedState(
        last_move=last,
        check=in_check,
        lifted=lifted,
        targets=targets,
        captures=captures,
        candidates=tuple((m.from_point, m.to_point) for m in candidates),
        illegal=frozenset(illegal_points),
        outcome=outcome,
        generals=generals,
    )


def frame_for(board: Geometry | tuple[int, int] | str, state: LedState) -> LedFrame:
    """The frame for `state`, the most urgent meaning on top."""
    layers: list[Layer] = []
    if state.last_move is not None:
        layers.append(last_move(*state.last_move))
    if state.check is not None:
        layers.append(check(state.check))
    if state.lifted is not None:
        layers.append(lifted_piece(state.lifted, state.targets, state.captures))
    if state.candidates:
        layers.append(ambiguity(state.candidates))
    if state.illegal:
        layers.append(illegal(state.illegal))
    if state.outcome is not None:
        layers.append(game_end(state.outcome, dict(state.generals), board))
    return render(board, *layers)
