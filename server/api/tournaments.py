from typing import Annotated

from fastapi import APIRouter, Path

from games.tournament import berger
from server.api.schemas import PairingOut, Problem

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses={422: {"model": Problem}})


@router.get("/berger/{players}", response_model=list[list[PairingOut]])
async def berger_table(players: Annotated[int, Path(ge=3, le=16)]):
    """The seed's Berger schedule: one list of pairings (White first) per round."""
    return [[PairingOut(round=p.round, white=p.white, black=p.black, bye=p.bye) for p in rnd]
            for rnd in berger(players).rounds]
