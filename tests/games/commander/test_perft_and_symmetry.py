"""perft from the start position, its agreement with push/pop, and colour-mirror symmetry."""

import random

from games.commander import NINE_PIECE_FEN, STARTING_FEN, Board
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Piece, arrange


def test_perft_start_position():
    """perft(1..3) = 116, 13,456 and 1,635,084 from the standard setup (§3.2), as counted by the
    engine before its speed work (perft's last ply is counted without making the turns)."""
    board = Board()
    assert board.perft(1) == 116
    assert board.perft(2) == 13456
    assert board.perft(3) == 1635084
    assert board.fen() == Board().fen()


# benchmarks/rules.py's middlegame: reached by 14 plies of play, 38 pieces, ten stacks.
MIDDLEGAME = ("6c4/1(nf)3h1hf2/6s4/2(ni)1gt1(tm)g2/3(ea)5(ea)i/11/11/3(EA)4(EG)AI/2(NI)1G(TM)1T3/6S4/"
              "1(NF)3H1HF2/6C4 r - - 14 8")


def test_perft_crowded_middlegame_with_stacks():
    """§7.4 split turns of ten stacks: perft(1) = 354 and perft(2) = 131,288, the counts of the
    engine before its speed work."""
    board = Board(MIDDLEGAME)
    assert board.perft(1) == 354
    assert board.perft(2) == 131288


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


def _mirror_square(square: int, color) -> int:
    return square if color is RED else tr.index(11 - tr.va_of(square), tr.ha_of(square))


def _mirror_key(turn, color):
    """A turn described from its mover's side of the board, so both colours sort alike."""
    return tuple((tuple((p.kind, p.hero) for p in a.group), _mirror_square(a.origin, color),
                  _mirror_square(a.target, color), a.act.value, a.fate.value) for a in turn.actions)


def _mirrored_game(seed: int, first: str, mode: str, fen: str):
    rng = random.Random(seed)
    board = Board(fen.replace(" r ", f" {first} "), mode=mode, ply_limit=200)
    while board.result() is None:
        mover = board.turn
        board.push(rng.choice(sorted(board.generate_turns(), key=lambda t: _mirror_key(t, mover))))
    return len(board.move_stack), board.result()


def test_whole_games_mirror_exactly_when_colours_swap():
    """A random game with Red first and the same choices made from Blue's side with Blue first
    end alike: same length, points and winner swapped (§3.2 mirror setup, §11, §12)."""
    for seed, mode, fen in ((0, "battle", STARTING_FEN), (1, "nine", NINE_PIECE_FEN)):
        plies, red_first = _mirrored_game(seed, "r", mode, fen)
        plies_b, blue_first = _mirrored_game(seed, "b", mode, fen)
        assert plies == plies_b
        assert red_first.points[RED] == blue_first.points[BLUE]
        assert red_first.points[BLUE] == blue_first.points[RED]
        assert {red_first.winner, blue_first.winner} in ({RED, BLUE}, {None})
