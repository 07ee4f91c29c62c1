"""An event's round robin: players by drawn number, the seed's Berger schedule, standings."""

from __future__ import annotations

from sqlalchemy import select

from games.tournament import MAX_PLAYERS, GameResult, Standing, berger, standings
from server.record import ConflictError, NotFoundError, Recorder, RecordError
from server.store import Event, GameRow, Player, Round


class Tournament:
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.sessions = recorder.sessions

    def add_player(self, event_id: int, name: str, number: int | None = None) -> Player:
        with self.sessions.begin() as session:
            if session.get(Event, event_id) is None:
                raise NotFoundError(f"no event with id {event_id}")
            scheduled = select(GameRow.id).where(GameRow.event_id == event_id, GameRow.white_number.is_not(None),
                                                 GameRow.match_id.is_(None))
            if session.scalar(scheduled.limit(1)) is not None:
                # The numbers are drawn before the table is made (seed 004, appendix 1): a player
                # added now would be in the standings with no game in the schedule.
                raise ConflictError(f"event {event_id} is scheduled already; players are registered before")
            taken = set(session.scalars(select(Player.number).where(Player.event_id == event_id)))
            if number is None:
                number = min(set(range(1, MAX_PLAYERS + 2)) - taken)
            if number > MAX_PLAYERS:
                raise ConflictError(f"event {event_id} has {len(taken)} players already; "
                                    f"a round robin takes at most {MAX_PLAYERS}")
            if number in taken:
                raise ConflictError(f"event {event_id} already has a player number {number}")
            row = Player(event_id=event_id, number=number, name=name)
            session.add(row)
        return row

    def players(self, event_id: int) -> list[Player]:
        self.recorder.get_event(event_id)
        with self.sessions() as session:
            return list(session.scalars(select(Player).where(Player.event_id == event_id).order_by(Player.number)))

    def schedule(self, event_id: int, initial_ms: int | None = None, increment_ms: int = 0) -> list[GameRow]:
        """Create every round and game of the Berger table; byes get no game."""
        event = self.recorder.get_event(event_id)
        players = {p.number: p.name for p in self.players(event_id)}
        if sorted(players) != list(range(1, len(players) + 1)):
            raise RecordError(f"player numbers must run 1…{len(players)} without gaps, got {sorted(players)}")
        table = berger(len(players))
        with self.sessions() as session:
            if session.scalar(select(Round.id).where(Round.event_id == event_id)) is not None:
                raise ConflictError(f"event {event_id} already has rounds; a schedule is made once")
        created = []
        for pairings in table.rounds:
            rnd = self.recorder.create_round(event_id, pairings[0].round)
            for pairing in pairings:
                if pairing.bye:
                    continue
                created.append(self.recorder.create_game(
                    event.game, players[pairing.white], players[pairing.black], round_id=rnd.id,
                    initial_ms=initial_ms, increment_ms=increment_ms, white_number=pairing.white,
                    black_number=pairing.black))
        return created

    def standings(self, event_id: int, after_round: int | None = None) -> tuple[list[Standing], dict[int, str]]:
        players = {p.number: p.name for p in self.players(event_id)}
        with self.sessions() as session:
            # The table's games only: a match's games are scored as the match (`server.matches`).
            query = (select(GameRow, Round.number).join(Round, GameRow.round_id == Round.id)
                     .where(GameRow.event_id == event_id, GameRow.white_number.is_not(None),
                            GameRow.match_id.is_(None), GameRow.result != "*"))
            if after_round is not None:
                query = query.where(Round.number <= after_round)
            results = [GameResult(game.white_number, game.black_number, game.result)
                       for game, _ in session.execute(query)]
        if len(players) < 3:
            raise RecordError(f"standings need at least 3 players, event {event_id} has {len(players)}")
        return standings(players, results), players
