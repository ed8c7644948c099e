"""A server's AI workers start with it and prepare every level of every game in the
background, saying each step in the server's log; a move asked meanwhile is answered;
the workers end with the server, also when it is killed during the preparation. The
tests assert what the log says and that moves arrive, never how long anything takes."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import operator
import os
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

import boardlab
from boardlab.ai import levels
from boardlab.web import thinking
from boardlab.web.queue import QUICK, FairQueue
from web_support import SMALL, LiveServer, alive_process

#: A server's AI processes as LiveServer starts it (``--ai-workers 1``, and one more
#: the queue keeps for reviews).
AI_PROCESSES = 2


def call(server: LiveServer, method: str, path: str, form: dict[str, str] | None = None) -> Any:
    """(status, headers, body text) of one request to the live server."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
        connection.request(method, path, urlencode(form) if form else None, headers)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read().decode()
    finally:
        connection.close()


def wait_for(what: str, found: Any, limit: float = 300) -> Any:
    """``found()`` once it is true, polled; fails after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not (answer := found()):
        assert time.monotonic() < deadline, f"{what}: not within {limit} s"
        time.sleep(0.2)
    return answer


def workers_in(log: Path, words: str) -> set[str]:
    """The AI workers (their process ids) whose lines in ``log`` say ``words``."""
    return set(re.findall(rf"AI worker (\d+): {words}", log.read_text()))


def children_of(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and alive_process(int(entry)):
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry))
    return found


def descendants_of(pid: int) -> set[int]:
    """The live processes below ``pid``: its children, theirs, and so on."""
    found = set()
    for child in children_of(pid):
        found |= {child, *descendants_of(child)}
    return found


def end_group(server: LiveServer) -> None:
    """Kill what a failed test left of the server's process group (it is its own)."""
    if server.process is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.process.pid, signal.SIGKILL)


def test_preparing_says_every_level_of_every_game() -> None:
    lines: list[str] = []
    thinking.prepare_levels(lines.append)
    text = "\n".join(lines)
    for game_id in boardlab.game_ids():
        for level in levels(boardlab.new_game(game_id)):
            assert re.search(rf": {game_id} {level} (ready in|cannot play)", text), (game_id, level)
    assert "failed" not in text
    assert re.search(r"every level ready in \d+\.\d s$", lines[-1])


def test_the_galatjang_perfect_player_prepares_its_endgame_search() -> None:
    """Warmed at the start, the perfect player has also asked its solver about the last
    positions of a game: the search it runs there is compiled before a real game gets
    there."""
    from boardlab.ai import make_agent
    from boardlab.games.galatjang import endgames

    game = boardlab.new_game("galatjang")
    agent = make_agent("perfect", 0, game)
    agent.warm(game.initial())
    searches = [
        value
        for value in vars(endgames).values()
        if hasattr(value, "signatures") and getattr(value, "_cache", None) is not None
    ]
    assert any(search.signatures for search in searches)


class Recorded(ThreadPoolExecutor):
    """A pool that keeps the functions submitted to it, in order."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.submitted: list[Any] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.submitted.append(fn)
        return super().submit(fn, *args, **kwargs)


def test_prepare_starts_every_worker_before_the_first_job() -> None:
    """A pool starts a process for each job it is given while none is idle: ``prepare``
    gives it one that does nothing for each worker, before any real job."""

    async def test() -> None:
        made: list[Recorded] = []

        def pool(workers: int) -> Recorded:
            made.append(Recorded(workers))
            return made[-1]

        queue = FairQueue(3, pool)
        queue.prepare()
        assert len(made) == 1 and made[0].submitted == [thinking.started] * 3
        assert await queue.run("a", QUICK, operator.add, 2, 3) == 5
        assert len(made) == 1 and made[0].submitted[3:] == [operator.add]
        queue.close()
        with pytest.raises(RuntimeError, match="closed"):
            queue.prepare()

    asyncio.run(asyncio.wait_for(test(), timeout=60))


def test_the_server_prepares_every_level_and_answers_meanwhile(tmp_path: Path) -> None:
    """A move asked at once is answered (while the workers prepare, or after); then each
    worker says every game's every level ready, or why it cannot play."""
    server = LiveServer(tmp_path / "games.sqlite3", tmp_path)
    server.start()
    try:
        form = {"opponent": "expert", "seat": "1", **SMALL["galatjang"]}  # the AI opens
        status, headers, text = call(server, "POST", "/new/galatjang", form)
        assert status == 303, text
        game_id = headers["location"].rsplit("/", 1)[1]

        def played() -> dict[str, Any] | None:
            state: dict[str, Any] = json.loads(call(server, "GET", f"/api/games/{game_id}")[2])
            assert not state.get("trouble"), state["trouble"]
            return state if state["ply"] > 0 else None

        wait_for("the AI's first move", played)
        ready = wait_for(
            "every worker ready",
            lambda: (
                len(workers := workers_in(server.log, "every level ready")) >= AI_PROCESSES
                and workers
            ),
        )
        log = server.log.read_text()
        for worker in ready:
            for game_id in boardlab.game_ids():
                for level in levels(boardlab.new_game(game_id)):
                    said = rf"AI worker {worker}: {game_id} {level} (ready in|cannot play)"
                    assert re.search(said, log), (worker, game_id, level)
        assert "failed to prepare" not in log
        assert "Traceback" not in log
    finally:
        server.stop()


def test_the_ai_workers_end_when_the_server_is_killed_while_they_prepare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 of the server alone (not its process group) while its workers compile
    on a cold cache (empty folders, as after a fresh clone): none is left running."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("BOARDLAB_COMPILED", str(tmp_path / "compiled"))
    server = LiveServer(tmp_path / "games.sqlite3", tmp_path)
    server.start()
    try:
        assert server.process is not None
        wait_for("the workers", lambda: len(workers_in(server.log, "preparing")) >= AI_PROCESSES)
        workers = children_of(server.process.pid)
        assert {str(pid) for pid in workers} >= workers_in(server.log, "preparing")
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(10)
        wait_for("the workers' end", lambda: not any(alive_process(pid) for pid in workers), 30)
    finally:
        server.stop()
        end_group(server)


def test_nothing_of_several_server_processes_outlives_a_kill_of_serve(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """With ``--workers 2`` (PostgreSQL), kill -9 of ``boardlab serve`` alone: its
    server processes stop, and their AI workers with them."""
    server = LiveServer(request.getfixturevalue("postgres").fresh(), tmp_path, workers=2)
    server.start()
    try:
        assert server.process is not None
        every = 2 * AI_PROCESSES  # two server processes, each with its AI processes
        wait_for("the workers", lambda: len(workers_in(server.log, "preparing")) >= every)
        below = descendants_of(server.process.pid)
        assert {str(pid) for pid in below} >= workers_in(server.log, "preparing")
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(10)
        wait_for("their end", lambda: not any(alive_process(pid) for pid in below), 60)
    finally:
        server.stop()
        end_group(server)


def test_boardlab_prepare_says_every_level_of_every_game_ready_or_why_not() -> None:
    """What ``make serve`` runs before the server: each level of each game prepared in
    this machine's cache (or said why it cannot play), then the whole."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "boardlab", "prepare"],
        capture_output=True,
        text=True,
        env={**os.environ, "LANGUAGE": "en"},
        timeout=900,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "boardlab prepare: preparing every level"
    for game_id in boardlab.game_ids():
        for level in levels(boardlab.new_game(game_id)):
            said = re.compile(rf"boardlab prepare: {game_id} {level} (ready in|cannot play)")
            assert any(said.match(line) for line in lines), (game_id, level)
    assert re.fullmatch(r"boardlab prepare: every level ready in [\d.]+ s", lines[-1])
    assert done.stderr == ""
