"""Fuzzing what a user types: position strings, action strings, option assignments and
whole command lines, near-valid (mutations of real inputs) and hostile. The property is
always the same: a correct result or one clean boardlab error, never another exception."""

from __future__ import annotations

import io
import random
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boardlab
from boardlab.cli import main
from boardlab.core.errors import clipped
from boardlab.core.record import GameRecord, RecordError
from support import option_values, random_game

GAMES = boardlab.game_ids()
#: Characters that have broken parsers: digits that are not ASCII, separators, controls.
HOSTILE = "0123456789/ ,.-+x@ob²①１٣\u00a0\t\n\x00\\\"'[]{}#;=:" + "abcdefgnrsyRYo"
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def real_positions(game_id: str) -> list[boardlab.Position]:
    """Positions of a few random games, as seeds for mutation."""
    game = boardlab.new_game(game_id)
    return [p for seed in range(3) for p in random_game(game, random.Random(seed))][::7]


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    """A real input with a few characters replaced, inserted or deleted, a number made
    huge, or cut short."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "huge", "cut"]))
        at = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(HOSTILE))
        if kind == "replace" and text:
            at = min(at, len(text) - 1)
            text = text[:at] + char + text[at + 1 :]
        elif kind == "insert":
            text = text[:at] + char + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        elif kind == "huge":
            text = text[:at] + "9" * draw(st.sampled_from([12, 400, 5000])) + text[at:]
        else:
            text = text[:at]
    return text


def hostile() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=200), st.text(alphabet=HOSTILE, max_size=80))


@pytest.mark.parametrize("game_id", GAMES)
def test_position_strings_parse_or_say_why(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    texts = [p.position_string() for p in real_positions(game_id)]

    @FUZZ
    @given(st.one_of(mutated(texts), hostile()))
    def check(text: str) -> None:
        try:
            position = game.from_position_string(text)
        except boardlab.BoardlabError as error:
            assert str(error) and "\n" not in str(error).replace(repr(text), "")
            return
        again = game.from_position_string(position.position_string())
        assert again == position
        position.board()
        position.legal_actions()
        game.board_model(position.state)

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_action_strings_parse_or_say_why(game_id: str) -> None:
    positions = [p for p in real_positions(game_id) if not p.is_over()]
    words = [s for p in positions for s in p.legal_action_strings()] + ["pass", "12."]

    @FUZZ
    @given(st.sampled_from(positions), st.one_of(mutated(words), hostile()))
    def check(position: boardlab.Position, text: str) -> None:
        try:
            action = position.parse_action(text)
        except boardlab.BoardlabError as error:
            quoted = (repr(text), text.strip(), repr(clipped(text)))  # a long one: its start
            assert any(words in str(error) for words in quoted)
            return
        assert action in position.legal_actions()

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_option_assignments_are_checked(game_id: str) -> None:
    """Items that name no option (or are not ``key=value``) are refused; accepted ones
    give each named option the value its last item says, which reads back the same
    from its text and makes a game with those options."""
    cls = boardlab.game_class(game_id)
    names = {o.name for o in cls.schema}
    words = [f"{o.name}={o.format(v)}" for o in cls.schema for v in option_values(game_id, o)]
    unknown = st.text(alphabet=HOSTILE, max_size=20).filter(lambda n: n.strip() not in names)
    items = st.one_of(
        st.sampled_from(words), mutated(words), hostile(), unknown.map(lambda n: f"{n}=1")
    )

    @FUZZ
    @given(st.one_of(st.lists(st.sampled_from(words), max_size=4), st.lists(items, max_size=4)))
    def check(items: list[str]) -> None:
        named = [item.partition("=") for item in items]
        if any(not sep or name.strip() not in names for name, sep, _ in named):
            with pytest.raises(boardlab.OptionError, match=r"malformed|unknown option|bad value"):
                cls.schema.parse_assignments(items, game_id)
            return
        try:
            options = cls.schema.parse_assignments(items, game_id)
        except boardlab.OptionError as error:
            assert "bad value" in str(error)
            return
        last = {name.strip(): text for name, _, text in named}
        assert options.keys() == last.keys()
        for name, value in options.items():
            option = cls.schema.get(name)
            assert option.check(value) == value == option.parse(last[name])
        texts = [f"{name}={cls.schema.get(name).format(v)}" for name, v in options.items()]
        assert cls.schema.parse_assignments(texts, game_id) == options
        game = boardlab.new_game(game_id, options)
        assert {**game.options, **options} == game.options
        game.initial().legal_actions()

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_records_read_or_say_why(game_id: str) -> None:
    """Text and JSON records, mutated or hostile: a record, or one RecordError."""
    game = boardlab.new_game(game_id)
    texts = []
    for seed in range(2):
        record, rng = GameRecord(game, headers={"Event": "Club [B] night"}), random.Random(seed)
        while len(record) < 10 and not record.is_over():
            record.play(rng.choice(record.position.legal_actions()))
        record.comments[1] = "a } comment"
        texts += [record.to_text(), record.to_json()]

    @FUZZ
    @given(st.one_of(mutated(texts), hostile()))
    def check(text: str) -> None:
        try:
            record = GameRecord.read(text, game=game_id)
        except RecordError as error:
            assert str(error).strip()
            return
        assert GameRecord.from_text(record.to_text()).position == record.position

    check()


STUDY_DIR = tempfile.mkdtemp(prefix="boardlab-fuzz-study-")
COMMANDS = [
    ["games"],
    ["rules", "{game}"],
    ["show", "{game}"],
    ["perft", "{game}", "-d", "{depth}"],
    ["replay", "{game}"],
    ["analyze", "{game}", "--agent", "{agent}"],
    ["match", "{game}", "{agent}", "{agent}", "-n", "2", "--jobs", "1"],
    ["match", "{game}", "{agent}", "random", "-n", "2", "--jobs", "1", "--sprt", "{sprt}"],
    [
        "tournament",
        "{game}",
        "{agent}",
        "{agent}",
        "--pairs",
        "1",
        "-j",
        "1",
        "--results",
        "/dev/null",
    ],
    ["engine", "{game}", "--agent", "{agent}"],
    [
        "study",
        "{game}",
        "--agent",
        "{agent}",
        "-n",
        "1",
        "-j",
        "1",
        "--vary",
        "{vary}",
        "--out",
        STUDY_DIR,
        "--backend",
        "{backend}",
    ],
]
VALUES = {
    "game": [*GAMES, "chess", "", "JINLI", "../etc"],
    "depth": ["0", "2", "-1", "x", "99", "²"],
    "agent": [
        "random",
        "greedy",
        "alphabeta:depth=1",
        "mcts:iterations=20",
        "mcts:x=1",
        "",
        "?",
        "llm",
        "llm:url=ftp://x,model=m",
        "az",
        "az:weights=/nonexistent.npz",
        "engine",
        "engine:cmd=/nonexistent/engine",
    ],
    "vary": ["lone_seed", "pits=2..3", "nasty", "pits", "x", "", "start=corners", "seeds=1,x"],
    "backend": ["local", "spark", ""],
    "sprt": ["elo0=0,elo1=400", "elo0=x,elo1=1", "", "elo1=5", "elo0=0,elo1=10,alpha=2"],
}
EXTRA = ["-o", "max_turns=3", "--option", "pits=3", "-p", "", "--divide", "--seed", "-1", "--"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    words = []
    for word in draw(st.sampled_from(COMMANDS)):
        if word.startswith("{"):
            word = draw(st.sampled_from(VALUES[word.strip("{}")]))
        words.append(word)
    extra = draw(st.lists(st.one_of(st.sampled_from(EXTRA), hostile()), max_size=3))
    for word in extra:
        words.insert(draw(st.integers(1, len(words))), word)
    return words


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    command_lines(),
    st.one_of(
        st.just(""),
        st.sampled_from(["s1 s2", "0-1", "a1-b2 @d4", "ugi\nisready\ngo nodes 50\nquit"]),
        hostile(),
    ),
)
def test_command_lines_end_cleanly(argv: list[str], stdin: str) -> None:
    """Every command line ends with a status: 0, or 1 or 2 with one line on standard error."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        status = main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    assert "Traceback" not in out.getvalue() + err.getvalue()
    if status == 0:
        return
    assert status in (1, 2), (argv, status)
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardlab"), (argv, err.getvalue())
