"""Two people online: a game made with an invitation link or put in the lobby, seats that
only their secret acts for, spectators who watch live and act for no one, and two
answers to one turn of which exactly one is stored. Every test runs on SQLite and on
PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.client
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect

import boardlab.web.rooms
import boardlab.web.store
from boardlab.web.app import create_app
from boardlab.web.data import HUMAN, NewGame, StoredGame, Viewer, key_of
from boardlab.web.deps import redacted
from boardlab.web.service import GameService
from boardlab.web.store import Store
from web_support import SMALL, TESTING, LiveServer, alive_process, browsers


@pytest.fixture
def people(database: str) -> Iterator[list[TestClient]]:
    """Four browsers (each its own cookies) on one app: a creator, a friend, and two
    more to watch or to come too late."""
    with browsers(create_app(database, workers=1, limits=TESTING), 4) as people:
        yield people


def online_game(http: TestClient, lobby: bool = False, seat: str = "0") -> str:
    form = {"opponent": "online", "seat": seat, **SMALL["galatjang"]}
    if lobby:
        form["lobby"] = "true"
    answer = http.post("/new/galatjang", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def invitation_of(http: TestClient, game_id: str) -> str:
    page = http.get(f"/play/{game_id}").text
    found = re.search(r'id="invitation-link" readonly value="([^"]+)"', page)
    assert found, "the creator's page shows the invitation"
    return found.group(1).split("testserver", 1)[1]


def play(http: TestClient, game_id: str, action: str | None = None) -> Any:
    state = http.get(f"/api/games/{game_id}").json()
    chosen = action or state["legal"][0]["action"]
    return http.post(f"/api/games/{game_id}/play", json={"action": chosen, "ply": state["ply"]})


def test_an_invitation_seats_a_friend_and_spectators_only_watch(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = online_game(creator)
    waiting = creator.get(f"/api/games/{game_id}").json()
    assert waiting["open_seat"] == 1 and waiting["you"] == [0] and waiting["online"]
    refused = play(creator, game_id)
    assert refused.status_code == 400 and "invitation" in refused.json()["error"]
    link = invitation_of(creator, game_id)
    assert friend.get(link).status_code == 200  # a page with a button: a GET takes nothing
    assert friend.get(f"/api/games/{game_id}").json()["open_seat"] == 1
    joined = friend.post(link, follow_redirects=False)
    assert joined.status_code == 303
    state = friend.get(f"/api/games/{game_id}").json()
    assert state["you"] == [1] and state["open_seat"] is None
    # South (the creator) moves; North (the friend) may not move for South, nor a spectator
    assert play(friend, game_id).status_code == 403
    assert play(spectator, game_id).status_code == 403
    assert play(creator, game_id).status_code == 200
    assert play(creator, game_id).status_code == 403  # now it is North's turn
    assert play(friend, game_id).status_code == 200
    seen = spectator.get(f"/api/games/{game_id}").json()
    assert seen["you"] == [] and not seen["you_act"] and seen["ply"] >= 2
    for who in (creator, friend, spectator):
        answer = who.post(f"/api/games/{game_id}/undo", json={"ply": seen["ply"]})
        assert answer.status_code in (400, 403)
    too_late = people[3].post(link, follow_redirects=False)
    assert too_late.status_code == 409


def test_a_secret_acts_only_in_its_own_game(people: list[Any]) -> None:
    creator, friend, *_ = people
    first, second = online_game(creator), online_game(friend)
    friend_secret = friend.cookies.get(f"seat-{second}")
    assert friend_secret
    for header in (friend_secret, "x" * 32):
        state = creator.get(f"/api/games/{first}").json()
        answer = people[2].post(
            f"/api/games/{first}/resign",
            json={"ply": state["ply"]},
            headers={"X-Boardlab-Seat": header},
        )
        assert answer.status_code in (400, 403), answer.text
    assert creator.get(f"/api/games/{first}").json()["outcome"] is None


def test_the_lobby_lists_a_game_until_one_person_takes_its_seat(people: list[Any]) -> None:
    creator, first, second, _ = people
    game_id = online_game(creator, lobby=True, seat="1")
    assert game_id in first.get("/lobby").text
    results: list[tuple[TestClient, int]] = []

    def take(http: TestClient) -> None:
        results.append((http, http.post(f"/lobby/{game_id}", follow_redirects=False).status_code))

    racers = [threading.Thread(target=take, args=(who,)) for who in (first, second)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert sorted(code for _, code in results) == [303, 409]
    assert game_id not in creator.get("/lobby").text
    (winner,) = [who for who, code in results if code == 303]
    (loser,) = [who for who, code in results if code == 409]
    assert winner.get(f"/api/games/{game_id}").json()["you"] == [0]
    assert loser.get(f"/api/games/{game_id}").json()["you"] == []
    assert play(winner, game_id).status_code == 200  # South, the seat left open, begins


def test_two_answers_to_one_turn_store_exactly_one(people: list[Any]) -> None:
    creator, *_ = people
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    game_id = str(
        creator.post("/new/galatjang", data=form, follow_redirects=False).headers["location"]
    ).rsplit("/", 1)[1]
    secret = creator.cookies.get(f"seat-{game_id}")
    state = creator.get(f"/api/games/{game_id}").json()
    codes: list[int] = []
    actions = [entry["action"] for entry in state["legal"][:2]]

    def send(action: str) -> None:
        answer = people[1].post(
            f"/api/games/{game_id}/play",
            json={"action": action, "ply": 0},
            headers={"X-Boardlab-Seat": secret},
        )
        codes.append(answer.status_code)

    threads = [threading.Thread(target=send, args=(a,)) for a in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200, 409]
    after = creator.get(f"/api/games/{game_id}").json()
    assert after["ply"] == 1 and after["moves"][0]["actions"][0] in actions


def test_secrets_are_stored_hashed_and_never_shown_to_others(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = online_game(creator)
    link = invitation_of(creator, game_id)
    friend.post(link)
    secrets = [creator.cookies.get(f"seat-{game_id}"), link.rsplit("/", 1)[1]]
    app = creator.app
    stored = app.state.service.store.load(game_id)  # type: ignore[attr-defined]
    assert stored.seat_keys is not None
    for secret in secrets:
        assert secret and secret not in repr(stored)
        assert secret not in spectator.get(f"/play/{game_id}").text
        assert secret not in spectator.get(f"/api/games/{game_id}").text
    assert secrets[0] in creator.get(f"/play/{game_id}").text  # the seat link, for itself
    assert redacted(f"/seat/{game_id}/{secrets[0]}") == f"/seat/{game_id}/…"
    assert redacted(f"/join/{game_id}/{secrets[1]}") == f"/join/{game_id}/…"


def test_a_seat_link_holds_the_seat_in_another_browser(people: list[Any]) -> None:
    creator, _, other_device, _ = people
    game_id = online_game(creator)
    page = creator.get(f"/play/{game_id}").text
    seat_link = re.search(r'aria-label="Your seat link"|value="(http[^"]+/seat/[^"]+)"', page)
    found = re.findall(r'value="http://testserver(/seat/[^"]+)"', page)
    assert seat_link and found
    assert other_device.get(found[0], follow_redirects=False).status_code == 303
    assert other_device.get(f"/api/games/{game_id}").json()["you"] == [0]
    wrong = other_device.get(f"/seat/{game_id}/{'y' * 32}", follow_redirects=False)
    assert wrong.status_code == 404


def test_watchers_see_each_move_live_as_a_spectator(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = online_game(creator)
    friend.post(invitation_of(creator, game_id))
    with spectator.websocket_connect(f"/ws/games/{game_id}") as socket:
        assert next_of(socket, "welcome")["you"] == []
        assert next_of(socket, "state")["state"]["ply"] == 0
        assert play(creator, game_id).status_code == 200
        moved = next_of(socket, "state")["state"]
        assert moved["ply"] == 1 and "you" not in moved and "you_act" not in moved


def seated(people: list[Any]) -> str:
    """A game between the first two people, the friend seated by the invitation."""
    creator, friend, *_ = people
    game_id = online_game(creator)
    assert friend.post(invitation_of(creator, game_id), follow_redirects=False).status_code == 303
    return game_id


def test_a_draw_is_offered_declined_voided_and_agreed(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = seated(people)

    def draw(who: TestClient, answer: str) -> Any:
        ply = who.get(f"/api/games/{game_id}").json()["ply"]
        return who.post(f"/api/games/{game_id}/draw", json={"ply": ply, "answer": answer})

    assert draw(spectator, "offer").status_code == 403
    assert draw(friend, "accept").status_code == 400  # nothing offered yet
    assert draw(creator, "offer").json()["draw_offer"] == 0
    assert draw(creator, "offer").status_code == 400  # once is enough
    assert draw(creator, "accept").status_code == 400  # not one's own
    assert draw(friend, "decline").json()["draw_offer"] is None
    assert draw(friend, "offer").status_code == 200
    assert play(creator, game_id).status_code == 200  # an action voids the offer
    assert creator.get(f"/api/games/{game_id}").json()["draw_offer"] is None
    assert draw(creator, "offer").status_code == 200
    agreed = draw(friend, "accept").json()
    assert agreed["outcome"]["winner"] is None and agreed["outcome"]["reason"] == "agreement"
    record = creator.get(f"/api/games/{game_id}/record.txt").text
    assert '[Reason "agreement"]' in record and '[Result "draw"]' in record
    assert draw(friend, "offer").status_code == 400


def test_a_takeback_is_asked_declined_voided_and_agreed(people: list[Any]) -> None:
    """A player online asks to take back their last turn (and the reply to it); the
    other declines or allows it; any action voids the request; after it the asker is to
    act where their turn began, their clock running."""
    creator, friend, spectator, _ = people
    form = {"opponent": "online", "seat": "0", "clock": "5+3", "pits": "5", "seeds": "4"}
    made = creator.post("/new/galatjang", data=form, follow_redirects=False)
    game_id = str(made.headers["location"]).rsplit("/", 1)[1]
    assert friend.post(invitation_of(creator, game_id), follow_redirects=False).status_code == 303

    def state() -> Any:
        return creator.get(f"/api/games/{game_id}").json()

    def takeback(who: TestClient, answer: str) -> Any:
        return who.post(
            f"/api/games/{game_id}/takeback", json={"ply": state()["ply"], "answer": answer}
        )

    def turn(who: TestClient, seat: int) -> None:
        """``who`` plays the whole turn of ``seat``."""
        while state()["to_act"] == seat and state()["outcome"] is None:
            assert play(who, game_id).status_code == 200

    assert takeback(spectator, "offer").status_code == 403
    refused = takeback(creator, "offer")
    assert refused.status_code == 400 and "not played yet" in refused.json()["error"]
    turn(creator, 0)
    after_first = state()
    assert takeback(creator, "offer").json()["takeback_offer"] == 0
    assert takeback(creator, "offer").status_code == 400  # once is enough
    assert takeback(creator, "accept").status_code == 400  # not one's own
    declined = takeback(friend, "decline").json()
    assert declined["takeback_offer"] is None and declined["ply"] == after_first["ply"]
    assert takeback(creator, "offer").status_code == 200
    turn(friend, 1)  # an action voids the request
    assert state()["takeback_offer"] is None
    before_second = state()
    turn(creator, 0)
    turn(friend, 1)
    assert takeback(creator, "offer").status_code == 200
    agreed = takeback(friend, "accept").json()
    # back to where the creator's last turn began, the friend's reply gone too
    assert agreed["ply"] == before_second["ply"] and agreed["to_act"] == 0
    assert agreed["position"] == before_second["position"]
    assert agreed["moves"] == before_second["moves"] and agreed["takeback_offer"] is None
    assert agreed["clock"]["running"] == 0


def test_a_win_is_claimed_from_an_opponent_who_left(
    people: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player online whose opponent has had no page of the game open for
    ``CLAIM_SECONDS`` (here one) may claim the win: not while the opponent's page is
    open, not before the time, not as a spectator; the absent player loses, reason
    ``abandoned``, and the pages are told when the claim becomes possible."""
    monkeypatch.setattr(boardlab.web.rooms, "CLAIM_SECONDS", 1)
    creator, friend, spectator, _ = people
    game_id = seated(people)

    def claim(who: TestClient) -> Any:
        ply = creator.get(f"/api/games/{game_id}").json()["ply"]
        return who.post(f"/api/games/{game_id}/claim", json={"ply": ply})

    with friend.websocket_connect(f"/ws/games/{game_id}") as page:
        assert next_of(page, "welcome")["you"] == [1]
        time.sleep(1.2)
        here = claim(creator)
        assert here.status_code == 400 and "is here" in here.json()["error"]
    # the friend's page has closed: away from now, the creator's page is told when
    with creator.websocket_connect(f"/ws/games/{game_id}") as page:
        next_of(page, "welcome")
        status = next_of(page, "state")["state"]
        while status["away"] != [1]:
            status = next_of(page, "status")
        assert status["claim_from"][0] is None and status["claim_from"][1] is not None
        early = claim(creator)
        assert early.status_code == 400 and "may be claimed after 1 s" in early.json()["error"]
        assert claim(spectator).status_code == 403
        time.sleep(1.2)
        won = claim(creator).json()
    assert won["outcome"]["winner"] == 0 and won["outcome"]["reason"] == "abandoned"
    record = creator.get(f"/api/games/{game_id}/record.txt").text
    assert '[Reason "abandoned"]' in record
    assert claim(creator).status_code == 400  # over


def abort(who: TestClient, game_id: str, ply: int | None = None) -> Any:
    """``who`` asks to abort the game (at the ply it holds, unless ``ply`` is given)."""
    if ply is None:
        ply = who.get(f"/api/games/{game_id}").json()["ply"]
    return who.post(f"/api/games/{game_id}/abort", json={"ply": ply})


def test_a_game_aborted_before_it_has_begun_ends_with_no_result_on_every_page(
    people: list[Any], database: str
) -> None:
    """Either player may abort a game online while each has had at most one turn: both
    pages and a spectator's are told at once, nothing more is played, the game stays
    to be read (its page, its record, its list, its upload) marked as aborted, with no
    winner and no draw, also after the server starts again."""
    creator, friend, spectator, _ = people
    game_id = online_game(creator)
    joined = friend.post(invitation_of(creator, game_id), data={"name": "Bo"})
    assert joined.status_code == 200, joined.text
    with contextlib.ExitStack() as stack:
        pages = [
            stack.enter_context(who.websocket_connect(f"/ws/games/{game_id}"))
            for who in (creator, friend, spectator)
        ]
        for page in pages:
            assert next_of(page, "state")["state"]["abortable"] is True
        while creator.get(f"/api/games/{game_id}").json()["to_act"] == 0:  # a whole turn
            assert play(creator, game_id).status_code == 200
        ply = creator.get(f"/api/games/{game_id}").json()["ply"]
        assert creator.get(f"/api/games/{game_id}").json()["abortable"]  # one turn: still
        assert abort(spectator, game_id).status_code == 403
        stale = abort(friend, game_id, ply - 1)
        assert stale.status_code == 409
        aborted = abort(friend, game_id).json()
        assert aborted["outcome"]["sentence"] == "The game was aborted by North (Bo)."
        for page in pages:
            told = next_of(page, "state")["state"]
            while told["outcome"] is None:
                told = next_of(page, "state")["state"]
            assert told["outcome"]["sentence"] == "The game was aborted by North (Bo)."
            assert told["abortable"] is False and told["legal"] == [] and told["to_act"] is None
    outcome = aborted["outcome"]
    assert outcome["reason"] == "aborted" and outcome["result"] == "aborted"
    assert outcome["winner"] is None and outcome["aborted_by"] == 1
    refused = play(friend, game_id, "s1")
    assert refused.status_code == 400 and "over" in refused.json()["error"]
    assert abort(creator, game_id).status_code == 400  # over
    assert creator.post(f"/api/games/{game_id}/resign", json={"ply": ply}).status_code == 400
    assert creator.get(f"/play/{game_id}").status_code == 200
    text = creator.get(f"/api/games/{game_id}/record.txt").text
    assert '[Result "aborted"]' in text and '[Reason "aborted"]' in text
    assert '[Aborted "north"]' in text and text.rstrip().endswith("aborted")
    assert "Points" not in text and "draw" not in text
    data = creator.get(f"/api/games/{game_id}/record.json").json()
    assert data["aborted"] == "north" and data["outcome"] is None and data["resigned"] is None
    assert "aborted" in creator.get("/games").text
    # read back from its record: an upload is aborted too
    uploaded = creator.post(
        "/upload", files={"record": ("game.txt", text.encode())}, follow_redirects=False
    )
    assert uploaded.status_code == 303, uploaded.text
    again = str(uploaded.headers["location"]).rsplit("/", 1)[1]
    read_back = creator.get(f"/api/games/{again}").json()["outcome"]
    assert read_back == {**outcome, "sentence": "The game was aborted by North."}
    # a server started afresh on the same database tells it as aborted
    with browsers(create_app(database, workers=1, limits=TESTING), 1) as (fresh,):
        state = fresh.get(f"/api/games/{game_id}").json()
        assert state["outcome"] == outcome and state["ply"] == ply and not state["legal"]
        assert "aborted" in fresh.get(f"/review/{game_id}").text


def test_abort_is_refused_once_both_players_have_had_a_turn(people: list[Any]) -> None:
    """The bound: after the second complete turn a player resigns instead; games that
    are not between two people online have no abort."""
    creator, friend, _, _ = people
    game_id = seated(people)
    for who, seat in ((creator, 0), (friend, 1)):
        while creator.get(f"/api/games/{game_id}").json()["to_act"] == seat:
            assert play(who, game_id).status_code == 200
    state = creator.get(f"/api/games/{game_id}").json()
    assert state["abortable"] is False and state["outcome"] is None
    for who in (creator, friend):
        late = abort(who, game_id)
        assert late.status_code == 400 and "too late to abort" in late.json()["error"]
        assert "resign instead" in late.json()["error"]
    assert creator.get(f"/api/games/{game_id}").json()["revision"] == state["revision"]
    for opponent in ("human", "beginner"):
        form = {"opponent": opponent, "seat": "0", **SMALL["galatjang"]}
        made = creator.post("/new/galatjang", data=form, follow_redirects=False)
        other = str(made.headers["location"]).rsplit("/", 1)[1]
        refused = abort(creator, other)
        assert refused.status_code == 400 and "online" in refused.json()["error"]
        assert creator.get(f"/api/games/{other}").json()["abortable"] is False


def test_a_game_waiting_for_its_opponent_is_aborted_by_its_maker(people: list[Any]) -> None:
    """Aborting a game in the lobby withdraws it: it leaves the lobby, its seat is
    taken by nobody, and it has no rematch."""
    creator, friend, spectator, _ = people
    game_id = online_game(creator, lobby=True)
    link = invitation_of(creator, game_id)
    assert game_id in creator.get("/lobby").text
    assert abort(spectator, game_id).status_code == 403
    assert abort(friend, game_id).status_code == 403
    done = abort(creator, game_id).json()
    assert done["outcome"]["sentence"] == "The game was aborted by South."
    assert game_id not in creator.get("/lobby").text
    assert friend.post(f"/lobby/{game_id}", follow_redirects=False).status_code == 409
    assert friend.post(link, follow_redirects=False).status_code == 409
    assert creator.post(f"/api/games/{game_id}/rematch").status_code == 400


def test_a_rematch_swaps_the_seats_and_is_made_once(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = seated(people)
    assert creator.post(f"/api/games/{game_id}/rematch").status_code == 400  # not over yet
    ply = creator.get(f"/api/games/{game_id}").json()["ply"]
    creator.post(f"/api/games/{game_id}/resign", json={"ply": ply})
    assert spectator.post(f"/rematch/{game_id}", follow_redirects=False).status_code == 403
    first = creator.post(f"/rematch/{game_id}", follow_redirects=False)
    second = friend.post(f"/rematch/{game_id}", follow_redirects=False)
    assert first.status_code == second.status_code == 303
    assert first.headers["location"] == second.headers["location"]
    new_id = str(first.headers["location"]).rsplit("/", 1)[1]
    assert creator.get(f"/api/games/{new_id}").json()["you"] == [1]
    assert friend.get(f"/api/games/{new_id}").json()["you"] == [0]
    assert creator.get(f"/api/games/{game_id}").json()["rematch"] == new_id
    assert play(friend, new_id).status_code == 200  # the friend has South now, and begins


def test_a_clock_counts_each_side_and_a_player_out_of_time_loses(
    people: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server counts: the clock of the player to act runs from the moment both are
    seated; a move takes its time off (and adds the increment); a player whose time is
    gone has lost, reason ``time``, whoever looks first."""
    from boardlab.web import clock

    now = [1_000_000]
    monkeypatch.setattr(clock, "milliseconds", lambda: now[0])
    creator, friend, *_ = people
    form = {"opponent": "online", "seat": "0", "clock": "1+2", **SMALL["galatjang"]}
    answer = creator.post("/new/galatjang", data=form, follow_redirects=False)
    game_id = str(answer.headers["location"]).rsplit("/", 1)[1]
    waiting = creator.get(f"/api/games/{game_id}").json()["clock"]
    assert waiting == {"left": [60000, 60000], "running": None, "base": 60, "increment": 2}
    now[0] += 30_000  # waiting for the opponent costs no one anything
    friend.post(invitation_of(creator, game_id))
    assert friend.get(f"/api/games/{game_id}").json()["clock"]["running"] == 0
    now[0] += 10_000
    state = play(creator, game_id).json()
    if state["to_act"] == 1:
        assert state["clock"]["left"] == [52000, 60000]  # 10 s off, 2 s back
    now[0] += 5_000
    assert creator.get(f"/api/games/{game_id}").json()["clock"]["left"][state["to_act"]] < 60000
    loser = state["to_act"]
    now[0] += 70_000
    over = friend.get(f"/api/games/{game_id}").json()
    assert over["outcome"]["reason"] == "time" and over["outcome"]["winner"] == 1 - loser
    assert over["clock"]["left"][loser] == 0 and over["clock"]["running"] is None
    late = people[loser].post(
        f"/api/games/{game_id}/play", json={"action": "s1", "ply": over["ply"]}
    )
    assert late.status_code == 400 and "over" in late.json()["error"]
    assert '[Reason "time"]' in creator.get(f"/api/games/{game_id}/record.txt").text


def test_a_page_watching_learns_of_a_loss_on_time_unasked(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    form = {"opponent": "online", "seat": "0", "clock": "5+0", **SMALL["galatjang"]}
    answer = creator.post("/new/galatjang", data=form, follow_redirects=False)
    game_id = str(answer.headers["location"]).rsplit("/", 1)[1]
    friend.post(invitation_of(creator, game_id))
    service = creator.app.state.service  # type: ignore[attr-defined]

    def hurry() -> None:
        """South has 0.8 s left from now: the live room's clock (the game lives in
        memory, so the stored row is not read again) and its timer, set in the server's
        event loop."""
        from boardlab.web.clock import milliseconds

        room = service.rooms[game_id]
        running = room.stored.clock
        left = [800 + milliseconds() - running["since"], 300_000]
        room.stored = dataclasses.replace(room.stored, clock={**running, "left": left})
        service._arm(room)

    with spectator.websocket_connect(f"/ws/games/{game_id}") as socket:
        first = next_of(socket, "state")["state"]
        assert first["outcome"] is None and first["clock"]["running"] == 0
        creator.portal.call(hurry)  # type: ignore[union-attr]
        hurried = time.monotonic()
        flagged = next_of(socket, "state")["state"]  # nobody asked: the server's timer
        assert flagged["outcome"]["reason"] == "time" and flagged["outcome"]["winner"] == 1
    # flagged when the 0.8 s ran out, not when the five minutes would have
    assert time.monotonic() - hurried < 120


@pytest.mark.parametrize("text", ["5", "0+5", "181+0", "5+61", "five+3", "5+3+1", "-1+2"])
def test_a_bad_time_control_is_refused_clearly(people: list[Any], text: str) -> None:
    creator, *_ = people
    form = {"opponent": "online", "seat": "0", "clock": text, **SMALL["galatjang"]}
    answer = creator.post("/new/galatjang", data=form, follow_redirects=False)
    assert answer.status_code == 400 and "MINUTES+SECONDS" in answer.text
    local = {"opponent": "easy", "seat": "0", "clock": "5+3", **SMALL["galatjang"]}
    refused = creator.post("/new/galatjang", data=local, follow_redirects=False)
    assert refused.status_code == 400 and "online" in refused.text


def test_a_player_without_an_open_page_is_shown_away_and_back(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    game_id = seated(people)
    # every page on one browser's connection (one event loop), each sending its secret
    secrets = [who.cookies.get(f"seat-{game_id}") for who in (creator, friend)]

    def page(seat: int | None) -> Any:
        headers = {} if seat is None else {"X-Boardlab-Seat": secrets[seat]}
        return spectator.websocket_connect(f"/ws/games/{game_id}", headers=headers)

    def away_changed(shown: list[int]) -> list[int]:
        """Who the watching page is next shown away, when that changes from ``shown``
        (the status that tells how many watch may tell it again meanwhile)."""
        while True:
            away: list[int] = next_of(watching, "status")["away"]
            if away != shown:
                return away

    with page(None) as watching:
        assert next_of(watching, "state")["state"]["away"] == [0, 1]  # no page of theirs
        with page(1) as friends:
            assert next_of(friends, "welcome")["you"] == [1]
            assert away_changed([0, 1]) == [0]
            with page(0) as creators:
                next_of(creators, "state")
                assert away_changed([0]) == []
            assert away_changed([]) == [0]
        assert away_changed([0]) == [0, 1]
    # reopening resumes where the game stands, with the actions played meanwhile
    assert play(creator, game_id).status_code == 200
    with page(1) as friends:
        assert next_of(friends, "state")["state"]["ply"] >= 1


# ---------------------------------------------------------------------- several processes
def http_call(base: str, method: str, path: str, body: Any = None, headers: Any = None) -> Any:
    """One request to a live server: (status, headers, body text)."""

    where = urlsplit(base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    sent = dict(headers or {})
    if isinstance(body, dict) and method == "FORM":
        method, data = "POST", urlencode(body)
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body)
        sent["Content-Type"] = "application/json"
    else:
        data = None
    try:  # closed also when the server is killed mid-answer (no socket left to the GC)
        connection.request(method, path, data, sent)
        answer = connection.getresponse()
        got: dict[str, str] = {}
        for name, value in answer.getheaders():  # several cookies: each on a line
            got[name.lower()] = f"{got[name.lower()]}\n{value}" if name.lower() in got else value
        return answer.status, got, answer.read().decode()
    finally:
        connection.close()


def cookie(headers: dict[str, str], name: str) -> str:
    """The value of the cookie ``name`` among those an answer set."""
    return headers["set-cookie"].split(f"{name}=", 1)[1].split(";", 1)[0]


@pytest.fixture
def two_servers(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[list[Any]]:
    """Two server processes on one PostgreSQL database, as behind a load balancer."""

    url = request.getfixturevalue("postgres").fresh()
    servers = [LiveServer(url, tmp_path) for _ in range(2)]
    for server in servers:
        server.start()
    yield servers
    for server in servers:
        server.stop()


def test_a_change_made_in_one_process_reaches_pages_on_another(two_servers: list[Any]) -> None:
    """LISTEN/NOTIFY: a move sent to one server process is pushed to a spectator whose
    page is connected to the other."""

    first, second = two_servers
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    status, headers, _text = http_call(first.url, "FORM", "/new/galatjang", form)
    assert status == 303
    game_id = headers["location"].rsplit("/", 1)[1]
    secret = cookie(headers, f"seat-{game_id}")
    with connect(f"ws://127.0.0.1:{second.port}/ws/games/{game_id}") as page:
        assert state_of(page)["ply"] == 0
        for ply, action in enumerate(("s1", "n1")):
            body = {"action": action, "ply": ply}
            seat = {"X-Boardlab-Seat": secret}
            assert http_call(first.url, "POST", f"/api/games/{game_id}/play", body, seat)[0] == 200
            while True:  # the other process tells its page
                state = state_of(page)
                if state["ply"] == ply + 1:
                    break
        assert state["moves"][-1]["actions"] == ["n1"]


def state_of(page: Any) -> Any:
    """The next state a live server's page hears (welcome and status pass by)."""
    while True:
        message = json.loads(page.recv(timeout=30))
        if message["type"] == "state":
            return message["state"]


def test_a_line_of_chat_said_in_one_process_reaches_the_other(two_servers: list[Any]) -> None:
    first, second = two_servers
    form = {"opponent": "online", "seat": "0", "name": "Ana", **SMALL["galatjang"]}
    status, headers, text = http_call(first.url, "FORM", "/new/galatjang", form)
    assert status == 303, text
    game_id = headers["location"].rsplit("/", 1)[1]
    secret, invitation = cookie(headers, f"seat-{game_id}"), cookie(headers, f"invite-{game_id}")
    taken = http_call(second.url, "FORM", f"/join/{game_id}/{invitation}", {"name": "Bo"})
    assert taken[0] == 303
    joined = cookie(taken[1], f"seat-{game_id}")  # a secret of its own, not the invitation's
    assert joined != invitation
    with ExitStack() as stack:
        pages = [
            stack.enter_context(
                connect(
                    f"ws://127.0.0.1:{server.port}/ws/games/{game_id}",
                    additional_headers={"X-Boardlab-Seat": seat},
                )
            )
            for server, seat in ((first, secret), (second, joined))
        ]

        def chat_of(page: Any) -> list[Any]:
            while True:
                message = json.loads(page.recv(timeout=30))
                if message["type"] == "chat":
                    return [line["text"] for line in message["lines"]]

        assert [chat_of(page) for page in pages] == [[], []]
        pages[0].send(json.dumps({"type": "chat", "text": "from the first"}))
        assert chat_of(pages[0]) == ["from the first"]
        assert chat_of(pages[1]) == ["from the first"]  # told by the other process
        pages[1].send(json.dumps({"type": "chat", "text": "from the second"}))
        assert chat_of(pages[1]) == ["from the second"]
        assert chat_of(pages[0]) == ["from the second"]


def test_a_change_announced_while_a_room_loads_is_not_lost(postgres: Any) -> None:
    """A process that is reading a game into its room when another process stores an
    action and announces it: the room it ends with holds the action (it may have read
    the game before the action was committed)."""
    url = postgres.fresh()

    async def run() -> tuple[int, int]:
        stores = [Store(url), Store(url)]
        first, second = (GameService(store, workers=1) for store in stores)
        key = key_of("seat")
        game_id = stores[0].create(
            NewGame("galatjang", {}, [HUMAN, HUMAN], "me", seat_keys=[key, key])
        )
        read = stores[1].load

        def slow_load(game: str) -> StoredGame:
            stored = read(game)  # read now, kept in the room a moment later
            time.sleep(0.5)
            return stored

        stores[1].load = slow_load  # type: ignore[method-assign]
        # the second listens as another process would (one process ignores its own)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(boardlab.web.store, "ORIGIN", "another process")
            listening = [asyncio.create_task(second.listen())]
            await asyncio.sleep(0.5)
        loading = asyncio.create_task(second.room(game_id))
        await asyncio.sleep(0.1)  # it has read the game, and keeps it
        await first.play(game_id, "s1", 0, Viewer(("seat",)))
        room = await loading
        for _ in range(50):  # the announcement comes after the commit
            if room.version == 1:
                break
            await asyncio.sleep(0.1)
        for task in listening:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for service in (first, second):
            await service.close()
        for store in stores:
            store.close()
        return room.version, len(room.record)

    assert asyncio.run(run()) == (1, 1)


def test_several_workers_need_postgresql(tmp_path: Any) -> None:

    command = [sys.executable, "-m", "boardlab", "serve", "--port", "0", "--workers", "2"]
    command += ["--db", f"sqlite:///{tmp_path / 'games.sqlite3'}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "PostgreSQL" in done.stderr


def test_two_worker_processes_serve_one_game(request: pytest.FixtureRequest, tmp_path: Any) -> None:
    """``serve --workers 2`` on PostgreSQL: requests land on either process; the game
    goes on whichever answers."""

    server = LiveServer(request.getfixturevalue("postgres").fresh(), tmp_path, workers=2)
    server.start()
    try:
        form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
        status, headers, _text = http_call(server.url, "FORM", "/new/galatjang", form)
        assert status == 303
        game_id = headers["location"].rsplit("/", 1)[1]
        secret = cookie(headers, f"seat-{game_id}")
        seat = {"X-Boardlab-Seat": secret}
        for _ in range(8):
            state = json.loads(http_call(server.url, "GET", f"/api/games/{game_id}")[2])
            if state["outcome"] is not None:
                break
            body = {"action": state["legal"][0]["action"], "ply": state["ply"]}
            assert http_call(server.url, "POST", f"/api/games/{game_id}/play", body, seat)[0] == 200
    finally:
        server.stop()


def test_each_game_lives_in_one_of_several_worker_processes(
    request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    """``serve --workers 2``: whichever process a connection lands on, a game's pages,
    socket and API are served by the one process that owns the game (``handoff.py``),
    so its two players' pages are in one room and each sees the other present. Were
    they in a room each, each room would count only its own page, and in about half the
    games each player would see the other "away"."""

    server = LiveServer(request.getfixturevalue("postgres").fresh(), tmp_path, workers=2)
    server.start()
    invitation = re.compile(r'id="invitation-link" readonly value="https?://[^/]+(/join/[^"]+)"')
    try:
        games = []
        form = {"opponent": "online", "seat": "0", **SMALL["galatjang"]}
        for _ in range(12):
            status, headers, _text = http_call(server.url, "FORM", "/new/galatjang", form)
            assert status == 303
            game_id = headers["location"].rsplit("/", 1)[1]
            seats = [f"seat-{game_id}={cookie(headers, f'seat-{game_id}')}"]
            sent = "; ".join(line.split(";", 1)[0] for line in headers["set-cookie"].split("\n"))
            page = http_call(server.url, "GET", f"/play/{game_id}", None, {"Cookie": sent})
            found = invitation.search(page[2])
            assert found, page[2][:300]
            status, headers, _text = http_call(server.url, "POST", found.group(1))
            assert status == 303
            seats.append(f"seat-{game_id}={cookie(headers, f'seat-{game_id}')}")
            games.append((game_id, seats))
        for game_id, seats in games:
            pages = [
                connect(
                    f"ws://127.0.0.1:{server.port}/ws/games/{game_id}",
                    additional_headers={"Cookie": seat},
                    open_timeout=30,
                )
                for seat in seats
            ]
            with pages[0], pages[1]:
                states = [first_state(page) for page in pages]
                acting = states[0]["to_act"]
                action = states[0]["legal"][0]["action"]
                play = {"type": "play", "id": 1, "ply": 0, "action": action}
                pages[acting].send(json.dumps(play))
                after = [state_at(page, 1) for page in pages]
                assert [state["away"] for state in after] == [[], []], game_id
            answer = json.loads(http_call(server.url, "GET", f"/api/games/{game_id}")[2])
            assert answer["ply"] == 1 and answer["moves"][0]["actions"] == [action]
    finally:
        server.stop()


def test_each_server_process_takes_its_slot_as_it_starts(
    request: pytest.FixtureRequest, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of ``serve --workers 2``'s processes takes its slot (``handoff.py``) as it
    starts to listen, before it is given a connection: the kernel may give every
    connection to one of them for a while, and a slot taken at its process's first
    connection left the other answering that slot's games, whose pages then stayed in
    a room of their own."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where ``serve`` makes its slots' folder
    server = LiveServer(request.getfixturevalue("postgres").fresh(), tmp_path, workers=2)
    server.start()  # (one connection, opened and closed)
    try:
        deadline = time.monotonic() + 60
        taken: list[str] = []
        while time.monotonic() < deadline and len(taken) < 2:
            time.sleep(0.1)
            taken = sorted(path.name for path in tmp_path.glob("boardlab-workers-*/slot-?"))
        assert taken == ["slot-0", "slot-1"]
    finally:
        server.stop()


def test_every_game_path_is_handed_to_the_games_process() -> None:
    """Every route that names a stored game by its id is one the server processes hand
    to the game's own (``handoff.GAME_PATH``); the routes that name a kind of game
    (``/new/jinli``, ``/rules/jinli``) and the rest are answered where they land."""
    from boardlab.web.handoff import GAME_PATH, slot_of
    from boardlab.web.routes import api, live, pages

    kinds = {"/new/{game_id}", "/rules/{game_id}"}
    seen = 0
    for route in [*pages.router.routes, *api.router.routes, *live.router.routes]:
        path = getattr(route, "path", "")
        if "{game_id}" not in path:
            assert GAME_PATH.match(f"GET {path} HTTP/1.1".encode()) is None, path
            continue
        asked = path.replace("{game_id}", "Ab-3_x9").replace("{secret}", "s3cr3t")
        for tail in (" HTTP/1.1", "?since=4 HTTP/1.1"):
            found = GAME_PATH.match(f"POST {asked}{tail}".encode())
            if path in kinds:
                assert found is None, path
            else:
                assert found is not None and found.group(1) == b"Ab-3_x9", path
                seen += 1
    assert seen >= 2 * 10
    spread = [slot_of(f"game{k}".encode(), 2) for k in range(1000)]
    assert 400 < spread.count(0) < 600  # the games of two processes, about half each


def first_state(page: Any) -> dict[str, Any]:
    """The first state a page's socket is sent."""
    while True:
        message = json.loads(page.recv(timeout=30))
        if message["type"] == "state":
            state: dict[str, Any] = message["state"]
            return state


def state_at(page: Any, ply: int) -> dict[str, Any]:
    """The state of action number ``ply`` as the page's socket tells it, with the
    status of the moment (away, thinking) folded in."""
    state: dict[str, Any] = {}
    while state.get("ply") != ply:
        message = json.loads(page.recv(timeout=30))
        if message["type"] == "state":
            state = {**state, **message["state"]}
        elif message["type"] == "status":
            state.update(message)
    return state


# ---------------------------------------------------------------------- guards
def test_answers_carry_a_strict_content_security_policy(people: list[Any]) -> None:
    creator, *_ = people
    game_id = online_game(creator)
    for path in ("/", f"/play/{game_id}", "/lobby", "/rules/linja", f"/api/games/{game_id}"):
        headers = creator.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self';" in policy and "unsafe-inline" not in policy, path
        assert "frame-ancestors 'none'" in policy
        assert headers["referrer-policy"] == "same-origin"
        assert headers["x-content-type-options"] == "nosniff"


def test_injected_markup_is_shown_as_text(people: list[Any]) -> None:
    creator, *_ = people
    evil = "<script>alert(1)</script>"
    answer = creator.post("/upload", files={"record": (f"{evil}.txt", b"no record", "text/plain")})
    assert answer.status_code == 400
    assert evil not in answer.text and "&lt;script&gt;" in answer.text
    page = creator.get(f"/?lang={evil}")
    assert page.status_code == 400 and evil not in page.text
    game_id = online_game(creator)
    state = creator.get(f"/api/games/{game_id}").json()
    refused = creator.post(f"/api/games/{game_id}/play", json={"action": evil, "ply": state["ply"]})
    assert refused.status_code == 400  # JSON, shown by the page as text (textContent)


def test_making_games_is_rate_limited_per_address(people: list[Any]) -> None:
    from boardlab.web.guard import Limits

    GAMES_A_MINUTE = Limits().games
    creator, *_ = people
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    codes = [
        creator.post("/new/galatjang", data=form, follow_redirects=False).status_code
        for _ in range(GAMES_A_MINUTE + 1)
    ]
    assert codes.count(303) == GAMES_A_MINUTE and codes[-1] == 429
    assert "a minute" in creator.post("/new/galatjang", data=form).text


# ---------------------------------------------------------------------- crashes
def children_of(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    import os

    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                if fields[0] != "Z" and int(fields[1]) == pid:
                    found.add(int(entry))
    return found


def test_the_ai_workers_end_when_the_server_is_killed(tmp_path: Any) -> None:
    """A server killed with no time to stop anything (kill -9 of its process alone)
    leaves no AI worker running: each ends itself once its server is gone."""
    import os
    import signal

    server = LiveServer(tmp_path / "games.sqlite3", tmp_path)
    server.start()
    try:
        assert server.process is not None
        form = {"opponent": "hard", "seat": "1", **SMALL["galatjang"]}  # the AI opens
        _status, headers, _text = http_call(server.url, "FORM", "/new/galatjang", form)
        game_id = headers["location"].rsplit("/", 1)[1]
        deadline = time.monotonic() + 60
        while json.loads(http_call(server.url, "GET", f"/api/games/{game_id}")[2])["ply"] == 0:
            assert time.monotonic() < deadline, "the AI did not play"
            time.sleep(0.2)
        workers = children_of(server.process.pid)
        assert workers, "the AI ran in no worker process"
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(10)
        deadline = time.monotonic() + 10
        while alive := [pid for pid in workers if alive_process(pid)]:
            assert time.monotonic() < deadline, f"AI workers still running: {alive}"
            time.sleep(0.2)
    finally:
        server.stop()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_no_acknowledged_action_is_lost_when_the_server_is_killed(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    """Six games played at once by six clients while the server is killed with SIGKILL
    at random moments and started again: every action a client saw acknowledged is in
    the database, in its place, and every game goes on to its end."""
    import random
    import time

    from boardlab.core.record import GameRecord

    url = (
        f"sqlite:///{tmp_path / 'games.sqlite3'}"
        if backend == "sqlite"
        else request.getfixturevalue("postgres").fresh()
    )
    server = LiveServer(url, tmp_path)
    server.start()
    games: list[tuple[str, str]] = []
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    for _ in range(6):
        _status, headers, _text = http_call(server.url, "FORM", "/new/galatjang", form)
        game_id = headers["location"].rsplit("/", 1)[1]
        games.append((game_id, cookie(headers, f"seat-{game_id}")))
    acknowledged: dict[str, dict[int, str]] = {game_id: {} for game_id, _ in games}
    refused: list[tuple[str, int, str]] = []
    done = threading.Event()

    def player(game_id: str, secret: str, seed: int) -> None:
        rng = random.Random(seed)
        while not done.is_set():
            try:
                _status, _headers, text = http_call(server.url, "GET", f"/api/games/{game_id}")
                state = json.loads(text)
                if state["outcome"] is not None:
                    return
                action = rng.choice(state["legal"])["action"]
                body = {"action": action, "ply": state["ply"]}
                seat = {"X-Boardlab-Seat": secret}
                status, _headers, text = http_call(
                    server.url, "POST", f"/api/games/{game_id}/play", body, seat
                )
                if status == 200:
                    acknowledged[game_id][state["ply"]] = action
                elif status != 409:  # only "moved on" may happen (a retry after a kill)
                    refused.append((game_id, status, text))
                    return
            except (OSError, ValueError, http.client.HTTPException):
                time.sleep(0.05)  # the server is down: try again

    threads = [
        threading.Thread(target=player, args=(game_id, secret, k))
        for k, (game_id, secret) in enumerate(games)
    ]
    for thread in threads:
        thread.start()
    rng = random.Random(backend)
    try:
        for _ in range(3):
            time.sleep(rng.uniform(0.3, 1.2))
            server.kill()
            server.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        done.set()
        server.stop()
    assert not refused, refused
    assert not any(thread.is_alive() for thread in threads), "a game did not go on"
    server.start()
    try:
        for game_id, _secret in games:
            status, _headers, text = http_call(
                server.url, "GET", f"/api/games/{game_id}/record.txt"
            )
            assert status == 200
            record = GameRecord.read(text)  # the engine accepts every stored action
            stored = record.action_strings()
            assert record.is_over()
            for ply, action in acknowledged[game_id].items():
                assert stored[ply] == action, (game_id, ply)
    finally:
        server.stop()
    assert sum(len(actions) for actions in acknowledged.values()) > 20


# ---------------------------------------------------------------------- names and chat
EVIL = "<script>alert(1)</script>"


def test_players_name_their_seats_and_names_are_shown_as_text(people: list[Any]) -> None:
    creator, friend, spectator, _ = people
    form = {"opponent": "online", "seat": "0", "lobby": "true", "name": EVIL, **SMALL["galatjang"]}
    made = creator.post("/new/galatjang", data=form, follow_redirects=False)
    game_id = made.headers["location"].rsplit("/", 1)[1]
    lobby = spectator.get("/lobby").text
    assert game_id in lobby and EVIL not in lobby and "&lt;script&gt;alert(1)" in lobby
    assert "&lt;script&gt;" in creator.get("/new/linja").text  # remembered, escaped
    joined = friend.post(
        f"/lobby/{game_id}", data={"name": "  Ana   Lima "}, follow_redirects=False
    )
    assert joined.status_code == 303
    state = spectator.get(f"/api/games/{game_id}").json()
    assert [seat["player"] for seat in state["seats"]] == [EVIL, "Ana Lima"]
    assert [seat["label"] for seat in state["seats"]] == [EVIL, "Ana Lima"]
    page = spectator.get(f"/play/{game_id}").text
    assert EVIL not in page  # the state in the page is JSON with < escaped
    record = spectator.get(f"/api/games/{game_id}/record.txt").text
    assert '[South "<script>alert(1)</script>"]' in record and '[North "Ana Lima"]' in record
    # a rematch keeps each name with its player, the seats swapped
    assert creator.post(f"/api/games/{game_id}/resign", json={"ply": 0}).status_code == 200
    rematch = creator.post(f"/api/games/{game_id}/rematch").json()["id"]
    swapped = spectator.get(f"/api/games/{rematch}").json()
    assert [seat["player"] for seat in swapped["seats"]] == ["Ana Lima", EVIL]


@pytest.mark.parametrize("name", ["x" * 33, "a\x00b", "left\u202eright", "tab\x07"])
def test_a_bad_name_is_refused_and_nothing_is_made(people: list[Any], name: str) -> None:
    creator, friend, *_ = people
    form = {"opponent": "online", "seat": "0", "name": name, **SMALL["galatjang"]}
    answer = creator.post("/new/galatjang", data=form, follow_redirects=False)
    assert answer.status_code == 400 and "bad name" in answer.text and "32" in answer.text
    game_id = online_game(creator)
    link = invitation_of(creator, game_id)
    refused = friend.post(link, data={"name": name}, follow_redirects=False)
    assert refused.status_code == 400 and "bad name" in refused.text
    assert friend.get(f"/api/games/{game_id}").json()["open_seat"] == 1  # the seat stays open


def chat_pages(people: list[Any], game_id: str) -> Any:
    """A page of a seat (0, 1) or of a spectator (None), all on one browser's connection
    (one event loop), each sending its secret."""
    creator, friend, spectator, _ = people
    secrets = [who.cookies.get(f"seat-{game_id}") for who in (creator, friend)]

    def page(seat: int | None) -> Any:
        headers = {} if seat is None else {"X-Boardlab-Seat": secrets[seat]}
        return spectator.websocket_connect(f"/ws/games/{game_id}", headers=headers)

    return page


def next_of(socket: Any, kind: str) -> Any:
    """The next message of ``kind`` on the socket (states of presence pass by)."""
    while True:
        message = socket.receive_json()
        if message["type"] == kind:
            return message


def test_players_chat_and_spectators_read_none(people: list[Any]) -> None:
    from boardlab.web.talk import CHAT_LINES

    game_id = seated(people)
    page = chat_pages(people, game_id)
    with page(0) as south, page(1) as north, page(None) as watching:
        assert next_of(south, "welcome")["you"] == [0]
        assert next_of(south, "chat")["lines"] == []  # the history: none yet
        assert next_of(north, "chat")["lines"] == []
        assert next_of(watching, "welcome")["you"] == []
        south.send_text(json.dumps({"type": "chat", "text": f"  hello\n{EVIL}  "}))
        for socket in (south, north):
            (line,) = next_of(socket, "chat")["lines"]
            assert line["seat"] == 0 and line["text"] == f"hello {EVIL}"
        for _ in range(CHAT_LINES + 2):  # always refused for the seat, never counted
            watching.send_text(json.dumps({"type": "chat", "text": "me too"}))
            assert "only the two players" in next_of(watching, "error")["message"]
        north.send_text(json.dumps({"type": "chat", "text": "hi"}))
        assert [line["text"] for line in next_of(south, "chat")["lines"]] == ["hi"]
        # the spectator's socket got states only: the next thing it hears is a move
        assert play(people[0], game_id).status_code == 200
        assert next_of(watching, "state")["state"]["ply"] == 1
        watching.send_text('{"type": "ping"}')
        assert watching.receive_json() == {"type": "pong"}
    with page(1) as north:  # reopened: the whole chat again
        next_of(north, "state")
        assert [line["seat"] for line in next_of(north, "chat")["lines"]] == [0, 1]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"type": "chat"}', "empty chat line"),
        ('{"type": "chat", "text": "   "}', "empty chat line"),
        ('{"type": "chat", "text": 5}', "empty chat line"),
        (json.dumps({"type": "chat", "text": "y" * 501}), "500"),
        (json.dumps({"type": "chat", "text": "bell\x07"}), "bad chat line"),
        ('{"type": "move"}', "unknown message"),
    ],
)
def test_a_bad_chat_line_is_refused_and_the_socket_stays(
    people: list[Any], text: str, why: str
) -> None:
    game_id = seated(people)
    with chat_pages(people, game_id)(0) as south:
        next_of(south, "chat")
        south.send_text(text)
        assert why in next_of(south, "error")["message"]
        south.send_text(json.dumps({"type": "chat", "text": "still here"}))
        assert next_of(south, "chat")["lines"][0]["text"] == "still here"


def test_chat_and_socket_messages_are_rate_limited(people: list[Any]) -> None:
    from boardlab.web.routes.live import SOCKET_MOST
    from boardlab.web.talk import CHAT_LINES

    game_id = seated(people)
    page = chat_pages(people, game_id)
    with page(0) as south:
        next_of(south, "chat")
        for k in range(CHAT_LINES):
            south.send_text(json.dumps({"type": "chat", "text": f"line {k}"}))
            assert next_of(south, "chat")["lines"][0]["text"] == f"line {k}"
        south.send_text(json.dumps({"type": "chat", "text": "one too many"}))
        assert "too many chat lines" in next_of(south, "error")["message"]
    with page(1) as north:
        lines = next_of(north, "chat")["lines"]
        assert len(lines) == CHAT_LINES and "one too many" not in str(lines)
        for _ in range(SOCKET_MOST):
            north.send_text('{"type": "ping"}')
            next_of(north, "pong")
        north.send_text('{"type": "ping"}')
        assert "too many messages" in next_of(north, "error")["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            next_of(north, "never")
        assert closed.value.code == 1008


def test_a_stalled_page_holds_up_no_other(tmp_path: Any) -> None:
    """A change is handed to every page at once, without waiting for any: a page that
    cannot take more (its outbox is full) is let go, the others are told at once."""
    import asyncio

    from boardlab.web.data import Viewer, key_of
    from boardlab.web.routes.live import SlowPage
    from boardlab.web.service import GameService
    from boardlab.web.store import Store

    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    secret = "s" * 24
    game_id = store.create(
        NewGame(
            "galatjang",
            {"pits": 3, "seeds": 2},
            ["human", "human"],
            "me",
            seat_keys=[key_of(secret)] * 2,
        )
    )
    games = GameService(store, workers=1)
    heard: list[str] = []
    taken: list[str] = []

    def stalled(text: str) -> None:
        if len(taken) >= 3:  # the welcome, the state, one change: then full
            raise SlowPage
        taken.append(text)

    async def main() -> None:
        await games.watch(game_id, stalled)
        await games.watch(game_id, heard.append)
        for ply in range(3):
            state = await games.state(game_id)
            await games.play(game_id, state["legal"][0]["action"], ply, Viewer((secret,)))
        assert list(games.rooms[game_id].watchers) == [heard.append]
        await games.close()

    asyncio.run(main())
    kinds = [json.loads(text)["type"] for text in heard]
    assert kinds == ["welcome", "state", "state", "state", "state"]
    assert [json.loads(text)["v"] for text in heard[1:]] == [0, 1, 2, 3]


def test_a_page_gets_its_messages_in_order_written_at_once_or_waiting(tmp_path: Any) -> None:
    """A message goes out as a frame the moment the connection takes it; while it does
    not (its buffer full), messages wait and go the slow way, and none overtakes one
    that waits."""
    import asyncio

    from websockets.frames import Frame
    from websockets.streams import StreamReader

    from boardlab.web.routes.live import FRAMES, Outbox

    sent: list[str] = []  # what reached the page, in order
    open_now = [True]

    def write(frame: bytes) -> bool:
        if not open_now[0]:
            return False
        reader = StreamReader()
        reader.feed_data(frame)
        reader.feed_eof()
        parsing = Frame.parse(reader.read_exact, mask=False)
        with pytest.raises(StopIteration) as parsed:
            next(parsing)
        sent.append(bytes(parsed.value.value.data).decode())
        return True

    class Socket:
        def __init__(self) -> None:
            self.scope = {"extensions": {FRAMES: {"write": write}}}

        async def send_text(self, text: str) -> None:
            open_now[0] = True  # the connection drains, and this send goes on later
            await asyncio.sleep(0.01)
            sent.append(text)

        async def close(self, code: int) -> None:
            sent.append(f"closed {code}")

    async def main() -> None:
        outbox = Outbox(Socket())  # type: ignore[arg-type]
        running = asyncio.create_task(outbox.run())
        outbox("één")
        outbox("2" * 200)
        open_now[0] = False
        outbox("3" * 70_000)
        await asyncio.sleep(0)  # its slow send begins
        outbox("4")  # while it goes on, the connection drained: this waits its turn
        await asyncio.sleep(0.1)
        assert not outbox.waiting
        outbox("5")  # written at once again
        assert sent[-1] == "5"
        outbox.finish(1000)
        await running

    asyncio.run(main())
    assert sent == ["één", "2" * 200, "3" * 70_000, "4", "5", "closed 1000"]


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_a_room_loads_from_its_snapshot_as_from_its_replay(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, game_id: str
) -> None:
    """A game is loaded from the snapshot stored with its last action (the position
    where its last turn began, the turns before it), not by replaying every action: a
    server that starts again shows each game as a replay would, with no replay; a
    snapshot that does not fit (or none, from before snapshots) is replayed."""
    import asyncio
    import random

    from boardlab.web import thinking
    from boardlab.web.data import Viewer, key_of
    from boardlab.web.service import GameService
    from boardlab.web.store import GameRow, Store

    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    secret = "s" * 24
    store = Store(url)
    game = store.create(
        NewGame(game_id, {}, ["human", "human"], "me", seat_keys=[key_of(secret)] * 2)
    )
    rng = random.Random(7)

    async def play(count: int) -> dict[str, Any]:
        games = GameService(Store(url), workers=1)
        for _ in range(count):
            state = await games.state(game)
            if state["outcome"] is not None:
                break
            action = rng.choice(state["legal"])["action"]
            await games.play(game, action, state["ply"], Viewer((secret,)))
        state = await games.state(game, Viewer((secret,)))
        await games.close()
        return state

    played = asyncio.run(play(30))
    assert played["ply"] >= 20
    replays: list[str] = []
    real_rebuild = thinking.rebuild
    monkeypatch.setattr(
        thinking, "rebuild", lambda *args: replays.append(args[0]) or real_rebuild(*args)
    )
    assert asyncio.run(play(0)) == played and replays == []  # from the snapshot
    with store.session() as session:  # a snapshot that does not fit its game
        session.get(GameRow, game).snapshot = '{"length": 3, "turns": [0], "position": "?"}'
    assert asyncio.run(play(0)) == played and replays == [game_id]  # replayed
    after = asyncio.run(play(5))  # replayed; each action writes the snapshot again
    assert after["ply"] > played["ply"]
    assert asyncio.run(play(0)) == after and replays == [game_id] * 2
    store.close()


def test_actions_of_many_games_are_stored_together_and_refused_alone(tmp_path: Any) -> None:
    """Group commit: the actions that come while one transaction is written go in the
    next, all in one; each waits for its own; a stale one is refused while the others
    of its transaction are stored."""
    import asyncio

    from boardlab.web.data import Append, Conflict
    from boardlab.web.service import GroupCommit
    from boardlab.web.store import Store

    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    games = [
        store.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "me"))
        for _ in range(6)
    ]
    batches: list[int] = []

    def store_many(items: list[Append]) -> Any:
        batches.append(len(items))
        return store.append_many(items)

    async def main() -> list[Any]:
        writer = GroupCommit(store_many)
        first = asyncio.create_task(writer.append(Append(games[0], 0, "s1", "*")))
        await asyncio.sleep(0)  # the first transaction begins with the first action alone
        rest = [writer.append(Append(game, 0, "s1", "*")) for game in games[1:]]
        stale = writer.append(Append(games[0], 0, "s2", "*"))  # ply 0 is taken by then
        return await asyncio.gather(first, *rest, stale, return_exceptions=True)

    answers = asyncio.run(main())
    assert batches == [1, 6]
    assert answers[:6] == [1] * 6  # each game's revision after its action
    assert isinstance(answers[6], Conflict)
    assert all(store.load(game).actions == ("s1",) for game in games)


def test_a_slow_transaction_is_logged_once_a_while(caplog: Any) -> None:
    """A host learns that the database or its disk held actions up: a slow transaction
    is logged, and the next ones within ten seconds are counted into the next line."""
    import asyncio
    import logging
    import time

    from boardlab.web.data import Append
    from boardlab.web.service import SLOW_COMMIT_SECONDS, GroupCommit

    def store_many(items: list[Append]) -> list[int]:
        if items[0].action == "slow":
            time.sleep(SLOW_COMMIT_SECONDS + 0.02)
        return [item.ply + 1 for item in items]

    async def main() -> None:
        writer = GroupCommit(store_many)
        for action in ("slow", "fast", "slow"):
            await writer.append(Append("a" * 12, 0, action, "*"))

    with caplog.at_level(logging.WARNING, logger="boardlab.web"):
        asyncio.run(main())
    said = [r.getMessage() for r in caplog.records if "storing actions took" in r.getMessage()]
    assert len(said) == 1 and "(1 in one transaction)" in said[0], said


def test_an_announced_action_that_does_not_fit_its_room_reads_the_game_afresh(
    caplog: Any,
) -> None:
    """A room whose record is not the stored game's (an announcement it cannot play) is
    read again whole, not left raising in a task nobody awaits."""
    import asyncio
    import logging

    from boardlab.web.memory import MemoryStore
    from boardlab.web.service import GameService

    store = MemoryStore()
    game_id = store.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "me"))
    store.append(game_id, 0, "s1", "*")

    async def main() -> tuple[int, int]:
        service = GameService(store)
        room = await service.room(game_id)
        data = {"g": game_id, "v": room.version + 1, "a": "n9"}  # no such pit
        await service._changing(room, service._heard, room, data)
        await service.close()
        return len(room.record), room.version

    with caplog.at_level(logging.WARNING, logger="boardlab.web"):
        assert asyncio.run(main()) == (1, store.load(game_id).revision)
    assert "did not fit its room" in caplog.text


def test_a_new_game_of_people_is_loaded_by_its_first_page_and_one_with_an_agent_at_once() -> None:
    """Making a game wakes its agent at once; a game of people only is not loaded where
    it was made: with several server processes its pages go to another, and a room here
    would only hear every action of it for two minutes."""
    app = create_app("memory:", workers=1, limits=TESTING)
    with TestClient(app) as http:
        made = {}
        for opponent in ("online", "easy"):
            form = {"opponent": opponent, "seat": "0", **SMALL["galatjang"]}
            answer = http.post("/new/galatjang", data=form, follow_redirects=False)
            made[opponent] = answer.headers["location"].rsplit("/", 1)[1]
        service = app.state.service
        for _ in range(100):  # the agent's room is loaded beside the request
            if made["easy"] in service.rooms:
                break
            time.sleep(0.05)
        assert made["easy"] in service.rooms
        assert made["online"] not in service.rooms
        http.get(f"/play/{made['online']}")
        assert made["online"] in service.rooms
