"""Xiangqi notations: seed 004 examples, known strings per notation, tandem pieces,
disambiguation, auto-detection, round-trip properties and fuzzing."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from games.base import BLACK, WHITE, BancoError, IllegalMoveError, NotationError
from games.movetext import play_movetext
from games.xiangqi import Board, Move
from games.xiangqi.notation import CHINESE, ICCS, NOTATIONS, VN, VN_COORD, WXF
from games.xiangqi.positions import read_position_list, write_position_list

VARIANT = games.get("xiangqi")
SEED_POSITION = "Trắng: Te0 Sd0 Sf0 Ve2 Xf8 / Đen: Te9 Sd9 Mb2 Ba4 Bb4"


def iccs(text):
    return Move.from_iccs(text)


def formats(board, move):
    return {name: notation.format(board, move) for name, notation in NOTATIONS.items()}


# ------------------------------------------------------------------------ seed 004
def test_registered_names_and_default():
    assert list(NOTATIONS) == ["vn-coord", "vn", "wxf", "iccs", "chinese"]
    assert VARIANT.default_notation == "vn-coord"
    assert set(VARIANT.notations) == set(NOTATIONS)


def test_seed_004_opening_parses_from_the_start():
    board = VARIANT.board()
    moves = play_movetext(VARIANT, board, "1. Phe2 Mg7 2. Pb1 Bg5", notation="vn-coord")
    assert [m.iccs() for m in moves] == ["h2e2", "h9g7", "b2b1", "g6g5"]
    board = VARIANT.board()
    assert play_movetext(VARIANT, board, "1. Phe2 Mg7 2. Pb1 Bg5") == moves  # auto-detected


def test_seed_004_position_list_and_moves_both_ways():
    board = read_position_list(SEED_POSITION)
    assert board.turn is WHITE
    assert write_position_list(board) == SEED_POSITION
    moves = play_movetext(VARIANT, board.copy(), "1.X4-7 B2.1", notation="vn")
    assert [m.iccs() for m in moves] == ["f8c8", "b4b3"]
    written = []
    for move in moves:
        written.append(VN_COORD.format(board, move))
        board.push(move)
    assert written == ["Xc8", "Bb3"]
    board = read_position_list(SEED_POSITION)
    back = []
    for token in ["Xc8", "Bb3"]:
        move = VN_COORD.parse(board, token)
        back.append(VN.format(board, move))
        board.push(move)
    assert back == ["X4-7", "B2.1"]


# ------------------------------------------------------------------ known strings
def test_start_position_central_cannon_in_every_notation():
    board = Board()
    assert formats(board, iccs("h2e2")) == {
        "vn-coord": "Phe2", "vn": "P2-5", "wxf": "C2=5", "iccs": "h2e2", "chinese": "炮二平五"}


def test_black_horse_in_every_notation():
    board = Board()
    board.push(iccs("h2e2"))
    assert formats(board, iccs("h9g7")) == {
        "vn-coord": "Mg7", "vn": "M8.7", "wxf": "H8+7", "iccs": "h9g7", "chinese": "馬８進７"}


@pytest.mark.parametrize("moves, token, expected", [
    ("h2e2 h9g7 h0g2", "X9-8", "i9h9"),       # black chariot 9 sideways to 8
    ("h2e2 h9g7 h0g2 i9h9", "X1-2", "i0h0"),  # white chariot 1 sideways to 2
    ("", "B7.1", "c3c4"),                      # white soldier 7 forward 1
    ("", "S4.5", "f0e1"),                      # advisor: destination file
    ("", "V3.5", "g0e2"),                      # elephant: destination file
    ("", "Tg5.1", "e0e1"), ("", "T5.1", "e0e1"),  # general: Tg or T
    ("", "V7.9", "c0a2"), ("", "T7.9", "c0a2"),   # elephant written T (Tượng) is read too
    ("", "P8/1", "b2b1"), ("", "X9.2", "a0a2"),
])
def test_vn_examples(moves, token, expected):
    board = Board()
    play_movetext(VARIANT, board, moves, notation="iccs")
    move = VN.parse(board, token)
    assert move.iccs() == expected
    assert VN.parse(board, VN.format(board, move)) == move


@pytest.mark.parametrize("text, expected", [
    ("Pháo 2 bình 5", "h2e2"), ("phao 2 binh 5", "h2e2"), ("Mã 2 tấn 3", "h0g2"),
    ("Tướng 5 tiến 1", "e0e1"), ("Tượng 3 tấn 5", "g0e2"), ("Binh 7 tấn 1", "c3c4"),
    ("Xe 9 tiến 2", "a0a2"), ("Pháo 8 thoái 1", "b2b1"),
])
def test_vn_spelled_out(text, expected):
    assert VN.parse(Board(), text).iccs() == expected
    assert VARIANT.parse_move(Board(), text).iccs() == expected


def test_vn_spelled_out_tandem():
    assert VN.parse(Board(TWO_CHARIOTS), "Xe sau tấn 2") == iccs("b3b5")
    assert VN.parse(Board(THREE_SOLDIERS), "Binh giữa bình 6") == iccs("c6d6")


@pytest.mark.parametrize("token, expected", [
    ("C2=5", "h2e2"), ("C2.5", "h2e2"), ("H2+3", "h0g2"), ("R1+2", "i0i2"), ("P7+1", "c3c4"),
    ("A4+5", "f0e1"), ("E3+5", "g0e2"), ("K5+1", "e0e1"), ("c8-1", "b2b1"),
])
def test_wxf_examples(token, expected):
    assert WXF.parse(Board(), token).iccs() == expected


@pytest.mark.parametrize("token, expected", [
    ("炮二平五", "h2e2"), ("炮2平5", "h2e2"), ("馬二進三", "h0g2"), ("马二进三", "h0g2"),
    ("傌八進七", "b0c2"), ("兵七進一", "c3c4"), ("仕四進五", "f0e1"), ("相三進五", "g0e2"),
    ("帥五進一", "e0e1"), ("俥一進二", "i0i2"), ("炮八退一", "b2b1"),
])
def test_chinese_examples(token, expected):
    move = CHINESE.parse(Board(), token)
    assert move.iccs() == expected


def test_chinese_black_uses_full_width_digits():
    board = Board()
    board.push(iccs("h2e2"))
    assert CHINESE.format(board, iccs("h7e7")) == "炮８平５"
    assert CHINESE.format(board, iccs("c6c5")) == "卒３進１"
    assert CHINESE.parse(board, "砲8平5") == iccs("h7e7")


# ------------------------------------------------------------------- tandem pieces
TWO_CHARIOTS = "3k5/9/9/1R7/9/9/1R7/9/9/4K4 w"        # White chariots b6 (front) and b3
BLACK_CANNONS = "3k5/9/2c6/9/2c6/9/9/9/9/4K4 b"      # Black cannons c7 (rear) and c5 (front)
THREE_SOLDIERS = "3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w"   # White soldiers c5, c6, c7
FIVE_SOLDIERS = "2P2k3/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w"  # White soldiers c5…c9
TWO_FILES = "3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/4K4 w"     # c5, c6, c7 and g5, g6
ADVISORS = "3k5/9/9/9/9/9/9/3A5/9/3AK4 w"            # White advisors d0 and d2


@pytest.mark.parametrize("fen, move, expected", [
    (TWO_CHARIOTS, "b6c6", {"vn": "Xt-7", "wxf": "R+=7", "chinese": "前車平七", "vn-coord": "Xc6"}),
    (TWO_CHARIOTS, "b3b5", {"vn": "Xs.2", "wxf": "R-+2", "chinese": "後車進二", "vn-coord": "X3b5"}),
    (TWO_CHARIOTS, "b6b4", {"vn": "Xt/2", "wxf": "R+-2", "chinese": "前車退二", "vn-coord": "X6b4"}),
    (BLACK_CANNONS, "c5d5", {"vn": "Pt-4", "wxf": "C+=4", "chinese": "前炮平４"}),
    (BLACK_CANNONS, "c7c9", {"vn": "Ps/2", "wxf": "C--2", "chinese": "後炮退２"}),
    (THREE_SOLDIERS, "c7d7", {"vn": "Bt-6", "wxf": "P+=6", "chinese": "前兵平六"}),
    (THREE_SOLDIERS, "c6d6", {"vn": "Bg-6", "wxf": "P7=6", "chinese": "中兵平六"}),
    (THREE_SOLDIERS, "c5b5", {"vn": "Bs-8", "wxf": "P-=8", "chinese": "後兵平八"}),
    (FIVE_SOLDIERS, "c9b9", {"vn": "Btt-8", "wxf": "++=8", "chinese": "一兵平八"}),
    (FIVE_SOLDIERS, "c8b8", {"vn": "Bt-8", "wxf": "P+=8", "chinese": "二兵平八"}),
    (FIVE_SOLDIERS, "c7d7", {"vn": "Bg-6", "wxf": "P7=6", "chinese": "三兵平六"}),
    (FIVE_SOLDIERS, "c6d6", {"vn": "Bs-6", "wxf": "P-=6", "chinese": "四兵平六"}),
    (FIVE_SOLDIERS, "c5c6", None),  # blocked by its own soldier: not legal
    (TWO_FILES, "c7d7", {"vn": "B7t-6", "wxf": "7+=6", "chinese": "前七平六"}),
    (TWO_FILES, "c6d6", {"vn": "B7g-6", "wxf": "77=6", "chinese": "中七平六"}),
    (TWO_FILES, "g5h5", {"vn": "B3s-2", "wxf": "3-=2", "chinese": "後三平二"}),
    (TWO_FILES, "g6g7", {"vn": "B3t.1", "wxf": "3++1", "chinese": "前三進一"}),
    (ADVISORS, "d0e1", {"vn": "S6.5", "wxf": "A6+5", "chinese": "仕六進五"}),
    (ADVISORS, "d2e1", {"vn": "S6/5", "wxf": "A6-5", "chinese": "仕六退五"}),
])
def test_tandem_pieces(fen, move, expected):
    board = Board(fen)
    if expected is None:
        assert not board.is_legal(iccs(move))
        return
    assert board.is_legal(iccs(move))
    for name, text in expected.items():
        assert NOTATIONS[name].format(board, iccs(move)) == text, name
        assert NOTATIONS[name].parse(board, text) == iccs(move), name


def test_lenient_tandem_readings():
    board = Board(TWO_CHARIOTS)
    assert WXF.parse(board, "R8+3") == iccs("b6b9")  # file instead of marker, unique: read
    with pytest.raises(NotationError, match="ambiguous"):
        WXF.parse(board, "R8=7")  # both chariots can go to file 7
    assert WXF.parse(board, "R+.7") == iccs("b6c6")  # WXF "." for sideways
    board = Board(ADVISORS)
    assert WXF.parse(board, "A-+5") == iccs("d0e1")  # marker on advisors is read too
    board = Board(FIVE_SOLDIERS)
    assert VN.parse(board, "B7-6") == iccs("c7d7")  # plain file on five soldiers: the middle one
    with pytest.raises(IllegalMoveError, match="B7.1"):
        VN.parse(board, "B7.1")  # every soldier of file 7 is blocked or on the last rank
    board = Board(TWO_FILES)
    assert WXF.parse(board, "P7+=6") == iccs("c7d7")  # the letter kept before "7+" is read
    assert WXF.parse(board, "P77=6") == iccs("c6d6")
    board = Board(THREE_SOLDIERS)
    assert VN.parse(board, "B7-6") == iccs("c6d6")  # plain file on three soldiers: the middle one


# ------------------------------------------------------------- vn-coord disambiguation
def test_vn_coord_disambiguates_by_file_then_rank():
    board = Board("3k5/9/9/9/9/9/9/2H3H2/9/4K4 w")  # horses c2 and g2 both reach e3
    assert VN_COORD.format(board, iccs("c2e3")) == "Mce3"
    assert VN_COORD.format(board, iccs("g2e3")) == "Mge3"
    assert VN_COORD.format(board, iccs("c2b4")) == "Mb4"
    with pytest.raises(NotationError, match="ambiguous"):
        VN_COORD.parse(board, "Me3")
    board = Board("3k5/9/2R6/9/9/9/9/2R6/9/4K4 w")  # chariots c7 and c2 both reach c5
    assert VN_COORD.format(board, iccs("c2c5")) == "X2c5"
    assert VN_COORD.format(board, iccs("c7c5")) == "X7c5"
    assert VN_COORD.parse(board, "Xc2c5") == iccs("c2c5")
    assert VN_COORD.format(board, iccs("c2d2")) == "Xd2"


def test_vn_coord_pinned_rival_needs_no_disambiguation():
    # The horse on e2 is pinned by the black chariot on e9 (through the open e-file).
    board = Board("4r4/3k5/9/9/9/9/9/2H1H4/9/4K4 w")
    assert not board.is_legal(iccs("e2d4"))
    assert VN_COORD.format(board, iccs("c2d4")) == "Md4"


# ------------------------------------------------------------------ auto-detection
@pytest.mark.parametrize("text", ["h2e2", "H2-E2", "Phe2", "P2-5", "p2-5", "C2=5", "C2.5",
                                  "炮二平五", "炮2平5", "Ｐｈｅ２", "P2–5"])
def test_auto_detection_reads_common_inputs(text):
    assert VARIANT.parse_move(Board(), text) == iccs("h2e2")


def test_p_is_a_vn_cannon_before_a_wxf_soldier():
    board = Board("3k5/9/9/7P1/9/9/9/7C1/9/4K4 w")  # cannon h2 and crossed soldier h6
    assert VN.parse(board, "P2.1") == iccs("h2h3")
    assert WXF.parse(board, "P2.1") == iccs("h6i6")
    assert VARIANT.parse_move(board, "P2.1") == iccs("h2h3")
    assert VARIANT.parse_move(board, "P2=1") == iccs("h6i6")


def test_auto_detection_falls_back_when_the_first_reading_is_illegal():
    board = Board("3k5/9/9/7P1/9/9/9/9/9/4K4 w")  # no cannon: "P2.1" can only be WXF's soldier
    assert VARIANT.parse_move(board, "P2.1") == iccs("h6i6")


def test_errors_name_the_token():
    board = Board()
    with pytest.raises(IllegalMoveError, match="Phe5"):
        VN_COORD.parse(board, "Phe5")
    with pytest.raises(IllegalMoveError, match="P2.9"):
        VARIANT.parse_move(board, "P2.9")
    with pytest.raises(NotationError, match="zz9"):
        VARIANT.parse_move(board, "zz9")
    for notation in NOTATIONS.values():
        with pytest.raises(BancoError, match="Q"):
            notation.parse(board, "Q")


def test_position_list_options():
    board = read_position_list("Trang: Te0 Xa0 ; Den: Tf9 Xi9", turn=BLACK)
    assert board.turn is BLACK
    assert write_position_list(board) == "Trắng: Te0 Xa0 / Đen: Tf9 Xi9"
    unlabelled = read_position_list("Te0 Xa0 / Tf9 Xi9")
    assert unlabelled.board_fen() == board.board_fen()
    with pytest.raises(NotationError, match="Qe5"):
        read_position_list("Trắng: Te0 Qe5 / Đen: Te9")
    with pytest.raises(BancoError, match="general"):
        read_position_list("Trắng: Te0 / Đen: Sd9")


# -------------------------------------------------------------------- properties
def random_board(seed: int, plies: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


positions = st.builds(random_board, st.integers(0, 2**32), st.integers(0, 120))
fast = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(positions, st.integers(0, 2**32))
def test_every_legal_move_round_trips_through_every_notation(board, seed):
    moves = list(board.legal_moves)
    for move in moves:
        for name, notation in NOTATIONS.items():
            text = notation.format(board, move)
            assert notation.parse(board, text) == move, (name, text, board.fen())
    if moves:  # auto-detection reads every canonical form as the same move (one move per example)
        move = random.Random(seed).choice(moves)
        for notation in NOTATIONS.values():
            assert VARIANT.parse_move(board, notation.format(board, move)) == move


@fast
@given(positions)
def test_fen_and_position_list_round_trip(board):
    assert Board(board.fen()).fen() == board.fen()
    listed = read_position_list(write_position_list(board), turn=board.turn)
    assert listed.board_fen() == board.board_fen() and listed.turn is board.turn


# ------------------------------------------------------------------------- fuzzing
SYMBOLS = ("TSVXPMBKAEHRCtgsvxpmbkaehrc+-=./0123456789abcdefghi前後后中炮馬车車兵卒帥將一二三四五六七八九進退平"
           "１２３４５ :;/[]{}\"%-–ĐđắTrắngĐen")


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=12), st.text(alphabet=SYMBOLS, max_size=10)))
def test_fuzzed_notation_input_raises_only_value_errors(text):
    board = Board()
    readers = [lambda t, n=n: n.parse(board, t) for n in NOTATIONS.values()]
    readers += [lambda t: VARIANT.parse_move(board, t), read_position_list]
    for read in readers:
        try:
            read(text)
        except ValueError as error:
            assert isinstance(error, BancoError) and str(error)
    try:
        Board(text)
    except ValueError as error:  # the FEN reader is board.py's; a ValueError with a message
        assert str(error)


def test_notations_reject_non_text():
    for notation in [VN_COORD, VN, WXF, ICCS, CHINESE]:
        with pytest.raises(NotationError):
            notation.parse(Board(), None)


@st.composite
def crowded_boards(draw):
    """Random placements with many soldiers past the river, so that stacked soldiers on one
    or two files (the rare WXF and Chinese cases) come up often."""
    from games.xiangqi.board import Piece, PieceType
    from games.xiangqi.positions import _board_fen

    placed = {}
    palaces = {WHITE: [(f, r) for f in range(3, 6) for r in range(3)],
               BLACK: [(f, r) for f in range(3, 6) for r in range(7, 10)]}
    for color in (WHITE, BLACK):
        placed[draw(st.sampled_from(palaces[color]))] = Piece(PieceType.GENERAL, color)
        crossed = range(5, 10) if color is WHITE else range(0, 5)
        files = draw(st.lists(st.integers(2, 6), min_size=2, max_size=2))  # two likely stacks
        for _ in range(draw(st.integers(0, 5))):
            point = (draw(st.sampled_from(files)), draw(st.sampled_from(crossed)))
            placed.setdefault(point, Piece(PieceType.SOLDIER, color))
        for kind in (PieceType.CHARIOT, PieceType.CANNON, PieceType.HORSE):
            for _ in range(draw(st.integers(0, 2))):
                point = (draw(st.integers(0, 8)), draw(st.integers(0, 9)))
                placed.setdefault(point, Piece(kind, color))
    turn = draw(st.sampled_from(["w", "b"]))
    from games.base import Point
    try:
        return Board(f"{_board_fen({Point(*p): piece for p, piece in placed.items()})} {turn}")
    except BancoError:
        return Board()


@fast
@given(crowded_boards())
def test_crowded_positions_round_trip_through_every_notation(board):
    for move in board.legal_moves:
        for name, notation in NOTATIONS.items():
            text = notation.format(board, move)
            assert notation.parse(board, text) == move, (name, text, board.fen())
            assert VARIANT.parse_move(board, text) == move, (name, text, board.fen())


def test_docstring_examples():
    import doctest

    from games import movetext
    from games.xiangqi import notation, pgn, positions

    for module in (notation, positions, pgn, movetext):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_a_token_one_notation_finds_ambiguous_is_refused_not_read_by_another():
    """Two cannons on file 2 (Vietnamese 'P2.1' fits both): the doubt is the answer, not the
    WXF soldier move the same letters could also spell."""
    from games import AmbiguousMoveError

    board = VARIANT.board("3k5/9/9/7P1/9/9/7C1/9/7C1/4K4 w - - 0 1")
    with pytest.raises(AmbiguousMoveError, match=r"'P2\.1' is ambiguous in vn: it fits h1h2, h3h4"):
        VARIANT.parse_move(board, "P2.1")
    assert VARIANT.notation("wxf").parse(board, "P2.1") == iccs("h6i6")  # named, the soldier
    # Read by no notation but found ambiguous by one: that one's reason is given.
    rooks = VARIANT.board("3k5/9/9/9/9/2R6/9/9/9/2R1K4 w - - 0 1")
    with pytest.raises(AmbiguousMoveError, match="ambiguous in wxf: it fits c0c3, c4c7"):
        VARIANT.parse_move(rooks, "R7+3")
    assert issubclass(AmbiguousMoveError, NotationError) and issubclass(AmbiguousMoveError, ValueError)


def test_full_width_move_numbers_are_dropped_like_ascii_ones():
    board = VARIANT.board()
    moves = play_movetext(VARIANT, board, "１．炮二平五 马８进７ ２．马二进三")
    assert [str(m) for m in moves] == ["h2e2", "h9g7", "h0g2"]


def test_a_notation_is_named_in_any_case():
    """A record's Format tag writes WXF and ICCS in capitals; the same names choose them."""
    assert VARIANT.notation("WXF") is VARIANT.notation("wxf")
    assert VARIANT.notation("Vn-Coord") is VARIANT.notation("vn-coord")
    with pytest.raises(NotationError, match="unknown notation 'FOO'"):
        VARIANT.notation("FOO")
