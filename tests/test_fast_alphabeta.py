"""The compiled alpha-beta (boardlab.fast.alphabeta) and the kernels' evaluations.

1. each kernel's ``evaluate`` is the Python evaluation, number for number, on thousands
   of positions of random games under random options;
2. at unlimited depth the search is exact on small endgames (a plain memoised minimax
   written here), for the chosen action and, with ``every_action``, for every action;
3. at a fixed depth of 1 to 3 it gives the plain depth-limited negamax values, and the
   same choice, values and node counts as the Python ``AlphaBetaAgent`` (deeper too,
   while the fixed-size table loses no entry that matters);
4. it is reproducible from the seed, breaks ties by it, and keeps depth, node and time
   limits; the ``alphabeta`` agent takes it as ``engine=compiled``.

Each kernel's search loop is compiled once per process (a few seconds).
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from dataclasses import replace
from functools import cache, lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import boardlab
from boardlab.ai import Limit, make_agent
from boardlab.ai.alphabeta import AlphaBetaAgent
from boardlab.ai.evaluation import evaluation_for
from boardlab.core.game import Game, Position
from boardlab.fast import alphabeta as compiled_alphabeta
from boardlab.fast.alphabeta import C_NODES, SLICE, CompiledAlphaBeta
from boardlab.fast.batch import kernel_for
from support import random_game, random_options

ROOT = Path(__file__).resolve().parent.parent
GAMES = [g for g in boardlab.game_ids() if importlib.util.find_spec(f"boardlab.games.{g}.kernel")]


@lru_cache(maxsize=4)
def searcher(game: Game[Any]) -> CompiledAlphaBeta:
    """A compiled search for a game and option set (its table takes 23 MB: few kept)."""
    return CompiledAlphaBeta(game)


def position(game_id: str, text: str, **options: Any) -> Position[Any]:
    return boardlab.new_game(game_id, options).from_position_string(text)


# ---------------------------------------------------------------------- 1. evaluation
@pytest.mark.parametrize("game_id", GAMES)
def test_compiled_evaluation_is_the_python_evaluation(game_id: str) -> None:
    rng = random.Random(f"evaluate-{game_id}")
    compared = 0
    while compared < 4000:
        game = boardlab.new_game(game_id, random_options(game_id, rng))
        kernel, evaluate = kernel_for(game), evaluation_for(game)
        p = kernel.params(game)
        for pos in random_game(game, rng):
            s = kernel.encode(game, pos.state)
            for player in (0, 1):
                expected = evaluate(game, pos.state, player)
                assert kernel.evaluate(s, p, player) == expected, (pos, player)
                compared += 1


# ---------------------------------------------------------------------- 2. exact values
class TooBig(Exception):
    """The game tree is larger than the plain minimax may visit."""


def exact(game: Game[Any], state: Any, memo: dict[Any, tuple[int, int]], cap: int) -> int:
    """1, 0 or -1 for the player to act by plain minimax (a child with the same player
    to act keeps the point of view); ``memo`` holds (value, longest line) per state."""
    return _exact(game, state, memo, cap)[0]


def _exact(
    game: Game[Any], state: Any, memo: dict[Any, tuple[int, int]], cap: int
) -> tuple[int, int]:
    if state in memo:
        return memo[state]
    if len(memo) >= cap:
        raise TooBig
    me, outcome = game.to_act(state), game.outcome_of(state)
    if outcome is not None:
        found = (0 if outcome.winner is None else 1 if outcome.winner == me else -1), 0
    else:
        value, longest = -2, 0
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            v, length = _exact(game, child, memo, cap)
            value = max(value, v if game.to_act(child) == me else -v)
            longest = max(longest, length + 1)
        found = value, longest
    memo[state] = found
    return found


def per_action(game: Game[Any], state: Any, memo: dict[Any, tuple[int, int]]) -> dict[int, int]:
    me, values = game.to_act(state), {}
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        v = exact(game, child, memo, 10**9)
        values[action] = v if game.to_act(child) == me else -v
    return values


def value_class(value: float | None) -> int | None:
    """1, 0 or -1 for a value that claims a result (wins are discounted 0.001 a ply);
    None for an estimate (inside (-0.9, 0.9))."""
    if value is None:
        return None
    if value >= 0.9 - 1e-9:
        return 1
    if value <= -0.9 + 1e-9:
        return -1
    return 0 if value == 0.0 else None


HAND_MADE = [
    ("galatjang", {"pits": 2}, "1,1/1,1 0/0 s 1 0"),
    ("galatjang", {"pits": 2}, "2,1/1,3 1/1 n 1 4"),
    ("galatjang", {"pits": 2, "skip_origin": True}, "4,4/4,4 0/0 s 1 0"),
    ("galatjang", {"pits": 2, "seeds": 3}, "3,3/3,3 0/0 n 1 0"),
    ("galatjang", {"pits": 3, "seeds": 2}, "2,2,2/2,2,2 0/0 s 1 0"),
    ("galatjang", {"pits": 3, "lone_seed": "stay"}, "1,0,2/2,1,0 2/1 s 1 5"),
    ("galatjang", {"pits": 2, "seeds": 1, "rounds": 2}, "1,1/1,1 0/0 s 1 0"),
    ("jinli", {}, "6R/7/1Y5/7/3R3/7/6Y r m 1/0 9/9 0 298"),
    ("jinli", {"recycle": True}, "Y1Y4/7/3R3/7/4R2/7/7 r d 1/0 8/9 0 298"),
    ("linja", {}, "0,0,0,1,0,0,1,10/11,0,0,0,1,0,0,0 b o 0 10"),
    ("linja", {"ruleset": "extra-turn"}, "0,0,0,1,1,0,0,10/11,0,0,1,0,0,0,0 r o 0 20"),
    ("linja", {"nasty": True}, "0,0,0,1,0,0,1,10/11,0,0,0,1,0,0,0 b o 0 10"),
]


@cache
def endgames(game_id: str, count: int = 8, cap: int = 1500) -> tuple[Position[Any], ...]:
    """Positions near the end of random games under random options: walking back from
    the end, the earliest whose game tree has at most ``cap`` states and no line longer
    than 60 actions (the compiled search goes 64 deep at most)."""
    rng = random.Random(f"ab-endgames-{game_id}")
    found: list[Position[Any]] = []
    while len(found) < count:
        game = boardlab.new_game(game_id, random_options(game_id, rng))
        line = random_game(game, rng)
        best, memo = None, {}
        for pos in reversed(line[:-1]):
            try:
                _, longest = _exact(game, pos.state, memo, cap)
            except TooBig:
                break
            if longest > 60:
                break
            best = pos
        if best is not None and len(best.legal_actions()) > 1:
            found.append(best)
    return tuple(found)


def exact_cases() -> list[Any]:
    cases = [
        pytest.param(position(g, text, **options), id=f"{g}-hand{i}")
        for i, (g, options, text) in enumerate(HAND_MADE)
        if g in GAMES
    ]
    for game_id in GAMES:
        cases += [
            pytest.param(pos, id=f"{game_id}-end{i}") for i, pos in enumerate(endgames(game_id))
        ]
    return cases


@pytest.mark.parametrize("pos", exact_cases())
def test_unlimited_depth_is_exact(pos: Position[Any]) -> None:
    game, state = pos.game, pos.state
    memo: dict[Any, tuple[int, int]] = {}
    value, values = exact(game, state, memo, 10**9), per_action(game, state, memo)
    search = searcher(game)
    for seed in (1, 2):
        found = search.search(state, depth=64, seed=seed)
        assert value_class(found.value) == value, (found.value, value)
        assert values[found.action] == value, (pos.action_string(found.action), values)
        assert found.pv[0] == found.action
    every = search.search(state, depth=64, every_action=True, seed=3)
    assert {a for a, _ in every.values} == set(values)
    for action, v in every.values:
        assert value_class(v) == values[action], (pos.action_string(action), v, values)
    assert value_class(every.value) == value


def test_the_endgames_have_every_result() -> None:
    """Wins, draws and losses all occur among the positions above."""
    results = set()
    for param in exact_cases():
        pos = param.values[0]
        results.add(exact(pos.game, pos.state, {}, 10**9))
    assert results == {-1, 0, 1}


# ---------------------------------------------------------------------- 3. fixed depth
def negamax(game: Game[Any], state: Any, depth: int, ply: int, plies: dict[Any, set[int]]) -> float:
    """The plain depth-limited negamax of the Python search, without pruning or table:
    finished games ±(1 - 0.001 ply) or 0, the evaluation at depth 0. ``plies`` collects
    the plies at which each state was met."""
    plies.setdefault(state, set()).add(ply)
    me, outcome = game.to_act(state), game.outcome_of(state)
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return (1.0 if outcome.winner == me else -1.0) * (1.0 - 0.001 * min(ply, 100))
    if depth == 0:
        return evaluation_for(game)(game, state, me)
    return max(child_value(game, state, a, depth, ply, plies) for a in game.legal_actions(state))


def child_value(
    game: Game[Any], state: Any, action: int, depth: int, ply: int, plies: dict[Any, set[int]]
) -> float:
    child = game.apply(state, action)
    v = negamax(game, child, depth - 1, ply + 1, plies)
    return v if game.to_act(child) == game.to_act(state) else -v


@cache
def shallow_positions(game_id: str) -> tuple[Position[Any], ...]:
    """Positions of random games under random options, in every phase of a turn."""
    rng = random.Random(f"ab-shallow-{game_id}")
    found: list[Position[Any]] = []
    while len(found) < 10:
        game = boardlab.new_game(game_id, random_options(game_id, rng))
        line = [pos for pos in random_game(game, rng) if not pos.is_over()]
        found += rng.sample(line, min(2, len(line)))
    return tuple(found)


DEPTHS = {"jinli": (1, 2), "linja": (1, 2, 3), "galatjang": (1, 2, 3)}


@pytest.mark.parametrize("game_id", GAMES)
def test_fixed_depth_values_are_the_plain_negamax(game_id: str) -> None:
    """A table cut-off can only change a value when the same state is met at two plies
    (a stored value of another depth, and wins discounted for another ply): where that
    does not happen below the root, every root value (``every_action``) and the best
    value must be those of the plain negamax, to the last bit."""
    compared = 0
    for pos in shallow_positions(game_id):
        for depth in DEPTHS.get(game_id, (1, 2)):
            plies: dict[Any, set[int]] = {}
            plain = {
                a: child_value(pos.game, pos.state, a, depth, 0, plies) for a in pos.legal_actions()
            }
            if any(len(p) > 1 for p in plies.values()):
                continue  # a transposition across plies: the table may change values
            search = searcher(pos.game)
            every = search.search(pos.state, depth=depth, every_action=True, seed=1)
            assert dict(every.values) == plain, (pos, depth)
            found = search.search(pos.state, depth=depth, seed=1)
            assert found.value == max(plain.values()) == plain[found.action]
            compared += 1
    assert compared >= 15


@pytest.mark.parametrize("game_id", GAMES)
def test_fixed_depth_agrees_with_the_python_search(game_id: str) -> None:
    """Given the same generator, the two engines shuffle the root alike and run the same
    search step by step: the same choice, value, root values, node count and depth. (They
    part only when the compiled table, 2**20 entries always replaced, loses an entry the
    Python dictionary keeps: not at these depths, where it holds a few thousand.) The
    principal variation comes from the table: the compiled one may stop sooner."""
    for i, pos in enumerate(shallow_positions(game_id)[:6]):
        for depth in (1, 2, 3):
            python = AlphaBetaAgent(seed=i).choose(pos, Limit(depth=depth))
            agent = make_agent("alphabeta:engine=compiled", seed=i)
            compiled = agent.choose(pos, Limit(depth=depth))
            assert replace(compiled, seconds=0.0, pv=()) == replace(python, seconds=0.0, pv=())
            assert compiled.action_values == python.action_values
            assert python.pv[: len(compiled.pv)] == compiled.pv and compiled.pv
        python = AlphaBetaAgent(seed=i).analyze(pos, Limit(depth=2))
        compiled = make_agent("alphabeta:engine=compiled", seed=i).analyze(pos, Limit(depth=2))
        assert compiled.action_values == python.action_values


#: Searches of some 1,000 to 20,000 nodes.
DEEPER = {"jinli": 4, "linja": 8, "galatjang": 8}


@cache
def default_positions(game_id: str) -> tuple[Position[Any], ...]:
    """The start and positions of random games under the default options."""
    rng = random.Random(f"ab-default-{game_id}")
    game = boardlab.new_game(game_id)
    found = [game.initial()]
    while len(found) < 6:
        line = [pos for pos in random_game(game, rng) if not pos.is_over()]
        found.append(rng.choice(line[1 : max(len(line) // 2, 2)]))
    return tuple(found)


@pytest.mark.parametrize("game_id", GAMES)
def test_deeper_searches_agree_with_the_python_search(game_id: str) -> None:
    """Deeper, where the table's cut-offs on transpositions do happen: still the same
    search step by step (nodes, values, choice) while the table keeps what the Python
    dictionary keeps. A table of 2**20 entries always replaced does lose a few entries
    to shared slots in searches of 10,000 nodes and more (then the node counts differ by
    a few); with 2**22 entries (96 MB), none that matters here."""
    game = boardlab.new_game(game_id)
    search = CompiledAlphaBeta(game, table_bits=22)
    for i, pos in enumerate(default_positions(game_id)):
        depth = DEEPER.get(game_id, 4)
        python = AlphaBetaAgent(seed=i).choose(pos, Limit(depth=depth))
        found = search.search(pos.state, depth=depth, seed=random.Random(i))
        assert (found.action, found.value, found.nodes, found.depth) == (
            python.action,
            python.value,
            python.nodes,
            python.depth,
        )
        assert found.values == tuple((a, v) for a, v, _ in python.action_values)
        small = searcher(game).search(pos.state, depth=depth, seed=random.Random(i))
        assert (small.action, small.value) == (python.action, python.value)


# ---------------------------------------------------------------------- 4. seeds, limits
@pytest.mark.parametrize("game_id", GAMES)
def test_same_seed_same_search(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    state = game.initial_state()
    one = searcher(game).search(state, depth=5, seed=7)
    two = CompiledAlphaBeta(game).search(state, depth=5, seed=7)
    assert replace(one, seconds=0.0) == replace(two, seconds=0.0)
    assert one.depth == 5 and one.nodes > 100


@pytest.mark.parametrize("game_id", GAMES)
def test_ties_are_broken_by_the_seed(game_id: str) -> None:
    """Among actions of equal value the choice follows the seed's shuffle: the first of
    the tied actions in the order ``random.Random(seed).shuffle`` gives the legal list."""
    game = boardlab.new_game(game_id)
    state = game.initial_state()
    chosen = set()
    for seed in range(12):
        found = searcher(game).search(state, depth=1, seed=seed)
        best = [a for a, v in found.values if v == found.value]
        order = list(game.legal_actions(state))
        random.Random(seed).shuffle(order)
        assert found.action == next(a for a in order if a in best)
        chosen.add(found.action)
    if len([a for a, v in found.values if v == found.value]) > 1:
        assert len(chosen) > 1


@pytest.mark.parametrize("game_id", GAMES)
def test_depth_and_node_limits(game_id: str) -> None:
    """As in the Python search: the node that trips the limit is counted but not
    searched, and the answer is that of the last completed depth."""
    for pos in shallow_positions(game_id)[:4]:
        search = searcher(pos.game)
        for depth in (1, 2, 3):
            found = search.search(pos.state, depth=depth, seed=depth)
            assert 1 <= found.depth <= depth and found.action in pos.legal_actions()
        for n in (1, 3, 30, 300, 3000):
            found = search.search(pos.state, nodes=n, seed=n)
            assert found.nodes <= n + 1 and found.action in pos.legal_actions()
            if found.depth >= 1:
                assert found.nodes <= n
            else:
                assert found.value is None and found.values == ()
            python = AlphaBetaAgent(seed=n).choose(pos, Limit(nodes=n), rng=random.Random(n))
            assert (found.action, found.nodes, found.depth) == (
                python.action,
                python.nodes,
                python.depth,
            )


def test_a_time_limit_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a clock that reads the nodes searched (one tick a node, so nothing depends on
    the machine's speed): no depth is begun once half the time is spent, a depth that
    runs over the time is dropped within a slice of nodes, and the answer is that of
    the last completed depth. A node budget alone sets the depth as deterministically."""
    game = boardlab.new_game("jinli")
    state = game.initial_state()
    plain = [searcher(game).search(state, depth=d, seed=1) for d in range(1, 9)]
    finished = [0] + [found.nodes for found in plain]  # nodes when depth d is complete
    assert searcher(game).search(state, nodes=2000, seed=1).depth >= 3
    for budget in (100, 2000, 6000, 200_000):
        found = searcher(game).search(state, nodes=budget, seed=1)
        assert found.depth == max(d for d, n in enumerate(finished) if n <= budget)
    timed: list[CompiledAlphaBeta] = []
    clock = SimpleNamespace(perf_counter=lambda: float(timed[0].ctx[C_NODES]))
    monkeypatch.setattr(compiled_alphabeta, "time", clock)
    dropped = halved = 0
    for seconds in (3, 600, 3000, 11_000, 100_000, 245_000, 400_000):
        timed[:] = [CompiledAlphaBeta(game)]  # its count of nodes starts at 0
        found = timed[0].search(state, seconds=seconds, seed=1)
        depth = found.depth
        assert depth >= 1 and found.seconds <= seconds + SLICE, seconds
        assert (found.action, found.nodes) == (plain[depth - 1].action, finished[depth]), seconds
        assert finished[depth - 1] <= seconds / 2, seconds  # depth begun with half left
        if finished[depth] > seconds / 2:
            halved += 1  # half the time spent: no deeper depth begun
        else:
            assert seconds <= found.seconds and finished[depth + 1] > seconds, seconds
            dropped += 1  # the next depth ran out of time and was dropped
    assert dropped and halved


def test_the_agent_setting() -> None:
    agent = make_agent("alphabeta:engine=compiled,time=1")
    assert isinstance(agent, AlphaBetaAgent) and agent.engine == "compiled"
    assert agent.budget == Limit(time=1.0)
    default = make_agent("alphabeta")
    assert isinstance(default, AlphaBetaAgent) and default.engine == "python"
    with pytest.raises(boardlab.BoardlabError, match="bad engine 'rust'"):
        make_agent("alphabeta:engine=rust")
    pos = position("galatjang", "2,2,2/2,2,2 0/0 s 1 0", pits=3)
    memo: dict[Any, tuple[int, int]] = {}
    values = per_action(pos.game, pos.state, memo)
    analysis = make_agent("alphabeta:engine=compiled", seed=1).analyze(pos, Limit(depth=64))
    assert {a for a, _, _ in analysis.action_values} == set(pos.legal_actions())
    for action, value, _ in analysis.action_values:
        assert value_class(value) == values[action]
    agent.warm(pos)  # compiles and builds the search, as a background thread may
    assert agent._compiled_search is not None and agent._compiled_search.game == pos.game
    choice = agent.choose(pos, Limit(time=0.05))
    assert choice.action in pos.legal_actions() and choice.depth >= 1


def test_states_hash_apart() -> None:
    """The table key differs between the states of a random game (64-bit keys)."""
    from boardlab.fast.alphabeta import state_key

    keys, states = set(), set()
    rng = random.Random(5)
    for game_id in GAMES:
        game = boardlab.new_game(game_id)
        kernel = kernel_for(game)
        for _ in range(20):
            for pos in random_game(game, rng):
                s = kernel.encode(game, pos.state)
                states.add(s.tobytes())
                keys.add(int(state_key(np.ascontiguousarray(s))))
    assert len(keys) == len(states)


def plain_python_check() -> int:
    """Run with ``NUMBA_DISABLE_JIT=1``: depth-3 searches from each game's start, the
    same as the Python search's. Returns the number of nodes searched."""
    nodes = 0
    for game_id in GAMES:
        game = boardlab.new_game(game_id)
        found = CompiledAlphaBeta(game, table_bits=12).search(game.initial_state(), depth=3)
        python = AlphaBetaAgent().choose(game.initial(), Limit(depth=3), rng=random.Random(0))
        assert (found.action, found.value, found.nodes) == (
            python.action,
            python.value,
            python.nodes,
        )
        nodes += found.nodes
    return nodes


def test_the_search_runs_as_plain_python() -> None:
    code = "import test_fast_alphabeta as t; print(t.plain_python_check())"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT / "tests"))
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 300
