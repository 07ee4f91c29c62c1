"""The pages: plain HTML and one script, served by the app."""

from html import escape
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from server.api.deps import EventId, GameId, RecorderDep
from server.app import call
from server.record import NotFoundError

router = APIRouter(include_in_schema=False)


def _page(name: str) -> str:
    return resources.files("server.pages").joinpath(name).read_text(encoding="utf-8")


async def _existing(page: str, lookup, ident: int, what: str):
    """The page, or a 404 page that says so: a mistyped id must not look like a board waiting to start."""
    try:
        await call(lookup, ident)
    except NotFoundError as error:
        words = {"game": "ván", "event": "giải"}[what]
        return HTMLResponse(f"""<!doctype html><html lang="vi"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>banco — không có {words} {ident}</title>
<link rel="stylesheet" href="/static/banco.css"></head><body><main><h1>Không có {words} số {ident}</h1>
<p>{escape(str(error))}. <a href="/">Các ván đang có / all games</a></p></main></body></html>""", status_code=404)
    return _page(page)


@router.get("/", response_class=HTMLResponse)
async def index():
    return _page("index.html")


@router.get("/games/{game_id}", response_class=HTMLResponse)
async def live_page(game_id: GameId, recorder: RecorderDep):
    return await _existing("live.html", recorder.get_game, game_id, "game")


@router.get("/overlay/{game_id}", response_class=HTMLResponse)
async def overlay_page(game_id: GameId, recorder: RecorderDep):
    return await _existing("overlay.html", recorder.get_game, game_id, "game")


@router.get("/events/{event_id}", response_class=HTMLResponse)
async def event_page(event_id: EventId, recorder: RecorderDep):
    return await _existing("event.html", recorder.get_event, event_id, "event")


@router.get("/console/{game_id}", response_class=HTMLResponse)
async def console_page(game_id: GameId, recorder: RecorderDep):
    return await _existing("console.html", recorder.get_game, game_id, "game")


@router.get("/static/banco.js")
async def script():
    return Response(_page("banco.js"), media_type="text/javascript; charset=utf-8")


@router.get("/static/banco.css")
async def style():
    return Response(_page("banco.css"), media_type="text/css; charset=utf-8")
