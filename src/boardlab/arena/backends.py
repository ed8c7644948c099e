"""Where the games of a match, a tournament or a study are played: this machine's
processes (the default) or a Ray cluster (``--backend ray``).

A backend takes a function and a stream of argument tuples and gives each call's result
as soon as it is done, keeping a few calls ahead of the results so that every worker stays
busy, but no more: a tournament that stops (an SPRT's verdict, Ctrl-C) has little to throw
away, and results stream to disk while the rest is played. The function must be
importable by the workers (a module-level function of boardlab), so the same code runs in a
local process pool and on the nodes of a cluster.
"""

from __future__ import annotations

import os
import socket
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any, TypeVar

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.extras import import_extra

Task = TypeVar("Task", bound=tuple[Any, ...])
Result = TypeVar("Result")

#: The backends by name, as ``--backend`` takes them.
BACKENDS = ("local", "ray")


class Backend(ABC):
    """Runs calls of one function in parallel and yields ``(arguments, result)`` pairs in
    the order they finish. Closing the iterator early drops the calls not yet started and
    ends those running."""

    @abstractmethod
    def workers(self) -> int:
        """How many calls run at once."""

    @abstractmethod
    def unordered(
        self, function: Callable[..., Result], tasks: Iterable[Task]
    ) -> Generator[tuple[Task, Result], None, None]:
        """``function(*task)`` for every task, each result as soon as it is done."""

    def close(self) -> None:
        """Release what the backend started (nothing, unless it started a Ray)."""
        return None

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalBackend(Backend):
    """Processes on this machine (one: the calls run in this process, in order)."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def workers(self) -> int:
        return self.jobs

    def unordered(
        self, function: Callable[..., Result], tasks: Iterable[Task]
    ) -> Generator[tuple[Task, Result], None, None]:
        if self.jobs == 1:
            for task in tasks:
                yield task, function(*task)
            return
        waiting = iter(tasks)
        pool = ProcessPoolExecutor(max_workers=self.jobs)
        pending: dict[Future[Result], Task] = {}
        try:
            while True:
                for task in islice(waiting, 2 * self.jobs - len(pending)):
                    pending[pool.submit(function, *task)] = task
                if not pending:
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in [f for f in pending if f in done]:  # in the order submitted
                    yield pending.pop(future), future.result()
        finally:
            if pending:  # stopped before the end (a verdict, an error): nothing more counts
                _end_calls(pool)
            pool.shutdown(wait=True, cancel_futures=True)


def _end_calls(pool: ProcessPoolExecutor) -> None:
    """End the calls running in ``pool`` now rather than wait for games whose results
    will be thrown away (at 5 s an action, minutes after an SPRT's verdict). The pool can
    do it itself from Python 3.14; before, its processes are ended one by one."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


class RayBackend(Backend):
    """The nodes of a Ray cluster: the one at ``address`` (``auto``: the cluster this
    machine belongs to), or, without an address, the Ray already started in this process
    or a new local one with ``jobs`` CPUs (all of them by default)."""

    def __init__(self, address: str | None = None, jobs: int | None = None) -> None:
        self.ray = import_extra("ray", "--backend ray", "Ray")
        self.started = False
        if not self.ray.is_initialized():
            settings: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if address:
                _reachable(address)
                settings["address"] = address
            elif jobs:
                settings["num_cpus"] = jobs
            try:
                self.ray.init(**settings)
            except (ConnectionError, ValueError, RuntimeError) as error:
                first = str(error).strip().splitlines()[0] if str(error).strip() else ""
                if address:
                    raise BoardlabError(
                        _("cannot start or reach Ray at {address!r}: {error}").format(
                            address=address, error=first
                        )
                    ) from None
                raise BoardlabError(
                    _("cannot start or reach Ray on this machine: {error}").format(error=first)
                ) from None
            self.started = True

    def workers(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def unordered(
        self, function: Callable[..., Result], tasks: Iterable[Task]
    ) -> Generator[tuple[Task, Result], None, None]:
        ray = self.ray
        remote = ray.remote(function)
        waiting = iter(tasks)
        ahead = 2 * self.workers()
        pending: dict[Any, Task] = {}
        try:
            while True:
                for task in islice(waiting, ahead - len(pending)):
                    pending[remote.remote(*task)] = task
                if not pending:
                    break
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    task = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayError as error:
                        raise _cause(error) from None
                    yield task, result
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        """Stop the Ray this backend started (one it joined stays up)."""
        if self.started:
            self.ray.shutdown()
            self.started = False


def _cause(error: BaseException) -> BaseException:
    """What a call that failed on Ray raised, as the local pool would raise it: a
    BoardlabError as it is; anything else in one line, without Ray's traceback."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, BoardlabError):
        return cause
    shown = cause if isinstance(cause, BaseException) else error
    lines = str(shown).strip().splitlines() or [""]
    return BoardlabError(
        _("a game failed on the Ray cluster: {kind}: {error}").format(
            kind=type(shown).__name__, error=lines[0]
        )
    )


def _reachable(address: str, seconds: float = 5.0) -> None:
    """Refuse at once a ``host:port`` where nothing listens (Ray itself would retry for
    minutes); ``auto`` and other forms are left to Ray."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        if address != "auto":
            raise BoardlabError(
                _(
                    "--address {address!r}: expected host:port (the head node's GCS, port 6379 "
                    "by default) or auto"
                ).format(address=address)
            )
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except (OSError, ValueError) as error:
        raise BoardlabError(
            _(
                "--address {address!r}: no Ray head answers there ({error}); start one with "
                "`ray start --head` or give its address"
            ).format(address=address, error=error)
        ) from None


def make_backend(
    name: str = "local", jobs: int | None = None, address: str | None = None
) -> Backend:
    """The backend ``--backend NAME`` names; a BoardlabError for an unknown name, or an
    address without Ray."""
    if name == "local":
        if address:
            raise BoardlabError(
                _("--address {address!r} needs --backend ray").format(address=address)
            )
        return LocalBackend(jobs)
    if name == "ray":
        return RayBackend(address, jobs)
    raise BoardlabError(
        _("unknown backend {name!r}: use one of {choices}").format(
            name=name, choices=", ".join(BACKENDS)
        )
    )
