"""Cờ Tư Lệnh as a registered variant."""

from games import Variant
from games.commander.board import STARTING_FEN, Board
from games.commander.notation import NOTATIONS
from games.commander.observe import turns_to
from games.commander.pieces import Kind
from games.commander.setups import reveal, validate_setup
from games.commander.terrain import GEOMETRY

VARIANT = Variant(
    name="commander",
    title="Cờ Tư Lệnh",
    board_class=Board,
    geometry=GEOMETRY,
    pieces={kind.letter: kind.name.lower() for kind in Kind},
    notations=NOTATIONS,
    default_notation="secretary",
    starting_fen=STARTING_FEN,
    aliases=("co-tu-lenh", "cotulenh", "commander-chess"),
    # For vision and the referee console: which turns explain an observed placement, and
    # checks of a secret deployment (§3.3).
    extras={"turns_to": turns_to, "validate_setup": validate_setup, "reveal": reveal},
    record_options={"referee": True},
)
