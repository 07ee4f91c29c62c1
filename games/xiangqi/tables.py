"""Precomputed move tables for the 9×10 Xiangqi board.

A square is ``rank * 9 + file``: 0 is a0 (White's left corner), 89 is i9. Pieces are small
integers, positive for White and negative for Black, so that ``piece * sign > 0`` means
"belongs to the side whose sign is `sign`". Tables are indexed by colour: 0 White, 1 Black.
"""

from __future__ import annotations

import random

FILES = 9
RANKS = 10
SQUARES = FILES * RANKS

EMPTY = 0
GENERAL, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER = range(1, 8)

# FEN letters. Input also accepts h (horse) and e (elephant).
LETTERS = {GENERAL: "k", ADVISOR: "a", ELEPHANT: "b", HORSE: "n", CHARIOT: "r", CANNON: "c",
           SOLDIER: "p"}
FROM_LETTER = {letter: kind for kind, letter in LETTERS.items()} | {"h": HORSE, "e": ELEPHANT}


def square(file: int, rank: int) -> int:
    return rank * FILES + file


def file_of(sq: int) -> int:
    return sq % FILES


def rank_of(sq: int) -> int:
    return sq // FILES


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < FILES and 0 <= rank < RANKS


def in_palace(color: int, file: int, rank: int) -> bool:
    ranks = range(0, 3) if color == 0 else range(7, 10)
    return 3 <= file <= 5 and rank in ranks


def own_side(color: int, rank: int) -> bool:
    return rank <= 4 if color == 0 else rank >= 5


def _rays(sq: int) -> tuple[tuple[int, ...], ...]:
    f, r = file_of(sq), rank_of(sq)
    rays = []
    for df, dr in ((0, 1), (0, -1), (-1, 0), (1, 0)):
        ray = []
        nf, nr = f + df, r + dr
        while _on_board(nf, nr):
            ray.append(square(nf, nr))
            nf, nr = nf + df, nr + dr
        rays.append(tuple(ray))
    return tuple(rays)


def _horse_moves(sq: int) -> tuple[tuple[int, int], ...]:
    f, r = file_of(sq), rank_of(sq)
    moves = []
    for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
        if not _on_board(f + df, r + dr):
            continue
        # The leg is the first, orthogonal step: along the long side of the L.
        leg = square(f, r + dr // 2) if abs(dr) == 2 else square(f + df // 2, r)
        moves.append((square(f + df, r + dr), leg))
    return tuple(moves)


def _elephant_moves(color: int, sq: int) -> tuple[tuple[int, int], ...]:
    f, r = file_of(sq), rank_of(sq)
    moves = []
    for df, dr in ((2, 2), (2, -2), (-2, 2), (-2, -2)):
        nf, nr = f + df, r + dr
        if _on_board(nf, nr) and own_side(color, nr) and own_side(color, r):
            moves.append((square(nf, nr), square(f + df // 2, r + dr // 2)))
    return tuple(moves)


def _steps(sq: int, deltas, allowed) -> tuple[int, ...]:
    f, r = file_of(sq), rank_of(sq)
    return tuple(square(f + df, r + dr) for df, dr in deltas
                 if _on_board(f + df, r + dr) and allowed(f + df, r + dr))


_ORTHO = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _soldier_moves(color: int, sq: int) -> tuple[int, ...]:
    forward = 1 if color == 0 else -1
    deltas = [(0, forward)]
    if not own_side(color, rank_of(sq)):
        deltas += [(1, 0), (-1, 0)]
    return _steps(sq, deltas, lambda f, r: True)


RAYS = tuple(_rays(sq) for sq in range(SQUARES))
HORSE_MOVES = tuple(_horse_moves(sq) for sq in range(SQUARES))
ELEPHANT_MOVES = tuple(tuple(_elephant_moves(c, sq) for sq in range(SQUARES)) for c in (0, 1))
ADVISOR_MOVES = tuple(
    tuple(_steps(sq, _DIAG, lambda f, r, c=c: in_palace(c, f, r)) if in_palace(c, file_of(sq), rank_of(sq)) else ()
          for sq in range(SQUARES))
    for c in (0, 1))
GENERAL_MOVES = tuple(
    tuple(_steps(sq, _ORTHO, lambda f, r, c=c: in_palace(c, f, r)) if in_palace(c, file_of(sq), rank_of(sq)) else ()
          for sq in range(SQUARES))
    for c in (0, 1))
SOLDIER_MOVES = tuple(tuple(_soldier_moves(c, sq) for sq in range(SQUARES)) for c in (0, 1))


def _invert_horse() -> tuple[tuple[tuple[int, int], ...], ...]:
    attackers: list[list[tuple[int, int]]] = [[] for _ in range(SQUARES)]
    for sq in range(SQUARES):
        for to, leg in HORSE_MOVES[sq]:
            attackers[to].append((sq, leg))
    return tuple(tuple(a) for a in attackers)


def _invert_soldier(color: int) -> tuple[tuple[int, ...], ...]:
    attackers: list[list[int]] = [[] for _ in range(SQUARES)]
    for sq in range(SQUARES):
        for to in SOLDIER_MOVES[color][sq]:
            attackers[to].append(sq)
    return tuple(tuple(a) for a in attackers)


# HORSE_ATTACKERS[sq]: (horse square, leg square) pairs of horses that reach sq.
HORSE_ATTACKERS = _invert_horse()
# SOLDIER_ATTACKERS[c][sq]: squares from which a soldier of colour c reaches sq.
SOLDIER_ATTACKERS = (_invert_soldier(0), _invert_soldier(1))

_rng = random.Random(0x6BA4C0)
# ZOBRIST[piece + 7][sq]; ZOBRIST_BLACK is mixed in when Black is to move.
ZOBRIST = tuple(tuple(_rng.getrandbits(64) for _ in range(SQUARES)) for _ in range(15))
ZOBRIST_BLACK = _rng.getrandbits(64)
