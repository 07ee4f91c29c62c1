from fastapi import APIRouter

from server.api.deps import EventId, RecorderDep
from server.api.schemas import EventIn, EventOut, Problem
from server.app import call
from server.auth import Referee

router = APIRouter(prefix="/api/events", tags=["events"], responses={422: {"model": Problem}})


@router.get("", response_model=list[EventOut])
async def list_events(recorder: RecorderDep):
    return await call(recorder.list_events)


@router.post("", response_model=EventOut, status_code=201, responses={401: {"model": Problem}, 403: {"model": Problem}})
async def create_event(body: EventIn, recorder: RecorderDep, _who: Referee):
    return await call(recorder.create_event, body.name, body.game)


@router.get("/{event_id}", response_model=EventOut, responses={404: {"model": Problem}})
async def get_event(event_id: EventId, recorder: RecorderDep):
    return await call(recorder.get_event, event_id)
