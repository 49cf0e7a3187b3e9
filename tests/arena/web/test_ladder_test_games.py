"""A version regression test's games: in the API (paged by index), on the bot's page
and its own page, and the command ``arena bots show`` prints to list them."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from arena.cli import app
from arena.ladder import worker
from arena.ladder.service import end_test
from arena.ladder.worker import LadderPlayer
from arena.store.db import session_scope
from arena.store.ladders import regression_tests
from arena.store.models import (
    BotVersion,
    GameResult,
    Ladder,
    RegressionStatus,
    RegressionTest,
    RegressionTestGame,
)
from tests.arena.web.conftest import Web
from tests.arena.web.test_ladder_pages import played_ladder


def played_with_a_meeting(web: Web, monkeypatch: pytest.MonkeyPatch) -> int:
    """The ladder of ``played_ladder``, then a batch whose matchmaking seats the
    candidate and its baseline together at every table while the test runs, and one
    more batch."""
    ladder_id = played_ladder(web)
    test = the_test(web, ladder_id)
    with session_scope(web.engine) as session:  # bounds a few more pairs cannot cross
        stored = session.get(RegressionTest, test.id)
        assert stored is not None and stored.status == RegressionStatus.RUNNING
        stored.elo1 = 1.0
        session.add(stored)
    pair = (test.candidate_id, test.baseline_id)
    with LadderPlayer(web.engine, executor="local", tables=4, seed=7) as player:
        with monkeypatch.context() as patch:
            patch.setattr(worker, "next_pairings", lambda view, count, rng, seats: [pair] * count)
            player.play_batch(ladder_id)
        player.play_batch(ladder_id)  # the test's next pair comes after those games
    assert the_test(web, ladder_id).status == RegressionStatus.RUNNING
    return ladder_id


def the_test(web: Web, ladder_id: int) -> RegressionTest:
    with Session(web.engine) as session:
        (test,) = regression_tests(session, ladder_id=ladder_id)
        return test


def expected_indices(web: Web, test: RegressionTest) -> list[int]:
    """By the record: the games of the pairs the test counted."""
    with Session(web.engine) as session:
        return sorted(
            session.exec(
                select(RegressionTestGame.game_index).where(RegressionTestGame.test_id == test.id)
            ).all()
        )


def together_while_running(web: Web, test: RegressionTest) -> list[GameResult]:
    """The ladder's games where candidate and baseline both sat, stored while the test
    ran (the rule for games stored before the record was kept)."""
    with Session(web.engine) as session:
        ladder = session.get(Ladder, test.ladder_id)
        assert ladder is not None
        games = session.exec(
            select(GameResult)
            .where(GameResult.tournament_id == ladder.tournament_id)
            .order_by(col(GameResult.index))
        ).all()
    return [
        g
        for g in games
        if {test.candidate_id, test.baseline_id} <= set(g.seats)
        and g.created >= test.created
        and (test.finished is None or g.created <= test.finished)
    ]


def end_and_play_on(web: Web, test: RegressionTest, ladder_id: int) -> None:
    """Stop the test, then play two more batches of the ladder."""
    with session_scope(web.engine) as session:
        stored = session.get(RegressionTest, test.id)
        assert stored is not None
        end_test(session, stored, RegressionStatus.STOPPED, "stopped for the test")
    with LadderPlayer(web.engine, executor="local", tables=4, seed=9) as player:
        for _ in range(2):
            player.play_batch(ladder_id)


def all_pages(web: Web, url: str, limit: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after = -1
    for _ in range(1000):
        page = web.client.get(url, params={"after": after, "limit": limit})
        assert page.status_code == 200, page.text
        data = page.json()
        assert len(data["items"]) <= limit
        items += data["items"]
        if data["next_after"] is None:
            return items
        after = data["next_after"]
    raise AssertionError("the pages never end")


def test_the_api_lists_exactly_the_tests_games_a_page_at_a_time(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = played_with_a_meeting(web, monkeypatch)
    test = the_test(web, ladder_id)
    url = f"/api/bots/mine@2/regression-tests/{test.id}/games"
    expected = expected_indices(web, test)
    assert len(expected) == test.games > 0
    whole = web.client.get(url).json()
    assert whole["test"]["id"] == test.id and whole["test"]["candidate"] == "mine@2"
    assert [g["index"] for g in whole["items"]] == expected
    assert [g["index"] for g in all_pages(web, url, limit=3)] == expected
    for game in whole["items"]:
        assert {"mine@1", "mine@2"} <= set(game["players"])
        assert game["viewer"] == f"/records/{game['id']}"
        assert game["candidate_score"] in (0.0, 0.5, 1.0)
        assert web.client.get(game["viewer"]).status_code == 200
    # the baseline's name finds the test too; each page is the same list
    by_baseline = web.client.get(f"/api/bots/mine/regression-tests/{test.id}/games").json()
    assert by_baseline["items"] == whole["items"]

    # once the test ends, games the two play later are not its games
    end_and_play_on(web, test, ladder_id)
    with Session(web.engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        together = [
            g.index
            for g in session.exec(
                select(GameResult).where(GameResult.tournament_id == ladder.tournament_id)
            )
            if {test.candidate_id, test.baseline_id} <= set(g.seats)
        ]
    assert len(together) > len(expected)  # the two met again after the test
    assert [g["index"] for g in web.client.get(url).json()["items"]] == expected


def test_the_list_is_the_counted_pairs_without_the_two_bots_matchmaking_games(
    web: Web,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ladder_id = played_with_a_meeting(web, monkeypatch)
    test = the_test(web, ladder_id)
    url = f"/api/bots/mine@2/regression-tests/{test.id}/games"
    listed = [g["index"] for g in all_pages(web, url, limit=1000)]
    assert listed == expected_indices(web, test)
    assert len(listed) == test.games == 2 * sum(test.counts)
    together = {g.index: g for g in together_while_running(web, test)}
    # matchmaking seated the two together meanwhile: those games are not the test's
    assert set(listed) < set(together)
    # each pair is one deal played twice with the seats swapped
    for first, second in zip(listed[0::2], listed[1::2], strict=True):
        assert together[first].seed == together[second].seed
        assert together[first].seats == together[second].seats[::-1]


def test_games_stored_before_the_record_fall_back_to_who_sat_and_when(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = played_with_a_meeting(web, monkeypatch)
    test = the_test(web, ladder_id)
    url = f"/api/bots/mine@2/regression-tests/{test.id}/games"
    recorded = expected_indices(web, test)
    with session_scope(web.engine) as session:  # as if its first batch came before v11
        session.exec(
            sa.delete(RegressionTestGame).where(  # type: ignore[arg-type]
                col(RegressionTestGame.test_id) == test.id,
                col(RegressionTestGame.game_index) <= recorded[1],
            )
        )
    together = [g.index for g in together_while_running(web, test)]
    before = [index for index in together if index < recorded[2]]
    listed = [g["index"] for g in web.client.get(url).json()["items"]]
    assert listed == before + recorded[2:]
    assert len(before) >= 2 and set(before) >= set(recorded[:2])
    # with no record at all, every game of the two while the test ran
    with session_scope(web.engine) as session:
        session.exec(
            sa.delete(RegressionTestGame).where(  # type: ignore[arg-type]
                col(RegressionTestGame.test_id) == test.id
            )
        )
    assert [g["index"] for g in web.client.get(url).json()["items"]] == together


def test_unknown_tests_and_other_bots_are_404_and_bad_paging_422(web: Web) -> None:
    ladder_id = played_ladder(web)
    test = the_test(web, ladder_id)
    for url in (
        "/api/bots/mine@2/regression-tests/999/games",
        f"/api/bots/greedy/regression-tests/{test.id}/games",
        f"/api/bots/mine@7/regression-tests/{test.id}/games",
        f"/bots/greedy/regression-tests/{test.id}",
    ):
        answer = web.client.get(url)
        assert answer.status_code == 404, url
        assert str(test.id) in answer.text or "999" in answer.text
    base = f"/api/bots/mine@2/regression-tests/{test.id}/games"
    for params in ({"after": -2}, {"limit": 0}, {"limit": 5000}, {"after": "x"}):
        answer = web.client.get(base, params=params)
        assert answer.status_code == 422 and isinstance(answer.json()["detail"], str)


def test_the_bot_page_links_each_test_to_its_games_page(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = played_with_a_meeting(web, monkeypatch)
    test = the_test(web, ladder_id)
    link = f"/bots/mine%402/regression-tests/{test.id}"  # the template quotes the @
    assert f'href="{link}"' in web.client.get("/bots/mine").text
    page = web.client.get(link)
    assert page.status_code == 200
    expected = expected_indices(web, test)
    with Session(web.engine) as session:
        ids = session.exec(select(GameResult.id).where(col(GameResult.index).in_(expected))).all()
    for game_id in ids:
        assert f'href="/records/{game_id}"' in page.text
    assert page.text.count('href="/records/') == len(expected)


def test_bots_show_prints_the_command_that_lists_the_tests_games(
    web: Web, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = played_with_a_meeting(web, monkeypatch)
    test = the_test(web, ladder_id)
    with Session(web.engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        tournament_id = ladder.tournament_id
        assert session.exec(select(BotVersion).where(BotVersion.name == "mine")).first()
    runner = CliRunner()
    shown = runner.invoke(app, ["bots", "show", "mine@2", "--db", db_url])
    assert shown.exit_code == 0, shown.output
    expected = expected_indices(web, test)
    command = f"arena tournament games {tournament_id} --regression-test {test.id}"
    assert f"{command} (#{expected[0]} … #{expected[-1]})" in " ".join(shown.output.split())
    listed = runner.invoke(app, [*command.split()[1:], "--limit", "0", "--db", db_url])
    assert listed.exit_code == 0, listed.output
    lines = [line for line in listed.output.splitlines() if line.startswith("#")]
    assert [int(line.split()[0][1:]) for line in lines] == expected
    for line in lines:
        assert "mine@1" in line and "mine@2" in line
    # the two's matchmaking games between the test's first and last are not listed
    bounded = f"--bot mine@2 --bot mine@1 --from-index {expected[0]} --to-index {expected[-1]}"
    together = runner.invoke(
        app, ["tournament", "games", str(tournament_id), *bounded.split(), "--db", db_url]
    )
    assert together.exit_code == 0, together.output
    assert sum(line.startswith("#") for line in together.output.splitlines()) > len(expected)
    # a test that is not of the tournament's ladder: an error that quotes it
    wrong = runner.invoke(
        app,
        ["tournament", "games", str(tournament_id), "--regression-test", "999", "--db", db_url],
    )
    assert wrong.exit_code == 2 and isinstance(wrong.exception, SystemExit)
    assert "no regression test 999 on the ladder of tournament" in " ".join(wrong.output.split())
    # the games the two play after the test are not listed
    end_and_play_on(web, test, ladder_id)
    later = runner.invoke(app, [*command.split()[1:], "--limit", "0", "--db", db_url])
    assert [int(line.split()[0][1:]) for line in later.output.splitlines() if line[:1] == "#"] == (
        expected
    )
