from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import PlainTextResponse, Response

import games
from server.api.deps import GameId, RecorderDep, publish
from server.api.schemas import ClockIn, GameIn, GameOut, Problem, ResultIn, RevisionOut, Snapshot
from server.app import call
from server.auth import Referee
from server.export import pgn
from server.raster import MAX_SCALE, diagram_png
from server.record import position_view
from server.render import diagram

router = APIRouter(tags=["games"], responses={422: {"model": Problem}, 404: {"model": Problem}})
WRITE = {401: {"model": Problem}, 403: {"model": Problem}, 409: {"model": Problem}}


@router.get("/api/games", response_model=list[GameOut])
async def list_games(recorder: RecorderDep, event_id: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None):
    return await call(recorder.list_games, event_id)


@router.post("/api/games", response_model=GameOut, status_code=201, responses=WRITE)
async def create_game(body: GameIn, request: Request, recorder: RecorderDep, _who: Referee):
    row = await call(recorder.create_game, body.variant, body.white, body.black, event_id=body.event_id,
                     round_id=body.round_id, board_id=body.board_id, start_fen=body.start_fen,
                     initial_ms=body.initial_ms, increment_ms=body.increment_ms)
    await publish(request, await call(recorder.snapshot, row.id))
    return row


@router.get("/api/games/{game_id}", response_model=GameOut)
async def get_game(game_id: GameId, recorder: RecorderDep):
    return await call(recorder.get_game, game_id)


@router.get("/api/games/{game_id}/snapshot", response_model=Snapshot)
async def get_snapshot(game_id: GameId, recorder: RecorderDep):
    return await call(recorder.snapshot, game_id)


@router.get("/api/games/{game_id}/audit", response_model=list[RevisionOut])
async def audit(game_id: GameId, recorder: RecorderDep):
    return await call(recorder.audit, game_id)


@router.post("/api/games/{game_id}/clock", response_model=Snapshot, responses=WRITE)
async def adjust_clock(game_id: GameId, body: ClockIn, request: Request, recorder: RecorderDep, who: Referee):
    snapshot = await call(recorder.adjust_clock, game_id, body.white_ms, body.black_ms, reason=body.reason,
                          author=who)
    await publish(request, snapshot)
    return snapshot


@router.post("/api/games/{game_id}/result", response_model=Snapshot, responses=WRITE)
async def set_result(game_id: GameId, body: ResultIn, request: Request, recorder: RecorderDep, who: Referee):
    snapshot = await call(recorder.set_result, game_id, body.result, termination=body.termination,
                          reason=body.reason, author=who)
    await publish(request, snapshot)
    return snapshot


@router.get("/api/games/{game_id}/pgn", response_class=PlainTextResponse)
async def export_pgn(game_id: GameId, recorder: RecorderDep,
                     notation: Annotated[str | None, Query(max_length=20)] = None):
    game = await call(recorder.get_game, game_id)
    moves = await call(recorder.moves, game_id)
    snapshot = await call(recorder.snapshot, game_id)
    event_name, round_number = "?", None
    if game.event_id is not None:
        event_name = (await call(recorder.get_event, game.event_id)).name
    if game.round_id is not None:
        round_number = (await call(recorder.get_round, game.round_id)).number
    text = pgn(game, moves, snapshot, notation=notation, event=event_name, round_number=round_number)
    return PlainTextResponse(text, media_type="application/x-chess-pgn; charset=utf-8")


@router.get("/api/games/{game_id}/fen", response_class=PlainTextResponse)
async def export_fen(game_id: GameId, recorder: RecorderDep):
    return PlainTextResponse((await call(recorder.snapshot, game_id))["fen"])


PlyQuery = Annotated[int | None, Query(ge=0, le=100_000, description="the position after this many moves "
                                                                     "(0: the start); default: the current one")]
ScaleQuery = Annotated[float, Query(ge=0.25, le=MAX_SCALE, description="size relative to the SVG diagram")]
FenQuery = Annotated[str | None, Query(max_length=300, description="a position in the variant's FEN; "
                                                                   "default: the starting position")]
PNG = {200: {"content": {"image/png": {}}, "description": "the diagram as PNG"}}
SVG = {200: {"content": {"image/svg+xml": {}}, "description": "the diagram as SVG"}}


async def _game_position(recorder, game_id: int, ply: int | None) -> dict:
    if ply is None:
        return await call(recorder.snapshot, game_id)  # with the pending ambiguity's candidates
    return await call(recorder.position, game_id, ply)


@router.get("/api/games/{game_id}/diagram.svg", response_class=Response, responses=SVG)
async def export_svg(game_id: GameId, recorder: RecorderDep, labels: bool = True, transparent: bool = False,
                     ply: PlyQuery = None):
    """The position as SVG: now, or after `ply` moves of the record."""
    position = await _game_position(recorder, game_id, ply)
    geometry = games.get(position["variant"]).geometry
    return Response(diagram(geometry, position, labels=labels, transparent=transparent),
                    media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/api/games/{game_id}/diagram.png", response_class=Response, responses=PNG)
async def export_png(game_id: GameId, recorder: RecorderDep, labels: bool = True, transparent: bool = False,
                     ply: PlyQuery = None, scale: ScaleQuery = 1.0):
    """The position as PNG, drawn like the SVG: now, or after `ply` moves of the record."""
    position = await _game_position(recorder, game_id, ply)
    geometry = games.get(position["variant"]).geometry
    png = await call(diagram_png, geometry, position, labels=labels, transparent=transparent, scale=scale)
    return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})


def _variant_position(name: str, fen: str | None) -> tuple[games.Variant, dict]:
    variant = games.get(name)
    return variant, position_view(variant, variant.board(fen or None))


@router.get("/api/variants/{name}/diagram.svg", response_class=Response, responses=SVG)
async def variant_svg(name: Annotated[str, Path(max_length=40)], fen: FenQuery = None, labels: bool = True,
                      transparent: bool = False):
    """Any position of a variant, given by its FEN, as SVG."""
    variant, position = _variant_position(name, fen)
    return Response(diagram(variant.geometry, position, labels=labels, transparent=transparent),
                    media_type="image/svg+xml")


@router.get("/api/variants/{name}/diagram.png", response_class=Response, responses=PNG)
async def variant_png(name: Annotated[str, Path(max_length=40)], fen: FenQuery = None, labels: bool = True,
                      transparent: bool = False, scale: ScaleQuery = 1.0):
    """Any position of a variant, given by its FEN, as PNG."""
    variant, position = await call(_variant_position, name, fen)
    png = await call(diagram_png, variant.geometry, position, labels=labels, transparent=transparent, scale=scale)
    return Response(png, media_type="image/png")


@router.get("/api/variants")
async def list_variants() -> list[dict]:
    known = []
    for name in games.names():
        try:
            variant = games.get(name)
        except games.UnknownGameError:
            continue
        known.append(_variant(variant))
    return known


def _variant(variant: games.Variant) -> dict:
    g = variant.geometry
    return {"name": variant.name, "title": variant.title, "notations": list(variant.notations),
            "default_notation": variant.default_notation, "starting_fen": variant.starting_fen,
            "geometry": {"files": g.files, "ranks": g.ranks, "placement": g.placement,
                         "file_names": list(g.file_names), "rank_names": list(g.rank_names)}}
