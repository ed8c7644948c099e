"""The JSON API fuzzed from its own OpenAPI description (schemathesis): whatever a client
sends, the answer is a status the description documents, never a server error, never a
traceback, and every refusal says in words what was wrong.

Random game ids only ever meet "no such game", so most cases are aimed at real games
made beforehand (each game, an online one with two seats, one against the AI, one
finished), often with the seat's own secret and the game's current ply, so that the
requests reach the engine's own checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from optional import need

need("schemathesis")

import schemathesis  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import Case, GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance  # noqa: E402

from boardlab.web import app as web_app  # noqa: E402
from boardlab.web.guard import Limits  # noqa: E402
from web_support import SMALL, UNLIMITED, new_game  # noqa: E402

#: Cases per operation of the API, on SQLite; PostgreSQL gets the first of the same cases
#: (derandomized): what differs there is how the database takes odd text and numbers (a
#: NUL, an integer past 64 bits), which the first cases of every operation send. The API
#: has some 40 operations, so each case costs the suite a second.
CASES = {"sqlite": 50, "postgresql": 20}
FUZZ = settings(
    derandomize=True,  # the same cases on every run and every machine
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance]
#: What only a leaked traceback would show.
TRACEBACK = ("Traceback", 'File "')
SEAT = "x-boardlab-seat"
#: Characters that mean something in a URL or to a database, for made-up game ids.
URL_SPICE = "\x00\x01\n/.%?#&=+\\ 'a"
#: The secrets a case may send in the seat header: the target's own (its first or last
#: seat; most often), another game's, a made-up one, none, or the generated one.
SEAT_CHOICES = ("own", "own", "own", "own-last", "other", "made-up", "none", "generated")
#: The ``lang`` a case asks for: mostly none (else nearly every case is refused for its
#: unknown language), a language we speak, or the generated one.
LANG_CHOICES = (None, None, None, "de", "generated")


@dataclass(frozen=True)
class Target:
    """A real game and the secrets of its seats."""

    game_id: str
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class Aim:
    """How a generated case is pointed at the real games: ``game`` indexes them, or is
    an id of any characters (schemathesis leaves control characters out of paths), or
    None (the generated id stays); ``seat`` is one of ``SEAT_CHOICES``, ``now`` answers
    the game's current ply, ``legal`` plays its legal action of that index, ``lang`` is
    one of ``LANG_CHOICES``."""

    game: int | str | None
    seat: str
    now: bool
    legal: int | None
    lang: str | None


def seat_secret(http: TestClient, game_id: str) -> str:
    secret = http.cookies.get(f"seat-{game_id}")
    assert secret, f"no seat cookie for {game_id}"
    return str(secret)


def online_game(http: TestClient, seated: bool) -> Target:
    """A galatjang game between two people: both seated (the friend by the invitation)
    or the second seat still open."""
    form = {"opponent": "online", "seat": "0", **SMALL["galatjang"]}
    made = http.post("/new/galatjang", data=form, follow_redirects=False)
    assert made.status_code == 303, made.text
    game_id = str(made.headers["location"]).rsplit("/", 1)[1]
    creator = seat_secret(http, game_id)
    if not seated:
        return Target(game_id, (creator,))
    page = http.get(f"/play/{game_id}").text
    found = re.search(r'id="invitation-link" readonly value="[^"]*(/join/[^"]+)"', page)
    assert found, "the creator's page shows the invitation"
    http.cookies.delete(f"seat-{game_id}")  # the friend's browser holds no seat yet
    joined = http.post(found.group(1), follow_redirects=False)
    assert joined.status_code == 303, joined.text
    return Target(game_id, (creator, seat_secret(http, game_id)))


def real_games(http: TestClient) -> list[Target]:
    """The games the fuzz aims at: a game between two people at one screen of each game
    (an action played, to undo), two online, one against the AI, one finished."""
    targets = []
    for game in SMALL:
        game_id = new_game(http, game)
        secret = seat_secret(http, game_id)
        first = http.get(f"/api/games/{game_id}").json()["legal"][0]["action"]
        played = http.post(
            f"/api/games/{game_id}/play", json={"action": first, "ply": 0}, headers={SEAT: secret}
        )
        assert played.status_code == 200, played.text
        targets.append(Target(game_id, (secret,)))
    targets += [online_game(http, seated=True), online_game(http, seated=False)]
    against_ai = new_game(http, "galatjang", opponent="easy", seat="0")
    targets.append(Target(against_ai, (seat_secret(http, against_ai),)))
    finished = new_game(http, "jinli")
    secret = seat_secret(http, finished)
    resigned = http.post(f"/api/games/{finished}/resign", json={"ply": 0}, headers={SEAT: secret})
    assert resigned.status_code == 200, resigned.text
    targets.append(Target(finished, (secret,)))
    http.cookies.clear()  # each case sends the secrets it means to, and no other
    return targets


def aim(http: TestClient, case: Case, how: Aim, targets: list[Target]) -> None:
    """Point ``case`` at a real game as ``how`` says."""
    target = targets[how.game] if isinstance(how.game, int) else None
    if "game_id" in (case.path_parameters or {}) and how.game is not None:
        # path parameters go into the URL as they are: schemathesis has quoted its own
        game_id = target.game_id if target is not None else quote(how.game, safe="")
        case.path_parameters = {**case.path_parameters, "game_id": game_id}
    headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != SEAT}
    generated = {k: v for k, v in (case.headers or {}).items() if k.lower() == SEAT}
    own = target.secrets if target is not None else targets[0].secrets
    other = targets[how.game - 1 if isinstance(how.game, int) else 0].secrets[0]
    chosen = {
        "own": {SEAT: own[0]},
        "own-last": {SEAT: own[-1]},
        "other": {SEAT: other},
        "made-up": {SEAT: "m" * 32},
        "none": {},
        "generated": generated,
    }[how.seat]
    case.headers = {**headers, **chosen}
    if how.lang != "generated":
        query = {k: v for k, v in (case.query or {}).items() if k != "lang"}
        case.query = query if how.lang is None else {**query, "lang": how.lang}
    body = case.body
    if target is None or not isinstance(body, dict) or not (how.now or how.legal is not None):
        return
    state = http.get(f"/api/games/{target.game_id}").json()
    body = dict(body)
    if how.now:
        body["ply"] = state["ply"]
    if how.legal is not None and state["legal"] and "action" in body:
        body["action"] = state["legal"][how.legal % len(state["legal"])]["action"]
    case.body = body


def send(http: TestClient, case: Case) -> Any:
    """Send ``case`` through the test client (so the app runs in our own lifespan): the
    request schemathesis would send, made by httpx."""
    sent = case.as_transport_kwargs(base_url=str(http.base_url))
    assert not sent.get("cookies"), "the API takes no cookies it documents"
    if "json" in sent:
        content: bytes | None = json.dumps(sent["json"]).encode()
    else:
        content = sent.get("data")
    params = sent.get("params")
    if isinstance(params, dict):  # as requests does: a None parameter is not sent
        params = {k: v for k, v in params.items() if v is not None}
    http.cookies.clear()  # a language switch's cookie stays out of the next case
    return http.request(
        sent["method"],
        sent["url"],
        content=content,
        params=params,
        headers=sent["headers"],
        follow_redirects=False,
    )


def assert_explained(case: Case, response: Any) -> None:
    """No traceback leaks (unless the request itself said those words), and a refusal
    carries its message."""
    request = response.request
    asked = f"{request.url} {request.headers} {request.content!r}"
    for marker in TRACEBACK:
        assert marker not in response.text or marker in asked, (case, response.text)
    if 400 <= response.status_code < 500:
        assert response.headers["content-type"].startswith("application/json"), response.text
        message = response.json().get("error")
        assert isinstance(message, str) and message.strip(), (case, response.text)


def fuzz(http: TestClient, cases: int) -> int:
    """Every operation of the API; how many cases were sent."""
    description = http.get("/api/openapi.json")
    assert description.status_code == 200
    schema = schemathesis.openapi.from_dict(description.json())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 11
    return sum(fuzz_operation(http, operation, cases) for operation in operations)


def games_aimed_at(count: int) -> st.SearchStrategy[int | str | None]:
    """Seven cases in ten a real game (its index), else the generated id, any text or
    text of ``URL_SPICE``."""
    others = [st.none(), st.text(min_size=1), st.text(URL_SPICE, min_size=1)]
    real = st.sampled_from(range(count))
    return st.integers(0, 9).flatmap(lambda k: real if k < 7 else others[k - 7])


def fuzz_operation(http: TestClient, operation: Any, cases: int) -> int:
    """One operation's cases, positive and negative, aimed at games made for it alone
    (so that it does not find them ended by another operation); how many were sent."""
    targets = real_games(http)
    aims = st.builds(
        Aim,
        game=games_aimed_at(len(targets)),
        seat=st.sampled_from(SEAT_CHOICES),
        now=st.sampled_from((True, True, False)),
        legal=st.none() | st.integers(0, 40),
        lang=st.sampled_from(LANG_CHOICES),
    )
    generated = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )
    sent = 0

    @settings(FUZZ, max_examples=cases)
    @given(case=generated, how=aims)
    def check(case: Case, how: Aim) -> None:
        nonlocal sent
        aim(http, case, how, targets)
        response = send(http, case)
        sent += 1
        case.validate_response(response, checks=CHECKS)
        assert_explained(case, response)

    check()
    return sent


@pytest.fixture
def http(database: str) -> Iterator[TestClient]:
    """The app, its AI in one process, closed after the test (its lifespan). It makes
    fresh games for every operation: more than the rate limit on making them allows
    one address (a page's limit, not the API's)."""
    app = web_app.create_app(database, workers=1, limits=Limits(games=1000, requests=UNLIMITED))
    # a server error is answered (and judged by the checks), not raised in the test
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_no_input_makes_a_server_error_or_an_undocumented_answer(
    http: TestClient, database: str
) -> None:
    cases = CASES[database.split(":", 1)[0].split("+", 1)[0]]
    assert fuzz(http, cases) >= 11 * cases // 2  # every operation ran (Hypothesis counts)


# ---------------------------------------------------------------------- what the fuzz found
def test_a_game_id_with_a_nul_is_no_such_game(http: TestClient) -> None:
    """PostgreSQL refuses to look up text with a NUL: that was a server error."""
    for method, path in [
        ("GET", "/api/games/a%00b"),
        ("GET", "/api/games/a%00b/record.txt"),
        ("POST", "/api/games/a%00b/resign"),
    ]:
        answer = http.request(method, path, json={"ply": 0})
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["error"] == "no game 'a\\x00b' here"
    page = http.get("/play/a%00b")
    assert page.status_code == 404 and "no game" in page.text


def test_a_body_that_is_not_utf8_is_refused_as_not_json(http: TestClient) -> None:
    """FastAPI answered it with its own English "There was an error parsing the body"."""
    game_id = new_game(http, "galatjang")
    body = b'{"action": "s\xe9", "ply": 0}'
    json_type = {"content-type": "application/json"}
    answer = http.post(f"/api/games/{game_id}/play", content=body, headers=json_type)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert "the body is not JSON" in error and "0xe9" in error and '"ply": 0' in error
    german = http.post(
        f"/api/games/{game_id}/play", content=body, headers={**json_type, "accept-language": "de"}
    )
    assert "der Inhalt ist kein JSON" in german.json()["error"]
    assert http.get(f"/api/games/{game_id}").json()["ply"] == 0


def test_a_body_that_is_not_json_is_quoted(http: TestClient) -> None:
    answer = http.post(
        "/api/games/any/play", content=b"ply=0", headers={"content-type": "application/json"}
    )
    assert answer.status_code == 422
    assert "'ply=0'" in answer.json()["error"]


def test_the_description_documents_each_refusal_with_its_body(http: TestClient) -> None:
    """Clients learn from /api/openapi.json which errors each operation answers, all in
    one shape, and which header acts for a seat."""
    paths = http.get("/api/openapi.json").json()["paths"]
    assert all(path.startswith("/api/") for path in paths)
    error = {"$ref": "#/components/schemas/ErrorBody"}
    play = paths["/api/games/{game_id}/play"]["post"]
    for status in ("400", "403", "404", "409", "422"):
        assert play["responses"][status]["content"]["application/json"]["schema"] == error
    assert "x-boardlab-seat" in [p["name"] for p in play["parameters"]]
    record = paths["/api/games/{game_id}/record.txt"]["get"]["responses"]
    assert list(record["200"]["content"]) == ["text/plain"] and "303" in record
