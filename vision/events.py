"""What the camera pipeline tells the rest of banco: one small dataclass per kind of event.

The tracker (`vision.tracker.MoveTracker`) and the frame source (`vision.capture.FrameSource`)
return these; they never touch the game record. The station (or `banco record`) decides
what to do: push the moves of a `MoveCommitted`, show the points of an `Illegal` on the
LEDs, ask the referee about an `Ambiguous`.

Every event has a `kind` (a short stable string, used in JSON and logs), a `timestamp`
(seconds, from the frame source's clock) and `to_json()`.

>>> from games import Point
>>> Illegal([Point(0, 0)], 1.5).to_json()
{'kind': 'illegal', 'timestamp': 1.5, 'points': [[0, 0]], 'reason': '', 'penalty': []}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games import Move, Point


def _points(points: list[Point]) -> list[list[int]]:
    return [[p.file, p.rank] for p in points]


def _point(point: Point) -> list[int]:
    return [point.file, point.rank]


@dataclass
class MoveCommitted:
    """One move, or a short sequence the camera partly missed, that the rules engine accepts.

    `moves` are legal in order from the tracker's current board; `san` are the same moves in
    the game's default notation. `evidence` says why: the log-likelihood margin over the
    runner-up, the points that changed, the alternatives that lead to the same position (each
    written as `san` is).
    The tracker has already advanced its own board; the receiver pushes `moves` to the record.
    """

    moves: list[Move]
    san: list[str]
    timestamp: float
    evidence: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "move"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "san": list(self.san), "evidence": self.evidence}

    def same_position_note(self) -> str | None:
        """When other readings lead to the same position (a capture by another operation, another
        piece firing in place), what the record and the referee are told: the record names the
        likeliest, the referee may change it."""
        others = [" ".join(alt) for alt in (self.evidence or {}).get("alternatives", [])]
        if not others:
            return None
        return f"{' '.join(self.san)} or {', '.join(others)}: the same position, the camera cannot tell which"

    def notes(self) -> list[str]:
        """What the record and the referee are told about how sure the camera is of these moves."""
        return [note for note in (self.same_position_note(), self.unseen_penalty_note()) if note]

    def unseen_penalty_note(self) -> str | None:
        """A penalty turn (Cờ Tư Lệnh referee mode, `$`) among these moves that no look saw tried
        (`evidence["penalty_seen"]` false): the board shows only that the turn passed, so which
        piece crossed the deep water, and where, is the tracker's guess; the referee may correct it."""
        if (self.evidence or {}).get("penalty_seen", True):
            return None
        turns = [text for move, text in zip(self.moves, self.san, strict=False) if getattr(move, "penalty", False)]
        return f"{', '.join(turns)}: a penalty turn the camera did not see tried; which crossing it was is a guess"


@dataclass
class Ambiguous:
    """Several legal moves (or sequences) explain what the camera sees about equally well.

    `candidates` are move lists (best first) and `scores` their log-likelihoods. Nothing is
    committed; the tracker keeps waiting (a clearer view, a referee's choice via `reset`).
    """

    candidates: list[list[Move]]
    scores: list[float]
    timestamp: float
    san: list[list[str]] = field(default_factory=list)
    kind: ClassVar[str] = "ambiguous"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "candidates": self.san,
                "scores": [round(s, 2) for s in self.scores]}


@dataclass
class Illegal:
    """The stable board differs from every legal result at `points`.

    A piece knocked over, a wrong move, a piece put back on the wrong point. Nothing is
    committed; the tracker keeps the last legal position and waits for the board to be put
    right. `penalty` (Commander Chess, referee mode) holds the §6.5 penalty turn (`$`) that
    matches what was seen: a heavy piece that crossed deep water; the referee may push it
    once the piece is back.
    """

    points: list[Point]
    timestamp: float
    reason: str = ""
    penalty: list[Move] = field(default_factory=list)
    kind: ClassVar[str] = "illegal"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "points": _points(self.points),
                "reason": self.reason, "penalty": [str(m) for m in self.penalty]}


@dataclass
class Occluded:
    """The board is still but these points stay hidden (an arm left resting, a cup)."""

    points: list[Point]
    timestamp: float
    kind: ClassVar[str] = "occluded"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "points": _points(self.points)}


@dataclass
class HandOn:
    """Something moves over the board: a hand came in."""

    timestamp: float
    kind: ClassVar[str] = "hand_on"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp}


@dataclass
class HandOff:
    """The board area has been still for the stability window: the hand has left."""

    timestamp: float
    kind: ClassVar[str] = "hand_off"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp}


@dataclass
class PieceLifted:
    """While a hand is over the board, the point of a piece of the side to move reads empty:
    the piece is in the hand (the LEDs show where it may go). A `LiftEnded` follows."""

    point: Point
    timestamp: float
    kind: ClassVar[str] = "lifted"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "point": _point(self.point)}


@dataclass
class LiftEnded:
    """The piece of a `PieceLifted` is no longer in the hand: put back, or the hand has left
    the board (its move, if any, is judged now)."""

    point: Point
    timestamp: float
    kind: ClassVar[str] = "lift_ended"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "point": _point(self.point)}


@dataclass
class StartFound:
    """The camera recognised a start position (the standard one, or a legal custom deployment).

    The tracker tracks from `fen` from now on; the receiver starts its record there. `note`
    says what the camera could not tell (a commander hidden in one of two headquarters), for
    the referee; empty when nothing.
    """

    fen: str
    timestamp: float = 0.0
    note: str = ""
    kind: ClassVar[str] = "start"

    def to_json(self) -> dict[str, Any]:
        data = {"kind": self.kind, "timestamp": self.timestamp, "fen": self.fen}
        if self.note:
            data["note"] = self.note
        return data


@dataclass
class Adapted:
    """The classifier adapted itself to the set on the board from a look at the start position
    (`vision.adapt`): `summary` says how much better it reads points it did not learn from."""

    timestamp: float
    summary: str
    report: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "adapted"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "summary": self.summary, "report": self.report}


@dataclass
class BoardMoved:
    """The board moved under the camera (someone knocked it): it was found again `drift_px`
    away, by its markers or by its printed grid (`found_by`), and the tracker reads the points
    where they are now."""

    timestamp: float
    drift_px: float
    found_by: str = "markers"
    kind: ClassVar[str] = "board_moved"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "drift_px": round(self.drift_px, 1),
                "found_by": self.found_by}

    def note(self) -> str:
        """What the record and the referee are told."""
        how = "its markers" if self.found_by == "markers" else "its printed grid"
        return f"the board moved ({self.drift_px:.0f} px); found again by {how}"


@dataclass
class CameraLost:
    """The frame source stopped giving frames; it is trying to reconnect."""

    timestamp: float
    source: str = ""
    reason: str = ""
    kind: ClassVar[str] = "camera_lost"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "source": self.source, "reason": self.reason}


@dataclass
class CameraBack:
    """The frame source gives frames again after a `CameraLost`."""

    timestamp: float
    source: str = ""
    kind: ClassVar[str] = "camera_back"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "timestamp": self.timestamp, "source": self.source}


Event = (MoveCommitted | Ambiguous | Illegal | Occluded | HandOn | HandOff | PieceLifted | LiftEnded | StartFound
         | Adapted | BoardMoved | CameraLost | CameraBack)
