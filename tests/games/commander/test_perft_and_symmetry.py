"""perft from the start position, its agreement with push/pop, and colour-mirror symmetry."""

import random

from games.commander import Board
from games.commander import terrain as tr
from games.commander.pieces import Piece, arrange


def test_perft_start_position():
    """perft(1) = 116 and perft(2) = 13,456 from the standard setup (§3.2); perft(3) = 1,635,084
    is printed by benchmarks/commander.py and the report (too slow for the suite)."""
    board = Board()
    assert board.perft(1) == 116
    assert board.perft(2) == 13456


def test_perft_agrees_with_the_public_api():
    """perft(2) equals the count obtained by pushing every legal turn and listing the replies."""
    board = Board()
    total = 0
    for turn in list(board.legal_moves):
        board.push(turn)
        total += len(board.legal_moves)
        board.pop()
    assert total == board.perft(2) and board.fen() == Board().fen()


def mirrored(board: Board) -> Board:
    """The position with colours swapped and VA → 11−VA (Blue's army is Red's mirrored, §3.2)."""
    other = Board(board.fen(), mode=board.mode)
    squares = [None] * tr.SQUARES
    for square, stack in enumerate(board.squares):
        if stack:
            squares[tr.index(11 - tr.va_of(square), tr.ha_of(square))] = arrange(
                Piece(p.kind, p.color.other, p.hero) for p in stack)
    other.squares = squares
    other.turn = board.turn.other
    other._cache.clear()
    return other


def test_rules_are_colour_symmetric_along_random_games():
    """The same position seen from the other side has the same number of legal turns and
    checks: no direction or colour is favoured by the move generator."""
    for seed in range(2):
        rng = random.Random(seed)
        board = Board(mode="war")
        for _ in range(40):
            if board.result():
                break
            turns = board.generate_turns()
            mirror = mirrored(board)
            assert len(mirror.generate_turns()) == len(turns)
            assert mirror.is_check() == board.is_check()
            board.push(rng.choice(turns))
