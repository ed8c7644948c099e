"""The fair queue of the web app's worker processes: clients take turns, slow work leaves
a worker to quick work, one client's jobs are capped, cancelled jobs do not run, errors
reach their callers. Jobs run in a pool the test holds: each starts when the queue
submits it and ends when the test says, so the tests assert orders, never durations."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from boardlab.ai import compiled
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import game_class
from boardlab.web.queue import QUICK, SLOW, FairQueue, QueueFullError, lane_for

T = TypeVar("T")


class HeldPool(Executor):
    """A pool whose jobs start when submitted and end when the test calls ``end``."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.jobs: list[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = []
        self.shut = False
        self.broken = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if self.broken:
            raise BrokenExecutor("a worker died")
        future: Future[T] = Future()
        future.set_running_or_notify_cancel()
        self.jobs.append((fn, args, future))
        return future

    def started(self) -> list[Any]:
        """The names (first arguments) of the jobs submitted, in order."""
        return [args[0] for _fn, args, _future in self.jobs]

    def busy(self) -> list[Any]:
        return [args[0] for _fn, args, future in self.jobs if not future.done()]

    def end(self, name: Any) -> None:
        """Run the job called ``name`` now, and end it."""
        fn, args, future = next(job for job in self.jobs if job[1][0] == name)
        assert not future.done()
        try:
            future.set_result(fn(*args))
        except Exception as error:
            future.set_exception(error)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.shut = True


def named(name: str) -> str:
    return name


def fails(name: str) -> str:
    raise ValueError(f"{name} went wrong")


async def settle() -> None:
    """Let the loop take every answer the pool has given."""
    for _ in range(10):
        await asyncio.sleep(0)


def held(workers: int, **settings: Any) -> tuple[FairQueue, list[HeldPool]]:
    pools: list[HeldPool] = []

    def make(n: int) -> HeldPool:
        pools.append(HeldPool(n))
        return pools[-1]

    return FairQueue(workers, make, **settings), pools


def submit(queue: FairQueue, client: str, lane: str, name: str) -> asyncio.Task[str]:
    return asyncio.create_task(queue.run(client, lane, named, name))


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), timeout=60))


def test_clients_take_turns_one_job_a_round() -> None:
    async def test() -> None:
        queue, pools = held(1)
        tasks = [submit(queue, "x", SLOW, "x1")]
        await settle()
        for name in ("a1", "a2", "a3", "b1", "b2", "c1"):
            tasks.append(submit(queue, name[0], SLOW, name))
        await settle()
        assert queue.waiting() == {QUICK: 0, SLOW: 6}
        pool = pools[0]
        while pool.busy():
            pool.end(pool.busy()[0])
            await settle()
        assert pool.started() == ["x1", "a1", "b1", "c1", "a2", "b2", "a3"]
        assert [await task for task in tasks] == ["x1", "a1", "a2", "a3", "b1", "b2", "c1"]
        assert queue.waiting() == queue.running() == {QUICK: 0, SLOW: 0}

    run(test)


def test_slow_jobs_leave_the_last_worker_to_quick_ones() -> None:
    async def test() -> None:
        queue, pools = held(3)
        for k in range(5):
            submit(queue, f"client{k}", SLOW, f"slow{k}")
        await settle()
        assert pools[0].busy() == ["slow0", "slow1"]
        assert queue.running() == {QUICK: 0, SLOW: 2}
        assert queue.waiting() == {QUICK: 0, SLOW: 3}
        submit(queue, "client0", QUICK, "quick")
        await settle()
        assert pools[0].busy() == ["slow0", "slow1", "quick"]
        pools[0].end("quick")  # the freed worker stays with quick work
        await settle()
        assert pools[0].busy() == ["slow0", "slow1"]
        queue.close()

    run(test)


def test_one_worker_takes_slow_jobs_too() -> None:
    async def test() -> None:
        queue, pools = held(1)
        task = submit(queue, "a", SLOW, "slow")
        await settle()
        assert pools[0].busy() == ["slow"]
        pools[0].end("slow")
        assert await task == "slow"

    run(test)


@pytest.mark.parametrize("workers", [2, 4])
def test_a_beginners_move_does_not_wait_for_one_clients_expert_games(workers: int) -> None:
    async def test() -> None:
        queue, pools = held(workers)
        for k in range(25):
            submit(queue, "expert", SLOW, f"expert{k}")
        await settle()
        pool = pools[0]
        share = queue.slow_share  # one client leaves a slow worker to the others too
        experts = [f"expert{k}" for k in range(share)]
        assert pool.busy() == experts  # the last worker is kept for quick work
        assert queue.waiting() == {QUICK: 0, SLOW: 25 - share}
        beginner = submit(queue, "beginner", QUICK, "beginner")
        await settle()
        assert pool.busy() == [*experts, "beginner"]  # at once, no expert game ended
        pool.end("beginner")
        assert await beginner == "beginner"
        pool.end("expert0")
        await settle()
        assert pool.started() == [*experts, "beginner", f"expert{share}"]
        queue.close()

    run(test)


def test_a_short_review_does_not_wait_for_one_clients_expert_games() -> None:
    """Three workers (``--ai-workers 2``): one client's 25 expert searches hold one slow
    worker; another client's review starts at once on the other."""

    async def test() -> None:
        queue, pools = held(3)
        for k in range(25):
            submit(queue, "expert", SLOW, f"expert{k}")
        await settle()
        pool = pools[0]
        assert pool.busy() == ["expert0"] and queue.waiting() == {QUICK: 0, SLOW: 24}
        review = submit(queue, "reviewer", SLOW, "review")
        await settle()
        assert pool.busy() == ["expert0", "review"]  # no expert search had to end
        beginner = submit(queue, "beginner", QUICK, "beginner")
        await settle()
        assert pool.busy() == ["expert0", "review", "beginner"]  # and quick work its own
        for name in ("review", "beginner"):
            pool.end(name)
        assert await review == "review" and await beginner == "beginner"
        await settle()
        assert pool.busy() == ["expert0"]  # their workers are not the expert client's
        queue.close()

    run(test)


def test_a_quick_job_waits_for_at_most_one_of_another_clients_quick_jobs() -> None:
    async def test() -> None:
        queue, pools = held(2)
        for k in range(10):
            submit(queue, "busy", QUICK, f"busy{k}")
        await settle()
        submit(queue, "other", QUICK, "other")
        await settle()
        pool = pools[0]
        assert pool.busy() == ["busy0", "busy1"]
        pool.end("busy0")
        await settle()
        assert pool.busy() == ["busy1", "other"]
        queue.close()

    run(test)


def test_slow_work_is_not_starved_by_quick_work() -> None:
    async def test() -> None:
        queue, pools = held(2)
        for k in range(6):
            submit(queue, "quick", QUICK, f"quick{k}")
        submit(queue, "slow", SLOW, "slow")
        await settle()
        pool = pools[0]
        assert pool.busy() == ["quick0", "quick1"]
        pool.end("quick0")  # both lanes wait: the one with nothing running goes first
        await settle()
        assert pool.busy() == ["quick1", "slow"]
        queue.close()

    run(test)


def test_one_client_may_queue_only_so_many_jobs() -> None:
    async def test() -> None:
        queue, pools = held(1, max_jobs_per_client=3)
        tasks = [submit(queue, "a", lane, name) for lane, name in [(SLOW, "a1"), (QUICK, "a2")]]
        tasks.append(submit(queue, "a", SLOW, "a3"))
        await settle()
        with pytest.raises(
            QueueFullError, match="too many searches and reviews waiting"
        ) as refused:
            await queue.run("a", QUICK, named, "a4")
        assert isinstance(refused.value, BoardlabError)
        other = submit(queue, "b", QUICK, "b1")  # another client is still served
        await settle()
        assert queue.waiting() == {QUICK: 2, SLOW: 1}
        pools[0].end("a1")
        await settle()
        tasks.append(submit(queue, "a", QUICK, "a4"))  # a place freed: taken again
        await settle()
        assert queue.waiting() == {QUICK: 2, SLOW: 1}
        queue.close()
        await asyncio.gather(*tasks, other, return_exceptions=True)

    run(test)


def test_a_job_cancelled_while_waiting_never_runs() -> None:
    async def test() -> None:
        queue, pools = held(1, max_jobs_per_client=2)
        first = submit(queue, "a", SLOW, "a1")
        dropped = submit(queue, "a", SLOW, "a2")
        await settle()
        dropped.cancel()
        await settle()
        assert dropped.cancelled()
        assert queue.waiting() == {QUICK: 0, SLOW: 0}
        later = submit(queue, "a", SLOW, "a3")  # its place in the client's cap is free
        pools[0].end("a1")
        await settle()
        pools[0].end("a3")
        assert [await first, await later] == ["a1", "a3"]
        assert pools[0].started() == ["a1", "a3"]

    run(test)


def test_a_job_cancelled_while_running_ends_and_frees_its_worker() -> None:
    async def test() -> None:
        queue, pools = held(1)
        running = submit(queue, "a", SLOW, "a1")
        waiting = submit(queue, "b", SLOW, "b1")
        await settle()
        running.cancel()
        await settle()
        assert running.cancelled()
        assert pools[0].busy() == ["a1"]  # still running: its worker is not free yet
        pools[0].end("a1")  # its answer is dropped
        await settle()
        assert pools[0].busy() == ["b1"]
        pools[0].end("b1")
        assert await waiting == "b1"

    run(test)


def test_a_jobs_error_and_answer_reach_its_caller() -> None:
    async def test() -> None:
        queue = FairQueue(2, ThreadPoolExecutor)
        with pytest.raises(ValueError, match="q went wrong"):
            await queue.run("a", QUICK, fails, "q")
        assert await queue.run("a", SLOW, operator.add, 2, 3) == 5
        assert queue.running() == {QUICK: 0, SLOW: 0}
        queue.close()

    run(test)


def test_the_default_pool_runs_jobs_in_processes() -> None:
    async def test() -> None:
        queue = FairQueue(1)
        assert await queue.run("a", QUICK, operator.mul, 6, 7) == 42
        queue.close()

    run(test)


def test_a_broken_pool_is_made_again() -> None:
    async def test() -> None:
        queue, pools = held(1)
        first = submit(queue, "a", QUICK, "a1")
        await settle()
        pools[0].end("a1")
        assert await first == "a1"
        pools[0].broken = True
        second = submit(queue, "a", QUICK, "a2")
        await settle()
        assert len(pools) == 2 and pools[1].busy() == ["a2"]
        pools[1].end("a2")
        assert await second == "a2"

    run(test)


def test_close_cancels_waiting_jobs_and_shuts_the_pool() -> None:
    async def test() -> None:
        queue, pools = held(1)
        running = submit(queue, "a", SLOW, "a1")
        waiting = submit(queue, "b", QUICK, "b1")
        await settle()
        queue.close()
        await settle()
        assert pools[0].shut
        assert waiting.cancelled() and running.cancelled()
        assert queue.waiting() == {QUICK: 0, SLOW: 0}
        with pytest.raises(RuntimeError, match="closed"):
            await queue.run("c", QUICK, named, "c1")
        pools[0].end("a1")  # the running job ends in its pool; nobody is told
        await settle()
        assert pools[0].started() == ["a1"]

    run(test)


@pytest.mark.parametrize(
    ("spec", "lane"),
    [
        ("beginner", QUICK),
        ("easy", QUICK),
        ("medium", QUICK),
        ("expert", SLOW),
        ("Expert", SLOW),
        ("perfect", SLOW),
        ("random", QUICK),
        ("greedy:noise=0.2", QUICK),
        ("mcts", QUICK),
        ("mcts:time=0.3", QUICK),
        ("mcts:time=3", SLOW),
        ("mcts:iterations=400000,time=0.2", QUICK),
        ("mcts:iterations=20000", SLOW),
        ("mcts:tree=compiled,iterations=20000", QUICK),
        ("mcts:tree=compiled,iterations=400000", SLOW),
        ("alphabeta", QUICK),
        ("alphabeta:depth=3", QUICK),
        ("alphabeta:depth=8", SLOW),
        ("alphabeta:nodes=2000000", SLOW),
        ("alphabeta:engine=compiled,nodes=500000", QUICK),
        ("alphabeta:engine=compiled,nodes=2000000", SLOW),
        ("perfect:fallback=easy", SLOW),
        ("llm", SLOW),
        ("grandmaster", SLOW),
        ("mcts:time=lots", SLOW),
    ],
)
def test_searches_are_quick_or_slow_by_their_budget(spec: str, lane: str) -> None:
    assert lane_for(spec) == lane


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_the_levels_up_to_hard_are_quick_where_they_are_compiled(game_id: str) -> None:
    lanes = {level: lane_for(level, game_id) for level in ("beginner", "easy", "medium", "hard")}
    hard = QUICK if compiled(game_class(game_id)) else SLOW  # without numba, hard searches 1.5 s
    assert lanes == {"beginner": QUICK, "easy": QUICK, "medium": QUICK, "hard": hard}
    assert lane_for("expert", game_id) == lane_for("perfect", game_id) == SLOW
