"""`banco demo`: replay the bundled sample game in the terminal with rich.

Each move is shown in the federation notation and in the traditional Vietnamese one
(``1. Phe2 (P2-5)``), on a drawn board with the last move marked. With ``delay=0`` (tests,
pipes) every move line is printed and the board is drawn at the end; in a terminal with a
delay the board is redrawn after every move.
"""

from __future__ import annotations

import time
from importlib import resources

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

import games
from games.base import WHITE, BancoError, Point
from games.xiangqi.board import Board, Move
from games.xiangqi.notation import VN, VN_COORD
from games.xiangqi.pgn import Game, read_game

SAMPLE = "sample.pgn"


def sample_game(name: str = "xiangqi") -> Game:
    """The bundled sample game of `name` (only Cờ Tướng has one so far)."""
    variant = games.get(name)
    if variant.name != "xiangqi":
        raise BancoError(f"no sample game is bundled for {variant.name} yet")
    text = resources.files("games.xiangqi.data").joinpath(SAMPLE).read_text(encoding="utf-8")
    return read_game(text)


def draw_board(board: Board, last: Move | None = None) -> Text:
    """The board as text: ranks 9–0 top to bottom, Trắng (red) letters in red, the river
    between ranks 5 and 4, the last move's points in reverse video."""
    marked = {last.from_point, last.to_point} if last else set()
    text = Text()
    for rank in range(9, -1, -1):
        text.append(f"{rank} ", style="dim")
        for file in range(9):
            point = Point(file, rank)
            piece = board.piece_at(point)
            style = "reverse " if point in marked else ""
            if piece is None:
                text.append("·", style=style + "dim")
            else:
                colour = "bold red" if piece.color is WHITE else "bold"
                text.append(piece.kind.vn, style=style + colour)
            if file < 8:
                text.append("─", style="dim")
        text.append("\n")
        if rank == 5:
            text.append("  ~~~~~ sông (river) ~~~~~\n", style="blue")
    text.append("  a b c d e f g h i", style="dim")
    return text


def replay(name: str = "xiangqi", delay: float = 0.3, console: Console | None = None) -> Game:
    """Replay the sample game, `delay` seconds between moves; returns the game."""
    console = console or Console()
    game = sample_game(name)
    board = game.root()
    headers = game.headers
    title = f"{headers.get('Red', '?')} – {headers.get('Black', '?')}: {headers.get('Event', '')}"
    console.print(Text(title, style="bold"))
    if game.comment:
        console.print(Text(game.comment, style="italic"))
    live_view = delay > 0 and console.is_terminal
    lines: list[str] = []

    def frame(last: Move | None) -> Panel:
        recent = "\n".join(lines[-3:])
        return Panel(Group(draw_board(board, last), Text(recent)), title="Cờ Tướng", expand=False)

    live = Live(frame(None), console=console, auto_refresh=False) if live_view else None
    if live:
        live.start()
    try:
        for played in game.moves:
            side = "Trắng" if board.turn is WHITE else "Đen"
            line = (f"{board.fullmove_number}. {side}: {VN_COORD.format(board, played.move)}"
                    f"  ({VN.format(board, played.move)})")
            if played.comment:
                line += f"  — {played.comment}"
            board.push(played.move)
            lines.append(line)
            if live:
                live.update(frame(played.move), refresh=True)
                time.sleep(delay)
            else:
                console.print(line)
    finally:
        if live:
            live.stop()
    if not live:
        console.print(frame(board.move_stack[-1] if board.move_stack else None))
    outcome = board.outcome()
    ending = f" ({outcome.termination.value})" if outcome else ""
    console.print(f"Result: {game.result}{ending}", highlight=False)
    return game
