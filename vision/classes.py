"""What the classifier can say about a point, per game, and how that becomes a position.

Class names are ASCII (ultralytics writes them into the model). `EMPTY` and `OCCLUDED` are
shared: occluded means a hand or an arm hides the point (or the photo does not frame it),
which is no evidence either way.

>>> classes("commander")[:3]
('empty', 'red_navy', 'red_air_force')
>>> fen_letter("cotoan", "black_6"), class_of_letter("cotoan", "6")
('-6', 'white_6')
>>> import games
>>> appearance("xiangqi", games.get("xiangqi").board())[games.Point(4, 0)]
'red_general'
"""

from __future__ import annotations

from collections.abc import Mapping

from games import WHITE, Board, Point, get

EMPTY = "empty"
OCCLUDED = "occluded"

XIANGQI_PIECES = ("general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
_XIANGQI_FEN = dict(zip(XIANGQI_PIECES, "kabnrcp", strict=True))

# In the order of games.commander.pieces.Kind (the carriers' priority); letters as its FEN writes them.
COMMANDER_PIECES = ("navy", "air_force", "tank", "engineer", "headquarters", "commander", "infantry", "militia",
                    "artillery", "anti_aircraft", "missile")
_COMMANDER_FEN = dict(zip(COMMANDER_PIECES, "nftehcimags", strict=True))

COTOAN_DIGITS = tuple(range(10))

# Red is White under seed 001 ("with red and blue/green sets, Red = White"); Commander Chess
# plays Red against Blue (Red = White), Cờ Toán White (Trắng) against Black (Đen).
SIDES: dict[str, tuple[str, str]] = {"xiangqi": ("red", "black"), "commander": ("red", "blue"),
                                     "cotoan": ("white", "black")}

CLASSES: dict[str, tuple[str, ...]] = {
    "xiangqi": (EMPTY, *(f"red_{p}" for p in XIANGQI_PIECES), *(f"black_{p}" for p in XIANGQI_PIECES), OCCLUDED),
    "commander": (EMPTY, *(f"red_{p}" for p in COMMANDER_PIECES), *(f"blue_{p}" for p in COMMANDER_PIECES),
                  OCCLUDED),
    "cotoan": (EMPTY, *(f"white_{d}" for d in COTOAN_DIGITS), *(f"black_{d}" for d in COTOAN_DIGITS), OCCLUDED),
}


def piece_classes(game: str) -> tuple[str, ...]:
    """The classes that name a piece (neither empty nor occluded)."""
    return tuple(c for c in classes(game) if c not in (EMPTY, OCCLUDED))


def classes(game: str) -> tuple[str, ...]:
    try:
        return CLASSES[game]
    except KeyError:
        raise ValueError(f"no recognition classes for game {game!r}; known: {', '.join(CLASSES)}") from None


def _split(game: str, name: str) -> tuple[bool, str]:
    """(is the first side, kind) of a piece class; a clear error for anything else."""
    if name not in classes(game) or name in (EMPTY, OCCLUDED):
        raise ValueError(f"{name!r} is not a piece class of {game}")
    side, kind = name.split("_", 1)
    return side == SIDES[game][0], kind


def fen_letter(game: str, name: str) -> str | None:
    """The FEN spelling of a class's piece (None for empty/occluded).

    Xiangqi and Commander Chess: one letter, upper case for Red. Cờ Toán: the digit, with a
    minus sign for Black, as its position string writes it.
    """
    if name in (EMPTY, OCCLUDED):
        return None
    first, kind = _split(game, name)
    if game == "xiangqi":
        letter = _XIANGQI_FEN[kind]
    elif game == "commander":
        letter = _COMMANDER_FEN[kind]
    else:
        return kind if first else f"-{kind}"
    return letter.upper() if first else letter


def class_of_letter(game: str, letter: str) -> str:
    """The class of a FEN piece spelling: ``'N'`` → ``red_horse`` (Xiangqi), ``'+F'`` → ``red_air_force``
    (Commander Chess: a hero looks the same), ``'-6'`` → ``black_6`` (Cờ Toán)."""
    sides = SIDES.get(game)
    if sides is None:
        classes(game)  # raises the clear error
    text = letter.strip()
    if game == "xiangqi":
        letter_to_kind = {v: k for k, v in _XIANGQI_FEN.items()} | {"h": "horse", "e": "elephant"}
        kind = letter_to_kind.get(text.lower()) if len(text) == 1 else None
        first = text.isupper()
    elif game == "commander":
        bare = text[1:] if text.startswith("+") else text
        letter_to_kind = {v: k for k, v in _COMMANDER_FEN.items()}
        kind = letter_to_kind.get(bare.lower()) if len(bare) == 1 else None
        first = bare.isupper()
    else:
        first = not text.startswith("-")
        digit = text if first else text[1:]
        kind = digit if len(digit) == 1 and digit in "0123456789" else None
    if kind is None:
        raise ValueError(f"{letter!r} is not a {game} piece letter")
    return f"{sides[0] if first else sides[1]}_{kind}"


def appearance(game: str, board: Board) -> dict[Point, str]:
    """The class the camera should see at every point of `board`: ``empty`` where nothing
    stands, the piece's class elsewhere; on a Commander Chess stack, its carrier (the stack's
    first piece, which lies on top and hides the others)."""
    geometry = get(game).geometry
    sides = SIDES.get(game)
    if sides is None:
        classes(game)
    seen: dict[Point, str] = dict.fromkeys(geometry.points(), EMPTY)
    if game == "commander":
        for point in seen:
            stack = board.piece_at(point)  # type: ignore[attr-defined]
            if stack:
                top = stack[0]
                seen[point] = f"{sides[0] if top.color is WHITE else sides[1]}_{top.kind.name.lower()}"
        return seen
    pieces: Mapping = board.piece_map()  # type: ignore[attr-defined]
    for point, piece in pieces.items():
        if game == "xiangqi":
            seen[point] = class_of_letter(game, piece.symbol())
        else:
            seen[point] = f"{sides[0] if piece.color is WHITE else sides[1]}_{piece.value}"
    return seen
