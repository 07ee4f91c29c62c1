"""Matches between two players: Commander Chess (3–5 games) and Cờ Toán (1, 3, 5 … games)."""

from fastapi import APIRouter, Request

from server.api.deps import EventId, ObjectId, publish
from server.api.schemas import GameOut, MatchIn, MatchOut, MatchPointsIn, Problem
from server.app import call
from server.auth import Referee

router = APIRouter(tags=["tournaments"], responses={422: {"model": Problem}, 404: {"model": Problem}})
WRITE = {401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}}


def _matches(request: Request):
    return request.app.state.matches


@router.post("/api/events/{event_id}/matches", response_model=MatchOut, status_code=201, responses=WRITE)
async def create_match(event_id: EventId, body: MatchIn, request: Request, _who: Referee):
    """A match of the event's game between A and B; `first` moves first in game 1 (by lot)."""
    return await call(_matches(request).create, event_id, body.a, body.b, body.games, body.first,
                      round_id=body.round_id, board_id=body.board_id, initial_ms=body.initial_ms,
                      increment_ms=body.increment_ms)


@router.get("/api/events/{event_id}/matches", response_model=list[MatchOut])
async def list_matches(event_id: EventId, request: Request):
    return await call(_matches(request).list, event_id)


@router.get("/api/matches/{match_id}", response_model=MatchOut)
async def get_match(match_id: ObjectId, request: Request):
    """The match's games with their winners and points, and the score: games won, then points
    (Commander Chess), or games won unless a 0 was captured (Cờ Toán)."""
    return await call(_matches(request).describe, match_id)


@router.post("/api/matches/{match_id}/games", response_model=GameOut, status_code=201, responses=WRITE)
async def next_game(match_id: ObjectId, request: Request, _who: Referee):
    """The match's next game, with the side to move that the rules give it (the previous loser,
    Commander Chess; alternating, Cờ Toán). Refused while a game has no result or once decided."""
    matches = _matches(request)
    game = await call(matches.next_game, match_id)
    await publish(request, await call(matches.recorder.snapshot, game.id))
    return game


@router.post("/api/matches/{match_id}/games/{number}/points", response_model=MatchOut, responses=WRITE)
async def enter_points(match_id: ObjectId, number: ObjectId, body: MatchPointsIn, request: Request, who: Referee):
    """The points of a game scored off the board (else they are read from the board): a
    `points` revision of that game, in its audit with who entered them, why, and the points
    they replace; its snapshot goes to the game's and the event's viewers."""
    match, snapshot = await call(_matches(request).enter_points, match_id, number, body.a, body.b,
                                 reason=body.reason, author=who)
    await publish(request, snapshot)
    return match
