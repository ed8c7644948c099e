"""What the web app asks of the AI, run in worker processes so that a search never holds
up the event loop. Each call rebuilds the position from the stored game: workers keep no
state, so any worker (or a restarted one) answers any game. A server's workers prepare
every level as they start (``prepare_levels``): the first move at each level does not
wait for numba to compile its search."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from boardlab.core.files import locked
from boardlab.core.record import AGREEMENT, GameRecord


def rebuild(
    game_id: str,
    options: dict[str, Any],
    start: str | None,
    actions: Sequence[str],
    resigned: int | None = None,
    headers: dict[str, str] | None = None,
    ending: str | None = None,
) -> GameRecord:
    """The record of a stored game, every action checked again; ``resigned`` and
    ``ending`` say how it ended if not by its rules."""
    import boardlab

    game = boardlab.new_game(game_id, **options)
    record = GameRecord(game, None if start is None else game.from_position_string(start))
    record.headers.update(headers or {})
    for action in actions:
        record.play(action)
    record.resigned = resigned
    if resigned is not None:
        record.resign_reason = ending or "resign"
    record.agreed = ending == AGREEMENT
    return record


def seed_for(game_key: str, ply: int) -> int:
    """A seed fixed by the game and the ply: the same question gets the same answer."""
    digest = hashlib.sha256(f"{game_key}:{ply}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def choose(
    game_id: str,
    options: dict[str, Any],
    start: str | None,
    actions: Sequence[str],
    spec: str,
    seed: int,
) -> dict[str, Any]:
    """The agent's action in the position after ``actions``, with its evaluation (for the
    player to act, -1..1) and the line it expects."""
    from boardlab.ai import make_agent

    position = rebuild(game_id, options, start, actions).position
    agent = make_agent(spec, seed, position.game)
    agent.check(position.game)
    choice = agent.choose(position)
    return {
        "action": position.action_string(choice.action),
        "value": choice.value,
        "line": position.line_strings(choice.pv or (choice.action,)),
        "seconds": choice.seconds,
    }


def review(
    game_id: str,
    options: dict[str, Any],
    start: str | None,
    actions: Sequence[str],
    spec: str,
) -> dict[str, Any]:
    """The review of a stored game, as JSON data."""
    from boardlab.review import review as review_record

    record = rebuild(game_id, options, start, actions)
    return review_record(record, spec).to_dict()


#: The lines an analysis shows at once, as lichess's multi-line analysis.
ANALYSIS_LINES = 3
#: The length of a line shown: the action and the answers expected to it.
LINE_LENGTH = 10


def analyse(
    game_id: str,
    options: Sequence[str],
    text: str | None,
    spec: str,
    seed: int = 0,
    lines: int = ANALYSIS_LINES,
) -> dict[str, Any]:
    """The best ``lines`` actions of the position ``text`` with the line expected after
    each and its value for the player to act: exact (points) where a solver reaches the
    position, with every legal action's value besides (``moves``), else the agent's
    evaluation (-1..1, a line searched afresh after each action that is not its own
    best)."""
    from boardlab.ai import make_agent
    from boardlab.solve import best_line, exact_values
    from boardlab.web.positions import read_position

    position = read_position(game_id, options, text)
    game = position.game
    if position.is_over():
        return {"exact": False, "lines": [], "player": None}
    values = exact_values(game, position.state)
    if values is not None:
        ranked = sorted(values.items(), key=lambda item: -item[1])
        rest = LINE_LENGTH - 1
        return {
            "exact": True,
            "player": position.to_act,
            # every legal action's exact value, as a tablebase shows them
            "moves": [
                {"action": position.action_string(action), "value": value}
                for action, value in ranked
            ],
            "lines": [
                {
                    "action": position.action_string(action),
                    "value": value,
                    "line": position.line_strings(
                        (action, *best_line(game, game.apply(position.state, action), rest))
                    ),
                }
                for action, value in ranked[:lines]
            ],
        }
    agent = make_agent(spec, seed, game)
    agent.check(game)
    choice = getattr(agent, "analyze", agent.choose)(position)
    rows = sorted(choice.action_values, key=lambda row: (-row[2], -row[1]))[:lines]
    if not rows:
        rows = [(choice.action, choice.value or 0.0, 0)]
    found = []
    for action, value, _visits in rows:
        if action == choice.action:
            line = choice.pv or (action,)
        else:
            after = position.play(action)
            agent.reset()
            answers = () if after.is_over() else agent.choose(after).pv
            line = (action, *answers)
        found.append(
            {
                "action": position.action_string(action),
                "value": value,
                "line": position.line_strings(line[:LINE_LENGTH]),
            }
        )
    return {"exact": False, "player": position.to_act, "lines": found}


#: Actions a review judges in one job: a few seconds with the hard agent, so a long review
#: takes its turns in the queue beside other work, not one turn of a minute.
REVIEW_PART = 12


def review_parts(length: int, size: int = REVIEW_PART) -> list[tuple[int, int]]:
    """The plies ``(first, last)`` (last excluded) of each part of a review of ``length``
    actions."""
    return [(first, min(first + size, length)) for first in range(0, length, size)]


def review_part(
    game_id: str,
    options: dict[str, Any],
    start: str | None,
    actions: Sequence[str],
    spec: str,
    first: int,
    last: int,
) -> list[dict[str, Any]]:
    """The review's items for plies ``first`` to ``last`` (excluded) of a stored game, as
    JSON data; ``reviewed`` puts the parts together."""
    from boardlab.review import review as review_record

    record = rebuild(game_id, options, start, actions)
    part = review_record(record, spec, first=first, last=last)
    return [dataclasses.asdict(item) for item in part.items]


def reviewed(
    game_id: str, options: dict[str, Any], spec: str, parts: Sequence[Sequence[dict[str, Any]]]
) -> dict[str, Any]:
    """The review made of ``parts`` (``review_part``'s answers, in order), the same data
    as ``review`` answers for the whole game: counts and average losses over every item."""
    import boardlab
    from boardlab.review import Review, ReviewItem

    items = [ReviewItem(**item) for part in parts for item in part]
    return Review(boardlab.new_game(game_id, **options), spec, items).to_dict()


#: Seconds between a worker's looks at whether the server that started it still runs.
PARENT_CHECK_SECONDS = 0.5


def pool(workers: int, prepare: bool = False) -> Executor:
    """Worker processes started afresh (spawn): safe beside the server's threads. Each
    ends itself when the server process that started it is gone, also when that was
    killed with no time to stop them (``kill -9``). With ``prepare`` each prepares every
    level of every game as it starts, in the background (``prepare_levels``)."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(), prepare),
    )


def start_worker(server: int, prepare: bool = False) -> None:
    """In a new worker: watch ``server`` (``outlive_no_server``) and, with ``prepare``,
    prepare every level in a thread of its own, so that the worker takes jobs at once
    (a job that needs what is not ready yet compiles it itself, or waits while the
    preparation compiles it)."""
    outlive_no_server(server)
    if prepare:
        threading.Thread(target=prepare_levels, name="prepare-levels", daemon=True).start()


def started() -> int:
    """A job that does nothing: one for each worker makes the pool start them all now."""
    return os.getpid()


def outlive_no_server(server: int) -> None:
    """In a worker: end this process once ``server``, its parent, is gone (the worker
    is then another process's child; a search under way is cut short)."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="outlive-no-server", daemon=True).start()


def prepare_levels(say: Callable[[str], None] | None = None, who: str | None = None) -> float:
    """Compile and load what every level of every game needs (the compiled searches,
    the solvers' tables and searches) in this process, game by game and level by level,
    saying each step as ``who`` (to the server's log: standard error); the seconds it
    took. ``boardlab prepare`` does it before a server starts, so that no player waits.

    What one process compiles, numba stores on disk and the others load: the steps are
    taken one process at a time on this machine (``one_at_a_time``), so that the
    workers of a server do not compile the same functions at once on every core while
    it serves its first pages, and those after the first only load. A level that cannot
    play (the perfect player without its table) or fails is said and passed over."""
    import boardlab
    from boardlab.ai import levels, make_agent
    from boardlab.core.errors import BoardlabError
    from boardlab.core.i18n import _

    say = say or _to_log
    who = who or _("boardlab: AI worker {pid}").format(pid=os.getpid())
    began = time.perf_counter()
    say(_("{who}: preparing every level").format(who=who))
    for game_id in boardlab.game_ids():
        game = boardlab.new_game(game_id)
        for level in levels(game):
            step = time.perf_counter()
            try:
                agent = make_agent(level, 0, game)
                agent.check(game)
                with one_at_a_time() as waited:
                    agent.warm(game.initial())
            except BoardlabError as error:
                text = _("{who}: {game} {level} cannot play: {why}")
                say(text.format(who=who, game=game_id, level=level, why=error))
                continue
            except Exception as error:  # the level's first move will say it again
                text = _("{who}: {game} {level} failed to prepare: {why}")
                say(text.format(who=who, game=game_id, level=level, why=error))
                continue
            seconds = time.perf_counter() - step - waited
            text = (
                _("{who}: {game} {level} ready in {seconds:.1f} s")
                if waited < 0.1
                else _(
                    "{who}: {game} {level} ready in {seconds:.1f} s, "
                    "after {waited:.1f} s waiting for another worker"
                )
            )
            say(text.format(who=who, game=game_id, level=level, seconds=seconds, waited=waited))
    seconds = time.perf_counter() - began
    say(_("{who}: every level ready in {seconds:.1f} s").format(who=who, seconds=seconds))
    return seconds


def _to_log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def one_at_a_time() -> Iterator[float]:
    """Hold, while the block runs, the lock that processes of this machine take to
    prepare levels (a file lock beside the compiled searches; released also when its
    holder is killed); gives the seconds it waited for another holder.
    Without numba there is nothing to compile and no lock."""
    from boardlab.extras import has

    if not has("fast"):  # nothing to compile
        yield 0.0
        return
    from boardlab.fast.specialise import cache_dir

    began = time.perf_counter()
    with locked(cache_dir() / "prepare.lock"):
        yield time.perf_counter() - began
