"""Matches of several games between two players: Commander Chess and Cờ Toán.

The scoring is the rules engine's (`games.tournament.commander_match`, `cotoan_match`); this
module keeps the matches in the database, creates each next game with the right side to move,
and reads every finished game's winner and points from the record.

- Commander Chess (COMMANDER_RULES.md §4.2, §12.5): 3 to 5 games; lots give game 1's first
  move, then the loser of the previous game moves first. Player A keeps Red and B Blue for the
  whole match; who moves first is the start position's side to move, as the engine's own
  `games.commander.match.Match` does [decision].
- Cờ Toán (games/cotoan/RULES.md D23–D26): 1, 3, 5, 7 … games; the players take turns to have
  White (who moves first); every game is played, and a player whose 0 is captured loses the
  match at once.

A game's points are its board's: Commander Chess captured values plus battle bonuses
(`Board.result().points`, or the captures so far when the referee ended it), Cờ Toán the
captured face values. For a game scored off the board, the referee enters the points.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

import games
from games.base import Color, Termination
from games.tournament import MatchGame, MatchScore, commander_match, cotoan_match
from server.record import ConflictError, NotFoundError, Recorder, RecordError, timed_start_fen
from server.store import BoardRow, Event, GameRow, Match, Player, Round

MATCH_GAMES = {"commander": commander_match, "cotoan": cotoan_match}
ABSOLUTE = {Termination.COMMANDER_CAPTURED.value, Termination.ZERO_CAPTURED.value}


def _other(side: str) -> str:
    return "B" if side == "A" else "A"


class Matches:
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.sessions = recorder.sessions

    # --- creating ------------------------------------------------------------------------

    def create(self, event_id: int, a: int | str, b: int | str, length: int, first: str = "A", *,
               round_id: int | None = None, board_id: int | None = None, initial_ms: int | None = None,
               increment_ms: int = 0) -> dict[str, Any]:
        """A match between `a` and `b` (an event player's number, or a name); `first` ("A" or
        "B") moves first in game 1, as the lots drawn before the match decided."""
        if first not in ("A", "B"):
            raise RecordError(f"first must be 'A' or 'B' (who moves first in game 1), not {first!r}")
        with self.sessions.begin() as session:
            event = session.get(Event, event_id)
            if event is None:
                raise NotFoundError(f"no event with id {event_id}")
            scorer = MATCH_GAMES.get(event.game)
            if scorer is None:
                raise RecordError(f"matches are scored for Commander Chess (3 to 5 games) and Cờ Toán (1, 3, 5 … "
                                  f"games); event {event_id} plays {event.game}")
            scorer([], length)  # a TournamentError names the lengths the game allows
            (name_a, number_a), (name_b, number_b) = (self._player(session, event_id, who) for who in (a, b))
            same = number_a == number_b if number_a is not None and number_b is not None else name_a == name_b
            if same:
                raise RecordError(f"a match needs two different players, got {name_a!r} twice")
            if round_id is not None:
                rnd = session.get(Round, round_id)
                if rnd is None or rnd.event_id != event_id:
                    raise RecordError(f"round {round_id} is not a round of event {event_id}")
            if board_id is not None:
                physical = session.get(BoardRow, board_id)
                if physical is None or physical.event_id != event_id:
                    raise RecordError(f"board {board_id} is not a board of event {event_id}")
            row = Match(event_id=event_id, round_id=round_id, board_id=board_id, player_a=name_a, player_b=name_b,
                        number_a=number_a, number_b=number_b, length=length, first=first, initial_ms=initial_ms,
                        increment_ms=increment_ms)
            session.add(row)
            session.flush()
            match_id = row.id
        return self.describe(match_id)

    @staticmethod
    def _player(session, event_id: int, who: int | str) -> tuple[str, int | None]:
        if isinstance(who, int):
            player = session.scalar(select(Player).where(Player.event_id == event_id, Player.number == who))
            if player is None:
                raise RecordError(f"event {event_id} has no player number {who}")
            return player.name, player.number
        name = who.strip()
        if not name:
            raise RecordError("a player's name must not be empty")
        # A registered player's name stands for that player (standings and tables by number); a
        # name no player of the event has is a player from outside its list.
        numbers = session.scalars(select(Player.number).where(Player.event_id == event_id,
                                                              Player.name == name)).all()
        if len(numbers) > 1:
            raise RecordError(f"event {event_id} has {len(numbers)} players named {name!r} (numbers "
                              f"{', '.join(map(str, sorted(numbers)))}): give the player's number")
        return name, numbers[0] if numbers else None

    def next_game(self, match_id: int) -> GameRow:
        """Create the match's next game, with the side to move the rules give it."""
        with self.sessions() as session:
            match = self._get(session, match_id)
            event = session.get(Event, match.event_id)
            played = list(session.scalars(select(GameRow).where(GameRow.match_id == match_id)
                                          .order_by(GameRow.match_game)))
        if any(game.result == "*" for game in played):
            running = next(game for game in played if game.result == "*")
            raise ConflictError(f"game {running.match_game} of match {match_id} (game id {running.id}) has no "
                                "result yet; set it before the next game")
        score = self._score(match, event.game, played)
        if score.decided:
            raise ConflictError(f"match {match_id} is over: {score.reason}")
        number = len(played) + 1
        mover = score.next_first
        variant = games.get(event.game)
        if event.game == "commander":
            white, black = match.player_a, match.player_b
            # The time control chooses battle or total war (as for every new game), then the side.
            fen = (timed_start_fen(event.game, match.initial_ms) or variant.starting_fen).split()
            fen[1] = "r" if mover == "A" else "b"  # A keeps Red; the first mover is the side to move
            start_fen = " ".join(fen)
            numbers = (match.number_a, match.number_b)
        else:
            white, black = (match.player_a, match.player_b) if mover == "A" else (match.player_b, match.player_a)
            start_fen = None
            numbers = (match.number_a, match.number_b) if mover == "A" else (match.number_b, match.number_a)
        try:
            return self.recorder.create_game(
                event.game, white, black, event_id=match.event_id, round_id=match.round_id, board_id=match.board_id,
                start_fen=start_fen, initial_ms=match.initial_ms, increment_ms=match.increment_ms,
                white_number=numbers[0], black_number=numbers[1], match_id=match_id, match_game=number)
        except IntegrityError:  # (match_id, match_game) is unique: another request created it first
            raise ConflictError(f"game {number} of match {match_id} was created meanwhile") from None

    def enter_points(self, match_id: int, number: int, points_a: int, points_b: int, *, reason: str = "",
                     author: str = "referee") -> tuple[dict[str, Any], dict[str, Any]]:
        """The referee's points for game `number` of the match, for a game scored off the board:
        a revision of that game (who, why, and the points it replaces). Returns the match and
        the game's snapshot."""
        if points_a < 0 or points_b < 0:
            raise RecordError(f"points must not be negative (A {points_a}, B {points_b})")
        with self.sessions() as session:
            match = self._get(session, match_id)
            game = session.scalar(select(GameRow).where(GameRow.match_id == match_id, GameRow.match_game == number))
            if game is None:
                raise NotFoundError(f"match {match_id} has no game {number}")
            a_white = self._a_is_white(match, game)
        white, black = (points_a, points_b) if a_white else (points_b, points_a)
        snapshot = self.recorder.enter_points(game.id, white, black, reason=reason, author=author)
        return self.describe(match_id), snapshot

    # --- reading -------------------------------------------------------------------------

    def list(self, event_id: int) -> list[dict[str, Any]]:
        self.recorder.get_event(event_id)
        with self.sessions() as session:
            ids = list(session.scalars(select(Match.id).where(Match.event_id == event_id).order_by(Match.id)))
        return [self.describe(match_id) for match_id in ids]

    def describe(self, match_id: int) -> dict[str, Any]:
        """The match, each game with its winner and points, and the score so far."""
        with self.sessions() as session:
            match = self._get(session, match_id)
            event = session.get(Event, match.event_id)
            played = list(session.scalars(select(GameRow).where(GameRow.match_id == match_id)
                                          .order_by(GameRow.match_game)))
        names = {"A": match.player_a, "B": match.player_b}
        rows = []
        for game in played:
            entry = self._match_game(match, game) if game.result != "*" else None
            rows.append({"number": game.match_game, "game_id": game.id, "white": game.white, "black": game.black,
                         "first": self._first_mover(match, event.game, game), "result": game.result,
                         "termination": game.termination,
                         "winner": entry.winner if entry else None,
                         "points_a": entry.points_a if entry else None,
                         "points_b": entry.points_b if entry else None,
                         "absolute": entry.absolute if entry else False})
        score = self._score(match, event.game, played)
        return {"id": match.id, "event_id": match.event_id, "round_id": match.round_id, "board_id": match.board_id,
                "variant": event.game, "a": match.player_a, "b": match.player_b, "number_a": match.number_a,
                "number_b": match.number_b, "length": match.length, "first": match.first, "games": rows,
                "score": {**asdict(score), "winner_name": names.get(score.winner or ""),
                          "next_first_name": names.get(score.next_first or "")}}

    # --- internals -----------------------------------------------------------------------

    @staticmethod
    def _get(session, match_id: int) -> Match:
        match = session.get(Match, match_id)
        if match is None:
            raise NotFoundError(f"no match with id {match_id}")
        return match

    @staticmethod
    def _a_is_white(match: Match, game: GameRow) -> bool:
        """Commander Chess: A keeps Red. Cờ Toán: White alternates, `first` having it in game 1."""
        if game.white_number is not None and match.number_a is not None:
            return game.white_number == match.number_a
        return game.white == match.player_a

    def _first_mover(self, match: Match, variant: str, game: GameRow) -> str:
        a_white = self._a_is_white(match, game)
        if variant == "commander":
            blue_first = game.start_fen.split()[1:2] == ["b"]
            return ("B" if a_white else "A") if blue_first else ("A" if a_white else "B")
        return "A" if a_white else "B"

    def _score(self, match: Match, variant: str, played: list[GameRow]) -> MatchScore:
        finished = [self._match_game(match, game) for game in played if game.result != "*"]
        return MATCH_GAMES[variant](finished, match.length, match.first)

    def _match_game(self, match: Match, game: GameRow) -> MatchGame:
        a_white = self._a_is_white(match, game)
        winner = {"1-0": "white", "0-1": "black"}.get(game.result)
        side = None if winner is None else ("A" if (winner == "white") == a_white else "B")
        white_points, black_points = self._points(game)
        points_a, points_b = (white_points, black_points) if a_white else (black_points, white_points)
        absolute = side is not None and game.termination in ABSOLUTE
        return MatchGame(side, points_a, points_b, absolute)

    def _points(self, game: GameRow) -> tuple[int, int]:
        if game.points_white is not None and game.points_black is not None:
            return game.points_white, game.points_black
        board = self.recorder.board(game.id)
        result = getattr(board, "result", None)
        detail = result() if callable(result) else None
        if detail is not None and hasattr(detail, "points"):  # Commander Chess: captures plus bonuses
            points = detail.points
            return points[Color.WHITE], points[Color.BLACK]
        scores = getattr(board, "scores", None)
        if isinstance(scores, dict):  # Commander Chess ended by the referee: the captures so far
            return scores[Color.WHITE], scores[Color.BLACK]
        if isinstance(scores, tuple):  # Cờ Toán: captured face values, White's first
            return scores[0], scores[1]
        return 0, 0
