"""Who may write: the referee (a bearer token) and each board's station (its own key)."""

from __future__ import annotations

import secrets
from typing import Annotated
from urllib.parse import unquote

from fastapi import Depends, Header, HTTPException, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

_bearer = HTTPBearer(auto_error=False, description="the referee token")

Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
StationKey = Annotated[str | None, Header(alias="X-Station-Key", description="a board's station key")]
RefereeName = Annotated[str | None, Header(alias="X-Referee-Name", max_length=100,
                                           description="who is acting, for the audit log")]


def _who(name: str | None) -> str:
    """'referee', with the name the console sent (percent-encoded, as headers are Latin-1)."""
    name = unquote(name or "").strip()
    printable = "".join(char for char in name if char.isprintable())
    return f"referee {printable}" if printable else "referee"


def _is_referee(request: Request, credentials: HTTPAuthorizationCredentials | None) -> bool:
    token = request.app.state.settings.referee_token
    return credentials is not None and secrets.compare_digest(credentials.credentials.encode(), token.encode())


def require_referee(request: Request, credentials: Credentials, referee_name: RefereeName = None) -> str:
    if credentials is None:
        raise HTTPException(401, "a referee token is required (Authorization: Bearer …)",
                            headers={"WWW-Authenticate": "Bearer"})
    if not _is_referee(request, credentials):
        raise HTTPException(403, "the referee token is not valid")
    return _who(referee_name)


def require_station_or_referee(request: Request, credentials: Credentials,
                               game_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
                               station_key: StationKey = None, referee_name: RefereeName = None) -> str:
    """The referee, or the station of the board this game is played on."""
    if credentials is not None and _is_referee(request, credentials):
        return _who(referee_name)
    if station_key:
        if request.app.state.recorder.station_may_write(game_id, station_key):
            return "station"
        raise HTTPException(403, f"the station key is not the key of game {game_id}'s board")
    if credentials is not None:
        raise HTTPException(403, "the referee token is not valid")
    # A game that does not exist is a 404 whatever the key, none included (server/README.md).
    request.app.state.recorder.get_game(game_id)
    raise HTTPException(401, "a station key (X-Station-Key) or a referee token is required",
                        headers={"WWW-Authenticate": "Bearer"})


Referee = Annotated[str, Depends(require_referee)]
Writer = Annotated[str, Depends(require_station_or_referee)]
