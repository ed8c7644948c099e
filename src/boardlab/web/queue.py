"""Work for the worker processes, queued fairly: one client's many long searches never
keep another client's short one waiting.

Jobs run in one of two lanes. ``quick`` is for work well under a second (the levels up
to hard, hints), ``slow`` for work of seconds (expert, perfect, a review's chunks). At
most ``workers`` jobs run at once, and slow jobs leave one worker free for quick ones
(when there are two workers or more), so a quick job waits for quick work only, however
many slow jobs are queued; and one client's slow jobs leave a slow worker to the others
(when there are two slow workers or more), so another client's review or expert move
starts at once, not after one of theirs. Within a lane every client has its own line and
clients take turns, round-robin: 25 jobs of one client take one turn a round beside one
job of another, so a job waits for at most one job of each other client ahead of it.
When both lanes are waiting, a lane with no job running gets the next worker, so neither
starves the other.

Only asyncio and ``concurrent.futures`` here (no web framework), so it is tested alone
with a thread pool or a fake executor.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import heapq
import itertools
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future
from dataclasses import dataclass
from typing import Any, TypeVar

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.web import thinking

T = TypeVar("T")

#: Who the work under way is for: a client's key (``guard.client_key``), set by the app
#: for each request and socket; the tasks a request starts (an agent's turn, a review)
#: inherit it, so their searches are that client's turns.
CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("client", default="server")

QUICK = "quick"
SLOW = "slow"
LANES = (QUICK, SLOW)
#: The most jobs one client may have waiting or running at once, both lanes together.
MAX_JOBS_PER_CLIENT = 32

#: Searches bounded by at most this many seconds are quick.
QUICK_SECONDS = 0.5
#: Searches bounded by at most this depth are quick (alpha-beta grows with depth as a power).
QUICK_DEPTH = 4
#: The largest iteration or node budget that is quick, by agent kind and engine: measured
#: on the start positions, each takes about 0.1 to 0.4 s (Python MCTS 7-25 thousand
#: iterations a second, compiled MCTS 400 thousand; Python alpha-beta 50 thousand nodes a
#: second, compiled 4 million).
QUICK_WORK: dict[tuple[str, str], int] = {
    ("mcts", "python"): 5_000,
    ("mcts", "compiled"): 100_000,
    ("alphabeta", "python"): 20_000,
    ("alphabeta", "compiled"): 1_000_000,
}
#: The levels that search for seconds whatever their spec: the strongest searches, and the
#: perfect player, which falls back on it where its table does not reach.
SLOW_LEVELS = frozenset({"expert", "master", "perfect"})


class QueueFullError(BoardlabError):
    """One client has too many jobs waiting: the server answers 429 Too Many Requests."""


def lane_for(spec: str, game: Any = None) -> str:
    """The lane of a search by the agent ``spec`` in ``game`` (a game, its id or None):
    quick for agents that do not search (random, greedy) and for searches bounded to
    about half a second (``QUICK_SECONDS``, ``QUICK_DEPTH``, ``QUICK_WORK``), which on an
    install with numba are the levels beginner to hard; slow for expert, master and perfect, for
    larger budgets, for other agents (external engines, models) and for specs that do
    not parse (their error comes from the worker)."""
    from boardlab.ai import parse_spec

    if spec.strip().lower() in SLOW_LEVELS:
        return SLOW
    try:
        kind, settings = parse_spec(spec, game)
    except BoardlabError:
        return SLOW
    if kind in ("random", "greedy"):
        return QUICK
    engine = str(settings.get("tree" if kind == "mcts" else "engine", "python"))
    if (kind, engine) not in QUICK_WORK:
        return SLOW
    work = [settings[key] for key in ("iterations", "nodes") if key in settings]
    if not work and "time" not in settings and "depth" not in settings:
        return QUICK  # the agent's own default: 1000 iterations, or depth 4
    # a search stops at the first of its limits: one small limit makes it quick
    if "time" in settings and settings["time"] <= QUICK_SECONDS:
        return QUICK
    if kind == "alphabeta" and "depth" in settings and settings["depth"] <= QUICK_DEPTH:
        return QUICK
    return QUICK if any(n <= QUICK_WORK[kind, engine] for n in work) else SLOW


@dataclass(eq=False)
class _Job:
    client: str
    lane: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    #: the caller's answer; cancelled when the caller stops waiting
    answer: asyncio.Future[Any]
    started: bool = False
    dropped: bool = False


class FairQueue:
    """Jobs for ``workers`` processes, taken fairly across clients and lanes (see the
    module). ``executor(workers)`` makes the pool, at the first job and again after a
    pool broke (a worker process died); the default is ``thinking.pool``, processes
    started afresh. Use it from one event loop.

    Turns go by rounds: a client's job joins the round after the client's previous job
    (or the round being served, for a client with none waiting) and rounds are served in
    order, first come first served within one. So one client's 25 jobs sit in the next
    25 rounds, and a client who comes later waits for one job of each other client, not
    for all of them."""

    def __init__(
        self,
        workers: int,
        executor: Callable[[int], Executor] | None = None,
        max_jobs_per_client: int = MAX_JOBS_PER_CLIENT,
    ) -> None:
        if workers < 1:
            raise ValueError(f"a queue needs a worker or more, not {workers}")
        self.workers = workers
        #: slow jobs leave a worker to quick ones, unless there is only one
        self.slow_workers = max(1, workers - 1)
        #: and one client's slow jobs leave a slow worker to other clients, unless there
        #: is only one
        self.slow_share = max(1, self.slow_workers - 1)
        self._slow_running: collections.Counter[str] = collections.Counter()
        self.max_jobs_per_client = max_jobs_per_client
        self._make_executor = executor
        self._executor: Executor | None = None
        #: whether the default pool's workers prepare every level as they start
        self._preparing = False
        #: each lane's waiting jobs as (round, arrival, job), the next first; cancelled
        #: jobs stay until their turn comes and are then passed over
        self._lines: dict[str, list[tuple[int, int, _Job]]] = {lane: [] for lane in LANES}
        self._waiting = dict.fromkeys(LANES, 0)
        self._running = dict.fromkeys(LANES, 0)
        #: each lane's round being served, and each client's last round there (kept
        #: while it is not behind the round being served)
        self._round = dict.fromkeys(LANES, 0)
        self._last: dict[str, dict[str, int]] = {lane: {} for lane in LANES}
        self._arrivals = itertools.count()
        self._started: set[_Job] = set()
        #: each client's jobs waiting or running (those over ``max_jobs_per_client`` refused)
        self._jobs: collections.Counter[str] = collections.Counter()
        self._closed = False

    async def run(self, client: str, lane: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker once its turn comes, for ``client`` (whoever caused
        the work) in ``lane``; raises what ``fn`` raised, and QueueFullError when the
        client already has ``max_jobs_per_client`` jobs. Cancelled while waiting, the
        job is dropped; cancelled while running, it finishes and its result is lost."""
        if lane not in LANES:
            raise ValueError(f"unknown lane {lane!r}: expected one of {', '.join(LANES)}")
        if self._closed:
            raise RuntimeError("the queue is closed")
        if self._jobs[client] >= self.max_jobs_per_client:
            raise QueueFullError(
                _(
                    "too many searches and reviews waiting ({count}): "
                    "try again when some have finished"
                ).format(count=self._jobs[client])
            )
        job = _Job(client, lane, fn, args, asyncio.get_running_loop().create_future())
        self._jobs[client] += 1
        last = self._last[lane].get(client)
        turn = self._round[lane] if last is None else max(self._round[lane], last + 1)
        self._last[lane][client] = turn
        heapq.heappush(self._lines[lane], (turn, next(self._arrivals), job))
        self._waiting[lane] += 1
        self._dispatch()
        try:
            result: T = await job.answer
        finally:
            if not job.started and not job.dropped:  # cancelled before its turn
                self._drop(job)
        return result

    def prepare(self) -> None:
        """Start the workers now, not at the first job, each preparing every level of
        every game in the background (``thinking.prepare_levels``; with the default
        pool, and again in the workers of a pool made after one broke). Jobs are taken
        meanwhile: one that needs what is not ready yet waits for it or compiles it."""
        if self._closed:
            raise RuntimeError("the queue is closed")
        self._preparing = True
        if self._executor is None:
            self._executor = self._new_executor()
        for _worker in range(self.workers):  # a pool starts a process for each job it has
            self._executor.submit(thinking.started)

    def waiting(self) -> dict[str, int]:
        """How many jobs wait in each lane."""
        return dict(self._waiting)

    def running(self) -> dict[str, int]:
        """How many jobs run in each lane."""
        return dict(self._running)

    def close(self) -> None:
        """Stop: every caller still waiting is cancelled, the pool shut down without
        waiting for the jobs running in it."""
        self._closed = True
        for line in self._lines.values():
            for _turn, _arrival, job in line:
                job.answer.cancel()
        for job in self._started:
            job.answer.cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # ------------------------------------------------------------------ turns
    def _lanes(self) -> tuple[str, ...]:
        """The lanes whose jobs may take a free worker, in the order they are asked."""
        if self._running[SLOW] >= self.slow_workers:
            return (QUICK,)
        if self._running[SLOW] == 0 and self._running[QUICK] > 0:  # neither lane starves
            return (SLOW, QUICK)
        return (QUICK, SLOW)

    def _pick(self, lane: str) -> tuple[int, int, _Job] | None:
        """The next job of ``lane`` that may start: the first in turn, passing over a
        client who holds its share of the slow workers (its job keeps its place)."""
        line, passed = self._lines[lane], []
        found = None
        while line:
            entry = heapq.heappop(line)
            job = entry[2]
            if job.dropped:
                continue
            if lane == SLOW and self._slow_running[job.client] >= self.slow_share:
                passed.append(entry)
                continue
            found = entry
            break
        for entry in passed:
            heapq.heappush(line, entry)
        return found

    def _dispatch(self) -> None:
        while not self._closed and sum(self._running.values()) < self.workers:
            entry = next(
                (found for lane in self._lanes() if (found := self._pick(lane)) is not None),
                None,
            )
            if entry is None:
                return
            turn, _arrival, job = entry
            lane = job.lane
            self._waiting[lane] -= 1
            if turn > self._round[lane]:  # a round is over: forget who was served before
                self._round[lane] = turn
                last = self._last[lane]
                for client in [c for c, t in last.items() if t < turn]:
                    del last[client]
            self._start(job)

    def _start(self, job: _Job) -> None:
        job.started = True
        self._started.add(job)
        self._running[job.lane] += 1
        if job.lane == SLOW:
            self._slow_running[job.client] += 1
        loop = job.answer.get_loop()  # the caller's, which may not be the one running now
        try:
            done = self._submit(job)
        except Exception as error:  # the caller gets it, once this turn is over
            loop.call_soon(self._finish, job, None, error)
            return

        def finished(future: Future[Any]) -> None:  # in the pool's thread
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(self._finish, job, future, None)

        done.add_done_callback(finished)

    def _submit(self, job: _Job) -> Future[Any]:
        if self._executor is None:
            self._executor = self._new_executor()
        try:
            return self._executor.submit(job.fn, *job.args)
        except BrokenExecutor:  # a worker died: a new pool for this job and those after
            self._executor.shutdown(wait=False)
            self._executor = self._new_executor()
            return self._executor.submit(job.fn, *job.args)

    def _new_executor(self) -> Executor:
        if self._make_executor is None:
            return thinking.pool(self.workers, prepare=self._preparing)
        return self._make_executor(self.workers)

    def _finish(self, job: _Job, future: Future[Any] | None, error: BaseException | None) -> None:
        """A job's worker is free: hand its answer over (unless nobody waits for it)."""
        self._started.discard(job)
        self._running[job.lane] -= 1
        if job.lane == SLOW:
            self._slow_running[job.client] -= 1
            if self._slow_running[job.client] <= 0:
                del self._slow_running[job.client]
        self._forget(job.client)
        if future is not None:
            if future.cancelled():
                job.answer.cancel()
            else:
                error = future.exception()
        if not job.answer.done():
            if error is not None:
                job.answer.set_exception(error)
            elif future is not None:
                job.answer.set_result(future.result())
        self._dispatch()

    def _drop(self, job: _Job) -> None:
        job.dropped = True
        self._waiting[job.lane] -= 1
        self._forget(job.client)

    def _forget(self, client: str) -> None:
        self._jobs[client] -= 1
        if self._jobs[client] <= 0:
            del self._jobs[client]
