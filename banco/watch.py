"""`banco watch` (a camera on a real board) and `banco demo` (the same station on a rendered game).

`banco watch` runs one station: the camera (an index, a video file or a stream URL), the
board's calibration (a profile from `banco calibrate`, else the printed board's markers on
the first frame), an optional banco clock and LED board (a serial port, ``socket://`` URL, or
``sim``; a WLED strip with ``wled:TARGET``), and the record: without ``--server`` the pages
are served by this same process (SQLite file, http://127.0.0.1:8000), with ``--server URL
--station-key KEY`` the moves go to that server's record: the game in progress on the key's
board, then each next game the referee creates on it, or ``--game-id N`` alone.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated

import typer

import games
from games.base import BancoError
from server.station.modes import refuse_mode_mismatch

GameOption = Annotated[str, typer.Option("--game", "-g", help="xiangqi, commander or cotoan")]


def _fail(message: str) -> None:
    typer.echo(f"banco: {message}", err=True)
    raise typer.Exit(2)


def camera_spec(text: str) -> int | str:
    """``0`` is a camera index; anything else a file or URL (a missing file is an error)."""
    if text.isdigit():
        return int(text)
    if "://" not in text and not Path(text).exists():
        raise BancoError(f"--camera {text!r}: no such file, and not a camera index or URL")
    return text


def frames_of(spec: int | str):
    """The frames of a camera, file or stream (`vision.capture.FrameSource`)."""
    from vision.capture import FrameSource

    return FrameSource(spec)


def _calibration(variant, calibration_file: Path | None, spec: int | str):
    from banco.locate import MARKER_SEARCH_S, find_board, fitted_to_lines
    from calibration import CalibrationError
    from calibration.profile import load

    if calibration_file is not None:
        calibration = load(calibration_file)
        if calibration.layout.geometry.name != variant.name:
            raise BancoError(f"{calibration_file} calibrates a {calibration.layout.geometry.name} board, "
                             f"not {variant.name}")
        # The camera may deliver another resolution than the profile was made at (another
        # program set it, or the profile came from a photo): the same view's shape is scaled
        # to, another shape refused, before anything is read through it.
        from calibration.camera import grab_frame

        frame = grab_frame(str(spec))
        scaled = calibration.for_image_size((frame.shape[1], frame.shape[0]), f"the camera {spec!r}'s view")
        # The camera may have shifted a little since the profile was made: fitted to the lines it shows now.
        fitted, moved = fitted_to_lines(scaled, frame, "the profile's corners")
        if moved is not None:
            typer.echo(moved, err=True)
        return fitted
    source = frames_of(spec)
    try:
        # Markers, else the grid with the start position the right way up; a set clearly smaller
        # or larger than usual is framed to its size, and taken as thick as usual for it, as calibrate would.
        return find_board(variant, source)
    except CalibrationError as error:
        raise BancoError(f"the board was not found on the camera {spec!r} in {MARKER_SEARCH_S:g} s ({error}); "
                         "calibrate first (banco calibrate) and give --calibration") from None
    finally:
        source.close()


def watch(
    game: GameOption = "xiangqi",
    camera: Annotated[str, typer.Option("--camera", "-c", help="camera index (0), video file or stream URL")] = "0",
    calibration: Annotated[Path | None, typer.Option("--calibration", help="a profile from banco calibrate")] = None,
    time_control: Annotated[str | None, typer.Option(
        "--time", help="time control: 15+10, 30+10, 15+0, 30+0, or any M+S, MdS (delay), MbS (Bronstein). "
                       "Commander Chess times the game, not each side: "
                       "M minutes of both players' time together (15: battle, 30: total war), then points "
                       "decide; the increment is dropped")] = None,
    clock: Annotated[str | None, typer.Option("--clock", help="banco clock: serial port, socket:// URL or sim")] = None,
    leds: Annotated[str | None, typer.Option(
        "--leds", help="LED board: serial port, socket:// URL, sim, or wled:udp://HOST / wled:/dev/ttyUSB0")] = None,
    server: Annotated[str | None, typer.Option("--server", help="record on this banco server instead")] = None,
    station_key: Annotated[str | None, typer.Option("--station-key", help="the board's key (with --server)")] = None,
    game_id: Annotated[int | None, typer.Option(
        "--game-id", help="with --server: the game to record (default: the game in progress on the key's board); "
                          "without: a game to resume in the local record")] = None,
    white: Annotated[str, typer.Option(help="Red/White player's name")] = "",
    black: Annotated[str, typer.Option(help="Black/Blue player's name")] = "",
    host: Annotated[str, typer.Option(help="embedded server: address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="embedded server: port (another free one if "
                                                             "taken, said on stderr)")] = 8000,
    database: Annotated[str | None, typer.Option(help="embedded server: SQLAlchemy URL (default: SQLite file)")]
    = None,
) -> None:
    """Watch a real board: the camera's moves recorded live, with clock and LEDs when present."""
    from calibration.follow import BoardFollower
    from hardware.clock import TimeControl
    from server.station.embedded import free_port, serve_with_station
    from server.station.orchestrator import Station
    from vision.adapt import load_for_profile
    from vision.detector import Detector
    from vision.tracker import MoveTracker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    for chatty in ("alembic", "httpx", "httpcore"):  # their INFO lines would come before a one-line error
        logging.getLogger(chatty).setLevel(logging.WARNING)
    app = settings = None
    try:
        variant = games.get(game)
        control = TimeControl.parse(time_control) if time_control else None
        if server and not station_key:
            raise BancoError("--server needs --station-key KEY (the referee gives the board's key)")
        if station_key and not server:
            raise BancoError("--station-key goes with --server URL")
        spec = camera_spec(camera)
        if not server:
            app, settings = _embedded_record(variant, game_id, database, control)
        cal = _calibration(variant, calibration, spec)
        for warning in cal.camera_warnings():
            typer.echo(f"warning: {warning}", err=True)
        detector = Detector(variant.name, cal, adaptation=load_for_profile(calibration) if calibration else None)
        if not server:
            wanted, port = port, free_port(host, port)  # before the game: a failed start leaves no empty game
            if port != wanted:
                typer.echo(f"port {wanted} is taken: serving on {port}", err=True)
            if game_id is None:  # opened once the board is found: a failed start leaves no empty game
                from server.station.embedded import open_game

                game_id, _key = open_game(app.state.recorder, variant.name, white=white, black=black, control=control)
    except (ValueError, OSError) as error:
        _fail(str(error))

    # One locator for the station: a knocked board's new fit outlives a tracker rebuilt after a
    # referee's correction (the detector's crops already follow it).
    locator = BoardFollower(cal)

    def make_station(target):
        def make_tracker(board):
            # A game with moves on the record goes on from its position; a new one (the board's
            # next game too) begins once the camera sees the start position.
            return MoveTracker(variant.name, board, detector, locator.calibration,
                               wait_for_start=not board.move_stack,
                               locator=locator, adapt_at_start=True)

        return Station(target, frames_of(spec), make_tracker, clock=clock, leds=leds, time_control=control,
                       name=f"watch-{variant.name}")

    if server:
        from server.station.target import RemoteTarget

        async def remote() -> None:
            target = RemoteTarget(server, station_key, game_id)
            try:
                if game_id is None:  # the board's game in progress, as the referee set it up
                    await target.find_game()
                snapshot = await target.snapshot()
                if snapshot["variant"] != variant.name:
                    raise BancoError(f"game {target.game_id} on {target.url} is {snapshot['variant']}, "
                                     f"not {variant.name}")
                refuse_mode_mismatch(variant.name, snapshot["fen"], control, f"game {target.game_id} on {target.url}")
                # The key must let this station write this game (its board's key): asked now, not
                # at the first move, which would be lost.
                await target.status({"station": f"watch-{variant.name}", "camera": "starting"})
                typer.echo(f"recording game {target.game_id} on {target.url}/games/{target.game_id}")
                await make_station(target).run()
            finally:
                await target.close()

        from server.station.target import StoreUnavailable

        try:
            asyncio.run(remote())
        except KeyboardInterrupt:
            pass
        except (ValueError, StoreUnavailable) as error:
            _fail(str(error))
        return

    from server.station.target import EmbeddedTarget

    def ready(url: str) -> None:
        from server.store.db import default_url

        typer.echo(f"referee console: {url}/console/{game_id}  (token {settings.referee_token})")
        typer.echo(f"live page: {url}/games/{game_id}")
        typer.echo(f"record: game {game_id} in {settings.database_url or default_url()}")

    try:
        asyncio.run(serve_with_station(app, lambda: make_station(EmbeddedTarget(app, game_id)),
                                       host=host, port=port, on_ready=ready))
    except KeyboardInterrupt:
        pass
    except ValueError as error:
        _fail(str(error))


def _embedded_record(variant, game_id: int | None, database: str | None, control):
    """This process's record, and `game_id` (to carry on after a restart) checked against it;
    a new game is opened by the caller once the board is found."""
    from server.app import create_app
    from server.config import Settings

    settings = Settings.from_env(database_url=database)
    app = create_app(settings)
    if game_id is None:
        return app, settings
    row = app.state.recorder.get_game(game_id)
    if row.variant != variant.name:
        raise BancoError(f"game {game_id} is {row.variant}, not {variant.name}")
    refuse_mode_mismatch(variant.name, row.start_fen, control, f"game {game_id}")
    return app, settings


def demo(
    game: GameOption = "xiangqi",
    speed: Annotated[float, typer.Option(help="video speed: 1 is real time, 0 as fast as possible")] = 1.0,
    plies: Annotated[int | None, typer.Option(help="only the first PLIES plies of the game")] = None,
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port (another free one if taken)")] = 8000,
    headless: Annotated[bool, typer.Option(
        "--headless", help="no pages: read the whole video, then check the record against the game (exit 1 "
                           "if it differs)")] = False,
) -> None:
    """A station on a rendered video of a real game, with the simulated clock and LED board,
    and the live page (its URL is printed). The first run renders the video (a minute or two)."""
    from banco.demo import main

    if speed < 0:
        _fail(f"--speed {speed} is negative")
    if plies is not None and plies < 1:
        _fail(f"--plies {plies} must be at least 1")
    try:
        same = main(game, speed, host, port, plies, echo=typer.echo, headless=headless)
    except ValueError as error:
        _fail(str(error))
    except OSError as error:  # the video's cache folder (BANCO_CACHE_DIR) unusable, and the like
        _fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))
    if headless and not same:
        raise typer.Exit(1)
