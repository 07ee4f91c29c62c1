from fastapi import APIRouter

from server.api.deps import EventId, ObjectId, RecorderDep
from server.api.schemas import BoardCreated, BoardIn, BoardOut, Problem
from server.app import call
from server.auth import Referee

router = APIRouter(tags=["boards"], responses={422: {"model": Problem}, 404: {"model": Problem}})


@router.get("/api/events/{event_id}/boards", response_model=list[BoardOut])
async def list_boards(event_id: EventId, recorder: RecorderDep):
    return await call(recorder.list_boards, event_id)


@router.post("/api/events/{event_id}/boards", response_model=BoardCreated, status_code=201,
             responses={401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}})
async def create_board(event_id: EventId, body: BoardIn, recorder: RecorderDep, _who: Referee):
    row, key = await call(recorder.create_board, event_id, body.number, body.label)
    return BoardCreated(id=row.id, event_id=row.event_id, number=row.number, label=row.label, station_key=key)


@router.get("/api/boards/{board_id}", response_model=BoardOut)
async def get_board(board_id: ObjectId, recorder: RecorderDep):
    return await call(recorder.get_board, board_id)
