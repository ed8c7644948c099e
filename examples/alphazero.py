"""AlphaZero-style training of a small network for any boardlab game, on the CPU.

    pip install -e '.[rl]' torch==2.13.0
    python examples/alphazero.py --game galatjang --minutes 30 --out galatjang-az.npz
    boardlab match galatjang az:weights=galatjang-az.npz easy --games 200 --jobs 2

Self-play: ``--games`` games at once in the batched environment, which steps them all in
one compiled call, gives the observations and masks that are learnt from and starts each
game that ends again in place; an iteration lasts until ``--games`` games have ended.
Each move is chosen by a PUCT search (``boardlab.ai.az.Search``, the one the ``az`` agent
plays with) of ``--sims`` simulations, and the leaves of all the games' searches are
evaluated by the network in one batch. The root's priors get Dirichlet noise, and the
first ``--sample-moves`` moves of a game are drawn in proportion to the visits, the later
ones are the most visited.
Training: the network (a multilayer perceptron over ``Game.observation``, a policy
head over the game's actions, a tanh value head) learns the visit distributions and
the results, from the side of the player to act, from the most recent positions.
With ``--exact`` a game's solver labels the positions it reaches instead (a table of
the whole game, or endgames): the policy target is its best actions in equal shares and the
value its result under perfect play, so self-play only chooses the positions learnt.

After every iteration the weights are written atomically to ``--out`` (numpy, what
``az:weights=FILE`` reads) and a checkpoint beside it (``.pt``: the network, the
optimiser, the positions kept for learning) that ``--resume`` continues from; a line of
JSON per iteration goes to ``--out`` with ``.log``. Training stops after ``--minutes``
or, if given, ``--iterations`` (which, seeded and with ``--threads 1``, gives the same
weights on the same machine: ``tests/test_az.py`` trains a small Galatjang that way).
``--keep N`` also keeps every N-th iteration's weights, whose strength
``benchmarks/learning_curve.py`` measures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch

import boardlab
from boardlab.ai.az import Search, kept_path, save_weights
from boardlab.core.errors import BoardlabError
from boardlab.solve import exact_values, solver_class_or_none


class Net(torch.nn.Module):  # type: ignore[misc]
    """Observation in; policy logits over the action space and a value in (-1, 1) out."""

    def __init__(self, inputs: int, actions: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        layers: list[torch.nn.Module] = []
        size = inputs
        for width in hidden:
            layers += [torch.nn.Linear(size, width), torch.nn.ReLU()]
            size = width
        self.body = torch.nn.Sequential(*layers)
        self.policy = torch.nn.Linear(size, actions)
        self.value = torch.nn.Linear(size, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.policy(h), torch.tanh(self.value(h)).squeeze(-1)


def export(net: Net, game: Any, path: Path) -> None:
    """The weights as the ``az`` agent reads them."""

    def pair(layer: torch.nn.Linear) -> tuple[Any, Any]:
        return layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()

    linears = [m for m in net.body if isinstance(m, torch.nn.Linear)]
    save_weights(path, game, [pair(m) for m in linears], pair(net.policy), pair(net.value))


class SelfPlay:
    """Games of self-play that go on from one iteration to the next in the batched
    environment (``boardlab.fast.vector.Batch``): it plays every game's move in one
    compiled step, gives the observations and legal masks the network learns from, the
    rewards when a game ends, and starts that game again in place. Beside each row an
    engine position is kept for the search's tree."""

    def __init__(self, game: Any, n: int, seed: int) -> None:
        from boardlab.fast.vector import Batch

        self.game = game
        self.batch = Batch(game, n, seed=seed)
        self.positions = [game.initial() for _ in range(n)]
        #: Each game's positions so far: observation, legal mask, policy target, the
        #: player to act and the solver's result for them (None where it does not reach).
        self.history: list[list[tuple[Any, Any, Any, int, float | None]]] = [[] for _ in range(n)]

    def play(self, net: Net, args: Any, rng: random.Random) -> list[tuple[Any, ...]]:
        """Moves in every game until ``args.games`` games have ended; their positions
        as (observation, legal mask, visit distribution, result for the player to act)."""
        samples: list[tuple[Any, ...]] = []
        ended = 0
        while ended < args.games:
            actions = self.search(net, args, rng)
            self.batch.step(actions)
            for i, action in enumerate(actions):
                if self.batch.ended[i]:
                    rewards = self.batch.rewards[i]
                    samples += [
                        (o, m, t, float(rewards[p]) if exact is None else exact)
                        for o, m, t, p, exact in self.history[i]
                    ]
                    self.history[i] = []
                    self.positions[i] = self.game.initial()
                    ended += 1
                else:
                    self.positions[i] = self.positions[i].play(int(action))
        return samples

    def search(self, net: Net, args: Any, rng: random.Random) -> np.ndarray:
        """A move for every game, chosen by PUCT searches whose leaves the network
        evaluates together; each game's position joins its history."""
        game, batch = self.game, self.batch
        searches = [Search(position, args.c_puct) for position in self.positions]
        for simulation in range(args.sims + 1):  # the first expands the roots
            paths = [search.leaf() for search in searches]
            leaves = [
                search.leaf_node(path).state for search, path in zip(searches, paths, strict=True)
            ]
            observations = np.array([game.observation(state) for state in leaves], np.float32)
            with torch.no_grad():
                logits, values = net(torch.from_numpy(observations))
            for k, search in enumerate(searches):
                search.expand(paths[k], logits[k].numpy(), float(values[k]))
                if simulation == 0:
                    search.add_noise(rng, args.alpha, 0.25)
        actions = np.zeros(batch.n, np.int64)
        for i, search in enumerate(searches):
            assert self.positions[i].to_act == batch.to_act[i], "the batch and the engine agree"
            policy = search.policy()
            target, exact = self.label(policy, args.exact, i)
            mask = batch.masks[i].astype(np.bool_)
            self.history[i].append(
                (batch.observations[i].copy(), mask, target, int(batch.to_act[i]), exact)
            )
            moves, shares = zip(*policy.items(), strict=True)
            if len(self.history[i]) <= args.sample_moves:
                actions[i] = rng.choices(moves, weights=shares)[0]
            else:
                actions[i] = max(moves, key=lambda a: policy[a])
        return actions

    def label(self, policy: dict[int, float], exact: bool, i: int) -> tuple[Any, float | None]:
        """Game ``i``'s policy target and, with ``exact`` where the game's solver reaches,
        its result under perfect play: the solver's best actions in equal shares, not the
        search's visits, and the result it proves, not the one this game reaches."""
        target = np.zeros(self.game.num_actions, np.float32)
        values = exact_values(self.game, self.positions[i].state) if exact else None
        if not values:
            for action, share in policy.items():
                target[action] = share
            return target, None
        best = max(values.values())
        optimal = [action for action, value in values.items() if value == best]
        target[optimal] = 1.0 / len(optimal)
        return target, float((best > 0) - (best < 0))


def packed(buffer: deque[tuple[Any, ...]]) -> dict[str, np.ndarray]:
    """The positions kept, for the checkpoint, so that a resumed run learns from the same
    positions as one never stopped: the legal masks as bits and the policy targets by
    their nonzero shares (a few of the actions), which keeps a full buffer of Jin Li's
    883 actions to tens of megabytes."""
    targets = np.stack([d[2] for d in buffer])
    rows, columns = np.nonzero(targets)
    return {
        "observations": np.stack([d[0] for d in buffer]),
        "masks": np.packbits(np.stack([d[1] for d in buffer]), axis=1),
        "target_rows": rows.astype(np.int32),
        "target_columns": columns.astype(np.int32),
        "target_shares": targets[rows, columns],
        "results": np.array([d[3] for d in buffer], dtype=np.float32),
    }


def unpacked(arrays: dict[str, np.ndarray] | None, actions: int) -> list[tuple[Any, ...]]:
    """The positions of a checkpoint's ``packed`` buffer (none from an older checkpoint)."""
    if arrays is None:
        return []
    masks = np.unpackbits(arrays["masks"], axis=1, count=actions).astype(np.bool_)
    targets = np.zeros((len(masks), actions), np.float32)
    targets[arrays["target_rows"], arrays["target_columns"]] = arrays["target_shares"]
    columns = (arrays["observations"], masks, targets, arrays["results"])
    return [(o, m, t, float(r)) for o, m, t, r in zip(*columns, strict=True)]


def train(net: Net, optimiser: Any, buffer: deque[tuple[Any, ...]], args: Any) -> float:
    """``args.epochs`` passes over the buffer; the mean loss of the last."""
    data = list(buffer)
    observations = torch.from_numpy(np.stack([d[0] for d in data]))
    masks = torch.from_numpy(np.stack([d[1] for d in data]))
    targets = torch.from_numpy(np.stack([d[2] for d in data]))
    results = torch.tensor([d[3] for d in data], dtype=torch.float32)
    mean = 0.0
    for _ in range(args.epochs):
        order = torch.randperm(len(data))
        losses = []
        for start in range(0, len(data), args.batch):
            pick = order[start : start + args.batch]
            logits, values = net(observations[pick])
            logits = logits.masked_fill(~masks[pick], -1e9)
            policy_loss = -(targets[pick] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            value_loss = torch.nn.functional.mse_loss(values, results[pick])
            loss = policy_loss + value_loss
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
        mean = sum(losses) / len(losses)
    return mean


def main() -> None:
    parser = argparse.ArgumentParser(description="AlphaZero-style training for a boardlab game")
    parser.add_argument("--game", default="galatjang")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--out", type=Path, required=True, help="the weights file (.npz)")
    parser.add_argument("--minutes", type=float, default=30.0, help="training time in all")
    parser.add_argument(
        "--iterations",
        type=int,
        help="stop after this many iterations in all (seeded: the same weights)",
    )
    parser.add_argument("--games", type=int, default=64, help="self-play games at once")
    parser.add_argument("--sims", type=int, default=64, help="simulations a move")
    parser.add_argument("--hidden", default="128,128", help="hidden layer widths")
    parser.add_argument("--buffer", type=int, default=40_000, help="positions kept")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--c-puct", type=float, default=1.5)
    parser.add_argument("--alpha", type=float, default=0.5, help="Dirichlet noise")
    parser.add_argument("--sample-moves", type=int, default=8)
    parser.add_argument(
        "--exact",
        action="store_true",
        help="learn the game's exact solver where it reaches: its best actions and results",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--threads", type=int, help="PyTorch's threads (default: every core; 1 gives the same sums)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument(
        "--keep",
        type=int,
        metavar="N",
        help="also keep the weights of every N-th iteration beside --out, for a learning curve",
    )
    args = parser.parse_args()

    if args.keep is not None and args.keep < 1:
        parser.error(f"--keep {args.keep}: expected a number of iterations, 1 or more")
    bad = [item for item in args.option if "=" not in item]
    if bad:
        parser.error(f"-o {bad[0]!r}: expected NAME=VALUE, like -o pits=3")
    try:
        game = boardlab.new_game(args.game, dict(item.split("=", 1) for item in args.option))
    except BoardlabError as error:
        parser.error(str(error))
    solver = solver_class_or_none(game)
    if args.exact and (solver is None or (solver.needs_table and not solver.table_exists(game))):
        parser.error(
            f"--exact: {args.game} has no exact values here"
            + (f" (build its table: boardlab solve {args.game})" if solver else " (no solver)")
        )
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads or max(1, os.cpu_count() or 1))
    rng = random.Random(args.seed)
    size = len(game.observation(game.initial_state()))
    hidden = tuple(int(w) for w in args.hidden.split(","))
    net = Net(size, game.num_actions, hidden)
    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-4)
    checkpoint = args.out.with_suffix(".pt")
    log = args.out.with_suffix(".log")
    iteration, spent = 0, 0.0
    buffer: deque[tuple[Any, ...]] = deque(maxlen=args.buffer)
    if args.resume and checkpoint.exists():
        saved = torch.load(checkpoint, weights_only=False)
        net.load_state_dict(saved["net"])
        optimiser.load_state_dict(saved["optimiser"])
        iteration, spent = saved["iteration"], saved["seconds"]
        rng.setstate(saved["rng"])
        buffer.extend(unpacked(saved.get("buffer"), game.num_actions))
        print(f"resumed at iteration {iteration}, {spent / 60:.1f} minutes in")
    games = SelfPlay(game, args.games, args.seed + iteration)
    while spent < args.minutes * 60 and (args.iterations is None or iteration < args.iterations):
        began = time.perf_counter()
        net.eval()
        samples = games.play(net, args, rng)
        played = time.perf_counter() - began
        buffer.extend(samples)
        net.train()
        loss = train(net, optimiser, buffer, args)
        spent += time.perf_counter() - began
        iteration += 1
        export(net, game, args.out)
        if args.keep and iteration % args.keep == 0:
            export(net, game, kept_path(args.out, iteration))
        temporary = checkpoint.with_name(checkpoint.name + ".tmp")
        state = {
            "net": net.state_dict(),
            "optimiser": optimiser.state_dict(),
            "iteration": iteration,
            "seconds": spent,
            "rng": rng.getstate(),
            "buffer": packed(buffer),
        }
        torch.save(state, temporary)
        os.replace(temporary, checkpoint)
        entry = {
            "iteration": iteration,
            "minutes": round(spent / 60, 2),
            "positions": len(samples),
            "buffer": len(buffer),
            "loss": round(loss, 4),
            "self_play_s": round(played, 1),
        }
        with log.open("a") as stream:
            stream.write(json.dumps(entry) + "\n")
        print(json.dumps(entry), flush=True)


if __name__ == "__main__":
    main()
