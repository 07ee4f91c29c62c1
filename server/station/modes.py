"""A station's clock against the Commander Chess game it records: the mode is in the game.

Commander Chess times the whole game, and its time chooses the mode (D34): 15 minutes for a
battle, 30 for total war. A station started with one ``--time`` must not play a game set up
for the other mode, neither the first it records nor a board's next one.
"""

from __future__ import annotations

import games
from games.base import BancoError


class TimeModeMismatch(BancoError):
    """--time chooses one Commander Chess mode, the server's game is set up for the other."""


def refuse_mode_mismatch(game: str, fen: str, control, where: str) -> None:
    """Raise `TimeModeMismatch` when `control` (``--time``) would play the Commander Chess game at
    `fen` in another mode than the one it is set up for: a 15-minute clock on a total-war game
    would end the game at 15 minutes while the referee's record waits for a commander's capture.
    Any other game, or no --time, passes."""
    if game != "commander" or control is None:
        return
    from server.record import COMMANDER_TOTAL_WAR_MS

    mode = games.get("commander").board(fen).mode.value
    total_war_time = control.base_ms >= COMMANDER_TOTAL_WAR_MS
    if (mode == "war") != total_war_time:
        names = {"battle": "battle mode (15 minutes)", "war": "total war (30 minutes)",
                 "nine": "the 9-piece battle (15 minutes)"}
        raise TimeModeMismatch(f"{where} is set up for {names[mode]}, but --time {control} would play "
                               f"{'total war (30 minutes)' if total_war_time else 'a 15-minute battle'}; give "
                               "the --time of the game's mode, or ask the referee for a game with this time")
