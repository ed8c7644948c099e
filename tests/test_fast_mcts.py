"""The compiled MCTS: its tree agrees with the engine node by node, it proves small
endgames exactly, it is reproducible, and a million nodes fit in well under 1 GB."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from typing import Any

import pytest

import boardlab
from boardlab.ai import make_agent
from boardlab.fast.mcts import (
    ACTION,
    COUNT,
    FIRST,
    MOVER,
    NODE_BYTES,
    PARENT,
    PROVEN,
    TO_ACT,
    UNKNOWN,
    VISITS,
    CompiledSearch,
)
from support import minimax

GAMES = [g for g in boardlab.game_ids() if importlib.util.find_spec(f"boardlab.games.{g}.kernel")]


@pytest.mark.parametrize("game_id", GAMES)
def test_tree_agrees_with_the_engine_node_by_node(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    search = CompiledSearch(game, capacity=20_000)
    search.search(game.initial_state(), seed=4, iterations=3000)
    tree, states, order = search.tree, {0: game.initial_state()}, [0]
    for node in order:
        state = states[node]
        first, count = int(tree[node, FIRST]), int(tree[node, COUNT])
        if first < 0:
            if tree[node, PROVEN] != UNKNOWN:  # a proven leaf is a finished game
                assert game.outcome_of(state) is not None
            continue
        assert tree[node, TO_ACT] == game.to_act(state)
        children = range(first, first + count)
        assert [int(tree[c, ACTION]) for c in children] == game.legal_actions(state)
        for child in children:
            assert tree[child, PARENT] == node and tree[child, MOVER] == game.to_act(state)
            states[child] = game.apply(state, int(tree[child, ACTION]))
            order.append(child)
    assert len(order) > 1000


SMALL = [
    ("galatjang", {"pits": 3, "seeds": 2}, "2,2,2/2,2,2 0/0 s 1 0"),
    ("galatjang", {"pits": 2, "seeds": 3}, "3,3/3,3 0/0 n 1 0"),
    ("galatjang", {"pits": 3, "skip_origin": True}, "1,0,4/2,1,0 3/7 s 1 5"),
    ("linja", {}, "0,0,0,1,0,0,1,10/11,0,0,0,1,0,0,0 b o 0 10"),
    ("linja", {"ruleset": "extra-turn"}, "0,0,0,1,1,0,0,10/11,0,0,1,0,0,0,0 r o 0 20"),
]


@pytest.mark.parametrize(("game_id", "options", "text"), SMALL)
def test_solver_proves_small_endgames_exactly(
    game_id: str, options: dict[str, Any], text: str
) -> None:
    if game_id not in GAMES:
        pytest.skip(f"no kernel for {game_id}")
    game = boardlab.new_game(game_id, options)
    state = game.from_position_string(text).state
    found = CompiledSearch(game, capacity=200_000).search(state, seed=1, iterations=200_000)
    value, per_action = minimax(game, state)
    assert found.value == value == per_action[found.action]


@pytest.mark.parametrize("game_id", GAMES)
def test_same_seed_same_search(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    one = make_agent("mcts:tree=compiled,iterations=2000", seed=3).choose(game.initial())
    two = make_agent("mcts:tree=compiled,iterations=2000", seed=3).choose(game.initial())
    assert replace(one, seconds=0) == replace(two, seconds=0)
    assert one.action_values == two.action_values
    assert one.iterations == 2000 and one.action in game.initial().legal_actions()


@pytest.mark.parametrize("game_id", GAMES)
def test_minimax_backups_are_the_minimax_of_the_evaluations(game_id: str) -> None:
    """With ``minimax`` a visited leaf holds the kernel's evaluation of its state for the
    player who moved into it, a proven node its proven value, and any other node the
    best of its visited children's values, negated where the player to act changes."""
    game = boardlab.new_game(game_id)
    search = CompiledSearch(game, capacity=20_000, minimax=0.5)
    search.search(game.initial_state(), seed=4, iterations=3000)
    tree, backed, kernel = search.tree, search.backed, search.kernel
    params = kernel.params(game)
    states, order, leaves, inner = {0: game.initial_state()}, [0], 0, 0
    for node in order:
        first, count = int(tree[node, FIRST]), int(tree[node, COUNT])
        proven = int(tree[node, PROVEN])
        if node and proven != UNKNOWN:
            assert backed[node] == proven
        elif first < 0:
            if tree[node, VISITS]:
                encoded = kernel.encode(game, states[node])
                assert backed[node] == kernel.evaluate(encoded, params, int(tree[node, MOVER]))
                leaves += 1
            continue
        children = range(first, first + count)
        for child in children:
            states[child] = game.apply(states[node], int(tree[child, ACTION]))
            order.append(child)
        if proven == UNKNOWN:
            seen = [c for c in children if tree[c, VISITS] or tree[c, PROVEN] != UNKNOWN]
            best = max(backed[c] for c in seen)
            same = tree[node, MOVER] == tree[node, TO_ACT]
            assert backed[node] == (best if same else -best)
            inner += 1
    assert leaves > 100 and inner > 100


def test_minimax_changes_the_search_and_refuses_bad_settings() -> None:
    game = boardlab.new_game(GAMES[0])
    plain = make_agent("mcts:tree=compiled,iterations=3000", seed=3).choose(game.initial())
    backed = make_agent("mcts:tree=compiled,iterations=3000,minimax=0.5", seed=3)
    assert plain.action_values != backed.choose(game.initial()).action_values
    with pytest.raises(boardlab.BoardlabError, match="expected 0 to 1"):
        make_agent("mcts:tree=compiled,minimax=1.5")
    with pytest.raises(boardlab.BoardlabError, match="tree=compiled only"):
        make_agent("mcts:minimax=0.5")


def test_a_million_nodes_fit_in_well_under_a_gigabyte() -> None:
    game = boardlab.new_game(GAMES[0])
    search = CompiledSearch(game, capacity=1_000_000)
    used = search.tree.nbytes + search.total.nbytes
    assert used == 1_000_000 * NODE_BYTES
    assert used < 50 * 2**20


def test_compiled_tree_needs_random_rollouts() -> None:
    with pytest.raises(boardlab.BoardlabError, match="random rollouts only"):
        make_agent("mcts:tree=compiled,rollout=heuristic")
    with pytest.raises(boardlab.BoardlabError, match="bad tree 'bush'"):
        make_agent("mcts:tree=bush")


def test_compiled_search_and_batches_run_as_plain_python_too() -> None:
    """With NUMBA_DISABLE_JIT=1 the same code runs uncompiled and finds the same answers."""
    import os
    import subprocess
    import sys

    code = (
        "import boardlab; from boardlab.fast.mcts import CompiledSearch; "
        "from boardlab.fast.batch import playouts; "
        "g = boardlab.new_game('galatjang', pits=3, seeds=2); s = g.initial_state(); "
        "r = CompiledSearch(g, capacity=5000).search(s, seed=1, iterations=300); "
        "m = CompiledSearch(g, capacity=5000, minimax=0.5).search(s, seed=1, iterations=300); "
        "b = playouts(g, s, 50, seed=2); "
        "print(r.action, r.value, r.iterations, m.children, b.first_wins, b.second_wins, b.actions)"
    )
    outputs = []
    for disable in ("1", "0"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        done = subprocess.run(
            [sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
