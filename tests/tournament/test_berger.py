"""Berger tables against the seed (004, appendix 1) and against FIDE's printed tables."""

from fractions import Fraction
from itertools import combinations

import pytest

from games.tournament import GameResult, TournamentError, berger, standings

# FIDE Handbook C.05 Annex 1, printed tables (White first), an independent source.
FIDE_4 = [["1-4", "2-3"], ["4-3", "1-2"], ["2-4", "3-1"]]
FIDE_6 = [["1-6", "2-5", "3-4"], ["6-4", "5-3", "1-2"], ["2-6", "3-1", "4-5"],
          ["6-5", "1-4", "2-3"], ["3-6", "4-2", "5-1"]]


def seed_round(n: int, p: int, q: int) -> int:
    """Seed rule b), written from the seed's own words for this test."""
    if q == n:
        total = p + p - 1
    elif p == n:
        total = q + q - 1
    else:
        total = p + q - 1
    while total > n - 1:
        total -= n - 1
    return total


def seed_white(n: int, p: int, q: int) -> int:
    """Seed rule a)."""
    if n in (p, q):
        other = p if q == n else q
        return other if other <= n // 2 else n
    if (p % 2) != (q % 2):
        return min(p, q)
    return max(p, q)


@pytest.mark.parametrize("players", range(3, 17))
def test_every_pair_meets_in_the_seeds_round_with_the_seeds_colours(players):
    table = berger(players)
    n = players + players % 2
    assert len(table.rounds) == n - 1
    seen = set()
    for number, pairings in enumerate(table.rounds, start=1):
        in_round = [p for pg in pairings for p in (pg.white, pg.black)]
        assert sorted(in_round) == list(range(1, n + 1)), "each number once per round"
        for pairing in pairings:
            assert pairing.round == number
            p, q = pairing.white, pairing.black
            assert seed_round(n, p, q) == number
            assert seed_white(n, p, q) == pairing.white
            assert pairing.bye == (players % 2 == 1 and n in (p, q))
            seen.add(frozenset((p, q)))
    assert seen == {frozenset(c) for c in combinations(range(1, n + 1), 2)}


@pytest.mark.parametrize("players", range(3, 17))
def test_rounds_follow_the_berger_rotation(players):
    """Each round is the previous one with n/2 added to every number below n (mod n − 1)."""
    table = berger(players)
    n = table.total

    def shift(x: int) -> int:
        return x if x == n else (x - 1 + n // 2) % (n - 1) + 1

    for before, after in zip(table.rounds, table.rounds[1:], strict=False):
        expected = {frozenset((shift(pg.white), shift(pg.black))) for pg in before}
        assert expected == {frozenset((pg.white, pg.black)) for pg in after}


@pytest.mark.parametrize("players", range(3, 17))
def test_colours_are_balanced(players):
    table = berger(players)
    n = table.total
    whites = dict.fromkeys(range(1, n + 1), 0)
    for pairings in table.rounds:
        for pg in pairings:
            whites[pg.white] += 1
    assert all(n // 2 - 1 <= w <= n // 2 for w in whites.values())


def test_seed_examples_for_twelve_players():
    table = berger(12)
    assert table.round_of(3, 5) == 7
    assert table.round_of(9, 11) == 8
    assert table.round_of(12, 3) == 5
    assert table.round_of(12, 10) == 8
    # 12 is Black against the upper half (1–6), White against the rest.
    assert table.white_of(12, 3) == 3
    assert table.white_of(12, 10) == 12


@pytest.mark.parametrize(("players", "fide"), [(4, FIDE_4), (6, FIDE_6), (3, FIDE_4), (5, FIDE_6)])
def test_equal_to_fides_printed_tables(players, fide):
    table = berger(players)
    got = [sorted(f"{pg.white}-{pg.black}" for pg in rnd) for rnd in table.rounds]
    assert got == [sorted(r) for r in fide]


def test_byes_rest_whoever_meets_the_phantom_number():
    table = berger(5)
    resting = [next(pg.resting for pg in rnd if pg.bye) for rnd in table.rounds]
    assert sorted(resting) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("players", [0, 2, 17])
def test_outside_three_to_sixteen_is_refused(players):
    with pytest.raises(TournamentError, match=str(players)):
        berger(players)


def test_standings_points_then_sonneborn_berger():
    # 4 players: 1 beats 2, 2 beats 3, 3 beats 1 → 1, 2, 3 on one point; 4 draws everyone.
    results = [GameResult(1, 2, "1-0"), GameResult(2, 3, "1-0"), GameResult(3, 1, "1-0"),
               GameResult(1, 4, "1/2-1/2"), GameResult(2, 4, "1/2-1/2"), GameResult(3, 4, "1/2-1/2")]
    rows = standings(4, results)
    # 1, 2, 3: one win, one loss, one draw; 4: three draws. All four on 1.5 points.
    assert {r.points for r in rows} == {Fraction(3, 2)}
    # SB: 4 drew three opponents of 1.5 → 2.25; the others beat one 1.5 and drew 4 → 2.25.
    assert {r.sonneborn_berger for r in rows} == {Fraction(9, 4)}
    # Wins separate: 1, 2, 3 have one win, 4 none.
    assert rows[-1].player == 4
    # 1, 2, 3 all met and scored 1 each among themselves: only lots can separate them.
    assert all(r.tied_for_lots for r in rows[:3])
    assert {r.rank for r in rows[:3]} == {1}
    drawn = standings(4, results, lots=[3, 1, 2])
    assert [r.player for r in drawn[:3]] == [3, 1, 2]
    assert [r.rank for r in drawn] == [1, 2, 3, 4]


def test_standings_game_between_tied_players():
    # 1 and 2 tie on points, SB and wins; 2 beat 1 → 2 first.
    results = [GameResult(1, 2, "0-1"), GameResult(1, 3, "1-0"), GameResult(2, 3, "0-1")]
    rows = standings(3, results)
    assert [r.points for r in rows] == [1, 1, 1]
    # All three beat one and lost one: SB equal; the mutual game cannot decide a 3-way cycle.
    assert all(r.tied_for_lots for r in rows)
    results = [GameResult(1, 2, "0-1"), GameResult(1, 3, "1/2-1/2"), GameResult(2, 3, "1/2-1/2"),
               GameResult(4, 1, "1/2-1/2"), GameResult(4, 2, "0-1"), GameResult(3, 4, "1-0")]
    rows = standings(4, results)
    assert rows[0].player == 2


def test_bad_results_name_the_problem():
    with pytest.raises(TournamentError, match="1-1"):
        GameResult(1, 2, "1-1")
    with pytest.raises(TournamentError, match="player 9"):
        standings(4, [GameResult(1, 9, "1-0")])


def test_the_module_examples_run():
    import doctest

    import games.tournament

    assert doctest.testmod(games.tournament).failed == 0
