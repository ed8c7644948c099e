"""Galatjang from the start (``boardlab.games.galatjang.solution``) and its certificates.

Every expected value comes from ``exact_points``: a plain minimax over the engine's own
actions that knows nothing of configurations, tables or alpha-beta. Boards are small
(a few pits and seeds) so the file runs in seconds; the tables built here are tiny.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from boardlab.games.galatjang.certificate import Certificate, check
from boardlab.games.galatjang.endgames import GalatjangEndgame
from boardlab.games.galatjang.solution import StartSolver, certify, solve_start
from support import exact_points_after

SMALL = [
    {"pits": 3, "seeds": 2},
    {"pits": 3, "seeds": 3},
    {"pits": 4, "seeds": 2},
    {"pits": 2, "seeds": 5},
    {"pits": 3, "seeds": 2, "sow_opponent_store": False},
    {"pits": 3, "seeds": 3, "skip_origin": True},
    {"pits": 3, "seeds": 2, "first": "north"},
]


def _exact(game: Any) -> dict[int, int]:
    state, memo = game.initial_state(), {}
    return {a: exact_points_after(game, state, a, memo) for a in game.legal_actions(state)}


def _table(game: Any, tmp_path: Path, seeds: int) -> GalatjangEndgame:
    path = GalatjangEndgame.build(game, seeds, tmp_path / f"t-{seeds}.table")
    return GalatjangEndgame.load(game, path)


def _value(endgame: GalatjangEndgame) -> Any:
    return endgame.table


@pytest.mark.parametrize("options", SMALL, ids=lambda o: " ".join(f"{k}={v}" for k, v in o.items()))
def test_every_first_sowing_has_the_minimax_value(options: dict[str, Any], tmp_path: Path) -> None:
    game = boardlab.new_game("galatjang", **options)
    expected = _exact(game)
    searched = StartSolver(game, GalatjangEndgame(game), table_bits=16)
    assert searched.action_values(game.initial_state()) == expected
    above = StartSolver(game, _table(game, tmp_path, 4), table_bits=16)  # stops at 4 seeds
    assert above.action_values(game.initial_state()) == expected


def test_positions_inside_a_game_have_the_minimax_value(tmp_path: Path) -> None:
    game = boardlab.new_game("galatjang", pits=3, seeds=3)
    solver = StartSolver(game, _table(game, tmp_path, 5), table_bits=16)
    state, memo = game.initial_state(), {}
    while game.outcome_of(state) is None:
        values = solver.action_values(state)
        assert values == {a: exact_points_after(game, state, a, memo) for a in values}
        state = game.apply(state, min(values, key=lambda a: values[a]))  # not the best


def test_rules_the_start_solver_cannot_answer_are_refused() -> None:
    stay = boardlab.new_game("galatjang", pits=3, seeds=2, lone_seed="stay")
    with pytest.raises(BoardlabError, match="lone_seed=store"):
        StartSolver(stay, GalatjangEndgame(stay), table_bits=10)
    rounds = boardlab.new_game("galatjang", pits=3, seeds=2, rounds=2)
    solver = StartSolver(rounds, GalatjangEndgame(rounds), table_bits=10)
    with pytest.raises(BoardlabError, match="last round"):
        solver.action_values(rounds.initial_state())
    assert solver.values_within(rounds.initial_state(), 1000) is None
    capped = boardlab.new_game("galatjang", pits=3, seeds=2, max_turns=5)
    solver = StartSolver(capped, GalatjangEndgame(capped), table_bits=10)
    with pytest.raises(BoardlabError, match="turn cap"):
        solver.action_values(capped.initial_state())


def test_a_search_over_its_budget_gives_no_values(tmp_path: Path) -> None:
    game = boardlab.new_game("galatjang", pits=4, seeds=3)  # about 1,900 positions
    solver = StartSolver(game, GalatjangEndgame(game), table_bits=16)
    assert solver.values_within(game.initial_state(), 50) is None
    assert solver.values_within(game.initial_state(), 10**8) == _exact(game)


# ---------------------------------------------------------------------- the book
def test_the_opening_book_is_the_search_and_agrees_with_itself(tmp_path: Path) -> None:
    """A book built on a small board holds the minimax values; the book shipped for the
    default rules is consistent: every action's value is the value of the position it
    leads to (from that side), wherever that position is in the book too."""
    from boardlab.games.galatjang.solution import BOOK, build_book, read_book

    game = boardlab.new_game("galatjang", pits=3, seeds=3)
    small = build_book(StartSolver(game, GalatjangEndgame(game), table_bits=16), 2)
    path = tmp_path / "book.json"
    path.write_text(json.dumps(small))
    book = read_book(game, path)
    assert len(book) > 5
    memo: dict[Any, int] = {}
    for key, values in book.items():
        state = game.parse_state(key)
        assert values == {a: exact_points_after(game, state, a, memo) for a in values}
    assert read_book(boardlab.new_game("galatjang", pits=3, seeds=2), path) == {}
    default = boardlab.new_game("galatjang")
    shipped = read_book(default)
    assert shipped, f"no opening book at {BOOK}"
    start = default.initial_state()
    assert max(shipped[default.format_state(start)].values()) == -16
    checked = 0
    for key, values in shipped.items():
        state = default.parse_state(key)
        for action, value in values.items():
            child = default.apply(state, action)
            later = shipped.get(default.format_state(child))
            if later is not None:
                same = default.to_act(child) == default.to_act(state)
                assert value == (max(later.values()) if same else -max(later.values()))
                checked += 1
    assert checked > 30


# ---------------------------------------------------------------------- certificates
@pytest.fixture
def proved(tmp_path: Path) -> tuple[Any, GalatjangEndgame, Certificate]:
    game = boardlab.new_game("galatjang", pits=4, seeds=3)
    endgame = _table(game, tmp_path, 8)
    solver = StartSolver(game, endgame, table_bits=18)
    start = game.initial_state()
    value = max(solver.action_values(start).values())
    assert value == max(_exact(game).values())
    return game, endgame, certify(solver, start, value)


def test_a_certificate_is_checked_through_the_engine(proved: Any, tmp_path: Path) -> None:
    _, endgame, certificate = proved
    path = certificate.save(tmp_path / "c.json")
    again = Certificate.read(path)
    assert again == certificate
    checked = check(again, _value(endgame))
    assert checked.choices_used == len(certificate.choices) > 10
    assert checked.table_leaves > 0 and checked.claims > checked.choices_used


def test_an_altered_certificate_is_refused(proved: Any) -> None:
    game, endgame, certificate = proved
    values = _value(endgame)
    for wrong in (certificate.value + 1, certificate.value - 1):
        altered = Certificate(**{**certificate.__dict__, "value": wrong})
        with pytest.raises(BoardlabError, match=r"claim refuted|no legal choice"):
            check(altered, values)
    start = game.initial_state()
    key = next(k for k in certificate.choices if k[:-1] == tuple(start.ring[:4] + start.ring[5:9]))
    for action in {0, 1, 2, 3} - {certificate.choices[key]}:
        choices = {**certificate.choices, key: action}
        # another first sowing: either its claim fails below, or it was as good
        try:
            check(Certificate(**{**certificate.__dict__, "choices": choices}), values)
        except BoardlabError as error:
            assert "claim refuted" in str(error) or "no legal choice" in str(error)
        else:
            assert max(_exact(game).values()) == _exact(game)[action]
    removed = dict(certificate.choices)
    del removed[max(removed)]
    with pytest.raises(BoardlabError, match="no legal choice"):
        check(Certificate(**{**certificate.__dict__, "choices": removed}), values)
    with pytest.raises(BoardlabError, match="the table is needed"):
        check(certificate)


def test_a_wrong_first_choice_is_refuted(proved: Any) -> None:
    """At least one first sowing is worse than the best; choosing it fails the check."""
    game, endgame, certificate = proved
    exact = _exact(game)
    worse = [a for a, v in exact.items() if v < max(exact.values())]
    assert worse
    start = game.initial_state()
    key = next(k for k in certificate.choices if k[:-1] == tuple(start.ring[:4] + start.ring[5:9]))
    choices = {**certificate.choices, key: worse[0]}
    with pytest.raises(BoardlabError, match=r"claim refuted|no legal choice"):
        check(Certificate(**{**certificate.__dict__, "choices": choices}), _value(endgame))


def test_a_file_that_is_not_a_certificate_is_refused(tmp_path: Path) -> None:
    head = '{"kind": "boardlab-galatjang-certificate", "format": 1'
    wrong = ', "value": 1, "table_seeds": -1, "choices": []'
    named = [
        head + ', "options": {"pits": 99}, "position": "x"' + wrong + "}",
        head + ', "options": {"pits": 3}, "position": "1,2/3 s"' + wrong + "}",
    ]
    for text in named:
        path = tmp_path / "named.json"
        path.write_text(text)
        with pytest.raises(BoardlabError, match="names no valid game or position"):
            Certificate.read(path)
    for text in ("", "{}", head + "}", "\xff"):
        path = tmp_path / "bad.json"
        path.write_text(text, encoding="latin-1")
        with pytest.raises(BoardlabError, match=r"not a Galatjang certificate|cannot read"):
            Certificate.read(path)


# ---------------------------------------------------------------------- checkpoints
def test_a_stopped_run_resumes_from_its_progress(tmp_path: Path) -> None:
    game = boardlab.new_game("galatjang", pits=4, seeds=3)
    endgame = _table(game, tmp_path, 6)
    said: list[str] = []
    _, first = solve_start(game, endgame, tmp_path / "run", table_bits=16, snapshot_seconds=0,
                           report=said.append)  # fmt: skip
    assert first.values == _exact(game)
    assert (tmp_path / "run" / "table.npz").exists()
    progress = json.loads((tmp_path / "run" / "progress.json").read_text())
    for name in ("values", "nodes", "seconds"):
        del progress[name]["2"]  # as if the run had stopped before the third sowing
    (tmp_path / "run" / "progress.json").write_text(json.dumps(progress))
    said.clear()
    _, second = solve_start(game, endgame, tmp_path / "run", table_bits=16, report=said.append)
    assert second.values == first.values
    assert said[0].startswith("resumed") and "3 first actions known" in said[0]
    assert len(said) == 2  # the one sowing solved again
    other = boardlab.new_game("galatjang", pits=4, seeds=3, sow_opponent_store=False)
    with pytest.raises(BoardlabError, match="other rules"):
        solve_start(other, GalatjangEndgame(other), tmp_path / "run", table_bits=16)


# ---------------------------------------------------------------------- the command
def test_the_command_solves_the_start_and_checks_the_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t.table"
    options = ["-o", "pits=4", "-o", "seeds=3", "--max-seeds", "6", "--out", str(table)]
    assert main(["solve", "galatjang", *options, "--start"]) == 0
    said = capsys.readouterr().out
    value = max(_exact(boardlab.new_game("galatjang", pits=4, seeds=3)).values())
    assert f"start value {value:+d}" in said
    certificate = next(
        line.split(": ", 1)[1] for line in said.splitlines() if line.startswith("certificate:")
    )
    assert main(["solve", "galatjang", "--check", certificate, "--out", str(table)]) == 0
    assert "certificate checked" in capsys.readouterr().out
    data = json.loads(Path(certificate).read_text())
    data["value"] += 2
    Path(certificate).write_text(json.dumps(data))
    assert main(["solve", "galatjang", "--check", certificate, "--out", str(table)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("claim refuted" in err[0] or "no legal choice" in err[0]), err
