"""Where a step of the batched environment spends its time.

The step of ``boardlab.fast.vector`` is measured whole, then without writing the
legal-action mask, without the observation, and without both, at batch 1024 on one
thread: nanoseconds a game, the draw of the random action included, the check of the
actions left out (a step without masks could not pass it). The variants are
``vector.py`` with those lines left out, written to a temporary folder and compiled as
the real step is (``boardlab.fast.specialise``); their games play the same moves, only
what they write differs. Each figure is the best of ``WINDOWS`` windows.

Writes benchmarks/results/vector_parts.md.

    python benchmarks/vector_parts.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

from vector import WINDOWS, best_rate  # benchmarks/vector.py, beside this script

import boardlab
from boardlab.fast import vector
from boardlab.fast.batch import kernel_for
from boardlab.fast.specialise import specialised

RESULTS = Path(__file__).resolve().parent / "results"
BATCH = 1024
#: The lines each part is written by, in ``_play_rows``.
PARTS = {
    "mask": (
        "        for action in range(masks.shape[1]):\n            masks[i, action] = 0\n",
        "        for k in range(count):\n"
        "            mask[uint64(legal[k])] = 1  # unsigned: no wraparound test\n",
    ),
    "observation": ("        observe(s, options, player, row(obs, i))\n",),
}
VARIANTS = {
    "the whole step": (),
    "without the mask": ("mask",),
    "without the observation": ("observation",),
    "without both": ("mask", "observation"),
}


def variant_module(folder: Path, left_out: tuple[str, ...]) -> object:
    """``boardlab.fast.vector`` without the lines of the parts ``left_out``."""
    source = Path(vector.__file__).read_text(encoding="utf-8")
    for part in left_out:
        for lines in PARTS[part]:
            if lines not in source:
                raise SystemExit(f"vector.py no longer has these lines of the {part}:\n{lines}")
            source = source.replace(lines, "")
    name = "_vector_without_" + "_".join(left_out or ("nothing",))
    (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return importlib.import_module(name)


def nanoseconds_a_game(game_id: str, module: object, seconds: float) -> float:
    batch = vector.Batch(boardlab.new_game(game_id), BATCH, seed=1, threads=1)
    batch._step = specialised(
        module._step_rows,  # type: ignore[attr-defined]
        kernel_for(batch.game).__name__,
        vector.KERNEL_FUNCTIONS,
        inline=True,
        helpers=(module._play_rows,),  # type: ignore[attr-defined]
    )
    batch.reset()
    batch._run(batch.random_actions())  # compile (or load from the cache)
    return 1e9 / best_rate(lambda: batch._run(batch.random_actions()), BATCH, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="for each figure")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error(f"--seconds {args.seconds:g}: give a positive number of seconds")
    games = boardlab.game_ids()
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        sys.path.insert(0, folder)
        for label, left_out in VARIANTS.items():
            module = variant_module(Path(folder), left_out)
            table[label] = {g: nanoseconds_a_game(g, module, args.seconds) for g in games}
            print(label, {g: round(ns, 1) for g, ns in table[label].items()}, flush=True)
    lines = [
        "# Where a step of the batched environment spends its time",
        "",
        f"`python benchmarks/vector_parts.py --seconds {args.seconds:g}`: nanoseconds a game "
        f"at batch {BATCH} on one thread, the draw of the random action included, the "
        f"check of the actions left out; each figure the best of {WINDOWS} windows.",
        "",
        "| | " + " | ".join(games) + " |",
        "|---|" + "---:|" * len(games),
        *(
            f"| {label} | " + " | ".join(f"{row[g]:.0f}" for g in games) + " |"
            for label, row in table.items()
        ),
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "vector_parts.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
