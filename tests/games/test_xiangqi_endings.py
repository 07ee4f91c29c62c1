"""End of game under seed 001 (Điều 7): each way a Xiangqi game ends, without pyffish."""

import pytest

from games.base import BLACK, WHITE, GameOverError, Outcome, Termination
from games.xiangqi import Board, Move
from games.xiangqi.repetition import repetition_facts

# Black general d9; White chariots a9 (checking along rank 9) and a8 (guarding d8); the
# general cannot go to e9 either (chariot a9, and the white general on the open e-file).
MATE = "R2k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"
# The same without the checking chariot: Black is not in check and has no move.
STALEMATE = "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"


def play(board: Board, moves: str) -> Board:
    for text in moves.split():
        board.push(Move.from_iccs(text))
    return board


def test_checkmate_loses():
    board = Board(MATE)
    assert board.is_check() and board.is_checkmate() and not board.legal_moves
    assert board.outcome() == Outcome(Termination.CHECKMATE, WHITE)
    assert board.outcome().result() == "1-0"


def test_stalemate_loses_for_the_stalemated_side():
    board = Board(STALEMATE)
    assert not board.is_check() and board.is_stalemate()
    assert board.outcome() == Outcome(Termination.STALEMATE, WHITE)


def test_no_attacking_material_on_either_side_is_a_draw():
    board = Board("3k5/4a4/9/9/9/9/9/4B4/4A4/4K4 w - - 0 1")
    assert board.is_insufficient_material()
    assert board.outcome() == Outcome(Termination.INSUFFICIENT_MATERIAL, None)
    for attacker in "RNCP":
        with_attacker = Board(f"3k5/4a4/9/9/{attacker}8/9/9/4B4/4A4/4K4 w - - 0 1")
        assert not with_attacker.is_insufficient_material()
        assert with_attacker.outcome() is None


def test_sixty_moves_each_without_capture_is_a_claimable_draw_not_automatic():
    board = Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 119 80")
    assert not board.can_claim_draw()
    play(board, "e1e2")
    assert board.halfmove_clock == 120 and board.can_claim_draw()
    assert board.outcome() is None
    assert board.outcome(claim_draw=True) == Outcome(Termination.MOVE_LIMIT, None)
    board.pop()
    assert board.outcome(claim_draw=True) is None


def test_a_capture_restarts_the_sixty_move_count():
    board = Board("3k5/9/9/9/9/9/4p4/9/4R4/4K4 w - - 119 80")
    play(board, "e1e3")
    assert board.halfmove_clock == 0 and not board.can_claim_draw()


@pytest.mark.parametrize("act,termination,winner", [
    (lambda b: b.resign(WHITE), Termination.RESIGNATION, BLACK),
    (lambda b: b.resign(BLACK), Termination.RESIGNATION, WHITE),
    (lambda b: b.flag(BLACK), Termination.TIME_FORFEIT, WHITE),
    (lambda b: b.agree_draw(), Termination.AGREEMENT, None),
])
def test_endings_set_by_the_caller(act, termination, winner):
    board = play(Board(), "h2e2 h9g7")
    act(board)
    assert board.outcome() == Outcome(termination, winner)
    assert board.is_game_over()
    with pytest.raises(GameOverError):
        board.push(Move.from_iccs("h0g2"))


def test_agreement_is_refused_to_a_side_already_mated_or_stalemated():
    for fen in (MATE, STALEMATE):
        board = Board(fen)
        with pytest.raises(GameOverError, match="already over"):
            board.agree_draw()
        assert board.outcome().termination in (Termination.CHECKMATE, Termination.STALEMATE)


# ------------------------------------------------------------------------- repetition
PERPETUAL_CHECK = ("3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1", "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9 i8i9")


@pytest.mark.parametrize("act,termination,winner", [
    (lambda b: b.resign(WHITE), Termination.RESIGNATION, BLACK),
    (lambda b: b.flag(BLACK), Termination.TIME_FORFEIT, WHITE),
    (lambda b: b.agree_draw(), Termination.AGREEMENT, None),
])
def test_a_repetition_verdict_still_lets_a_player_resign_flag_or_agree(act, termination, winner):
    # Play may go on past the verdict (seed 001, Điều 7 g and h): so may the endings no board sees.
    board = play(Board(PERPETUAL_CHECK[0]), PERPETUAL_CHECK[1])
    assert board.outcome().termination.play_may_go_on
    act(board)
    assert board.outcome() == Outcome(termination, winner)
FSF_CHASE = ("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1",
             "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2")


def test_perpetual_check_loses_at_the_third_occurrence():
    fen, moves = PERPETUAL_CHECK
    board = play(Board(fen), moves)
    assert board.turn is BLACK
    assert board.outcome() == Outcome(Termination.PERPETUAL_CHECK, BLACK)
    board.pop()
    assert board.outcome() is None  # the position had stood only twice


def test_perpetual_chase_loses():
    fen, moves = FSF_CHASE
    board = play(Board(fen), moves)
    assert board.outcome() == Outcome(Termination.PERPETUAL_CHASE, BLACK)
    facts = repetition_facts(board)
    assert facts.chase_by_mover and not facts.chase_by_to_move
    assert not facts.checks_by_mover and not facts.checks_by_to_move


def test_plain_threefold_repetition_draws():
    board = play(Board(), "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0")
    assert board.outcome() is None
    play(board, "g7h9")
    assert board.outcome() == Outcome(Termination.REPETITION, None)


def test_verdicts_survive_copy_and_pop():
    fen, moves = FSF_CHASE
    board = play(Board(fen), moves)
    clone = board.copy()
    assert clone.outcome() == board.outcome()
    board.pop()
    board.push(Move.from_iccs("b2c2"))  # a different last move: no repetition any more
    assert board.outcome() is None
    assert clone.outcome().termination is Termination.PERPETUAL_CHASE


def test_docstring_examples_run():
    import doctest

    import games.xiangqi.board
    import games.xiangqi.repetition

    for module in (games.xiangqi.board, games.xiangqi.repetition):
        failed, _ = doctest.testmod(module)
        assert failed == 0, module.__name__


def test_fen_with_non_ascii_digits_is_an_invalid_fen_error():
    import pytest

    from games.base import InvalidFenError
    from games.xiangqi import Board

    for fen in ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - ³ 1",
                "rnbakabnr/⁹/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
                "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/0009/RNBAKABNR w"):
        with pytest.raises(InvalidFenError):
            Board(fen)


def test_fen_of_a_position_no_move_leads_to_is_refused_and_the_board_kept():
    import pytest

    from games.base import InvalidFenError
    from games.xiangqi import Board

    board = Board()
    for fen, why in (("4k4/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1", "Black's general is in check with White to move"),
                     ("3k5/3P5/9/9/9/9/9/9/9/4K4 w", "Black's general is in check"),  # a soldier's check
                     ("4k4/9/9/9/9/9/9/9/9/4K4 b", "the generals face each other on the e file")):
        with pytest.raises(InvalidFenError, match=why):
            board.set_fen(fen)
        assert board.fen() == Board().fen()
    assert Board("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1").is_check()  # the checked side to move: fine
