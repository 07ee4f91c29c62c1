"""A match of 3–5 games (§12.5): lots for game 1, then the previous loser moves first (§4.2).

>>> from games.commander.board import GameResult
>>> from games.base import Termination
>>> match = Match(games=3, first=RED)
>>> match.first_mover is RED
True
>>> match.record(GameResult(Termination.POINTS, RED, {RED: 50, BLUE: 20}, {RED: 0, BLUE: 0}, {RED: (), BLUE: ()}))
>>> match.first_mover is BLUE   # Blue lost, so Blue moves first
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.base import Color, GameOverError
from games.commander.board import NINE_PIECE_FEN, STARTING_FEN, Board, GameResult, Mode
from games.commander.pieces import BLUE, RED


@dataclass
class Match:
    """Play `games` games (3 to 5); the first mover of game 1 is drawn by lot (a parameter, D33)."""

    games: int = 3
    first: Color = RED
    mode: Mode = Mode.BATTLE
    results: list[tuple[Color, GameResult]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 3 <= self.games <= 5:
            raise ValueError(f"a match has 3 to 5 games, not {self.games}")
        self._next = self.first

    @property
    def first_mover(self) -> Color:
        """Who moves first in the next game: the loser of the last one. After a draw, the side
        that moved second moves first [decision: the seed is silent on draws]."""
        return self._next

    def new_board(self, fen: str | None = None) -> Board:
        if self.is_over():
            raise GameOverError("the match is over")
        start = fen or (NINE_PIECE_FEN if self.mode is Mode.NINE_PIECE else STARTING_FEN)
        board = Board(start, mode=self.mode)
        board.turn = self._next
        board._cache.clear()
        return board

    def record(self, result: GameResult) -> None:
        if self.is_over():
            raise GameOverError("the match is over")
        self.results.append((self._next, result))
        self._next = self._next.other if result.winner is None else result.winner.other

    def wins(self, color: Color) -> int:
        return sum(1 for _, r in self.results if r.winner is color)

    def points(self, color: Color) -> int:
        return sum(r.points[color] for _, r in self.results)

    def is_over(self) -> bool:
        """All games played, or one side has won more than half of them."""
        return len(self.results) >= self.games or max(self.wins(RED), self.wins(BLUE)) * 2 > self.games

    def winner(self) -> Color | None:
        """More game wins; equal wins: more total points [decision]; else a draw."""
        if not self.is_over():
            return None
        red, blue = self.wins(RED), self.wins(BLUE)
        if red != blue:
            return RED if red > blue else BLUE
        red, blue = self.points(RED), self.points(BLUE)
        return None if red == blue else (RED if red > blue else BLUE)
