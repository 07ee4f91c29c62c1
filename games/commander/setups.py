"""Setups other than the template (§3.3): secret deployment, checked before play (D31).

>>> from games.commander.board import STARTING_FEN
>>> validate_setup(STARTING_FEN)
>>> try:
...     validate_setup("11/11/11/11/11/11/11/11/11/11/11/6C4 r")
... except SetupError as error:
...     print(error)
Red has 1 of 19 pieces: missing 2 × headquarters, ...
"""

from __future__ import annotations

from collections import Counter

from games.base import InvalidFenError
from games.commander import rules
from games.commander import terrain as tr
from games.commander.board import STANDARD_COUNTS, Board
from games.commander.pieces import BLUE, RED, Kind, color_name


class SetupError(InvalidFenError):
    """A deployment that §3.3 does not allow."""


def validate_setup(fen: str) -> None:
    """§3.3 (D31): all 19 pieces on the own half, legal terrain, no stacks except a commander
    inside an HQ, and the commanders not facing each other. Raises SetupError."""
    board = Board(fen)  # terrain and stack legality are checked by the FEN reader
    for color in (RED, BLUE):
        counts = Counter(p.kind for _, p in board.pieces(color))
        missing = [f"{n - counts[k]} × {k.label}" for k, n in STANDARD_COUNTS.items() if counts[k] < n]
        if missing:
            total = sum(counts.values())
            shown = ", ".join(missing[:1]) + (", ..." if len(missing) > 1 else "")
            raise SetupError(f"{color_name(color)} has {total} of 19 pieces: missing {shown}")
    for square, stack in enumerate(board.squares):
        if stack is None:
            continue
        name = f"{tr.seed_name(square)} ({tr.square_name(square)})"
        own_half = 0 if stack[0].color is RED else 1
        if tr.half_of(square) != own_half:
            raise SetupError(f"{color_name(stack[0].color)} {stack[0].kind.label} on {name} is not on its own half")
        if len(stack) > 1 and [p.kind for p in stack] != [Kind.HEADQUARTERS, Kind.COMMANDER]:
            raise SetupError(f"stack on {name}: only a commander inside an HQ may start stacked")
    if rules.commanders_face(board.squares):
        raise SetupError("the commanders face each other (§9.3)")


def reveal(red_fen: str, blue_fen: str, first: str = "r") -> str:
    """Merge two secret deployments, each a FEN with only one side's pieces, and check the
    result (§3.3: both are revealed together). Returns the game's starting FEN."""
    red, blue = Board(red_fen), Board(blue_fen)
    if blue.pieces(BLUE) and red.pieces(BLUE) or red.pieces(BLUE):
        raise SetupError("Red's deployment holds Blue pieces")
    if blue.pieces(RED):
        raise SetupError("Blue's deployment holds Red pieces")
    merged = Board(None)
    merged.squares = [r or b for r, b in zip(red.squares, blue.squares, strict=True)]
    merged.turn = RED if first == "r" else BLUE
    fen = merged.fen()
    validate_setup(fen)
    return fen
