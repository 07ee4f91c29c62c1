"""From a stream of frames to events: a hand gate, smoothing, and the rules engine's verdict.

`MoveTracker` is what the station and `banco record` drive::

    tracker = MoveTracker(game, board, detector, calibration, commit_on_press=False)
    events = tracker.feed(frame, timestamp)   # list of vision.events
    events = tracker.press(timestamp)         # a clock press: commit now if the board is stable
    tracker.reset(board)                      # the record changed (referee): track from here

Per frame it only warps a small grey image of the board area (the sheet, markers included:
a little larger than the playing grid) and compares it with the previous one: motion means
a hand. The classifier runs only once the area has been still for the stability window,
and only on points whose crop changed since the last stable view (plus a full check now and
then while nothing moves). The probabilities of the still frames of the window are averaged
per point (in log space) before `vision.inference.decide` judges them against the last
legal position. A move is committed at the end of the stability window (a narrow one after a
second look one window later), or — with a clock (`commit_on_press=True`) — at the press that
follows it (FIDE 6.7: the press completes it). While a hand is over the board, the points of
the pieces that may move are looked at now and then: a piece seen on its point and then
clearly gone is in the hand (`PieceLifted`, then `LiftEnded` when it is back or the hand left).

The tracker keeps its own copy of the board and advances it on every `MoveCommitted`; the
receiver pushes the same moves to the record. It never pushes anything elsewhere.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from dataclasses import dataclass, field

import cv2
import numpy as np

import games
from calibration import Calibration
from games import Board, Point
from vision import events as ev
from vision import inference as inf
from vision.classes import EMPTY
from vision.detector import OCCLUSION_THRESHOLD

log = logging.getLogger(__name__)

# Stability window: the board area must be still this long after the last motion.
STABILITY_S = 0.3
# Frame differencing on a small grey copy of the frame (its long side GATE_SIZE px): a pixel
# moved when it changed by this much beyond its neighbours' range…
MOTION_LEVEL = 20
# …and a hand is there when this fraction of the board's area (grown by GATE_MARGIN) moved.
MOTION_FRACTION = 0.004
GATE_SIZE = 320
MOTION_LAG_S = 0.1
GATE_MARGIN = 0.03
# A resting hand: more of the area differs from the board's look at the last legal position
# than this many squared point spacings (a move of three pieces changes about two).
HAND_AREA_PITCHES = 5.0
# A hand reaching in: one changed region both outside the pieces' area (the grid grown by
# REACH_CLEAR_PITCHES), over REACH_AREA_PITCHES squared spacings of it, and inside it, over
# REACH_TOUCH_PITCHES. A piece held still over a point reads like one set down there (Cờ Tư Lệnh
# render 1002, ply 29: fingers and the held piece over the near edge changed 4.1 spacings, under
# HAND_AREA_PITCHES); a hand resting at the sheet's edge after a move, or a captured piece put
# aside, touch no point. Such a hand holds a piece often over a second (render 1002: 1.2 s), so
# the window waits REACH_S still for it, RESTING_S for a large still difference alone. In grey,
# skin over a sheet of its brightness shows only at the arm's edges (Cờ Tư Lệnh render 1005, ply
# 53, a pink arm across a beige sheet: grey 18 apart, Lab a* 13): pixels whose a* or b* left
# their neighbours' range by CHROMA_LEVEL (the view's median shift taken off) may join grey
# differences outside the pieces' area, together large enough, to each other and to grey
# differences inside, and inside count as touching (render 1005, ply 1: a hand holding a piece
# over a point of the near rank reaches only just in, where grey sees 24 of the 32 pixels it
# needs and colour 130; render 1007, ply 52: grey saw the hand beyond the points as two edges
# of 64 and 97 pixels, 69 needed, that only its colour joins). The
# part beyond the points must be grey: colour alone there, light that tints a corner of the
# sheet, is taken for an arm (Cờ Tướng render 1000, a light green sheet).
REACH_CLEAR_PITCHES = 0.8
REACH_AREA_PITCHES = 1.0
REACH_TOUCH_PITCHES = 0.3
RESTING_S = 1.0
REACH_S = 2.5
REACH_LOOKS = 3
CHROMA_LEVEL = 8
# A point read as hidden by a hand is still read as the pieces it might show. Once the board has
# been still HIDDEN_TRUST_S, a hidden point whose reading names, at HIDDEN_AGREE or more, exactly
# what the likeliest explanation puts there confirms it rather than holding it: a piece the
# classifier takes for a hand keeps its point hidden for ever, and the game stopped there (Cờ Tư
# Lệnh render 1007, ply 42, the second Commander model: an air force set down among pieces read
# 0.99 hidden on every look). The gate cannot say where a hand is: in grey, skin over a sheet of
# its brightness shows only at its edges.
HIDDEN_TRUST_S = 1.0
HIDDEN_AGREE = 0.9
# A point's crop changed (since the last legal position) when its centre, shrunk to
# CENTRE_CELLS² and normalised (grey levels over max(spread, CENTRE_MIN_SPREAD)), differs by this much.
CROP_CHANGE_LEVEL = 0.45
CENTRE_CELLS = 8
CENTRE_MIN_SPREAD = 12.0
# Per point, the window averages its latest reads only.
WINDOW_READS = 3
# After a doubtful verdict (illegal, ambiguous, occluded), the changed points are read again this soon.
RECHECK_S = 0.7
# A board where pieces are only missing (nothing new in sight) is, far more often than a piece
# knocked off, a piece still in the hand: a player thinking with it, or carrying a captured piece
# away before the capturer moves. It is reported as illegal only once the board has been still
# this long (a wrong move, a piece where none should be, is reported on the second look).
MISSING_HOLD_S = 4.0
# A commit whose margin is below this waits for the next look (one stability window later, or
# the next still window) to name the same moves: a hand that pauses over the board while still
# carrying a piece shows a lifted piece and a faint one somewhere else, a near miss of a move.
CONFIRM_MARGIN = 2 * inf.COMMIT_MARGIN
# A point whose crop did not change is taken to show what the board says, this surely.
PINNED_CONFIDENCE = 0.98
PINNED_OTHER = 1e-9
# While nothing moves, every point is classified again this often.
FULL_CHECK_S = 5.0
# Before the game starts, the whole board is read this often.
START_CHECK_S = 0.5
# Adapting to the set from the start position is tried at most this often, until the first move.
ADAPT_RETRY_S = 2.0
# Without a clock, a move that only takes pieces off commits once the board has been still this long.
REMOVAL_WAIT_S = 1.5
# Without a clock, a commit much less sure than this game's moves usually are (its margin under
# SURE_FRACTION of the median of the last SURE_HISTORY commits) also waits REMOVAL_WAIT_S still:
# a player hesitating at the near edge, a piece in the hand over a point beside its target, shows
# little hand and a raised piece that reads, less surely than a piece set down, as a move one
# point off (Xiangqi renders 1006 ply 142 at margin 8.1, 1008 ply 79 at 6.8, against 18.4 for
# the set-down moves before). A hesitation holds still at most about a second. Relative, not in
# nats: a game whose pieces read less surely (Cờ Toán's digits) has narrower margins throughout,
# and waiting on all of them lets the next hand arrive first.
SURE_FRACTION = 0.6
SURE_HISTORY = 12
SURE_MIN_HISTORY = 4
# Measured per game: in Cờ Tư Lệnh this wait cost more than it saved (render seed 1000: 80 → 12
# of 80 moves): its turns already wait for splits and removals, and its margins vary with stacks,
# so the next hand came first. There only a narrow commit (under CONFIRM_MARGIN, which no commit
# of that render had: its least sure was 6.8) waits so: a piece held over the point beside its
# target at the near edge read as set down there at 5.5 (render seed 1002, ply 29).
HESITATION_WAIT_GAMES = frozenset({"xiangqi", "cotoan"})
# While a hand is over the board, the points of the pieces that may move are looked at this
# often (only those whose crop changed); a piece is in the hand once its point reads empty
# this surely, unoccluded, on LIFT_LOOKS looks in a row, and back once it reads its piece so.
LIFT_LOOK_S = 0.2
LIFT_SURE = 0.8
LIFT_LOOKS = 2


@dataclass
class _Settle:
    """Evidence gathered over the still frames of one stability window."""

    sums: dict[int, list[np.ndarray]] = field(default_factory=dict)
    occluded: set[int] = field(default_factory=set)
    hidden: dict[int, list[np.ndarray]] = field(default_factory=dict)  # what occluded points read as
    located: bool = False  # the board (its markers, or its grid) was looked for in this window


class MoveTracker:
    """Watches one calibrated board and proposes the moves the rules engine accepts.

    `detector` is a `vision.detector.Detector` (or anything with `extractor` and `classifier`
    like it; an object with only `observe(frame)` works too, classifying every point). `board`
    is the last legal position; before the first move the tracker waits until it recognises
    the start position (`StartFound`) unless `wait_for_start=False`.
    """

    def __init__(self, game: str, board: Board, detector, calibration: Calibration, *,
                 commit_on_press: bool = False, stability_s: float = STABILITY_S,
                 wait_for_start: bool = True, max_plies: int = 4, locator=None,
                 adapt_at_start: bool = False) -> None:
        self.game = game
        self.variant = games.get(game)
        self.board = board.copy()
        self.detector = detector
        self.calibration = calibration
        # A `calibration.follow.BoardFollower` (or the markers' `BoardLocator` alone): on still
        # frames the board is looked for, by its markers or its printed grid, and a bumped board
        # is read where it now lies (`BoardMoved`).
        self.locator = locator
        # With `adapt_at_start`, the first still look at the start position teaches the
        # detector this set's pieces (`vision.adapt`), unless it already reads through an adaptation.
        self.adapt_at_start = (adapt_at_start and hasattr(detector, "adapt")
                               and getattr(detector, "adaptation", None) is None)
        self._adapt_tried_at = -1e9
        self.commit_on_press = commit_on_press
        self.stability_s = stability_s
        self.max_plies = max_plies
        self.rules = inf.rules_for(game)
        self.points = list(self.variant.geometry.points())
        self._row_of = {p: i for i, p in enumerate(self.points)}
        self.started = not wait_for_start
        self._classes = inf.game_classes(game)
        self._empty_index = self._classes.index(EMPTY)
        self._n = len(self.points)
        self._evidence: inf.Evidence | None = None  # the last window's, judged on a press
        self._hidden: dict[int, np.ndarray] = {}  # of its hidden points, what each reads as
        self._reference: np.ndarray | None = None  # per-point crop centres at the last legal position
        self._reference_view: np.ndarray | None = None  # what the board put on each point then
        self._centres_now: np.ndarray | None = None
        # When each point last took a new look on a still frame: the order the moves of a
        # sequence landed in, where the lift watch is blind or misled (`_landed_in_order`).
        self._still_centres: np.ndarray | None = None
        self._landed_at = np.full(self._n, -np.inf)
        self._committed_at = -np.inf
        self._suspect: set[int] = set()
        self._gate_prev: np.ndarray | None = None
        self._make_gate(calibration)
        self.hand = False
        # After a referee's correction the board may still show what the record no longer holds
        # (a move taken back): nothing is committed until a hand has moved over the board again.
        self._hold_for_hand = False
        self.last_motion = -1e9
        self._settled = True
        self._settle = _Settle()
        self._last_full = -1e9
        self._last_signature: tuple | None = None
        self._press_pending = False
        self._margins: deque[float] = deque(maxlen=SURE_HISTORY)  # recent commits, as sure as they were
        self._recheck_at: float | None = None
        self._tentative: tuple[str, ...] | None = None  # a narrow commit awaiting a second look
        self._waited: list = []  # the moves a less-sure look saw first, still waiting
        self._doubt: tuple | None = None  # an illegal or ambiguous look awaiting a second one
        self._doubt_at = -1e9  # when that look was first seen
        self._pending_penalty: list = []
        # A penalty attempt one still look saw (a piece set down across deep water), not confirmed
        # by a second look before the hand came back for it: not reported, but the crossing to
        # record if the board is next seen past a passed turn.
        self._attempt_glimpsed = None
        self._lifted: int | None = None  # the row of the piece in the hand (a PieceLifted was sent)
        # Looks in a row each row read empty (or, while lifted, that row read its piece again).
        self._lift_runs: dict[int, int] = {}
        # Rows seen holding their piece since the board last looked as the tracker's board says.
        self._present: set[int] = set()
        self._last_lift_look = -1e9
        self._lifted_since: list[Point] = []  # points of the pieces seen lifted since the last commit
        self._set_down: set[Point] = set()  # penalty targets a lifted piece was seen on (referee mode)
        self._hovered: Counter[Point] = Counter()  # looks at which a hand hid each of those targets
        self._attempt_rows: tuple = (None, [])  # (plies, lifted row): that piece's penalty targets
        self._movable: tuple[int, list[int]] | None = None  # (plies, rows of the pieces that may move)
        self.frames = 0
        self._last_frame: np.ndarray | None = None
        self.classified_crops = 0
        self._fast = hasattr(detector, "extractor") and hasattr(detector, "classifier")
        if self._fast:
            order = {p: i for i, p in enumerate(detector.extractor.points)}
            self._crop_rows = [order[p] for p in self.points]

    # ------------------------------------------------------------------ public API
    def feed(self, frame: np.ndarray, timestamp: float) -> list[ev.Event]:
        """Process one frame; returns the events it caused (often none)."""
        self.frames += 1
        self._now = timestamp
        self._last_frame = frame
        out: list[ev.Event] = []
        moving = self._motion(frame)
        if moving:
            self.last_motion = timestamp
            self._hold_for_hand = False
            if not self.hand:
                self.hand = True
                out.append(ev.HandOn(timestamp))
            self._settled = False
            self._settle = _Settle()
            out.extend(self._watch_lift(frame, timestamp))
            return out
        still_for = timestamp - self.last_motion
        if self.resting:
            # Something large differs from the last legal look yet nothing moves: a resting
            # hand, most likely. Wait longer, then let the classifier judge (it says which
            # points are occluded) rather than wait for ever.
            still_for = min(still_for, max(0.0, still_for - self.resting + self.stability_s))
        if not self.started:
            if timestamp - self._last_full >= START_CHECK_S and still_for >= self.stability_s / 2:
                self._last_full = timestamp
                out.extend(self._relocate(frame, timestamp))
                out.extend(self._adapt(frame, timestamp))
                out.extend(self._look_for_start(frame, timestamp))
            return out
        if not self._settled:
            if still_for >= self.stability_s / 3:
                if not self._settle.located:
                    # Before the first read of a window: a hand that moved may have knocked the board.
                    out.extend(self._relocate(frame, timestamp))
                    self._settle.located = True
                self._gather(frame)
            if still_for >= self.stability_s:
                if self.hand:
                    self.hand = False
                    out.append(ev.HandOff(timestamp))
                    out.extend(self._end_lift(timestamp))
                out.extend(self._conclude(frame, timestamp))
            else:
                out.extend(self._watch_lift(frame, timestamp))
            return out
        if self._recheck_at is not None and timestamp >= self._recheck_at:
            self._recheck_at = None
            # A look no legal move explains is confirmed on the whole board: a point kept from
            # its last look may hide the other half of the move (Cờ Toán render 1005, ply 6, with
            # the second model: the point a piece left looked 0.37 from before, under
            # CROP_CHANGE_LEVEL, and its landing alone was reported illegal).
            self._gather(frame, everything=self._doubt is not None and self._doubt[0] == "illegal")
            out.extend(self._conclude(frame, timestamp))
            return out
        if self.adapt_at_start and still_for >= self.stability_s:
            out.extend(self._adapt(frame, timestamp))
        # A narrow move waits for the look a stability window later, not for whichever comes
        # first: a full check just after the window's verdict, the hand still holding a piece
        # over a point, read it a little surer and committed it (Cờ Tư Lệnh render 1007, ply 53).
        if timestamp - self._last_full >= FULL_CHECK_S and self._tentative is None:
            self._last_full = timestamp
            out.extend(self._relocate(frame, timestamp))
            self._gather(frame, everything=True)
            out.extend(self._conclude(frame, timestamp, check=True))
        return out

    def press(self, timestamp: float) -> list[ev.Event]:
        """A clock press: the player says the move is complete. Commit now if the board is still."""
        if not self.commit_on_press or not self.started:
            return []
        # The press stands until a move is committed: a board still unclear at the press (a
        # look again, a hand still leaving) commits on a later look, not at the next press.
        self._press_pending = True
        if self.hand or not self._settled:
            return []
        return self._judge(timestamp, allow_commit=True)

    def finish(self, timestamp: float) -> list[ev.Event]:
        """The stream ended (end of a file): judge what the last frames show, still or not."""
        frame = self._last_frame
        if frame is None or not self.started:
            return []
        # No press and no hand can come any more: the last look decides the last move, also one
        # still waiting (a narrow reading, a capture whose capturer may follow: Cờ Tư Lệnh render
        # 1005 ends 1.3 s after its last move, a shot that waits REMOVAL_WAIT_S).
        if not self._settled:
            self._gather(frame)
            self._press_pending = self._press_pending or self.commit_on_press
            return self._conclude(frame, timestamp, ended=True)
        if self._evidence is not None and (self.commit_on_press or self._recheck_at is not None):
            return self._judge(timestamp, allow_commit=True, ended=True)
        return []

    def reset(self, board: Board) -> None:
        """The record changed outside the camera (a referee's correction): track from `board`.
        What the board shows now is not committed before a hand moves over it again: a move the
        referee took back is still on it until the players take it back too."""
        self.board = board.copy()
        self._hold_for_hand = True
        self.started = True
        self._tentative = None
        self._waited = []
        self._last_signature = None
        self._pending_penalty = []
        self._attempt_glimpsed = None
        self._press_pending = False
        self._lifted = None
        self._lift_runs = {}
        self._present = set()
        self._lifted_since = []
        self._committed_at = self._now
        self._set_down = set()
        self._hovered = Counter()
        self._attempt_rows = (None, [])

    def recalibrate(self, calibration: Calibration) -> None:
        """Read the board through `calibration` from now on (the board moved, or a better fit
        was found). What was read through the old one is dropped; every point is read again."""
        self.calibration = calibration
        if hasattr(self.detector, "recalibrate"):
            self.detector.recalibrate(calibration)
        self._make_gate(calibration)
        self._reference = None
        self._reference_view = None
        self._centres_now = None
        self._still_centres = None
        self._settle = _Settle(located=True)

    def _adapt(self, frame: np.ndarray, timestamp: float) -> list[ev.Event]:
        """Learn this set's pieces from a still look at the standard start position (once)."""
        if not self.adapt_at_start:
            return []
        if self.board.move_stack or self.board.fen() != self.variant.starting_fen:
            self.adapt_at_start = False  # a custom start or a game under way: nothing labels the pieces
            return []
        if timestamp - self._adapt_tried_at < ADAPT_RETRY_S:
            return []
        self._adapt_tried_at = timestamp
        from vision.adapt import AdaptationError, adapt_to_start

        try:
            report = adapt_to_start(self.detector.classifier, [(frame, self.calibration)])
        except AdaptationError as error:
            log.info("not adapted yet: %s", error)
            return []
        # Used even where the start photo's held-out points read a little worse adapted: one
        # photo's few held-out points are a noisy judge, and without the adaptation Cờ Tư Lệnh
        # render 1005 (63 held-out points, 1 read worse) lost its order at ply 27 (26/80 against 80/80).
        self.detector.adapt(report.adaptation)
        self.adapt_at_start = False
        return [ev.Adapted(timestamp, report.summary(used=True), report.to_json(used=True))]

    def _relocate(self, frame: np.ndarray, timestamp: float) -> list[ev.Event]:
        if self.locator is None:
            return []
        before = self.calibration
        if not self.locator.update(frame):
            return []
        self.recalibrate(self.locator.calibration)
        found_by = getattr(self.locator, "found_by", "markers")  # `calibration.follow.BoardFollower` says
        return [ev.BoardMoved(timestamp, self.calibration.drift_px(before), found_by)]

    # ------------------------------------------------------------------ gate
    def _make_gate(self, calibration: Calibration) -> None:
        """A small grey copy of the frame (area-averaged: a shaking camera's edges blur away) and
        a mask of the sheet, a little enlarged: a hand is seen before it reaches the grid."""
        width, height = calibration.image_size
        scale = GATE_SIZE / max(width, height)
        self._gate_size = (max(8, round(width * scale)), max(8, round(height * scale)))
        w_mm, h_mm = calibration.layout.sheet_size_mm
        corners = calibration.sheet_to_pixels(np.array([(0, 0), (w_mm, 0), (w_mm, h_mm), (0, h_mm)], float))
        mask = np.zeros((self._gate_size[1], self._gate_size[0]), np.uint8)
        cv2.fillConvexPoly(mask, np.round(corners * scale).astype(np.int32), 255)
        grow = max(3, round(GATE_MARGIN * self._gate_size[0]) | 1)
        self._gate_mask = cv2.dilate(mask, np.ones((grow, grow), np.uint8)) > 0
        self._gate_area = max(1, int(self._gate_mask.sum()))
        self._gate_kernel = np.ones((3, 3), np.uint8)
        # More changed area than a move's few pieces can make (in point spacings squared).
        pitch = float(np.linalg.norm(corners[1] - corners[0])) * scale / max(2, calibration.layout.geometry.files + 3)
        self._hand_area = HAND_AREA_PITCHES * pitch * pitch
        self._pieces = self._pieces_region(calibration, scale, pitch)
        self._reach_area = REACH_AREA_PITCHES * pitch * pitch
        self._reach_touch = REACH_TOUCH_PITCHES * pitch * pitch
        self._light_sigma = max(2.0, 3 * pitch)
        self._gate_looks: deque = deque(maxlen=REACH_LOOKS)  # the last legal looks, latest last
        self._gate_history: deque = deque()
        self._now = 0.0
        self.resting = 0.0  # how long a still hand seen now holds the window (seconds)
        self._verdict_look: np.ndarray | None = None  # the gate's look when the last window was judged
        self._colour_look: np.ndarray | None = None  # Lab a*, b* of the last legal look

    def _pieces_region(self, calibration: Calibration, scale: float, pitch: float) -> np.ndarray:
        """Where the pieces stand in the gate's view: the grid grown by REACH_CLEAR_PITCHES."""
        grid = np.zeros_like(self._gate_mask, np.uint8)
        cv2.fillConvexPoly(grid, np.round(calibration.grid_corners_px() * scale).astype(np.int32), 255)
        clear = max(3, round(2 * REACH_CLEAR_PITCHES * pitch) | 1)
        return cv2.dilate(grid, np.ones((clear, clear), np.uint8)) > 0

    def _outside(self, small: np.ndarray, before: np.ndarray, level: int = MOTION_LEVEL) -> np.ndarray:
        """Pixels that left the range of their earlier 3×3 neighbourhood by more than `level` (a
        one-pixel shake stays inside it, a hand does not), within the board's area."""
        low = cv2.subtract(cv2.erode(before, self._gate_kernel), level)
        high = cv2.add(cv2.dilate(before, self._gate_kernel), level)
        return ((small < low) | (small > high)) & self._gate_mask

    def _motion(self, frame: np.ndarray) -> bool:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        small = cv2.resize(grey, self._gate_size, interpolation=cv2.INTER_AREA)
        self._gate_prev = small
        # Compare with the frame MOTION_LAG_S ago, not the previous one: at a high frame rate
        # a slow hand moves too little between two frames.
        history = self._gate_history
        history.append((self._now, small))
        while len(history) > 2 and history[1][0] <= self._now - MOTION_LAG_S:
            history.popleft()
        previous = history[0][1]
        if len(history) < 2 or previous.shape != small.shape:
            return False
        moved = self._outside(small, previous)
        if float(np.count_nonzero(moved)) > MOTION_FRACTION * self._gate_area:
            return True
        # A resting hand matters only while a window is open (a settled board sees hands move in).
        self.resting = 0.0 if self._settled else self._hand_resting(small)
        return False

    def _hand_resting(self, small: np.ndarray) -> float:
        """How long to wait for a still hand (0: none seen). Compared with the board's look at
        the last legal position, an arm reaches onto the points (REACH_S), or a
        region larger than any piece differs (RESTING_S; a moved piece leaves only piece-sized
        differences)."""
        if not self._gate_looks:
            return 0.0
        changed = self._changed_since(self._gate_looks[-1], small)
        if self._reaching(small, changed):
            return REACH_S
        return RESTING_S if float(np.count_nonzero(changed)) > self._hand_area else 0.0

    def _changed_since(self, reference: np.ndarray, small: np.ndarray) -> np.ndarray:
        # Light drifts and shadows pass: scale the old look by the smooth ratio of brightness.
        sigma = self._light_sigma
        now = cv2.GaussianBlur(small.astype(np.float32), (0, 0), sigma) + 1.0
        then = cv2.GaussianBlur(reference.astype(np.float32), (0, 0), sigma) + 1.0
        adjusted = np.clip(reference.astype(np.float32) * (now / then), 0, 255).astype(np.uint8)
        return cv2.morphologyEx(self._outside(small, adjusted).astype(np.uint8), cv2.MORPH_OPEN, self._gate_kernel)

    def _reaching(self, small: np.ndarray, changed: np.ndarray) -> bool:
        """One changed region reaches from outside the pieces' area onto it: an arm holding a
        piece over a point, not a hand resting at the sheet's edge or a captured piece put aside.

        Outside the pieces' area a pixel counts only if it differs from each of the last
        REACH_LOOKS legal looks: a hand still in view at the last one (a commit comes as soon as
        the piece is down) must not make its absence now look like an arm. It must also differ
        from the look at the last verdict, legal or not: a difference already there then is no
        arm that reached in since (light that changed over the grid's corner while a wrong move
        stood, Cờ Toán render 1004, ply 57, the second Cờ Toán model: taken for an arm, it held
        every later window REACH_S while each next hand came sooner, and no move was read again)."""
        beyond = self._gate_mask & ~self._pieces
        if np.count_nonzero(changed[beyond]) <= self._reach_area:
            return False
        outside = changed.copy()
        verdict_look = [self._verdict_look] if self._verdict_look is not None \
            and self._verdict_look.shape == small.shape else []
        for look in list(self._gate_looks)[:-1] + verdict_look:
            outside &= self._changed_since(look, small)
        joined = np.where(self._pieces, changed, outside).astype(np.uint8)
        outside_large, inside_large = self._region_sizes(joined, joined)
        if np.any(outside_large & inside_large):
            return True
        if np.count_nonzero(joined[beyond]) <= self._reach_area:
            return False
        tinted = self._tinted_since_legal_look()
        if tinted is None:
            return False
        # Colour joins the regions everywhere, but counts only inside the pieces' area: beyond
        # it the grey parts it joins add up (render 1007, ply 52: see REACH_AREA_PITCHES).
        outside_large, inside_large = self._region_sizes(joined | tinted, joined | (tinted & self._pieces))
        return bool(np.any(outside_large & inside_large))

    def _region_sizes(self, regions: np.ndarray, counted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each connected region of `regions`: whether its `counted` pixels outside the
        pieces' area exceed the reach area, and whether those inside exceed the touch."""
        count, labels = cv2.connectedComponents(regions, connectivity=8)
        counted = counted > 0
        beyond = self._gate_mask & ~self._pieces
        out_counts = np.bincount(labels[counted & beyond], minlength=count)[1:]
        in_counts = np.bincount(labels[counted & self._pieces], minlength=count)[1:]
        return out_counts > self._reach_area, in_counts > self._reach_touch

    def _tinted_since_legal_look(self) -> np.ndarray | None:
        """Pixels whose Lab a* or b* left their neighbours' range at the last legal look by
        CHROMA_LEVEL, the view's median shift taken off (None without colour)."""
        chroma = self._chroma(self._last_frame)
        before = self._colour_look
        if chroma is None or before is None or before.shape != chroma.shape:
            return None
        tinted = np.zeros(chroma.shape[:2], bool)
        for channel in (0, 1):
            new, old = chroma[..., channel], before[..., channel]
            shift = int(round(float(np.median(new[self._gate_mask].astype(np.int16) - old[self._gate_mask]))))
            adjusted = np.clip(old.astype(np.int16) + shift, 0, 255).astype(np.uint8)
            tinted |= self._outside(np.ascontiguousarray(new), adjusted, CHROMA_LEVEL)
        return cv2.morphologyEx(tinted.astype(np.uint8), cv2.MORPH_OPEN, self._gate_kernel)

    def _chroma(self, frame: np.ndarray | None) -> np.ndarray | None:
        """Lab a* and b* of the frame at the gate's size (None for a grey camera)."""
        if frame is None or frame.ndim != 3:
            return None
        small = cv2.resize(frame, self._gate_size, interpolation=cv2.INTER_AREA)
        return np.ascontiguousarray(cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[..., 1:])

    # ------------------------------------------------------------------ reading points
    def _crops(self, frame: np.ndarray) -> np.ndarray:
        crops = self.detector.extractor.extract(frame).images
        return crops[self._crop_rows]

    @staticmethod
    def _centres(crops: np.ndarray) -> np.ndarray:
        """The middle of each crop as a tiny grey patch, less its mean, over its contrast: what
        stands there, not the light, and blurred enough that a one-pixel shake does not count."""
        size = crops.shape[1]
        lo, hi = size // 5, size - size // 5
        grey = crops[:, lo:hi, lo:hi].astype(np.float32).mean(axis=3)
        n = len(grey)
        small = np.stack([cv2.resize(g, (CENTRE_CELLS, CENTRE_CELLS), interpolation=cv2.INTER_AREA) for g in grey]) \
            if n else np.zeros((0, CENTRE_CELLS, CENTRE_CELLS), np.float32)
        small -= small.mean(axis=(1, 2), keepdims=True)
        spread = np.maximum(small.std(axis=(1, 2), keepdims=True), CENTRE_MIN_SPREAD)
        return small / spread

    def _agreed_missing(self, verdict: inf.Verdict) -> bool:
        """Whether the points this look shares with the doubt it confirms are all pieces gone,
        nothing come: a piece in the hand, whatever else one of the two looks misread (Cờ Tướng
        render 1006, ply 113: a rook held up for 2 s, and a point under the arm misread in one
        look only)."""
        if self._doubt is None or self._evidence is None:
            return False
        common = set(verdict.points) & set(self._doubt[1])
        rows = [self._evidence.points.index(point) for point in common]
        return inf.pieces_gone(self._evidence, self.rules.view(self.board), rows)

    def _changed_rows(self, centres: np.ndarray) -> np.ndarray:
        """Points whose look differs from the last legal position's, that a check doubted, or
        that moves since then changed."""
        if self._reference is None:
            return np.arange(self._n)
        diff = np.abs(centres - self._reference).mean(axis=(1, 2))
        rows = set(np.flatnonzero(diff > CROP_CHANGE_LEVEL).tolist()) | self._suspect | set(self._moved_since_look())
        return np.array(sorted(rows), dtype=int)

    def _moved_since_look(self) -> list[int]:
        """Points the moves committed since the last legal look changed. Looking as they did
        then proves only that they hold what they held then: a commit made while a hand hid
        another point takes no look, and the piece it moved may leave unseen (Cờ Tư Lệnh render
        1005, plies 19–21: an air force landed, then shot down while frames were lost, was
        pinned on its empty point and every later look read wrong)."""
        if self._reference_view is None:
            return []
        return np.flatnonzero(self.rules.view(self.board) != self._reference_view).tolist()

    def _classify(self, crops: np.ndarray, frame: np.ndarray, rows: np.ndarray | list[int],
                  adapt: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Log-probabilities (rows over `self._classes`) and occlusion for the crops of `rows`
        cut from `frame`: a point outside the frame is occluded, as the detector has it, since its
        crop shows only the frame's edge smeared outwards.

        With `adapt`, an adaptation to the user's set (the detector's, `vision.adapt`) re-weighs
        the kinds; the emptiness checks of the lift watch need none."""
        c = self.detector.classifier
        adaptation = getattr(self.detector, "adaptation", None) if adapt else None
        embeddings = None
        if adaptation is not None and adaptation.needs_features:
            raw, embeddings = c.probabilities_and_embeddings(crops)
            raw = c.read(crops, first=raw)
        else:
            raw = c.read(crops)
        self.classified_crops += len(crops)
        occluded = raw[:, c.occluded_index] >= OCCLUSION_THRESHOLD if c.occluded_index is not None \
            else np.zeros(len(raw), bool)
        occluded |= self.detector.extractor.outside(frame)[[self._crop_rows[row] for row in rows]]
        names = list(c.classes)
        probs = raw[:, c.order]
        if adaptation is not None:
            probs = probs / np.clip(probs.sum(axis=1, keepdims=True), 1e-9, None)
            probs = self.detector.adapted(probs, frame, [self._crop_rows[r] for r in rows], embeddings)
        probs = probs[:, [names.index(k) for k in self._classes]]
        return _log_rows(probs), occluded

    def _read(self, frame: np.ndarray, everything: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:  # noqa: E501
        """Rows read, their log-probabilities, occlusion, and every point's crop centre."""
        if not self._fast:
            observation = self.detector.observe(frame)
            evidence = inf.Evidence.from_observation(observation)
            self.classified_crops += len(evidence.points)
            return np.arange(self._n), evidence.logp, ~evidence.seen, None
        crops = self._crops(frame)
        centres = self._centres(crops)
        rows = np.arange(self._n) if everything else self._changed_rows(centres)
        if len(rows):
            logp, occluded = self._classify(crops[rows], frame, rows)
        else:
            logp, occluded = np.zeros((0, len(self._classes))), np.zeros(0, bool)
        return rows, logp, occluded, centres

    def _gather(self, frame: np.ndarray, everything: bool = False) -> None:
        """Classify the points worth reading on this still frame and add them to the window."""
        settle = self._settle
        rows, logp, occluded, centres = self._read(frame, everything)
        for k, row in enumerate(rows.tolist()):
            if occluded[k]:
                settle.occluded.add(row)
                _keep_latest(settle.hidden, row, logp[k])
                continue
            _keep_latest(settle.sums, row, logp[k])
        self._centres_now = centres
        self._note_landings(centres, rows[occluded])

    def _note_landings(self, centres: np.ndarray | None, hidden: np.ndarray) -> None:
        """Stamp the points whose crops changed since the last still look (a hand over a point
        is no landing: its look is not taken)."""
        if centres is None:
            return
        before = self._still_centres
        if before is not None and before.shape == centres.shape:
            changed = np.abs(centres - before).mean(axis=(1, 2)) > CROP_CHANGE_LEVEL
            changed[hidden] = False
            self._landed_at[changed] = self._now
            centres = centres.copy()
            centres[hidden] = before[hidden]
        self._still_centres = centres

    def _window_evidence(self) -> inf.Evidence:
        """Points read in this window speak for themselves; the others look as they did at the
        last legal position, so they are taken to show what the board says is there."""
        settle = self._settle
        view = self.rules.view(self.board)
        logp = np.full((self._n, len(self._classes)), np.log(PINNED_OTHER))
        logp[np.arange(self._n), view] = np.log(PINNED_CONFIDENCE)
        seen = np.ones(self._n, bool)
        for row, reads in settle.sums.items():
            logp[row] = _mean_read(reads)
        self._hidden = {}
        for row in settle.occluded - set(settle.sums):
            seen[row] = False
            self._hidden[row] = _mean_read(settle.hidden[row])
        return inf.Evidence(self.game, self._classes, self.points, logp, seen)

    def _legal_look(self) -> None:
        """The board now looks as the last legal position should: remember that look."""
        if self._centres_now is not None:
            self._reference = self._centres_now
            self._reference_view = np.array(self.rules.view(self.board))
        if self._gate_prev is not None:
            looks = self._gate_looks
            if looks and looks[-1].shape != self._gate_prev.shape:
                looks.clear()
            looks.append(self._gate_prev)
            self._colour_look = self._chroma(self._last_frame)
        self._suspect = set()
        self._present = set()

    # ------------------------------------------------------------------ a piece in the hand
    def _movable_rows(self) -> list[int]:
        """Rows of the pieces of the side to move that have a legal move (only those may be lifted)."""
        plies = len(self.board.move_stack)
        if self._movable is None or self._movable[0] != plies:
            index = self._row_of
            rows = sorted({index[m.from_point] for m in self.board.legal_moves if m.from_point in index})
            self._movable = (plies, rows)
        return self._movable[1]

    def _watch_lift(self, frame: np.ndarray, timestamp: float) -> list[ev.Event]:
        """Now and then while a hand is over the board: has it lifted a piece (or put it back)?

        Only the points of pieces that may move and whose crops changed are read, so a hand
        that only passes costs a few crops; a point the hand covers reads occluded and counts
        for nothing either way."""
        if not self.hand or not self.started or timestamp - self._last_lift_look < LIFT_LOOK_S \
                or self._game_ended():
            return []
        self._last_lift_look = timestamp
        rows, probs, occluded, unchanged = self._lift_read(frame)
        view = self.rules.view(self.board)
        if self._lifted is not None:
            self._watch_attempt(frame, view)
            k = rows.index(self._lifted) if self._lifted in rows else None
            back = k is not None and not occluded[k] and probs[k, view[self._lifted]] >= LIFT_SURE
            runs = self._lift_runs.get(self._lifted, 0) + 1 if back else 0
            self._lift_runs = {self._lifted: runs}
            if runs < LIFT_LOOKS:
                return []
            return self._end_lift(timestamp)
        runs: dict[int, int] = {}
        present = set(unchanged)
        for k, row in enumerate(rows):
            if occluded[k]:
                continue
            if probs[k, view[row]] >= LIFT_SURE:
                present.add(row)
            elif probs[k, self._empty_index] >= LIFT_SURE and row in self._present:
                # Only a piece seen on its point since the board last looked right can be in the
                # hand (a point found empty at once was emptied unseen: a move the camera missed).
                runs[row] = self._lift_runs.get(row, 0) + 1
        self._present |= present
        self._lift_runs = runs
        lifted = [row for row, count in runs.items() if count >= LIFT_LOOKS]
        if len(lifted) != 1:
            return []  # none yet, or several points empty at once: no single piece to light
        self._lifted = lifted[0]
        self._lift_runs = {}
        self._lifted_since.append(self.points[self._lifted])
        return [ev.PieceLifted(self.points[self._lifted], timestamp)]

    def _watch_attempt(self, frame: np.ndarray, view: np.ndarray) -> None:
        """Referee mode: is the lifted piece set down across deep water (§6.5)? A hand that puts
        it back at once hides the attempt from every still look; this is where it was tried."""
        if not getattr(self.board, "referee", False):
            return
        key = (len(self.board.move_stack), self._lifted)
        if self._attempt_rows[0] != key:
            origin, index = self.points[self._lifted], self._row_of
            self._attempt_rows = (key, sorted({index[t.to_point] for t in self.board.penalty_turns()
                                               if t.from_point == origin and t.to_point in index}))
        rows = self._attempt_rows[1]
        if not rows:
            return
        if self._fast:
            logp, occluded = self._classify(self._some_crops(frame, rows), frame, rows, adapt=False)
        else:
            evidence = inf.Evidence.from_observation(self.detector.observe(frame))
            logp, occluded = evidence.logp[rows], ~evidence.seen[rows]
        for k, row in enumerate(rows):
            if occluded[k]:
                self._hovered[self.points[row]] += 1
            elif np.exp(logp[k, view[self._lifted]]) >= LIFT_SURE:
                self._set_down.add(self.points[row])

    def _lift_read(self, frame: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray, list[int]]:
        """The movable rows whose crops changed since the last legal position (and the lifted
        one), their class probabilities and occlusion; and the movable rows that look unchanged."""
        movable = self._movable_rows()
        if not self._fast:
            evidence = inf.Evidence.from_observation(self.detector.observe(frame))
            self.classified_crops += len(movable)
            return movable, np.exp(evidence.logp[movable]), ~evidence.seen[movable], []
        # Once a piece is in the hand only its point matters (is it put back?).
        rows = [self._lifted] if self._lifted is not None else list(movable)
        if not rows:
            return [], np.zeros((0, len(self._classes))), np.zeros(0, bool), []
        crops = self._some_crops(frame, rows)
        unchanged: list[int] = []
        if self._reference is not None and self._lifted is None:
            diff = np.abs(self._centres(crops) - self._reference[rows]).mean(axis=(1, 2))
            moved = set(self._moved_since_look())
            changed = [bool(d > CROP_CHANGE_LEVEL) or row in moved for d, row in zip(diff, rows, strict=True)]
            unchanged = [row for row, c in zip(rows, changed, strict=True) if not c]
            crops = crops[np.flatnonzero(changed)]
            rows = [row for row, c in zip(rows, changed, strict=True) if c]
        if not rows:
            return [], np.zeros((0, len(self._classes))), np.zeros(0, bool), unchanged
        logp, occluded = self._classify(crops, frame, rows, adapt=False)
        return rows, np.exp(logp), occluded, unchanged

    def _some_crops(self, frame: np.ndarray, rows: list[int]) -> np.ndarray:
        extractor = self.detector.extractor
        if hasattr(extractor, "extract_some"):
            return extractor.extract_some(frame, [self._crop_rows[row] for row in rows])
        return self._crops(frame)[rows]

    def _end_lift(self, timestamp: float) -> list[ev.Event]:
        self._lift_runs = {}
        if self._lifted is None:
            return []
        point, self._lifted = self.points[self._lifted], None
        return [ev.LiftEnded(point, timestamp)]

    # ------------------------------------------------------------------ decisions
    def _conclude(self, frame: np.ndarray, timestamp: float, check: bool = False,
                  ended: bool = False) -> list[ev.Event]:
        self._evidence = self._window_evidence()
        self._settle = _Settle()
        self._settled = True
        self._verdict_look = self._gate_prev
        # The game's first move starts the clock: no press completes it.
        allow = not self.commit_on_press or self._press_pending or not self.board.move_stack
        return self._judge(timestamp, allow_commit=allow, check=check, ended=ended)

    def _game_ended(self) -> bool:
        """Nothing more to record: an ending on the board, but not a repetition verdict, which a
        player told to change moves may play on past (`Termination.play_may_go_on`)."""
        outcome = self.board.outcome()
        return outcome is not None and not outcome.termination.play_may_go_on

    def _judge(self, timestamp: float, allow_commit: bool, check: bool = False,
               ended: bool = False) -> list[ev.Event]:
        if self._evidence is None or self._game_ended():
            return []
        # An attempt seen crossing the water is the one to record if the board is next seen past
        # it without the put-back having been judged.
        hint = self._attempt_seen() or self._penalty_from_lifts()
        verdict = inf.decide(self.board, self._evidence, max_plies=self.max_plies, rules=self.rules,
                             penalty_hint=hint)
        if verdict.status == "illegal" and self._waited:
            verdict = self._after_waited(verdict, hint)
        if verdict.status == "occluded" and verdict.candidates and timestamp - self.last_motion >= HIDDEN_TRUST_S:
            verdict = self._hidden_confirms(verdict, hint)
        self._recheck_at = None if verdict.status in ("none", "commit") else timestamp + RECHECK_S
        if verdict.status == "unsure":
            return []
        if verdict.status == "none":
            self._legal_look()
            self._last_signature = None
            self._tentative = None
            if self._pending_penalty:
                turn = self._pending_penalty
                self._pending_penalty = []
                return [self._commit(turn, timestamp, {"penalty": True})]
            return []
        if check and verdict.status != "commit":
            # A full check found points that disagree: read them on every window from now on.
            self._suspect |= {self._row_of[p] for p in verdict.changed}
        tentative, self._tentative = self._tentative, None
        if verdict.status == "commit":
            if not allow_commit or self._hold_for_hand:
                return []
            self._seen_order_first(verdict)
            named = tuple(str(m) for m in verdict.moves)
            waits = not (self.commit_on_press or ended)  # a press, or the stream's end, completes a move
            if verdict.margin < CONFIRM_MARGIN and waits and named != tentative:
                # Narrow: commit only if the next look names the same moves (a clock press
                # needs no second look: the player says the move is complete).
                self._tentative = named
                self._recheck_at = timestamp + self.stability_s
                return []
            still_for = timestamp - self.last_motion
            removes = self._only_removes(verdict.moves)
            # A turn passed for a crossing no look saw (no hint), and a piece gone: far likelier a
            # capture whose capturer is still in the hand (Cờ Tư Lệnh render 1001, ply 46, the
            # second Commander model: held 1.5 s, read as the opponent's penalty turn and a piece
            # joining a stack, under its top). It waits as long as a missing piece does.
            wait = MISSING_HOLD_S if removes and any(
                getattr(m, "penalty", False) and m != hint for m in verdict.moves) else REMOVAL_WAIT_S
            if waits and still_for < wait and (
                    self._less_sure_than_usual(verdict.margin) or removes
                    or self._may_be_half_a_split(verdict.moves)):
                # A piece taken off and nothing else changed (a Commander stay capture, an aircraft
                # shot down) is also how every capture by replacement begins: the hand may be
                # coming back with the capturer. A stack that moved whole, or lost a piece, is also
                # how a split turn begins (its carrier and passengers go to different points), and
                # a hand that unstacks pauses over the stack, hiding it. A reading much less sure
                # than usual may be a piece still held over a point (SURE_FRACTION). Without a clock
                # press, wait (once the opponent has moved, or both parts are seen, it is complete).
                self._recheck_at = self.last_motion + wait
                waits_whole = len(verdict.moves) < 2 or any(getattr(m, "penalty", False) for m in verdict.moves)
                self._waited = list(verdict.moves if waits_whole else verdict.moves[-1:])
                if waits_whole:
                    return []
                # A sequence: every ply but the last was answered by the other side, so it is
                # complete; only the last waits. Waiting on all of them let the next hand, or a
                # blind spell, come first again and again (Xiangqi render 1003, ply 82).
                last = verdict.moves[-1]
                verdict.alternatives = [alt[:-1] for alt in verdict.alternatives
                                        if alt[-1] == last and alt[:-1] != verdict.moves[:-1]]
                verdict.moves = verdict.moves[:-1]
            else:
                self._waited = []
            details: dict = {}
            if any(getattr(m, "penalty", False) for m in verdict.moves):
                # A penalty turn in a sequence: seen as an attempt (the hint) or never seen, when
                # which piece crossed is the lift watch's guess at best: the referee may correct it.
                seen = self._attempt_seen()
                details["penalty_seen"] = seen is not None and verdict.moves[0] == seen
                self._pending_penalty = []
            event = self._commit(verdict.moves, timestamp, {**details,
                "margin": round(verdict.margin, 2), "changed": [list(p) for p in verdict.changed],
                "hand_left": self.last_motion,
                "alternatives": [self._write(alt) for alt in verdict.alternatives]})
            if self._evidence is not None:
                again = inf.decide(self.board, self._evidence, max_plies=1, rules=self.rules)
                if again.status == "none":
                    self._legal_look()
            return [event]
        signature = (verdict.status, tuple(verdict.points), tuple(tuple(map(str, c.moves)) for c in verdict.candidates))
        if _same_doubt(signature, self._last_signature):
            return []
        if verdict.status in ("illegal", "ambiguous") and (not _same_doubt(signature, self._doubt)
                                                             or self._doubt_at < self.last_motion):
            # A hand that pauses mid-move (a captured piece already off, the mover still up) shows
            # for a moment a board no legal move explains: a doubt reaches the referee and the
            # LEDs only when a look RECHECK_S later, with nothing moving in between, sees the same
            # (not the full check that may fall on the next frame, nor a pause of an earlier move).
            self._doubt, self._doubt_at = signature, timestamp
            if verdict.status == "illegal" and verdict.penalty:
                # A still board showing a crossing, which the hand may take back before a second
                # look (Cờ Tư Lệnh render 1003, ply 74: seen 1 s, then the turn was recorded as
                # another piece's guessed crossing). Only a hint: no report, no commit.
                self._attempt_glimpsed = verdict.penalty[0]
            return []
        if verdict.status in ("illegal", "ambiguous") and timestamp - self._doubt_at < RECHECK_S - 1e-6:
            self._recheck_at = self._doubt_at + RECHECK_S  # the look that may confirm it, not later
            return []
        missing_only = verdict.missing_only or (verdict.status == "illegal" and self._agreed_missing(verdict))
        if missing_only and not verdict.penalty and timestamp - self.last_motion < MISSING_HOLD_S:
            return []  # most likely a piece in the hand (MISSING_HOLD_S); the lift watch shows it
        self._doubt = None
        self._last_signature = signature
        if verdict.status == "illegal":
            self._pending_penalty = list(verdict.penalty)
            reason = "matches a penalty turn ($)" if verdict.penalty else "no legal move explains these points"
            return [ev.Illegal(verdict.points, timestamp, reason, list(verdict.penalty))]
        if verdict.status == "occluded":
            return [ev.Occluded(verdict.points, timestamp)]
        return [ev.Ambiguous([c.moves for c in verdict.candidates], [c.score for c in verdict.candidates],
                             timestamp, [self._write(c.moves) for c in verdict.candidates])]

    def _hidden_confirms(self, verdict: inf.Verdict, hint) -> inf.Verdict:
        """Judge again with the hidden points the likeliest explanation changes read as they
        show, if each names what it puts there (see HIDDEN_TRUST_S)."""
        evidence = self._evidence
        before = self.rules.view(self.board)
        after = verdict.candidates[0].view
        rows = np.flatnonzero((before != after) & ~evidence.seen).tolist()
        if not rows or any(np.exp(self._hidden[row][after[row]]) < HIDDEN_AGREE for row in rows):
            return verdict
        logp, seen = evidence.logp.copy(), evidence.seen.copy()
        for row in rows:
            logp[row], seen[row] = self._hidden[row], True
        self._evidence = inf.Evidence(self.game, self._classes, self.points, logp, seen)
        return inf.decide(self.board, self._evidence, max_plies=self.max_plies, rules=self.rules, penalty_hint=hint)

    def _after_waited(self, verdict: inf.Verdict, hint) -> inf.Verdict:
        """No legal sequence explains the look: try it from past the moves a less-sure look saw
        and waited on when the next hand came. What that hand did may have hidden their trace
        (Cờ Tư Lệnh render 1007, ply 35: the missile that moved was shot where it landed)."""
        board = self.board.copy()
        for move in self._waited:
            self.rules.push(board, move)
        plies = self.max_plies - len(self._waited)
        after = inf.decide(board, self._evidence, max_plies=plies, rules=self.rules, penalty_hint=hint) \
            if plies > 0 else verdict
        if after.status != "commit":
            return verdict
        return inf.Verdict("commit", moves=[*self._waited, *after.moves], candidates=after.candidates,
                           margin=after.margin, changed=after.changed)

    def _seen_order_first(self, verdict: inf.Verdict) -> None:
        """Of sequences that reach the same position in another order (a blind spell hid the
        order), prefer the one the camera saw part of: one that starts with what an earlier,
        less sure look saw (the move waiting when the next hand came was made first), else one
        that ends with the piece the lift watch last saw in the hand (that move was made last)."""
        if not verdict.alternatives:
            return
        options = [verdict.moves, *verdict.alternatives]
        chosen = None
        if self._waited:
            chosen = next((o for o in options if o[:len(self._waited)] == self._waited), None)
        if chosen is None:
            likely = self._landed_in_order(options)
            if len(likely) == 1:
                chosen = likely[0]
            elif self._lifted_since:
                chosen = next((o for o in likely if o[-1].from_point == self._lifted_since[-1]), None)
        if chosen is not None and chosen is not verdict.moves:
            verdict.alternatives = [o for o in options if o is not chosen]
            verdict.moves = chosen

    def _landed_in_order(self, options: list[list]) -> list[list]:
        """Of sequences that reach the same position, those whose plies the still looks saw land
        in their order, or as near it as any: each ply's time is when the first of the points it
        leaves as they now are took its new look. The lift watch alone misled Cờ Tư Lệnh render
        1001, ply 64: an engineer set down read as the other side's until two more plies were
        made, and the point it left, empty on a board still waiting for the move, was taken for
        a piece in the hand at each of them, so the move was put last."""
        disorder = []
        for moves in options:
            board = self.board.copy()
            views = [self.rules.view(board)]
            for move in moves:
                self.rules.push(board, move)
                views.append(self.rules.view(board))
            times = []
            for k in range(len(moves)):
                kept = views[k] != views[k + 1]
                for later in range(k + 1, len(moves)):
                    kept &= views[later] == views[later + 1]
                stamps = self._landed_at[kept]
                stamps = stamps[stamps > self._committed_at]
                if len(stamps):
                    times.append(float(stamps.min()))
            disorder.append(sum(1 for i, a in enumerate(times) for b in times[i + 1:] if a > b))
        fewest = min(disorder)
        return [moves for moves, count in zip(options, disorder, strict=True) if count == fewest]

    def _attempt_seen(self):
        """The penalty turn a look saw tried: reported as `Illegal`, else one look's glimpse; or None."""
        return self._pending_penalty[0] if self._pending_penalty else self._attempt_glimpsed

    def _penalty_from_lifts(self):
        """A penalty turn (referee mode) of a piece the lift watch saw in the hand since the last
        commit: the likeliest crossing if the camera never saw one, as a hand that puts the piece
        back before it leaves hides it. Its target is one the piece was seen set down on, else the
        one the hand hid most often while it held the piece: to set a piece down, a hand covers
        the point (Cờ Tư Lệnh render 1007, ply 41: the first target listed was recorded, not the
        one tried)."""
        if not self._lifted_since or not getattr(self.board, "referee", False):
            return None
        lifted = set(self._lifted_since)
        turns = [turn for turn in self.board.penalty_turns() if turn.from_point in lifted]
        if not turns:
            return None
        return max(turns, key=lambda turn: (turn.to_point in self._set_down, self._hovered[turn.to_point]))

    def _may_be_half_a_split(self, moves) -> bool:
        """Whether the last of `moves` (Commander Chess) moves one part of a stack, or the stack
        whole, in a single action: the mover may yet take another part elsewhere, the rest of a
        split turn. A split already seen, or a move the opponent followed, is complete."""
        if self.game != "commander" or not moves:
            return False
        board = self.board.copy()
        for move in moves[:-1]:
            self.rules.push(board, move)
        last = moves[-1]
        stack = board.piece_at(last.from_point)
        return stack is not None and len(stack) > 1 and len(getattr(last, "actions", ())) == 1

    def _only_removes(self, moves) -> bool:
        """Whether `moves` only take pieces off (no point comes to show a piece it did not)."""
        board = self.board.copy()
        before = self.rules.view(board)
        for move in moves:
            self.rules.push(board, move)
        after = self.rules.view(board)
        changed = after != before
        return bool(changed.any()) and not bool((after[changed] != self._empty_index).any())

    def _write(self, moves) -> list[str]:
        board = self.board.copy()
        out = []
        for move in moves:
            out.append(self.rules.write(board, move))
            board.push(move)
        return out

    def _less_sure_than_usual(self, margin: float) -> bool:
        if self.game not in HESITATION_WAIT_GAMES:
            return margin < CONFIRM_MARGIN
        if len(self._margins) < SURE_MIN_HISTORY:
            return False
        return margin < SURE_FRACTION * float(np.median(self._margins))

    def _commit(self, moves, timestamp: float, evidence: dict) -> ev.MoveCommitted:
        if "margin" in evidence:
            self._margins.append(evidence["margin"])
        san = self._write(moves)
        for move in moves:
            self.board.push(move)
        self._last_signature = None
        self._press_pending = False
        self._lifted_since = []
        self._committed_at = timestamp
        self._set_down = set()
        self._hovered = Counter()
        self._attempt_glimpsed = None
        log.info("committed %s at %.3f", " ".join(san), timestamp)
        return ev.MoveCommitted(list(moves), san, timestamp, evidence)

    # ------------------------------------------------------------------ start
    def _look_for_start(self, frame: np.ndarray, timestamp: float) -> list[ev.Event]:
        self._settle = _Settle()
        self._gather(frame, everything=True)
        evidence = self._window_evidence()
        self._settle = _Settle()
        if evidence.seen.mean() < 0.9:
            return []
        if not inf.residual(evidence, self.rules.view(self.board)):
            self._start(timestamp)
            return [ev.StartFound(self.board.fen(), timestamp)]
        if self.game == "commander" and not self.board.move_stack:
            found = read_deployment(evidence, self.board)
            if found is not None:
                fen, note = found
                self.board = self.variant.board(fen)
                self._start(timestamp)
                return [ev.StartFound(fen, timestamp, note)]
        self._turn_if_start_reads_turned(evidence)
        return []

    def _turn_if_start_reads_turned(self, evidence: inf.Evidence) -> None:
        """A board found by its printed grid alone may lie the other way round: a grid does not
        say which side is whose, and an empty board (the pieces set up after the camera started)
        could not tell. The start position read on the half-turned points turns the calibration;
        the next still look then finds the start through it."""
        if self.calibration.method != "grid" or self.board.move_stack:
            return
        geometry = self.variant.geometry
        row = {point: index for index, point in enumerate(evidence.points)}
        partner = [row[Point(geometry.files - 1 - p.file, geometry.ranks - 1 - p.rank)] for p in evidence.points]
        turned = inf.Evidence(evidence.game, evidence.classes, evidence.points, evidence.logp[partner],
                              evidence.seen[partner])
        if inf.residual(turned, self.rules.view(self.board)):
            return
        from calibration.grid import half_turned

        log.info("the start position reads the other way round: the grid's calibration is turned half round")
        self.recalibrate(half_turned(self.calibration))

    def _start(self, timestamp: float) -> None:
        self._legal_look()
        self.started = True
        self._settled = True
        self._last_full = timestamp


def _keep_latest(reads: dict[int, list[np.ndarray]], row: int, logp: np.ndarray) -> None:
    """Add a read of `row`, keeping its latest WINDOW_READS (the first still frames may still
    show a hand leaving)."""
    recent = reads.setdefault(row, [])
    recent.append(logp)
    del recent[:-WINDOW_READS]


def _mean_read(reads: list[np.ndarray]) -> np.ndarray:
    """A point's reads over the window as one row of log-probabilities."""
    mean = np.mean(reads, axis=0)
    return mean - np.logaddexp.reduce(mean)


def _same_doubt(signature: tuple, earlier: tuple | None) -> bool:
    """Whether a look's doubt is one seen before: the same, or both illegal with a point in
    common. A wrong move's own points stay, while a neighbour read one way, then the other,
    comes and goes (Cờ Toán render 1005 with the second model: the wrong move after ply 20
    stood 5 s, and no two looks named the same points, so it was never reported)."""
    if earlier is None:
        return False
    if signature == earlier:
        return True
    return signature[0] == earlier[0] == "illegal" and bool(set(signature[1]) & set(earlier[1]))


def _log_rows(probs: np.ndarray) -> np.ndarray:
    probs = np.clip(np.asarray(probs, dtype=np.float64), inf.PROBABILITY_FLOOR, None)
    probs /= probs.sum(axis=1, keepdims=True)
    return np.log(probs)


def read_deployment(evidence: inf.Evidence, template: Board) -> tuple[str, str] | None:
    """A legal Commander Chess custom deployment (§3.3) read from the camera, as (FEN, note),
    or None.

    Each point shows its top piece; a commander may hide inside its HQ, so when one is not
    seen it is tried inside each HQ of its side. When more than one HQ gives a legal
    deployment, the camera cannot tell which hides it: the first is taken and the note says so,
    for the referee to correct (empty when the reading is the only legal one).
    """
    from games import get as get_game
    from games.commander.pieces import BLUE, RED, Kind, Piece
    from games.commander.setups import SetupError, validate_setup

    names = evidence.best_classes()
    placement: dict[Point, list[Piece]] = {}
    for point, name, seen in zip(evidence.points, names, evidence.seen, strict=True):
        if not seen:
            return None
        if name == "empty":
            continue
        side, kind = name.split("_", 1)
        placement[point] = [Piece(Kind[kind.upper()], RED if side == "red" else BLUE)]
    options: list[tuple[dict, dict]] = [(placement, {})]  # a placement, and where commanders hide
    for color in (RED, BLUE):
        if any(stack[0].kind is Kind.COMMANDER and stack[0].color is color for stack in placement.values()):
            continue
        hqs = [p for p, s in placement.items() if s[0].kind is Kind.HEADQUARTERS and s[0].color is color]
        widened = []
        for option, hidden in options:
            for hq in hqs:
                copy = {p: list(s) for p, s in option.items()}
                copy[hq].append(Piece(Kind.COMMANDER, color))
                widened.append((copy, {**hidden, color: hq}))
        options = widened
    legal = []
    for option, hidden in options:
        board = template.copy()
        board.squares = [None] * len(board.squares)
        try:
            for point, pieces in option.items():
                board.set_stack_at(point, pieces)
            fen = board.fen()
            validate_setup(fen)
        except (SetupError, ValueError):
            continue
        legal.append((fen, hidden))
    if not legal:
        return None
    fen, hidden = legal[0]
    notes = []
    name = get_game("commander").geometry.point_name
    for color, hq in hidden.items():
        others = sorted({other[color] for _, other in legal[1:] if other[color] != hq}, key=str)
        if others:
            side = "Red" if color is RED else "Blue"
            notes.append(f"{side}'s commander hides in a headquarters the camera cannot see into: taken as "
                         f"{name(hq)}, it may be {' or '.join(name(p) for p in others)}; the referee may correct it")
    return fen, "; ".join(notes)
