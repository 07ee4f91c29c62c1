"""Request and response bodies. Limits here keep bad input out before it reaches the record."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

MAX_ID = 2**31 - 1


def _printable(text: str) -> str:
    for index, char in enumerate(text):
        if ord(char) < 32 and char not in "\t\n":
            raise ValueError(f"control character {char!r} at position {index}")
    return text


def Text(max_length: int, min_length: int = 0):  # noqa: N802 - a type factory reads like a type
    return Annotated[str, Field(min_length=min_length, max_length=max_length), AfterValidator(_printable)]


Id = Annotated[int, Field(ge=1, le=MAX_ID)]
Millis = Annotated[int, Field(ge=0, le=100 * 3600 * 1000)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventIn(Strict):
    name: Text(200, 1)
    game: Text(40, 1) = "xiangqi"


class EventOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    name: str
    game: str
    created_at: datetime


class RoundIn(Strict):
    number: Annotated[int, Field(ge=1, le=100)]


class RoundOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    event_id: int
    number: int


class BoardIn(Strict):
    number: Annotated[int, Field(ge=1, le=1000)]
    label: Text(200) = ""


class BoardOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    event_id: int
    number: int
    label: str


class BoardCreated(BoardOut):
    station_key: str = Field(description="shown once: the station sends it as X-Station-Key")


class GameIn(Strict):
    variant: Text(40, 1) = "xiangqi"
    white: Text(200) = ""
    black: Text(200) = ""
    event_id: Id | None = None
    round_id: Id | None = None
    board_id: Id | None = None
    start_fen: Text(200, 1) | None = None
    initial_ms: Millis | None = None
    increment_ms: Millis = 0


class GameOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    variant: str
    white: str
    black: str
    event_id: int | None
    round_id: int | None
    board_id: int | None
    start_fen: str
    initial_ms: int | None
    increment_ms: int
    result: str
    termination: str | None
    white_number: int | None = None
    black_number: int | None = None


class PlayerIn(Strict):
    name: Text(200, 1)
    number: Annotated[int, Field(ge=1, le=16)] | None = None


class PlayerOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    event_id: int
    number: int
    name: str


class ScheduleIn(Strict):
    initial_ms: Millis | None = None
    increment_ms: Millis = 0


class StandingOut(BaseModel):
    rank: int
    number: int
    name: str
    points: float
    sonneborn_berger: float
    wins: int
    games: int
    tied_for_lots: bool


class MoveIn(Strict):
    move: Text(80, 1)
    notation: Text(20, 1) | None = None
    white_ms: Millis | None = None
    black_ms: Millis | None = None
    evidence_id: Text(200) | None = None


class MoveOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    ply: int
    text: str
    notation: str
    white_ms: int | None
    black_ms: int | None
    evidence_id: str | None
    revision_id: int
    created_at: datetime


class AmbiguityIn(Strict):
    candidates: Annotated[list[Text(80, 1)], Field(min_length=2, max_length=50)]
    notation: Text(20, 1) | None = None
    evidence_id: Text(200) | None = None


class ResolveIn(Strict):
    move: Text(80, 1)
    notation: Text(20, 1) | None = None
    reason: Text(1000) = ""


class CorrectionIn(Strict):
    action: Literal["correct", "insert", "takeback"]
    ply: Annotated[int, Field(ge=1, le=10000)] | None = None
    move: Text(80, 1) | None = None
    notation: Text(20, 1) | None = None
    reason: Text(1000, 1)


class ClockIn(Strict):
    white_ms: Millis
    black_ms: Millis
    reason: Text(1000) = ""


class ResultIn(Strict):
    result: Literal["1-0", "0-1", "1/2-1/2", "*"]
    termination: Text(40, 1) | None = None
    reason: Text(1000) = ""


class RevisionOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    number: int
    kind: str
    author: str
    reason: str
    detail: dict[str, Any]
    white_ms: int | None
    black_ms: int | None
    created_at: datetime


class Snapshot(BaseModel):
    """The whole state of a game at one revision; the live feed sends these."""

    model_config = ConfigDict(extra="allow")
    seq: int
    revision: int
    game_id: int
    variant: str
    fen: str
    turn: str
    ply: int
    last_move: dict[str, Any] | None = Field(description="text, from, to, formatted (every notation), "
                                                         "number and color (w/b): '1.' or '1...'")
    first_move: dict[str, Any] | None = Field(None, description="the record's first move number and side")
    moves: dict[str, list[str]]
    clocks: dict[str, Any]
    result: str
    termination: str | None


class PairingOut(BaseModel):
    round: int
    white: int
    black: int
    bye: bool
    resting: int | None = None  # with a bye: the player who rests (the other number is the phantom N + 1)


class Problem(BaseModel):
    detail: Any


class MatchIn(Strict):
    """Two players (an event player's number, or a name), the agreed number of games, and who
    moves first in game 1 ("A" or "B"), as the lots decided."""

    a: Annotated[int, Field(ge=1, le=16)] | Text(200, 1)
    b: Annotated[int, Field(ge=1, le=16)] | Text(200, 1)
    games: Annotated[int, Field(ge=1, le=99)] = 3
    first: Literal["A", "B"] = "A"
    round_id: Id | None = None
    board_id: Id | None = None
    initial_ms: Millis | None = None
    increment_ms: Millis = 0


class MatchPointsIn(Strict):
    """Points of one game of a match, for a game scored off the board."""

    a: Annotated[int, Field(ge=0, le=100_000)]
    b: Annotated[int, Field(ge=0, le=100_000)]
    reason: Text(1000) = ""


class MatchGameOut(BaseModel):
    number: int
    game_id: int
    white: str
    black: str
    first: Literal["A", "B"]
    result: str
    termination: str | None
    winner: Literal["A", "B"] | None
    points_a: int | None
    points_b: int | None
    absolute: bool


class MatchScoreOut(BaseModel):
    games_a: int
    games_b: int
    points_a: int
    points_b: int
    played: int
    length: int
    winner: Literal["A", "B"] | None
    winner_name: str | None
    decided: bool
    next_first: Literal["A", "B"] | None
    next_first_name: str | None
    reason: str


class MatchOut(BaseModel):
    id: int
    event_id: int
    round_id: int | None
    board_id: int | None
    variant: str
    a: str
    b: str
    number_a: int | None
    number_b: int | None
    length: int
    first: Literal["A", "B"]
    games: list[MatchGameOut]
    score: MatchScoreOut
