"""Differential check of the turn generator: fingerprints of the legal turns along seeded games.

The fingerprints in ``data/generator_fingerprints.json`` were recorded with the generator as it
stood before the speed work (commit e7c58f4), so any optimisation must reproduce them exactly::

    .venv/bin/python -m tests.games.commander.fingerprints --check     # every game (a few minutes)
    .venv/bin/python -m tests.games.commander.fingerprints --record    # only when the rules change

A game here chooses its turns from the legal turns sorted by a description that does not depend
on the generator's internals or order, so the same rules replay the same game. At every ply the
fingerprint covers the set of legal turns (pieces, points, act and fate of each action, order
free), the check status, and the result; at the end the final FEN and result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

from games.commander import NINE_PIECE_FEN, STARTING_FEN, Board, Turn

DATA = Path(__file__).parent / "data" / "generator_fingerprints.json"

# A crowded start with stacks on both sides (navies loaded, tanks carrying, engineers ferrying):
# random games from here keep many stacks and split turns on the board.
STACKED_FEN = ("6c4/4fh1h(fm)2/3a2s4/2(nt)1g2(ti)g2/3e6(ea)/11/11/3E6(EA)/2(NT)1G2(TI)G2/3A2S4/"
               "4FH1H(FM)2/6C4 r - - 0 1")

# benchmarks/commander.py's middlegame: ~1,900 turns, most of them splits of two loaded navies.
CROWDED_FEN = ("6c4/1n3h1hf2/3a2s4/2(ntf)1g2(ti)g2/2ie7/5m3(ea)1/6M2(EA)1/2IE7/2(NTF)1G2(TI)G2/3A2S4/"
               "1N3H1HF2/6C4 r - - 0 1")

# (label, FEN, mode, safe, seeds, plies): a few thousand positions in all.
GAMES = [
    ("battle", STARTING_FEN, "battle", False, range(12), 150),
    ("war", STARTING_FEN, "war", False, range(12), 200),
    ("nine", NINE_PIECE_FEN, "nine", False, range(12), 150),
    ("safe", STARTING_FEN, "war", True, range(4), 120),
    ("stacked", STACKED_FEN, "war", False, range(12), 150),
    ("crowded", CROWDED_FEN, "battle", False, range(3), 60),
]


def describe(turn: Turn) -> tuple:
    """The turn as plain data: per action its pieces, points, act and fate; order free."""
    parts = sorted(("".join(p.fen() for p in a.group), a.origin, a.target, a.act.value, a.fate.value)
                   for a in turn.actions)
    return (turn.penalty, *parts)


def position_print(board: Board) -> str:
    turns = sorted(describe(t) for t in board.generate_turns())
    result = board.result()
    text = repr((turns, board.is_check(), None if result is None else result.describe()))
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def play(fen: str, mode: str, safe: bool, seed: int, plies: int) -> dict:
    rng = random.Random(f"fingerprint-{seed}")
    board = Board(fen, mode=mode, safe=safe)
    prints = []
    for _ in range(plies):
        prints.append(position_print(board))
        turns = board.generate_turns()
        if not turns:
            break
        board.push(rng.choice(sorted(turns, key=describe)))
    result = board.result()
    return {"prints": prints, "fen": board.fen(), "result": None if result is None else result.describe()}


def games(labels: set[str] | None = None, first: int | None = None):
    """(key, FEN, mode, safe, seed, plies) of each recorded game."""
    for label, fen, mode, safe, seeds, plies in GAMES:
        if labels is not None and label not in labels:
            continue
        for seed in list(seeds)[:first]:
            yield f"{label}-{seed}", fen, mode, safe, seed, plies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.record:
        recorded = {}
        for key, fen, mode, safe, seed, plies in games():
            recorded[key] = play(fen, mode, safe, seed, plies)
            print(f"{key}: {len(recorded[key]['prints'])} positions", flush=True)
        DATA.parent.mkdir(exist_ok=True)
        DATA.write_text(json.dumps(recorded, indent=0, sort_keys=True) + "\n")
        return 0
    recorded = json.loads(DATA.read_text())
    bad = 0
    positions = 0
    for key, fen, mode, safe, seed, plies in games():
        got = play(fen, mode, safe, seed, plies)
        positions += len(got["prints"])
        if got != recorded[key]:
            bad += 1
            want = recorded[key]["prints"]
            ply = next((i for i, (a, b) in enumerate(zip(got["prints"], want, strict=False)) if a != b), None)
            print(f"{key}: differs (first at ply {ply})", flush=True)
    print(f"{positions} positions in {len(recorded)} games: {bad} games differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
