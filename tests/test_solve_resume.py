"""A table build stopped part way and started again (``boardlab.solve.resume``): it goes
on from what it kept and writes the table a build in one go writes, byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import boardlab
from boardlab.games.linja import solution
from boardlab.solve import resume
from boardlab.solve.tables import read_header

LOWEST = 154  # the top levels alone: seconds


def sha256(values: np.ndarray) -> str:
    digest = hashlib.sha256()
    for start in range(0, values.size, 1 << 26):
        digest.update(values[start : start + (1 << 26)].data)
    return digest.hexdigest()


class Stop(Exception):
    """The build is stopped (as a killed process would be) after some levels."""


def test_a_stopped_linja_build_resumes_to_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resume, "EVERY", 0.0)  # keep every level (a copy takes seconds)
    game = boardlab.new_game("linja")
    whole = solution.solve_values(solution.params(game), LOWEST)
    work = tmp_path / "work"
    total = solution.TOP_LEVEL - LOWEST + 1
    stop_after = 3

    def stopping(done: int, of: int) -> None:
        assert of == total
        if done == stop_after:
            raise Stop

    with pytest.raises(Stop):
        solution.build(game, tmp_path / "linja.table", stopping, LOWEST, work)
    assert not (tmp_path / "linja.table").exists()
    assert (work / "state.json").exists()

    monkeypatch.setattr(resume, "EVERY", 3600.0)  # no more copies: the test's time
    seen: list[int] = []
    built = solution.build(
        game, tmp_path / "linja.table", lambda done, of: seen.append(done), LOWEST, work
    )
    assert seen[0] == stop_after  # it went on from the levels kept, not from the top
    assert seen[-1] == total and len(seen) == total - stop_after + 1
    assert read_header(built)["sha256"] == sha256(whole)  # the values, byte for byte
    assert not work.exists()  # the copy is gone once the table is written


def test_a_copy_is_resumed_only_for_its_own_table(tmp_path: Path) -> None:
    values = np.zeros(1 << 20, dtype=np.int8)
    values[12345] = -7
    values[1 << 19 :] = 3
    kept = resume.Checkpoint(tmp_path, {"rules": "default"}, every=3600.0)
    assert not kept.keep(values, 4)  # not yet an hour since it began
    assert kept.keep(values, 4, force=True)
    again = np.zeros_like(values)
    assert resume.Checkpoint(tmp_path, {"rules": "nasty"}).restore(again) == 0
    assert not again.any()
    assert resume.Checkpoint(tmp_path, {"rules": "default"}).restore(np.zeros(10, np.int8)) == 0
    assert resume.Checkpoint(tmp_path, {"rules": "default"}).restore(again) == 4
    assert np.array_equal(again, values)
    kept.clear()
    assert not tmp_path.exists()


def test_a_stopped_endgame_table_build_resumes_to_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.games.galatjang import endgames

    monkeypatch.setattr(resume, "EVERY", 0.0)
    game, seeds = boardlab.new_game("galatjang"), 9
    pits = int(endgames.table_rules(game)["pits"])
    whole = endgames.GalatjangEndgame.build(game, seeds, tmp_path / "whole.table")
    work = tmp_path / "work"
    stop_at = endgames.table_entries(pits, 5)  # 0 to 5 seeds filled, 0 to 4 kept

    def stopping(done: int, of: int) -> None:
        if done == stop_at:
            raise Stop

    with pytest.raises(Stop):
        endgames.GalatjangEndgame.build(game, seeds, tmp_path / "resumed.table", stopping, work)
    seen: list[int] = []
    resumed = endgames.GalatjangEndgame.build(
        game, seeds, tmp_path / "resumed.table", lambda done, of: seen.append(done), work
    )
    assert seen[0] == stop_at  # 5 seeds filled again, not from 0
    assert read_header(resumed)["sha256"] == read_header(whole)["sha256"]
    assert not work.exists()
