"""Limits on every route that changes a session or a game, or where a token can be
guessed (issue 30, point 5): sign-in, API tokens, sign-out and moves are limited per
client address and per account, answered 429 with Retry-After, and counted in the
database, so that several web processes over it share the counts."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from arena.web.accounts import RateLimit
from arena.web.app import WebSettings, create_app, load_settings
from arena.web.sessions import COOKIE
from tests.arena.web.conftest import SIGNED_IN, make_account, use_cookie
from tests.arena.web.test_play import csrf_of, sign_in, start

GUESSES = 30


def guess(client: TestClient, attempt: int) -> httpx.Response:
    return client.post("/signin", data={"token": f"arena_guess{attempt}", "csrf": csrf_of(client)})


def assert_limited(answer: httpx.Response, words: str) -> None:
    assert answer.status_code == 429, answer.text
    assert 1 <= int(answer.headers["Retry-After"]) <= 60
    assert words in answer.text, answer.text


def test_guessing_tokens_at_the_sign_in_form_is_cut_off(engine: Engine) -> None:
    token = make_account(engine, "alice")
    # Two web processes over one database, the guesses spread over both; the defaults.
    with TestClient(create_app(engine)) as one, TestClient(create_app(engine)) as two:
        answers = [guess((one, two)[attempt % 2], attempt) for attempt in range(GUESSES)]
        statuses = [answer.status_code for answer in answers]
        assert statuses == [401] * 10 + [429] * (GUESSES - 10), statuses
        assert_limited(answers[-1], "at most 10 sign-ins, sign-outs and unknown tokens per 60 s")
        # A guess that hits is refused too while the address is out of tries.
        hit = one.post("/signin", data={"token": token, "csrf": csrf_of(one)})
        assert_limited(hit, "from one address")
        assert COOKIE not in hit.cookies
    with TestClient(create_app(engine), client=("203.0.113.9", 4000)) as elsewhere:
        assert sign_in(elsewhere, token)  # another address is not held up


def test_guesses_sent_at_once_do_not_slip_under_the_limit(engine: Engine) -> None:
    settings = WebSettings(sign_in_limit=RateLimit(5, 60.0))
    with (
        TestClient(create_app(engine, settings=settings)) as one,
        TestClient(create_app(engine, settings=settings)) as two,
        ThreadPoolExecutor(8) as pool,
    ):
        csrf = {one: csrf_of(one), two: csrf_of(two)}
        answers = pool.map(
            lambda attempt: (client := (one, two)[attempt % 2]).post(
                "/signin", data={"token": f"arena_guess{attempt}", "csrf": csrf[client]}
            ),
            range(24),
        )
        statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [401] * 5 + [429] * 19


def test_guessing_api_tokens_is_cut_off_like_signing_in(engine: Engine) -> None:
    token = make_account(engine, "alice")
    with TestClient(create_app(engine)) as client:
        answers = [
            client.get("/api/me", headers={"Authorization": f"Bearer arena_guess{attempt}"})
            for attempt in range(GUESSES)
        ]
        assert [answer.status_code for answer in answers] == [401] * 10 + [429] * (GUESSES - 10)
        assert_limited(answers[-1], "unknown tokens per 60 s from one address")
        hit = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert hit.status_code == 429
        # The sign-in form shares the count: the address is out of tries there too.
        assert_limited(guess(client, 0), "from one address")


def test_signing_out_is_limited_per_address_and_per_account(engine: Engine) -> None:
    settings = WebSettings(sign_in_limit=RateLimit(4, 60.0))
    token = make_account(engine, "alice")
    app = create_app(engine, settings=settings)

    def browser(address: int) -> TestClient:
        return TestClient(app, client=(f"198.51.100.{address}", 4000))

    with browser(1) as first:
        csrf = sign_in(first, token)  # the address's first of 4
        cookie = first.cookies[COOKIE]
        assert first.post("/signout", data={"csrf": csrf}).status_code == 200
        for _ in range(2):  # the ended session's cookie again: it counts for the address only
            use_cookie(first, cookie)
            assert first.post("/signout", data={"csrf": csrf}).status_code == 200
        use_cookie(first, cookie)
        assert_limited(first.post("/signout", data={"csrf": csrf}), "from one address")
    for address in (2, 3, 4):  # alice's sign-outs from three more places: 4 in all
        with browser(address) as other:
            other_csrf = sign_in(other, token)
            assert other.post("/signout", data={"csrf": other_csrf}).status_code == 200
    with browser(5) as fifth:
        fifth_csrf = sign_in(fifth, token)
        assert_limited(fifth.post("/signout", data={"csrf": fifth_csrf}), "per account")
        assert SIGNED_IN in fifth.get("/games/blumengarten").text  # to sign out a minute later


def test_moves_are_limited_per_account_and_per_address(engine: Engine) -> None:
    settings = WebSettings(move_limit=RateLimit(4, 60.0))
    app = create_app(engine, settings=settings)
    alice, bob = make_account(engine, "alice"), make_account(engine, "bob")
    here = ("198.51.100.1", 4000)
    with TestClient(app, client=here) as browser:
        csrf = sign_in(browser, alice)
        game_id = start(browser, csrf, "blumengarten", seats="1", seat="0")
        url, header = f"/play/{game_id}/move", {"X-CSRF-Token": csrf}
        nonsense = {"version": 0, "action": "nonsense"}
        for _ in range(4):  # refused as moves, counted all the same
            assert browser.post(url, json=nonsense, headers=header).status_code in (409, 422)
        assert_limited(browser.post(url, json=nonsense, headers=header), "at most 4 moves per 60 s")
        cookie = browser.cookies[COOKIE]
    with TestClient(app, client=("198.51.100.2", 4000)) as elsewhere:
        use_cookie(elsewhere, cookie)  # alice from another address: her account's spent
        limited = elsewhere.post(url, json=nonsense, headers=header)
        assert_limited(limited, "per account")
    with TestClient(app, client=here) as neighbour:
        bob_csrf = sign_in(neighbour, bob)  # bob from alice's address: the address is spent
        bob_game = start(neighbour, bob_csrf, "blumengarten", seats="1", seat="0")
        limited = neighbour.post(
            f"/play/{bob_game}/move", json=nonsense, headers={"X-CSRF-Token": bob_csrf}
        )
        assert_limited(limited, "from one address")


def test_the_operator_sets_the_limits(engine: Engine, tmp_path: Path) -> None:
    file = tmp_path / "web.toml"
    file.write_text("[sign_in_limit]\nrequests = 2\nseconds = 30\n[move_limit]\nrequests = 50\n")
    settings = load_settings(file)
    assert settings.sign_in_limit == RateLimit(2, 30.0)
    assert settings.move_limit == RateLimit(50, 60.0)
    assert WebSettings().move_limit == RateLimit(300, 60.0)  # the documented default
    with TestClient(create_app(engine, settings=settings)) as client:
        assert [guess(client, attempt).status_code for attempt in range(3)] == [401, 401, 429]
