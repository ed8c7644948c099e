"""Who may do what: the permission tables of docs/web.md ("Who may do what"), read from
the document and walked cell by cell against a running server, for every viewer: a game
of the column's kind is made through the routes a browser uses, brought to the row's
moment (an action played, a draw offered, the game over), and asked for the change by
each viewer. An allowed change must happen; a refused one must get its status and leave
the game as it was. The reads are walked too, and no answer may carry a secret.

Holders send their secret in the cookie in some kinds of game and in the header in the
others, so both ways are walked. Where the server disagrees with the table, the test
fails and lists every cell that disagrees."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import sqlalchemy
from websockets.sync.client import connect

from boardlab.web.data import NewGame
from boardlab.web.store import Store
from web_support import SMALL, LiveServer, settled, url_of

DOC = Path(__file__).resolve().parents[1] / "docs" / "web.md"
GAME = "galatjang"
SECTION = "## Who may do what"

#: The words of the tables, each a set of viewers (see the section's second paragraph).
SEAT_TO_ACT, SEAT_NOT_TO_ACT = "seat to act", "seat not to act"
NO_COOKIE, SPECTATOR, OTHER_GAME = "no cookie", "spectator", "other game's seat"
INVITATION = "invitation"
NAMED = (NO_COOKIE, SPECTATOR, OTHER_GAME, INVITATION, SEAT_TO_ACT, SEAT_NOT_TO_ACT)
GROUPS = ("seats", "anyone but seats", "anyone", "nobody", "others", "all")


def a_puzzle() -> tuple[str, str] | None:
    """A shipped puzzle of ``GAME`` and a wrong answer to it (the reads' ``PUZZLE`` and
    ``WRONG``), or None when the game ships none."""
    from boardlab.core.registry import game_class
    from boardlab.puzzles.puzzle import read_puzzles, shipped_path

    path = shipped_path(game_class(GAME))
    if not path.exists():
        return None
    puzzle = read_puzzles(path)[0]
    right = {action for action, _after in puzzle.tree.answers}
    position = puzzle.new_game().from_position_string(puzzle.position)
    return puzzle.id, next(a for a in position.legal_action_strings() if a not in right)


PUZZLE = a_puzzle()
#: An attempt at ``PUZZLE``, as the puzzles page sends it.
ATTEMPT = {"rating": {"rating": 1500, "deviation": 350, "volatility": 0.06}, "solved": True}


# ---------------------------------------------------------------------- the tables
@dataclass(frozen=True)
class Rule:
    """One cell: the viewers that may, then (viewers, status) clauses for the others."""

    text: str
    allowed: tuple[str, ...]
    refused: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def parse(cls, text: str) -> Rule:
        first, *rest = [part.strip() for part in text.split(";")]
        allowed = words(first)
        refused = []
        for clause in rest:
            who, _space, status = clause.rpartition(" ")
            assert re.fullmatch(r"\d{3}|error|none", status), f"bad status in {text!r}"
            refused.append((words(who), status))
        return cls(text, allowed, tuple(refused))

    def expect(self, viewer: Viewer) -> str | None:
        """None if ``viewer`` may; else what it gets."""
        if any(viewer.matches(word) for word in self.allowed):
            return None
        for who, status in self.refused:
            if any(viewer.matches(word) for word in who):
                return status
        raise AssertionError(f"the cell {self.text!r} says nothing of {viewer.name}")


def words(text: str) -> tuple[str, ...]:
    found = tuple(word.strip() for word in text.split(","))
    for word in found:
        assert word in NAMED or word in GROUPS, f"unknown word {word!r} in the table"
    return found


def section() -> str:
    """The section headed exactly ``SECTION`` (not another that begins with its words)."""
    text = DOC.read_text()
    start = text.index(f"\n{SECTION}\n") + 1
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``, each a list of rows of cells (no rule line)."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def name_of(cell: str) -> str:
    """A row's name: its words before the first code span."""
    return cell.split("`", 1)[0].strip()


def routes_of(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def changes_table() -> tuple[list[str], dict[str, dict[str, Rule]]]:
    """The kinds of game (the columns) and, for each change, the rule of each kind."""
    changes, _reads = tables(section())
    kinds = changes[0][1:]
    rows = {}
    for row in changes[1:]:
        assert len(row) == len(kinds) + 1, f"a row of {len(row)} cells: {row[0]}"
        rows[name_of(row[0])] = {
            kind: Rule.parse(cell) for kind, cell in zip(kinds, row[1:], strict=True)
        }
    return kinds, rows


def reads_table() -> list[tuple[str, list[str], Rule]]:
    _changes, reads = tables(section())
    found = []
    for row in reads[1:]:
        walked = ("GET ", "/ws/", "POST /api/puzzles/")  # an attempt: the reads' PUZZLE
        routes = [route for route in routes_of(row[0]) if route.startswith(walked)]
        found.append((name_of(row[0]), routes, Rule.parse(row[1])))
    return found


# ---------------------------------------------------------------------- the server
@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """``boardlab serve`` on PostgreSQL, a host's database, with room for many new
    games. Who may act is decided above the storage, which the API's tests walk on both
    databases."""
    folder = tmp_path_factory.mktemp("permissions")
    db = request.getfixturevalue("postgres").fresh()
    live = LiveServer(db, folder, extra=["--limit", "games=10000", "--limit", "uploads=10000"])
    live.start()
    yield live
    live.stop()


@dataclass(frozen=True)
class Viewer:
    """Someone asking: its kind, what it sends with every request, the seats it holds."""

    name: str
    headers: dict[str, str]
    secret: str | None = None
    seats: frozenset[int] = frozenset()

    @property
    def seated(self) -> bool:
        return self.name in (SEAT_TO_ACT, SEAT_NOT_TO_ACT)

    def matches(self, word: str) -> bool:
        if word in ("anyone", "others", "all"):
            return True
        if word == "seats":
            return self.seated
        if word == "anyone but seats":
            return not self.seated
        return word == self.name


@dataclass
class Made:
    """A game made for one cell: who holds which seat (by how it was made)."""

    id: str
    holders: dict[str, frozenset[int]]
    #: how its holders send their secret: the cookie (False), or the header a program
    #: sends (True)
    header: bool = False
    invitation: str | None = None
    #: a review only (its seat keys gone): its holders hold nothing any more
    review_only: bool = False

    def secrets(self) -> set[str]:
        return {*self.holders, *([self.invitation] if self.invitation else [])}


class Walk:
    """The requests of the walk: one HTTP client that keeps no cookies (each request
    carries exactly what its viewer sends), the sockets, and the games it makes."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))  # keeps none
        # a connection a request: the server's answers on a kept-alive connection wait
        # for the client's delayed ACK (its sockets lack TCP_NODELAY), 40 ms each
        fresh = httpx.Limits(max_keepalive_connections=0)
        self.http = httpx.Client(base_url=server.url, cookies=jar, timeout=120, limits=fresh)
        self.engine = sqlalchemy.create_engine(url_of(server.db))
        self.records: dict[str, str] = {}
        # another game, whose secret the spectator holds as its own and the other
        # game's seat sends as this game's
        self.elsewhere, self.elsewhere_secret = self.new("human")
        self.browser_id = secrets.token_urlsafe(18)

    def close(self) -> None:
        self.http.close()
        self.engine.dispose()

    # ------------------------------------------------------------------ requests
    def post(self, path: str, viewer: Viewer | None = None, **body: Any) -> Any:
        return self.http.post(path, headers=viewer.headers if viewer else {}, **body)

    def get(self, path: str, viewer: Viewer | None = None) -> Any:
        return self.http.get(path, headers=viewer.headers if viewer else {})

    def state(self, game_id: str, viewer: Viewer | None = None) -> dict[str, Any]:
        answer = self.get(f"/api/games/{game_id}", viewer)
        assert answer.status_code == 200, answer.text
        state: dict[str, Any] = answer.json()
        return state

    def socket(self, game_id: str, viewer: Viewer) -> Any:
        """A page's socket on the game, as ``viewer`` (from this server's own origin)."""
        address = f"ws://127.0.0.1:{self.server.port}/ws/games/{game_id}"
        return connect(
            address, origin=self.server.url, additional_headers=viewer.headers, open_timeout=30
        )

    # ------------------------------------------------------------------ viewers
    def viewers(self, made: Made) -> list[Viewer]:
        """Everyone who asks about ``made``: those who hold no seat (with the secret of
        its invitation link, where it had one), then its holders."""
        to_act = self.state(made.id)["to_act"]
        found = [
            Viewer(NO_COOKIE, {}),
            Viewer(
                SPECTATOR,
                {
                    "Cookie": f"boardlab_browser={self.browser_id}; boardlab_name=Eve; "
                    f"seat-{self.elsewhere}={self.elsewhere_secret}"
                },
            ),
            Viewer(
                OTHER_GAME,
                {
                    "Cookie": f"seat-{made.id}={self.elsewhere_secret}",
                    "X-Boardlab-Seat": self.elsewhere_secret,
                },
            ),
        ]
        if made.invitation is not None:
            invitation = made.invitation
            headers = {"Cookie": f"seat-{made.id}={invitation}", "X-Boardlab-Seat": invitation}
            found.append(Viewer(INVITATION, headers))
        for secret, seats in made.holders.items():
            sent = (
                {"X-Boardlab-Seat": secret}
                if made.header
                else {"Cookie": f"seat-{made.id}={secret}"}
            )
            name = SEAT_TO_ACT if to_act in seats else SEAT_NOT_TO_ACT
            held = frozenset() if made.review_only else seats
            found.append(Viewer(name, sent, secret, held))
        return found

    # ------------------------------------------------------------------ making games
    def new(self, opponent: str, **form: str) -> tuple[str, str]:
        """A game from the new game form: its id and the maker's secret."""
        data = {"opponent": opponent, "seat": "0", **SMALL[GAME], **form}
        made = self.http.post(f"/new/{GAME}", data=data)
        assert made.status_code == 303, made.text
        game_id = str(made.headers["location"]).rsplit("/", 1)[1]
        return game_id, cookie(made, f"seat-{game_id}")

    def online(self, listed: bool = False, seated: bool = True) -> Made:
        """A game between two people online: both seated (the friend by the invitation the
        maker's page shows), or the second seat open (listed in the lobby or not)."""
        form = {"lobby": "on"} if listed else {}
        data = {"opponent": "online", "seat": "0", **SMALL[GAME], **form}
        made = self.http.post(f"/new/{GAME}", data=data)
        assert made.status_code == 303, made.text
        game_id = str(made.headers["location"]).rsplit("/", 1)[1]
        secret = cookie(made, f"seat-{game_id}")
        invite = cookie(made, f"invite-{game_id}")
        page = self.http.get(
            f"/play/{game_id}",
            headers={"Cookie": f"seat-{game_id}={secret}; invite-{game_id}={invite}"},
        ).text
        found = re.search(r'id="invitation-link" readonly value="[^"]*(/join/[^"]+)"', page)
        assert found, "the maker's page shows the invitation"
        link = found.group(1)
        if not seated:
            return Made(game_id, {secret: frozenset({0})}, invitation=link.rsplit("/", 1)[1])
        joined = self.http.post(link, data={"name": "Bo"})
        assert joined.status_code == 303, joined.text
        friend = cookie(joined, f"seat-{game_id}")
        invitation = link.rsplit("/", 1)[1]
        return Made(
            game_id, {secret: frozenset({0}), friend: frozenset({1})}, invitation=invitation
        )

    def upload(self, text: str) -> Made:
        """A record uploaded: its seats are the uploader's."""
        files = {"record": ("game.txt", text.encode(), "text/plain")}
        made = self.http.post("/upload", files=files)
        assert made.status_code == 303, made.text
        game_id = str(made.headers["location"]).rsplit("/", 1)[1]
        return Made(game_id, {cookie(made, f"seat-{game_id}"): frozenset({0, 1})})

    def record(self, moment: str) -> str:
        """The record of a game on one screen at ``moment``, to upload (made once)."""
        if moment not in self.records:
            game_id, secret = self.new("human")
            made = Made(game_id, {secret: frozenset({0, 1})})
            self.bring(made, moment)
            answer = self.http.get(f"/api/games/{game_id}/record.txt")
            assert answer.status_code == 200, answer.text
            self.records[moment] = answer.text
        return self.records[moment]

    def make(self, kind: str, moment: str) -> Made:
        """A game of ``kind`` (a column of the table) at ``moment``: ``start`` (a person
        to act), ``played`` (a person has played), ``offered`` (the seat to act offers a
        draw, where draws are) or ``over``."""
        if kind == "against the AI":
            game_id, secret = self.new("beginner")
            settled(self.http, game_id)
            made = Made(game_id, {secret: frozenset({0})})
        elif kind == "hot seat":
            game_id, secret = self.new("human")
            made = Made(game_id, {secret: frozenset({0, 1})}, header=True)
        elif kind == "online":
            made = self.online()
        elif kind == "online, waiting":
            made = self.online(seated=False)
        elif kind == "in the lobby":
            made = self.online(listed=True, seated=False)
            made.header = True
        elif kind == "uploaded":
            made = self.upload(self.record("over" if moment == "over" else "played"))
            made.header = True
            return made
        elif kind == "rematch":
            first = self.online()
            self.bring(first, "over")
            (maker, friend) = first.holders
            asked = self.http.post(
                f"/rematch/{first.id}", headers={"Cookie": f"seat-{first.id}={maker}"}
            )
            assert asked.status_code == 303, asked.text
            game_id = str(asked.headers["location"]).rsplit("/", 1)[1]
            holders = {maker: frozenset({1}), friend: frozenset({0})}
            made = Made(game_id, holders, header=True, invitation=first.invitation)
        elif kind == "before secrets":
            # a game as stored before seats had keys: played to the moment as a game on
            # one screen, then stored again without keys, straight into the database,
            # as the server has never seen it
            game_id, secret = self.new("human")
            played = Made(game_id, {secret: frozenset({0, 1})})
            self.bring(played, moment)
            store = Store(url_of(self.server.db), upgrade=None)
            was = store.load(game_id)
            old = store.create(
                NewGame(
                    was.game,
                    was.options,
                    was.seats,
                    "old",
                    actions=was.actions,
                    resigned=was.resigned,
                    result=was.result,
                    ending=was.ending,
                )
            )
            store.engine.dispose()
            return Made(old, {secret: frozenset({0, 1})}, review_only=True)
        else:
            raise AssertionError(f"a kind of game the test does not know: {kind!r}")
        self.bring(made, moment)
        return made

    def bring(self, made: Made, moment: str) -> None:
        """Bring a fresh game to ``moment``, as its seat to act."""
        state = self.state(made.id)
        if moment == "start" or state["open_seat"] is not None:
            return
        actor = next(v for v in self.viewers(made) if v.name == SEAT_TO_ACT)
        ply = state["ply"]
        if moment == "played":
            action = state["legal"][0]["action"]
            answer = self.post(
                f"/api/games/{made.id}/play", actor, json={"action": action, "ply": ply}
            )
        elif moment == "offered":
            if not state["online"]:
                return
            answer = self.post(
                f"/api/games/{made.id}/draw", actor, json={"answer": "offer", "ply": ply}
            )
        elif moment == "asked":  # the seat to act plays, then asks to take it back
            self.bring(made, "played")
            if not state["online"]:
                return
            answer = self.post(
                f"/api/games/{made.id}/takeback", actor, json={"answer": "offer", "ply": ply + 1}
            )
        else:
            answer = self.post(f"/api/games/{made.id}/resign", actor, json={"ply": ply})
        assert answer.status_code == 200, answer.text
        after = settled(self.http, made.id)
        assert (after["outcome"] is None) == (moment != "over"), after


def cookie(answer: Any, name: str) -> str:
    """The value of a cookie an answer sets."""
    for header in answer.headers.get_list("set-cookie"):
        if header.startswith(f"{name}="):
            return str(header.split("=", 1)[1].split(";", 1)[0])
    raise AssertionError(f"no cookie {name} in {answer.headers.get_list('set-cookie')}")


# ---------------------------------------------------------------------- the changes
@dataclass
class Outcome:
    """What a viewer's request got: a status (or ``error`` on the socket) and a check
    that the change happened, run only if it was allowed."""

    status: str
    happened: Callable[[], None] = field(default=lambda: None)


#: The moment of the game each change is asked at (the rest: ``start``).
MOMENTS = {
    "undo": "played",
    "accept a draw": "offered",
    "decline a draw": "offered",
    "ask to take back": "played",
    "accept a takeback": "asked",
    "decline a takeback": "asked",
    "rematch": "over",
}


#: The changes a page also sends over its socket (named as their HTTP routes), and the
#: first words of their rows in the table.
SOCKET_CHANGES = ("play", "undo", "resign", "draw", "takeback", "claim", "abort")
ROWS_ON_SOCKET = ("play", "undo", "resign", "offer", "accept", "decline", "ask", "claim", "abort")


@dataclass
class SocketAnswer:
    """What a change sent over the socket got, read as an HTTP answer is: the status
    (200 for an ack, else the error's) and the game as it stands after."""

    status_code: int
    text: str
    state: dict[str, Any] | None = None

    def json(self) -> Any:
        return self.state


def over_socket(walk: Walk, made: Made, viewer: Viewer, kind: str, body: dict[str, Any]) -> Any:
    """Send the change ``kind`` with ``body`` on a page's socket, as a page does; its
    answer, as an HTTP answer would be read."""
    with walk.socket(made.id, viewer) as page:
        page.send(json.dumps({"type": kind, "id": 41, **body}))
        for message in messages(page):
            if message.get("id") == 41:
                break
    if message["type"] == "ack":
        state = walk.state(made.id, viewer)
        return SocketAnswer(200, json.dumps(state), state)
    return SocketAnswer(int(message["status"]), message["message"])


def ask(
    walk: Walk,
    change: str,
    made: Made,
    viewer: Viewer,
    before: dict[str, Any],
    socket: bool = False,
) -> Outcome:
    """Ask for ``change`` (a row of the table) in ``made``, whose state is ``before``, as
    ``viewer``: over HTTP, or (``socket``, for the changes a page sends so) over the
    game's socket."""
    game = f"/api/games/{made.id}"
    ply, to_act = before["ply"], before["to_act"]

    class Sender:
        def post(self, path: str, viewer: Viewer, json: dict[str, Any]) -> Any:
            kind = path.rsplit("/", 1)[1]
            if socket and kind in SOCKET_CHANGES:
                return over_socket(walk, made, viewer, kind, json)
            return walk.post(path, viewer, json=json)

    sender = Sender()

    def answered(response: Any, happened: Callable[[Any], None]) -> Outcome:
        return Outcome(str(response.status_code), lambda: happened(response))

    if change == "play an action":
        action = before["legal"][0]["action"] if before["legal"] else "s1"
        response = sender.post(f"{game}/play", viewer, json={"action": action, "ply": ply})

        def played(response: Any) -> None:
            # the action is the game's next (an AI may have answered it already: over the
            # socket, the state is read after the ack)
            actions = [a for turn in response.json()["moves"] for a in turn["actions"]]
            assert len(actions) > ply and actions[ply] == action, actions

        return answered(response, played)
    if change == "undo":
        response = sender.post(f"{game}/undo", viewer, json={"ply": ply})
        return answered(response, lambda r: check(r.json()["ply"] < ply, r.text))
    if change == "resign":
        response = sender.post(f"{game}/resign", viewer, json={"ply": ply})

        def resigned(response: Any) -> None:
            outcome = response.json()["outcome"]
            loser = to_act if to_act in viewer.seats else min(viewer.seats)
            assert outcome["reason"] == "resign" and outcome["winner"] == 1 - loser, outcome

        return answered(response, resigned)
    if change.endswith("a draw"):
        word = change.split()[0]
        response = sender.post(f"{game}/draw", viewer, json={"answer": word, "ply": ply})

        def drawn(response: Any) -> None:
            state = response.json()
            if word == "offer":
                assert [state["draw_offer"]] == sorted(viewer.seats), state["draw_offer"]
            elif word == "accept":
                assert state["outcome"]["reason"] == "agreement", state["outcome"]
            else:
                assert state["draw_offer"] is None and state["outcome"] is None

        return answered(response, drawn)
    if change == "ask to take back" or change.endswith("a takeback"):
        word = "offer" if change == "ask to take back" else change.split()[0]
        response = sender.post(f"{game}/takeback", viewer, json={"answer": word, "ply": ply})

        def taken(response: Any) -> None:
            state = response.json()
            if word == "offer":
                assert [state["takeback_offer"]] == sorted(viewer.seats), state["takeback_offer"]
            elif word == "accept":
                assert state["ply"] < ply and state["takeback_offer"] is None, state["ply"]
            else:
                assert state["takeback_offer"] is None and state["ply"] == ply

        return answered(response, taken)
    if change == "claim the win":  # (allowed only after the other has been away a while)
        response = sender.post(f"{game}/claim", viewer, json={"ply": ply})

        def claimed(response: Any) -> None:
            assert response.json()["outcome"]["reason"] == "abandoned", response.text

        return answered(response, claimed)
    if change == "abort":
        response = sender.post(f"{game}/abort", viewer, json={"ply": ply})

        def aborted(response: Any) -> None:
            outcome = response.json()["outcome"]
            assert outcome["reason"] == "aborted" and outcome["winner"] is None, outcome
            assert outcome["aborted_by"] == min(viewer.seats), outcome
            assert response.json()["legal"] == [], "actions left in an aborted game"

        return answered(response, aborted)
    if change == "hint":
        response = sender.post(f"{game}/hint", viewer, json={"ply": ply})
        legal = {item["action"] for item in before["legal"]}
        return answered(response, lambda r: check(r.json()["action"] in legal, r.text))
    if change == "rematch":
        return ask_rematch(walk, made, viewer)
    if change == "chat":
        return ask_chat(walk, made, viewer)
    if change.startswith("take the open seat"):
        if change.endswith("lobby"):
            path = f"/lobby/{made.id}"
        elif change.endswith("by the invitation"):
            path = f"/join/{made.id}/{made.invitation or secrets.token_urlsafe(24)}"
        else:
            path = f"/join/{made.id}/{secrets.token_urlsafe(24)}"
        response = walk.post(path, viewer, data={"name": "Cy"})
        return answered(response, lambda r: seated(walk, made, before, r))
    if change == "hold a seat by a link with another game's secret":
        response = walk.get(f"/seat/{made.id}/{walk.elsewhere_secret}", viewer)

        def held(response: Any) -> None:
            assert cookie(response, f"seat-{made.id}") == walk.elsewhere_secret
            holder = Viewer("holder", {"X-Boardlab-Seat": walk.elsewhere_secret})
            assert walk.state(made.id, holder)["you"], "the link holds no seat"

        return answered(response, held)
    raise AssertionError(f"a change the test does not know: {change!r}")


def check(condition: bool, message: str) -> None:
    assert condition, message


def seated(walk: Walk, made: Made, before: dict[str, Any], response: Any) -> None:
    """A seat was taken: the new secret holds the open seat, and it is open no more."""
    assert response.headers["location"] == f"/play/{made.id}"
    secret = cookie(response, f"seat-{made.id}")
    state = walk.state(made.id, Viewer("taker", {"X-Boardlab-Seat": secret}))
    assert state["you"] == [before["open_seat"]] and state["open_seat"] is None, state


def ask_rematch(walk: Walk, made: Made, viewer: Viewer) -> Outcome:
    """Both ways of asking: the API (a program) and the game page's button (a form)."""
    api = walk.post(f"/api/games/{made.id}/rematch", viewer)
    page = walk.post(f"/rematch/{made.id}", viewer)
    if api.status_code == 200 and page.status_code == 303:
        new_id = api.json()["id"]

        def made_it() -> None:
            assert page.headers["location"] == f"/play/{new_id}"
            assert cookie(page, f"seat-{new_id}") == viewer.secret
            state = walk.state(new_id, Viewer("asker", {"X-Boardlab-Seat": str(viewer.secret)}))
            assert state["you"] == sorted(1 - seat for seat in viewer.seats), state["you"]

        return Outcome("200", made_it)
    statuses = {str(api.status_code), str(page.status_code)}
    assert len(statuses) == 1, f"the API answered {api.status_code}, the page {page.status_code}"
    return Outcome(statuses.pop())


def ask_chat(walk: Walk, made: Made, viewer: Viewer) -> Outcome:
    """Say a line on the socket, with every viewer's page open on the game: the speaker
    is answered with an error, or the line goes to the pages the reads table names."""
    text = f"line {secrets.token_hex(4)}"
    everyone = walk.viewers(made)
    (chat_rule,) = [rule for name, _routes, rule in reads_table() if "chat" in name]
    with contextlib.ExitStack() as stack:
        speaker = stack.enter_context(walk.socket(made.id, viewer))
        pages = [(other, stack.enter_context(walk.socket(made.id, other))) for other in everyone]
        for _other, page in pages:
            json.loads(page.recv(timeout=30))  # the state it opens with
        speaker.send(json.dumps({"type": "chat", "text": text}))
        for message in messages(speaker):
            if message["type"] == "error":
                return Outcome("error")
            if message["type"] == "chat" and any(line["text"] == text for line in message["lines"]):
                break
        heard = [said(page, text) for _other, page in pages]

    def told() -> None:
        for other, heard_it in zip(everyone, heard, strict=True):
            expected = chat_rule.expect(other) is None
            assert heard_it == expected, f"{other.name} heard the line: {heard_it}"

    return Outcome("200", told)


def messages(page: Any, seconds: float = 30.0) -> Iterator[dict[str, Any]]:
    deadline = time.monotonic() + seconds
    while True:
        message: dict[str, Any] = json.loads(
            page.recv(timeout=max(0.1, deadline - time.monotonic()))
        )
        yield message


def said(page: Any, text: str) -> bool:
    """Whether ``page`` has been sent the line ``text`` (read up to the answer to a ping,
    which comes after anything sent to it before)."""
    page.send(json.dumps({"type": "ping"}))
    heard = False
    for message in messages(page):
        if message["type"] == "pong":
            return heard
        if message["type"] == "chat":
            heard |= any(line["text"] == text for line in message["lines"])
    return heard


def unchanged(walk: Walk, made: Made, before: dict[str, Any]) -> None:
    """The game as it was before a refused request."""
    after = walk.state(made.id)
    for key in (
        "revision",
        "ply",
        "outcome",
        "draw_offer",
        "takeback_offer",
        "open_seat",
        "rematch",
    ):
        assert after[key] == before[key], f"{key} was {before[key]!r}, is {after[key]!r}"


def first_line(error: AssertionError) -> str:
    """An assertion's own message, without pytest's explanation after it."""
    return str(error).splitlines()[0] if str(error) else "assertion failed"


def chat_of(walk: Walk, made: Made) -> list[str]:
    """The game's chat as its first holder's page gets it when it opens."""
    holder = next(viewer for viewer in walk.viewers(made) if viewer.seated)
    with walk.socket(made.id, holder) as page:
        page.send(json.dumps({"type": "ping"}))  # answered after all it opens with
        lines: list[str] = []
        for message in messages(page):
            if message["type"] == "chat":
                lines = [line["text"] for line in message["lines"]]
            if message["type"] == "pong":
                return lines
    return lines


# ---------------------------------------------------------------------- the walk
def test_every_change_and_read_for_every_viewer_in_every_kind_of_game(
    server: LiveServer,
) -> None:
    """Each cell of the changes table, as each viewer (a new game for each change that
    is allowed; one game for the refusals, which change nothing, made again after one
    that did), then each read."""
    kinds, rows = changes_table()
    assert len(kinds) == 8 and len(rows) == 18, (kinds, list(rows))
    walk = Walk(server)
    failures: list[str] = []
    walked = socketed = 0
    try:
        for change, rules in rows.items():
            moment = MOMENTS.get(change, "start")
            for kind, rule in rules.items():
                refusals = walk.make(kind, moment)  # refusals change nothing: one game
                for index, viewer in enumerate(walk.viewers(refusals)):
                    what = f"{change} | {kind} | {viewer.name}"
                    expected = rule.expect(viewer)
                    made = refusals if expected is not None else walk.make(kind, moment)
                    asking = walk.viewers(made)[index]  # in a new game, its own secret
                    assert asking.name == viewer.name, what
                    before = walk.state(made.id)
                    chat = chat_of(walk, made) if change == "chat" else []
                    walked += 1
                    try:
                        # a refusal is asked both ways; an allowed change one way, in turn
                        ways = [False, True] if expected is not None else [index % 2 == 1]
                        for socket in ways:
                            how = " (socket)" if socket else ""
                            got = ask(walk, change, made, asking, before, socket)
                            socketed += socket and change.split()[0] in ROWS_ON_SOCKET
                            if expected is None:
                                assert got.status in ("200", "303"), f"refused{how}: {got.status}"
                                got.happened()
                            else:
                                assert got.status == expected, (
                                    f"got {got.status}{how}, not {expected}"
                                )
                                unchanged(walk, made, before)
                                if change == "chat":
                                    assert chat_of(walk, made) == chat, "a refused line was kept"
                    except AssertionError as error:
                        failures.append(f"{what}: {first_line(error)}")
                        if expected is not None:  # a refusal that was not may have moved it
                            refusals = walk.make(kind, moment)
        for kind in kinds:
            walked += read_all(walk, kind, failures)
    finally:
        walk.close()
    assert walked > 400, walked
    assert not failures, "\n".join(failures)


def read_all(walk: Walk, kind: str, failures: list[str]) -> int:
    """Every read of the reads table, by every viewer of a game of ``kind``: what
    ``anyone`` may read is answered to all, with the asker's own seats and no secret
    (but a holder's own seat link on its game page). The chat is walked with the
    changes. How many reads."""
    made = walk.make(kind, "played")
    count = 0
    for viewer in walk.viewers(made):
        hidden = made.secrets() | {walk.elsewhere_secret}
        for name, routes, rule in reads_table():
            if "chat" in name:
                continue
            for route in routes:
                if ("GAME" in route or "PUZZLE" in route) and kind != "against the AI":
                    continue  # a position no game holds: the same for every kind of game
                if "PUZZLE" in route and PUZZLE is None:
                    continue  # the game ships no puzzles: tests/test_web_puzzles.py says so
                what = f"read {route} | {kind} | {viewer.name}"
                count += 1
                try:
                    assert rule.allowed == ("anyone",), f"a read for {rule.text!r}"
                    path = route.removeprefix("GET ").replace("ID", made.id)
                    path = path.replace("GAME", GAME)
                    if PUZZLE is not None:
                        path = path.replace("PUZZLE", PUZZLE[0]).replace("WRONG", PUZZLE[1])
                    if route.startswith("/ws/"):
                        with walk.socket(made.id, viewer) as page:
                            page.send(json.dumps({"type": "ping"}))
                            told = list(
                                itertools.takewhile(lambda m: m["type"] != "pong", messages(page))
                            )
                        text = json.dumps(told)  # all it opens with
                        you = told[0]["you"]
                        assert told[0]["type"] == "welcome", f"first: {told[0]['type']}"
                        assert you == sorted(viewer.seats), f"you: {you}"
                    elif path.startswith("POST "):  # an attempt at a puzzle
                        answer = walk.post(path.removeprefix("POST "), viewer, json=ATTEMPT)
                        assert answer.status_code == 200, f"got {answer.status_code}"
                        text = answer.text
                    else:
                        answer = walk.get(path, viewer)
                        assert answer.status_code == 200, f"got {answer.status_code}"
                        text = answer.text
                        if path == f"/api/games/{made.id}":
                            you = answer.json()["you"]
                            assert you == sorted(viewer.seats), f"you: {you}"
                    own = {viewer.secret} if path == f"/play/{made.id}" else set()
                    shown = [s for s in hidden - own if s in text]
                    assert not shown, f"a secret shown: {shown} (its own: {viewer.secret})"
                except AssertionError as error:
                    failures.append(f"{what}: {first_line(error)}")
    return count
