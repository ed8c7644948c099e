"""Perfect play enabled by the host: the solvers' tables built by the server itself, in
the background (docs/web.md, "Perfect play on a server").

A host asks for a game's table with one click on ``/admin`` or ``boardlab serve
--perfect GAME,...``: that writes the wish in a status file (``status.json`` in
``building/GAME`` beside the tables, ``table_dir()``), and a **builder** process makes
the table: ``python -m boardlab.web.tables GAME SERVER_PID``, started by a server
process, at nice 10 (the kernel gives it the cores only when play leaves them idle),
never on the event loop nor in the AI workers' queue. It runs the game's own
``Solver.solve`` with ``SolveRequest.work``: what it has done is kept in the folder now
and then, and a build stopped (the server stopped, the machine restarted, the host
cancelled) goes on from there when it starts again. It writes its progress (steps done
of all, the time since it began) to the status file, which every server process reads
for the admin page; the table appears whole at its place once done (written aside,
then renamed), and every server process and AI worker finds it there at its next
question (``boardlab.solve.open_solver``): the form offers the perfect level.

**One builder.** A builder holds the lock ``building/one.lock`` while it builds: one
build at a time for the tables folder, whatever the number of server processes (with
``--workers N`` each looks every few seconds for a wish no builder holds, and the lock
leaves one of them building; the others see the status file). A builder ends when the
server process that started it is gone; the next server process to look starts it
again, and it resumes.

Nothing here names a game: the games' solvers say what a table is, where it lives and
how it is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boardlab
from boardlab.core.errors import BoardlabError, UnknownGameError
from boardlab.core.files import locked, write_atomic
from boardlab.core.i18n import _
from boardlab.web.data import NotFound, RequestError, StaleError

log = logging.getLogger("boardlab.web")

#: Seconds between two looks of a server process for a wish no builder holds.
LOOK_SECONDS = 5.0
#: Seconds between two writes of a builder's progress.
REPORT_SECONDS = 1.0
#: The builder's nice value: below play.
NICE = 10
#: Tests only: a table that reaches less, built in seconds (an endgame table of this
#: many seeds; a table solved whole from this level up).
TEST_REACH = "BOARDLAB_TEST_TABLE_REACH"


class Cancelled(Exception):
    """The host cancelled the build: the builder stops, keeping what it has done."""


def builds_dir() -> Path:
    from boardlab.solve.tables import table_dir

    return table_dir() / "building"


def folder_of(game_id: str) -> Path:
    return builds_dir() / game_id


def _status_path(game_id: str) -> Path:
    return folder_of(game_id) / "status.json"


def _cancel_path(game_id: str) -> Path:
    """The host's cancel, a file of its own: the builder writes the status as it goes,
    and a cancel written into the status could be lost between its read and write."""
    return folder_of(game_id) / "cancelled"


def read_status(game_id: str) -> dict[str, Any]:
    """What is known of a build of ``game_id``'s table ({} when nothing)."""
    try:
        found: dict[str, Any] = json.loads(_status_path(game_id).read_text())
        return found
    except (OSError, ValueError):
        return {}


def write_status(game_id: str, **changes: Any) -> dict[str, Any]:
    """The status with ``changes``, written whole (a reader never sees half of it)."""
    status = {**read_status(game_id), **changes}
    write_atomic(_status_path(game_id), json.dumps(status, sort_keys=True))
    return status


@contextlib.contextmanager
def _one_lock(wait: bool = False) -> Iterator[bool]:
    """Hold the lock of the one builder while the block runs; whether it was had (False:
    another builder holds it)."""
    with locked(builds_dir() / "one.lock", wait) as had:
        yield had


def builder_running() -> bool:
    """Whether a builder holds the lock now (in any process of this machine)."""
    with _one_lock() as had:
        return not had


# ---------------------------------------------------------------------- what the page shows
@dataclass(frozen=True)
class TableState:
    """A game's table as the admin page shows it."""

    game: str
    name: str
    #: what the table covers, in words
    covers: str
    #: the perfect level needs it (else it plays without, and the table makes it exact
    #: and quick where the table reaches)
    needs_table: bool
    built: bool
    size: int | None
    #: the host asked for it and it is not built yet
    wanted: bool
    #: a builder works on it now
    building: bool
    done: int
    total: int
    #: what the steps are (levels, positions), in the builder's language
    unit: str
    seconds_left: float | None
    error: str | None

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def solvers() -> list[tuple[Any, Any]]:
    """(game under its default rules, its solver class) of every game with a solver that
    can be had here (the ``fast`` extra installed)."""
    from boardlab.solve import solver_class_or_none

    found = []
    for game_id in boardlab.game_ids():
        game = boardlab.new_game(game_id)
        cls = solver_class_or_none(game)
        if cls is not None and cls.table_path(game) is not None:
            found.append((game, cls))
    return found


def solver_of(game_id: str) -> tuple[Any, Any]:
    """The game and its solver class, or NotFound naming the games that have one."""
    for game, cls in solvers():
        if game.id == game_id:
            return game, cls
    names = ", ".join(game.id for game, _cls in solvers()) or _("none")
    raise NotFound(
        _("there is no table to build for {game!r}: the games with one are {games}").format(
            game=game_id[:40], games=names
        )
    )


def states() -> list[TableState]:
    """Every game's table: built (its size), being built (how far, the time left), wanted
    (waiting for another build), or not built."""
    running = builder_running()
    found = []
    for game, cls in solvers():
        path = cls.table_path(game)
        built = cls.table_exists(game)
        status = {} if built else read_status(game.id)
        done, total = int(status.get("done", 0)), int(status.get("total", 0))
        building = running and status.get("builder") is not None and _alive(status["builder"])
        found.append(
            TableState(
                game=game.id,
                name=game.name,
                covers=_(cls.covers),
                needs_table=bool(cls.needs_table),
                built=built,
                size=path.stat().st_size if built and path is not None else None,
                wanted=bool(status.get("wanted")) and not built,
                building=building,
                done=done,
                total=total,
                unit=str(status.get("unit", "")),
                seconds_left=_left(status) if building else None,
                error=status.get("error"),
            )
        )
    return found


def _left(status: dict[str, Any]) -> float | None:
    """The seconds the build still takes at the pace of this run (None before it can
    tell): the steps left at the steps a second since it began."""
    began, first = status.get("run_began"), status.get("run_first", 0)
    done, total, now = status.get("done", 0), status.get("total", 0), status.get("updated")
    if not began or not now or done <= first or not total:
        return None
    return float((total - done) * (now - began) / (done - first))


def _alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------- the host's wishes
def want(game_id: str) -> bool:
    """Ask for ``game_id``'s table (NotFound for a game without one); False when it is
    built already."""
    game, cls = solver_of(game_id)
    if cls.table_exists(game):
        return False
    write_status(game_id, wanted=True, error=None, asked=time.time())
    _cancel_path(game_id).unlink(missing_ok=True)
    return True


def ask(game_id: str) -> None:
    """The admin page's Build: refused when the table is built or asked for already (a
    build is never started twice)."""
    game, cls = solver_of(game_id)
    if cls.table_exists(game):
        raise RequestError(
            _("the table of {game} is built: its perfect level plays").format(game=game.name)
        )
    if read_status(game_id).get("wanted"):
        raise StaleError(_("the table of {game} is being prepared already").format(game=game.name))
    want(game_id)


def cancel(game_id: str) -> None:
    """Stop building ``game_id``'s table (the builder stops at its next step, keeping what
    it has done: Build again goes on from there)."""
    game, _cls = solver_of(game_id)
    if not read_status(game_id).get("wanted") or _cancel_path(game_id).exists():
        raise RequestError(
            _("the table of {game} is not being prepared: nothing to cancel").format(game=game.name)
        )
    if builder_running() and read_status(game_id).get("builder"):
        _cancel_path(game_id).touch()  # the builder stops at its next step
    else:
        write_status(game_id, wanted=False)


def wanted() -> list[str]:
    """The games whose tables the host asked for and are not built, in the order asked."""
    found = []
    for game, cls in solvers():
        status = read_status(game.id)
        if status.get("wanted") and not cls.table_exists(game):
            found.append((status.get("asked", 0), game.id))
    return [game_id for _asked, game_id in sorted(found)]


# ---------------------------------------------------------------------- in a server process
class Builds:
    """A server process's side: it starts a builder when a wish waits and no builder
    holds the lock (at once on the admin page's click, and every ``LOOK_SECONDS``), and
    stops the one it started when it stops."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def start(self) -> bool:
        """Start a builder for the first wish if none runs; whether it started one."""
        with self._lock:
            if self.process is not None and self.process.poll() is None:
                return False
            self.process = None
            chosen = wanted()
            if not chosen or builder_running():
                return False
            folder = folder_of(chosen[0])
            folder.mkdir(parents=True, exist_ok=True)
            with (folder / "build.log").open("ab") as output:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "boardlab.web.tables", chosen[0], str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            log.info("building the table of %s (process %d)", chosen[0], self.process.pid)
            return True

    async def watch(self) -> None:
        """Look for wishes no builder holds, for as long as the server runs."""
        while True:
            try:
                await asyncio.to_thread(self.start)
            except (OSError, BoardlabError) as error:
                log.warning("the tables' builds: %s", error)
            await asyncio.sleep(LOOK_SECONDS)

    def close(self) -> None:
        """Stop the builder this process started (it resumes when started again)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)


# ---------------------------------------------------------------------- the builder
def build(game_id: str, server: int | None = None) -> int:
    """Build ``game_id``'s table as the host asked (in a process of its own: see the
    module's docstring); the exit status."""
    from boardlab.solve import SolveRequest

    game, cls = solver_of(game_id)
    with _one_lock() as had:
        if not had:
            return 0  # another builder works: it will come to this one
        status = read_status(game_id)
        if not status.get("wanted") or cls.table_exists(game):
            return 0
        if server is not None:
            _end_with(server)
        reach = os.environ.get(TEST_REACH)
        sized = {}
        if reach:
            sized = {"max_seeds": int(reach)} if cls.sized else {"lowest": int(reach)}
        request = SolveRequest(work=folder_of(game_id) / "work", **sized)  # type: ignore[arg-type]
        write_status(game_id, builder=os.getpid(), error=None, run_began=None)
        try:
            for line in cls.solve(game, request, _reporter(game_id)):
                print(line, flush=True)
        except Cancelled:
            write_status(game_id, builder=None)
            print(f"cancelled: {game_id}", flush=True)
            return 0
        except BoardlabError as error:
            write_status(game_id, builder=None, wanted=False, error=str(error))
            print(error, flush=True)
            return 1
        write_status(game_id, builder=None, wanted=False, built=time.time())
    return 0


def _reporter(game_id: str) -> Callable[[str, str], Any]:
    """The ``Progress`` of a builder: steps done written to the status file at most
    every ``REPORT_SECONDS``, and a stop when the host cancelled."""

    @contextlib.contextmanager
    def progress(label: str, unit: str) -> Iterator[Callable[[int, int], None]]:
        last = [0.0]
        first: list[int | None] = [None]

        def update(done: int, total: int) -> None:
            now = time.time()
            if first[0] is None:
                first[0] = done
                write_status(game_id, run_began=now, run_first=done)
            if now - last[0] < REPORT_SECONDS and done < total:
                return
            last[0] = now
            if _cancel_path(game_id).exists():
                write_status(game_id, wanted=False)
                _cancel_path(game_id).unlink(missing_ok=True)
                raise Cancelled
            write_status(game_id, done=done, total=total, unit=unit, updated=now)

        yield update

    return progress


def _end_with(server: int) -> None:
    """End this builder once ``server``, the process that started it, is gone (what is
    done is kept: the next server process resumes it)."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-server", daemon=True).start()


def main(argv: list[str]) -> int:
    with contextlib.suppress(OSError):
        os.nice(NICE)
    try:
        return build(argv[0], int(argv[1]) if len(argv) > 1 else None)
    except (BoardlabError, UnknownGameError) as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
