"""The station's orchestration with a scripted tracker: binding presses, clocks, LEDs, the record."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

import games
from hardware.clock import TimeControl
from server.station.embedded import run_headless
from server.station.orchestrator import Station
from server.station.target import EmbeddedTarget
from tests.hardware.conftest import wait_until
from tests.station.doubles import ScriptedTracker, frames

OPENING = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]


def script(moves, every=10, first=5):
    return {first + every * index: [move] for index, move in enumerate(moves)}


def run(app, game_id, source, tracker_script, **options):
    trackers = []

    def make_tracker(board):
        tracker = ScriptedTracker("xiangqi", board, tracker_script, options.pop("on_press", set()))
        trackers.append(tracker)
        return tracker

    def make_station():
        return Station(EmbeddedTarget(app, game_id), source, make_tracker, exit_at_end=True, **options)

    report = asyncio.run(run_headless(app, make_station))
    return report, trackers[0]


def stored(app, game_id):
    return [(row.text, row.white_ms, row.black_ms) for row in app.state.recorder.moves(game_id)]


def test_moves_seen_by_the_camera_are_recorded_in_order_without_a_clock(app, make_game):
    game_id = make_game()
    report, _ = run(app, game_id, frames(70), script(OPENING))
    assert [text for text, _, _ in stored(app, game_id)] == OPENING
    assert report.stored == OPENING
    assert all(white is None and black is None for _, white, black in stored(app, game_id))
    status = app.state.stations.get(game_id)
    assert status["ply"] == 6 and status["camera"] == "ended"
    assert status["leds"]["grid"] == [9, 10]
    # The last move (b9c7) is lit: a dim start at b9, a bright end at c7.
    palette, points = status["leds"]["palette"], status["leds"]["points"]
    assert palette[int(points[7 * 9 + 2], 36)] == "SFFC000"
    assert palette[int(points[9 * 9 + 1], 36)] == "S403000"


def test_without_a_clock_device_moves_commit_when_the_board_is_still(app, make_game):
    control = TimeControl.parse("15+10")
    game_id = make_game(control=control)
    trackers = []

    def make_tracker(board):  # made to wait for presses, as if a clock were there
        tracker = ScriptedTracker("xiangqi", board, script(OPENING))
        tracker.commit_on_press = True
        trackers.append(tracker)
        return tracker

    asyncio.run(run_headless(app, lambda: Station(EmbeddedTarget(app, game_id), frames(70), make_tracker,
                                                  time_control=control, exit_at_end=True)))
    assert trackers[0].press_modes == [True, False]
    assert [text for text, _, _ in stored(app, game_id)] == OPENING


def test_a_time_control_without_a_clock_counts_on_stream_time(app, make_game):
    control = TimeControl.parse("15+10")
    game_id = make_game(control=control)
    run(app, game_id, frames(70), script(OPENING), time_control=control)
    rows = stored(app, game_id)
    # The clock starts with the first move (frame 5); then each move costs 10 frames and gains 10 s.
    def ms(frame):
        return int(frame / 15 * 1000)

    white = black = 900_000
    assert rows[0][1:] == (white, black)
    for ply in range(2, 7):
        spent = ms(5 + 10 * (ply - 1)) - ms(5 + 10 * (ply - 2))
        if ply % 2:
            white += 10_000 - spent
        else:
            black += 10_000 - spent
        assert rows[ply - 1][1:] == (white, black), ply


def _presser(station_box, plies_at: dict[int, int], extra=None):
    """The players: press the (simulated) clock a few frames after each move is made."""
    def on_frame(index, timestamp):
        station = station_box[0]
        if extra is not None:
            extra(station, index)
        ply = plies_at.get(index)
        if ply is not None and station.clock.simulator is not None:
            from games.base import BLACK, WHITE

            station.clock.simulator.device.press(WHITE if ply % 2 else BLACK)
    return on_frame


def run_with_devices(app, game_id, moves, *, pace=0.05, extra=None, gaps=None, control="15+10", count=None):
    """The scripted moves with the simulated clock and LED board; the players press 2 frames after
    each move."""
    tracker_script = script(moves)
    presses = {5 + 10 * index + 2: index + 1 for index in range(len(moves))}
    box = []
    trackers = []

    def make_tracker(board):
        trackers.append(ScriptedTracker("xiangqi", board, tracker_script))
        return trackers[-1]

    def make_station():
        station = Station(EmbeddedTarget(app, game_id), frames(count or 10 * len(moves) + 20, pace=pace, gaps=gaps),
                          make_tracker, clock="sim", leds="sim", time_control=TimeControl.parse(control),
                          on_frame=_presser(box, presses, extra), exit_at_end=True)
        box.append(station)
        return station

    report = asyncio.run(run_headless(app, make_station))
    return report, box[0], trackers[0]


def test_presses_of_a_simulated_clock_give_the_recorded_times_and_the_leds_follow(app, make_game):
    control = TimeControl.parse("15+10")
    game_id = make_game(control=control)
    frames_seen = []

    def watch_leds(station, index):
        if station.leds.simulator is not None and index % 10 == 9:
            frames_seen.append(station.leds.simulator.device.frame)

    report, station, _ = run_with_devices(app, game_id, OPENING, extra=watch_leds)
    rows = stored(app, game_id)
    assert [text for text, _, _ in rows] == OPENING
    assert rows[0][1:] == (900_000, 900_000)  # the first move starts the clock
    device_presses = [(press.white_ms, press.black_ms) for press in report.presses]
    assert len(device_presses) == len(OPENING) - 1
    assert [row[1:] for row in rows[1:]] == device_presses  # the device's figures are official
    assert all(press.drift_ms < 200 for press in report.presses)
    # The LED board showed each last move as it was played: the end of the move bright amber.
    from hardware.leds import LAST_TO

    lit = [frame for frame in frames_seen if frame is not None and LAST_TO in frame.cells]
    assert len(lit) >= 4


def test_unplugged_clock_and_led_board_come_back_and_no_move_is_lost(app, make_game):
    game_id = make_game(control=TimeControl.parse("15+10"))
    moves = OPENING + ["b0c2", "a9a8", "b2b6", "a8d8"]

    def cable(station, index):
        if index == 28:
            station.clock.simulator.unplug()
            station.leds.simulator.unplug()
        elif index == 50:
            station.clock.simulator.replug()
            station.leds.simulator.replug()

    box = []

    def replugged():  # the camera waits (a slow machine) until both devices have come back
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (box and box[0].clock.connected() and box[0].leds.connected()):
            time.sleep(0.1)
        time.sleep(0.5)

    def cable_and_box(station, index):
        if not box:
            box.append(station)
        cable(station, index)

    report, station, tracker = run_with_devices(app, game_id, moves, extra=cable_and_box, count=150,
                                                gaps={60: [replugged]})
    assert [text for text, _, _ in stored(app, game_id)] == moves
    # Moves commit at the presses while the clock is plugged in, on the stability window without it.
    assert tracker.press_modes == [True, False, True]
    texts = [event["text"] for event in report.events]
    assert any("clock disconnected" in text for text in texts)
    assert any("clock reconnected" in text for text in texts)
    assert any("leds reconnected" in text for text in texts)
    # After the replug the LED board shows the current position's last move again.
    assert station.leds.simulator.device.frame == station._frame
    # The presses after the replug are bound again: the last move carries the device's figures.
    last = report.presses[-1]
    assert stored(app, game_id)[-1][1:] == (last.white_ms, last.black_ms)


def test_a_clock_unplugged_for_good_still_gives_the_increment_and_its_flag_still_falls(app, make_game):
    game_id = make_game(control=TimeControl.parse("15+10"))

    def unplug(station, index):
        if index == 22:
            station.clock.simulator.unplug()

    report, station, _ = run_with_devices(app, game_id, OPENING, extra=unplug)
    rows = stored(app, game_id)
    assert [text for text, _, _ in rows] == OPENING
    # Moves 3-6 were stored with the clock unplugged: each mover still gained the 10 s (less the
    # half second or so its move took), and was not charged a wait for a press that cannot come.
    for ply in range(3, 7):
        mover = 1 if ply % 2 else 2
        assert rows[ply - 1][mover] - rows[ply - 2][mover] > 9_000, (ply, rows)

    flagged = make_game(control=TimeControl.parse("0.05+0"))  # 3 s a side
    report, station, _ = run_with_devices(app, flagged, OPENING[:3], extra=unplug, count=120, control="0.05+0")
    snapshot = app.state.recorder.snapshot(flagged)
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "time forfeit"), snapshot["result"]
    assert any(event["kind"] == "flag" for event in report.events)


def test_the_camera_stops_for_five_seconds_and_the_missed_moves_are_recovered(app, make_game):
    game_id = make_game()
    from tests.station.doubles import CameraBack, CameraLost

    moves = OPENING
    tracker_script = {5: [moves[0]], 15: [moves[1]], 25: [moves[2]], 35: moves[3:5], 45: [moves[5]]}
    source = frames(60, gaps={30: [CameraLost(), 5.0, CameraBack()]})
    report, _ = run(app, game_id, source, tracker_script)
    assert [text for text, _, _ in stored(app, game_id)] == moves
    texts = [event["text"] for event in report.events]
    assert any(text.startswith("camera lost") for text in texts) and "camera back" in texts


def test_moves_the_record_cannot_take_yet_are_kept_and_stored_in_order(app, make_game):
    game_id = make_game()
    from server.station.target import StoreUnavailable

    class Flaky(EmbeddedTarget):
        failures = 3

        async def commit(self, *args):
            if Flaky.failures > 0:
                Flaky.failures -= 1
                raise StoreUnavailable("database is locked")
            return await super().commit(*args)

    def make_station():
        return Station(Flaky(app, game_id), frames(70, pace=0.01), lambda board: ScriptedTracker(
            "xiangqi", board, script(OPENING)), exit_at_end=True)

    report = asyncio.run(run_headless(app, make_station))
    assert [text for text, _, _ in stored(app, game_id)] == OPENING
    assert any("unreachable" in event["text"] for event in report.events)


def test_a_referee_correction_resets_the_tracker_to_the_record(app, make_game):
    game_id = make_game()
    trackers = []

    def correct(station, index):
        if index == 40:  # after four moves the referee takes the fourth back
            recorder = app.state.recorder
            snapshot = recorder.correct(game_id, "takeback", reason="wrong move")
            station._loop.call_soon_threadsafe(app.state.hub.publish, snapshot)

    box = []

    def make_station():
        def make_tracker(board):
            trackers.append(ScriptedTracker("xiangqi", board, script(OPENING[:4])))
            return trackers[-1]

        station = Station(EmbeddedTarget(app, game_id), frames(60, pace=0.01), make_tracker,
                          on_frame=lambda index, ts: correct(box[0], index), exit_at_end=True)
        box.append(station)
        return station

    report = asyncio.run(run_headless(app, make_station))
    assert [text for text, _, _ in stored(app, game_id)] == OPENING[:3]
    assert len(trackers[0].resets) == 1
    assert any(event["kind"] == "referee" for event in report.events)


def test_after_a_takeback_the_stations_clock_runs_for_the_side_to_move_from_the_records_times(app, make_game):
    control = TimeControl.parse("15+10")
    game_id = make_game(control=control)
    box, seen = [], {}

    def take_back(index, timestamp):
        station = box[0]
        if index == 40:  # four moves made (frames 5-35): the referee takes Black's back
            snapshot = app.state.recorder.correct(game_id, "takeback", reason="touch-move")
            seen["record"] = snapshot["clocks"]
            station._loop.call_soon_threadsafe(app.state.hub.publish, snapshot)
        if index == 55:
            seen["station"] = (station.clock.running, station.clock.times())

    def make_station():
        def make_tracker(board):
            return ScriptedTracker("xiangqi", board, script(OPENING[:4]))

        station = Station(EmbeddedTarget(app, game_id), frames(60, pace=0.01), make_tracker, time_control=control,
                          on_frame=take_back, exit_at_end=True)
        box.append(station)
        return station

    report = asyncio.run(run_headless(app, make_station))
    assert seen["record"]["running"] == "b"
    running, (white, black) = seen["station"]
    assert running is games.base.Color.BLACK and white == seen["record"]["white_ms"]
    assert 0 <= seen["record"]["black_ms"] - black <= 1_500  # Black's clock runs from the record's reading
    assert any(event["kind"] == "clock" and "set as the record has it" in event["text"] for event in report.events)


def test_a_flag_ends_a_xiangqi_game_as_a_time_forfeit(app, make_game):
    control = TimeControl.parse("0.05+0")  # 3 s each, sudden death
    game_id = make_game(control=control)
    # White and Black move at once; then Black thinks for ever (the video runs 8 s).
    run(app, game_id, frames(120), {5: ["h2e2"], 10: ["h9g7"], 15: ["h0g2"]}, time_control=control)
    snapshot = app.state.recorder.snapshot(game_id)
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "time forfeit")
    audit = app.state.recorder.audit(game_id)
    assert audit[-1].kind == "result" and audit[-1].reason == "black's flag fell"
    assert app.state.stations.get(game_id)["clock"]["running"] is None  # the clock stopped with the game
    # The record shows the flag: Black's clock at zero, on the snapshot and on the result's revision.
    assert snapshot["clocks"]["black_ms"] == 0 and audit[-1].black_ms == 0
    assert snapshot["clocks"]["white_ms"] > 0


def test_a_flag_in_commander_chess_lets_the_points_decide(app, make_game):
    control = TimeControl.parse("0.05+0")
    game_id = make_game("commander", control=control)
    moves = ["C4,3_3,3", "H8,2_8,1"]
    trackers = []

    def make_station():
        def make_tracker(board):
            trackers.append(ScriptedTracker("commander", board, {5: [moves[0]], 10: [moves[1]]}))
            return trackers[-1]

        return Station(EmbeddedTarget(app, game_id), frames(150), make_tracker, time_control=control,
                       exit_at_end=True)

    asyncio.run(run_headless(app, make_station))
    snapshot = app.state.recorder.snapshot(game_id)
    assert snapshot["termination"] == "points" and snapshot["result"] == "1/2-1/2"  # nothing captured: equal


def test_a_flag_in_cotoan_lets_the_points_decide_and_the_reason_gives_them(app, make_game):
    control = TimeControl.parse("0.05+0")
    game_id = make_game("cotoan", control=control)
    # White's piece on e1 takes Black's on e7 by addition; then Black thinks until the flag falls.
    variant = games.get("cotoan")
    board = variant.board()
    texts = []
    for plain in ["a1-a2", "a11-e7", "e1x+e7"]:
        move = next(m for m in board.legal_moves if str(m) == plain)
        texts.append(variant.notation().format(board, move))
        board.push(move)
    script_ = {5: texts[:1], 10: texts[1:2], 15: texts[2:]}

    def make_station():
        def make_tracker(board):
            return ScriptedTracker("cotoan", board, script_)

        return Station(EmbeddedTarget(app, game_id), frames(150), make_tracker, time_control=control,
                       exit_at_end=True)

    asyncio.run(run_headless(app, make_station))
    snapshot = app.state.recorder.snapshot(game_id)
    white, black = board.scores
    assert white > 0 and black == 0
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "points")
    audit = app.state.recorder.audit(game_id)
    assert audit[-1].reason == f"black's flag fell: White {white} – Black 0 points"


def test_commander_time_controls_choose_battle_or_total_war():
    from server.station.embedded import start_fen_for

    assert start_fen_for("commander", TimeControl.parse("15+10")).split()[3] == "-"  # battle mode
    assert start_fen_for("commander", TimeControl.parse("30+10")).split()[3] == "w"  # total war
    assert start_fen_for("xiangqi", TimeControl.parse("30+10")) is None


def test_an_ambiguity_goes_to_the_referee_and_the_choice_comes_back(app, make_game):
    from tests.station.doubles import Ambiguous

    game_id = make_game()
    board = app.state.recorder.snapshot(game_id)
    assert board["ply"] == 0
    import games

    variant = games.get("xiangqi")
    start = variant.board()
    left, right = (variant.parse_move(start, text) for text in ("h2e2", "b2e2"))
    trackers, box = [], []

    class Asking(ScriptedTracker):
        def feed(self, frame, timestamp):
            if frame == 5:
                return [Ambiguous([[left], [right]], [-1.0, -1.1], timestamp)]
            return super().feed(frame, timestamp)

    lit = {}

    def referee(station, index):
        if index == 20:  # the candidates pulse: both starts, and the end they share
            from hardware.leds import CANDIDATE_FROM, CANDIDATE_TO

            lit.update({name: station._frame.cell(*point) for name, point, cell in (
                ("h2", (7, 2), CANDIDATE_FROM), ("b2", (1, 2), CANDIDATE_FROM), ("e2", (4, 2), CANDIDATE_TO))
                if station._frame.cell(*point) == cell})
        if index == 30:  # the referee picks b2e2 on the console
            snapshot = app.state.recorder.snapshot(game_id)
            pending = snapshot["ambiguity"]
            assert [c["text"] for c in pending["candidates"]] == ["h2e2", "b2e2"]
            chosen = app.state.recorder.resolve_ambiguity(game_id, pending["id"], "b2e2", reason="seen")
            station._loop.call_soon_threadsafe(app.state.hub.publish, chosen)

    def make_station():
        def make_tracker(position):
            trackers.append(Asking("xiangqi", position, {45: ["h9g7"]}))
            return trackers[-1]

        station = Station(EmbeddedTarget(app, game_id), frames(60, pace=0.01), make_tracker,
                          on_frame=lambda index, ts: referee(box[0], index), exit_at_end=True)
        box.append(station)
        return station

    report = asyncio.run(run_headless(app, make_station))
    assert [text for text, _, _ in stored(app, game_id)] == ["b2e2", "h9g7"]
    assert trackers[0].resets  # the tracker follows the referee's choice
    assert any(event["kind"] == "ambiguous" for event in report.events)
    assert box[0]._candidates == []  # the LEDs no longer show the candidates
    assert sorted(lit) == ["b2", "e2", "h2"]


def test_illegal_points_blink_until_a_hand_comes_to_put_them_right(app, make_game):
    from games.base import Point
    from hardware.leds import ILLEGAL
    from tests.station.doubles import Illegal

    game_id = make_game()
    seen = {}

    class Knocked(ScriptedTracker):
        def feed(self, frame, timestamp):
            if frame == 5:
                return [Illegal([Point(4, 3)], timestamp)]
            if frame == 15:
                return [type("HandOn", (), {"timestamp": timestamp})()]
            return super().feed(frame, timestamp)

    box = []

    def look(index, _ts):
        station = box[0]
        if index in (12, 22):
            seen[index] = station._frame is not None and station._frame.cell(4, 3) == ILLEGAL

    def make_station():
        station = Station(EmbeddedTarget(app, game_id), frames(30, pace=0.02),
                          lambda board: Knocked("xiangqi", board, {}), on_frame=look, exit_at_end=True)
        box.append(station)
        return station

    asyncio.run(run_headless(app, make_station))
    assert seen == {12: True, 22: False}


def run_with_relayed_clock(app, game_id, monkeypatch, tracker_script, presses, releases, count, pace=0.0,
                           late_release_s=None):
    """The scripted moves with a `RelayedClock`: `presses[frame]` is the side that presses then
    (the clock switches at once; the frames wait until it runs for that side); the press events
    held so far reach the station at the frames in `releases`, or `late_release_s` seconds after
    the last frame."""
    from server.station import orchestrator
    from tests.station.doubles import RelayedClock

    clocks = []

    def open_relayed(spec, sink, **options):
        clocks.append(RelayedClock(sink))
        return clocks[-1]

    monkeypatch.setattr(orchestrator, "open_clock", open_relayed)

    def players(index, timestamp):
        side = presses.get(index)
        if side is not None:
            clocks[0].player_press(side, int(timestamp * 1000))
        if index in releases:
            clocks[0].release()
        if index == count - 1 and late_release_s is not None:
            import threading

            threading.Timer(late_release_s, clocks[0].release).start()

    def turn_of(side):
        def wait():  # the station has started (or the last press switched) the clock for `side`
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not (clocks and clocks[0].running is side):
                time.sleep(0.01)
        return wait

    gaps = {index: [turn_of(side)] for index, side in presses.items()}

    def make_station():
        return Station(EmbeddedTarget(app, game_id), frames(count, pace=pace, gaps=gaps),
                       lambda board: ScriptedTracker("xiangqi", board, tracker_script), clock="relayed",
                       time_control=TimeControl.parse("15+10"), on_frame=players, exit_at_end=True)

    report = asyncio.run(run_headless(app, make_station))
    return report, clocks[0]


def test_a_move_committed_after_its_press_carries_that_press_whichever_arrives_first(app, make_game, monkeypatch):
    """FIDE 6.7: the press completes the move. The camera may commit a move after its press (it took
    a second look), and the commit may even be handled before the press's event although the
    device has already switched the clock (the event is still crossing the link). Either way the
    move is recorded with the device's figures at its own press."""
    from games.base import BLACK, WHITE

    game_id = make_game(control=TimeControl.parse("15+10"))
    # Moves are committed at frames 5, 15, …, 55. Black's presses come two frames before the commit
    # and reach the station at once; Red's come a frame before the commit and reach the station
    # two frames after it.
    presses = {13: BLACK, 24: WHITE, 33: BLACK, 44: WHITE, 53: BLACK}
    releases = {13, 27, 33, 47, 53}
    report, clock = run_with_relayed_clock(app, game_id, monkeypatch, script(OPENING), presses, releases, 75,
                                           pace=0.005)
    rows = stored(app, game_id)
    assert [text for text, _, _ in rows] == OPENING
    assert rows[0][1:] == (900_000, 900_000)  # the first move starts the clock
    assert len(clock.sent) == 5
    assert [row[1:] for row in rows[1:]] == [(press.white_ms, press.black_ms) for press in clock.sent]
    texts = [event["text"] for event in report.events]
    assert not any("late press" in text or "not bound" in text or "no clock press" in text for text in texts)


def test_a_press_no_move_claims_is_dropped_after_the_grace_and_binds_no_later_move(app, make_game, monkeypatch):
    from games.base import BLACK, WHITE

    game_id = make_game(control=TimeControl.parse("15+10"))
    # Black presses at frame 8 without moving; their move comes 72 frames (4.8 s) later (pressing
    # again then would do nothing: Red's clock runs). Red moves at 90 and presses at 92.
    tracker_script = {5: ["h2e2"], 80: ["h9g7"], 90: ["h0g2"]}
    presses = {8: BLACK, 92: WHITE}
    report, clock = run_with_relayed_clock(app, game_id, monkeypatch, tracker_script, presses, set(presses), 110,
                                           pace=0.02)
    rows = stored(app, game_id)
    assert [text for text, _, _ in rows] == ["h2e2", "h9g7", "h0g2"]
    spurious, red = clock.sent
    assert (spurious.side, red.side) == (BLACK, WHITE)
    assert rows[1][1:] != (spurious.white_ms, spurious.black_ms)
    assert rows[2][1:] == (red.white_ms, red.black_ms)
    texts = [event["text"] for event in report.events]
    assert any("black pressed the clock but no move of theirs was seen" in text for text in texts)


def test_a_lifted_piece_lights_its_legal_targets_until_it_is_put_back_or_its_move_is_made(app, make_game):
    from games.base import Point
    from hardware.leds import LIFTED, TARGET
    from tests.station.doubles import LiftEnded, PieceLifted

    game_id = make_game()
    cannon, horse = Point(7, 2), Point(1, 0)  # Red's cannon on h2, horse on b0
    seen = {}

    class Lifting(ScriptedTracker):
        def feed(self, frame, timestamp):
            if frame == 5:  # the horse is lifted, then put back
                return [PieceLifted(horse, timestamp)]
            if frame == 10:
                return [LiftEnded(horse, timestamp)]
            if frame == 15:  # the cannon is lifted; h2e2 is committed at 20
                return [PieceLifted(cannon, timestamp)]
            return super().feed(frame, timestamp)

    box = []

    def look(index, _ts):
        if index in (8, 12, 18, 23):
            frame = box[0]._frame
            seen[index] = {point for point in box[0].variant.geometry.points()
                           if frame is not None and frame.cell(point.file, point.rank) in (LIFTED, TARGET)}

    def move_made():  # the camera waits (a loaded machine) until the station has taken h2e2
        wait_until(lambda: box and box[0].board.move_stack, timeout=30, what="the station to take h2e2")
        time.sleep(0.5)  # and lights the board for it

    def make_station():
        station = Station(EmbeddedTarget(app, game_id), frames(30, pace=0.02, gaps={23: [move_made]}),
                          lambda board: Lifting("xiangqi", board, {20: ["h2e2"]}), on_frame=look, exit_at_end=True)
        box.append(station)
        return station

    asyncio.run(run_headless(app, make_station))
    # The horse on b0 may go to a2 or c2; the cannon on h2 along its rank and file up to the pieces.
    assert seen[8] == {horse, Point(0, 2), Point(2, 2)}
    assert seen[12] == set()  # put back
    cannon_targets = {Point(f, 2) for f in (2, 3, 4, 5, 6, 8)} | {Point(7, r) for r in (1, 3, 4, 5, 6)}
    assert seen[18] == {cannon} | cannon_targets
    assert seen[23] == set()  # the move is made: only the last move is lit
    assert [text for text, _, _ in stored(app, game_id)] == ["h2e2"]


def test_the_last_moves_press_may_arrive_after_the_frames_end(app, make_game, monkeypatch):
    """The video ends as the player presses: the press is still crossing the link when the source
    ends, and the last move waits for it (in real time: no stream time passes any more)."""
    from games.base import BLACK, WHITE

    game_id = make_game(control=TimeControl.parse("15+10"))
    presses = {17: BLACK, 27: WHITE}  # Red's press at 27 reaches the station 0.3 s after the last frame
    tracker_script = {5: ["h2e2"], 15: ["h9g7"], 25: ["h0g2"]}
    report, clock = run_with_relayed_clock(app, game_id, monkeypatch, tracker_script, presses, {17}, 30, pace=0.02,
                                           late_release_s=0.3)
    rows = stored(app, game_id)
    assert [text for text, _, _ in rows] == ["h2e2", "h9g7", "h0g2"]
    assert len(clock.sent) == 2
    assert [row[1:] for row in rows[1:]] == [(press.white_ms, press.black_ms) for press in clock.sent]


# ---------------------------------------------------------------- Commander Chess: a game-duration clock

QUIET_COMMANDER = ["C4,3_3,3", "H8,2_8,1", "*0,6_0,10", "*11,6_10,6", "*0,10_0,2", "*10,6_10,5(S*)"]


def run_commander(app, game_id, tracker_script, control, count=150):
    box = []

    def make_station():
        box.append(Station(EmbeddedTarget(app, game_id), frames(count),
                           lambda board: ScriptedTracker("commander", board, tracker_script),
                           time_control=TimeControl.parse(control), exit_at_end=True))
        return box[0]

    report = asyncio.run(run_headless(app, make_station))
    return report, box[0]


def test_a_commander_battle_ends_when_both_players_together_have_used_its_time(app, make_game):
    # D34: a battle lasts 15 minutes of total game time, here scaled to 3 s. The moves come every
    # 20 frames (1.33 s); the clock starts at the first (frame 5), so at frame 50 both sides have
    # used 3 s together, though neither has used 3 s alone (a per-side clock would run on).
    game_id = make_game("commander", control=TimeControl.parse("0.05+0"))
    report, station = run_commander(app, game_id, script(QUIET_COMMANDER, every=20), "0.05+0")
    assert report.stored == QUIET_COMMANDER[:3]
    snapshot = app.state.recorder.snapshot(game_id)
    assert (snapshot["result"], snapshot["termination"]) == ("1/2-1/2", "points")
    assert app.state.recorder.audit(game_id)[-1].reason == "time up after 0:03: Red 0 – Blue 0 points"
    white_ms, black_ms = station.clock.times()
    assert white_ms > 0 and black_ms > 0 and white_ms + black_ms == 3000  # each display still shows its share
    assert any(event["text"] == "the game's 0:03 are used up" for event in report.events)


def test_a_commander_total_war_ends_at_its_time_and_the_points_decide_for_red(app):
    from server.record import timed_start_fen

    # Total war (30 minutes, scaled to 6 s): Red's artillery takes an infantry (10 points), then
    # Blue thinks until the game's time is gone. The increment is dropped: the game's time is fixed.
    war = timed_start_fen("commander", 30 * 60_000)
    game_id = app.state.recorder.create_game("commander", "Đỏ", "Xanh", start_fen=war, initial_ms=6_000).id
    capture = ["*0,6_1,6", "B7,2_6,2", "H3,2@B6,2"]
    report, _ = run_commander(app, game_id, script(capture, every=20), "0.1+5")
    assert report.stored == capture
    snapshot = app.state.recorder.snapshot(game_id)
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "points")
    assert app.state.recorder.audit(game_id)[-1].reason == "time up after 0:06: Red 10 – Blue 0 points"
    assert stored(app, game_id)[1][1:] == (6_000, 6_000 - 1_333)  # Blue's first move: no time given back


def test_a_commander_battle_won_through_the_station_records_the_points_and_lights_the_winner(app):
    import games
    from hardware.leds import LOSER, WINNER, general_of

    # Blue has one navy left: when Red sinks it, Blue has lost the sea battle (§12.1, +100).
    one_navy = games.get("commander").starting_fen.replace("1n2fh1hf2", "4fh1hf2")
    game_id = app.state.recorder.create_game("commander", start_fen=one_navy, initial_ms=900_000).id
    sinking = ["*0,6_1,6", "H8,2_5,2", "B4,2@H5,2^"]  # ^: a battle won
    report, station = run_commander(app, game_id, script(sinking), "15+10", count=60)
    assert report.stored == sinking
    snapshot = app.state.recorder.snapshot(game_id)
    assert (snapshot["result"], snapshot["termination"]) == ("1-0", "battle won")
    assert app.state.recorder.audit(game_id)[-1].detail["points"] == "Red 180 – Blue 0 points"
    red, blue = (general_of(station.board, color) for color in (games.base.Color.WHITE, games.base.Color.BLACK))
    assert station._frame.cell(red.file, red.rank) == WINNER
    assert station._frame.cell(blue.file, blue.rank) == LOSER


# ---------------------------------------------------------------- what the LEDs show


@pytest.mark.parametrize("result, termination, red_cell, black_cell", [
    ("0-1", "resignation", "LOSER", "WINNER"),
    ("1/2-1/2", "agreement", "DRAW", "DRAW"),
])
def test_a_referees_result_lights_the_end_of_the_game(app, make_game, result, termination, red_cell, black_cell):
    from hardware import leds

    game_id = make_game()
    box = []

    def referee(index, _ts):
        if index == 30:  # after two moves Red resigns, or the players agree a draw, at the referee's console
            snapshot = app.state.recorder.set_result(game_id, result, termination=termination, reason="told")
            box[0]._loop.call_soon_threadsafe(app.state.hub.publish, snapshot)

    def make_station():
        box.append(Station(EmbeddedTarget(app, game_id), frames(45, pace=0.01),
                           lambda board: ScriptedTracker("xiangqi", board, script(OPENING[:2])), on_frame=referee,
                           exit_at_end=True))
        return box[0]

    asyncio.run(run_headless(app, make_station))
    frame = box[0]._frame
    assert frame.cell(4, 0) == getattr(leds, red_cell)  # Red's general on e0
    assert frame.cell(4, 9) == getattr(leds, black_cell)  # Black's on e9
    assert app.state.stations.get(game_id)["leds"] == box[0].status()["leds"]  # the pages' mirror shows it


def test_a_commander_in_check_blinks_on_the_leds(app, make_game):
    from games.commander import terrain
    from hardware.leds import CHECK

    game_id = make_game("commander")
    giving_check = ["H1,1_4,1", "*11,6_11,4", "H4,1_8,1>"]  # Red's navy checks Blue's commander on 11,4
    _, station = run_commander(app, game_id, script(giving_check), "15+0", count=40)
    assert station.board.is_check()
    blue = terrain.to_point(terrain.parse_point("11,4"))
    assert station._frame.cell(blue.file, blue.rank) == CHECK


def test_a_wled_strip_shows_the_last_move_at_the_leds_the_strip_numbers(app, make_game):
    import socket

    from hardware.wled import StripLayout

    game_id = make_game()
    strip = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # stands in for WLED: DRGB packets over UDP
    strip.bind(("127.0.0.1", 0))
    strip.settimeout(0.5)
    try:
        def make_station():
            return Station(EmbeddedTarget(app, game_id), frames(30, pace=0.01),
                           lambda board: ScriptedTracker("xiangqi", board, script(["h2e2"])),
                           leds=f"wled:udp://127.0.0.1:{strip.getsockname()[1]}", exit_at_end=True)

        asyncio.run(run_headless(app, make_station))
        packets = []
        with contextlib.suppress(TimeoutError):
            while True:
                packets.append(strip.recv(2048))
    finally:
        strip.close()
    assert packets, "the strip received nothing"
    last = packets[-1]
    assert last[0] == 2 and len(last) == 2 + 3 * 90  # DRGB: protocol 2, a timeout, then 90 RGB triples
    layout = StripLayout(9, 10, serpentine=True)

    def rgb(file, rank):
        index = layout.index(file, rank)
        return tuple(last[2 + 3 * index: 5 + 3 * index])

    assert rgb(4, 2) == (0xFF, 0xC0, 0x00)  # the move's end, bright amber (LAST_TO)
    assert rgb(7, 2) == (0x40, 0x30, 0x00)  # its start, dim (LAST_FROM)
    assert sum(last[2:]) == sum(rgb(4, 2)) + sum(rgb(7, 2))  # nothing else lit


def test_a_move_the_replaced_tracker_saw_is_not_recorded_in_the_next_game(app, make_game):
    """When the station moves on to the board's next game its tracker is replaced; a move the
    old one committed, still on its way through the queue, belongs to the last game: dropped.
    A move of the tracker in use is recorded as ever."""
    from server.station.orchestrator import TrackerSaw
    from vision.events import MoveCommitted

    game_id = make_game()
    variant = games.get("xiangqi")
    boxes: list = []

    def seen_by(tracker, text, timestamp):
        move = variant.parse_move(tracker.board, text)
        return TrackerSaw(tracker, MoveCommitted([move], [text], timestamp, {}))

    def on_frame(index, timestamp):
        station = boxes[0]
        if index == 5:
            old = station.tracker
            station.tracker = ScriptedTracker("xiangqi", old.board, {})  # as a switch to a next game does
            station.post(seen_by(old, "h2e2", timestamp))
        if index == 10:
            station.post(seen_by(station.tracker, "b2e2", timestamp))

    def make_station():
        station = Station(EmbeddedTarget(app, game_id), frames(30), lambda board: ScriptedTracker("xiangqi", board, {}),
                          on_frame=on_frame, exit_at_end=True)
        boxes.append(station)
        return station

    report = asyncio.run(run_headless(app, make_station))
    assert [text for text, _, _ in stored(app, game_id)] == ["b2e2"]
    assert any("saw in the last game" in event["text"] for event in report.events)


def test_a_repetition_verdict_taken_back_by_the_referee_tracks_the_moves_played_since(app, make_game):
    """The start position stands a third time: the record ends the game (RULES.md §1). The players,
    told to change moves (seed 001), play on: the move is not recorded while the result stands.
    Once the referee takes the result back, the tracker is set back to the record's position, so
    the move it then sees again is recorded, and the game goes on."""
    game_id = make_game()
    repeating = ["h0g2", "h9g7", "g2h0", "g7h9"] * 2
    tracker_script = script(repeating)  # frames 5 … 75
    tracker_script[85] = ["h2e2"]  # played on: the result stands, so it is not recorded
    tracker_script[105] = ["h2e2"]  # seen again after the reset (a real tracker reads the board)
    tracker_script[115] = ["h7e7"]
    box, trackers = [], []

    def referee(index, _ts):
        if index == 95:
            snapshot = app.state.recorder.set_result(game_id, "*", reason="Red was told to change moves")
            box[0]._loop.call_soon_threadsafe(app.state.hub.publish, snapshot)

    def make_tracker(board):
        trackers.append(ScriptedTracker("xiangqi", board, tracker_script))
        return trackers[-1]

    def make_station():
        box.append(Station(EmbeddedTarget(app, game_id), frames(130, pace=0.01), make_tracker, on_frame=referee,
                           exit_at_end=True))
        return box[0]

    report = asyncio.run(run_headless(app, make_station))
    texts = [event["text"] for event in report.events]
    assert "game over: 1/2-1/2 (repetition); if the players go on, take the result back and the station " \
           "records from the board" in texts
    assert "a move after the end of the game was not recorded" in texts
    assert [text for text, _, _ in stored(app, game_id)] == repeating + ["h2e2", "h7e7"]
    repeated = games.get("xiangqi").board()
    assert trackers[0].resets[-1] == repeated.fen().replace(" 0 1", " 8 5")
    assert app.state.recorder.snapshot(game_id)["result"] == "*"


def test_the_cameras_warnings_reach_the_referee_and_last_as_long_as_its_view(app, make_game):
    """A camera that sees every piece too small: calibrate's warning is noted once for the
    referee and stays in the status while that view holds; the board found again nearer (the
    tracker's new calibration) clears it."""
    from calibration import BoardLayout, Calibration

    layout = BoardLayout.for_game(games.get("xiangqi"))
    far = Calibration.from_corners(layout, [(250, 330), (420, 330), (420, 140), (250, 140)], (640, 360))
    near = Calibration.from_corners(layout, [(200, 1000), (900, 1000), (900, 150), (200, 150)], (1280, 1200))
    assert far.view_warnings() and not near.view_warnings() and not near.framing_warning()
    statuses = []

    class MovedTracker(ScriptedTracker):
        def feed(self, frame, timestamp):
            if frame == 40:
                statuses.append(app.state.stations.get(game_id))
                self.calibration = near
            return super().feed(frame, timestamp)

    def make_tracker(board):
        tracker = MovedTracker("xiangqi", board, script(OPENING[:4]))
        tracker.calibration = far
        return tracker

    game_id = make_game()
    report = asyncio.run(run_headless(app, lambda: Station(EmbeddedTarget(app, game_id), frames(70, pace=0.01),
                                                            make_tracker, exit_at_end=True)))
    assert report.stored == OPENING[:4]
    noted = [event["text"] for event in report.events if event["kind"] == "camera" and "px" in event["text"]]
    assert noted == far.view_warnings() and noted[0].startswith("every piece appears under 20 px")
    assert statuses[0]["camera_warnings"] == noted  # while the far view held
    assert app.state.stations.get(game_id)["camera_warnings"] == []
