"""Helpers for the web app's tests: an app on a fresh database (a SQLite file, or a
database of its own on a throwaway PostgreSQL server), a live server in a child process
(so a test can kill it), and waiting for the AI."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from optional import need

need("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.guard import Limits  # noqa: E402

#: One test plays many people from one address: requests are not counted against it
#: (tests/test_web_attacks.py checks that limit on its own).
UNLIMITED = 1_000_000
TESTING = Limits(requests=UNLIMITED)

#: Small options so that whole games take a few dozen actions.
SMALL = {
    "jinli": {"stones": "3", "target": "3"},
    "linja": {},
    "galatjang": {"pits": "3", "seeds": "2"},
}


def url_of(db: Path | str) -> str:
    """A database URL: a path is a SQLite file."""
    return f"sqlite:///{db}" if isinstance(db, Path) else db


@contextmanager
def client(db: Path | str, limits: Limits = TESTING) -> Iterator[TestClient]:
    with TestClient(create_app(url_of(db), workers=1, limits=limits)) as test_client:
        yield test_client


@contextmanager
def browsers(app: Any, count: int) -> Iterator[list[TestClient]]:
    """``count`` browsers, each with its own cookies, on one app and one event loop (as
    a server has one): the first runs the app, the others share its loop."""
    with TestClient(app) as first:
        others = [TestClient(app) for _ in range(count - 1)]
        for other in others:
            other.portal = first.portal
        yield [first, *others]


class Postgres:
    """A throwaway PostgreSQL server for the tests, started from the machine's binaries
    as the ``postgres`` user when this is root (``initdb`` refuses root). Each test gets
    a database of its own (``fresh``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
        self.bin = binaries[-1] if binaries else None
        self.count = 0

    def _run(self, *command: str) -> None:
        assert self.bin is not None
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*prefix, str(self.bin / command[0]), *command[1:]],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        if self.bin is None:
            raise RuntimeError("no PostgreSQL here (apt-get install postgresql)")
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.folder.chmod(0o700)
        data = self.folder / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.resume()

    def resume(self) -> None:
        """Start the server again on its data (after ``stop``: an outage ends)."""
        data = self.folder / "data"
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off "
            "-c max_connections=400"  # every test's app and server processes at once
        )
        log = str(self.folder / "server.log")
        self._run("pg_ctl", "-D", str(data), "-l", log, "-w", "-o", options, "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def fresh(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        self.count += 1
        name = f"test_{os.getpid()}_{self.count}"
        server = f"host=127.0.0.1 port={self.port} user=postgres"
        with psycopg.connect(server, autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


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

    def __init__(
        self,
        db: Path | str,
        folder: Path | None = None,
        workers: int = 1,
        extra: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.workers = workers
        #: more of ``boardlab serve``'s options (``--limit NAME=N``, ``--proxy``)
        self.extra = list(extra)
        self.port = free_port()
        self.log = (folder or Path(str(db)).parent) / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "boardlab", "serve", "--port", str(self.port)]
        command += ["--db", url_of(self.db), "--ai-workers", "1", "--workers", str(self.workers)]
        command += ["--limit", f"requests={UNLIMITED}", *self.extra]  # extra may lower it
        with self.log.open("a") as log:  # a pipe nobody read would block it
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
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


def alive_process(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ---------------------------------------------------------------------- browsers
def chromium() -> str:
    """Debian's Chromium, for the browser tests (Playwright cannot download its own
    here): its path. Missing, the calling test module is skipped with a note, except
    under CI=true, where it must be there."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            raise RuntimeError("CI needs Chromium for the browser tests: apt-get install chromium")
        pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)
    return found


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """Chromium started by Playwright for a module's tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium(),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def served_in_thread(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread of this process (pages that need no server
    process of their own): its address."""
    import threading

    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def served_in_memory() -> Iterator[str]:
    """The app on an in-memory store with one AI worker, served in a thread: pages whose
    games need no database of their own (the rules, the lessons, the analysis board)."""
    from boardlab.web.app import create_app

    with served_in_thread(create_app("memory:", workers=1)) as served:
        yield served


#: An init script that shows moves at once (the pace a player chooses in the page).
AT_ONCE = "localStorage.setItem('boardlab.speed', 'off')"


@contextmanager
def watched_page(browser: Any, init_script: str = AT_ONCE, timeout: float = 30000) -> Iterator[Any]:
    """A page of its own (a fresh context, 1280 x 860) whose script errors and refusals
    by its Content-Security-Policy fail the test once it is done."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(init_script)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    opened.set_default_timeout(timeout)
    try:
        yield opened
    finally:
        context.close()
    assert errors == []


# ---------------------------------------------------------------------- permission tables
#: The document whose tables say who may do what.
WEB_DOC = Path(__file__).resolve().parents[1] / "docs" / "web.md"


def permission_rows(heading: str) -> list[tuple[str, list[str], str]]:
    """The rows of docs/web.md's two-column table under the heading ``heading`` (up to
    the next section): each row's name, its routes (in backticks) and its rule."""
    text = WEB_DOC.read_text()
    start = text.index(f"### {heading}")
    rows = []
    for line in text[start:].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and "`" in cells[0]:
            rows.append(
                (cells[0].split("`")[0].strip(), re.findall(r"`([^`]+)`", cells[0]), cells[1])
            )
    return rows


def expected(rule: str, viewer: str) -> str | None:
    """What a rule of such a table answers ``viewer``: None when they may, else the
    status they get ("account, other account; others 401")."""
    first, *rest = [part.strip() for part in rule.split(";")]
    if {"anyone", viewer} & {word.strip() for word in first.split(",")}:
        return None
    for clause in rest:
        who, _space, status = clause.rpartition(" ")
        if who in ("others", viewer):
            return status
    raise AssertionError(f"the rule {rule!r} says nothing of {viewer}")
