"""Matches over 1/3/5/7 games (seed 002, end of "Kết thúc trò chơi")."""

import pytest

from games.base import BLACK, WHITE, GameOverError, Termination
from games.cotoan import NOTATION, GameOptions, InvalidOptionError, Match
from tests.games.cotoan.helpers import board

TEN = GameOptions(target=10)


def test_the_seeds_example_a_wins_two_on_points_then_b_captures_as_0_and_wins_the_match():
    """"If several games are played, the total of games won decides. But during the match,
    whoever has his 0 captured by the opponent loses absolutely, even when ahead by 1-2-3-4 …
    games. Example: Game 1: A beats B 10-7. Game 2: A beats B 12-5. Game 3: B beats A
    absolutely (B captures A's 0). Final result: B wins the match." """
    match = Match(("A", "B"), games=3, options=TEN)

    # Game 1, A has White: 1 point, then 8+5 takes Black's 9 → 10-7.
    game = board({"e3": 8, "e4": 5, "a1": 1}, {"e7": 9, "i11": 1, "h11": 2}, target="10", scores="1-7")
    game.push(NOTATION.parse(game, "8+5xe7"))
    first = match.record(game)
    assert (first.white, first.winner, first.points("A"), first.points("B")) == ("A", "A", 10, 7)
    assert first.outcome.termination is Termination.POINTS
    assert not match.is_over() and match.winner() is None

    # Game 2, A has Black: 3 points, then Black's 8+5 takes White's 9 downwards → 12-5.
    game = board({"a1": 1, "b1": 2, "c5": 9}, {"c9": 8, "c8": 5, "i11": 1}, turn="b", target="10",
                 scores="5-3")
    game.push(NOTATION.parse(game, "8+5xc5"))
    second = match.record(game)
    assert (second.white, second.winner, second.points("A"), second.points("B")) == ("B", "A", 12, 5)
    assert match.wins("A") == 2 and match.wins("B") == 0
    assert not match.is_over()  # D24: every agreed game is played

    # Game 3, A has White again: Black (B) takes A's 0 on e2 with 8+5 = 13 → 3 cells below e5.
    game = board({"a1": 1, "b1": 2}, {"e6": 8, "e5": 5, "i11": 1}, turn="b", target="10", scores="0-0")
    game.push(NOTATION.parse(game, "8+5xe2"))
    third = match.record(game)
    assert third.outcome.termination is Termination.ZERO_CAPTURED and third.winner == "B"
    assert match.is_over()
    assert match.winner() == "B"
    assert "B wins the match: a 0 was captured" in match.summary()
    with pytest.raises(GameOverError, match="match is over"):
        match.new_board()


def test_a_lost_0_ends_a_longer_match_at_once():
    """"... loses absolutely, even when ahead by 1-2-3-4 … games": in a 7-game match the 0
    capture in game 1 ends it."""
    match = Match(("A", "B"), games=7)
    game = board({"e6": 5, "e7": 8}, {"a11": 1})
    game.push(NOTATION.parse(game, "5+8xe10"))
    match.record(game)
    assert match.is_over() and match.winner() == "A" and len(match.games) == 1


def test_without_a_lost_0_the_most_games_won_takes_the_match():
    """"If several games are played, the total of games won decides." """
    match = Match(("A", "B"), games=3)
    won_by_white = board({"a5": 9}, {"i7": 3})   # one piece each: points, 42-36 for White
    won_by_black = board({"a5": 3}, {"i7": 9})   # 36-42 for Black
    match.record(won_by_white)                     # A is White in game 1
    match.record(won_by_white)                     # B is White in game 2
    assert match.wins("A") == 1 and match.wins("B") == 1 and not match.is_over()
    match.record(won_by_black)                     # A is White in game 3: B wins it
    assert match.is_over() and match.winner() == "B"
    assert match.summary().endswith("B wins the match")


def test_drawn_games_and_a_drawn_match():
    match = Match(("A", "B"), games=1)
    level = board({"a5": 3}, {"i7": 3}, scores="42-42")
    record = match.record(level)
    assert record.winner is None and "draw" in str(record)
    assert match.is_over() and match.winner() is None
    assert "drawn" in match.summary()


def test_the_next_game_uses_the_matchs_options_and_colours_alternate():
    """"Before the game the two sides may agree a points scale for each game ... and play
    1-3-5-7 … games." """
    match = Match(("An", "Bình"), games=5, options=GameOptions(operations="+", target=15, first=BLACK))
    start = match.new_board()
    assert start.options.operations == "+" and start.options.target == 15 and start.turn is BLACK
    assert [match.white_in(n) for n in range(1, 6)] == ["An", "Bình", "An", "Bình", "An"]
    with pytest.raises(GameOverError, match="still going on"):
        match.record(start)
    stopped = match.record(start, stop=True)
    assert stopped.outcome.termination is Termination.POINTS and stopped.winner is None
    with pytest.raises(InvalidOptionError, match="agreed"):
        match.record(board({"a5": 3}, {"i7": 3}, scores="42-42"))


@pytest.mark.parametrize("length", [0, 2, 4, -1, True, 1.0])
def test_a_match_has_an_odd_number_of_games(length):
    with pytest.raises(InvalidOptionError):
        Match(("A", "B"), games=length)


def test_a_match_needs_two_players():
    with pytest.raises(InvalidOptionError):
        Match(("A", "A"))
    assert Match(("A", "B")).options.first is WHITE
