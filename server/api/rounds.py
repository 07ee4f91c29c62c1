from fastapi import APIRouter

from server.api.deps import EventId, ObjectId, RecorderDep
from server.api.schemas import GameOut, Problem, RoundIn, RoundOut
from server.app import call
from server.auth import Referee

router = APIRouter(tags=["rounds"], responses={422: {"model": Problem}, 404: {"model": Problem}})


@router.get("/api/events/{event_id}/rounds", response_model=list[RoundOut])
async def list_rounds(event_id: EventId, recorder: RecorderDep):
    return await call(recorder.list_rounds, event_id)


@router.post("/api/events/{event_id}/rounds", response_model=RoundOut, status_code=201,
             responses={401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}})
async def create_round(event_id: EventId, body: RoundIn, recorder: RecorderDep, _who: Referee):
    return await call(recorder.create_round, event_id, body.number)


@router.get("/api/rounds/{round_id}", response_model=RoundOut)
async def get_round(round_id: ObjectId, recorder: RecorderDep):
    return await call(recorder.get_round, round_id)


@router.get("/api/rounds/{round_id}/games", response_model=list[GameOut])
async def round_games(round_id: ObjectId, recorder: RecorderDep):
    await call(recorder.get_round, round_id)
    return await call(recorder.list_games, None, round_id)
