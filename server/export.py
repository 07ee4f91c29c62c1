"""Records for other programs: PGN with `%clk` comments, FEN."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import games
from games.movetext import number_moves

PGN_GAME_NAMES = {"xiangqi": "Chinese Chess"}


def clock_comment(milliseconds: int | None) -> str:
    if milliseconds is None:
        return ""
    seconds = milliseconds // 1000
    return f" {{[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]}}"


def pgn(game: Any, moves: list[Any], snapshot: dict[str, Any], *, notation: str | None = None,
        event: str = "?", round_number: int | None = None, date: datetime | None = None) -> str:
    """The game as PGN; each move carries the mover's clock after it as ``{[%clk h:mm:ss]}``."""
    variant = games.get(game.variant)
    name = notation or ("iccs" if "iccs" in variant.notations else variant.default_notation)
    formatted = snapshot["moves"].get(name)
    if formatted is None:
        variant.notation(name)  # raises a NotationError naming the known notations
    headers = {
        "Event": event, "Site": "?", "Date": (date or game.created_at).strftime("%Y.%m.%d"),
        "Round": str(round_number) if round_number else "?", "White": game.white or "?",
        "Black": game.black or "?", "Result": game.result,
        "Game": PGN_GAME_NAMES.get(variant.name, variant.title), "Format": name.upper(),
    }
    if game.start_fen != variant.starting_fen:
        headers["SetUp"], headers["FEN"] = "1", game.start_fen
    board = variant.record_board(game.start_fen)
    black_first = board.turn is games.BLACK
    tokens = []
    for index, (row, text) in enumerate(zip(moves, formatted, strict=True)):
        white_moved = (index % 2 == 0) != black_first
        tokens.append(text + clock_comment(row.white_ms if white_moved else row.black_ms))
    header_text = "".join(f'[{key} "{value.replace(chr(34), chr(39))}"]\n' for key, value in headers.items())
    first = getattr(board, "fullmove_number", 1)
    movetext = number_moves(tokens, first_fullmove=first, black_first=black_first)
    return f"{header_text}\n{(movetext + ' ') if movetext else ''}{game.result}\n"
