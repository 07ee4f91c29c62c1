from typing import Annotated

from fastapi import APIRouter, Query, Request

from server.api.deps import EventId
from server.api.schemas import GameOut, PlayerIn, PlayerOut, Problem, ScheduleIn, StandingOut
from server.app import call
from server.auth import Referee

router = APIRouter(tags=["tournaments"], responses={422: {"model": Problem}, 404: {"model": Problem}})
WRITE = {401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}}


def _tournament(request: Request):
    return request.app.state.tournament


@router.get("/api/events/{event_id}/players", response_model=list[PlayerOut])
async def list_players(event_id: EventId, request: Request):
    return await call(_tournament(request).players, event_id)


@router.post("/api/events/{event_id}/players", response_model=PlayerOut, status_code=201, responses=WRITE)
async def add_player(event_id: EventId, body: PlayerIn, request: Request, _who: Referee):
    return await call(_tournament(request).add_player, event_id, body.name, body.number)


@router.post("/api/events/{event_id}/schedule", response_model=list[GameOut], status_code=201, responses=WRITE)
async def make_schedule(event_id: EventId, body: ScheduleIn, request: Request, _who: Referee):
    """Every round and game of the seed's Berger table for the event's players (3–16)."""
    return await call(_tournament(request).schedule, event_id, body.initial_ms, body.increment_ms)


@router.get("/api/events/{event_id}/standings", response_model=list[StandingOut])
async def get_standings(event_id: EventId, request: Request,
                        after_round: Annotated[int | None, Query(ge=1, le=100)] = None):
    """Points, then Sonneborn-Berger, wins, the game between the tied players, then lots."""
    rows, names = await call(_tournament(request).standings, event_id, after_round)
    return [StandingOut(rank=r.rank, number=r.player, name=names.get(r.player, ""), points=float(r.points),
                        sonneborn_berger=float(r.sonneborn_berger), wins=r.wins, games=r.games,
                        tied_for_lots=r.tied_for_lots) for r in rows]
