"""Move generation: perft from the start, and a differential check against an independent oracle.

The oracle below is written straight from the rule text with plain coordinates and Python's
own arithmetic; it shares no code with games.cotoan's generator (RAYS, capture tables).
"""

import random

import pytest

from games.base import BLACK, WHITE, Point
from games.cotoan import OPERATIONS, Board, GameOptions
from games.cotoan.board import FILES, RANKS
from tests.games.cotoan.helpers import board

START_PERFT = {1: 87, 2: 7458, 3: 701609}


def test_perft_from_the_start_is_stable():
    start = Board()
    fen = start.fen()
    assert [start.perft(depth) for depth in (0, 1, 2, 3)] == [1, 87, 7458, 701609]
    assert start.fen() == fen and start.move_stack == []
    assert [Board().perft(depth) for depth in (1, 2, 3)] == [START_PERFT[d] for d in (1, 2, 3)]


def test_perft_rejects_a_negative_depth():
    with pytest.raises(ValueError, match="-1"):
        Board().perft(-1)


def test_first_move_doesnt_change_depth_1_count_by_side():
    """The start is symmetric: Black to move has as many moves as White."""
    assert Board.new_game(GameOptions(first=BLACK)).perft(2) == START_PERFT[2]


def _inside(file, rank):
    return 0 <= file < FILES and 0 <= rank < RANKS


def oracle_moves(position: Board) -> set[tuple[Point, Point, str | None]]:
    """The legal moves by the rule text, with no shared code."""
    pieces = position.piece_map()
    me = position.turn
    moves = set()
    for start, piece in pieces.items():
        if piece.color is not me or piece.value == 0:
            continue
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if df == dr == 0:
                    continue
                for step in range(1, piece.value + 1):
                    to = Point(start.file + df * step, start.rank + dr * step)
                    if not _inside(*to) or to in pieces:
                        break
                    moves.add((start, to, None))
                front_point = Point(start.file + df, start.rank + dr)
                front = pieces.get(front_point)
                if front is None or front.color is not me:
                    continue
                a, b = piece.value, front.value
                for op in position.options.operations:
                    if a < b and op != "+":
                        continue
                    if op == "+":
                        results = [(a + b) % 10]
                    elif op == "-":
                        results = [a - b]
                    elif op == "*":
                        results = [(a * b) % 10]
                    else:
                        results = [a // b, a % b] if b else []
                    for distance in results:
                        if distance <= 0:
                            continue
                        target = Point(front_point.file + df * distance, front_point.rank + dr * distance)
                        if not _inside(*target):
                            continue
                        victim = pieces.get(target)
                        if victim is None or victim.color is me:
                            continue
                        path = [Point(front_point.file + df * i, front_point.rank + dr * i) for i in range(1, distance)]
                        if any(cell in pieces for cell in path):
                            continue
                        moves.add((start, target, op))
    return moves


def _engine_moves(position: Board) -> set[tuple[Point, Point, str | None]]:
    moves = list(position.legal_moves)
    found = {(m.from_point, m.to_point, m.operation) for m in moves}
    assert len(found) == len(moves), "a move is generated twice"
    return found


def random_position(rng: random.Random) -> Board:
    """Random pieces on a crowded board: captures everywhere, both 0s at home."""
    # A random window of the board crowds the pieces together, so pairs and victims abound.
    width, height = rng.randint(3, 9), rng.randint(4, 11)
    left, bottom = rng.randint(0, 9 - width), rng.randint(1, 12 - height)
    cells = [f"{f}{r}" for f in "abcdefghi"[left:left + width] for r in range(bottom, bottom + height)
             if f"{f}{r}" not in ("e2", "e10")]
    rng.shuffle(cells)
    most = min(9, len(cells) // 2)
    white = {cells.pop(): v for v in rng.sample(range(1, 10), rng.randint(2, most))}
    black = {cells.pop(): v for v in rng.sample(range(1, 10), rng.randint(2, most))}
    operations = "".join(op for op in OPERATIONS if rng.random() < 0.6) or "+"
    return board(white, black, turn=rng.choice("wb"), operations=operations)


def test_engine_agrees_with_the_oracle_on_random_crowded_positions():
    rng = random.Random(2002)
    captures_by_operation = dict.fromkeys(OPERATIONS, 0)
    for _ in range(1500):
        position = random_position(rng)
        if position.outcome() is not None:
            assert list(position.legal_moves) == []
            continue
        expected = oracle_moves(position)
        assert _engine_moves(position) == expected, position.fen()
        for _, _, op in expected:
            if op:
                captures_by_operation[op] += 1
    # The positions really exercise captures, with every operation.
    assert all(count >= 20 for count in captures_by_operation.values()), captures_by_operation
    assert sum(captures_by_operation.values()) >= 300


def test_engine_agrees_with_the_oracle_two_plies_deep():
    rng = random.Random(7)
    for _ in range(6):
        position = random_position(rng)
        if position.outcome() is not None:
            continue
        for move in list(position.legal_moves):
            position.push(move)
            if position.outcome() is None:
                assert _engine_moves(position) == oracle_moves(position), position.fen()
            position.pop()


def test_engine_agrees_with_the_oracle_along_random_games():
    rng = random.Random(11)
    for _ in range(4):
        game = Board.new_game(GameOptions(first=rng.choice((WHITE, BLACK))))
        while game.outcome() is None and len(game.move_stack) < 300:
            assert _engine_moves(game) == oracle_moves(game), game.fen()
            moves = list(game.legal_moves)
            capturing = [m for m in moves if m.is_capture]
            game.push(rng.choice(capturing or moves))
