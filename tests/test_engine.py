"""The engine protocol (UGI): ``boardlab engine`` answering a session, boardlab's agents
driving it as ``engine:cmd=...`` in a match, and misbehaving engines (a crash, an illegal
move, silence) whose games are scored as forfeits while the match goes on."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import boardlab
from boardlab.ai import make_agent
from boardlab.arena import play_match
from boardlab.core.errors import BoardlabError
from boardlab.core.record import GameRecord

ENGINE = f"{shlex.quote(sys.executable)} -m boardlab engine"


def session(game: str, lines: list[str], *flags: str) -> list[str]:
    command = [sys.executable, "-m", "boardlab", "engine", game, *flags]
    run = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_a_session_answers_every_command() -> None:
    out = session(
        "linja",
        [
            "ugi",
            "isready",
            "uginewgame",
            "position startpos moves 6-7",
            "query p1turn",
            "go nodes 200",
            "query gameover",
            "position fen 0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b o 0 30",
            "query gameover",
            "query result",
            "quit",
        ],
        "--agent",
        "alphabeta:depth=2",
    )
    assert out[0].startswith("id name boardlab") and "(linja)" in out[0]
    assert "option name ruleset type combo default bonus var bonus var extra-turn" in out
    assert "option name max_turns type spin default 1000 min 1 max 100000" in out
    assert out[out.index("ugiok") + 1] == "readyok"
    responses = [line for line in out if line.startswith("response")]
    # p1turn after 6-7 (Red acts), gameover during the search, then the final position
    assert responses == ["response false"] * 2 + ["response true", "response draw"]
    best = next(line for line in out if line.startswith("bestmove "))
    position = boardlab.new_game("linja").initial().play("6-7")
    assert position.parse_action(best.split()[1]) in position.legal_actions()
    info = next(line for line in out if line.startswith("info depth"))
    assert " score cp " in info and " pv " in info
    # the search is over before a new position is set (its bestmove comes first, whether
    # before or after the query answered during it); both sides home: 60 points each
    assert out.index(best) < len(out) - 2 and out[-2:] == ["response true", "response draw"]


def test_bad_commands_are_answered_and_change_nothing() -> None:
    out = session(
        "galatjang",
        [
            "position startpos moves s1",
            "position startpos moves s9",
            "position fen 1,2/3",
            "go sometime 5",
            "setoption name pits value 99",
            "setoption name agent value grandmaster",
            "frobnicate",
            "x" * 200_000,
            "query p1turn",
            "quit",
        ],
    )
    errors = [line for line in out if line.startswith("info string error: ")]
    assert len(errors) == 7 and errors[6].endswith("a line of 200000 characters, at most 100000")
    assert "'s9'" in errors[0] and "'1,2/3'" in errors[1] and "'sometime'" in errors[2]
    assert "pits" in errors[3] and "grandmaster" in errors[4] and "'frobnicate'" in errors[5]
    assert out[-1] == "response true"  # still the position after s1: South sows again


def test_go_infinite_searches_until_stop() -> None:
    out = session(
        "jinli",
        ["position startpos", "go infinite", "isready", "stop", "quit"],
        "--agent",
        "greedy",
    )
    assert out.index("readyok") < next(i for i, x in enumerate(out) if x.startswith("bestmove"))


def test_boardlab_agents_play_an_engine_in_a_match(tmp_path: Path) -> None:
    spec = f"engine:cmd={ENGINE} galatjang --agent greedy,time=0.05,timeout=30"
    result = play_match("galatjang", spec, "random", 4, jobs=1)
    assert len(result.games) == 4
    for game in result.games:
        record = GameRecord.from_text(game.record)
        assert record.is_over() and record.outcome().reason != "forfeit"


BROKEN = {
    "crash": "sys.exit(3)",
    "illegal": "say('bestmove zz9')",
    "silent": "time.sleep(30)",
}


def broken_engine(tmp_path: Path, behaviour: str) -> str:
    """A UGI engine that shakes hands, then on ``go`` does ``behaviour``."""
    script = tmp_path / f"{behaviour}.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, time
            def say(line):
                print(line, flush=True)
            for line in sys.stdin:
                word = line.split()[0] if line.split() else ""
                if word == "ugi":
                    say("id name broken-{behaviour}")
                    say("ugiok")
                elif word == "isready":
                    say("readyok")
                elif word == "go":
                    {BROKEN[behaviour]}
                elif word == "quit":
                    break
            """
        )
    )
    return f"engine:cmd={shlex.quote(sys.executable)} {script},time=0.05,timeout=0.5"


@pytest.mark.parametrize(
    ("behaviour", "why"),
    [
        ("crash", "has stopped (exit code 3)"),
        ("illegal", "answered bestmove 'zz9'"),
        ("silent", "gave no bestmove in time"),
    ],
)
def test_a_misbehaving_engine_forfeits_and_the_match_goes_on(
    tmp_path: Path, behaviour: str, why: str
) -> None:
    result = play_match("linja", broken_engine(tmp_path, behaviour), "random", 4, jobs=1)
    assert [g.a_score for g in result.games] == [0.0, 0.0, 0.0, 0.0]
    for game in result.games:
        record = GameRecord.from_text(game.record)
        assert record.outcome().reason == "forfeit"
        assert any(why in comment for comment in record.comments.values())
        again = GameRecord.from_json(record.to_json())
        assert again.outcome() == record.outcome()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("engine", "needs cmd=PROGRAM"),
        ("engine:cmd=/no/such/engine", "cannot start '/no/such/engine'"),
        (f"engine:cmd={shlex.quote(sys.executable)} -c pass,timeout=0.5", "has stopped"),
    ],
)
def test_an_engine_that_cannot_start_is_named(spec: str, message: str) -> None:
    game = boardlab.new_game("linja")
    with pytest.raises(BoardlabError, match=message):
        make_agent(spec).check(game)
