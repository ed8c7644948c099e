"""benchmarks/learning_curve.py on a tiny run of examples/alphazero.py (with PyTorch): a
point for the untrained network and each kept iteration, the minutes from the training's
log, the table and the plot written, a second run resumed without playing; a run without
kept weights measured at its end; weights of other options refused."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from optional import need

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "learning_curve.py"
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four seeded iterations on 3-pit Galatjang, every second one kept; the log's minutes
    (which round to 0 in so short a run) replaced by 1.5 an iteration, to be seen read."""
    need("torch")
    weights = tmp_path_factory.mktemp("trained") / "g.npz"
    command = [
        sys.executable, str(ROOT / "examples" / "alphazero.py"), "--game", "galatjang",
        "-o", "pits=3", "--games", "4", "--sims", "6", "--iterations", "4", "--keep", "2",
        "--threads", "1", "--out", str(weights),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr
    log = weights.with_suffix(".log")
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["iteration"] for e in entries] == [1, 2, 3, 4]
    log.write_text(
        "".join(json.dumps({**e, "minutes": 1.5 * e["iteration"]}) + "\n" for e in entries)
    )
    return weights


def curve(
    weights: Path, out: Path, *more: str
) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    command = [
        sys.executable, str(SCRIPT), "--game", "galatjang", *more, "--weights", str(weights),
        "--opponent", "random", "--pairs", "2", "--iterations", "8", "--jobs", "1",
        "--out", str(out),
    ]  # fmt: skip
    return command, subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600)


def test_the_curve_measures_each_kept_iteration_and_resumes(trained: Path, tmp_path: Path) -> None:
    need("matplotlib")
    out = tmp_path / "learning.json"
    command, first = curve(trained, out, "-o", "pits=3")
    assert first.returncode == 0, first.stderr
    saved = json.loads(out.read_text())
    points = saved["points"]
    assert [(p["iteration"], p["minutes"]) for p in points] == [(0, 0.0), (2, 3.0), (4, 6.0)]
    assert [p["weights"] for p in points[1:]] == [
        str(trained.with_name("g-0002.npz")),
        str(trained.with_name("g-0004.npz")),
    ]  # the final weights are iteration 4's, measured once
    assert saved["notes"] == [] and saved["game"] == "galatjang (pits=3)"
    for point in points:
        wins, draws, losses = point["wdl"]
        assert point["games"] == wins + draws + losses == 4
        assert point["score"] == (wins + draws / 2) / 4
        low, high = point["score_ci"]
        assert low <= point["score"] <= high and high - low > 0.3  # 4 games say little
        assert point["elo"] is None or (point["elo"] > 0) == (point["score"] > 0.5)
    results = sorted(out.with_suffix("").glob("*.jsonl"))
    assert [len(path.read_text().splitlines()) for path in results] == [4, 4, 4]
    markdown = out.with_suffix(".md").read_text()
    assert f"Command: `python benchmarks/learning_curve.py {shlex.join(command[2:])}`" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and "`" in line]
    assert [row.split(" | ")[:2] for row in rows] == [["| 0", "0"], ["| 2", "3"], ["| 4", "6"]]
    assert out.with_suffix(".png").read_bytes().startswith(b"\x89PNG")

    files = {path: path.read_bytes() for path in out.with_suffix("").iterdir()}
    _command, again = curve(trained, out, "-o", "pits=3")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("4 games resumed from") == 3
    assert again.stdout.count(", 0 played") == 3
    assert {path: path.read_bytes() for path in out.with_suffix("").iterdir()} == files
    assert json.loads(out.read_text())["points"] == points


def test_a_run_without_kept_weights_is_measured_at_its_end(trained: Path, tmp_path: Path) -> None:
    """The weights and log alone (as a run before ``--keep`` left them): the untrained
    point and the final weights, with a note; without the options the weights were
    trained with, a one-line refusal naming them."""
    need("matplotlib")
    weights = tmp_path / "alone.npz"
    shutil.copy(trained, weights)
    shutil.copy(trained.with_suffix(".log"), weights.with_suffix(".log"))
    out = tmp_path / "learning.json"
    _command, refused = curve(weights, out)
    assert refused.returncode == 1 and "-o pits=3" in refused.stderr
    assert "Traceback" not in refused.stderr and not out.exists()
    _command, done = curve(weights, out, "-o", "pits=3")
    assert done.returncode == 0, done.stderr
    saved = json.loads(out.read_text())
    assert [(p["iteration"], p["minutes"]) for p in saved["points"]] == [(0, 0.0), (4, 6.0)]
    assert saved["points"][1]["label"] == "alone.npz (final)"
    assert saved["notes"] and "no kept weights" in saved["notes"][0]
    assert (
        "no kept weights" in done.stdout
        and "Note: no kept weights" in out.with_suffix(".md").read_text()
    )
