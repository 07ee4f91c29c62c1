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
# How much more often a capture is chosen than a quiet move: Cờ Toán's captures need a ready
# pair of pieces and are rare among hundreds of quiet moves, so they get a strong pull.
CAPTURE_PULL = {"xiangqi": 4.0, "commander": 4.0, "cotoan": 40.0}


class PlayoutError(ValueError):
    """No game of the asked length could be played from these settings."""


def _owner(board, point) -> Color | None:
    piece = board.piece_at(point)
    if not piece:
        return None
    return piece.color if hasattr(piece, "color") else piece[0].color  # a Commander stack: its carrier


def _forward(move, color: Color) -> int:
    step = move.to_point.rank - move.from_point.rank
    return step if color is Color.WHITE else -step


def _board(variant, fen: str | None, referee: bool):
    if referee:
        return variant.board_class(fen or variant.starting_fen, referee=True)
    return variant.board(fen) if fen is not None else variant.board()


def random_game(game: str, plies: int | None = None, seed: int = 0, start_fen: str | None = None,
                attempts: int = 20, penalties: float = 0.0, complete: bool = False) -> list[str]:
    """A legal game of `plies` plies (default: `DEFAULT_PLIES`), the same for the same seed.

    Commander Chess only: with probability `penalties` a turn is a heavy piece crossing deep
    water that the referee puts back (§6.5, a ``$`` turn: nothing changes, the turn passes).

    Every move is one a camera can tell from the other legal moves (`_looks_unique`): in
    Commander Chess a passenger boarding one of two carriers it could reach leaves the same
    board in sight, which the tracker rightly hands to the referee, so rendered games for
    tests and demos avoid it. With `complete`, the game is played until the rules end it
    (within `plies` plies) instead of stopping at `plies`.
    """
    variant = games.get(game)
    referee = penalties > 0
    if referee and variant.name != "commander":
        raise PlayoutError("penalty turns exist only in Commander Chess (referee mode)")
    plies = DEFAULT_PLIES.get(variant.name, 80) if plies is None else plies
    notation = variant.notation()
    pull = CAPTURE_PULL.get(variant.name, 4.0)
    rng = random.Random(f"banco-playout:{game}:{seed}")
    for _ in range(attempts):
        board = _board(variant, start_fen, referee)
        written: list[str] = []
        last_from: dict[Color, tuple] = {}
        while len(written) < plies:
            legal = list(board.legal_moves)
            if not legal:
                break
            mover = board.turn
            if referee and rng.random() < penalties:
                crossings = board.penalty_turns()
                if crossings:
                    move = rng.choice(crossings)
                    written.append(notation.format(board, move))
                    board.push(move)
                    continue
            weights = []
            for move in legal:
                weight = 1.0
                owner = _owner(board, move.to_point)
                if owner is not None:
                    weight *= pull if owner is not mover else 0.5
                weight *= 1.0 + 0.25 * max(0, _forward(move, mover))
                if last_from.get(mover) == (move.to_point, move.from_point):
                    weight *= 0.05  # straight back: the board would look as if nothing happened
                weights.append(weight)
            order = rng.choices(range(len(legal)), weights=weights, k=min(len(legal), 8))
            order += [i for i in rng.sample(range(len(legal)), len(legal)) if i not in order]
            chosen = None
            distinct = _told_apart(board, legal) if variant.name == "commander" else None
            for index in order:
                move = legal[index]
                if distinct is not None and index not in distinct:
                    continue
                text = notation.format(board, move)
                board.push(move)
                if board.outcome() is None or len(written) + 1 == plies or complete:
                    chosen = (move, text)
                    break
                board.pop()
            if chosen is None:
                break
            move, text = chosen
            last_from[mover] = (move.from_point, move.to_point)
            written.append(text)
            if complete and board.outcome() is not None:
                return written
        if len(written) == plies and not complete:
            return written
    wanted = f"complete {game} game within {plies} plies" if complete else f"{game} game of {plies} plies"
    raise PlayoutError(f"no {wanted} found in {attempts} tries (seed {seed})")


def _told_apart(board, legal) -> set[int]:
    """Indices of the legal moves whose result the camera can tell from every other's (Commander
    Chess: a stack shows only its carrier), to keep the others out of rendered games."""
    from collections import Counter

    from vision.inference import rules_for

    rules = rules_for("commander")
    views = []
    for move in legal:
        board.push(move)
        views.append(rules.view(board).tobytes())
        board.pop()
    seen = Counter(views)
    return {index for index, view in enumerate(views) if seen[view] == 1}
