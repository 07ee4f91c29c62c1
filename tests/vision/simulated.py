"""Simulated camera observations: noisy class probabilities drawn around the true appearance."""

from __future__ import annotations

import numpy as np

import games
from games import Board, Point
from vision import inference as inf


def noisy_evidence(game: str, board: Board, rng: np.random.Generator, *, noise: float = 0.25,
                   occluded: set[Point] = frozenset(), overrides: dict[Point, str] | None = None) -> inf.Evidence:
    """One observation of `board`: each row puts most (not all) weight on the true class.

    `noise` is the share of rows whose true class gets only a weak lead (a blurred or badly
    lit crop); `overrides` forces what the camera sees at some points (an illegal change).
    """
    classes = inf.game_classes(game)
    view = inf.appearance(game, board)
    view.update(overrides or {})
    points = list(games.get(game).geometry.points())
    probs = rng.dirichlet(np.full(len(classes), 0.3), size=len(points))
    for i, point in enumerate(points):
        true = classes.index(view[point])
        confidence = rng.uniform(0.45, 0.7) if rng.random() < noise else rng.uniform(0.85, 0.995)
        probs[i] *= (1 - confidence) / probs[i].sum()
        probs[i, true] += confidence
    mask = np.array([p in occluded for p in points])
    return inf.Evidence.from_probabilities(game, classes, points, probs, mask)


def random_game(game: str, plies: int, rng: np.random.Generator, fen: str | None = None,
                prefer=None) -> tuple[Board, list]:
    """A seeded random legal game from the start (captures preferred, so pieces meet)."""
    variant = games.get(game)
    board = variant.board(fen)
    start = board.copy()
    moves = []
    for _ in range(plies):
        if board.outcome() is not None:
            break
        legal = list(board.legal_moves)
        if not legal:
            break
        favoured = [m for m in legal if prefer and prefer(board, m)]
        pool = favoured if favoured and rng.random() < 0.5 else legal
        move = pool[int(rng.integers(len(pool)))]
        moves.append(move)
        board.push(move)
    return start, moves
