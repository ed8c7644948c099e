"""Self-check of the reference implementations (run: python tests/reference/selfcheck.py).

1. perft from the default initial positions, depths 1-4, against the C baseline (a
   tuned C program, not part of boardlab: its folder is given with --c-baseline DIR or
   $BOARDLAB_C_BASELINE and built in a temporary directory; without it, the numbers it
   printed when this was written are used).
2. Step-by-step comparison with C `trace` games (default options): every legal-action list,
   the final position string and the outcome.
3. Random games under random option combinations: every game ends, conservation holds,
   position strings round-trip, and legal() == [] exactly when outcome() is not None.

Options: --games N (random games per game, default 2000), --traces N (C traces per game,
default 20), --scan N (C games scanned for rare endings, which are traced too), --seed S.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the project root

from tests.reference import galatjang, jinli, linja  # noqa: E402

GAMES = {"jinli": jinli, "linja": linja, "galatjang": galatjang}
SKIPPED = "C baseline skipped: set BOARDLAB_C_BASELINE or pass --c-baseline DIR"
C_PERFT = {  # printed by the C baseline for the default options
    "jinli": [6, 270, 1620, 70020],
    "linja": [7, 44, 321, 2021],
    "galatjang": [6, 35, 183, 955],
}


def perft(module, options: dict, position: str, depth: int) -> int:
    if depth == 0:
        return 1
    actions = module.legal(options, position)
    if depth == 1:
        return len(actions)
    return sum(
        perft(module, options, module.play(options, position, a), depth - 1) for a in actions
    )


def build_c(source: str | None, work: str) -> str | None:
    """Copy the C baseline's folder `source` into `work` and build it; None (said) if it
    is not given or cannot be built."""
    if not source or not os.path.isdir(source) or shutil.which("make") is None:
        print(SKIPPED)
        return None
    target = os.path.join(work, "c")
    shutil.copytree(source, target)
    for root, _dirs, files in os.walk(target):
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    done = subprocess.run(["make", "-s"], cwd=target, capture_output=True, text=True)
    if done.returncode != 0:
        print("could not build the C baseline:", done.stderr.strip()[:500])
        return None
    return os.path.join(target, "limit")


# ----------------------------------------------------------------------------- 1. perft


def check_perft(limit: str | None) -> bool:
    ok = True
    for name, module in GAMES.items():
        start = module.initial({})
        ours = [perft(module, {}, start, d) for d in range(1, 5)]
        if limit:
            theirs = [
                int(
                    subprocess.run(
                        [limit, name, "perft", str(d)], capture_output=True, text=True, check=True
                    ).stdout
                )
                for d in range(1, 5)
            ]
        else:
            theirs = C_PERFT[name]
        same = ours == theirs
        ok &= same
        print(f"perft {name:9s} ours {ours}  C {theirs}  {'ok' if same else 'MISMATCH'}")
    return ok


# ----------------------------------------------------------------------------- 2. traces


def format_outcome(result) -> str:
    winner, (a, b), reason = result
    return f"winner={winner} points={a}/{b} reason={reason}"


def rare_seeds(limit: str, name: str, scan: int, seed: int, most: int = 20) -> list[int]:
    """Seeds (among `scan` C games) whose ending reason is not the most common one."""
    text = subprocess.run(
        [limit, name, "outcomes", str(seed), str(scan)], capture_output=True, text=True, check=True
    ).stdout
    rows = [(int(line.split()[0]), line.split("reason=")[1]) for line in text.splitlines()]
    counts: dict[str, int] = {}
    for _, reason in rows:
        counts[reason] = counts.get(reason, 0) + 1
    common = max(counts, key=lambda r: counts[r])
    return [s for s, reason in rows if reason != common][:most]


def c_traces(limit: str, name: str, seeds: list[int]) -> str:
    return "".join(
        subprocess.run(
            [limit, name, "trace", str(s)], capture_output=True, text=True, check=True
        ).stdout
        for s in seeds
    )


def check_traces(limit: str | None, count: int, seed: int, scan: int) -> bool:
    if not limit:
        print("traces: skipped (no C baseline)")
        return True
    ok = True
    for name, module in GAMES.items():
        rare = rare_seeds(limit, name, scan, seed + 1_000_000) if scan else []
        text = c_traces(limit, name, list(range(seed, seed + count)) + rare)
        position = module.initial({})
        steps = games = bad = 0
        for line in text.splitlines():
            tag, _, rest = line.partition(" ")
            problem = None
            if tag == "G":
                position = module.initial({})
                games += 1
            elif tag == "L":
                steps += 1
                theirs = sorted(rest.split())
                ours = module.legal({}, position)
                if theirs != ours:
                    problem = f"legal differs at {position}: C {theirs} ours {ours}"
            elif tag == "A":
                position = module.play({}, position, rest)
            elif tag == "F":
                if rest != position:
                    problem = f"final position: C {rest} ours {position}"
            elif tag == "O":
                result = module.outcome({}, position)
                if result is None or format_outcome(result) != rest:
                    problem = f"outcome at {position}: C {rest} ours {result}"
            if problem:
                bad += 1
                if bad <= 5:
                    print(f"  {name}: {problem}")
        ok &= bad == 0
        print(
            f"traces {name:9s} {games} games ({len(rare)} with rare endings), "
            f"{steps} legal lists compared, "
            f"{'ok' if bad == 0 else f'{bad} MISMATCHES'}"
        )
    return ok


# ----------------------------------------------------------------------------- 3. random


def random_options(name: str, rng: random.Random) -> dict:
    if name == "jinli":
        return {
            "start": rng.choice(["corners", "inset"]),
            "first": rng.choice(["red", "yellow"]),
            "target": rng.choice([1, 3, 10, 15, 30, 200]),
            "stones": rng.choice([0, 1, 2, 6, 10, 20, 30]),
            "recycle": rng.random() < 0.5,
            "no_move": rng.choice(["pass", "lose"]),
            "max_turns": rng.choice([1, 2, 10, 50, 300]),
        }
    if name == "linja":
        return {
            "first": rng.choice(["black", "red"]),
            "ruleset": rng.choice(["bonus", "extra-turn"]),
            "bonus_after_opening": rng.random() < 0.5,
            "goal_step_back": rng.random() < 0.5,
            "nasty": rng.random() < 0.5,
            "scoring": rng.choice(["signed", "positive"]),
            "max_turns": rng.choice([1, 2, 10, 100, 1000]),
        }
    return {
        "pits": rng.choice([1, 2, 3, 4, 6, 7, 9]),
        "seeds": rng.choice([1, 2, 3, 4, 6, 7]),
        "first": rng.choice(["south", "north"]),
        "sow_opponent_store": rng.random() < 0.5,
        "skip_origin": rng.random() < 0.5,
        "lone_seed": rng.choice(["store", "stay"]),
        "max_turns": rng.choice([1, 2, 10, 50, 500]),
        "rounds": rng.choice([1, 1, 2, 3, 5]),
        "refill": rng.choice(["store_end", "far_end"]),
        "round_starter": rng.choice(["winner", "loser", "alternate"]),
    }


def conserved(name: str, options: dict, position: str) -> bool:
    opts = {**GAMES[name].DEFAULTS, **options}
    if name == "jinli":
        pos = jinli.parse(position)
        koi = list(pos["board"].values())
        stones = koi.count("o") + pos["stones"]["r"] + pos["stones"]["y"]
        return (
            koi.count("R") == 2
            and koi.count("Y") == 2
            and stones == 2 * opts["stones"]
            and min(pos["stones"].values()) >= 0
        )
    if name == "linja":
        pos = linja.parse(position)
        return sum(pos["counts"]["b"]) == 12 and sum(pos["counts"]["r"]) == 12
    pos = galatjang.parse(position)
    return galatjang._total(pos) == 2 * opts["pits"] * opts["seeds"]


def max_actions(name: str, options: dict) -> int:
    opts = {**GAMES[name].DEFAULTS, **options}
    if name == "jinli":
        return 3 * opts["max_turns"] + 5  # move + drop + give per turn
    if name == "linja":
        return 6 * opts["max_turns"] + 5  # at most opening, follow-up, opening, follow-up
    return 10**9  # galatjang: sowings per turn are not bounded by a constant; checked below


def check_random(games_per_game: int, seed: int) -> bool:
    rng = random.Random(seed)
    ok = True
    for name, module in GAMES.items():
        reasons: dict[str, int] = {}
        bad = 0
        total_actions = 0
        for _ in range(games_per_game):
            options = random_options(name, rng)
            position = module.initial(options)
            actions = 0
            problem = None
            while True:
                if module.format_position(module.parse(position)) != position:
                    problem = f"round trip fails for {position}"
                    break
                if not conserved(name, options, position):
                    problem = f"conservation fails at {position}"
                    break
                legal = module.legal(options, position)
                result = module.outcome(options, position)
                if (result is None) == (not legal):
                    problem = f"legal {legal} but outcome {result} at {position}"
                    break
                if result is not None:
                    reasons[result[2]] = reasons.get(result[2], 0) + 1
                    break
                if len(set(legal)) != len(legal) or legal != sorted(legal):
                    problem = f"legal list not sorted/distinct at {position}"
                    break
                position = module.play(options, position, rng.choice(legal))
                actions += 1
                if actions > max_actions(name, options) or actions > 200_000:
                    problem = f"game does not end ({actions} actions) at {position}"
                    break
            total_actions += actions
            if problem:
                bad += 1
                if bad <= 5:
                    print(f"  {name} {options}: {problem}")
        ok &= bad == 0
        print(
            f"random {name:9s} {games_per_game} games, {total_actions} actions, "
            f"endings {dict(sorted(reasons.items()))}  {'ok' if bad == 0 else f'{bad} BAD'}"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--traces", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--scan",
        type=int,
        default=100_000,
        help="C games scanned for rare endings to trace (0: none)",
    )
    parser.add_argument(
        "--c-baseline",
        metavar="DIR",
        default=os.environ.get("BOARDLAB_C_BASELINE"),
        help="the C baseline's folder (default: $BOARDLAB_C_BASELINE)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ref-c-") as work:
        limit = build_c(args.c_baseline, work)
        ok = check_perft(limit)
        ok &= check_traces(limit, args.traces, args.seed, args.scan)
    ok &= check_random(args.games, args.seed)
    print("ALL OK" if ok else "FAILURES")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
