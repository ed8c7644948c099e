"""Accounts under attack, against a running server on SQLite and on PostgreSQL: the
table "Who may do what with an account" of docs/web.md walked cell by cell for every
viewer (a guest, a planted session id, an ended one, another account, the account), then
sign-ins throttled per name and per address (429 and Retry-After, the right password
too), no name told by the answer, oversized fields refused before any work, and every
account form refused from another site's page, changing nothing.

The server believes ``X-Forwarded-For`` from this machine (``--proxy``), so each test
speaks from addresses of its own and the per-address counts of one do not reach
another."""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import boardlab
from optional import need

need("fastapi")

import httpx2 as httpx  # noqa: E402

from boardlab.web.accounts import ADDRESS_FAILURES, NAME_FAILURES, SESSION_COOKIE  # noqa: E402
from web_support import LiveServer, expected, permission_rows  # noqa: E402

PASSWORD, NEW = "correct horse", "battery staple"
GUEST, PLANTED, ENDED, OTHER, ACCOUNT = (
    "guest",
    "planted session",
    "ended session",
    "other account",
    "account",
)
VIEWERS = (GUEST, PLANTED, ENDED, OTHER, ACCOUNT)
ADDRESSES = (f"10.9.{k // 250}.{k % 250 + 1}" for k in itertools.count())


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("accounts")
    if request.param == "sqlite":
        db: Path | str = folder / "games.sqlite3"
    else:
        db = request.getfixturevalue("postgres").fresh()
    live = LiveServer(db, folder, extra=["--proxy", "127.0.0.1"])
    live.start()
    yield live
    live.stop()


def browser(server: LiveServer, address: str | None = None, **headers: str) -> httpx.Client:
    """A browser of its own (cookies), at an address of its own."""
    sent = {"x-forwarded-for": address or next(ADDRESSES), **headers}
    return httpx.Client(base_url=server.url, headers=sent, timeout=30)


def session_of(http: httpx.Client) -> str | None:
    found = [c.value for c in http.cookies.jar if c.name == SESSION_COOKIE]
    return found[-1] if found else None


def plant(http: httpx.Client, token: str) -> None:
    http.cookies.clear()
    http.cookies.set(SESSION_COOKIE, token, domain="127.0.0.1")


def credentials(name: str, password: str = PASSWORD) -> dict[str, str]:
    return {"name": name, "password": password}


def new_name() -> str:
    return "p" + secrets.token_hex(6)


def signed_up(server: LiveServer, password: str = PASSWORD) -> tuple[httpx.Client, str]:
    http = browser(server)
    name = new_name()
    answer = http.post("/api/account/signup", json=credentials(name, password))
    assert answer.status_code == 200, answer.text
    return http, name


def signs_in(server: LiveServer, name: str, password: str = PASSWORD) -> bool:
    with browser(server) as http:
        return http.post("/api/account/signin", json=credentials(name, password)).is_success


def rated_game(server: LiveServer, **asked: str) -> str:
    """A rated game waiting in the lobby, made by an account of its own (``asked``: more
    of the form, as a rating range)."""
    maker, _name = signed_up(server)
    kind = boardlab.game_ids()[0]
    ticked = {o.name: "true" for o in boardlab.new_game(kind).schema if o.default is True}
    form = {"opponent": "online", "seat": "0", "lobby": "true", "rated": "true", **ticked}
    form.update(asked)
    answer = maker.post(f"/new/{kind}", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    maker.close()
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def bot_seek(server: LiveServer) -> str:
    """A rated seek in the lobby made by a bot of its own, with its token."""
    from boardlab.web.bots import BotStore
    from boardlab.web.store import Store
    from web_support import url_of

    store = Store(url_of(server.db), upgrade=None)
    try:
        _bot, token = BotStore(store).add("b" + secrets.token_hex(6))
    finally:
        store.engine.dispose()
    with browser(server, authorization=f"Bearer {token}") as bot:
        answer = bot.post("/api/bot/seeks", json={"game": boardlab.game_ids()[0], "rated": True})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


# ---------------------------------------------------------------------- the table
def table() -> list[tuple[str, list[str], str]]:
    """The rows of "Who may do what with an account": name, routes, rule."""
    return permission_rows("Who may do what with an account")


class Cell:
    """One viewer asking for one route of one row, on accounts of its own where the
    change is one that cannot be undone."""

    def __init__(self, server: LiveServer, shared: dict[str, Any], viewer: str) -> None:
        self.server, self.viewer, self.shared = server, viewer, shared
        self.name, self.fresh = shared["name"], False
        self.http = browser(server)
        if viewer == PLANTED:
            plant(self.http, secrets.token_urlsafe(32))
        elif viewer == ENDED:
            plant(self.http, shared["ended"])
        elif viewer == OTHER:
            plant(self.http, shared["other"])

    def sign_in_as_account(self, fresh: bool) -> None:
        if fresh:
            self.fresh = True
            owner, self.name = signed_up(self.server)
            owner.close()
        answer = self.http.post("/api/account/signin", json=credentials(self.name))
        assert answer.status_code == 200, answer.text

    def ask(self, route: str) -> tuple[httpx.Response, str]:
        """The answer to ``route`` as this viewer, and its status as the table says it:
        ``NAME`` is the account's name, ``GAME`` a game, ``RATED`` a rated game in the
        lobby made by a third account, ``RANGED`` one for players rated 1300 to 1700,
        ``BOTSEEK`` a bot's rated seek, ``CHALLENGE`` a challenge from the other account to
        the account, made anew."""
        method, path = route.split(" ", 1)
        path = path.replace("/NAME", "/" + self.name).replace("GAME", boardlab.game_ids()[0])
        if "BOTSEEK" in path:
            path = path.replace("BOTSEEK", bot_seek(self.server))
        if "RATED" in path:
            path = path.replace("RATED", rated_game(self.server))
        if "RANGED" in path:
            path = path.replace("RANGED", rated_game(self.server, range="200"))
        if "CHALLENGE" in path:  # one open challenge, made anew once a change ends it
            if self.shared.get("challenge") is None:
                with self.challenger() as challenger:
                    made = challenger.post("/api/challenges", json=self.challenge_terms())
                assert made.status_code == 201, made.text
                self.shared["challenge"] = made.json()["id"]
            path = path.replace("CHALLENGE", self.shared["challenge"])
        destructive = path in ("/api/account/password", "/api/account/delete")
        if self.viewer == ACCOUNT:
            self.sign_in_as_account(destructive)
        page = not path.startswith("/api/")
        body: dict[str, Any] = {}
        if path.endswith("/password"):
            body = {"password": PASSWORD, "new_password": NEW}
        elif path.endswith("/delete"):
            body = {"password": PASSWORD}
        elif path.endswith(("/signin", "/signup")):
            self.signing = new_name() if path.endswith("/signup") else self.name
            body = credentials(self.signing)
        elif path == "/api/challenges" and method == "POST":
            body = self.challenge_terms()
        if method == "GET":
            answer = self.http.get(path)
        elif page:
            answer = self.http.post(path, data=body)
        else:
            answer = self.http.post(path, json=body)
        if "CHALLENGE" in route and method == "POST" and (answer.is_success or answer.is_redirect):
            self.shared["challenge"] = None  # accepted, declined or cancelled: no longer open
        return answer, str(answer.status_code)

    def challenger(self) -> httpx.Client:
        """A browser signed in as the other account, which challenges the account."""
        http = browser(self.server)
        plant(http, self.shared["other"])
        return http

    def challenge_terms(self) -> dict[str, Any]:
        return {"to": self.shared["name"], "game": boardlab.game_ids()[0]}


def test_every_account_route_for_every_viewer(server: LiveServer) -> None:
    owner, name = signed_up(server)
    other, other_name = signed_up(server, "another password")  # not the account's
    ended = browser(server)
    assert ended.post("/api/account/signin", json=credentials(name)).status_code == 200
    ended_token = session_of(ended)
    assert ended.post("/api/account/signout").status_code == 200
    shared = {"name": name, "ended": ended_token, "other": session_of(other)}
    own = {ACCOUNT: name, OTHER: other_name}
    failures, walked = [], 0
    for row, routes, rule in table():
        for route, viewer in itertools.product(routes, VIEWERS):
            cell = Cell(server, shared, viewer)
            before = owner.get("/api/account").status_code
            answer, status = cell.ask(route)
            want = expected(rule, viewer)
            walked += 1
            where = f"{row}: {route} as {viewer}"
            if want is not None:
                if status != want:
                    failures.append(f"{where}: {status}, the table says {want}")
                # a signed-in viewer's refusal came after a password was checked
                changing = route.endswith(("/password", "/delete")) and viewer == OTHER
                if owner.get("/api/account").status_code != before or (
                    changing and not signs_in(server, name)
                ):
                    failures.append(f"{where}: refused, yet the account changed")
                cell.http.close()
                continue
            good = {"GET": ("200",), "POST": ("200", "201", "303")}[route.split(" ")[0]]
            if status not in good:
                failures.append(f"{where}: {status} {answer.text[:80]}, the table allows it")
            elif route.endswith("/password") and not signs_in(server, cell.name, NEW):
                failures.append(f"{where}: the new password does not sign in")
            elif route.endswith("/delete") and signs_in(server, cell.name):
                failures.append(f"{where}: the deleted account still signs in")
            elif "signout" in route and cell.http.get("/api/account").status_code != 401:
                failures.append(f"{where}: still signed in after signing out")
            elif route == "GET /api/account" and answer.json() != {"name": own[viewer]}:
                failures.append(f"{where}: read {answer.json()}, not its own account")
            elif route.endswith(("/signin", "/signup")):
                me = cell.http.get("/api/account").json()
                if me.get("name") != cell.signing:
                    failures.append(f"{where}: signed in as {me}")
            if cell.fresh:
                assert owner.get("/api/account").status_code == 200
            cell.http.close()
    assert walked >= 100
    assert not failures, "\n".join(failures)
    assert owner.get("/api/account").json() == {"name": name}  # untouched by the walk
    for http in (owner, other, ended):
        http.close()


def test_sign_ins_are_throttled_per_name_and_per_address(server: LiveServer) -> None:
    owner, name = signed_up(server)
    owner.close()
    for _ in range(NAME_FAILURES):  # from as many addresses: the name's count
        with browser(server) as http:
            wrong = http.post("/api/account/signin", json=credentials(name, "wrong password"))
            assert wrong.status_code == 401
    with browser(server) as http:
        right = http.post("/api/account/signin", json=credentials(name))
        assert right.status_code == 429  # the right password too, until the wait is over
        assert 800 <= int(right.headers["retry-after"]) <= 900
        assert "too many failed sign-ins" in right.json()["error"]

    address = next(ADDRESSES)
    other, other_name = signed_up(server)
    other.close()
    for k in range(ADDRESS_FAILURES):  # as many names, from one address
        with browser(server, address) as http:
            wrong = http.post("/api/account/signin", json=credentials(f"nobody{k}", "x" * 9))
            assert wrong.status_code == 401
    with browser(server, address) as http:
        held = http.post("/api/account/signin", json=credentials(other_name))
        assert held.status_code == 429 and int(held.headers["retry-after"]) > 0
    assert signs_in(server, other_name)  # from another address it signs in


def test_no_answer_tells_whether_a_name_exists(server: LiveServer) -> None:
    owner, name = signed_up(server)
    owner.close()
    answers = []
    for who in (name, name.upper(), "nobody-here", "x" * 40):
        with browser(server) as http:
            answers.append(http.post("/api/account/signin", json=credentials(who, "wrong pass")))
    assert {a.status_code for a in answers} == {401}
    assert len({a.text for a in answers}) == 1
    with browser(server) as http:  # the page says it the same way
        pages = [
            http.post("/signin", data=credentials(who, "wrong pass")).text
            for who in (name, "nobody-here")
        ]
    messages = [re.search(r'class="error"[^>]*>([^<]*)<', text) for text in pages]
    assert messages[0] and messages[1] and messages[0].group(1) == messages[1].group(1)


def test_oversized_fields_are_refused_before_any_work(server: LiveServer) -> None:
    with browser(server) as http:
        for body in (
            credentials("n" * 41),
            credentials("someone", "p" * 257),
            {"name": "someone", "password": PASSWORD, "admin": True},
        ):
            for path in ("/api/account/signin", "/api/account/signup"):
                answer = http.post(path, json=body)
                assert answer.status_code == 422, (path, answer.text)
        huge = http.post("/api/account/signin", content=b"{" + b" " * (1 << 21) + b"}")
        assert huge.status_code == 413
        assert http.post("/signup", data=credentials("someone", "p" * 300)).status_code == 400
        assert http.get("/api/account").status_code == 401


def test_forms_from_another_site_act_for_nobody(server: LiveServer) -> None:
    owner, name = signed_up(server)
    token = session_of(owner)
    forged_headers = ({"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"})
    forms = {
        "/signup": credentials(new_name()),
        "/signin": credentials(name),
        "/signout": {},
        "/account/password": {"password": PASSWORD, "new_password": NEW},
        "/account/delete": {"password": PASSWORD},
        "/api/account/signup": credentials(new_name()),
        "/api/account/signin": credentials(name),
        "/api/account/signout": {},
        "/api/account/password": {"password": PASSWORD, "new_password": NEW},
        "/api/account/delete": {"password": PASSWORD},
    }
    for headers in forged_headers:
        for path, body in forms.items():
            with browser(server, **headers) as forged:
                assert token is not None
                plant(forged, token)  # the victim's cookie, sent along by the browser
                if path.startswith("/api/"):
                    answer = forged.post(path, json=body)
                else:
                    answer = forged.post(path, data=body)
                assert answer.status_code == 403, (path, headers, answer.status_code)
                assert "another site" in answer.text
    assert owner.get("/api/account").json() == {"name": name}  # still signed in
    assert signs_in(server, name)  # the password unchanged, the account there
    owner.close()
    with browser(server, **{"sec-fetch-site": "same-origin"}) as own:  # its own pages may
        assert own.post("/signup", data=credentials(new_name())).status_code == 303
        assert own.post("/signout").status_code == 303
