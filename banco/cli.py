"""The `banco` command line. Every subcommand prints its answer last, so scripts can read it.

Bad input ends with one line on stderr naming what was wrong, and exit status 2.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

import games
from games.base import BancoError
from games.movetext import number_moves, play_movetext, split_movetext

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="banco (bàn cờ): a camera companion for Cờ Tướng, Cờ Tư Lệnh and Cờ Toán.",
)

GameOption = Annotated[str, typer.Option("--game", "-g", help="xiangqi, commander or cotoan")]
FenOption = Annotated[str | None, typer.Option("--fen", help="start from this position")]


def fail(message: str) -> None:
    typer.echo(f"banco: {message}", err=True)
    raise typer.Exit(2)


def _board(game: str, fen: str | None):
    variant = games.get(game)
    return variant, variant.board(fen)


@app.command()
def perft(
    game: GameOption = "xiangqi",
    fen: FenOption = None,
    depth: Annotated[int, typer.Option("--depth", "-d", min=0, help="plies to count")] = 3,
) -> None:
    """Count the positions DEPTH plies ahead; the count is the last line."""
    try:
        _, board = _board(game, fen)
        typer.echo(board.perft(depth))
    except BancoError as error:
        fail(str(error))


@app.command()
def moves(
    game: GameOption = "xiangqi",
    fen: FenOption = None,
    moves: Annotated[str, typer.Option("--moves", "-m", help="moves to play first")] = "",
    notation: Annotated[str | None, typer.Option("--notation", "-n")] = None,
) -> None:
    """List the legal moves after FEN and MOVES, one per line, in NOTATION."""
    try:
        variant, board = _board(game, fen)
        writer = variant.notation(notation)
        play_movetext(variant, board, moves)
        for move in board.legal_moves:
            typer.echo(writer.format(board, move))
    except BancoError as error:
        fail(str(error))


@app.command()
def convert(
    text: Annotated[str, typer.Argument(help='the moves, e.g. "1. Phe2 Mg7 2. Pb1 Bg5"')],
    game: GameOption = "xiangqi",
    from_: Annotated[str, typer.Option("--from", help="notation of TEXT")] = "",
    to: Annotated[str, typer.Option("--to", help="notation to write")] = "",
    fen: FenOption = None,
) -> None:
    """Rewrite moves from one notation in another, numbered like the input."""
    try:
        variant, board = _board(game, fen)
        reader = variant.notation(from_ or None)
        writer = variant.notation(to or None)
        black_first = board.turn is games.BLACK
        first = board.fullmove_number
        tokens = []
        for index, token in enumerate(split_movetext(text)):
            side = "White" if board.turn is games.WHITE else "Black"
            try:
                move = reader.parse(board, token)
            except BancoError as error:
                raise type(error)(
                    f"move {board.fullmove_number} ({side}), token {index + 1} {token!r}: {error}"
                ) from None
            tokens.append(writer.format(board, move))
            board.push(move)
        typer.echo(number_moves(tokens, first_fullmove=first, black_first=black_first))
    except BancoError as error:
        fail(str(error))


@app.command()
def demo(
    game: GameOption = "xiangqi",
    delay: Annotated[float, typer.Option(help="seconds between moves")] = 0.3,
) -> None:
    """Replay a bundled sample game in the terminal."""
    from banco.replay import replay

    try:
        replay(game, delay)
    except BancoError as error:
        fail(str(error))


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    database: Annotated[str | None, typer.Option(help="SQLAlchemy URL; default BANCO_DATABASE_URL or "
                                                      "SQLite in the user data directory")] = None,
    referee_token: Annotated[str | None, typer.Option(help="default BANCO_REFEREE_TOKEN, else generated")] = None,
) -> None:
    """Serve the live pages, the referee console and the API (docs at /docs)."""
    import uvicorn

    from server.app import create_app
    from server.config import Settings

    try:
        settings = Settings.from_env(database_url=database, referee_token=referee_token)
    except ValueError as error:
        fail(str(error))
    if settings.token_generated:
        typer.echo(f"referee token: {settings.referee_token}", err=True)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
