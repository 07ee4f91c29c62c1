"""`banco record VIDEO --game G --out FILE`: a video of a game becomes its record.

The video is read frame by frame (a progress bar on stderr) through `vision.tracker`; the
moves it commits are pushed to the game's own board (the rules engine has the last word)
and written in the game's format: PGN for Cờ Tướng (Vietnamese coordinates), the seed's
secretary notation for Cờ Tư Lệnh, our notation for Cờ Toán. Events that are not moves
(illegal moves, ambiguities, occlusions, camera drop-outs) become comments where they
happened, so a referee sees every doubt; an occlusion that only held a move back until it
was committed is no doubt, and is dropped.

The board is located by its printed ArUco markers on the first frames, else by its printed
grid (`banco.locate`), or by a profile from `banco calibrate` (`--calibration`). With
`--clock-log` (one clock press per line: the second of the video at which it happened,
optionally followed by the side), presses are the moments moves are committed (FIDE 6.7);
without it, the stability window after the hand.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

import games
from banco.locate import MARKER_SEARCH_S, find_board, fitted_to_lines
from games.base import BancoError
from vision import events as ev


class RecordError(BancoError):
    """A video that cannot become a record: unreadable, no board, no start position."""


@dataclass
class Recording:
    """What `record_video` found: the board with the moves pushed, and the comments."""

    game: str
    board: object
    start_fen: str
    moves: list = field(default_factory=list)
    san: list[str] = field(default_factory=list)
    comments: dict[int, list[str]] = field(default_factory=dict)  # after this many moves
    events: list = field(default_factory=list)
    frames: int = 0
    located: str = ""  # how the board was found: the profile, its markers, its grid
    # What the camera cannot read surely (`Calibration.camera_warnings`).
    warnings: list[str] = field(default_factory=list)
    # Occlusions noted since the last move: a move committed after them has resolved them.
    open_occlusions: list = field(default_factory=list)

    def note(self, text: str) -> None:
        self.comments.setdefault(len(self.moves), []).append(text)

    def _drop_resolved_occlusions(self) -> None:
        """A hidden point that kept a move waiting is no doubt once the move is committed: the
        record keeps only the occlusions nothing resolved (the video ended behind a hand)."""
        for ply, text in self.open_occlusions:
            notes = self.comments.get(ply, [])
            if text in notes:
                notes.remove(text)
            if not notes:
                self.comments.pop(ply, None)
        self.open_occlusions = []

    def take(self, event) -> None:
        """One event from the tracker: a start position, moves to push, a comment."""
        self.events.append(event)
        if isinstance(event, ev.StartFound):
            self.board = games.get(self.game).record_board(event.fen)
            self.start_fen = event.fen
            if event.note:
                self.note(event.note)
            return
        if isinstance(event, ev.MoveCommitted):
            self._drop_resolved_occlusions()
            for move, san in zip(event.moves, event.san, strict=True):
                self.board.push(move)  # the rules engine checks it once more
                self.moves.append(move)
                self.san.append(san)
        text = describe(self.game, event)
        if text:
            self.note(text)
            if isinstance(event, ev.Occluded):
                self.open_occlusions.append((len(self.moves), text))
        if isinstance(event, ev.MoveCommitted):
            verdict = self.board.outcome()
            if verdict is not None and verdict.termination.play_may_go_on:
                self.note(repetition_note(verdict))


def read_clock_log(path: Path) -> list[float]:
    """Press times (seconds into the video), one per line; ``#`` starts a comment.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "clock.txt"
    >>> _ = log.write_text("# presses\\n3.5 white\\n7.25,black\\n")
    >>> read_clock_log(log)
    [3.5, 7.25]
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise RecordError(f"clock log {str(path)!r} cannot be read: {error}") from None
    presses = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].replace(",", " ").strip()
        if not text:
            continue
        try:
            seconds = float(text.split()[0])
        except ValueError:
            raise RecordError(f"clock log line {number}: {line.strip()!r} does not start with seconds") from None
        if not math.isfinite(seconds) or seconds < 0:
            raise RecordError(f"clock log line {number}: {line.strip()!r} is not a time into the video "
                              "(seconds, 0 or more)")
        presses.append(seconds)
    return sorted(presses)


def refuse_out_over_input(out: Path, inputs: tuple[Path | None, ...], what: str = "the record") -> None:
    """Refuse an `--out` that is one of the command's `inputs`: writing `what` there would destroy it."""
    for given in inputs:
        if given is not None and out.exists() and given.exists() and out.resolve() == given.resolve():
            raise RecordError(f"--out {str(out)!r} is the input {str(given)!r}: writing {what} there "
                              "would destroy it; give another file name")


def check_out(out: Path, inputs: tuple[Path | None, ...] = ()) -> None:
    """Refuse a record path that cannot be written, or that is one of the command's `inputs`
    (the video, the clock log, the profile), before the video is read, not after."""
    refuse_out_over_input(out, inputs)
    if out.is_dir():
        raise RecordError(f"--out {str(out)!r} is a folder: give the record's file name, such as game.pgn")
    folder = out.parent  # Path("game.pgn").parent is Path(".")
    if not folder.is_dir():
        raise RecordError(f"--out {str(out)!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise RecordError(f"--out {str(out)!r} cannot be written (no permission)")


def _point_names(game: str, points) -> str:
    geometry = games.get(game).geometry
    return " ".join(geometry.point_name(p) for p in points)


def describe(game: str, event) -> str | None:
    """The comment an event leaves in the record (None for events that are no news)."""
    at = f"{event.timestamp:.1f}s"
    if isinstance(event, ev.Illegal):
        text = f"illegal at {at}: {_point_names(game, event.points)}"
        if event.penalty:
            text += f" (penalty turn {' '.join(str(m) for m in event.penalty)} $ possible)"
        return text
    if isinstance(event, ev.Ambiguous):
        options = " | ".join(" ".join(s) if s else "no move" for s in event.san[:4])
        return f"ambiguous at {at}: {options}"
    if isinstance(event, ev.Occluded):
        return f"occluded at {at}: {_point_names(game, event.points)}"
    if isinstance(event, ev.Adapted):
        return event.summary
    if isinstance(event, ev.BoardMoved):
        return event.note()
    if isinstance(event, ev.CameraLost):
        return f"camera lost at {at}"
    if isinstance(event, ev.CameraBack):
        return f"camera back at {at}"
    if isinstance(event, ev.MoveCommitted):
        notes = []
        if len(event.moves) > 1:
            notes.append(f"{len(event.moves)} plies seen together at {at}")
        notes += event.notes()
        return "; ".join(notes) or None
    return None


def repetition_note(verdict) -> str:
    """The comment at a third repetition. The record goes on if the game did: seed 001 has the
    arbiter ask the repeating player to change moves before judging the game so."""
    if verdict.winner is None:
        judged = "a draw"
    else:
        loser = "Black" if verdict.winner is games.WHITE else "Red"
        judged = f"{loser} loses ({verdict.result()})"
    return (f"third repetition, {verdict.termination.value}: {judged} unless the game goes on "
            "(seed 001, Điều 7: the arbiter asks for a change of moves)")


def locate_board(game: str, source, calibration: Path | None, model: Path | None = None,
                 said: list[str] | None = None):
    """The calibration: from the profile, fitted to the board's printed lines on the video's first
    frame (a phone films a little wider or narrower than it photographs), else from the board's
    markers, else its grid, on the video's first seconds (`banco.locate`). How far the fit moved
    the profile's corners is appended to `said`, when given and half a pixel or more.

    Returns (calibration, frames read while searching) so no frame is lost."""
    from calibration import CalibrationError
    from calibration.profile import load

    variant = games.get(game)
    if calibration is not None:
        cal = load(calibration)
        if cal.layout.geometry.name != variant.name:
            raise RecordError(f"{calibration} calibrates a {cal.layout.geometry.name} board, not {variant.name}")
        size = getattr(source, "frame_size", None)
        if size is not None and size != cal.image_size:
            # A phone films at another resolution than it photographs: the same view's shape is
            # scaled to; another shape is another view, which the profile cannot read.
            try:
                cal = cal.for_image_size(size, f"the video {source.name!r}")
            except CalibrationError as error:
                raise RecordError(str(error)) from None
        first: list = []
        for frame, stamp in source:
            first.append((frame, stamp))
            cal, moved = fitted_to_lines(cal, frame, "the profile's corners")
            if moved is not None and said is not None:
                said.append(moved)
            break
        return cal, first
    seen: list = []
    try:
        found = find_board(variant, source, model, keep=seen)
    except CalibrationError as error:
        raise RecordError(f"the board was not found on the first {MARKER_SEARCH_S:g} s of the video "
                          f"({error}); give --calibration") from None
    return found, seen


def record_video(video: Path, game: str, *, calibration: Path | None = None, clock_log: Path | None = None,
                 model: Path | None = None, progress: Callable[[int, int], None] | None = None) -> Recording:
    """Run the tracker over a whole video and return the recording (see the module docstring)."""
    from calibration.follow import BoardFollower
    from vision.adapt import load_for_profile
    from vision.capture import CaptureError, FrameSource
    from vision.detector import Detector
    from vision.tracker import MoveTracker

    variant = games.get(game)
    try:
        source = FrameSource(video)
    except CaptureError as error:
        raise RecordError(str(error)) from None
    presses = read_clock_log(clock_log) if clock_log else []
    fitted: list[str] = []
    cal, early = locate_board(variant.name, source, calibration, model, said=fitted)
    adaptation = load_for_profile(calibration) if calibration and model is None else None
    detector = Detector(variant.name, cal, model, adaptation=adaptation)
    board = variant.record_board()
    # A knocked board is found again by its markers, or by its printed grid where it has none.
    tracker = MoveTracker(variant.name, board, detector, cal, commit_on_press=bool(presses), locator=BoardFollower(cal),
                          adapt_at_start=True)
    recording = Recording(variant.name, board.copy(), board.fen(), warnings=cal.camera_warnings())
    if calibration is not None:
        recording.located = f"from {calibration}" + "".join(f" ({line})" for line in fitted)
    elif cal.method == "grid":
        recording.located = f"found by its printed grid (confidence {cal.confidence:.2f})"
    else:
        recording.located = "found by its markers"
    total = max(source.frame_count, 1)

    def handle(events) -> None:
        for event in events:
            recording.take(event)

    def frames():
        yield from early
        yield from source

    stamp = 0.0
    for frame, stamp in frames():
        while presses and presses[0] <= stamp:
            handle(tracker.press(presses.pop(0)))
        handle(tracker.feed(frame, stamp))
        recording.frames += 1
        if progress:
            progress(recording.frames, total)
    handle(tracker.finish(stamp))
    if recording.frames == 0:
        raise RecordError(f"{str(video)!r} has no frame OpenCV can read")
    announced = source.frame_count
    if announced > 0 and recording.frames < 0.95 * announced - 1:
        # A file cut short (a copy that stopped, a phone's battery) reads to where it breaks: the
        # moves read are kept, and the record says it may lack the last ones.
        short = (f"the video ended after {recording.frames} of the {announced} frames its header announces "
                 "(cut short or damaged): the record may lack the last moves")
        recording.warnings.append(short)
        recording.comments.setdefault(len(recording.san), []).append(short)
    if not tracker.started:
        raise RecordError(f"no start position found in {str(video)!r}: is the {variant.title} set up as at the start?")
    return recording


# ------------------------------------------------------------------------------ writing
def _movetext(recording: Recording, texts: list[str], first_black: bool, fullmove: int) -> str:
    words: list[str] = []
    for text in recording.comments.get(0, []):
        words.append("{" + text + "}")
    black_to_move = first_black
    need_number = True
    for index, san in enumerate(texts, 1):
        if not black_to_move:
            words.append(f"{fullmove}. {san}")
        elif need_number:
            words.append(f"{fullmove}... {san}")
        else:
            words.append(san)
        need_number = False
        if black_to_move:
            fullmove += 1
        black_to_move = not black_to_move
        for text in recording.comments.get(index, []):
            words.append("{" + text + "}")
            need_number = True
    return " ".join(words)


def write_record(recording: Recording, video: Path, notation: str | None = None) -> str:
    """The record as text: PGN for Cờ Tướng, tag pairs and numbered movetext for the others;
    the moves in `notation` (default: the game's own), named by the `Format` or `Notation` tag."""
    variant = games.get(recording.game)
    writer = variant.notation(notation or variant.default_notation)
    notation = next(key for key, known in variant.notations.items() if known is writer)  # its own spelling
    outcome = recording.board.outcome()
    result = outcome.result() if outcome else "*"
    if variant.name == "xiangqi":
        from games.xiangqi.pgn import Game, GameMove, write_game

        game = Game(headers={"Game": "Chinese Chess", "Event": "banco record", "Site": Path(video).name})
        if recording.start_fen != variant.starting_fen:
            game.headers["FEN"] = recording.start_fen
        game.comment = "; ".join(recording.comments.get(0, []))
        game.moves = [GameMove(move, None, "; ".join(recording.comments.get(i, [])))
                      for i, move in enumerate(recording.moves, 1)]
        game.result = result
        return write_game(game, notation)
    root = variant.record_board(recording.start_fen)
    headers = {"Game": variant.title, "Event": "banco record", "Site": Path(video).name,
               "Notation": notation, "Result": result}
    if recording.start_fen != variant.starting_fen:
        headers["FEN"] = recording.start_fen
    lines = [f'[{k} "{v}"]' for k, v in headers.items()]
    fullmove = int(getattr(root, "fullmove_number", 1) or 1)
    texts = recording.san
    if notation != variant.default_notation:
        board, texts = root.copy(), []
        for move in recording.moves:
            texts.append(writer.format(board, move))
            board.push(move)
    body = _movetext(recording, texts, root.turn is games.BLACK, fullmove)
    return "\n".join(lines) + "\n\n" + (body + " " if body else "") + result + "\n"


# ------------------------------------------------------------------------------ command
def register(app, fail) -> None:
    """Add `banco record` to the CLI (`banco.cli` calls this)."""

    @app.command()
    def record(
        video: Annotated[Path, typer.Argument(help="a video file of the game")],
        game: Annotated[str, typer.Option("--game", "-g", help="xiangqi, commander or cotoan")] = "xiangqi",
        calibration: Annotated[Path | None, typer.Option(
            "--calibration", help="a profile from banco calibrate (else the board's markers, or its grid)")] = None,
        clock_log: Annotated[Path | None, typer.Option(
            "--clock-log", help="clock presses: seconds into the video, one per line")] = None,
        out: Annotated[Path, typer.Option("--out", "-o", help="where to write the record")] = Path("game.pgn"),
        model: Annotated[Path | None, typer.Option(help="an ONNX point classifier")] = None,
        notation: Annotated[str | None, typer.Option(
            "--notation", "-n", help="the moves' notation (default: the game's own; Cờ Tướng: vn-coord)")] = None,
    ) -> None:
        """Read a video of a game and write its record; the record's path is the last line."""
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        try:
            games.get(game).notation(notation)  # an unknown game or notation, before the video is read
            from vision.adapt import named_adaptation

            # The profile's adaptation and the model are inputs too: a record written over them is
            # a set's learning, or the classifier, lost.
            check_out(out, (video, clock_log, calibration, model,
                            named_adaptation(calibration) if calibration is not None else None))
            console = _stderr_console()
            # Only on a terminal: piped or logged, rich would leave a blank line where the bar was.
            with Progress(TextColumn("reading {task.description}"), BarColumn(), TextColumn("{task.completed}/"
                          "{task.total} frames"), TimeRemainingColumn(), transient=True,
                          console=console, disable=not console.is_terminal) as bar:
                task = bar.add_task(video.name, total=None)

                def advance(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                recording = record_video(video, game, calibration=calibration, clock_log=clock_log, model=model,
                                         progress=advance)
            text = write_record(recording, video, notation)
        except ValueError as error:
            fail(str(error))
        try:
            _write_whole(out, text)
        except OSError as error:  # the whole video is read: the record is not lost with the file
            typer.echo(text)
            fail(f"cannot write {str(out)!r} ({error.strerror}): the record is printed above")
        notes = sum(len(v) for v in recording.comments.values())
        typer.echo(f"board {recording.located}; {len(recording.san)} moves, {notes} event{'s' * (notes != 1)} noted",
                   err=True)
        for warning in recording.warnings:
            typer.echo(f"warning: {warning}", err=True)
        typer.echo(str(out))


def _write_whole(out: Path, text: str) -> None:
    """Write the record to `out`; a file is written beside it and then moved over it, so a
    failed write leaves a record already there whole. A device or pipe is written as it is."""
    if out.exists() and not out.is_file():
        out.write_text(text, encoding="utf-8")
        return
    partial = out.with_name(f".{out.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)
