"""Commander Chess rules engine: speed measured against peers run in the same process.

    .venv/bin/python benchmarks/commander.py [--depth 3] [--rounds 5]

The machine is shared and noisy, so times are CPU time of this process (time.process_time),
every number is printed next to a peer measured in the same run, and the ratio is what counts:

* legal-turn generation per position (start, and a crowded middlegame with stacks) against
  Xiangqi move generation from its start position (the repo's other engine);
* perft from both positions against Xiangqi perft of the same depth (3 from the start, 2 from
  the middlegame by default: its depth-3 tree has millions of split-heavy nodes);
* the vision query `turns_to` against the brute force it replaces (play every legal turn
  and compare placements) on a position where one stack has hundreds of split turns.

(benchmarks/rules.py holds the same measures beside the Xiangqi ones, with perft(3) from a
middlegame reached by play; this file keeps the edited loaded-navy position and the vision query.)
"""

from __future__ import annotations

import argparse
import time

from games.commander import Board
from games.commander.board import _parse_pieces
from games.commander.observe import changed_points, turns_to
from games.commander.terrain import parse_point
from games.xiangqi import Board as XiangqiBoard


def middlegame() -> Board:
    """The start position with stacks on both sides: carriers loaded, an engineer ferrying."""
    board = Board()
    changes = {
        "3,2": "NTF", "3,5": None, "1,4": None, "3,7": "TI", "4,10": None, "4,9": None, "5,9": "EA",
        "2,9": None, "4,6": None, "5,6": "M",
        "8,2": "ntf", "8,5": None, "10,4": None, "8,7": "ti", "7,10": None, "7,9": None, "6,9": "ea",
        "9,9": None, "7,6": None, "6,6": None, "6,5": "m",
    }
    for point, text in changes.items():
        board.set_stack_at(parse_point(point), _parse_pieces(text, 0) if text else None)
    return Board(board.fen())


def best_of(rounds: int, work) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def generation(board) -> None:
    if isinstance(board, Board):
        board._cache.clear()
        board.generate_turns()
    else:
        list(board.legal_moves)


def brute_force(board: Board, after: Board) -> list:
    found = []
    for turn in list(board.generate_turns()):
        board._push_unchecked(turn)
        if not changed_points(board.squares, after.squares):
            found.append(turn)
        board.pop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="perft depth from the start")
    parser.add_argument("--middlegame-depth", type=int, default=2,
                        help="perft depth from the middlegame (3 means millions of split-heavy positions)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    start, crowded, xiangqi = Board(), middlegame(), XiangqiBoard()
    print(f"middlegame FEN: {crowded.fen()}")
    print(f"legal turns: start {len(start.generate_turns())}, middlegame {len(crowded.generate_turns())}; "
          f"xiangqi start {len(list(xiangqi.legal_moves))}")

    peer = best_of(args.rounds, lambda: generation(xiangqi))
    for name, board in (("start", start), ("middlegame", crowded)):
        t = best_of(args.rounds, lambda b=board: generation(b))
        print(f"generation/position  {name:<10} {t * 1e3:8.2f} ms   xiangqi {peer * 1e3:6.2f} ms   "
              f"ratio {t / peer:6.1f}x")

    peers: dict[int, tuple[int, float]] = {}
    for name, board, depth in (("start", start, args.depth), ("middlegame", crowded, args.middlegame_depth)):
        if depth not in peers:
            t0 = time.process_time()
            peers[depth] = (xiangqi.perft(depth), time.process_time() - t0)
        xn, peer = peers[depth]
        t0 = time.process_time()
        n = board.perft(depth)
        t = time.process_time() - t0
        print(f"perft({depth}) {name:<10} {n:>10} nodes {t:7.1f} s   xiangqi perft({depth}) {xn} in {peer:5.2f} s   "
              f"ratio {t / peer:6.1f}x   ({n / t:,.0f} vs {xn / peer:,.0f} nodes/s)")

    board = Board(crowded.fen())
    board.set_stack_at(parse_point("8,2"), None)
    board = Board(board.fen())
    stack_turns = len(board.turns_from(parse_point("3,2")))
    goal = next(t for t in board.turns_from(parse_point("3,2")) if len(t.actions) == 3)
    after = board.copy(stack=False)
    after._push_unchecked(goal)
    t_query = best_of(args.rounds, lambda: turns_to(board, after))
    t_brute = best_of(max(1, args.rounds // 2), lambda: brute_force(board, after))
    assert set(turns_to(board, after)) == set(brute_force(board, after))
    print(f"vision query: stack with {stack_turns} turns; turns_to {t_query * 1e3:.1f} ms vs brute force "
          f"{t_brute * 1e3:.1f} ms: {t_brute / t_query:.1f}x faster")


if __name__ == "__main__":
    main()
