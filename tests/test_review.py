"""Reviews: every action judged with values that hold together, marks by the stated
thresholds, exact values where a solver reaches, annotated records that read back, and
the ``boardlab review`` command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import boardlab
from boardlab.cli import main
from boardlab.core.record import GameRecord
from boardlab.review import THRESHOLDS, annotate, review

# Linja's scoring rule is one no host builds a table for, so the agent's values are
# compared on every machine (with the default rules' table built, the solver judges all)
SMALL = {
    "jinli": {"stones": 3, "target": 3},
    "linja": {"scoring": "positive"},
    "galatjang": {"pits": 3, "seeds": 2},
}


def random_record(game_id: str, seed: int = 0) -> GameRecord:
    record = GameRecord(boardlab.new_game(game_id, **SMALL[game_id]))
    rng = random.Random(seed)
    while not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    return record


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_every_action_is_judged_consistently(game_id: str) -> None:
    record = random_record(game_id)
    seen: list[tuple[int, int]] = []
    result = review(record, "alphabeta:depth=2", lambda done, total: seen.append((done, total)))
    assert [item.played for item in result.items] == record.action_strings()
    assert seen[-1] == (len(record), len(record))
    for item in result.items:
        position = record.positions[item.ply]
        assert item.player == position.to_act
        assert item.best in position.legal_action_strings()
        assert item.loss >= 0
        if item.exact:
            assert item.loss == item.best_value - item.played_value
            continue
        assert -1 <= item.best_value <= 1 and -1 <= item.played_value <= 1
        if item.best == item.played:
            assert item.loss == 0 and item.mark == ""
        expected = next((mark for least, mark in THRESHOLDS if item.loss >= least), "")
        assert item.mark == expected


def test_a_thrown_game_is_marked_a_blunder() -> None:
    # Random play in small Galatjang games throws results away; the exact values see it.
    game = boardlab.new_game("galatjang", pits=3, seeds=2)
    record = GameRecord(game)
    rng = random.Random(5)
    blunders = 0
    for _ in range(40):
        record = GameRecord(game)
        while not record.is_over():
            record.play(rng.choice(record.position.legal_actions()))
        result = review(record, "alphabeta:depth=4")
        blunders += sum(item.mark in ("mistake", "blunder") for item in result.items)
        for item in result.items:
            if item.exact and item.mark in ("mistake", "blunder"):
                assert (item.best_value > 0) - (item.best_value < 0) > (
                    (item.played_value > 0) - (item.played_value < 0)
                )
    assert blunders > 0  # random play throws away results, and the review sees it


def test_exact_values_come_from_the_solver_where_it_reaches() -> None:
    from boardlab.solve import exact_values

    record = random_record("galatjang", 1)
    result = review(record, "greedy")
    for item in result.items:
        values = exact_values(record.game, record.positions[item.ply].state)
        assert item.exact == (values is not None)
        if values is not None:
            assert item.best_value == max(values.values())


def test_annotated_records_read_back() -> None:
    record = random_record("jinli", 2)
    record.comments[1] = "an old comment {with braces}"
    annotated = annotate(record, review(record, "greedy"))
    back = GameRecord.read(annotated.to_text())
    assert back.action_strings() == record.action_strings()
    assert back.comments == annotated.comments
    assert back.comments[1].startswith("an old comment {with braces}")
    assert all(k + 1 in back.comments for k in range(len(record)))
    assert GameRecord.read(annotated.to_json()).comments == annotated.comments


def test_the_review_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = random_record("galatjang", 3)
    path = record.save(tmp_path / "game.txt")
    assert main(["review", str(path), "--agent", "greedy", "-o", str(tmp_path / "a.txt")]) == 0
    out = capsys.readouterr().out
    assert "south:" in out and "average loss" in out
    for action in record.action_strings():
        assert action in out
    annotated = GameRecord.load(tmp_path / "a.txt")
    assert annotated.headers["Annotator"].startswith("boardlab review")
    assert main(["review", str(path), "--agent", "greedy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [item["played"] for item in data["items"]] == record.action_strings()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["review", "/no/such/file"], "No such file"),
        (["review", "GAME", "--agent", "grandmaster"], "unknown agent"),
        (["review", "GARBAGE"], "Game tag"),
        (["review", "GARBAGE", "--game", "linja"], "zz9"),
    ],
)
def test_bad_review_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    good = random_record("linja").save(tmp_path / "game.txt")
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("1. zz9 zz8 *\n")
    argv = [str(good) if a == "GAME" else str(garbage) if a == "GARBAGE" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert words in err


@pytest.mark.parametrize("game_id", boardlab.game_ids())
@pytest.mark.parametrize("agent", ["beginner", "alphabeta:depth=1"])
def test_a_review_made_in_parts_is_the_whole_review(game_id: str, agent: str) -> None:
    from boardlab.web import thinking

    options = SMALL[game_id]
    judged = 0
    for seed in range(3):
        record = random_record(game_id, seed)
        whole = review(record, agent).to_dict()
        judged += sum(not item["exact"] for item in whole["items"])
        actions = record.action_strings()
        for size in (1, 5, thinking.REVIEW_PART):
            parts = [
                thinking.review_part(game_id, options, None, actions, agent, first, last)
                for first, last in thinking.review_parts(len(actions), size)
            ]
            assert thinking.reviewed(game_id, options, agent, parts) == whole
    # the agent's values were compared, not only the solver's (which reach every position
    # of small Galatjang games)
    assert judged > 0 or game_id == "galatjang"


def test_a_review_by_the_hard_agent_made_in_parts_is_the_whole_review() -> None:
    from boardlab.web import thinking

    record = random_record("jinli", 4)
    actions = record.action_strings()[:10]
    whole = thinking.review("jinli", SMALL["jinli"], None, actions, "hard")
    parts = [
        thinking.review_part("jinli", SMALL["jinli"], None, actions, "hard", first, last)
        for first, last in thinking.review_parts(len(actions), 4)
    ]
    assert len(parts) == 3 and [len(part) for part in parts] == [4, 4, 2]
    assert thinking.reviewed("jinli", SMALL["jinli"], "hard", parts) == whole
