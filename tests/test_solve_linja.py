"""The Linja solver: its turn generator against the engine, the progress argument that
lets one pass fill the table, and its values against a plain minimax over the engine.

A complete table takes minutes; the tests solve the top levels only (an endgame table,
exact wherever it reaches) and compare positions there.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import boardlab
import support
from boardlab.ai import make_agent
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Position
from boardlab.games.linja import solution as solver
from boardlab.games.linja.game import Linja
from boardlab.games.linja.rules import OPENING, PASS, LinjaState
from boardlab.games.linja.solution import (
    COMPOSITIONS,
    LinjaSolution,
    level,
    own_word,
    turn_ends,
    words,
)
from boardlab.solve.tables import TableError

LOWEST = 138  # the tests' tables hold every position with this much progress or more

#: Every combination of options that decides values and provably ends.
SOLVED = [{"ruleset": "extra-turn", "scoring": scoring} for scoring in ("signed", "positive")] + [
    {
        "scoring": scoring,
        "bonus_after_opening": after,
        "goal_step_back": back,
        "nasty": nasty,
    }
    for scoring in ("signed", "positive")
    for after in (False, True)
    for back in (False, True)
    for nasty in (False, True)
    if not (after and back)
]
SOME = [{}, {"ruleset": "extra-turn"}, {"bonus_after_opening": True, "nasty": True}]


def game_of(options: dict[str, Any]) -> Linja:
    game = boardlab.new_game("linja", options)
    assert isinstance(game, Linja)
    return game


def engine_turn_ends(game: Linja, state: LinjaState) -> Counter[tuple[int, int]]:
    """Every sequence of the engine's actions to the end of the turn, by its end."""
    ends: Counter[tuple[int, int]] = Counter()
    mover = state.side

    def walk(s: LinjaState) -> None:
        for action in game.legal_actions(s):
            child = game.apply(s, action)
            if child.side == mover:
                walk(child)
            else:
                ends[
                    own_word(child.counts[mover], mover),
                    own_word(child.counts[1 - mover], 1 - mover),
                ] += 1

    walk(state)
    return ends


def turn_starts(game: Linja, games: int, seed: int) -> list[LinjaState]:
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = game.initial_state()
        while game.outcome_of(state) is None:
            if state.phase == OPENING and not state.extra:
                found.append(state)
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    return found


def solver_turn_ends(game: Linja, state: LinjaState) -> Counter[tuple[int, int]] | None:
    m, o = words(state)
    scratch = np.empty(2 + 2 * solver.MAX_LEAVES, dtype=np.int64)
    count = turn_ends(m, o, solver.params(game), scratch)
    if count < 0:
        return None
    return Counter((int(scratch[2 + 2 * k]), int(scratch[3 + 2 * k])) for k in range(count))


# ---------------------------------------------------------------------- compositions
def test_ranks_number_every_composition_once() -> None:
    ranks = [solver.rank(int(w)) for w in solver.UNRANK]
    assert ranks == list(range(COMPOSITIONS))
    assert COMPOSITIONS == 50_388
    counts = (solver.UNRANK[:, None] >> (8 * np.arange(8))) & 0xFF
    assert (counts.sum(axis=1) == 12).all()
    assert len(set(solver.UNRANK.tolist())) == COMPOSITIONS


def test_a_side_turned_round_is_read_from_the_other_end() -> None:
    rng = random.Random(3)
    for _ in range(200):
        w = int(solver.UNRANK[rng.randrange(COMPOSITIONS)])
        rows = [(w >> (8 * r)) & 0xFF for r in range(8)]
        turned = solver.turned(w)
        assert [(turned >> (8 * r)) & 0xFF for r in range(8)] == rows[::-1]
        assert solver.turned(turned) == w


def test_words_are_each_side_in_its_own_rows() -> None:
    game = game_of({})
    state = game.parse_state("5,1,1,1,1,1,1,1/0,2,1,1,1,1,1,5 r o 0 4")
    mover, opponent = words(state)
    # Red to move: its row 7 (its start) is its own row 0.
    assert [(mover >> (8 * r)) & 0xFF for r in range(8)] == [5, 1, 1, 1, 1, 1, 2, 0]
    assert [(opponent >> (8 * r)) & 0xFF for r in range(8)] == [5, 1, 1, 1, 1, 1, 1, 1]
    assert level(state) == (1 + 2 + 3 + 4 + 5 + 6 + 7) + (1 + 2 + 3 + 4 + 5 + 2 * 6)


# ---------------------------------------------------------------------- the generator
@pytest.mark.parametrize("options", SOLVED[:2] + SOLVED[2:8], ids=str)
def test_turn_generator_agrees_with_the_engine(options: dict[str, Any]) -> None:
    """At every turn start of random games, the solver's turn ends are the engine's: the
    same ends, each as often as the engine reaches it (one per sequence of actions)."""
    game = game_of(options)
    checked = passes = 0
    for state in turn_starts(game, 15, seed=len(str(options))):
        mine = solver_turn_ends(game, state)
        if mine is None:
            assert game.legal_actions(state) == [PASS]
            passes += 1
        else:
            assert mine == engine_turn_ends(game, state), game.format_state(state)
        checked += 1
    assert checked > 300


def test_turn_generator_agrees_on_crowded_positions() -> None:
    """Full rows, forfeited follow-ups and passes, which random games rarely reach."""
    states = [
        "6,0,0,0,0,0,0,6/0,6,0,0,0,0,0,6 b o 0 0",  # row 1 full: no opening, a pass
        "6,0,0,0,0,0,0,6/0,6,0,0,0,0,0,6 b o 1 9",
        "4,0,2,0,0,0,0,6/0,4,4,0,0,0,0,4 b o 0 3",  # the follow-up of 4 is blocked
        "0,0,0,0,0,3,3,6/6,0,0,0,0,3,3,0 b o 0 3",
        "0,0,0,0,0,6,0,6/0,0,0,0,0,0,6,6 r o 0 3",
    ]
    for options in SOME:
        game = game_of(options)
        for text in states:
            state = game.parse_state(text)
            mine = solver_turn_ends(game, state)
            if mine is None:
                assert game.legal_actions(state) == [PASS]
            else:
                assert mine == engine_turn_ends(game, state), text


def lexicographic_progress(state_words: tuple[int, int]) -> tuple[int, int]:
    m, o = state_words
    rows = [((w >> (8 * r)) & 0xFF) for w in (m, o) for r in range(8)]
    progress = sum(n * (r % 8) for r, n in enumerate(rows))
    return progress, rows[7] + rows[15]


@pytest.mark.parametrize("options", SOLVED[2:8] + SOLVED[:1], ids=str)
def test_every_turn_raises_progress_then_goals(options: dict[str, Any]) -> None:
    """The argument that one pass from the top level down fills the table: every turn
    that is not a pass ends at a higher (progress, pieces in goals)."""
    game = game_of(options)
    for state in turn_starts(game, 10, seed=5):
        ends = solver_turn_ends(game, state)
        start = lexicographic_progress(words(state))
        for end_mover, end_opponent in ends or ():
            assert lexicographic_progress((end_mover, end_opponent)) > start


def test_bonus_after_opening_with_goal_step_back_loops_and_is_not_solved() -> None:
    game = game_of({"bonus_after_opening": True, "goal_step_back": True})
    state = game.parse_state("0,0,0,0,1,3,5,3/3,5,2,1,0,0,0,1 b o 0 20")
    # 6-7 into the goal, then a bonus 7-6 back out of it: the board is as it was.
    after = game.apply(game.apply(state, 6 * 8 + 7), 7 * 8 + 6)
    assert after.counts == state.counts and after.side != state.side
    with pytest.raises(BoardlabError, match="can loop"):
        solver.variant(game)
    with pytest.raises(BoardlabError, match="max_turns > 385"):
        solver.variant(game_of({"max_turns": 300}))


def test_variants_name_only_the_options_that_change_values() -> None:
    assert solver.variant_name(game_of({})) == "bonus-signed"
    assert solver.variant_name(game_of({"first": "red", "max_turns": 5000})) == "bonus-signed"
    assert (
        solver.variant_name(game_of({"ruleset": "extra-turn", "nasty": True}))
        == "extra-turn-signed"
    )
    assert (
        solver.variant_name(game_of({"scoring": "positive", "nasty": True}))
        == "bonus-positive-nasty"
    )
    assert len({solver.variant_name(game_of(o)) for o in SOLVED}) == len(SOLVED) == 14


# ---------------------------------------------------------------------- values
def exact_points(game: Linja, state: LinjaState, memo: dict[Any, int]) -> int:
    """The engine minimax (``support.exact_points``); the turn count is left out of the
    memo key, as the cap cannot bind in these endgames."""
    return support.exact_points(game, state, memo, key=lambda s: s._replace(turns=0))


def endgame_positions(game: Linja, count: int, seed: int, above: int = 2) -> list[LinjaState]:
    """Random valid turn starts at least ``LOWEST + above`` rows of progress, either side
    to move (the further along, the smaller the minimax that checks them)."""
    rng = random.Random(seed)
    found: list[LinjaState] = []
    while len(found) < count:
        black = _random_side(rng)
        red = _random_side(rng)[::-1]
        text = f"{','.join(map(str, black))}/{','.join(map(str, red))} {rng.choice('br')} o 0 0"
        try:
            state = game.parse_state(text)
        except BoardlabError:
            continue  # a full row over capacity
        if level(state) >= LOWEST + above and game.outcome_of(state) is None:
            found.append(state)
    return found


def _random_side(rng: random.Random) -> list[int]:
    """12 pieces, most of them far along (own rows)."""
    rows = [0] * 8
    for _ in range(12):
        rows[min(7, 3 + int(rng.expovariate(0.3)) if rng.random() < 0.9 else rng.randrange(8))] += 1
    return rows


@pytest.fixture(scope="module", params=SOME, ids=str)
def partial(request: pytest.FixtureRequest) -> LinjaSolution:
    game = game_of(request.param)
    return LinjaSolution(game, solver.solve_values(solver.params(game), LOWEST), LOWEST)


def test_values_equal_the_engine_minimax(partial: LinjaSolution) -> None:
    game = partial.game
    memo: dict[Any, int] = {}
    values = Counter()
    for state in endgame_positions(game, 30, seed=11, above=6):
        assert partial.in_reach(state)
        expected = exact_points(game, state, memo)
        assert partial.value(state) == expected, game.format_state(state)
        values[expected > 0] += 1
    assert len(values) == 2  # wins and losses both occur


def test_every_action_value_equals_the_engine_minimax(partial: LinjaSolution) -> None:
    """Mid-turn positions too: the follow-up and the bonus are searched with the
    engine's actions and the table read where the turn ends."""
    game = partial.game
    memo: dict[Any, int] = {}
    rng = random.Random(4)
    checked = 0
    for state in endgame_positions(game, 12, seed=12, above=6):
        while game.outcome_of(state) is None and partial.in_reach(state):
            values = partial.action_values(state)
            for action, value in values.items():
                child = game.apply(state, action)
                sign = 1 if child.side == state.side else -1
                assert value == sign * exact_points(game, child, memo)
            assert partial.value(state) == max(values.values())
            checked += 1
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert checked > 30


def test_optimal_turns_keep_the_value(partial: LinjaSolution) -> None:
    game = partial.game
    for state in endgame_positions(game, 10, seed=13):
        target = partial.value(state)
        turns = list(partial.best_turns(state))
        assert turns
        for turn in turns:
            child = state
            for action in turn:
                child = game.apply(child, action)
            assert child.side != state.side or game.outcome_of(child) is not None
            assert -partial.value(child) == target or game.outcome_of(child) is not None


def test_a_second_pass_ends_the_game_as_it_stands() -> None:
    game = game_of({})
    solution = LinjaSolution(game, np.zeros(1, dtype=np.int8), 0)
    # Black cannot open (row 1 is full); Red passed before: Black's pass ends the game.
    state = game.parse_state("6,0,0,0,0,0,0,6/0,6,0,0,0,0,0,6 b o 1 9")
    assert game.legal_actions(state) == [PASS]
    black, red = game.points(game.apply(state, PASS))
    assert solution.value(state) == black - red == exact_points(game, state, {})


def test_positions_out_of_reach_are_refused(partial: LinjaSolution) -> None:
    game = partial.game
    with pytest.raises(BoardlabError, match="does not reach"):
        partial.value(game.initial_state())
    state = endgame_positions(game, 1, seed=14)[0]
    last = game.rules.max_turns - solver.turns_left(state)
    assert partial.in_reach(state._replace(turns=last))
    assert not partial.in_reach(state._replace(turns=last + 1))


def test_the_turn_bound_holds_with_the_cap_as_close_as_it_allows(partial: LinjaSolution) -> None:
    """With the cap exactly ``turns_left`` turns away, the engine minimax (the turn
    count in its memo, so the cap is seen) still finds the table's value."""
    for state in endgame_positions(partial.game, 6, seed=18, above=8):
        bound = solver.turns_left(state)
        capped = game_of({**partial.game.options, "max_turns": 1000})
        close = state._replace(turns=1000 - bound)
        assert partial.in_reach(close)
        assert support.exact_points(capped, close, {}) == partial.value(state)


# ---------------------------------------------------------------------- files, agent, CLI
@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A partial default table where the agents and the CLI look for it."""
    directory = tmp_path_factory.mktemp("tables")
    game = game_of({})
    path = solver.build(game, directory / "linja-bonus-signed.table", lowest=LOWEST)
    assert path.name == solver.default_path(game).name
    return directory


def test_table_file_round_trips(table_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(table_dir))
    game = game_of({"first": "red"})  # the same table serves both first players
    assert LinjaSolution.available(game)
    loaded = LinjaSolution.load(game)
    built = LinjaSolution(game, solver.solve_values(solver.params(game), LOWEST), LOWEST)
    for state in endgame_positions(game, 20, seed=15):
        assert loaded.value(state) == built.value(state)
    with pytest.raises(TableError, match="boardlab solve linja --option nasty=true"):
        LinjaSolution.load(game_of({"nasty": True}))
    wrong = r"rules=\(bonus_after_opening=false .* scoring=signed\), not \(.* scoring=positive\)"
    with pytest.raises(TableError, match=wrong):
        LinjaSolution.load(game_of({"scoring": "positive"}), table_dir / "linja-bonus-signed.table")


def test_perfect_agent_plays_an_optimal_action(
    table_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(table_dir))
    game = game_of({})
    solution = LinjaSolution.load(game)
    agent = make_agent("perfect", seed=3)
    agent.check(game)
    for state in endgame_positions(game, 20, seed=16):
        position = Position(game, state)
        choice = agent.choose(position)
        values = solution.action_values(state)
        assert values[choice.action] == max(values.values())
        assert choice.value == np.sign(max(values.values()))


def test_perfect_agent_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    with pytest.raises(TableError, match="boardlab solve linja"):
        make_agent("perfect").check(game_of({}))
    with pytest.raises(BoardlabError, match="no perfect player for Jin Li"):
        make_agent("perfect").check(boardlab.new_game("jinli"))


def test_analyze_shows_exact_values(
    table_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(table_dir))
    game = game_of({})
    state = endgame_positions(game, 1, seed=17)[0]
    text = game.format_state(state)
    assert main(["analyze", "linja", "--position", text]) == 0
    out = capsys.readouterr().out
    best = max(LinjaSolution.load(game).action_values(state).values())
    assert "exact" in out and f"{best:+d}" in out


def test_analyze_without_a_table_says_how_to_build_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    assert main(["analyze", "linja", "--agent", "mcts:iterations=50"]) == 0
    assert "boardlab solve linja" in capsys.readouterr().out


def test_solve_refuses_what_it_cannot_solve(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["solve", "linja", "-o", "bonus_after_opening=true", "-o", "goal_step_back=true"]) == 2
    )
    assert "can loop" in capsys.readouterr().err
    assert main(["solve", "jinli"]) == 2
    assert "no solver" in capsys.readouterr().err
    assert main(["solve", "linja", "--max-seeds", "3"]) == 2
    assert "galatjang" in capsys.readouterr().err


def test_solve_reads_an_existing_table_and_verifies_it(
    table_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = table_dir / "linja-bonus-signed.table"
    assert main(["solve", "linja", "--out", str(path), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "building" not in out
    assert "checksum verified" in out
    assert f"partial table (progress {LOWEST} and more)" in out
    assert main(["solve", "linja", "--out", str(path), "-o", "nasty=true"]) == 2
    assert "built for rules" in capsys.readouterr().err
