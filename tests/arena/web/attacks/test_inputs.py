"""No 5xx from any input: every class of bad input, sent to every route of the app
(pages and API), gets a 4xx that names the problem."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.routing import APIRoute

from arena.web import api, pages
from tests.arena.web.conftest import FIRST_LEGAL, Web, play_tournament

BAD_IDS = [str(2**64), str(2**63), str(2**31), "-1", "1e3", "1.5", "0x10", "\u0663", "9" * 5000]
BAD_TEXTS = [
    "x" * 5000,
    "greedy@" + "9" * 50,
    "greedy@\u00b2",
    "greedy@0",
    "@",
    "greedy:seed=x",
    "%F0%9F%98%80",
    "..%2F..%2Fetc%2Fpasswd",
    "%00",
    "' OR 1=1 --",
]
BAD_QUERIES = [*BAD_IDS, "true", "", "x" * 5000, "%00"]


def route_calls() -> Iterator[tuple[str, str]]:
    """(method, URL) for every route of the app with each of its path parameters, in
    turn, set to each bad value (the others to a valid one), and each query parameter
    likewise."""
    for route in [*api.router.routes, *pages.router.routes]:
        if not isinstance(route, APIRoute):
            continue
        names = re.findall(r"{(\w+)}", route.path)
        valid = {name: "1" if name.endswith("_id") else "koenigsgarten" for name in names}
        if "reference" in valid:
            valid["reference"] = "greedy"
        for method in sorted(route.methods):
            for name in names:
                values = BAD_IDS if name.endswith("_id") else BAD_TEXTS
                for value in values:
                    yield method, route.path.format(**{**valid, name: value})
            path = route.path.format(**valid)
            queries = [param.alias for param in route.dependant.query_params]
            for query, value in itertools.product(queries, BAD_QUERIES):
                yield method, f"{path}?{query}={value}"


@pytest.mark.slow
def test_no_route_answers_a_bad_path_or_query_with_a_5xx(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "greedy"])
    headers = web.auth()
    answers = {}
    for method, url in route_calls():
        response = web.client.request(method, url, headers=headers)
        answers[(method, url)] = response.status_code
        if response.status_code >= 400 and "json" in response.headers["content-type"]:
            assert response.json()["detail"], (method, url)
    assert len(answers) > 300  # every route, every parameter
    server_errors = {call: status for call, status in answers.items() if status >= 500}
    assert server_errors == {}
    assert answers[("GET", f"/api/records/{2**64}")] == 422
    assert answers[("GET", f"/tournaments/{2**64}")] == 422


@pytest.mark.parametrize(
    ("body", "content_type", "words"),
    [
        ("[" * 30000 + "]" * 30000, "application/json", "nested more than 32 levels deep"),
        ("a = " + "[" * 30000 + "]" * 30000, "application/toml", "nested more than 32 levels"),
        ('{"game": "koenigsgarten", "games": ' + "9" * 5000 + "}", "application/json", "digits"),
        ('{"game": "koenigsgarten", "seed": ' + "9" * 60 + "}", "application/json", "128 bits"),
        ('{"game": "koenigsgarten", "games": Infinity}', "application/json", "Infinity is not"),
        ("game = 'koenigsgarten'\ngames = nan\n", "application/toml", "finite number"),
        (b"\xff\xfe{}", "application/json", "not UTF-8"),
        ('{"game": ["koenigsgarten"]}', "application/json", "field 'game'"),
        ('{"game": "koenigsgarten", "bots": [{"a": 1}, 2]}', "application/json", "field 'bots"),
        ('{"game": "koenigsgarten", "options": [1]}', "application/json", "field 'options'"),
        ('{"game": "koenigsgarten", "seats": 999999}', "application/json", "seats"),
        ('{"game": "kardinal", "bots": ["random", "greedy"], "options": {"deck": 5}}', "", "deck"),
        ('{"game": "koenigsgarten", "name": "a\\u0000b"}', "application/json", "NUL character"),
        ('{"game": "koenigsgarten", "bots": ["x\\u0000"]}', "application/json", "NUL character"),
        ('{"game": "koenigsgarten", "name": "\\ud800"}', "", "not UTF-8 (a lone surrogate)"),
        ('name = "a\\u0000b"', "application/toml", "NUL character"),
    ],
)
def test_a_bad_configuration_body_is_a_4xx_naming_the_problem(
    web: Web, body: str | bytes, content_type: str, words: str
) -> None:
    response = web.client.post(
        "/api/tournaments",
        headers={**web.auth(), "Content-Type": content_type},
        content=body,
    )
    assert 400 <= response.status_code < 500, response.text
    assert words in response.json()["detail"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("params", "words"),
    [
        ('{"seed": "x"}', "parameter 'seed' of a Python bot: an integer"),
        ('{"seed": 1e400}', "parameter 'seed' of a Python bot: an integer"),
        ('{"seed": NaN}', "NaN is not a number here"),
        ('{"seed": 99999999999999999999}', "an integer of at most 63 bits"),
        # Parameters go to the bot's constructor: the submission check refuses one it
        # does not take.
        ('{"depth": 3}', "FirstLegal takes no parameter 'depth'"),
        ('{"bad name": 3}', "bad parameter name 'bad name' of a Python bot"),
        ('{"seed": ' + "[" * 5000 + "]" * 5000 + "}", "nested more than 32 levels"),
    ],
)
def test_bad_bot_parameters_are_a_4xx(web: Web, params: str, words: str) -> None:
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": "mine", "game": "koenigsgarten", "params": params},
        files={"file": ("mine.py", FIRST_LEGAL.encode(), "text/x-python")},
    )
    assert response.status_code == 422, response.text
    assert words in response.json()["detail"]


def test_a_chunked_upload_over_the_cap_is_413(web: Web) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'--x\r\nContent-Disposition: form-data; name="archive"; filename="a.zip"\r\n\r\n'
        for _ in range(40):
            yield b"\0" * 100_000

    response = web.client.post(
        "/api/bots",
        headers={**web.auth(), "Content-Type": "multipart/form-data; boundary=x"},
        content=chunks(),
    )
    assert response.status_code == 413, response.text
    assert "request body is larger than" in response.json()["detail"]


def test_the_openapi_schema_has_no_dangling_references(web: Web) -> None:
    document = web.client.get("/api/openapi.json").json()
    references = re.findall(r'"\$ref": "([^"]+)"', json.dumps(document))
    assert references
    for reference in references:
        node = document
        for part in reference.removeprefix("#/").split("/"):
            assert part in node, reference
            node = node[part]
