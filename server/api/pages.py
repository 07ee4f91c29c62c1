"""The pages: plain HTML and one script, served by the app."""

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from server.api.deps import EventId, GameId

router = APIRouter(include_in_schema=False)


def _page(name: str) -> str:
    return resources.files("server.pages").joinpath(name).read_text(encoding="utf-8")


@router.get("/", response_class=HTMLResponse)
async def index():
    return _page("index.html")


@router.get("/games/{game_id}", response_class=HTMLResponse)
async def live_page(game_id: GameId):
    return _page("live.html")


@router.get("/overlay/{game_id}", response_class=HTMLResponse)
async def overlay_page(game_id: GameId):
    return _page("overlay.html")


@router.get("/events/{event_id}", response_class=HTMLResponse)
async def event_page(event_id: EventId):
    return _page("event.html")


@router.get("/console/{game_id}", response_class=HTMLResponse)
async def console_page(game_id: GameId):
    return _page("console.html")


@router.get("/static/banco.js")
async def script():
    return Response(_page("banco.js"), media_type="text/javascript; charset=utf-8")


@router.get("/static/banco.css")
async def style():
    return Response(_page("banco.css"), media_type="text/css; charset=utf-8")
