"""Long legal games that look like play, for rendered videos: no engine strength, some taste.

Moves are drawn from the legal ones with weights: captures and moves forward are liked, a
piece going straight back to where it just came from is not, and a move that would end
the game is taken only when nothing else is left. Moves are written in the game's default
notation.

>>> moves = random_game("xiangqi", 12, seed=3)
>>> len(moves)
12
>>> moves == random_game("xiangqi", 12, seed=3)
True
"""

from __future__ import annotations

import random

import games
from games import Color

# What the acceptance suite calls "80 moves": plies for Xiangqi (two per move), turns elsewhere.
DEFAULT_PLIES = {"xiangqi": 160, "commander": 80, "cotoan": 80}


class PlayoutError(ValueError):
    """No game of the asked length could be played from these settings."""


def _forward(move, color: Color) -> int:
    step = move.to_point.rank - move.from_point.rank
    return step if color is Color.WHITE else -step


def random_game(game: str, plies: int | None = None, seed: int = 0, start_fen: str | None = None,
                attempts: int = 20) -> list[str]:
    """A legal game of `plies` plies (default: `DEFAULT_PLIES`), the same for the same seed."""
    variant = games.get(game)
    plies = DEFAULT_PLIES.get(variant.name, 80) if plies is None else plies
    notation = variant.notation()
    rng = random.Random(f"banco-playout:{game}:{seed}")
    for _ in range(attempts):
        board = variant.board(start_fen) if start_fen is not None else variant.board()
        written: list[str] = []
        last_from: dict[Color, tuple] = {}
        while len(written) < plies:
            legal = list(board.legal_moves)
            if not legal:
                break
            mover = board.turn
            weights = []
            for move in legal:
                weight = 1.0
                if board.piece_at(move.to_point) is not None:
                    weight *= 4.0
                weight *= 1.0 + 0.25 * max(0, _forward(move, mover))
                if last_from.get(mover) == (move.to_point, move.from_point):
                    weight *= 0.05  # straight back: the board would look as if nothing happened
                weights.append(weight)
            order = rng.choices(range(len(legal)), weights=weights, k=min(len(legal), 8))
            order += [i for i in rng.sample(range(len(legal)), len(legal)) if i not in order]
            chosen = None
            for index in order:
                move = legal[index]
                text = notation.format(board, move)
                board.push(move)
                if board.outcome() is None or len(written) + 1 == plies:
                    chosen = (move, text)
                    break
                board.pop()
            if chosen is None:
                break
            move, text = chosen
            last_from[mover] = (move.from_point, move.to_point)
            written.append(text)
        if len(written) == plies:
            return written
    raise PlayoutError(f"no {game} game of {plies} plies found in {attempts} tries (seed {seed})")
