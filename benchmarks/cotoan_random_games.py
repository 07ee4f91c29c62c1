"""5,000 seeded random Cờ Toán games to the end, every invariant checked at every ply (issue 4).

    .venv/bin/python benchmarks/cotoan_random_games.py [--games 5000] [--first-seed 0]

Each game draws its options (operations, points target, first player) from its seed; half the
games prefer captures. A game still going after 400 plies is stopped and decided on points.
Prints perft(1..3) from the start, then what the games did; exits 1 on any broken invariant.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from games.cotoan import Board
from games.cotoan.selfplay import MAX_PLIES, InvariantError, play_random_game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()

    start = Board()
    print("perft from the start:", ", ".join(f"{d}: {start.perft(d)}" for d in (1, 2, 3)))

    endings: Counter[str] = Counter()
    winners: Counter[str] = Counter()
    plies = captures = 0
    longest = 0
    for index, seed in enumerate(range(args.first_seed, args.first_seed + args.games), start=1):
        try:
            summary = play_random_game(seed)
        except InvariantError as error:
            print(f"FAILED: {error}")
            return 1
        kind = summary.outcome.termination.value + (" (stopped at the ply limit)" if summary.stopped else "")
        endings[kind] += 1
        winner = summary.outcome.winner
        winners["draw" if winner is None else winner.name.lower()] += 1
        plies += summary.plies
        captures += summary.captures
        longest = max(longest, summary.plies)
        if index % 500 == 0:
            print(f"  {index} games played", flush=True)

    print(f"games: {args.games} (seeds {args.first_seed}…{args.first_seed + args.games - 1}), "
          f"no exception, every invariant held at every ply")
    print(f"plies: {plies} (mean {plies / args.games:.1f}, longest {longest}, limit {MAX_PLIES}); captures: {captures}")
    for kind, count in endings.most_common():
        print(f"  ended by {kind}: {count}")
    print("winners:", ", ".join(f"{name} {count}" for name, count in winners.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
