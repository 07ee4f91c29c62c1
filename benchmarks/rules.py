"""Speed of the rules engines: Xiangqi against cchess and Fairy-Stockfish (pyffish), and Commander
Chess against the Xiangqi engines, all in one run.

Run by ``make bench`` (not by the tests); ``--game xiangqi`` or ``--game commander`` runs one part.

Xiangqi, two measures:

* legal-move generation per position, over a fixed set of positions taken from seeded random
  games (every engine lists the legal moves of every position of the set);
* perft(3) on the six perft positions of issue 2 (node counts printed, so that a wrong count
  shows next to its time).

The last column is banco's speed relative to that engine (how many times faster banco is).
pyffish rebuilds its piece tables on each call, so its per-call cost is mostly that overhead.

Commander Chess (no other engine plays it by its rules, so its peers are the Xiangqi engines
measured in the same run, on the same kind of task):

* legal turns per position: the start; a crowded middlegame reached by 14 plies of play from the
  start (all 38 pieces on, ten stacks); and benchmarks/commander.py's edited middlegame, where two
  navies carry a tank and an aircraft each (about 1,900 turns, most of them split turns);
* perft(3) from the start and from the crowded middlegame (node counts printed).

Its ratios are Commander's time over the peer's: how many times longer a Commander position
takes than a Xiangqi one; the nodes-per-second ratio is printed beside each perft.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from games.xiangqi import Board

PERFT_POSITIONS = [
    "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR",
    "r1ea1a3/4kh3/2h1e4/pHp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2EAKAE2",
    "1ceak4/9/h2a5/2p1p3p/5cp2/2h2H3/6PCP/3AE4/2C6/3A1K1H1",
    "5a3/3k5/3aR4/9/5r3/5h3/9/3A1A3/5K3/2EC2E2",
    "CRH1k1e2/3ca4/4ea3/9/2hr5/9/9/4E4/4A4/4KA3",
    "R1H1k1e2/9/3aea3/9/2hr5/2E6/9/4E4/4A4/4KA3",
]
PERFT_DEPTH = 3


def sample_positions(games: int = 20, every: int = 5, plies: int = 150, seed: int = 2026) -> list[str]:
    """FENs (letters n/b, side w/b) from seeded random games, every few plies."""
    rng = random.Random(seed)
    fens = []
    for _ in range(games):
        board = Board()
        for ply in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            if ply % every == 0:
                fens.append(board.fen())
            board.push(rng.choice(moves))
    return fens


def _fen(pieces: str) -> str:
    return f"{pieces.replace('h', 'n').replace('H', 'N').replace('e', 'b').replace('E', 'B')} w - - 0 1"


# ------------------------------------------------------------------------------- banco
def banco_boards(fens: list[str]) -> list[Board]:
    return [Board(fen) for fen in fens]


def banco_legal(boards: list[Board]) -> int:
    return sum(len(list(board.legal_moves)) for board in boards)


def banco_perft(fen: str) -> int:
    return Board(fen).perft(PERFT_DEPTH)


# ------------------------------------------------------------------------------ cchess
def _cchess_moves(board) -> list:
    """cchess has no legal-move list: its own `no_moves` walks `create_moves` (pseudo-legal)
    and drops those that leave the mover in check with `is_checked_move`; so does this."""
    return [m for m in board.create_moves() if not board.is_checked_move(m[0], m[1])]


def cchess_boards(fens: list[str]) -> list:
    import cchess

    return [cchess.ChessBoard(fen) for fen in fens]


def cchess_legal(boards: list) -> int:
    return sum(len(_cchess_moves(board)) for board in boards)


def cchess_perft(fen: str) -> int:
    import cchess

    def walk(board, depth: int) -> int:
        moves = _cchess_moves(board)
        if depth == 1:
            return len(moves)
        nodes = 0
        for move_from, move_to in moves:
            child = board.copy()
            child._move_piece(move_from, move_to)
            child.next_turn()
            nodes += walk(child, depth - 1)
        return nodes

    return walk(cchess.ChessBoard(fen), PERFT_DEPTH)


# ----------------------------------------------------------------------------- pyffish
def pyffish_legal(fens: list[str]) -> int:
    """pyffish takes a FEN per call: its figure includes reading the FEN (and its per-call
    table set-up); banco and cchess work on boards made beforehand."""
    import pyffish

    return sum(len(pyffish.legal_moves("xiangqi", fen, [])) for fen in fens)


def pyffish_perft(fen: str) -> int:
    import pyffish

    def walk(moves: list[str], depth: int) -> int:
        legal = pyffish.legal_moves("xiangqi", fen, moves)
        if depth == 1:
            return len(legal)
        return sum(walk(moves + [move], depth - 1) for move in legal)

    return walk([], PERFT_DEPTH)


# ------------------------------------------------------------------------------- table
def timed(function: Callable[[], int], minimum: float = 0.5) -> tuple[int, float]:
    """The result and the best seconds per call, repeating until `minimum` seconds pass."""
    best, spent, result = float("inf"), 0.0, 0
    while spent < minimum or best == float("inf"):
        start = time.perf_counter()
        result = function()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
    return result, best


def main() -> int:
    engines = {"banco": (banco_boards, banco_legal, banco_perft)}
    for name, triple in (("cchess", (cchess_boards, cchess_legal, cchess_perft)),
                         ("pyffish", (list, pyffish_legal, pyffish_perft))):
        try:
            __import__(name)
        except ImportError:
            print(f"{name} is not installed; skipped", file=sys.stderr)
            continue
        engines[name] = triple

    fens = sample_positions()
    print(f"Xiangqi rules benchmark: legal moves over {len(fens)} positions from seeded random games; "
          f"perft({PERFT_DEPTH}) on the six positions of issue 2 (best of repeated runs)")
    legal: dict[str, tuple[int, float]] = {}
    for name, (prepare, count_legal, _) in engines.items():
        positions = prepare(fens)
        legal[name] = timed(lambda count_legal=count_legal, positions=positions: count_legal(positions))
    perft: dict[str, list[tuple[int, float]]] = {}
    for name, (_, _, count_perft) in engines.items():
        perft[name] = [timed(lambda fen=fen, count_perft=count_perft: count_perft(_fen(fen)), minimum=0.0)
                       for fen in PERFT_POSITIONS]

    header = f"{'measure':<24}" + "".join(f"{name:>28}" for name in engines) + "".join(
        f"{'banco vs ' + name:>18}" for name in engines if name != "banco")
    print(header)
    print("-" * len(header))

    def row(label: str, results: dict[str, tuple[int, float]], unit: float, suffix: str) -> None:
        cells = "".join(f"{f'{seconds * unit:,.1f} {suffix} ({count:,})':>28}"
                        for count, seconds in results.values())
        ratios = "".join(f"{results[name][1] / results['banco'][1]:>17.1f}×"
                         for name in results if name != "banco")
        print(f"{label:<24}{cells}{ratios}")

    per_position = {name: (count, seconds / len(fens)) for name, (count, seconds) in legal.items()}
    row("legal moves / position", per_position, 1e6, "µs")
    for index in range(len(PERFT_POSITIONS)):
        row(f"perft({PERFT_DEPTH}) position {index + 1}", {name: perft[name][index] for name in engines}, 1e3, "ms")
    totals = {name: (sum(c for c, _ in runs), sum(s for _, s in runs)) for name, runs in perft.items()}
    row(f"perft({PERFT_DEPTH}) all six", totals, 1e3, "ms")
    print("(cells: time, with the legal moves counted or the perft nodes in brackets; ratios: the "
          "engine's time over banco's, so 17.0× means banco is 17 times faster)")
    mismatched = [name for name in engines if totals[name][0] != totals["banco"][0]
                  or legal[name][0] != legal["banco"][0]]
    if mismatched:
        print(f"counts differ from banco's: {', '.join(mismatched)}")
    return 0


# --------------------------------------------------------------------------- Commander Chess
# The crowded middlegame is reached by play from the standard setup (§3.2): carriers load
# (navies take infantry and an aircraft, tanks a militia, engineers an artillery piece or an AA
# gun) and nothing is captured, so all 38 pieces stay on with ten stacks.
COMMANDER_MIDDLEGAME_PLAY = (
    "P2,3_4,3(CP) B7,2_8,2(HB) B4,2_3,2(HB) K10,4_10,1(HK) D4,6_3,5(TD) D7,6_8,7(TD) K1,4_1,1(HK) "
    "P9,9_7,9(CP) P2,9_4,9(CP) (CP)P7,9_6,10 X3,8_4,8 P6,10_7,9(CP) (CP)C4,9_4,8(CX) P9,3_7,3(CP)"
)
COMMANDER_MIDDLEGAME_FEN = ("6c4/1(nf)3h1hf2/6s4/2(ni)1gt1(tm)g2/3(ea)5(ea)i/11/11/3(EA)4(EG)AI/2(NI)1G(TM)1T3/"
                            "6S4/1(NF)3H1HF2/6C4 r - - 14 8")
# benchmarks/commander.py's edited position: two navies each carry a tank and an aircraft.
COMMANDER_LOADED_NAVIES_FEN = ("6c4/1n3h1hf2/3a2s4/2(ntf)1g2(ti)g2/2ie7/5m3(ea)1/6M2(EA)1/2IE7/"
                               "2(NTF)1G2(TI)G2/3A2S4/1N3H1HF2/6C4 r - - 0 1")


def commander_middlegame():
    from games.commander import SECRETARY
    from games.commander import Board as CommanderBoard

    board = CommanderBoard()
    for text in COMMANDER_MIDDLEGAME_PLAY.split():
        board.push(SECRETARY.parse(board, text))
    if board.fen() != COMMANDER_MIDDLEGAME_FEN:
        raise SystemExit(f"the middlegame's moves no longer reach its FEN: {board.fen()}")
    return board


def _commander_generation(board) -> int:
    board._cache.clear()  # the engine caches a position's turns; measure the work, not the cache
    return len(board.generate_turns())


def _cpu_timed(function: Callable[[], int], minimum: float = 0.5) -> tuple[int, float]:
    """Like `timed`, in CPU seconds of this process (the machine is shared)."""
    best, spent, result = float("inf"), 0.0, 0
    while spent < minimum or best == float("inf"):
        start = time.process_time()
        result = function()
        elapsed = time.process_time() - start
        best = min(best, elapsed)
        spent += elapsed
    return result, best


def commander_main(middlegame_depth: int = 3) -> int:
    from games.commander import Board as CommanderBoard

    start = CommanderBoard()
    middlegame = commander_middlegame()
    loaded = CommanderBoard(COMMANDER_LOADED_NAVIES_FEN)
    stacks = sum(1 for stack in middlegame.squares if stack and len(stack) > 1)
    pieces = sum(len(stack) for stack in middlegame.squares if stack)
    print()
    print("Commander Chess rules benchmark (CPU time, best of repeated runs); peers: banco's Xiangqi "
          "engine and pyffish (Xiangqi) in the same run")
    print(f"middlegame (14 plies of play from the start; {pieces} pieces, {stacks} stacks): {middlegame.fen()}")

    xiangqi = Board()
    xiangqi_fen = _fen(PERFT_POSITIONS[0])
    peers: dict[str, tuple[int, float]] = {"banco xiangqi": _cpu_timed(lambda: len(list(xiangqi.legal_moves)))}
    try:
        import pyffish
    except ImportError:
        pyffish = None
        print("pyffish is not installed; its column is skipped", file=sys.stderr)
    if pyffish is not None:
        peers["pyffish xiangqi"] = _cpu_timed(lambda: len(pyffish.legal_moves("xiangqi", xiangqi_fen, [])))

    header = f"{'legal turns / position':<34}{'turns':>7}{'time':>12}" + "".join(
        f"{'vs ' + name:>22}" for name in peers)
    print(header)
    print("-" * len(header))
    print(f"{'xiangqi start (peers)':<34}{peers['banco xiangqi'][0]:>7}" + " " * 12 + "".join(
        f"{seconds * 1e6:>19,.1f} µs" for _, seconds in peers.values()))
    for label, board in (("start", start), ("middlegame (by play)", middlegame),
                         ("loaded navies (edited)", loaded)):
        count, seconds = _cpu_timed(lambda board=board: _commander_generation(board))
        ratios = "".join(f"{seconds / peer:>21.1f}×" for _, peer in peers.values())
        print(f"{label:<34}{count:>7}{seconds * 1e3:>9.2f} ms{ratios}")

    xiangqi_nodes, xiangqi_seconds = _cpu_timed(lambda: Board().perft(PERFT_DEPTH), minimum=0.0)
    perft_peers = {"banco xiangqi": (xiangqi_nodes, xiangqi_seconds)}
    if pyffish is not None:
        perft_peers["pyffish xiangqi"] = _cpu_timed(lambda: pyffish_perft(xiangqi_fen), minimum=0.0)
    print()
    for name, (nodes, seconds) in perft_peers.items():
        print(f"peer: {name} perft({PERFT_DEPTH}) from the start: {nodes:,} nodes in {seconds:.2f} s "
              f"({nodes / seconds:,.0f} nodes/s)")
    for label, board, depth in (("start", start, PERFT_DEPTH), ("middlegame", middlegame, middlegame_depth)):
        board = CommanderBoard(board.fen())
        nodes, seconds = _cpu_timed(lambda board=board, depth=depth: board.perft(depth), minimum=0.0)
        ratios = "; ".join(f"{seconds / peer_seconds:.1f}× the time of {name}, "
                           f"{(nodes / seconds) / (peer_nodes / peer_seconds):.2f}× its nodes/s"
                           for name, (peer_nodes, peer_seconds) in perft_peers.items())
        print(f"commander perft({depth}) {label}: {nodes:,} nodes in {seconds:.1f} s ({nodes / seconds:,.0f} nodes/s): "
              f"{ratios}")
    return 0


def run(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("all", "xiangqi", "commander"), default="all")
    parser.add_argument("--commander-middlegame-depth", type=int, default=3,
                        help="perft depth from the Commander middlegame (3 takes minutes)")
    args = parser.parse_args(argv)
    status = 0
    if args.game in ("all", "xiangqi"):
        status |= main()
    if args.game in ("all", "commander"):
        status |= commander_main(args.commander_middlegame_depth)
    return status


if __name__ == "__main__":
    sys.exit(run())
