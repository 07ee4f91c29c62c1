"""What the classifier can say about a point, per game, and how that becomes a position.

Class names are ASCII (ultralytics writes them into the model). `EMPTY` and `OCCLUDED` are
shared: occluded means a hand or an arm hides the point, which is no evidence either way.
"""

from __future__ import annotations

EMPTY = "empty"
OCCLUDED = "occluded"

XIANGQI_PIECES = ("general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
_XIANGQI_FEN = dict(zip(XIANGQI_PIECES, "kabnrcp", strict=True))

# Red is White under seed 001 ("with red and blue/green sets, Red = White").
CLASSES: dict[str, tuple[str, ...]] = {
    "xiangqi": (EMPTY, *(f"red_{p}" for p in XIANGQI_PIECES), *(f"black_{p}" for p in XIANGQI_PIECES), OCCLUDED),
}


def piece_classes(game: str) -> tuple[str, ...]:
    """The classes that name a piece (neither empty nor occluded)."""
    return tuple(c for c in classes(game) if c not in (EMPTY, OCCLUDED))


def classes(game: str) -> tuple[str, ...]:
    try:
        return CLASSES[game]
    except KeyError:
        raise ValueError(f"no recognition classes for game {game!r} yet; known: {', '.join(CLASSES)}") from None


def fen_letter(game: str, name: str) -> str | None:
    """The FEN letter of a class (None for empty/occluded)."""
    if name in (EMPTY, OCCLUDED):
        return None
    if game == "xiangqi":
        side, kind = name.split("_", 1)
        letter = _XIANGQI_FEN[kind]
        return letter.upper() if side == "red" else letter
    raise ValueError(f"no FEN letters for game {game!r}")


def class_of_letter(game: str, letter: str) -> str:
    if game == "xiangqi":
        letter_to_kind = {v: k for k, v in _XIANGQI_FEN.items()} | {"h": "horse", "e": "elephant"}
        kind = letter_to_kind[letter.lower()]
        return f"{'red' if letter.isupper() else 'black'}_{kind}"
    raise ValueError(f"no FEN letters for game {game!r}")
