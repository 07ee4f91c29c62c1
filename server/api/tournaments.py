from typing import Annotated

from fastapi import APIRouter, Path

from games.tournament import berger
from server.api.schemas import PairingOut, Problem

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses={422: {"model": Problem}})


@router.get("/berger/{players}", response_model=list[list[PairingOut]])
async def berger_table(players: Annotated[int, Path(ge=3, le=16)]):
    """The seed's Berger schedule: one list of pairings (White first) per round. A bye is written
    as the printed tables write it, with the phantom number N + 1 on either side; `resting`
    names the player who rests."""
    return [[PairingOut(round=p.round, white=p.white, black=p.black, bye=p.bye, resting=p.resting) for p in rnd]
            for rnd in berger(players).rounds]
