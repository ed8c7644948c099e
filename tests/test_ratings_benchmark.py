"""benchmarks/ratings.py on a small list: the round robin on disk and resumed, the
Bradley-Terry list and the level table written into the file's markers; the timing of
every level that promises a time; a level past its promise marked as such."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "ratings.py"


def script() -> Any:
    spec = importlib.util.spec_from_file_location("ratings_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--games", "galatjang", "--jobs", "1", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    ratings = script()
    path = tmp_path / "ai.md"
    path.write_text(f"# AI\n\nbefore\n{ratings.BEGIN}\nold table\n{ratings.END}\nafter\n")
    return path


def between_markers(path: Path) -> list[str]:
    ratings = script()
    text = path.read_text()
    return text.split(ratings.BEGIN + "\n")[1].split(ratings.END)[0].splitlines()


def test_the_list_is_played_resumed_and_copied_into_the_docs(tmp_path: Path, docs: Path) -> None:
    out = tmp_path / "results"
    agents = "beginner,easy,random"
    first = run("--agents", agents, "--pairs", "2", "--ratings-only", "--results", str(out),
                "--docs", str(docs))  # fmt: skip
    assert first.returncode == 0, first.stderr
    games = (out / "ratings-galatjang.jsonl").read_text().splitlines()
    assert len(games) == 3 * 2 * 2  # three meetings, two pairs each, seats swapped
    saved = json.loads((out / "ratings.json").read_text())
    rows = saved["ratings"]["galatjang"]["rows"]
    assert sorted(row["name"] for row in rows) == ["beginner", "easy", "random"]
    assert sum(sum(row["wdl"]) for row in rows) == 2 * len(games)  # each game counted twice
    assert saved["ratings"]["galatjang"]["anchor"] is None  # no OpenSpiel: centred
    assert abs(sum(row["elo"] for row in rows)) < 1.5  # rounded to a tenth each
    table = between_markers(docs)
    names = [line.split(" | ")[1] for line in table[2:]]
    assert names == ["`beginner`", "`easy`", "`random`"]  # the levels, then the others
    text = docs.read_text()
    assert text.startswith("# AI\n\nbefore\n") and text.endswith("after\n")  # the rest kept
    again = run("--agents", agents, "--pairs", "2", "--ratings-only", "--results", str(out),
                "--docs", str(docs))  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert (out / "ratings-galatjang.jsonl").read_text().splitlines() == games  # resumed
    assert json.loads((out / "ratings.json").read_text())["ratings"]["galatjang"]["rows"] == rows


def test_every_level_that_promises_a_time_is_timed(tmp_path: Path, docs: Path) -> None:
    out = tmp_path / "results"
    done = run("--agents", "easy", "--times-only", "--positions", "2", "--load", "1",
               "--results", str(out), "--docs", str(docs))  # fmt: skip
    assert done.returncode == 0, done.stderr
    times = json.loads((out / "ratings.json").read_text())["times"]["galatjang"]
    assert [row["name"] for row in times["rows"]] == ["medium", "hard", "expert", "master"]
    assert [row["promise"] for row in times["rows"]] == [0.5, 1.0, 2.0, 2.0]
    for row in times["rows"]:
        assert 0 <= row["busy_before"] <= (os.cpu_count() or 1)
        assert 0 < row["idle_median"] <= row["idle_max"]
        assert 0 < row["loaded_median"] <= row["loaded_max"]
    assert len(between_markers(docs)) == 2 + 4


def test_a_level_past_its_promise_is_marked() -> None:
    ratings = script()
    row = {"spec": "mcts:time=2", "promise": 2.0, "idle_median": 0.7, "busy_before": 0.0}
    saved = {
        "times": {
            "jinli": {
                "rows": [
                    {**row, "name": "expert", "loaded_max": 1.99},
                    {**row, "name": "master", "loaded_max": 2.01},
                ]
            }
        }
    }
    table = ratings.level_table(saved)
    assert table[2].endswith("| 2 | yes |") and "`expert`" in table[2]
    assert table[3].endswith("| 2 | **no** |") and "`master`" in table[3]
    assert ratings.level_table({}) == ["Not measured yet: run `python benchmarks/ratings.py`."]
