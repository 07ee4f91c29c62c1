"""The `banco` command line. Every subcommand prints its answer last, so scripts can read it.

Bad input ends with one line on stderr naming what was wrong, and exit status 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

import games
from banco.sim import sim_app
from games.base import BancoError
from games.movetext import RESULTS, is_compact, number_moves, parse_token, play_movetext, split_movetext

# OpenCV's and its FFmpeg's own warnings ("[ WARN:0@0.01] … can't open camera by index", "moov
# atom not found") would come before the one line banco says for the same trouble; either
# variable set in the environment still rules (-8 is FFmpeg's quiet level).
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="banco (bàn cờ): a camera companion for Cờ Tướng, Cờ Tư Lệnh and Cờ Toán.",
)

app.add_typer(sim_app, name="sim")

GameOption = Annotated[str, typer.Option("--game", "-g", help="xiangqi, commander or cotoan")]
FenOption = Annotated[str | None, typer.Option("--fen", help="start from this position")]


def fail(message: str) -> None:
    typer.echo(f"banco: {message}", err=True)
    raise typer.Exit(2)


def _board(game: str, fen: str | None):
    """The variant and a board at FEN; a game may also accept its own position format (Cờ
    Tướng: the position lists of seed 004, ``Trắng: Te0 … / Đen: Te9 …``, White to move)."""
    variant = games.get(game)
    try:
        return variant, variant.board(fen)
    except BancoError as fen_error:
        read_position = variant.extras.get("read_position")
        if fen is None or read_position is None:
            raise
        try:  # the labels are optional: "Te0 Sd0 / Te9 Sd9" is a position list too
            return variant, read_position(fen)
        except BancoError:
            if ":" in fen:  # labelled: meant as a position list, so its own error is the one
                raise
            raise fen_error from None


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
    """Rewrite moves from one notation in another: numbered from the position's move number
    (``1.X`` without a space if the input wrote its numbers so), a result at the end kept."""
    try:
        variant, board = _board(game, fen)
        # Without --from every notation is tried, the default first (Variant.parse_move).
        reader = variant.notation(from_) if from_ else None
        writer = variant.notation(to or None)
        black_first = board.turn is games.BLACK
        first = board.fullmove_number
        tokens = []
        for index, token in enumerate(split_movetext(text)):
            side = "White" if board.turn is games.WHITE else "Black"
            try:
                move = parse_token(variant, reader, board, token)
            except BancoError as error:
                raise type(error)(
                    f"move {board.fullmove_number} ({side}), token {index + 1} {token!r}: {error}"
                ) from None
            tokens.append(writer.format(board, move))
            board.push(move)
        words = text.split()
        result = f" {words[-1]}" if words and words[-1] in RESULTS else ""
        typer.echo(number_moves(tokens, first_fullmove=first, black_first=black_first,
                                compact=is_compact(text)) + result)
    except BancoError as error:
        fail(str(error))


@app.command()
def replay(
    game: GameOption = "xiangqi",
    delay: Annotated[float, typer.Option(help="seconds between moves")] = 0.3,
) -> None:
    """Replay the bundled Cờ Tướng sample game in the terminal (the other games have none to
    replay here yet: `banco demo --game commander|cotoan` plays theirs through the station)."""
    from banco.replay import replay as replay_game

    try:
        replay_game(game, delay)
    except BancoError as error:
        fail(str(error))


from banco.watch import demo, watch  # noqa: E402  (the station commands live in their own module)

app.command()(watch)
app.command()(demo)


@app.command("print-board")
def print_board(
    game: GameOption = "xiangqi",
    out: Annotated[Path, typer.Option("--out", "-o", help="board.pdf or board.svg")] = Path("board.pdf"),
    pitch: Annotated[float | None, typer.Option(help="spacing between points, mm")] = None,
) -> None:
    """Write a printable board with calibration markers (print it at 100 %)."""
    from calibration.printable import write_board

    try:
        sheet = write_board(games.get(game), out, pitch)
    except (BancoError, ValueError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {str(out)!r}: {error.strerror}")
    typer.echo(f"wrote {out} ({sheet}; print at 100 %)")


def _locate_without_corners(layout, frame, source: str, piece_height_mm: float, auto: bool = False):
    """The board from its printed markers, else (or with `auto`, only) from its grid. Both
    failing raise one `CalibrationError` naming both reasons."""
    from calibration import CalibrationError
    from calibration.grid import calibrate_from_grid
    from calibration.markers import AnotherGamesBoardError, calibrate_from_markers

    if not auto:
        try:
            return calibrate_from_markers(layout, frame, piece_height_mm=piece_height_mm)
        except AnotherGamesBoardError:
            raise  # a grid found on it would be this game's grid laid over another game's board
        except CalibrationError as marker_error:
            try:
                return calibrate_from_grid(layout, frame, source, piece_height_mm=piece_height_mm)
            except CalibrationError as grid_error:
                raise CalibrationError(f"{marker_error}; {grid_error}") from None
    return calibrate_from_grid(layout, frame, source, piece_height_mm=piece_height_mm)


def _size_note(measured: float, reframed: bool) -> str:
    from calibration.piece_size import USUAL

    if reframed:
        framing = "crops framed to it"
    elif USUAL[0] <= measured <= USUAL[1]:
        framing = "a usual size, read as usual"
    else:  # the median is off, but not three discs in four (`sized_to_pieces`)
        framing = f"not clearly off the usual {USUAL[0]:.2f}–{USUAL[1]:.2f}, read as usual"
    return f"radius {measured:.2f} of the point spacing, {framing}"


@app.command()
def calibrate(
    game: GameOption = "xiangqi",
    image: Annotated[Path | None, typer.Option("--image", help="a photo of the board")] = None,
    camera: Annotated[str | None, typer.Option("--camera", help="camera index or URL: one frame")] = None,
    corners: Annotated[str | None, typer.Option(
        "--corners", help='"x,y x,y x,y x,y": first-file/first-rank corner first, anticlockwise')] = None,
    pitch: Annotated[float | None, typer.Option(help="spacing between points, mm")] = None,
    piece_height: Annotated[float | None, typer.Option(
        help="piece thickness, mm (0: flat printed discs; default: half the pieces' radius, as recognize and "
             "watch take it)")] = None,
    auto: Annotated[bool, typer.Option(
        "--auto", help="find the board from its printed grid, not its markers (first rank nearest the "
                       "bottom of the photo, unless the pieces on it show otherwise)")] = False,
    start_position: Annotated[list[Path] | None, typer.Option(
        "--start-position", help="a photo of the start position, from the same camera (repeat for more): "
                                 "adapts the classifier to this set of pieces")] = None,
    out: Annotated[Path, typer.Option("--out", "-o")] = Path("calibration.json"),
) -> None:
    """Locate the board (markers, else its grid; or the four corners you give), fit it to the
    board's printed lines and write a profile.

    With --start-position, also adapt the point classifier to the pieces on those photos
    (they label themselves: the start position is known), write the adaptation beside the
    profile and report how well it reads points it did not train on. Without --image or
    --camera, the board is located on the first start-position photo.
    """
    from banco.locate import fitted_to_lines
    from banco.record import refuse_out_over_input
    from calibration import BoardLayout, Calibration, parse_corners
    from calibration.camera import grab_frame, lacks_colour, read_image
    from calibration.homography import usual_thickness_mm
    from calibration.piece_size import sized_to_pieces
    from calibration.profile import save

    photos = list(start_position or [])
    try:
        if image is None and camera is None and photos:
            image = photos[0]
        if (image is None) == (camera is None):
            raise BancoError("give exactly one of --image FILE or --camera SOURCE (or --start-position FILE)")
        refuse_out_over_input(out, (image, *photos), "the profile")
        if len({path.resolve() for path in photos if path.exists()}) < len([p for p in photos if p.exists()]):
            # One photo given twice would be both trained on and held out: the accuracy said would be no test.
            raise BancoError("a --start-position photo is given twice; give each photo once")
        frame = read_image(image) if image is not None else grab_frame(camera)
        layout = BoardLayout.for_game(games.get(game), pitch)
        height, width = frame.shape[:2]
        _check_corners_given(corners)
        if corners and auto:
            raise BancoError("give --corners or --auto, not both")
        _check_piece_height(piece_height, layout.pitch_mm)
        # Unless given, pieces are taken as thick as a usual set's: crops cut at the board itself
        # (flat) miss the top of a thick piece in a tilted view (model card, "Reading at the
        # pieces' top", session 43).
        thickness = usual_thickness_mm(layout.pitch_mm) if piece_height is None else piece_height
        if corners:
            cal = Calibration.from_corners(layout, parse_corners(corners), (width, height),
                                           piece_height_mm=thickness)
        else:
            cal = _locate_without_corners(layout, frame, str(image or camera), thickness, auto)
        cal, moved = fitted_to_lines(cal, frame, "the corners given" if corners else "the markers' corners")
        if moved is not None:
            typer.echo(moved, err=True)
        frames = [read_image(path) for path in photos]
        for path, shot in zip(photos, frames, strict=True):
            if lacks_colour(shot):
                raise BancoError(f"{path} has no colour (a black-and-white photo): the sides' pieces differ by "
                                 "their colour, so the set cannot be learnt from it; give a colour photo")
            if shot.shape[:2] != (height, width):
                raise BancoError(f"{path} is {shot.shape[1]}×{shot.shape[0]}, not {width}×{height} like the "
                                 "calibrated view: start-position photos must come from the same camera")
        # The pieces' size frames every crop: measured where the start position puts pieces, or
        # on the calibration photo wherever discs show (an empty board keeps the usual size).
        if frames:
            from vision.adapt import start_labels
            from vision.classes import EMPTY

            occupied = [point for point, label in start_labels(game).items() if label != EMPTY]
            sized, measured = sized_to_pieces(cal, frames[0], occupied, height_known=piece_height is not None)
        else:
            sized, measured = sized_to_pieces(cal, frame, height_known=piece_height is not None)
        reframed, cal = sized is not cal, sized
        if cal.method == "grid":
            cal = _grid_side_down(games.get(game), cal, frames[0] if frames else frame, bool(frames))
        report = None
        if frames:  # adapted before anything is written, so a wrong photo leaves no half-made profile
            from vision.adapt import adapt_to_start, save_with_profile
            from vision.detector import PointClassifier

            typer.echo(f"adapting the {game} classifier to the set on {len(frames)} start photo(s)…", err=True)
            report = adapt_to_start(PointClassifier(game), [(shot, cal) for shot in frames],
                                    names=[str(path) for path in photos])
        data = save(cal, out, camera=str(camera or image), image=frame, radius_measured=reframed)
        if report is not None and report.helps:
            adaptation_file = save_with_profile(report.adaptation, out)
    except ValueError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {str(out)!r}: {error.strerror}")
    found = f" (grid confidence {cal.confidence:.2f})" if cal.confidence is not None else ""
    size = _size_note(measured, reframed) if measured is not None else "the usual size: no pieces found to measure"
    thick = f"pieces {cal.piece_height_mm:.1f} mm thick" + (
        " (taken as usual; --piece-height gives yours)" if piece_height is None else "")
    typer.echo(f"{cal.method}: viewing angle {data['viewing_angle_deg']}°, "
               f"piece radius {data['piece_radius_px']} px ({size}), {thick}{found}")
    for warning in cal.camera_warnings():
        typer.echo(f"warning: {warning}", err=True)
    if report is not None:
        typer.echo(report.summary())
        if report.helps:
            typer.echo(f"wrote {adaptation_file}")
    typer.echo(f"wrote {out}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port to listen on")] = 8000,
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
        app = create_app(settings)
    except ValueError as error:
        fail(str(error))
    if settings.token_generated:
        typer.echo(f"referee token: {settings.referee_token}", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _grid_side_down(variant, cal, frame, start: bool):
    """A grid found on a photo taken from the second player's side, turned so the first rank is
    the first player's: by the start position on a start photo, else by the pieces that never
    leave home, if any stand on the photo (an empty board cannot tell)."""
    from banco.locate import HOME_PIECES, home_side_down, start_side_down
    from vision.detector import Detector

    if start:
        turned = start_side_down(variant, cal, frame)
        why = "the start position reads the right way up"
    else:
        observation = Detector(variant.name, cal, thorough=True).observe(frame)
        turned = home_side_down(variant, cal, frame, observation, thorough=True)[0]
        why = f"{HOME_PIECES[variant.name]} stand on their own side"
    if turned is not cal:
        typer.echo(f"{why} with the grid turned half round: turned", err=True)
    return turned


@app.command()
def recognize(
    image: Annotated[Path, typer.Argument(help="a photo of the board")],
    game: GameOption = "xiangqi",
    corners: Annotated[str | None, typer.Option(
        "--corners", help='"x,y x,y x,y x,y": first-file/first-rank corner first, anticlockwise')] = None,
    calibration_file: Annotated[Path | None, typer.Option(
        "--calibration", help="a profile from banco calibrate")] = None,
    piece_height: Annotated[float | None, typer.Option(help="piece thickness, mm")] = None,
    model: Annotated[Path | None, typer.Option(help="an ONNX point classifier")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="per-point class and confidence")] = False,
) -> None:
    """Read the position on a photo; the FEN is the last line. Without --corners or --calibration
    the board is found by its printed markers, else by its grid; corners, markers and profiles
    are fitted to the board's printed lines on the photo."""
    import json

    from banco.locate import fitted_to_lines
    from calibration import BoardLayout, Calibration, parse_corners
    from calibration.camera import lacks_colour, read_image
    from calibration.homography import outside_frame, usual_thickness_mm
    from calibration.markers import AnotherGamesBoardError
    from calibration.piece_size import sized_to_pieces
    from calibration.profile import load
    from vision.adapt import load_for_profile
    from vision.detector import Detector

    try:
        variant = games.get(game)
        _check_piece_height(piece_height, BoardLayout.for_game(variant).pitch_mm)
        frame = read_image(image)
        height, width = frame.shape[:2]
        _check_corners_given(corners)
        if corners and calibration_file:
            raise BancoError("give --corners or --calibration, not both")
        if calibration_file:
            cal = load(calibration_file)
            if cal.layout.geometry.name != variant.name:
                raise BancoError(
                    f"{calibration_file} calibrates a {cal.layout.geometry.name} board, not {variant.name}")
            if cal.image_size != (width, height):
                # The same view at another resolution (a phone's smaller setting): scaled to it.
                made = "×".join(str(v) for v in cal.image_size)
                cal = cal.for_image_size((width, height), str(image))
                typer.echo(f"{calibration_file} was made on {made} photos; {image} is {width}×{height}, "
                           "the same view scaled", err=True)
        else:
            layout = BoardLayout.for_game(variant)
            thickness = piece_height if piece_height is not None else (
                usual_thickness_mm(layout.pitch_mm))
            if corners:
                cal = Calibration.from_corners(layout, parse_corners(corners), (width, height),
                                               piece_height_mm=thickness)
            else:
                try:
                    cal = _locate_without_corners(layout, frame, str(image), thickness)
                except AnotherGamesBoardError:
                    raise
                except ValueError as error:
                    raise BancoError(f"{error}; give --corners or --calibration") from None
        if piece_height is not None:
            cal.piece_height_mm = piece_height
        if lacks_colour(frame):
            raise BancoError(f"{image} has no colour (a black-and-white photo): the sides' pieces differ by "
                             "their colour, so it cannot be read; give a colour photo")
        cal, moved = fitted_to_lines(cal, frame, "the profile's corners" if calibration_file else
                                     "the corners given" if corners else "the markers' corners")
        if moved is not None:
            typer.echo(moved, err=True)
        # Crops are framed by the pieces' size, so it is measured on the photo itself: a set
        # with small discs would otherwise be read at a size the classifier never learned.
        sized, measured = sized_to_pieces(cal, frame, height_known=piece_height is not None or bool(calibration_file))
        if measured is not None and not as_json:
            typer.echo(f"pieces measured: {_size_note(measured, sized is not cal)}", err=True)
        cal = sized
        adaptation = load_for_profile(calibration_file) if calibration_file and model is None else None
        # One still photo: every crop is read twice, the second time in five views (Detector thorough).
        observation = Detector(variant.name, cal, model, adaptation=adaptation, thorough=True).observe(frame)
        if cal.method == "grid":
            # A grid puts the first rank at the photo's bottom; from the other side, the pieces
            # that never leave home read on each other's side, and the board is read turned.
            from banco.locate import HOME_PIECES, home_side_down

            cal, observation, turned = home_side_down(variant, cal, frame, observation, model_path=model,
                                                      adaptation=adaptation, thorough=True)
            if turned:
                typer.echo(f"{HOME_PIECES[variant.name]} stand on each other's side as the grid lies: "
                           "read turned half round", err=True)
        elif corners or calibration_file:
            from banco.locate import HOME_PIECES, home_score

            if home_score(variant, observation) <= -1.0:
                # Corners and profiles keep the orientation given (markers fix it themselves): a
                # doubt about it is said, not acted on.
                typer.echo(f"warning: {HOME_PIECES[variant.name]} read on each other's side as the "
                           f"{'profile' if calibration_file else 'corners'} lie: are the corners given from "
                           f"the first player's side, {variant.geometry.point_name(games.Point(0, 0))} first?",
                           err=True)
        g = variant.geometry
        # The whole board is read at once, as the set allows (no third horse, no elephant across
        # the river): the classifier confuses glyphs of one colour more than it misses pieces.
        placement = observation.placement()
        # The start position's other fields: the first mover to play, each game's own FEN form.
        fen = f"{observation.board_fen(g.files, g.ranks, placement)} {variant.starting_fen.split(' ', 1)[1]}"
        if variant.name == "xiangqi":
            fen = _checked_side_to_move(variant, fen)
    except ValueError as error:
        fail(str(error))
    points = observation.to_json(placement)
    if as_json:
        typer.echo(json.dumps({"game": variant.name, "fen": fen, "points": points}))
    else:
        at = [games.Point(p["file"], p["rank"]) for p in points]
        unseen = outside_frame([cal.piece_center_pixel(point) for point in at], frame.shape)
        unframed = {(point.file, point.rank) for point, out in zip(at, unseen, strict=True) if out}
        if unframed:
            names = ", ".join(g.point_name(games.Point(*at)) for at in sorted(unframed)[:12])
            typer.echo(f"{len(unframed)} point(s) outside the photo, not read (empty in the FEN): {names}", err=True)
        unsure = [p for p in points if (p["confidence"] < 0.6 or p["occluded"])
                  and (p["file"], p["rank"]) not in unframed]
        if unsure:
            names = ", ".join(g.point_name(games.Point(p["file"], p["rank"])) for p in unsure[:12])
            typer.echo(f"unsure about {len(unsure)} point(s): {names}", err=True)
    for warning in cal.view_warnings():
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(fen)


def _check_piece_height(piece_height: float | None, pitch_mm: float) -> None:
    """A thickness from 0 (flat printed discs) to the point spacing: no piece is taller than
    the gap between two points is wide (NaN and infinity read an empty board)."""
    if piece_height is not None and not 0 <= piece_height <= pitch_mm:
        raise BancoError(f"--piece-height is a piece's thickness in mm, from 0 to the point spacing "
                         f"({pitch_mm:g} mm), not {piece_height:g}")


def _checked_side_to_move(variant, fen: str) -> str:
    """Red moves first, unless the photo shows Black in check: then only Black can be to move
    (a side never moves into check), and the FEN says so."""
    try:
        variant.board(fen)
    except BancoError:
        board, side, rest = fen.split(" ", 2)
        black_to_move = f"{board} b {rest}"
        try:
            variant.board(black_to_move)
        except BancoError:
            return fen  # a position no set shows (a general unread, say): the reading as it is
        typer.echo("Black's general is in check: Black to move", err=True)
        return black_to_move
    return fen


def _check_corners_given(corners: str | None) -> None:
    """`--corners ""` (a shell variable left empty) is a mistake, not a request to search."""
    if corners is not None and not corners.strip():
        raise BancoError('--corners is empty: give four "x,y" pairs, or leave it out to find the board')


@app.command()
def train(
    game: GameOption = "xiangqi",
    scenes: Annotated[int, typer.Option(help="rendered photos to cut crops from")] = 400,
    epochs: Annotated[int, typer.Option()] = 15,
    data: Annotated[Path, typer.Option(help="where the crop dataset is written")] = Path("build/dataset"),
    out: Annotated[Path | None, typer.Option(
        help="the 8-bit ONNX file to write (the float one goes beside it, as .float.onnx); "
        "default: the shipped model's")] = None,
    seed: Annotated[int, typer.Option()] = 1,
    knocked: Annotated[float, typer.Option(
        min=0.0, max=1.0, help="share of the photos (and real crops) cut off-centre, as from a bumped "
        "board or a piece set down beside its point")] = 0.35,
    real_copies: Annotated[int, typer.Option(min=0, help="times each real Xiangqi crop is pasted, "
                                             "turned anew")] = 3,
    init: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False, help="a model to train on from (a float .onnx file, such as a shipped "
        "models/<game>-points.float.onnx, or a run's best.pt), "
        "at a learning rate a quarter of a fresh start's")] = None,
    device: Annotated[str, typer.Option(help='"cpu", or a CUDA device such as "0" (checked once the crops '
                                        "are rendered)")] = "cpu",
) -> None:
    """Render a crop dataset and train the point classifier (needs the training environment:
    make train-env): the float model to OUT with `.float.onnx` for `.onnx`, and its 8-bit
    version, which the station reads, to OUT.

    The defaults for --knocked and --real-copies are the recipe of the shipped Cờ Tướng model
    (`models/MODEL_CARD.md`)."""
    from rich.progress import Progress

    from models.quantize import float_model_beside, quantize, refuse_8_bit
    from models.synth.dataset import build
    from models.train import FINE_TUNING, train_classifier
    from vision.detector import default_model_path

    if init is not None and init.suffix == ".onnx":
        try:
            refuse_8_bit(init)
        except ValueError as error:
            fail(str(error))
    real = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "xiangqi-crops"
    with Progress() as progress:
        task = progress.add_task(f"rendering {scenes} {game} photos", total=scenes)
        build(game, data, scenes, seed, real if game == "xiangqi" and real.is_dir() else None,
              progress=lambda n, total: progress.update(task, completed=n), real_copies=real_copies,
              knocked=knocked)
    target = out or default_model_path(game)
    float_target = float_model_beside(target)
    tuning = {"init": init, **FINE_TUNING} if init else {}
    try:
        train_classifier(data, float_target, epochs=epochs, seed=seed, device=device, **tuning)
    except ValueError as error:
        fail(str(error))
    typer.echo(f"wrote {float_target}")
    quantize(game, float_target, target)
    typer.echo(f"wrote {target} (8-bit, what the station reads; `models.quantize`)")


from banco.record import register as _register_record  # noqa: E402

_register_record(app, fail)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
