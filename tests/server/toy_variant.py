"""A made-up game for the tests: Xiangqi's rules on a board of cells, with one notation of its own.

It stands in for Cờ Toán (cells) and for any game whose notations the server has never heard
of, to show that the server knows games only through `games.Variant`.
"""

from games import Variant
from games.base import Geometry, Point
from games.xiangqi.board import STARTING_FEN, Board
from games.xiangqi.notation import ICCS


class ArrowNotation:
    name = "arrow"

    def format(self, board, move) -> str:
        text = ICCS.format(board, move)
        return f"{text[:2]}>{text[2:]}"

    def parse(self, board, text: str):
        return ICCS.parse(board, text.replace(">", ""))


GEOMETRY = Geometry(name="toy", files=9, ranks=10, placement="cells", file_names=tuple("abcdefghi"),
                    rank_names=tuple("0123456789"),
                    regions={"sea": frozenset(Point(f, r) for f in range(9) for r in (4, 5))},
                    marks=(Point(4, 1), Point(4, 8)))

VARIANT = Variant(name="toy", title="Toy", board_class=Board, geometry=GEOMETRY, pieces={},
                  notations={"arrow": ArrowNotation()}, default_notation="arrow", starting_fen=STARTING_FEN)
