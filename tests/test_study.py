"""Variant studies: the measures of a game, the variants a study compares (idle options
kept once), the cache that extends a study, the exact values beside the estimates, the
tables and the report, and the command."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest
from tests.support import exact_points

import boardlab
from boardlab.arena.backends import LocalBackend
from boardlab.arena.study import (
    Study,
    decisiveness,
    default_vary,
    facts_of,
    lead_changes,
    read_vary,
    study_game,
    summarise,
    variants,
)
from boardlab.arena.study_report import write_report, write_tables
from boardlab.cli import main
from boardlab.core.errors import BoardlabError, OptionError
from boardlab.core.record import GameRecord
from optional import need


# ---------------------------------------------------------------------- the measures
@pytest.mark.parametrize(
    ("leads", "changes"),
    [
        ([0, 0, 0], 0),
        ([0, 1, 1, 0, 1], 0),  # a tie does not end a lead
        ([0, 1, -1, 1], 2),
        ([0, 1, 0, -1, 0, -1, 1], 2),
        ([-1, -1, 1, 1, 1, -1], 2),
    ],
)
def test_lead_changes_count_changes_of_the_side_ahead(leads: list[int], changes: int) -> None:
    assert lead_changes(leads) == changes


@pytest.mark.parametrize(
    ("leads", "winner", "share"),
    [
        ([0, 1, 1, 1, 1], 1, 0.75),  # ahead after the first of 4 actions, for good
        ([0, 1, -1, 1, 1], 1, 0.25),  # for good only after the third
        ([0, 0, 0, 0, -1], -1, 0.0),  # the last action decided it
        ([0, -1, 1, -1, -1, -1, -1], -1, 3 / 6),  # for good after 3 of 6
    ],
)
def test_decisiveness_is_the_share_left_when_the_lead_became_final(
    leads: list[int], winner: int, share: float
) -> None:
    assert decisiveness(leads, winner) == pytest.approx(share)


def test_the_facts_of_a_game_follow_its_positions() -> None:
    """A random game replayed by hand: the facts agree with the engine's positions."""
    rng = random.Random(5)
    game = boardlab.new_game("galatjang", pits=4, seeds=3)
    record = GameRecord(game)
    while not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    facts = facts_of(record, 7)
    outcome = record.outcome()
    assert outcome is not None
    first = game.to_act(game.initial_state())
    assert facts.index == 7
    assert facts.actions == len(record.actions)
    assert facts.score == outcome.score(first)
    assert facts.margin == outcome.points[first] - outcome.points[1 - first]
    counts = [len(p.legal_actions()) for p in record.positions[:-1]]
    assert facts.branching == pytest.approx(sum(counts) / len(counts))
    assert (facts.decisiveness is None) == (facts.score == 0.5)


def test_a_study_game_replays_the_match_game_of_the_same_seed() -> None:
    facts = study_game("linja", {}, "easy", 3, 11)
    again = study_game("linja", {}, "easy", 3, 11)
    assert facts == again
    assert facts.index == 3 and facts.actions > 10


# ---------------------------------------------------------------------- the variants
def _labels(games: list[Any]) -> list[dict[str, Any]]:
    return [g.effective_options() for g in games]


def test_the_default_variants_keep_each_way_of_playing_once() -> None:
    linja = variants("linja", {}, default_vary("linja", {}))
    # 2 x 2 x 2 x 2 bonus-rule combinations by scoring, and the extra-turn rule by scoring
    assert len(linja) == 16 + 2
    assert linja[0].non_default_options() == {}  # the default comes first
    assert len({json.dumps(o, sort_keys=True) for o in _labels(linja)}) == 18
    galatjang = variants("galatjang", {"pits": 4}, default_vary("galatjang", {"pits": 4}))
    assert len(galatjang) == 8 and all(g.options["pits"] == 4 for g in galatjang)
    assert "first" not in default_vary("jinli", {})


def test_options_idle_in_one_round_are_not_studied_twice() -> None:
    one = variants("galatjang", {}, {"refill": ["store_end", "far_end"]})
    two = variants("galatjang", {"rounds": 2}, {"refill": ["store_end", "far_end"]})
    assert len(one) == 1 and len(two) == 2


@pytest.mark.parametrize(
    ("game_id", "base", "idle"),
    [
        ("linja", {"ruleset": "extra-turn"}, {"bonus_after_opening": True, "nasty": True}),
        ("linja", {"ruleset": "extra-turn"}, {"goal_step_back": True}),
        ("galatjang", {"pits": 4, "seeds": 3}, {"refill": "far_end", "round_starter": "loser"}),
    ],
)
def test_options_called_idle_change_no_game(
    game_id: str, base: dict[str, Any], idle: dict[str, Any]
) -> None:
    """What ``effective_options`` calls idle really is: the same random games, action by
    action, with and without it."""
    plain = boardlab.new_game(game_id, **base)
    other = boardlab.new_game(game_id, **base, **idle)
    assert plain.effective_options() == other.effective_options()
    for seed in range(30):
        rng = random.Random(seed)
        a, b = plain.initial_state(), other.initial_state()
        while plain.outcome_of(a) is None:
            legal = plain.legal_actions(a)
            assert other.legal_actions(b) == legal
            action = rng.choice(legal)
            a, b = plain.apply(a, action), other.apply(b, action)
            assert plain.format_state(a) == other.format_state(b)
        assert other.outcome_of(b) == plain.outcome_of(a)


def test_named_values_are_read_and_checked() -> None:
    assert read_vary("galatjang", ["pits=3..5", "lone_seed", "seeds=2,4,2"]) == {
        "pits": [3, 4, 5],
        "lone_seed": ["store", "stay"],
        "seeds": [2, 4],
    }
    assert read_vary("linja", ["nasty"]) == {"nasty": [False, True]}
    for text, said in [
        ("colour", "unknown option 'colour'"),
        ("pits", "pits is a number"),
        ("pits=5..3", "LOW <= HIGH"),
        ("pits=3,x", "bad value 'x'"),
        ("pits=", "no values"),
        ("pits=0..3", "bad value '0'"),
    ]:
        with pytest.raises(OptionError, match=said) as caught:
            read_vary("galatjang", [text])
        assert repr(text) in str(caught.value)
    with pytest.raises(OptionError, match="both fixed"):
        variants("galatjang", {"pits": 4}, {"pits": [3, 5]})


# ---------------------------------------------------------------------- the study
def _study(tmp_path: Path, count: int, games: list[Any] | None = None) -> Study:
    games = games or variants(
        "galatjang", {"pits": 3, "seeds": 2}, {"lone_seed": ["store", "stay"]}
    )
    return Study("galatjang", games, "beginner", count, 4, tmp_path / "games.jsonl", ("lone_seed",))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_more_games_extend_a_study_and_play_only_the_missing(tmp_path: Path) -> None:
    first = _study(tmp_path, 3).run(LocalBackend(1))
    assert [row.games for row in first] == [3, 3]
    assert len(_lines(tmp_path / "games.jsonl")) == 6
    more = _study(tmp_path, 5)
    more.load()
    assert len(more.missing()) == 4  # games 3 and 4 of both variants
    rows = more.run(LocalBackend(2))
    lines = _lines(tmp_path / "games.jsonl")
    assert len(lines) == 10
    assert [row.games for row in rows] == [5, 5]
    # the first three games are the same games, read back
    again = _study(tmp_path, 3)
    again.load()
    assert [r.row() for r in again.summaries()] == [r.row() for r in first]


def test_a_study_plays_the_same_games_on_one_process_or_many(tmp_path: Path) -> None:
    one = _study(tmp_path / "one", 4).run(LocalBackend(1))
    two = _study(tmp_path / "two", 4).run(LocalBackend(2))
    assert [r.row() for r in one] == [r.row() for r in two]


def test_a_line_cut_short_is_played_again_and_a_foreign_file_refused(tmp_path: Path) -> None:
    _study(tmp_path, 2).run(LocalBackend(1))
    path = tmp_path / "games.jsonl"
    text = path.read_text()
    path.write_text(text[: len(text) - 20])  # a stop in the middle of the last line
    rows = _study(tmp_path, 2).run(LocalBackend(1))
    assert [row.games for row in rows] == [2, 2]
    assert len(_lines(path)) == 4
    path.write_text('{"tournament": "x"}\n' + path.read_text())
    with pytest.raises(BoardlabError, match="line 1: not a study game"):
        _study(tmp_path, 2).run(LocalBackend(1))
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(BoardlabError, match="not a study file"):
        _study(tmp_path, 2).run(LocalBackend(1))


def test_a_study_refuses_a_bad_agent_before_playing(tmp_path: Path) -> None:
    games = variants("galatjang", {}, {})
    with pytest.raises(BoardlabError, match="unknown agent 'zz'"):
        Study("galatjang", games, "zz", 2, 0, tmp_path / "g.jsonl", ())
    assert not (tmp_path / "g.jsonl").exists()


# ---------------------------------------------------------------------- exact values
def test_the_exact_value_beside_a_small_variant_is_the_minimax_value(tmp_path: Path) -> None:
    need("numba")
    games = variants("galatjang", {"pits": 3, "seeds": 2}, {"sow_opponent_store": [True, False]})
    for game in games:
        summary = summarise(game, "x", [])
        assert summary.exact == exact_points(game, game.initial_state(), {})


def test_the_linja_values_are_known_without_their_tables(tmp_path: Path, monkeypatch: Any) -> None:
    """Every solvable Linja variant has its published start value (the one its whole
    table gave, benchmarks/results/solve_linja.json), the others none."""
    need("numba")
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))  # no table built here
    from boardlab.games.linja import solution
    from boardlab.solve import start_value

    built = json.loads(
        (Path(__file__).parent.parent / "benchmarks/results/solve_linja.json").read_text()
    )
    assert dict(solution.START_VALUES) == {name: row["value"] for name, row in built.items()}
    games = variants("linja", {}, default_vary("linja", {}))
    known = {solution.variant_name(g): start_value(g) for g in games if start_value(g) is not None}
    assert known == dict(solution.START_VALUES)
    loops = boardlab.new_game("linja", bonus_after_opening=True, goal_step_back=True)
    assert start_value(loops) is None


# ---------------------------------------------------------------------- the files
def test_the_tables_and_the_report(tmp_path: Path) -> None:
    need("matplotlib")
    study = _study(tmp_path, 4)
    rows = study.run(LocalBackend(1))
    settings = {"game": "galatjang", "agent": "beginner", "command": "boardlab study <x>"}
    csv_path, json_path = write_tables(rows, settings, tmp_path)
    table = list(csv.DictReader(csv_path.read_text().splitlines()))
    assert [r["variant"] for r in table] == ["default", "lone_seed=stay"]
    assert [int(r["games"]) for r in table] == [4, 4]
    data = json.loads(json_path.read_text())
    assert data["settings"]["agent"] == "beginner"
    assert data["variants"][1]["first_score"] == pytest.approx(rows[1].first_score, abs=1e-4)
    page = write_report(study.games[0], rows, settings, tmp_path).read_text()
    assert page.count("<svg") == 3
    assert "boardlab study &lt;x&gt;" in page  # escaped
    for outside in ("<script", "<link", "src=", "https://", "<?xml"):
        assert outside not in page  # one file that opens without a network


def test_the_command_studies_variants_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need("matplotlib")
    need("numba")
    out = tmp_path / "s"
    argv = ["study", "galatjang", "-o", "pits=3", "-o", "seeds=2", "--vary", "lone_seed"]
    argv += ["-n", "4", "--agent", "easy", "--out", str(out), "-j", "1"]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "2 variants, 4 games each by easy" in said
    game = boardlab.new_game("galatjang", pits=3, seeds=2)
    value = exact_points(game, game.initial_state(), {})
    assert f"{value:+d}" in said.splitlines()[2]
    for name in ("games.jsonl", "study.csv", "study.json", "report.html"):
        assert (out / name).exists()
    assert main(argv) == 0  # again: everything from the cache
    assert len((out / "games.jsonl").read_text().splitlines()) == 8
