"""A match of 1, 3, 5, 7 … games (seed 002, "Kết thúc trò chơi").

"Nếu chơi nhiều ván chơi, tính trên tổng số ván thắng để tính thắng – thua. Nhưng trong quá
trình thi đấu, bên nào bị đối phương bắt quân số 0 là bị xử thua tuyệt đối – dù trước đó đang
dẫn trước 1-2-3-4-… ván." — the most games won takes the match, but a player whose 0 is
captured loses the whole match at once, however far ahead before.

>>> match = Match(("An", "Bình"), games=3)
>>> match.white_in(1), match.white_in(2)
('An', 'Bình')
>>> match.is_over(), match.winner()
(False, None)
"""

from __future__ import annotations

from dataclasses import dataclass

from games.base import WHITE, GameOverError, Outcome, Termination
from games.cotoan.board import Board
from games.cotoan.options import GameOptions, InvalidOptionError


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a match: who had White, how it ended, the points (White's first)."""

    number: int
    white: str
    black: str
    outcome: Outcome
    scores: tuple[int, int]

    @property
    def winner(self) -> str | None:
        if self.outcome.winner is None:
            return None
        return self.white if self.outcome.winner is WHITE else self.black

    @property
    def loser(self) -> str | None:
        winner = self.winner
        if winner is None:
            return None
        return self.black if winner == self.white else self.white

    @property
    def zero_captured(self) -> bool:
        return self.outcome.termination is Termination.ZERO_CAPTURED

    def points(self, player: str) -> int:
        return self.scores[0] if player == self.white else self.scores[1]

    def __str__(self) -> str:
        how = "absolutely (0 captured)" if self.zero_captured else self.outcome.termination.value
        white, black = self.scores
        if self.winner is None:
            return f"game {self.number}: {self.white} and {self.black} draw {white}-{black}"
        win, lose = (white, black) if self.winner == self.white else (black, white)
        return f"game {self.number}: {self.winner} beats {self.loser} {win}-{lose}, {how}"


class Match:
    """Games between two players under the same options; colours alternate, the first named
    player taking White in game 1.

    The match ends after its agreed number of games, or at once when a 0 is captured: that
    player loses the match. Otherwise the most games won takes it; equal wins are a drawn match.
    """

    def __init__(self, players: tuple[str, str] = ("A", "B"), games: int = 1,
                 options: GameOptions | None = None) -> None:
        if isinstance(games, bool) or not isinstance(games, int) or games < 1 or games % 2 == 0:
            raise InvalidOptionError(f"a match has an odd number of games (1, 3, 5, 7 …), not {games!r}")
        if len(players) != 2 or players[0] == players[1]:
            raise InvalidOptionError(f"a match needs two different players, not {players!r}")
        self.players = (str(players[0]), str(players[1]))
        self.length = games
        self.options = options or GameOptions()
        self.games: list[GameRecord] = []

    def white_in(self, number: int) -> str:
        """The player with White in game `number` (1-based)."""
        return self.players[(number - 1) % 2]

    def new_board(self) -> Board:
        """The start position of the next game under the match's options."""
        if self.is_over():
            raise GameOverError(f"the match is over: {self.summary()}")
        return Board.new_game(self.options)

    def record(self, board: Board, *, stop: bool = False) -> GameRecord:
        """Add the game played on `board` as the next game; ``stop=True`` ends it on points now."""
        if self.is_over():
            raise GameOverError(f"the match is over: {self.summary()}")
        agreed = (self.options.operations, self.options.target)
        if (board.options.operations, board.options.target) != agreed:
            raise InvalidOptionError(
                f"the game was played with operations {board.options.operations} and target "
                f"{board.options.target}, the match agreed {agreed[0]} and {agreed[1]}")
        outcome = board.outcome(stop=stop)
        if outcome is None:
            raise GameOverError("the game is still going on; pass stop=True to end it on points")
        number = len(self.games) + 1
        white = self.white_in(number)
        black = self.players[1] if white == self.players[0] else self.players[0]
        game = GameRecord(number, white, black, outcome, board.scores)
        self.games.append(game)
        return game

    def wins(self, player: str) -> int:
        return sum(1 for game in self.games if game.winner == player)

    def _zero_loss(self) -> GameRecord | None:
        return next((game for game in self.games if game.zero_captured), None)

    def is_over(self) -> bool:
        return self._zero_loss() is not None or len(self.games) >= self.length

    def winner(self) -> str | None:
        """The match winner once it is over; None while it goes on or when it is drawn."""
        lost_zero = self._zero_loss()
        if lost_zero is not None:
            return lost_zero.winner
        if len(self.games) < self.length:
            return None
        first, second = (self.wins(player) for player in self.players)
        if first == second:
            return None
        return self.players[0] if first > second else self.players[1]

    def summary(self) -> str:
        lines = [str(game) for game in self.games]
        first, second = self.players
        tally = f"{first} {self.wins(first)} – {self.wins(second)} {second}"
        if not self.is_over():
            return "; ".join(lines + [f"{tally}, match goes on"])
        winner = self.winner()
        if self._zero_loss() is not None:
            verdict = f"{winner} wins the match: a 0 was captured"
        else:
            verdict = f"{winner} wins the match" if winner else "the match is drawn"
        return "; ".join(lines + [tally, verdict])
