"""Puzzles from real games: ``boardlab puzzles make GAME --db URL`` reads the games the
web server stored (played through its API here), under the game's rules only, before
any self-play."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.cli import main
from boardlab.puzzles.check import check_puzzle
from boardlab.puzzles.make import make_puzzles
from boardlab.puzzles.puzzle import read_puzzles
from boardlab.web.puzzles import stored_positions
from web_support import SMALL, client, new_game, url_of

GAMES = 4


def played(http: Any, game_id: str, seed: int) -> list[str]:
    """Random legal actions through the API to the end; the actions played."""
    rng = random.Random(seed)
    state = http.get(f"/api/games/{game_id}").json()
    actions = []
    while state["outcome"] is None:
        action = rng.choice(state["legal"])["action"]
        actions.append(action)
        answer = http.post(
            f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]}
        )
        assert answer.status_code == 200, answer.text
        state = answer.json()
    return actions


@pytest.fixture(scope="module")
def server_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """A server's database with hot-seat games of small Galatjang, and one under other
    rules (no sowing into the opponent's store) that the generator must pass over."""
    db = tmp_path_factory.mktemp("server") / "boardlab.db"
    games: dict[str, list[str]] = {}
    with client(db) as http:
        for seed in range(GAMES):
            # a box the form shows ticked (the default) is sent only when ticked
            game_id = new_game(http, "galatjang", sow_opponent_store="true")
            games[game_id] = played(http, game_id, seed)
        other = new_game(http, "galatjang")  # the box unticked: other rules
        games[other] = played(http, other, 99)
    return db, games


def test_puzzles_come_from_the_stored_games_at_the_ply_they_name(
    server_db: tuple[Path, dict[str, list[str]]],
) -> None:
    db, games = server_db
    game = boardlab.new_game("galatjang", **SMALL["galatjang"])
    stored = stored_positions(game, url_of(db))
    puzzles, tally = make_puzzles(game, count=1000, stored=stored, max_games=0)
    assert tally.games == 0 and puzzles, tally  # only the stored games were read
    small = [game_id for game_id in games if game_id != list(games)[-1]]
    for puzzle in puzzles:
        words = puzzle.source.split()  # "stored game ID ply=N"
        assert words[:2] == ["stored", "game"] and words[2] in small, puzzle.source
        ply = int(words[3].removeprefix("ply="))
        position = game.initial()
        for action in games[words[2]][:ply]:
            position = position.play(action)
        assert position.position_string() == puzzle.position
        check_puzzle(puzzle)
    # every position of the small games the solver reaches was a candidate (once)
    distinct = set()
    for game_id in small:
        position = game.initial()
        for action in games[game_id]:
            distinct.add(position.position_string())
            position = position.play(action)
    assert tally.candidates + tally.unreached == len(distinct)


def test_the_command_reads_a_server_database_first(
    server_db: tuple[Path, dict[str, list[str]]], tmp_path: Path
) -> None:
    db, _games = server_db
    out = tmp_path / "puzzles.jsonl.gz"
    argv = ["puzzles", "make", "galatjang", "--count", "3", "--db", url_of(db), "--out", str(out)]
    for name, value in SMALL["galatjang"].items():
        argv += ["-o", f"{name}={value}"]
    assert main(argv) == 0
    made = read_puzzles(out)
    assert len(made) == 3 and all(p.source.startswith("stored game ") for p in made)
