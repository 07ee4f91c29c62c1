from fastapi import APIRouter, Request

from server.api.deps import GameId, ObjectId, RecorderDep, publish
from server.api.schemas import AmbiguityIn, CorrectionIn, MoveIn, MoveOut, Problem, ResolveIn, Snapshot
from server.app import call
from server.auth import Referee, Writer

router = APIRouter(tags=["moves"], responses={422: {"model": Problem}, 404: {"model": Problem}})
WRITE = {401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}}


@router.get("/api/games/{game_id}/moves", response_model=list[MoveOut])
async def list_moves(game_id: GameId, recorder: RecorderDep):
    return await call(recorder.moves, game_id)


@router.post("/api/games/{game_id}/moves", response_model=Snapshot, status_code=201, responses=WRITE)
async def commit_move(game_id: GameId, body: MoveIn, request: Request, recorder: RecorderDep, who: Writer):
    """A move played on the board. Stored before it is broadcast; the answer is the new snapshot."""
    snapshot = await call(recorder.commit_move, game_id, body.move, notation=body.notation,
                          white_ms=body.white_ms, black_ms=body.black_ms, evidence_id=body.evidence_id,
                          author=who)
    await publish(request, snapshot)
    return snapshot


@router.post("/api/games/{game_id}/ambiguities", response_model=Snapshot, status_code=201, responses=WRITE)
async def raise_ambiguity(game_id: GameId, body: AmbiguityIn, request: Request, recorder: RecorderDep,
                          who: Writer):
    """The station saw a change that more than one legal move explains."""
    snapshot = await call(recorder.raise_ambiguity, game_id, body.candidates, notation=body.notation,
                          evidence_id=body.evidence_id, author=who)
    await publish(request, snapshot)
    return snapshot


@router.post("/api/games/{game_id}/ambiguities/{ambiguity_id}/resolve", response_model=Snapshot,
             responses=WRITE)
async def resolve_ambiguity(game_id: GameId, ambiguity_id: ObjectId, body: ResolveIn, request: Request,
                            recorder: RecorderDep, who: Referee):
    snapshot = await call(recorder.resolve_ambiguity, game_id, ambiguity_id, body.move, notation=body.notation,
                          reason=body.reason, author=who)
    await publish(request, snapshot)
    return snapshot


@router.post("/api/games/{game_id}/corrections", response_model=Snapshot, responses=WRITE)
async def correct(game_id: GameId, body: CorrectionIn, request: Request, recorder: RecorderDep, who: Referee):
    """Correct, insert or take back moves: a new revision naming who, when and why."""
    snapshot = await call(recorder.correct, game_id, body.action, ply=body.ply, move=body.move,
                          notation=body.notation, reason=body.reason, author=who)
    await publish(request, snapshot)
    return snapshot
