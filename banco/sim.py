"""`banco sim clock` and `banco sim leds`: virtual devices for people without hardware.

Each runs `hardware.simulator.VirtualDevice` behind a pseudo-terminal (its path is printed
first, on a line of its own) or a TCP port (``--tcp``), and draws the device in the
terminal. Point the station at the printed path, or at ``socket://127.0.0.1:PORT``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import termios
import threading
import time
import tty
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from games.base import BLACK, WHITE
from hardware.clock import ChessClock, ClockError, TimeControl
from hardware.protocol import GRIDS, Pattern
from hardware.simulator import PtyEndpoint, Simulator, TcpEndpoint, VirtualDevice
from hardware.wled import pattern_level

sim_app = typer.Typer(
    no_args_is_help=True,
    help="Virtual clock and LED board speaking the banco serial protocol (hardware/PROTOCOL.md).",
)

TcpOption = Annotated[int | None, typer.Option("--tcp", min=1, max=65535,
                                               help="listen on this TCP port instead of a pty")]
LinkOption = Annotated[str | None, typer.Option("--link", help="also make this stable symlink to the pty")]
DrawOption = Annotated[bool, typer.Option("--draw/--no-draw", help="draw the device in the terminal")]


def _fail(message: str) -> None:
    typer.echo(f"banco: {message}", err=True)
    raise typer.Exit(2)


def _format_ms(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    if minutes < 1:
        return f"{seconds:2d}.{millis // 100}"
    return f"{minutes:2d}:{seconds:02d}"


def _clock_view(simulator: Simulator) -> Panel:
    device = simulator.device
    times = device.times()
    table = Table.grid(expand=True, padding=(0, 4))
    table.add_column(justify="center")
    table.add_column(justify="center")
    if times is None:
        table.add_row(Text("--:--", style="dim"), Text("--:--", style="dim"))
    else:
        cells = []
        for side, ms in zip((WHITE, BLACK), times, strict=True):
            clock = device.clock
            style = "bold reverse" if clock.running is side else ""
            label = _format_ms(ms) + ("  FLAG" if clock.flagged(side) else "")
            cells.append(Text(label, style=style + (" red" if clock.flagged(side) else "")))
        table.add_row(*cells)
    table.add_row(Text("White: press A (S starts)", style="dim"), Text("Black: press L", style="dim"))
    status = "plugged" if simulator.plugged else "unplugged"
    return Panel(table, title=f"banco clock — {simulator.path} ({status})", subtitle="q quits")


def _rank_names(grid: tuple[int, int]):
    """Each rank as the game whose board has `grid` names it (Cờ Tướng from 0, the others from 1)."""
    game = next((name for name, size in GRIDS.items() if size == tuple(grid)), None)
    if game is None:
        return str
    import games
    from games.base import Point

    geometry = games.get(game).geometry
    return lambda rank: geometry.point_name(Point(0, rank))[1:]


def _leds_view(simulator: Simulator) -> Panel:
    device = simulator.device
    files, ranks = device.grid
    now = int(time.monotonic() * 1000)
    scale = device.brightness / 255
    lines = []
    rank_name = _rank_names(device.grid)
    for rank in reversed(range(ranks)):  # Black's side on top, as the board is seen by White
        line = Text(f"{rank_name(rank):>2} ")
        for file in range(files):
            cell = device.cell(file, rank)
            level = pattern_level(cell.pattern, now) * scale if cell.pattern is not Pattern.OFF else 0.0
            if level <= 0:
                line.append(" · ", style="grey35")
            else:
                red, green, blue = ((cell.color >> s & 0xFF) * level for s in (16, 8, 0))
                if device.color == "mono":
                    red = green = blue = 255 * level
                line.append(" ● ", style=f"rgb({int(red)},{int(green)},{int(blue)})")
        lines.append(line)
    lines.append(Text("   " + "".join(f" {chr(ord('a') + f)} " for f in range(files)), style="dim"))
    lines.append(Text(f"frames {device.frames_received}  brightness {device.brightness}", style="dim"))
    return Panel(Group(*lines), title=f"banco LEDs {files}x{ranks} — {simulator.path}", subtitle="q quits")


@contextlib.contextmanager
def _keys():
    """Single keypresses from a terminal (none when stdin is not one)."""
    if not sys.stdin.isatty():
        yield lambda: None
        return
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    pressed: list[str] = []

    def reader() -> None:
        while True:
            try:
                char = os.read(fd, 1).decode(errors="ignore")
            except OSError:
                return
            pressed.append(char)

    threading.Thread(target=reader, daemon=True).start()
    try:
        yield lambda: pressed.pop(0) if pressed else None
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _serve(simulator: Simulator, view, draw: bool, on_key=None) -> None:
    console = Console()
    try:
        simulator.start()
    except OSError as error:
        _fail(f"cannot open the simulator's port: {error}")
    typer.echo(simulator.path)
    sys.stdout.flush()
    try:
        if not draw:
            while True:
                time.sleep(0.5)
        with _keys() as next_key, Live(view(simulator), console=console, refresh_per_second=10) as live:
            while True:
                key = next_key()
                if key in ("q", "Q"):
                    break
                if key and on_key:
                    on_key(key)
                live.update(view(simulator))
                time.sleep(0.05)
    except KeyboardInterrupt:
        pass
    finally:
        simulator.stop()


def _endpoint(tcp: int | None, link: str | None):
    if tcp is not None and link is not None:
        _fail("--tcp and --link do not go together: a symlink names a pty")
    return TcpEndpoint(tcp) if tcp is not None else PtyEndpoint(link)


@sim_app.command()
def clock(
    tcp: TcpOption = None,
    link: LinkOption = None,
    draw: DrawOption = True,
    control: Annotated[str | None, typer.Option(
        "--control", help="load this time control at boot (15+10, 30+10, 15+0, 30+0, 5d5, 5b5)")] = None,
) -> None:
    """A chess clock: A presses White's button, L Black's, S starts White. A host sets the time."""
    preload = None
    if control is not None:
        try:
            preload = TimeControl.parse(control)
        except ClockError as error:
            _fail(str(error))

    def boot() -> VirtualDevice:
        device = VirtualDevice("clock")
        if preload is not None:
            device.clock = ChessClock(preload)
        return device

    simulator = Simulator(boot, _endpoint(tcp, link))

    def on_key(key: str) -> None:
        device = simulator.device
        if key.lower() == "a":
            device.press(WHITE)
        elif key.lower() == "l":
            device.press(BLACK)
        elif key.lower() == "s" and device.clock is not None and device.clock.running is None:
            with device._lock:
                device.clock.start(WHITE, device.t_dev_ms)

    _serve(simulator, _clock_view, draw, on_key)


@sim_app.command()
def leds(
    game: Annotated[str, typer.Option("--game", "-g", help="xiangqi (9x10), commander (11x12), cotoan (9x11)")]
    = "xiangqi",
    grid: Annotated[str | None, typer.Option("--grid", help="WxH, instead of --game")] = None,
    mono: Annotated[bool, typer.Option("--mono", help="single-colour LEDs")] = False,
    tcp: TcpOption = None,
    link: LinkOption = None,
    draw: DrawOption = True,
) -> None:
    """An LED board with one light per point."""
    if grid is not None:
        try:
            files, ranks = (int(part) for part in grid.lower().split("x"))
        except ValueError:
            _fail(f"--grid {grid!r} is not WxH, e.g. 9x10")
        if not (1 <= files <= 16 and 1 <= ranks <= 16):
            _fail(f"--grid {grid!r} is outside 1x1..16x16")
        size = (files, ranks)
    elif game in GRIDS:
        size = GRIDS[game]
    else:
        _fail(f"unknown game {game!r} for --game; known: {', '.join(GRIDS)}")
    color = "mono" if mono else "rgb"
    simulator = Simulator(lambda: VirtualDevice("leds", grid=size, color=color), _endpoint(tcp, link))
    _serve(simulator, _leds_view, draw)
