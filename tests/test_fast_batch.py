"""Batched compiled playouts: complete counts, reproducible, parallel streams agree in
distribution with the single stream, and the same games as a plain loop of playouts."""

from __future__ import annotations

import boardlab
from boardlab.fast import rng
from boardlab.fast.batch import kernel_for, playouts


def test_batch_counts_every_playout_and_repeats_with_its_seed() -> None:
    game = boardlab.new_game("linja")
    first = playouts(game, game.initial_state(), 500, seed=3)
    assert first == playouts(game, game.initial_state(), 500, seed=3)
    assert first.first_wins + first.second_wins + first.draws == first.playouts == 500
    assert first.actions > 500 and first.actions_squared >= first.actions


def test_batch_plays_the_same_games_as_single_playouts() -> None:
    game = boardlab.new_game("linja", ruleset="extra-turn")
    kernel = kernel_for(game)
    start, p, g = kernel.encode(game, game.initial_state()), kernel.params(game), rng.seeded(9)
    results = [kernel.playout(start.copy(), p, g) for _ in range(50)]
    stats = playouts(game, game.initial_state(), 50, seed=9)
    assert stats.first_wins == sum(r == 0 for r, _ in results)
    assert stats.draws == sum(r == 2 for r, _ in results)
    assert stats.actions == sum(n for _, n in results)


def test_parallel_streams_cover_the_count_and_agree_in_distribution() -> None:
    game = boardlab.new_game("linja")
    single = playouts(game, game.initial_state(), 4000, seed=1)
    split = playouts(game, game.initial_state(), 4001, seed=1, threads=3)
    assert split.playouts == split.first_wins + split.second_wins + split.draws == 4001
    assert abs(single.mean_actions - split.mean_actions) < 2.0
    assert abs(single.value(0) - split.value(0)) < 0.1
