"""Helpers for the web app's tests: an app on a fresh SQLite file, a live server in a
child process (so a test can kill it), and waiting for the AI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")

from fastapi.testclient import TestClient

from boardlab.web.app import create_app

#: Small options so that whole games take a few dozen actions.
SMALL = {
    "jinli": {"stones": "3", "target": "3"},
    "linja": {},
    "galatjang": {"pits": "3", "seeds": "2"},
}


@contextmanager
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{db}", workers=1)) as test_client:
        yield test_client


def new_game(http: Any, game: str, opponent: str = "human", seat: str = "0", **options: str) -> str:
    """Make a game through the new game form; its id."""
    form = {"opponent": opponent, "seat": seat, **SMALL[game], **options}
    answer = http.post(f"/new/{game}", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def settled(http: Any, game_id: str, limit: float = 120.0) -> dict[str, Any]:
    """The state once no agent is to act (a person's turn, or the end)."""
    deadline = time.monotonic() + limit
    while True:
        state: dict[str, Any] = http.get(f"/api/games/{game_id}").json()
        if state["outcome"] is not None or state["human_to_act"]:
            return state
        assert not state.get("trouble"), state["trouble"]
        assert time.monotonic() < deadline, f"the AI did not answer in {limit} s"
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LiveServer:
    """``boardlab serve`` in a child process, on a database that outlives it."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "boardlab", "serve", "--port", str(self.port)]
        command += ["--db", f"sqlite:///{self.db}", "--workers", "1"]
        with self.db.with_suffix(".log").open("a") as log:  # a pipe nobody read would block it
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.db.with_suffix(".log").read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        """Stop the server the hard way (kill -9), as a crash would."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)  # the server and its AI workers
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
