"""Round robin by Berger tables and standings, as the federation law writes them (seed 004, appendix 1).

Players draw numbers 1…N. With an odd N a phantom number N + 1 joins, and whoever meets it
rests that round (the bye). With n the even count (N or N + 1), players p and q below n meet
in round p + q − 1, less n − 1 while it is above n − 1; n meets p in round 2p − 1, same
reduction. Colours: p + q odd → the lower number plays White; p + q even → the higher; against
n, p plays White when p ≤ n / 2.

>>> table = berger(12)
>>> table.round_of(3, 5), table.round_of(9, 11), table.round_of(12, 3), table.round_of(12, 10)
(7, 8, 5, 8)
>>> table.white_of(3, 5), table.white_of(2, 11), table.white_of(12, 7)
(5, 2, 12)
>>> [str(p) for p in berger(4).rounds[0]]
['1-4', '2-3']
>>> berger(3).rounds[0][0].bye
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from games.base import BancoError

MIN_PLAYERS, MAX_PLAYERS = 3, 16


class TournamentError(BancoError):
    """A tournament request that the rules do not allow."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of one round: `white` plays `black`. A bye is written as the printed tables
    write it, the phantom number N + 1 on either side (White against the upper half): `resting`
    names the player who rests.

    >>> [(str(p), p.resting) for p in berger(5).rounds[1] if p.bye]
    [('6-4 (bye)', 4)]
    """

    round: int
    white: int
    black: int
    bye: bool = False

    @property
    def resting(self) -> int | None:
        """The player who rests this round, when this pairing is a bye."""
        if not self.bye:
            return None
        return self.white if self.black > self.white else self.black

    def __str__(self) -> str:
        return f"{self.white}-{self.black}" + (" (bye)" if self.bye else "")


def _round_number(total: int, p: int, q: int) -> int:
    """The round in which p and q meet, with `total` even (the last number included)."""
    if q == total:
        raw = 2 * p - 1
    elif p == total:
        raw = 2 * q - 1
    else:
        raw = p + q - 1
    while raw > total - 1:
        raw -= total - 1
    return raw


def _white(total: int, p: int, q: int) -> int:
    """Which of p and q plays White, with `total` even (the last number included)."""
    if total in (p, q):
        other = q if p == total else p
        return other if other <= total // 2 else total
    low, high = min(p, q), max(p, q)
    return low if (p + q) % 2 == 1 else high


@dataclass(frozen=True)
class BergerTable:
    """The whole schedule: `rounds[r - 1]` lists round r, byes included (marked)."""

    players: int
    rounds: tuple[tuple[Pairing, ...], ...]
    _index: Mapping[frozenset[int], Pairing] = field(repr=False, default_factory=dict)

    @property
    def total(self) -> int:
        """The even count used by the tables: the players, plus the phantom bye number when odd."""
        return self.players + self.players % 2

    def pairing(self, p: int, q: int) -> Pairing:
        try:
            return self._index[frozenset((p, q))]
        except KeyError:
            raise TournamentError(f"players {p} and {q} are not a pair of the {self.players}-player table") from None

    def round_of(self, p: int, q: int) -> int:
        return self.pairing(p, q).round

    def white_of(self, p: int, q: int) -> int:
        return self.pairing(p, q).white


def berger(players: int) -> BergerTable:
    """The Berger schedule for `players` (3–16) numbered from 1."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise TournamentError(f"a round robin takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    total = players + players % 2
    by_round: dict[int, list[Pairing]] = {r: [] for r in range(1, total)}
    index: dict[frozenset[int], Pairing] = {}
    for p in range(1, total + 1):
        for q in range(p + 1, total + 1):
            rnd = _round_number(total, p, q)
            white = _white(total, p, q)
            black = q if white == p else p
            pairing = Pairing(rnd, white, black, bye=total != players and total in (p, q))
            by_round[rnd].append(pairing)
            index[frozenset((p, q))] = pairing
    # Within a round the board order of the printed tables: the last number's board first, then
    # the pairs from the outside in (1-12, 2-11, …) — the order does not change who meets whom.
    rounds = tuple(
        tuple(sorted(pairings, key=lambda pg: (total not in (pg.white, pg.black), min(pg.white, pg.black))))
        for _, pairings in sorted(by_round.items())
    )
    return BergerTable(players, rounds, index)


# --- results and standings ---------------------------------------------------------------

RESULT_POINTS = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1)),
                 "1/2-1/2": (Fraction(1, 2), Fraction(1, 2))}


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game between two numbered players; `result` is White's score first."""

    white: int
    black: int
    result: str

    def __post_init__(self) -> None:
        if self.result not in RESULT_POINTS:
            raise TournamentError(f"result {self.result!r} is not one of {', '.join(RESULT_POINTS)}")
        if self.white == self.black:
            raise TournamentError(f"player {self.white} cannot play himself")

    def points(self, player: int) -> Fraction:
        white, black = RESULT_POINTS[self.result]
        if player == self.white:
            return white
        if player == self.black:
            return black
        raise TournamentError(f"player {player} did not play {self}")


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings. `rank` is shared by players the tie-breaks cannot separate."""

    rank: int
    player: int
    points: Fraction
    sonneborn_berger: Fraction
    wins: int
    games: int
    tied_for_lots: bool = False


def standings(players: int | Iterable[int], results: Iterable[GameResult], lots: Sequence[int] = ()) -> list[Standing]:
    """The standings of `players` (a count, numbered 1…N, or the players' numbers) after
    `results`, best first.

    Order: points; then Sonneborn-Berger (the points of each opponent beaten, plus half those of
    each opponent drawn); then the number of wins [RULES.md §1 decision for the seed's unnamed
    "both indices above"]; then the game between the tied players (their mutual score, when all
    of them met); then lots: `lots` lists player numbers in the order they were drawn, and
    players still tied without a lot share a rank and are flagged `tied_for_lots`.

    >>> rows = standings(3, [GameResult(1, 2, "1-0"), GameResult(2, 3, "1/2-1/2")])
    >>> [(r.rank, r.player, str(r.points)) for r in rows]
    [(1, 1, '1'), (2, 2, '1/2'), (2, 3, '1/2')]
    """
    numbers = range(1, players + 1) if isinstance(players, int) else sorted(set(players))
    results = list(results)
    for game in results:
        for player in (game.white, game.black):
            if player not in numbers:
                named = f"1…{players}" if isinstance(players, int) else ", ".join(map(str, numbers))
                raise TournamentError(f"player {player} in {game.white}-{game.black} {game.result} "
                                      f"is not one of {named}")
    points = {p: Fraction(0) for p in numbers}
    wins = dict.fromkeys(numbers, 0)
    played = dict.fromkeys(numbers, 0)
    for game in results:
        for player in (game.white, game.black):
            score = game.points(player)
            points[player] += score
            played[player] += 1
            wins[player] += score == 1
    sb = {p: Fraction(0) for p in numbers}
    for game in results:
        for player, opponent in ((game.white, game.black), (game.black, game.white)):
            sb[player] += game.points(player) * points[opponent]

    def mutual(group: list[int]) -> dict[int, Fraction]:
        among = [g for g in results if g.white in group and g.black in group]
        needed = len(group) * (len(group) - 1) // 2
        if len({frozenset((g.white, g.black)) for g in among}) < needed:
            return dict.fromkeys(group, Fraction(0))  # not all met: this tie-break cannot decide
        score = dict.fromkeys(group, Fraction(0))
        for game in among:
            score[game.white] += game.points(game.white)
            score[game.black] += game.points(game.black)
        return score

    lot_order = {player: index for index, player in enumerate(lots)}
    ordered: list[tuple[tuple, int]] = []
    primary = sorted(numbers, key=lambda p: (-points[p], -sb[p], -wins[p], p))
    # Group by the first three keys, then break ties inside each group.
    groups: list[list[int]] = []
    for player in primary:
        key = (points[player], sb[player], wins[player])
        if groups and (points[groups[-1][0]], sb[groups[-1][0]], wins[groups[-1][0]]) == key:
            groups[-1].append(player)
        else:
            groups.append([player])
    for group in groups:
        head_to_head = mutual(group) if len(group) > 1 else {group[0]: Fraction(0)}
        for player in group:
            lot = lot_order.get(player)
            ordered.append(((-points[player], -sb[player], -wins[player], -head_to_head[player],
                             lot if lot is not None else len(lot_order)), player))
    ordered.sort(key=lambda item: (item[0], item[1]))

    rows: list[Standing] = []
    for index, (key, player) in enumerate(ordered):
        same_as_previous = index > 0 and ordered[index - 1][0] == key
        unresolved = (same_as_previous or (index + 1 < len(ordered) and ordered[index + 1][0] == key))
        rank = rows[-1].rank if same_as_previous else index + 1
        rows.append(Standing(rank, player, points[player], sb[player], wins[player], played[player],
                             tied_for_lots=unresolved))
    return rows


# --- matches between two players ---------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MatchGame:
    """One game of a match between players "A" and "B".

    `winner` is "A", "B" or None (draw); `points_a`/`points_b` are the points each scored in
    the game (Commander Chess: captured values plus bonuses; Cờ Toán: captured face values);
    `absolute` marks an absolute win: the commander destroyed (Commander Chess) or the 0
    captured (Cờ Toán).
    """

    winner: str | None
    points_a: int = 0
    points_b: int = 0
    absolute: bool = False

    def __post_init__(self) -> None:
        if self.winner not in ("A", "B", None):
            raise TournamentError(f"a match game's winner is 'A', 'B' or None, not {self.winner!r}")
        if self.absolute and self.winner is None:
            raise TournamentError("an absolute win needs a winner")


@dataclass(frozen=True)
class MatchScore:
    games_a: int
    games_b: int
    points_a: int
    points_b: int
    played: int
    length: int
    winner: str | None
    decided: bool
    next_first: str | None
    reason: str


def _check_length(length: int, allowed: Iterable[int], what: str) -> None:
    allowed = tuple(allowed)
    if length not in allowed:
        raise TournamentError(f"a {what} match has {', '.join(map(str, allowed))} games, not {length}")


def _next_first(games: Sequence[MatchGame], first: str) -> str:
    """Who moves first in the next game: the previous loser; after a draw, the other player
    than in the drawn game [decision: the seeds are silent on draws]."""
    mover = first
    for game in games:
        if game.winner is None:
            mover = "B" if mover == "A" else "A"
        else:
            mover = "B" if game.winner == "A" else "A"
    return mover


def commander_match(games: Sequence[MatchGame], length: int = 3, first: str = "A") -> MatchScore:
    """A Commander Chess competition match (COMMANDER_RULES.md §12.5: 3 to 5 games; lots give game
    1's first move, then the previous loser moves first).

    The match goes to the player with more games won; when games are level after the last game,
    to the higher total of points (captures plus bonuses) over the match; then it is drawn
    [decision: §12.5 names no match decider; this follows the game's own rule that points decide].

    >>> score = commander_match([MatchGame("A", 180, 60), MatchGame("B", 40, 150), MatchGame("A", 120, 90)])
    >>> score.winner, score.games_a, score.points_a, score.decided
    ('A', 2, 340, True)
    """
    _check_length(length, (3, 4, 5), "Commander Chess")
    if len(games) > length:
        raise TournamentError(f"{len(games)} games played in a match of {length}")
    wins_a = sum(g.winner == "A" for g in games)
    wins_b = sum(g.winner == "B" for g in games)
    points_a, points_b = sum(g.points_a for g in games), sum(g.points_b for g in games)
    left = length - len(games)
    winner, reason = None, "match goes on"
    if wins_a > wins_b + left:
        winner, reason = "A", "more games won"
    elif wins_b > wins_a + left:
        winner, reason = "B", "more games won"
    elif left == 0:
        if points_a != points_b:
            winner, reason = ("A" if points_a > points_b else "B"), "games level, more points"
        else:
            reason = "games and points level: drawn"
    decided = winner is not None or left == 0
    return MatchScore(wins_a, wins_b, points_a, points_b, len(games), length, winner, decided,
                      None if decided else _next_first(games, first), reason)


def cotoan_match(games: Sequence[MatchGame], length: int = 3, first: str = "A") -> MatchScore:
    """A Cờ Toán match (RULES.md §3): 1, 3, 5, 7 … games, most games won; a player whose 0 is
    captured loses the whole match at once, whatever the score before.

    As games/cotoan/RULES.md decides: every agreed game is played, since a later 0-capture
    overturns any lead (D24), so a lead decides nothing before the last game; and the players
    take turns to move first (White), `first` in game 1 (D26).

    >>> cotoan_match([MatchGame("A", 20, 5), MatchGame("B", 0, 9, absolute=True)], 5).winner
    'B'
    >>> score = cotoan_match([MatchGame("A", 20, 5), MatchGame("A", 12, 3)], 3)
    >>> score.decided, score.winner, score.next_first
    (False, None, 'A')
    """
    if length < 1 or length % 2 == 0:
        raise TournamentError(f"a Cờ Toán match has an odd number of games (1, 3, 5, 7 …), not {length}")
    if len(games) > length:
        raise TournamentError(f"{len(games)} games played in a match of {length}")
    wins_a = sum(g.winner == "A" for g in games)
    wins_b = sum(g.winner == "B" for g in games)
    points_a, points_b = sum(g.points_a for g in games), sum(g.points_b for g in games)
    left = length - len(games)
    winner, reason = None, "match goes on"
    absolute = next((g for g in games if g.absolute), None)
    if absolute is not None:
        winner, reason = absolute.winner, "the opponent's 0 was captured"
    elif left == 0 and wins_a != wins_b:
        winner, reason = ("A" if wins_a > wins_b else "B"), "more games won"
    elif left == 0:
        reason = "games level: drawn"
    decided = winner is not None or left == 0
    other = "B" if first == "A" else "A"
    return MatchScore(wins_a, wins_b, points_a, points_b, len(games), length, winner, decided,
                      None if decided else (first if len(games) % 2 == 0 else other), reason)
