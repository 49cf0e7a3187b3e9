"""What counts: rated games, unplayed games, host faults; time-control classes."""

from __future__ import annotations

import pytest

from arena.play.time_control import TimeClass, describe, time_class
from arena.store.tally import Standing, StoredGame, standing, tally_games

BUILTIN, SUBMITTED, OTHER = 1, 2, 3


def game(
    seats: tuple[int, ...] = (BUILTIN, SUBMITTED),
    ranking: tuple[int, ...] = (1, 2),
    *,
    offender: int | None = None,
    reason: str | None = None,
    status: str = "ok",
    index: int = 0,
) -> StoredGame:
    returns = tuple(1.0 if place == 1 else -1.0 for place in ranking)
    end = "forfeit" if offender is not None else "normal"
    return StoredGame(1, index, 7, seats, ranking, returns, end, offender, reason, status)


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (game(), Standing.RATED),
        (game(ranking=(2, 1), offender=1, reason="timeout", status="forfeit"), Standing.RATED),
        (game(ranking=(2, 1), offender=0, reason="crash", status="forfeit"), Standing.RATED),
        (
            game(ranking=(2, 1), offender=0, reason="timeout", status="forfeit"),
            Standing.HOST_FAULT,
        ),
        (game(ranking=(1, 1), status="error"), Standing.HOST_FAULT),
        (
            game(ranking=(1, 2), offender=1, reason="suspended", status="forfeit"),
            Standing.UNPLAYED,
        ),
    ],
    ids=[
        "played",
        "a sandboxed bot's timeout",
        "a built-in bot's crash",
        "a built-in bot's timeout",
        "engine error",
        "suspended",
    ],
)
def test_how_each_kind_of_game_counts(stored: StoredGame, expected: Standing) -> None:
    assert standing(stored, {BUILTIN}) is expected


def test_tallies_count_rated_games_only_and_forfeits_by_reason() -> None:
    games = [
        game(index=0),
        game((SUBMITTED, BUILTIN), (1, 1), index=1),
        game(ranking=(1, 2), offender=1, reason="crash", status="forfeit", index=2),
        game(ranking=(2, 1), offender=0, reason="timeout", status="forfeit", index=3),
        game(ranking=(1, 2), offender=1, reason="suspended", status="forfeit", index=4),
        game(ranking=(1, 1), status="error", index=5),
        game(ranking=(1, 2), offender=1, reason="new_reason", status="forfeit", index=6),
    ]
    tallies = tally_games(games, {BUILTIN})
    assert tallies.games == {Standing.RATED: 4, Standing.HOST_FAULT: 2, Standing.UNPLAYED: 1}
    mine = tallies.bots[SUBMITTED]
    assert (mine.games, mine.wins, mine.draws, mine.losses) == (4, 0, 1, 3)
    assert mine.forfeits == {"crash": 1, "other": 1}
    assert (mine.unplayed, mine.host_faults) == (1, 2)
    builtin = tallies.bots[BUILTIN]
    assert (builtin.games, builtin.wins, builtin.draws, builtin.losses) == (4, 3, 1, 0)
    assert builtin.forfeits == {} and builtin.score_percent == pytest.approx(100 * 3.5 / 4)


def test_a_four_seat_game_counts_a_result_against_each_other_seat() -> None:
    tallies = tally_games([game((1, 2, 3, 4), (2, 1, 2, 4))], set())
    second = tallies.bots[1]
    assert (second.wins, second.draws, second.losses) == (1, 1, 1)
    assert second.score_percent == pytest.approx(50.0) and second.mean_place == 2


@pytest.mark.parametrize(
    ("per_move", "per_game", "expected"),
    [
        (None, None, TimeClass.UNLIMITED),
        (0.05, None, TimeClass.BULLET),
        (0.1, None, TimeClass.BLITZ),
        (5.0, None, TimeClass.RAPID),
        (10.0, None, TimeClass.CLASSICAL),
        (None, 2.0, TimeClass.BULLET),
        (None, 60.0, TimeClass.RAPID),
        (30.0, 20.0, TimeClass.BLITZ),  # the tighter limit decides
    ],
)
def test_time_classes(per_move: float | None, per_game: float | None, expected: TimeClass) -> None:
    assert time_class(per_move, per_game) is expected
    assert describe(per_move, per_game).endswith(f"({expected})")
