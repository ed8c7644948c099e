"""Where games run: the local process pool and a Ray started in the test give the same
games (seeded by their numbers) for matches, tournaments and studies; stopping early
drops what is not yet played; bad backends and addresses are refused in one line."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from boardlab.arena import play_match
from boardlab.arena.backends import LocalBackend, RayBackend, make_backend
from boardlab.arena.match import play_game
from boardlab.arena.study import Study, variants
from boardlab.arena.tournament import Plan, run
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from optional import need

SMALL = {"pits": 4, "seeds": 3}
AGENTS = ("random", "beginner", "easy")


def _tasks(count: int) -> list[tuple[Any, ...]]:
    return [("galatjang", SMALL, "beginner", "random", index, 9) for index in range(count)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_local_pool_gives_every_result_once(jobs: int) -> None:
    found = list(LocalBackend(jobs).unordered(play_game, _tasks(7)))
    assert sorted(task[4] for task, _ in found) == list(range(7))
    for task, result in found:
        assert result.record == play_game(*task).record


def test_closing_the_results_early_drops_the_games_not_played() -> None:
    started = iter(_tasks(1000))
    with closing(LocalBackend(2).unordered(play_game, started)) as results:
        next(results)
    assert len(list(started)) > 990  # only a few were handed to the pool


def test_closing_the_results_early_ends_the_calls_running() -> None:
    """An SPRT's verdict ends the match at once: the games still running are not waited
    for (here, sleeps of an hour beside one that ends at once)."""
    began = time.monotonic()
    with closing(LocalBackend(2).unordered(time.sleep, [(0,), (3600,), (3600,)])) as results:
        assert next(results) == ((0,), None)
    assert time.monotonic() - began < 600


def test_bad_backends_are_refused_in_one_line() -> None:
    with pytest.raises(BoardlabError, match="unknown backend 'spark': use one of local, ray"):
        make_backend("spark")
    with pytest.raises(BoardlabError, match="needs --backend ray"):
        make_backend("local", address="10.0.0.1:6379")


@pytest.mark.parametrize(
    ("address", "said"),
    [("127.0.0.1:1", "no Ray head answers there"), ("head-node", "expected host:port")],
)
def test_an_address_where_no_ray_answers_is_refused_at_once(address: str, said: str) -> None:
    need("ray")
    with pytest.raises(BoardlabError, match=said):
        RayBackend(address)


# ---------------------------------------------------------------------- on Ray
@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A Ray of two CPUs on this machine, for the tests of this module."""
    ray = need("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_a_tournament_on_ray_plays_the_games_it_plays_locally(
    ray_cluster: Any, tmp_path: Path
) -> None:
    plan = Plan("galatjang", SMALL, AGENTS, False, 2, (None,), 3)
    here = run(plan, tmp_path / "local.jsonl", backend=LocalBackend(2))
    backend = RayBackend()
    assert backend.workers() == 2 and not backend.started  # joined the test's Ray
    there = run(plan, tmp_path / "ray.jsonl", backend=backend)
    assert len(there) == 12
    assert there == here
    backend.close()
    assert ray_cluster.is_initialized()  # a Ray it joined stays up


def test_a_match_on_ray_stops_when_asked(ray_cluster: Any) -> None:
    result = play_match(
        "galatjang", "easy", "beginner", 40, SMALL, stop=lambda done: len(done) == 3,
        backend=RayBackend(),
    )  # fmt: skip
    assert len(result.games) == 3
    assert [g.record for g in result.games] == [
        play_game("galatjang", SMALL, "easy", "beginner", g.index, 0).record for g in result.games
    ]


def test_a_study_on_ray_equals_the_local_study(ray_cluster: Any, tmp_path: Path) -> None:
    games = variants("galatjang", SMALL, {"lone_seed": ["store", "stay"]})

    def study(name: str) -> Study:
        return Study("galatjang", games, "beginner", 5, 1, tmp_path / name, ("lone_seed",))

    here = study("local.jsonl").run(LocalBackend(1))
    there = study("ray.jsonl").run(RayBackend())
    assert [r.row() for r in there] == [r.row() for r in here]


def test_the_commands_take_the_ray_backend(
    ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["-o", "pits=4", "-o", "seeds=3"]
    assert main(["match", "galatjang", "easy", "beginner", "-n", "6", *options,
                 "--backend", "ray"]) == 0  # fmt: skip
    assert "6 games" in capsys.readouterr().out
    results = tmp_path / "t.jsonl"
    argv = ["tournament", "galatjang", *AGENTS, "--pairs", "1", *options, "--backend", "ray"]
    assert main([*argv, "--results", str(results)]) == 0
    assert len(results.read_text().splitlines()) == 6
    assert "first seat" in capsys.readouterr().out
    assert ray_cluster.is_initialized()


def test_an_error_in_a_game_reads_the_same_on_ray_and_locally(ray_cluster: Any) -> None:
    bad = [("chess", {}, "random", "random", 0, 0)]
    for backend in (LocalBackend(2), RayBackend()):
        with pytest.raises(BoardlabError, match="unknown game 'chess'") as raised:
            list(backend.unordered(play_game, bad))
        assert "Traceback" not in str(raised.value) and "\n" not in str(raised.value)
