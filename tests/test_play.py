"""End-to-end tests of ``boardlab play``, the terminal game.

The program runs as a user runs it: ``python -m boardlab play ...`` in a subprocess with
piped input (no terminal), or with pexpect in a real pseudo-terminal. What it prints is
checked against the library: the same actions replayed, the same agents with the same
seeds, the boards drawn by ``boardlab.ui.views`` and the results the rules give.
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import pytest
from rich.console import Console

import boardlab
from boardlab.ai import make_agent
from boardlab.core.game import Outcome, Position
from boardlab.core.record import GameRecord
from boardlab.ui.narrate import explain
from boardlab.ui.views import view

SRC = Path(__file__).resolve().parent.parent / "src"
TRACEBACK = "Traceback (most recent call last)"
TRY_MOVES = "Type `moves` for the legal actions or `help`."
GAME_OVER = "The game is over: save [FILE] keeps the record, undo takes back, quit leaves."
#: A prompt line: the prompt and, piped input being echoed, what was typed.
PROMPT = re.compile(r"^((?:Red|Yellow|Black|South|North), [a-z0-9 ()-]+> |> )(.*)$", re.M)
SAVED = re.compile(
    r"the unfinished game is saved in (\S+) \(continue with: boardlab play (\w+) --load (\S+)\)\."
)
#: The first prompt of a game with default options.
FIRST_PROMPT = {
    "jinli": "Red, swim or jump> ",
    "linja": "Black, opening move> ",
    "galatjang": "South, sow a pit> ",
}


# ---------------------------------------------------------------------- helpers
def environment(**changes: str) -> dict[str, str]:
    """The environment of the program: no colour forced either way unless asked, 80
    columns, and the source tree importable."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "LINES"}
    }
    env["COLUMNS"] = "80"
    env["NO_COLOR"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    env["BOARDLAB_GAMES"] = "."  # games saved with no name go to the folder of the test
    env.update(changes)
    return {key: value for key, value in env.items() if value != ""}


def boardlab_run(
    args: Sequence[str], lines: Sequence[str] | str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``boardlab ARGS`` with ``lines`` typed on its standard input (a pipe)."""
    text = lines if isinstance(lines, str) else "".join(f"{line}\n" for line in lines)
    return subprocess.run(
        [sys.executable, "-m", "boardlab", *args],
        input=text,
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        cwd=cwd,
        env=env or environment(),
        timeout=120,
        check=False,
    )


def play(
    args: Sequence[str], lines: Sequence[str] | str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return boardlab_run(["play", *args], lines, cwd, env)


def assert_clean(done: subprocess.CompletedProcess[str], status: int = 0) -> None:
    """No traceback anywhere, nothing on standard error, the exit status expected."""
    assert TRACEBACK not in done.stdout, done.stdout[-3000:]
    assert TRACEBACK not in done.stderr, done.stderr[-3000:]
    assert done.stderr == ""
    assert done.returncode == status, done.stdout[-3000:]


@dataclass
class Exchange:
    """One prompt: the prompt, the line typed (echoed), and the lines printed after it."""

    prompt: str
    typed: str
    answer: list[str]


def exchanges(out: str) -> list[Exchange]:
    found = list(PROMPT.finditer(out))
    result = []
    for k, match in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(out)
        answer = [line.rstrip() for line in out[match.end() : end].split("\n")[1:]]
        if answer and answer[-1] == "":
            answer.pop()
        result.append(Exchange(match.group(1), match.group(2), answer))
    return result


def result_line(outcome: Outcome) -> str:
    points = ", ".join(
        f"{name.capitalize()} {score}"
        for name, score in zip(outcome.players, outcome.points, strict=True)
    )
    who = "Draw" if outcome.winner is None else f"{outcome.winner_name.capitalize()} wins"
    game = next(
        g for g in map(boardlab.game_class, boardlab.game_ids()) if g.players == outcome.players
    )
    return f"{who}: {game.reason_words(outcome.reason)} ({points})."


def render(position: Position[Any], last: Sequence[tuple[Position[Any], int]] = ()) -> str:
    console = Console(width=80, no_color=True, highlight=False, record=True, file=io.StringIO())
    console.print(view(position, last))
    return console.export_text()


def board_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").split("\n")]


def shows_board(out: str, record: GameRecord) -> bool:
    """The board of the record's position, last turn marked, is printed in ``out``."""
    drawn = "\n".join(board_lines(render(record.position, record.last_turn())))
    return drawn in "\n".join(line.rstrip() for line in out.split("\n"))


def simulate(
    game_id: str,
    seats: Sequence[str],
    seed: int,
    options: dict[str, Any] | None = None,
    record: GameRecord | None = None,
    person_actions: int | None = None,
) -> tuple[GameRecord, list[str]]:
    """The game the program plays when every person types ``1`` (the first legal action)
    and the agents are the ones it makes from the seats and the seed: the record and the
    lines typed. Stops after ``person_actions`` typed actions if given."""
    if record is None:
        record = GameRecord(boardlab.new_game(game_id, options or {}))
    agents = [
        None if spec == "human" else make_agent(spec, seed + i) for i, spec in enumerate(seats)
    ]
    typed: list[str] = []
    while not record.is_over():
        position = record.position
        agent = agents[position.to_act]
        if agent is None:
            if person_actions is not None and len(typed) == person_actions:
                break
            first = position.legal_actions()[0]
            # a bare number is a pit in Galatjang, the number in `moves` elsewhere
            typed.append(position.action_string(first) if game_id == "galatjang" else "1")
            record.play(first)
        else:
            record.play(agent.choose(position).action)
    return record, typed


def seat_args(game_id: str, seats: Sequence[str]) -> list[str]:
    players = boardlab.game_class(game_id).players
    return [arg for name, spec in zip(players, seats, strict=True) for arg in (f"--{name}", spec)]


def colour_codes(text: str) -> list[str]:
    """The ANSI SGR sequences of ``text`` that set a foreground or background colour."""
    found = []
    for match in re.finditer(r"\x1b\[([0-9;]*)m", text):
        params = [int(p) for p in match.group(1).split(";") if p]
        if any(30 <= p <= 38 or 40 <= p <= 48 or 90 <= p <= 97 or 100 <= p <= 107 for p in params):
            found.append(match.group())
    return found


def random_turns(
    game_id: str, seed: int, options: dict[str, Any] | None = None, opening: str = ""
) -> GameRecord:
    """A uniformly random complete game (after the ``opening`` actions), as a record."""
    rng = random.Random(seed)
    record = GameRecord(boardlab.new_game(game_id, options or {}))
    record.play_all(opening.split())
    while not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    return record


# ====================================================================== 1. piped games
PERSON_AGAINST_AGENT = [
    ("jinli", ("human", "easy")),
    ("linja", ("easy", "human")),
    ("galatjang", ("human", "mcts:iterations=20")),
]


@pytest.mark.parametrize(("game_id", "seats"), PERSON_AGAINST_AGENT)
def test_a_person_plays_a_complete_game_against_an_agent(
    game_id: str, seats: tuple[str, str], tmp_path: Path
) -> None:
    record, typed = simulate(game_id, seats, seed=7)
    lines = [*typed, "save end.txt", "save end.json", "quit"]
    done = play([game_id, "--seed", "7", *seat_args(game_id, seats)], lines, tmp_path)
    assert_clean(done)
    outcome = record.outcome()
    assert outcome is not None
    out_lines = done.stdout.splitlines()
    assert out_lines.count(result_line(outcome)) == 1
    assert out_lines[out_lines.index(result_line(outcome)) + 1] == GAME_OVER
    # The board before the result is the final position, the last turn marked.
    before_result = done.stdout.split(result_line(outcome))[0]
    final_board = "\n".join(board_lines(render(record.position, record.last_turn())))
    assert "\n".join(line.rstrip() for line in before_result.rstrip().split("\n")).endswith(
        final_board
    )
    for name in ("end.txt", "end.json"):
        saved = GameRecord.load(tmp_path / name)
        assert saved.action_strings() == record.action_strings()
        assert saved.position == record.position
        assert saved.outcome() == outcome
    players = boardlab.game_class(game_id).players
    assert out_lines[0].endswith(
        ", ".join(
            f"{name.capitalize()}: {'you' if spec == 'human' else spec}"
            for name, spec in zip(players, seats, strict=True)
        )
        + ". Type help for help."
    )


HOT_SEAT = [
    ("jinli", {}, "a1-b2 @d4", 11),
    ("jinli", {"recycle": True, "stones": 2}, "", 3),
    ("linja", {}, "", 5),
    ("galatjang", {}, "", 2),
]


@pytest.mark.parametrize(("game_id", "options", "opening", "seed"), HOT_SEAT)
def test_two_people_play_a_complete_game_in_hot_seat(
    game_id: str, options: dict[str, Any], opening: str, seed: int, tmp_path: Path
) -> None:
    record = random_turns(game_id, seed, options, opening)
    turns = [" ".join(turn.actions) for turn in record.turns()]
    if opening:
        assert turns[0] == opening  # a whole Jin Li turn typed on one line
    if options.get("recycle"):
        assert any(action.startswith("x") for action in record.action_strings())
    assert any(" " in turn for turn in turns)
    option_args = [f"--option={k}={str(v).lower()}" for k, v in options.items()]
    players = boardlab.game_class(game_id).players
    seats = [arg for name in players for arg in (f"--{name}", "human")]
    done = play([game_id, *seats, *option_args], [*turns, "save end.txt", "quit"], tmp_path)
    assert_clean(done)
    outcome = record.outcome()
    assert outcome is not None
    assert result_line(outcome) in done.stdout.splitlines()
    assert TRY_MOVES not in done.stdout
    talk = exchanges(done.stdout)
    assert [t.typed for t in talk[: len(turns)]] == turns
    # Each line played exactly one turn: the next prompt is the other player's.
    for k in range(len(turns) - 1):
        assert talk[k].prompt.split(",")[0] != talk[k + 1].prompt.split(",")[0]
    saved = GameRecord.load(tmp_path / "end.txt")
    assert saved.action_strings() == record.action_strings()
    assert saved.position == record.position
    assert shows_board(done.stdout, record)
    if opening:
        assert talk[0].answer[:2] == ["Red swims a1-b2.", "Red drops a stone on d4 (9 left)."]
        assert talk[1].prompt == "Yellow, swim or jump> "


WATCHED = [
    ("jinli", ("easy", "random"), 3),
    ("linja", ("easy", "random"), 4),
    ("galatjang", ("random", "easy"), 5),
]


@pytest.mark.parametrize(("game_id", "seats", "seed"), WATCHED)
def test_two_agents_play_each_other(
    game_id: str, seats: tuple[str, str], seed: int, tmp_path: Path
) -> None:
    record, _ = simulate(game_id, seats, seed)
    args = [game_id, *seat_args(game_id, seats), "--delay", "0", "--seed", str(seed)]
    done = play(args, "", tmp_path)
    assert_clean(done)
    outcome = record.outcome()
    assert outcome is not None
    out_lines = done.stdout.splitlines()
    assert out_lines[-1] == result_line(outcome)
    assert not PROMPT.search(done.stdout)
    played = re.findall(
        r"^(\w+) \((easy|random)\) plays (.*?)(?:  \(\d+\.\d s\))?$", done.stdout, re.M
    )
    players = record.game.players
    expected = [
        (players[turn.player].capitalize(), seats[turn.player], " ".join(turn.actions))
        for turn in record.turns()
    ]
    assert played == expected
    assert shows_board(done.stdout, record)


# ====================================================================== 2. commands
def test_help_and_rules(tmp_path: Path) -> None:
    done = play(
        ["jinli", "--yellow", "easy", "-o", "stones=6"], ["help", "?", "HELP", "rules"], tmp_path
    )
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert [t.typed for t in talk[:4]] == ["help", "?", "HELP", "rules"]
    help_text = talk[0].answer
    assert help_text == talk[1].answer == talk[2].answer
    assert help_text[1] == "`moves`. Commands:"
    commands = [line.split()[0] for line in help_text[2:]]
    assert commands == ["moves", "hint", "undo", "save", "board", "rules", "resign", "quit", "help"]
    rules = talk[3].answer
    assert rules[0].startswith("Board: a 7x7 pond, squares a1-g7")
    assert rules[-1] == "Options of this game: stones=6"
    assert "Actions: a1-b2 (swim), a1-c3 (jump), @d4 (drop), xe5 (give), pass." in rules
    assert all(t.prompt == "Red, swim or jump> " for t in talk)

    done = play(["galatjang", "--north", "easy"], ["help", "rules"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[0].answer[-1] == "A bare number is a pit of yours: 3 is s3 for South."
    assert talk[1].answer[-1] == "Options of this game: all defaults"


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_moves_numbers_the_legal_actions(game_id: str, tmp_path: Path) -> None:
    seats = ("human", "human")
    record = GameRecord(boardlab.new_game(game_id))
    record.play(record.position.legal_actions()[-1])
    last = record.positions[0].action_string(record.actions[0])
    done = play([game_id, *seat_args(game_id, seats)], ["moves", last, "moves"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    for exchange, position in ((talk[0], record.positions[0]), (talk[2], record.position)):
        strings = position.legal_action_strings()
        numbered = (
            "  ".join(strings)
            if game_id == "galatjang"
            else "  ".join(f"{n}. {s}" for n, s in enumerate(strings, start=1))
        )
        assert exchange.answer == [f"Legal: {numbered}"]
    assert (
        talk[0]
        .answer[0]
        .startswith(
            {
                "jinli": "Legal: 1. a1-b1  2. a1-a2  3. a1-b2  4. g1-f1  5. g1-f2  6. g1-g2",
                "linja": "Legal: 1. 0-1  2. 1-2  3. 2-3  4. 3-4  5. 4-5  6. 5-6  7. 6-7",
                "galatjang": "Legal: s1  s2  s3  s4  s5  s6",
            }[game_id]
        )
    )


@pytest.mark.parametrize("game_id", ["jinli", "galatjang"])
def test_hint_suggests_a_legal_action_and_plays_nothing(game_id: str, tmp_path: Path) -> None:
    seats = ("human", "easy")
    args = [game_id, *seat_args(game_id, seats), "--seed", "1", "--hint", "mcts:iterations=50"]
    done = play(args, ["hint", "moves"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    position = boardlab.new_game(game_id).initial()
    player = position.player.capitalize()
    match = re.fullmatch(
        rf"Hint: (\S+) \(evaluation [+-]\d\.\d\d for {player}, about (\d+)% expected; "
        r"line: ([^)]*)\)",
        talk[0].answer[0],
    )
    assert match, talk[0].answer
    assert match.group(1) in position.legal_action_strings()
    assert 0 <= int(match.group(2)) <= 100
    line = match.group(3).split()
    assert line[0] == match.group(1)
    position.play_all(line)  # the expected line is legal
    assert len(talk[0].answer) == 1
    assert talk[1].prompt == talk[0].prompt == FIRST_PROMPT[game_id]
    assert talk[1].answer[0].startswith("Legal: s1" if game_id == "galatjang" else "Legal: 1. ")


def test_undo_takes_back_the_persons_turn_and_the_reply(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, _ = simulate("jinli", seats, seed=1, person_actions=4)
    assert len(record) == 8  # two turns of Red, two replies of Yellow
    lines = ["undo", "1", "undo", "1", "1", "1", "1", "undo", "moves", "board", "save u.txt"]
    done = play(["jinli", "--yellow", "easy", "--seed", "1"], [*lines, "quit"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[0].answer == ["Nothing to undo."]
    assert talk[2].answer[0] == "Took back 1 action."
    assert talk[2].answer[1:] == ["", *board_lines(render(record.positions[0]))]
    assert talk[3].prompt == "Red, swim or jump> "
    took = talk[7]
    assert took.typed == "undo"
    assert took.answer[0] == "Took back 4 actions."
    back = GameRecord(record.game)
    back.play_all(record.actions[:4])
    assert took.answer[1:] == ["", *board_lines(render(back.position, back.last_turn()))]
    numbered = "  ".join(f"{n}. {s}" for n, s in enumerate(back.position.legal_action_strings(), 1))
    assert talk[8].answer == [f"Legal: {numbered}"]
    assert talk[9].answer == took.answer[1:]
    saved = GameRecord.load(tmp_path / "u.txt")
    assert saved.action_strings() == back.action_strings()


def test_undo_after_the_end_reopens_the_game(tmp_path: Path) -> None:
    seats = ("human", "easy")
    options = {"pits": 3, "seeds": 2}
    record, typed = simulate("galatjang", seats, seed=2, options=options)
    outcome = record.outcome()
    assert outcome is not None
    start = max(
        k
        for k in range(len(record))
        if record.positions[k].to_act == 0
        and (k == 0 or record.positions[k - 1].to_act != record.positions[k].to_act)
    )
    args = ["galatjang", "--north", "easy", "--seed", "2", "-o", "pits=3", "-o", "seeds=2"]
    done = play(args, [*typed, "undo", "save back.txt", "quit"], tmp_path)
    assert_clean(done)
    out_lines = done.stdout.splitlines()
    assert result_line(outcome) in out_lines
    taken = len(record) - start
    assert f"Took back {taken} action{'s' * (taken != 1)}." in out_lines
    assert exchanges(done.stdout)[-1].prompt == "South, sow a pit> "
    saved = GameRecord.load(tmp_path / "back.txt")
    assert saved.action_strings() == record.action_strings()[:start]


def test_save_writes_text_and_json_records(tmp_path: Path) -> None:
    seats = ("easy", "human")
    record, typed = simulate("linja", seats, seed=3, person_actions=4)
    lines = [*typed, "save game.txt", "save sub/dir/game.json", "save", "quit"]
    done = play(["linja", "--black", "easy", "--seed", "3"], lines, tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[-4].answer == ["Saved to game.txt"]
    assert talk[-3].answer == [f"Saved to {Path('sub/dir/game.json')}"]
    default = re.fullmatch(r"Saved to (boardlab-linja-\d{8}-\d{6}(-\d+)?\.txt)", talk[-2].answer[0])
    assert default, talk[-2].answer
    for name in ("game.txt", "sub/dir/game.json", default.group(1)):
        saved = GameRecord.load(tmp_path / name)
        assert saved.action_strings() == record.action_strings()
        assert saved.position == record.position
        assert saved.outcome() is None
        assert saved.headers["Black"] == "easy"
        assert saved.headers["Red"] == "human"
    text = (tmp_path / "game.txt").read_text()
    assert text.startswith('[Game "linja"]\n[Black "easy"]\n[Red "human"]\n')
    assert '[Result "*"]' in text
    assert '"format": "boardlab-record"' in (tmp_path / "sub/dir/game.json").read_text()


def test_board_draws_the_position_again(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate("galatjang", seats, seed=4, person_actions=2)
    done = play(["galatjang", "--north", "easy", "--seed", "4"], [*typed, "board"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[-2].typed == "board"
    assert talk[-2].answer == ["", *board_lines(render(record.position, record.last_turn()))]


def test_resign_ends_the_game_for_the_other_player(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate("jinli", seats, seed=1, person_actions=2)
    lines = [*typed, "resign", "save r.txt", "save r.json", "board", "resign", "quit"]
    args = ["jinli", "--yellow", "easy", "--seed", "1", "--save", "auto.txt"]
    done = play(args, lines, tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    resign = talk[len(typed)]
    red, yellow = record.position.points
    assert resign.answer == [
        "Red resigns.",
        f"Yellow wins: resignation (Red {red}, Yellow {yellow}).",
        GAME_OVER,
    ]
    assert [t.prompt for t in talk[len(typed) + 1 :]] == ["> "] * 5
    assert talk[-2].answer == ["The game is over: save [FILE], undo, board or quit."]
    for name in ("r.txt", "r.json", "auto.txt"):
        saved = GameRecord.load(tmp_path / name)
        assert saved.action_strings() == record.action_strings()
        outcome = saved.outcome()
        assert outcome is not None
        assert (outcome.winner_name, outcome.reason) == ("yellow", "resign")
    text = (tmp_path / "r.txt").read_text()
    assert '[Reason "resign"]' in text
    assert '[Result "yellow"]' in text
    replay = boardlab_run(["replay", "jinli", "r.txt"], "", tmp_path)
    assert replay.returncode == 0
    assert replay.stdout.splitlines()[1] == f"winner=yellow points={red}/{yellow} reason=resign"


def test_resign_in_hot_seat_names_the_other_player(tmp_path: Path) -> None:
    done = play(["linja", "--black", "human", "--red", "human"], ["1 1", "resign"], tmp_path)
    assert_clean(done)
    position = boardlab.new_game("linja").initial().play("0-1").play("0-2")
    black, red = position.points
    assert exchanges(done.stdout)[1].answer[:2] == [
        "Red resigns.",
        f"Black wins: resignation (Black {black}, Red {red}).",
    ]


def test_quit_saves_an_unfinished_game_to_a_file_it_names(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate("galatjang", seats, seed=5, person_actions=3)
    done = play(["galatjang", "--north", "easy", "--seed", "5"], [*typed, "quit"], tmp_path)
    assert_clean(done)
    last = done.stdout.splitlines()[-1]
    assert last.startswith("You left: the unfinished game is saved in boardlab-galatjang-")
    match = SAVED.search(last)
    assert match
    assert match.group(1) == match.group(3)
    assert match.group(2) == "galatjang"
    saved = GameRecord.load(tmp_path / match.group(1))
    assert saved.action_strings() == record.action_strings()
    # The command it suggests continues the game.
    again = play(["galatjang", "--load", match.group(1), "--north", "easy"], ["exit"], tmp_path)
    assert_clean(again)
    assert shows_board(again.stdout, saved)


def test_quit_before_any_move_saves_nothing(tmp_path: Path) -> None:
    done = play(["jinli", "--yellow", "easy"], ["quit"], tmp_path)
    assert_clean(done)
    assert done.stdout.splitlines()[-1] == "You left."
    assert list(tmp_path.iterdir()) == []


# ====================================================================== 3. bad input
def junk_lines(rng: random.Random, count: int) -> list[str]:
    """Random junk that can be neither an action nor a command of any game."""
    chars = "!#$%&()*+/:;<=>[]^_`{|}~\"'hjkmqrtuvwyzHJKMQRTUVWYZ漢字éß☃€ \t"
    lines = []
    while len(lines) < count:
        line = "".join(rng.choice(chars) for _ in range(rng.randint(1, 40)))
        if line.strip():
            lines.append(line)
    return lines


#: Bad lines by game: typed before the person's action number k (0-based), each with the
#: explanation expected (a regular expression), None for a line that gets no answer.
BAD: dict[str, dict[int, list[tuple[str, str | None]]]] = {
    "jinli": {
        0: [
            ("a1b2", r"invalid jinli action 'a1b2': expected a swim or jump like a1-b2 .*"),
            ("a1-c3", r"illegal action 'a1-c3' in jinli position '[^']+': legal actions are .*"),
            ("a1-d4", r"illegal jinli action 'a1-d4': a koi swims one square or jumps two .*"),
            ("g7-f6", r"illegal action 'g7-f6' in jinli position .*"),
            ("@d4", r"illegal action '@d4' in jinli position .*"),
            ("xd4", r"illegal action 'xd4' in jinli position .*"),
            ("7", r"no action number 7: the actions are 1-6"),
            ("0", r"no action number 0: the actions are 1-6"),
            ("123456789012345678901234567890", r"no action number \d+: the actions are 1-6"),
            ("", None),
            ("   ", None),
            ("foo bar baz", r"invalid jinli action 'foo': .*"),
            ("[bold]red[/bold]", r"invalid jinli action '\[bold\]red\[/bold\]': .*"),
            ("a1-b2 @d4 g7-f6", r"'g7-f6': it is not your turn then"),
            ("x" * 20000, r"invalid action 'x{80}…': too long \(20000 characters\).*"),
            ("a1-b2 " * 3000, r"illegal action 'a1-b2' in jinli position '[^']+ r d .*"),
            ("save taken/x.txt", r"Could not save: .*"),
        ],
        1: [
            ("a1-b2", r"illegal action 'a1-b2' in jinli position .*"),
            ("@b1", r"illegal action '@b1' in jinli position .*"),
            ("48", r"no action number 48: the actions are 1-45"),
            ("pass", r"illegal action 'pass' in jinli position .*"),
        ],
    },
    "linja": {
        0: [
            ("0-2", r"illegal action '0-2' in linja position .*: legal actions are 0-1 .*"),
            ("7-6", r"illegal action '7-6' in linja position .*"),
            ("o4-5", r"illegal action 'o4-5' in linja position .*"),
            ("pass", r"illegal action 'pass' in linja position .*"),
            ("8-9", r"invalid linja action '8-9': expected a move FROM-TO .*"),
            ("0_1", r"invalid linja action '0_1': .*"),
            ("8", r"no action number 8: the actions are 1-7"),
            ("\t", None),
            ("0-1 0-2 1-2", r"'1-2': it is not your turn then"),
        ],
        1: [
            ("0-1", r"illegal action '0-1' in linja position '[^']+ b f2 0 0': legal .*"),
            ("9", r"no action number 9: the actions are 1-\d"),
        ],
    },
    "galatjang": {
        0: [
            ("n3", r"illegal galatjang action 'n3': south is to act and sows a pit s1-s6 .*"),
            ("s7", r"illegal galatjang action 's7': the pits are s1-s6 .*"),
            ("7", r"illegal galatjang action '7': the pits are s1-s6 .*"),
            ("s", r"invalid galatjang action 's': expected a pit like s3 or n5, .*"),
            ("s1.5", r"invalid galatjang action 's1.5': .*"),
            ("-1", r"invalid galatjang action '-1': .*"),
            ("", None),
        ],
        1: [
            ("s1", r"illegal action 's1' in galatjang position '[^']+': legal actions are s2 .*"),
            ("n1", r"illegal galatjang action 'n1': south is to act .*"),
        ],
    },
}


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_bad_input_gets_one_line_and_the_game_goes_on(game_id: str, tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate(game_id, seats, seed=6)
    (tmp_path / "taken").write_text("a file, not a folder\n")
    rng = random.Random(game_id)
    bad = {k: list(v) for k, v in BAD[game_id].items()}
    bad[2] = [(line, rf"invalid {game_id} action .*") for line in junk_lines(rng, 25)]
    lines: list[str] = []
    expected: dict[int, str | None] = {}
    for k, good in enumerate(typed):
        for line, explanation in bad.get(k, []):
            expected[len(lines)] = explanation
            lines.append(line)
        lines.append(good)
    done = play(
        [game_id, *seat_args(game_id, seats), "--seed", "6"], [*lines, "save end.txt"], tmp_path
    )
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert len(talk) == len(lines) + 2  # and one more prompt when the input closes
    for index, explanation in expected.items():
        exchange = talk[index]
        assert exchange.typed.split() == lines[index].split()  # the echo expands tabs
        if explanation is None:
            assert exchange.answer == []
        elif explanation.startswith("Could not save"):
            assert len(exchange.answer) == 1
            assert re.fullmatch(explanation, exchange.answer[0])
        else:
            assert len(exchange.answer) == 2, exchange.answer
            assert re.fullmatch(explanation, exchange.answer[0]), exchange.answer[0][:300]
            assert exchange.answer[1] == TRY_MOVES
        assert talk[index + 1].prompt == exchange.prompt
    outcome = record.outcome()
    assert outcome is not None
    assert result_line(outcome) in done.stdout.splitlines()
    saved = GameRecord.load(tmp_path / "end.txt")
    assert saved.action_strings() == record.action_strings()
    assert not (tmp_path / "taken" / "x.txt").exists()


CRASHES = [
    pytest.param(
        "jinli",
        "²",
        id="unicode-digit",
    ),
    pytest.param(
        "jinli",
        "1" * 5000,
        id="5000-digits",
    ),
    pytest.param(
        "galatjang",
        "s²",
        id="galatjang-unicode-digit",
    ),
    pytest.param(
        "jinli",
        "save a\x00b.txt",
        id="save-nul-byte",
    ),
    pytest.param(
        "galatjang",
        "9" * 5000,
        id="galatjang-5000-digits",
    ),
]


@pytest.mark.parametrize(("game_id", "line"), CRASHES)
def test_lines_that_must_not_crash(game_id: str, line: str, tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate(game_id, seats, seed=8, person_actions=2)
    lines = [typed[0], line, *typed[1:], "quit"]
    done = play([game_id, *seat_args(game_id, seats), "--seed", "8"], lines, tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[1].answer and len(talk[1].answer) <= 2
    assert talk[2].prompt == talk[1].prompt
    match = SAVED.search(done.stdout)
    assert match
    assert GameRecord.load(tmp_path / match.group(1)).action_strings() == record.action_strings()


def test_galatjang_a_number_for_an_empty_pit_is_refused(tmp_path: Path) -> None:
    # s3 sows 2 seeds into s4 and South's store: South sows again with s3 empty.
    args = ["galatjang", "--north", "easy", "-o", "pits=4", "-o", "seeds=2"]
    done = play(args, ["s3", "3", "quit"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[1].typed == "3"
    assert not talk[1].answer[0].startswith("South sows")
    assert talk[2].prompt == "South, sow a pit> "


def test_an_unwritable_save_file_does_not_end_the_game(tmp_path: Path) -> None:
    """As ``TerminalGame.keep`` says: a save that fails is said once and the game goes
    on without the file; leaving then saves the unfinished game as ``quit`` does without
    ``--save`` (in the games folder, here the test's)."""
    (tmp_path / "taken").write_text("a file, not a folder\n")
    args = ["jinli", "--yellow", "easy", "--save", "taken/x.txt"]
    done = play(args, ["1", "1", "1", "1", "quit"], tmp_path)
    assert_clean(done)
    said = "Could not save to taken/x.txt: a part of the path is a file, not a folder"
    assert done.stdout.count(said) == 1
    assert "the game goes on without it." in done.stdout
    assert done.stdout.count("Red swims") == 2
    assert (tmp_path / "taken").read_text() == "a file, not a folder\n"
    (kept,) = tmp_path.glob("boardlab-jinli-*.txt")
    assert f"the unfinished game is saved in {kept.name}" in done.stdout
    # four turns (the greedy player breaks ties at random: its turn may be a jump, no drop)
    assert GameRecord.read(kept.read_text()).turns_completed() == 4


# ====================================================================== 4. save and load
@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_a_saved_game_loads_at_the_same_position(game_id: str, tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate(game_id, seats, seed=9, person_actions=3)
    args = seat_args(game_id, seats)
    done = play([game_id, *args, "--seed", "9"], [*typed, "save mid.txt", "quit"], tmp_path)
    assert_clean(done)
    prompt = exchanges(done.stdout)[-1].prompt
    loaded = play([game_id, "--load", "mid.txt", *args, "--seed", "9"], ["board", "quit"], tmp_path)
    assert_clean(loaded)
    talk = exchanges(loaded.stdout)
    drawn = board_lines(render(record.position, record.last_turn()))
    first_board = loaded.stdout.split(talk[0].prompt)[0]
    assert board_lines(first_board)[-len(drawn) :] == drawn
    assert talk[0].prompt == prompt
    assert talk[0].answer == ["", *drawn]
    replay = boardlab_run(["replay", game_id, "mid.txt"], "", tmp_path)
    assert replay.returncode == 0
    points = record.position.points
    assert replay.stdout.splitlines() == [
        record.position.position_string(),
        f"winner=none points={points[0]}/{points[1]} reason=none",
    ]


def test_a_loaded_game_plays_on_to_its_end(tmp_path: Path) -> None:
    seats = ("human", "easy")
    start, _ = simulate("linja", seats, seed=10, person_actions=3)
    start.save(tmp_path / "mid.json")
    # The program makes its agents afresh, seeded, when it loads the game.
    record, more = simulate("linja", seats, seed=10, record=GameRecord.load(tmp_path / "mid.json"))
    args = ["linja", "--load", "mid.json", "--red", "easy", "--seed", "10"]
    done = play(args, [*more, "save end.txt"], tmp_path)
    assert_clean(done)
    outcome = record.outcome()
    assert outcome is not None
    assert result_line(outcome) in done.stdout.splitlines()
    assert GameRecord.load(tmp_path / "end.txt").action_strings() == record.action_strings()


def test_save_option_keeps_the_file_up_to_date_after_every_move(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, _ = simulate("jinli", seats, seed=11, person_actions=6)
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "boardlab",
            "play",
            "jinli",
            "--yellow",
            "easy",
            "--seed",
            "11",
            "--save",
            "auto.txt",
        ],
        cwd=str(tmp_path),
        encoding="utf-8",
        env=environment(),
        timeout=30,
    )
    autosave = tmp_path / "auto.txt"
    mine = [k for k in range(len(record)) if record.positions[k].to_act == 0]
    assert len(mine) == 6
    for count in mine:
        child.expect(r"Red, (swim or jump|drop a stone|give a stone back)> ")
        if count == 0:
            assert not autosave.exists()
        else:
            saved = GameRecord.load(autosave)
            assert saved.action_strings() == record.action_strings()[:count]
        child.sendline("1")
    child.expect_exact("Red, swim or jump> ")
    assert GameRecord.load(autosave).action_strings() == record.action_strings()
    child.sendline("quit")
    child.expect(r"You left: the unfinished game is saved in auto\.txt ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert GameRecord.load(autosave).action_strings() == record.action_strings()


def test_save_option_with_json_and_closed_input(tmp_path: Path) -> None:
    seats = ("easy", "human")
    record, typed = simulate("linja", seats, seed=12, person_actions=3)
    done = play(["linja", "--black", "easy", "--seed", "12", "--save", "a.json"], typed, tmp_path)
    assert_clean(done)
    assert done.stdout.splitlines()[-1] == (
        "Input closed: the unfinished game is saved in a.json "
        "(continue with: boardlab play linja --load a.json)."
    )
    assert (tmp_path / "a.json").read_text().startswith("{")
    assert GameRecord.load(tmp_path / "a.json").action_strings() == record.action_strings()


def test_refused_command_lines_are_one_line_with_status_2(tmp_path: Path) -> None:
    record = GameRecord(boardlab.new_game("jinli"))
    record.play_all(["a1-b2", "@d4"])
    record.save(tmp_path / "g.txt")
    cases = [
        (
            ["jinli", "--load", "g.txt", "--option", "stones=6"],
            "boardlab: --option cannot change a loaded game: its record sets them",
        ),
        (
            ["jinli", "--black", "human"],
            "boardlab: --black is not a player of jinli: the players are red and yellow",
        ),
        (["linja", "--load", "g.txt"], "boardlab: the record is a game of 'jinli', not 'linja'"),
        (["jinli", "--load", "missing.txt"], "boardlab: No such file or directory: missing.txt"),
        (["jinli", "--yellow", "grandmaster"], r"boardlab: unknown agent 'grandmaster': .*"),
    ]
    for args, message in cases:
        done = play(args, ["1", "quit"], tmp_path)
        assert done.returncode == 2, args
        assert done.stdout == ""
        assert TRACEBACK not in done.stderr
        assert len(done.stderr.splitlines()) == 1
        assert re.fullmatch(message, done.stderr.rstrip("\n")), done.stderr


# ====================================================================== 5. EOF and Ctrl-C
@pytest.mark.parametrize(("game_id", "actions"), [("jinli", 1), ("jinli", 2), ("galatjang", 2)])
def test_closed_input_saves_the_unfinished_game(game_id: str, actions: int, tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate(game_id, seats, seed=13, person_actions=actions)
    done = play([game_id, *seat_args(game_id, seats), "--seed", "13"], typed, tmp_path)
    assert_clean(done)
    last = done.stdout.splitlines()[-1]
    assert last.startswith("Input closed: the unfinished game is saved in boardlab-")
    match = SAVED.search(last)
    assert match
    saved = GameRecord.load(tmp_path / match.group(1))
    assert saved.action_strings() == record.action_strings()


def test_closed_input_before_any_move(tmp_path: Path) -> None:
    done = play(["linja", "--red", "easy"], "", tmp_path)
    assert_clean(done)
    assert done.stdout.splitlines()[-1] == "Input closed."
    assert list(tmp_path.iterdir()) == []


def spawn(args: Sequence[str], cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "boardlab", "play", *args],
        cwd=str(cwd),
        encoding="utf-8",
        env=environment(),
        timeout=60,
        dimensions=(40, 80),
        # A test run started in the background (`make test &`) ignores SIGINT, and the
        # child would inherit that: give it the default, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_ctrl_c_saves_the_unfinished_game(tmp_path: Path) -> None:
    child = spawn(["jinli", "--yellow", "easy", "--seed", "1"], tmp_path)
    child.expect_exact("Red, swim or jump> ")
    child.sendline("1")
    child.expect_exact("Red, drop a stone> ")
    child.sendline("@d4")
    child.expect_exact("Red, swim or jump> ")
    child.sendline("2")
    child.expect_exact("Red, drop a stone> ")
    saved = r"Interrupted: the unfinished game is saved in (\S+) \(continue with"
    child.sendintr()
    # CPython's readline misses a Ctrl-C that comes after the prompt is written but
    # before it waits for a key (the flag is set, nothing wakes it): as a person would,
    # press it again if nothing happened.
    if child.expect([saved, pexpect.TIMEOUT], timeout=5) == 1:
        child.sendintr()
        child.expect(saved)
    path = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert TRACEBACK not in child.before
    saved = GameRecord.load(tmp_path / path)
    actions = saved.action_strings()
    assert len(actions) == 5
    assert actions[:2] == ["a1-b1", "@d4"]
    assert actions[4] == saved.positions[4].legal_action_strings()[1]
    assert saved.headers["Yellow"] == "easy"


def test_a_complete_game_in_a_terminal(tmp_path: Path) -> None:
    seats = ("human", "easy")
    record, typed = simulate("jinli", seats, seed=14)
    outcome = record.outcome()
    assert outcome is not None
    child = spawn(["jinli", "--yellow", "easy", "--seed", "14"], tmp_path)
    transcript = []
    sent = 0
    while True:
        found = child.expect([r"Red, (swim or jump|drop a stone|give a stone back)> ", r"\n> "])
        transcript.append(child.before)
        if found == 1:
            break
        child.sendline("1")
        sent += 1
    assert sent == len(typed)
    child.sendline("save end.txt")
    child.expect_exact("Saved to end.txt")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    transcript.append(child.before)
    child.close()
    assert child.exitstatus == 0
    out = "".join(transcript)
    assert result_line(outcome) in out
    assert TRACEBACK not in out
    assert colour_codes(out) == []  # NO_COLOR=1 in a real terminal
    assert GameRecord.load(tmp_path / "end.txt").action_strings() == record.action_strings()


# ====================================================================== 6. boards
def played(position: Position[Any], words: str) -> tuple[Position[Any], list[Any]]:
    last = []
    for word in words.split():
        action = position.parse_action(word)
        last.append((position, action))
        position = position.play(action)
    return position, last


JINLI_BOARD = """\
      a  b  c  d  e  f  g
   7  o  o  o  .  .  o  o  7
   6  .  o  .  .  .  .  Y  6
   5  .  o  .  .  .  o  .  5
   4  .  .  .  .  o  .  .  4
   3  R  o  .  .  o  o  .  3
   2  .  .  . [.] o [o] .  2
   1  o  Y [R] .  .  o  o  1
      a  b  c  d  e  f  g
   Red     2 points, 1 stone in supply
 > Yellow  2 points, 2 stones in supply
   turn 20, Yellow: swim or jump, target 10 points
"""

JINLI_OVER = """\
      a  b  c  d  e  f  g
   7  .  .  .  .  .  .  .  7
   6  .  .  .  .  .  .  .  6
   5  .  .  .  .  .  .  .  5
   4  .  .  .  .  .  .  .  4
   3  .  . [R] Y  .  .  .  3
   2  .  o  .  .  .  .  .  2
   1 [.] .  Y  .  .  .  R  1
      a  b  c  d  e  f  g
   Red     3 points, 10 stones in supply
   Yellow  2 points, 9 stones in supply
   game over after 7 turns, target 3 points
"""

LINJA_BOARD = """\
   row
     7  RRRRR   red start, black goal
     6
     5  R
     4  RR
     3  BBBBRR                   full
     2 [BBR   ]
     1 [BBR   ]
     0 [BBBB  ] black start, red goal
   Black  -34 points
 > Red    -22 points
   turn 10, Red: opening move, points as if the game ended now
"""

GALATJANG_BOARD = """\
      n4  n3  n2  n1
       5   0   0   x
   3                  6
       5   0   4 [ 1]
      s1  s2  s3  s4
   South  6 in store, 10 in pits
 > North  3 in store, 5 in pits, 1 blocked
   turn 2, North: sow a pit, round 2 of 3
"""

GALATJANG_START = """\
      n6  n5  n4  n3  n2  n1
       6   6   6   6   6   6
   0                          0
       6   6   6   6   6   6
      s1  s2  s3  s4  s5  s6
 > South  0 in store, 36 in pits
   North  0 in store, 36 in pits
   turn 1, South: sow a pit
"""

BOARDS = [
    (
        "jinli",
        {},
        "ooo2oo/1o4Y/1o3o1/4o2/Ro2oo1/3Ro2/oY3oo r m 2/2 1/2 0 18",
        "d2-c1 @f2",
        JINLI_BOARD,
    ),
    ("jinli", {"target": 3}, "7/7/7/7/3Y3/1o5/R1Y3R r m 10/9 2/2 0 6", "a1-c3", JINLI_OVER),
    ("linja", {}, "6,1,1,4,0,0,0,0/0,1,1,2,2,1,0,5 b o 0 8", "0-1 0-2", LINJA_BOARD),
    (
        "galatjang",
        {"pits": 4, "seeds": 3, "rounds": 3},
        "3,3,3,3/x,3,3,3 2/1 s 2 0",
        "s4",
        GALATJANG_BOARD,
    ),
    ("galatjang", {}, "", "", GALATJANG_START),
]


@pytest.mark.parametrize(("game_id", "options", "start", "turn", "expected"), BOARDS)
def test_boards_at_80_columns(
    game_id: str, options: dict[str, Any], start: str, turn: str, expected: str
) -> None:
    game = boardlab.new_game(game_id, options)
    position, last = played(game.from_position_string(start) if start else game.initial(), turn)
    assert render(position, last) == expected


def test_a_full_row_is_labelled_and_a_finished_board_has_no_turn_mark() -> None:
    linja = boardlab.new_game("linja")
    position = linja.from_position_string("6,1,1,3,1,0,0,0/0,0,1,3,1,1,1,5 b o 0 4")
    rows = render(position).splitlines()
    assert rows[5].rstrip().endswith("full")  # row 3: 3 black and 3 red
    assert sum(row.rstrip().endswith("full") for row in rows) == 1
    over = boardlab.new_game("jinli", target=3)
    finished, _ = played(
        over.from_position_string("7/7/7/7/3Y3/1o5/R1Y3R r m 10/9 2/2 0 6"), "a1-c3"
    )
    assert finished.is_over()
    assert " > " not in render(finished)


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_colour_is_used_when_the_terminal_has_it(game_id: str) -> None:
    console = Console(width=80, force_terminal=True, color_system="truecolor", file=io.StringIO())
    console.print(view(boardlab.new_game(game_id).initial()))
    assert colour_codes(console.file.getvalue())  # type: ignore[attr-defined]


def test_no_color_turns_colour_off(tmp_path: Path) -> None:
    args = ["galatjang", "--north", "easy"]
    coloured = play(args, ["1", "quit"], tmp_path, environment(NO_COLOR="", FORCE_COLOR="1"))
    assert_clean(coloured)
    assert colour_codes(coloured.stdout)
    plain = play(args, ["1", "quit"], tmp_path, environment(NO_COLOR="1", FORCE_COLOR="1"))
    assert_clean(plain)
    assert colour_codes(plain.stdout) == []
    piped = play(args, ["1", "quit"], tmp_path, environment(NO_COLOR="1"))
    assert_clean(piped)
    assert "\x1b" not in piped.stdout


def test_counts_of_one_are_singular() -> None:
    linja = boardlab.new_game("linja").from_position_string(
        "5,1,1,0,1,3,0,1/0,1,2,2,1,0,1,5 b f1 0 6"
    )
    jinli = boardlab.new_game("jinli").from_position_string("Y5Y/7/7/7/7/7/R5R r m 1/2 0/0 0 0")
    text = render(linja) + render(jinli)
    assert "1 rows" not in text
    assert "1 stones" not in text


# ====================================================================== 7. narration
def test_galatjang_narration_shows_every_seed_a_relay_and_a_capture(tmp_path: Path) -> None:
    game = boardlab.new_game("galatjang")
    first = game.initial()
    second = first.play("s1")
    third = second.play("s2")
    assert explain(first, first.parse_action("s1"), second) == [
        "South sows s1: 6 seeds to s2 s3 s4 s5 s6 S.",
        "The last seed falls into South's store: South sows again.",
    ]
    sowing = [
        "South sows s2: 7 seeds to s3 s4 s5 s6 S n1 n2.",
        "n2 held seeds: South picks up 7 and sows on to n3 n4 n5 n6 N s1 s2.",
        "The last seed falls into the empty s2: it and the 7 seeds opposite go to South's store.",
    ]
    assert explain(second, second.parse_action("s2"), third) == sowing
    assert third.points == (10, 1)
    # The same words at the terminal, in hot seat.
    done = play(["galatjang", "--south", "human", "--north", "human"], ["s1", "2"], tmp_path)
    assert_clean(done)
    assert exchanges(done.stdout)[1].answer[:3] == sowing


def test_galatjang_narration_of_a_round_end_and_a_refill() -> None:
    game = boardlab.new_game("galatjang", pits=4, seeds=3, rounds=3)
    before = game.from_position_string("0,0,0,0/0,0,1,0 14/9 n 1 11")
    after = before.play("n3")
    assert after.position_string() == "3,3,3,3/x,3,3,3 2/1 s 2 0"
    assert explain(before, before.parse_action("n3"), after) == [
        "North sows n3: 1 seed to n4.",
        "The last seed falls into the empty n4, facing an empty pit: it goes to the store.",
        "Round 1 ends (a player has no seeds): the pits are emptied into the stores, "
        "South 14, North 10.",
        "South fills 4 pits.",
        "North fills 3 pits (1 blocked).",
        "Round 2 begins; South starts.",
    ]


LINJA_NARRATION = [
    (
        {},
        "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0",
        "2-3",
        ["Black opens 2-3.", "Row 3 held 2 pieces: a follow-up of 2 rows."],
        "f2",
    ),
    (
        {},
        "5,1,1,0,1,3,0,1/0,1,2,2,1,0,1,5 b f2 0 6",
        "5-7",
        [
            "Black follows up 5-7.",
            "The piece enters the goal with exactly 2 steps: a bonus move.",
        ],
        "b",
    ),
    (
        {},
        "5,0,2,0,1,2,0,2/0,1,3,1,1,0,1,5 r f4 0 7",
        "2-0",
        ["Red follows up 2-0.", "It overshoots into the goal: the surplus steps are lost."],
        "o",
    ),
    (
        {"ruleset": "extra-turn"},
        "5,1,0,1,2,1,1,1/2,1,0,0,1,2,2,4 b f2 0 6",
        "0-2",
        ["Black follows up 0-2.", "It ends in row 2, which was empty: an extra turn."],
        "o+",
    ),
    (
        {},
        "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0",
        "6-7",
        ["Black opens 6-7.", "The piece reaches the goal: no follow-up."],
        "o",
    ),
]


@pytest.mark.parametrize(("options", "start", "action", "expected", "phase"), LINJA_NARRATION)
def test_linja_narration(
    options: dict[str, Any], start: str, action: str, expected: list[str], phase: str
) -> None:
    before = boardlab.new_game("linja", options).from_position_string(start)
    after = before.play(action)
    assert explain(before, before.parse_action(action), after) == expected
    assert after.phase == phase
    if phase == "o+":
        assert after.to_act == before.to_act  # the extra turn is the same player's


def test_linja_narration_at_the_terminal(tmp_path: Path) -> None:
    done = play(["linja", "--black", "human", "--red", "human"], ["2-3 0-2"], tmp_path)
    assert_clean(done)
    assert exchanges(done.stdout)[0].answer[:3] == [
        "Black opens 2-3.",
        "Row 3 held 2 pieces: a follow-up of 2 rows.",
        "Black follows up 0-2.",
    ]


def test_jinli_narration_of_points_and_of_a_give_back(tmp_path: Path) -> None:
    game = boardlab.new_game("jinli")
    before = game.from_position_string("7/7/7/7/2Y4/7/R1Y3R r m 10/10 0/0 0 0")
    after = before.play("a1-b2")
    assert explain(before, before.parse_action("a1-b2"), after) == [
        "Red swims a1-b2, next to 2 koi: +2 (now 2)."
    ]
    plain = before.play("g1-f2")
    assert explain(before, before.parse_action("g1-f2"), plain) == ["Red swims g1-f2."]
    jump = boardlab.new_game("jinli", target=3).from_position_string(
        "7/7/7/7/3Y3/1o5/R1Y3R r m 10/9 2/2 0 6"
    )
    assert explain(jump, jump.parse_action("a1-c3"), jump.play("a1-c3")) == [
        "Red jumps a1-c3, next to 1 koi: +1 (now 3)."
    ]
    # recycle: Red drops his last stone and Yellow gives one back.
    recycle = boardlab.new_game("jinli", recycle=True, stones=1)
    swum = recycle.initial().play("a1-b2")
    dropped = swum.play("@d4")
    assert explain(swum, swum.parse_action("@d4"), dropped) == [
        "Red drops a stone on d4 (0 left).",
        "That was Red's last stone: Yellow gives one back.",
    ]
    given = dropped.play("xd4")
    assert explain(dropped, dropped.parse_action("xd4"), given) == [
        "Yellow gives the stone on d4 back to Red, then plays a turn."
    ]
    assert given.state.supply == (1, 1)
    assert (given.player, given.phase) == ("yellow", "m")
    # The same at the terminal, the give prompted for.
    args = ["jinli", "--red", "human", "--yellow", "human", "-o", "recycle=true", "-o", "stones=1"]
    done = play(args, ["a1-b2 @d4", "xd4"], tmp_path)
    assert_clean(done)
    talk = exchanges(done.stdout)
    assert talk[0].answer[:3] == [
        "Red swims a1-b2.",
        "Red drops a stone on d4 (0 left).",
        "That was Red's last stone: Yellow gives one back.",
    ]
    assert talk[1].prompt == "Yellow, give a stone back> "
    assert talk[1].answer[0] == "Yellow gives the stone on d4 back to Red, then plays a turn."
    assert talk[2].prompt == "Yellow, swim or jump> "


def test_a_game_saved_with_no_name_goes_to_the_games_folder(tmp_path: Path) -> None:
    """Not into the folder the command runs in: the user's data directory, named."""
    data = tmp_path / "data"
    env = environment(BOARDLAB_GAMES="", XDG_DATA_HOME=str(data))
    done = play(["linja", "--red", "easy", "--seed", "2"], ["0-1", "save", "quit"], tmp_path, env)
    assert_clean(done)
    saved = re.search(r"Saved to (\S+)", done.stdout)
    assert saved, done.stdout
    path = Path(saved.group(1))
    assert path.parent == data / "boardlab" / "games" and path.name.startswith("boardlab-linja-")
    assert GameRecord.load(path).action_strings()[0] == "0-1"
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
