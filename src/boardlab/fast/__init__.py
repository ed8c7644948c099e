"""Compiled kernels (numba, nopython mode, cached on disk) over the compact state.

A game that declares a ``kernel`` module (``Game.kernel``) offers in it the same
functions over a flat ``int64`` state array ``s`` and an ``int64`` options array ``p``:

* ``legal(s, p, out) -> int``: the legal actions, in the engine's ints and ascending
  order, written to ``out`` (at least ``MAX_LEGAL`` long); 0 exactly when the game is over;
* ``apply(s, p, action)``: play a legal action in place (automatic steps included);
* ``result(s, p) -> int``: -1 while the game goes on, else 0 or 1 (the winner) or 2 (draw);
* ``to_act(s, p) -> int``: the player to act;
* ``playout(s, p, rng) -> (result, actions)``: uniform-random actions to the end;

and, in plain Python, ``params(game)``, ``encode(game, state)`` and ``decode(game, s)``.
The readable engine stays the source of truth: tests compare the two on every position
they reach, and everything also runs with ``NUMBA_DISABLE_JIT=1``.

Numba is an optional dependency (``pip install 'boardlab[fast]'``), imported only here.
"""
