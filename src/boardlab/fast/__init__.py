"""Compiled kernels (numba, nopython mode, cached on disk) over the compact state.

A game that declares a ``kernel`` module (``Game.kernel``) offers in it the same
functions over a flat ``int64`` state array ``s`` and an ``int64`` options array ``p``:

* ``legal(s, p, out) -> int``: the legal actions, in the engine's ints and ascending
  order, written to ``out`` (at least ``MAX_LEGAL`` long); 0 exactly when the game is over;
* ``moves(s, p, out) -> int``: ``legal`` of a position whose ``result`` is -1, for callers
  that have just asked ``result`` (the check is not made twice);
* ``apply(s, p, action)``: play a legal action in place (automatic steps included);
* ``result(s, p) -> int``: -1 while the game goes on, else 0 or 1 (the winner) or 2 (draw);
* ``to_act(s, p) -> int``: the player to act;
* ``playout(s, p, rng) -> (result, actions)``: uniform-random actions to the end;
* ``observe(s, p, player, out)``: ``Game.observation(state, player)`` written to ``out``
  (a float array as long as the observation), for the batched environment;

and, in plain Python, ``params(game)``, ``encode(game, state)`` and ``decode(game, s)``.
The readable engine stays the source of truth: tests compare the two on every position
they reach, and everything also runs with ``NUMBA_DISABLE_JIT=1``.

Numba is an optional dependency (``pip install 'boardlab[fast]'``), imported only here.
"""

from __future__ import annotations

from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.core.perft import Counter
from boardlab.core.perft import perft as python_perft  # boardlab.fast.perft is a module
from boardlab.extras import has, import_extra


def perft_counter(game: Game[Any], depth: int, engine: str = "auto") -> Counter:
    """The perft to count ``depth`` actions of ``game`` with: ``python`` (the rules, with
    a transposition cache), ``compiled`` (the game's kernel), or ``auto``: compiled from
    the depth where it pays for its compile time (``Game.compiled_perft_from``), when
    numba is installed and the game has a kernel."""
    compiled = engine == "compiled" or (
        engine == "auto"
        and depth >= game.compiled_perft_from
        and game.kernel is not None
        and has("fast")
    )
    if not compiled:
        return python_perft
    if game.kernel is None:
        raise BoardlabError(
            _("{game} has no compiled kernel: use --engine python").format(game=game.name)
        )
    compiled_perft = import_extra("boardlab.fast.perft", "--engine compiled").compiled_perft

    def count(position: Position[Any], d: int) -> int:
        return int(compiled_perft(position.game, position.state, d))

    return count
