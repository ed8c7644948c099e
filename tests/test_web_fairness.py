"""The AI's searches queued fairly, tried through a live ``boardlab serve``: one client's
expert games do not hold up another client's beginner game. On SQLite only: the queue
is the same whatever the database.

The server believes ``X-Forwarded-For`` from 127.0.0.1 (``--proxy``), so one test plays
several clients, each its own address. What is asserted is an order, not a time: when
the beginner game has its first action, most of the expert games queued before it still
have none (first come first served, it waited for all of them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need

need("fastapi")

import httpx2 as httpx  # noqa: E402

from web_support import LiveServer  # noqa: E402

#: A's expert games, all queued before B's beginner game.
EXPERTS = 8
#: Seconds for any one wait: far more than a search takes on a slow machine.
LIMIT = 60.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server with one AI worker (``LiveServer``'s ``--ai-workers 1``: two processes,
    one kept for the quick levels), believing a proxy on 127.0.0.1."""
    live = LiveServer(
        tmp_path / "games.sqlite3", extra=["--proxy", "127.0.0.1", "--limit", "games=1000"]
    )
    live.start()
    yield live
    live.stop()


def client(server: LiveServer, address: str) -> httpx.Client:
    """A browser at ``address``, as the proxy tells it, sending its pages' Origin."""
    headers = {"Origin": server.url, "X-Forwarded-For": address}
    return httpx.Client(base_url=server.url, headers=headers, timeout=LIMIT)


def ai_first(http: httpx.Client, opponent: str) -> str:
    """A new Jin Li game (default options) against ``opponent``, which moves first."""
    answer = http.post(
        "/new/jinli", data={"opponent": opponent, "seat": "1"}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def state(http: httpx.Client, game_id: str) -> dict[str, Any]:
    found: dict[str, Any] = http.get(f"/api/games/{game_id}").json()
    assert not found.get("trouble"), found["trouble"]
    return found


def plies(http: httpx.Client, games: list[str]) -> list[int]:
    return [state(http, game_id)["ply"] for game_id in games]


def wait_for(what: str, done: Any) -> None:
    deadline = time.monotonic() + LIMIT
    while not done():
        assert time.monotonic() < deadline, f"{what}: not in {LIMIT} s"
        time.sleep(0.02)


def test_beginner_move_is_not_queued_behind_another_clients_expert_games(
    server: LiveServer,
) -> None:
    warm, a, b = (client(server, f"10.0.0.{k}") for k in (3, 1, 2))
    with warm, a, b:
        # Both worker processes started and searched before the measure: the expert
        # game's search keeps the first busy while the beginner's starts the second.
        # A Jin Li turn is a swim and a drop, so the AI searches twice before the
        # person is to act.
        warmers = [ai_first(warm, "expert"), ai_first(warm, "beginner")]
        wait_for(
            "the warm-up games' first turns",
            lambda: all(state(warm, game_id)["human_to_act"] for game_id in warmers),
        )
        heavy = [ai_first(a, "expert") for _ in range(EXPERTS)]
        # The first expert answer: A's searches are under way, the rest wait their turn.
        wait_for("A's first expert answer", lambda: max(plies(a, heavy)) >= 1)
        light = ai_first(b, "beginner")
        wait_for("B's beginner answer", lambda: state(b, light)["ply"] >= 1)
        waiting = plies(a, heavy).count(0)
    assert waiting >= EXPERTS // 2, (
        f"only {waiting} of A's {EXPERTS} expert games still had no action when B's "
        "beginner game had its first: B's search waited behind A's"
    )
