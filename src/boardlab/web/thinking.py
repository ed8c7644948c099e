"""What the web app asks of the AI, run in worker processes so that a search never holds
up the event loop. Each call rebuilds the position from the stored game: workers keep no
state, so any worker (or a restarted one) answers any game."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

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


def pool(workers: int) -> Executor:
    """Worker processes started afresh (spawn): safe beside the server's threads. Each
    ends itself when the server process that started it is gone, also when that was
    killed with no time to stop them (``kill -9``)."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=outlive_no_server,
        initargs=(os.getpid(),),
    )


def outlive_no_server(server: int) -> None:
    """In a worker: end this process once ``server``, its parent, is gone (the worker
    is then another process's child; a search under way is cut short)."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="outlive-no-server", daemon=True).start()
