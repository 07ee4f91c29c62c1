"""A longer, seeded version of the notation round-trip property, run by hand (not by pytest):

    .venv/bin/python -m tests.games.soak_xiangqi_notation --games 30 --plies 200

Plays seeded random games; in every position every legal move is written in every
notation, read back by that notation and by auto-detection, and must come back unchanged.
Prints how many positions, moves and tandem-marker cases were checked.
"""

from __future__ import annotations

import argparse
import collections
import random

import games
from games.xiangqi.notation import NOTATIONS, relative_moves


def soak(n_games: int, plies: int, seed: int) -> collections.Counter:
    variant = games.get("xiangqi")
    counts: collections.Counter = collections.Counter()
    for game in range(n_games):
        rng = random.Random(seed + game)
        board = variant.board()
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            counts["positions"] += 1
            for move in moves:
                counts["moves"] += 1
                for name, notation in NOTATIONS.items():
                    text = notation.format(board, move)
                    if notation.parse(board, text) != move or variant.parse_move(board, text) != move:
                        raise AssertionError(f"{name} {text!r} does not read back as {move} in {board.fen()}")
            for _move, rel in relative_moves(board):
                if rel.marker:
                    counts[f"marker {rel.kind.name.lower()} {rel.marker}"] += 1
            board.push(rng.choice(moves))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    counts = soak(args.games, args.plies, args.seed)
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")
    print("all round trips OK")


if __name__ == "__main__":
    main()
