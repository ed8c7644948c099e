"""An AlphaZero-style player: a small network's policy and value guiding a PUCT search.

``az:weights=FILE`` plays with a network trained by ``examples/alphazero.py``. The file
is a numpy ``.npz``: the layers ``w0, b0, w1, b1, ...`` of a multilayer perceptron with
ReLU over the game's observation (``Game.observation``), a policy head ``policy_w,
policy_b`` (one logit per action of the game's action space) and a value head
``value_w, value_b`` (tanh: the expected result for the player to act), and ``meta``, a
JSON text naming the game and its options. Inference is numpy alone, so the agent needs
no deep-learning library; training does (PyTorch).

``Search`` is the one PUCT tree, used by the agent and by the trainer's self-play (which
evaluates the leaves of many searches in one batch): ``leaf()`` walks down to a position
to evaluate, ``expand(leaf, logits, value)`` takes the network's answer and backs it up.
A turn of several actions is handled by comparing who acts: a value is negated only
where the player to act changes.

Settings: ``weights`` (required), ``iterations`` (simulations per action, default 200),
``c_puct`` (exploration, default 1.5).
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any, ClassVar

from boardlab.ai.base import (
    Agent,
    Choice,
    Clock,
    Limit,
    collector_paused,
    require_playable,
    with_time,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.extras import import_extra

DEFAULT_ITERATIONS = 200


def kept_path(out: Path, iteration: int) -> Path:
    """Where a training keeps the weights of ``iteration`` for a learning curve: beside
    its weights ``out``, the iteration in the name (``net.npz``: ``net-0040.npz``)."""
    return out.with_name(f"{out.stem}-{iteration:04d}{out.suffix}")


def kept_weights(out: Path) -> dict[int, Path]:
    """The weights a training kept beside ``out`` (``kept_path``), by iteration."""
    pattern = re.compile(re.escape(out.stem) + r"-(\d{4,})" + re.escape(out.suffix))
    found = {}
    for path in out.parent.iterdir():
        match = pattern.fullmatch(path.name)
        if match:
            found[int(match.group(1))] = path
    return dict(sorted(found.items()))


def save_weights(
    path: str | Path,
    game: Game[Any],
    layers: list[tuple[Any, Any]],
    policy: tuple[Any, Any],
    value: tuple[Any, Any],
) -> None:
    """Write a weights file (atomically): ``layers`` as (inputs x outputs matrix, bias)
    pairs, then the policy and value heads, for ``game`` under its options."""
    np = import_extra("numpy", _("agent 'az'"))
    arrays: dict[str, Any] = {}
    for k, (w, b) in enumerate(layers):
        arrays[f"w{k}"], arrays[f"b{k}"] = w, b
    arrays["policy_w"], arrays["policy_b"] = policy
    arrays["value_w"], arrays["value_b"] = value
    meta = {"game": game.id, "options": game.option_assignments()}
    arrays["meta"] = np.array(json.dumps(meta))
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp.npz")
    np.savez(temporary, **arrays)
    temporary.replace(target)


class Network:
    """The numpy forward pass of a weights file."""

    def __init__(self, path: str | Path) -> None:
        np = import_extra("numpy", _("agent 'az'"))
        self.np = np
        try:
            # numpy leaks the file of a broken zip when given a path: it gets the stream
            with open(path, "rb") as stream, np.load(stream, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except OSError as error:
            why = error.strerror or str(error)
            raise BoardlabError(
                _("agent 'az': cannot read weights {path!r}: {why}").format(path=str(path), why=why)
            ) from None
        except Exception:  # numpy's loaders raise many kinds for a file of another format
            raise BoardlabError(
                _(
                    "agent 'az': {path!r} is not a weights file (.npz) of examples/alphazero.py"
                ).format(path=str(path))
            ) from None
        try:
            self.meta: dict[str, Any] = json.loads(str(arrays.pop("meta")))
            count = sum(1 for name in arrays if name.startswith("w"))
            self.layers = [(arrays[f"w{k}"], arrays[f"b{k}"]) for k in range(count)]
            self.policy = (arrays["policy_w"], arrays["policy_b"])
            self.value = (arrays["value_w"], arrays["value_b"])
        except (KeyError, ValueError) as error:
            raise BoardlabError(
                _(
                    "agent 'az': {path!r} is not a weights file of examples/alphazero.py ({error})"
                ).format(path=str(path), error=error)
            ) from None
        self.inputs = int(self.layers[0][0].shape[0]) if self.layers else 0
        self.actions = int(self.policy[0].shape[1])

    def check(self, game: Game[Any]) -> None:
        size = len(game.observation(game.initial_state()))
        if self.meta.get("game") != game.id or (self.inputs, self.actions) != (
            size,
            game.num_actions,
        ):
            raise BoardlabError(
                _(
                    "agent 'az': the weights are for {weights_game!r} with {inputs} inputs and "
                    "{actions} actions, not {game!r} with {size} and {num_actions}"
                ).format(
                    weights_game=self.meta.get("game"),
                    inputs=self.inputs,
                    actions=self.actions,
                    game=game.id,
                    size=size,
                    num_actions=game.num_actions,
                )
            )

    def __call__(self, observations: Any) -> tuple[Any, Any]:
        """Policy logits (batch x actions) and values (batch) of a batch of observations."""
        np = self.np
        x = np.asarray(observations, np.float32)
        for w, b in self.layers:
            x = np.maximum(x @ w + b, 0.0)
        logits = x @ self.policy[0] + self.policy[1]
        values = np.tanh(x @ self.value[0] + self.value[1])[:, 0]
        return logits, values


class Node:
    """A position in the tree: visits and value sums per child action, priors once
    expanded."""

    __slots__ = ("children", "outcome", "player", "priors", "state", "total", "visits")

    def __init__(self, game: Game[Any], state: Any) -> None:
        self.state = state
        self.player = game.to_act(state)
        outcome = game.outcome_of(state)
        #: the result for ``player`` if the game is over here (1, 0, -1), else None
        self.outcome = None if outcome is None else 2.0 * outcome.score(self.player) - 1.0
        self.priors: dict[int, float] = {}
        self.children: dict[int, Node] = {}
        self.visits: dict[int, int] = {}
        self.total: dict[int, float] = {}  # value sums for ``player``


class Search:
    """One PUCT search from ``position`` (see the module's text)."""

    def __init__(self, position: Position[Any], c_puct: float = 1.5) -> None:
        self.game = position.game
        self.root = Node(self.game, position.state)
        self.c_puct = c_puct

    def leaf(self) -> list[tuple[Node, int]]:
        """The path (node, action) from the root to a node not yet expanded; its last
        element's child is the leaf (the root alone: a path with action -1)."""
        node, path = self.root, []
        if not node.priors:
            return [(node, -1)]
        while True:
            action = self._select(node)
            path.append((node, action))
            child = node.children.get(action)
            if child is None:
                child = Node(self.game, self.game.apply(node.state, action))
                node.children[action] = child
            if child.outcome is not None or not child.priors:
                return path
            node = child

    def leaf_node(self, path: list[tuple[Node, int]]) -> Node:
        node, action = path[-1]
        return node if action < 0 else node.children[action]

    def expand(self, path: list[tuple[Node, int]], logits: Any, value: float) -> None:
        """Give the leaf its priors (softmax of ``logits`` over its legal actions) and
        back ``value`` (for the leaf's player to act) up the path; a finished leaf
        backs up its result instead."""
        leaf = self.leaf_node(path)
        if leaf.outcome is not None:
            value = leaf.outcome
        elif not leaf.priors:
            legal = self.game.legal_actions(leaf.state)
            top = max(float(logits[a]) for a in legal)
            weights = {a: math.exp(float(logits[a]) - top) for a in legal}
            norm = sum(weights.values())
            leaf.priors = {a: w / norm for a, w in weights.items()}
        player = leaf.player
        for node, action in reversed(path):
            if action < 0:
                continue
            seen = value if node.player == player else -value
            node.visits[action] = node.visits.get(action, 0) + 1
            node.total[action] = node.total.get(action, 0.0) + seen

    def add_noise(self, rng: random.Random, alpha: float, share: float) -> None:
        """Dirichlet noise on the root's priors, for exploration in self-play."""
        noise = {a: rng.gammavariate(alpha, 1.0) for a in self.root.priors}
        norm = sum(noise.values()) or 1.0
        for a, prior in self.root.priors.items():
            self.root.priors[a] = (1 - share) * prior + share * noise[a] / norm

    def policy(self) -> dict[int, float]:
        """The root's visit counts as a distribution over its actions."""
        total = sum(self.root.visits.values()) or 1
        return {a: self.root.visits.get(a, 0) / total for a in self.root.priors}

    def _select(self, node: Node) -> int:
        parent = math.sqrt(sum(node.visits.values()) + 1)
        best, choice = -math.inf, -1
        for action, prior in node.priors.items():
            visits = node.visits.get(action, 0)
            mean = node.total[action] / visits if visits else 0.0
            score = mean + self.c_puct * prior * parent / (1 + visits)
            if score > best:
                best, choice = score, action
        return choice


class AzAgent(Agent):
    """Plays the most visited action of a network-guided search (see the module's text)."""

    kind = "az"
    params: ClassVar[dict[str, type]] = {"weights": str, "c_puct": float}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self._network: Network | None = None

    def network(self) -> Network:
        if "weights" not in self.settings:
            raise BoardlabError(_("agent 'az' needs weights=FILE, like az:weights=trained.npz"))
        if self._network is None:
            self._network = Network(str(self.settings["weights"]))
        return self._network

    def check(self, game: Game[Any]) -> None:
        self.network().check(game)

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        actions = require_playable(position)
        network = self.network()
        network.check(position.game)
        budget = self.limit_for(limit)
        iterations = budget.iterations or (None if budget.time else DEFAULT_ITERATIONS)
        clock = Clock(budget.time)
        search = Search(position, float(self.settings.get("c_puct", 1.5)))
        done = 0
        with collector_paused():
            while (iterations is None or done < iterations) and not clock.now_expired():
                path = search.leaf()
                leaf = search.leaf_node(path)
                logits, values = network([position.game.observation(leaf.state)])
                search.expand(path, logits[0], float(values[0]))
                done += 1
        root = search.root
        best = max(actions, key=lambda a: (root.visits.get(a, 0), root.priors.get(a, 0.0)))
        visits = root.visits.get(best, 0)
        return with_time(
            Choice(
                action=best,
                value=root.total[best] / visits if visits else None,
                pv=(best,),
                iterations=done,
                action_values=tuple(
                    (a, root.total[a] / n, n) for a, n in sorted(root.visits.items()) if n
                ),
            ),
            clock,
        )
