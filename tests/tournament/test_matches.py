"""Commander Chess and Cờ Toán matches between two players."""

import pytest

from games.tournament import MatchGame, TournamentError, commander_match, cotoan_match


def test_commander_match_goes_to_games_then_points():
    games = [MatchGame("A", 180, 60), MatchGame("B", 40, 150)]
    score = commander_match(games, 3)
    assert not score.decided and score.next_first == "A"  # the previous loser moves first
    score = commander_match(games + [MatchGame(None, 100, 90)], 3)
    assert score.decided and score.winner == "A" and score.reason == "games level, more points"
    assert (score.points_a, score.points_b) == (320, 300)
    assert commander_match([MatchGame("B"), MatchGame("B")], 3).winner == "B"  # 2-0 of 3: decided early
    level = commander_match([MatchGame("A", 10, 0), MatchGame("B", 0, 10), MatchGame(None)], 3)
    assert level.decided and level.winner is None


def test_commander_match_length_is_three_to_five():
    for length in (2, 6):
        with pytest.raises(TournamentError, match=str(length)):
            commander_match([], length)
    with pytest.raises(TournamentError, match="4 games"):
        commander_match([MatchGame("A")] * 4, 3)


def test_first_move_passes_to_the_loser_and_alternates_after_a_draw():
    assert commander_match([], 5, first="B").next_first == "B"
    assert commander_match([MatchGame("B")], 5, first="B").next_first == "A"
    assert commander_match([MatchGame(None)], 5, first="B").next_first == "A"


def test_cotoan_zero_captured_loses_the_whole_match():
    games = [MatchGame("A", 30, 4), MatchGame("A", 25, 10), MatchGame("B", 3, 12, absolute=True)]
    score = cotoan_match(games, 5)
    assert score.winner == "B" and score.decided and "0" in score.reason
    # 2-0 up after two of three games decides nothing yet: game 3 is played, and a 0 captured
    # there would lose A the match (games/cotoan/RULES.md D24).
    leading = cotoan_match(games[:2], 3)
    assert not leading.decided and leading.winner is None and leading.games_a == 2
    assert cotoan_match(games[:2] + [MatchGame("B", 5, 9)], 3).winner == "A"
    assert not cotoan_match(games[:2], 5).decided
    with pytest.raises(TournamentError, match="4"):
        cotoan_match([], 4)
    with pytest.raises(TournamentError, match="winner"):
        MatchGame(None, absolute=True)


def test_cotoan_players_take_turns_to_move_first():
    """D26: colours alternate whatever the results; the lot's winner moves first in game 1."""
    assert [cotoan_match([MatchGame("A")] * n, 7, first="B").next_first for n in range(4)] == ["B", "A", "B", "A"]
    assert cotoan_match([MatchGame(None)], 3).next_first == "B"
