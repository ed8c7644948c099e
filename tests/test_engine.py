"""The engine protocol (UGI): ``boardlab engine`` answering a session, boardlab's agents
driving it as ``engine:cmd=...`` in a match, and misbehaving engines (a crash, an illegal
move, silence) whose games are scored as forfeits while the match goes on."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boardlab
from boardlab.ai import make_agent
from boardlab.arena import play_match
from boardlab.arena.ugi import COMMANDS, Engine
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Position
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


# ---------------------------------------------------------------------- never stuck
class Session:
    """An engine session in this process, each command given a time to be answered in
    (a command that hangs fails the test instead of hanging it)."""

    def __init__(self, game: str, agent: str) -> None:
        self.lines: list[str] = []
        self.engine = Engine(boardlab.new_game(game), agent, self.lines.append)

    def send(self, line: str, within: float = 2.0) -> bool:
        answer: list[bool] = []
        reader = threading.Thread(target=lambda: answer.append(self.engine.handle(line)))
        reader.daemon = True
        reader.start()
        reader.join(within)
        assert answer, f"{line!r} not answered within {within} s; so far {self.lines[-5:]}"
        return answer[0]

    def bestmoves(self) -> list[str]:
        return [line.split()[1] for line in self.lines if line.startswith("bestmove ")]


@pytest.mark.parametrize("go", ["go movetime 600000", "go nodes 1000000000", "go infinite"])
def test_stop_ends_any_search_at_once(go: str) -> None:
    session = Session("jinli", "alphabeta")
    session.send("position startpos")
    session.send(go)
    time.sleep(0.3)
    assert session.bestmoves() == []
    session.send("stop", within=1.0)
    assert len(session.bestmoves()) == 1
    session.engine.game.initial().parse_action(session.bestmoves()[0])
    assert session.send("quit") is False and len(session.bestmoves()) == 1


def test_a_new_position_or_go_stops_the_search_first() -> None:
    session = Session("linja", "alphabeta")
    session.send("go infinite")
    session.send("position startpos moves 6-7")  # stops the search: its bestmove first
    assert len(session.bestmoves()) == 1
    session.engine.game.initial().parse_action(session.bestmoves()[0])
    session.send("go infinite")
    session.send("go movetime 600000")
    session.send("uginewgame")
    session.send("go infinite")
    session.send("setoption name agent value random")
    session.send("go infinite")
    session.send("position fen 1,2/3")  # refused: the search goes on
    assert session.engine.state == "searching" and len(session.bestmoves()) == 4
    assert session.send("quit", within=1.5) is False and len(session.bestmoves()) == 5
    after = session.engine.game.initial().play("6-7")
    for word in session.bestmoves()[1:3]:
        after.parse_action(word)
    assert sum("error" in line for line in session.lines) == 1


def test_quit_mid_search_ends_the_process_promptly() -> None:
    lines = ["position startpos", "go movetime 600000", "quit"]
    command = [sys.executable, "-m", "boardlab", "engine", "jinli", "--agent", "alphabeta"]
    run = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30
    )
    assert run.returncode == 0, run.stderr
    assert [line for line in run.stdout.splitlines() if line.startswith("bestmove")]


COMMAND_WORDS = {*COMMANDS, "quit"}


@st.composite
def moves_from(draw: st.DrawFn, start: Position[Any], most: int = 6) -> list[str]:
    """A few legal action strings played from ``start``."""
    moves, position = [], start
    for _ in range(draw(st.integers(0, most))):
        if position.is_over():
            break
        action = draw(st.sampled_from(position.legal_actions()))
        moves.append(position.action_string(action))
        position = position.play(action)
    return moves


def played(start: Position[Any], moves: list[str]) -> Position[Any]:
    for move in moves:
        start = start.play(move)
    return start


def garbage() -> st.SearchStrategy[str]:
    """A line that is no command (an unknown word, or nothing at all)."""
    line = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=30)
    return line.filter(lambda text: not text.split() or text.split()[0] not in COMMAND_WORDS)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(game_id=st.sampled_from(["jinli", "linja", "galatjang"]), data=st.data())
def test_any_order_of_commands_is_answered_and_never_hangs(
    game_id: str, data: st.DataObject
) -> None:
    game = boardlab.new_game(game_id)
    session = Session(game_id, "alphabeta:depth=1")
    position, searched = game.initial(), []  # the position each accepted go was given
    kinds = ["ugi", "isready", "setoption", "uginewgame", "startpos", "fen", "stop", "query"]
    kinds += ["go"] * 4 + ["garbage"]  # a search running is where the trouble was
    for _ in range(data.draw(st.integers(1, 10), label="commands")):
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind in ("startpos", "fen"):
            moves = data.draw(moves_from(game.initial()), label="moves")
            start = played(game.initial(), moves)
            if kind == "startpos":
                line = " ".join(["position startpos moves", *moves])
                position = start
            else:
                more = data.draw(moves_from(start, 2), label="more")
                line = f"position fen {start.position_string()} moves {' '.join(more)}"
                position = played(start, more)
        elif kind == "setoption":
            agent = data.draw(st.sampled_from(["random", "alphabeta:depth=1", "greedy"]))
            line = f"setoption name agent value {agent}"
        elif kind == "go":
            line = data.draw(
                st.sampled_from(["go movetime 50", "go nodes 200", "go depth 1", "go infinite"])
            )
            if not position.is_over():
                searched.append(position)
        elif kind == "query":
            line = "query " + data.draw(st.sampled_from(["gameover", "p1turn", "result", "x"]))
        elif kind == "garbage":
            line = data.draw(garbage(), label="garbage")
        else:
            line = kind
        if kind == "uginewgame":
            position = game.initial()
        ready = session.lines.count("readyok")
        assert session.send(line) is True
        if kind == "isready":
            assert session.lines.count("readyok") == ready + 1
    session.send("stop")
    assert session.send("quit", within=5.0) is False
    bestmoves = session.bestmoves()
    assert len(bestmoves) == len(searched), session.lines
    for word, given_position in zip(bestmoves, searched, strict=True):
        given_position.parse_action(word)  # legal there, or it raises
