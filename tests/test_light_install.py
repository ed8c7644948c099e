"""A light install (``pip install boardlab``: no numba, numpy or OpenSpiel) runs every
command, or says in one line which extra it needs and exits non-zero: never a traceback.

The light install is a virtual environment built once per session (shared by the
xdist workers) from this checkout with its plain dependencies only; its ``boardlab``
runs each command line of ``CASES``. The full install (this interpreter, every extra)
runs the same table, where what needs an extra works.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest

from boardlab import extras
from boardlab.core.errors import BoardlabError
from optional import need

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL = (
    "numba", "numpy", "llvmlite", "pyspiel", "fastapi", "sqlalchemy", "uvicorn", "matplotlib",
    "ray",
)  # fmt: skip
TIMEOUT = 120  # seconds a command may take (they take one or two)


@dataclass(frozen=True)
class Case:
    """A command line and what each install gives: ``ok`` (exit 0), ``error`` (one line
    on stderr, non-zero exit) or an extra's name (the same, the line naming
    ``boardlab[extra]``); ``full=None`` skips the full install (too long there)."""

    line: str
    light: str
    full: str | None = "ok"
    stdin: str = ""

    @property
    def args(self) -> list[str]:
        return self.line.split()


TINY = "-o pits=3 -o seeds=2"  # a Galatjang of a few moves
CASES = [
    # games, help, nonsense
    Case("games", "ok"),
    Case("--help", "ok"),
    Case("", "error", "error"),
    Case("frobnicate", "error", "error"),
    Case("games --frob", "error", "error"),
    # rules, show
    Case("rules linja", "ok"),
    Case("rules chess", "error", "error"),
    Case(f"show galatjang {TINY}", "ok"),
    Case("show jinli -o stones=99", "error", "error"),
    Case("show linja -p garbage", "error", "error"),
    # perft: Python, compiled on demand, and deep enough to pick the compiled one
    Case("perft linja -d 2 --divide", "ok"),
    Case("perft jinli -d 2 --engine compiled", "fast"),
    Case(f"perft galatjang {TINY} -d 9", "ok"),
    Case(f"perft galatjang {TINY} -d 9 --engine python", "ok"),
    Case("perft jinli -d -1", "error", "error"),
    Case("perft jinli -d 2 --engine turbo", "error", "error"),
    # replay: standard input, a file of actions, records naming their game
    Case("replay linja", "ok", stdin="0-1\n"),
    Case(f"replay galatjang {{tmp}}/actions.txt {TINY}", "ok"),  # FILE after -o: unrecognized
    Case("replay {tmp}/records.txt", "ok"),
    Case("replay linja", "error", "error", stdin="9-9\n"),
    Case("replay linja {tmp}/missing.txt", "error", "error"),
    # match: agents, every level, the compiled searches (-j 1: numba loads once)
    Case("match linja random greedy -n 2 --records {tmp}/match-{n}.txt", "ok"),
    Case(f"match galatjang {TINY} beginner easy -n 2 -j 1", "ok"),
    Case("match linja -o max_turns=2 medium hard -n 2 -j 1", "ok"),
    Case(f"match galatjang {TINY} expert medium -n 2 -j 1", "ok"),
    Case(f"match galatjang {TINY} perfect random -n 2 -j 1", "fast"),
    Case("match linja perfect random -n 2 -j 1", "fast", "error"),  # full: no table
    Case("match jinli -o target=1 random mcts:tree=compiled,iterations=200 -n 2 -j 1", "fast"),
    Case("match jinli -o target=1 alphabeta:engine=compiled,depth=1 random -n 2 -j 1", "fast"),
    Case("match linja random nonsense -n 2", "error", "error"),
    Case("match linja random mcts:bogus=1 -n 2", "error", "error"),
    Case("match linja random greedy -n 0", "error", "error"),
    Case("match linja random greedy --games many", "error", "error"),
    # a sequential test, tournaments, the agents that need a file, a program or a server
    Case(f"match galatjang {TINY} easy random --sprt elo0=0,elo1=300 -j 1", "ok"),
    Case("match linja easy random --sprt elo0=0", "error", "error"),
    Case(
        f"tournament galatjang {TINY} random easy --pairs 1 -j 1 --results {{tmp}}/t-{{n}}.jsonl",
        "ok",
    ),
    Case("tournament linja random", "error", "error"),
    # variant studies, and where the games run
    Case(
        f"study galatjang {TINY} --vary lone_seed -n 2 -j 1 --agent easy --out {{tmp}}/s-{{n}}",
        "ok",
    ),
    Case("study linja --vary colour", "error", "error"),
    Case("study galatjang --vary pits", "error", "error"),
    Case(f"match galatjang {TINY} easy random -n 2 -j 1 --backend ray", "ray"),
    Case("match linja easy random --backend spark", "error", "error"),
    Case("tournament linja random easy --backend ray --address nowhere", "ray", "error"),
    Case("tournament linja random easy --openings-file {tmp}/missing.txt", "error", "error"),
    Case("match galatjang az:weights={tmp}/missing.npz random -n 2", "fast", "error"),
    Case("match linja llm random -n 2", "error", "error"),
    Case("match linja engine:cmd={tmp}/missing-engine random -n 2", "error", "error"),
    # the engine protocol
    Case(
        "engine linja --agent greedy",
        "ok",
        stdin="ugi\nisready\nposition startpos\ngo movetime 50\nfrobnicate\nquit\n",
    ),
    Case("engine chess", "error", "error"),
    # analyze: each game, exact where the solvers reach (full), compiled searches
    Case("analyze jinli --agent alphabeta:depth=1", "ok"),
    Case("analyze linja --agent mcts:iterations=50", "ok"),
    Case(f"analyze galatjang {TINY}", "ok"),
    Case("analyze jinli -o target=1 --agent medium", "ok"),
    Case("analyze jinli --agent mcts:tree=compiled,iterations=100", "fast"),
    Case("analyze jinli --agent alphabeta:engine=compiled,depth=2", "fast"),
    Case("analyze linja --agent perfect", "fast", "error"),  # full: no table
    Case(f"analyze galatjang {TINY} --agent perfect", "fast"),  # full: exact
    Case("analyze jinli --agent perfect", "error", "error"),  # no Jin Li solver
    Case("analyze jinli --agent mcts:tree=gpu", "error", "error"),
    Case("analyze jinli --agent mcts:tree=compiled,rollout=heuristic", "error", "error"),
    # play, with what a person would type piped in
    Case("play linja", "ok", stdin="moves\nhint\nquit\n"),
    Case(f"play galatjang {TINY} --save {{tmp}}/saved-{{n}}.txt", "ok", stdin="s1\nundo\nquit\n"),
    Case(f"play galatjang {TINY} --south random --north easy --delay 0", "ok"),
    Case("play linja --red mcts:tree=compiled,iterations=50 --black random", "fast"),
    Case("play linja --red perfect", "fast", "error"),  # full: no table
    Case("play linja --south human", "error", "error"),
    Case("play linja --hint nonsense", "error", "error"),
    Case("play linja --load {tmp}/missing.txt", "error", "error"),
    # solve: a tiny table on the full install; the whole ones there take minutes
    Case("solve linja", "fast", None),
    Case("solve galatjang", "fast", None),
    Case(f"solve galatjang {TINY} --max-seeds 4 --out {{tmp}}/endgames-{{n}}.table", "fast"),
    Case("solve linja -o max_turns=5", "fast", "error"),
    Case("solve linja --max-seeds 3", "fast", "error"),
    Case("solve jinli", "error", "error"),
    # accuracy against perfect play: only where a solver gives exact values
    Case(f"accuracy galatjang {TINY} beginner perfect --positions 6", "fast"),
    Case("accuracy jinli easy", "error", "error"),
    Case("accuracy galatjang beginner --positions -3", "error", "error"),
    # German: the catalogue ships with the package, and needs no extra
    Case("--lang de rules linja", "ok"),
    Case(f"--lang de show galatjang {TINY}", "ok"),
    Case("--lang de replay linja", "error", "error", stdin="9-9\n"),
    Case("--lang xx games", "error", "error"),
    Case("solve jinli --lang de", "error", "error"),
    # the web app
    Case("serve --port 70000", "error", "error"),
    Case("serve --port 1 --db sqlite:///{tmp}/web.sqlite3", "web", None),
    Case("serve --port 0 --db garbage://", "web", "error"),
    Case("serve --port 0 --db postgresql+psycopg://nobody:secret@127.0.0.1:1/x", "web", "error"),
    Case("serve --port 0 --limit body=abc", "web", "error"),
    Case("serve --port 0 --limit frob=1", "web", "error"),
    Case("db status --db sqlite:///{tmp}/db-{n}.sqlite3", "web", "ok"),
    Case("db upgrade --db sqlite:///{tmp}/db-{n}.sqlite3", "web", "ok"),
    Case("db upgrade --db garbage://", "web", "error"),
    Case("db status --db postgresql+psycopg://nobody:secret@127.0.0.1:1/x", "web", "error"),
    Case("db frob", "error", "error"),
    # bots: the host's command and the client that plays a bot
    Case("bots list --db garbage://", "web", "error"),
    Case("bots list --db sqlite:///{tmp}/bots-{n}.sqlite3", "web", "error"),  # no schema yet
    Case("accounts admins --db sqlite:///{tmp}/admins-{n}.sqlite3", "web", "error"),
    Case("connect http://127.0.0.1:1 --token x --engine true", "web", "error"),
]
IDS = [f"{n}:{case.line or '(nothing)'}" for n, case in enumerate(CASES)]

ACTIONS = "s2\ns3\n"
RECORDS = '[Game "galatjang"]\n[Options "pits=3 seeds=2"]\n\n1. s2 s3 s2 2. n2 *\n'


def _args(case: Case, tmp: Path) -> list[str]:
    n = CASES.index(case)
    return [a.replace("{tmp}", str(tmp)).replace("{n}", str(n)) for a in case.args]


def _environment(tmp: Path, light: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARDLAB_")}
    if light:
        for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE"):
            env.pop(name, None)
        env["PYTHONNOUSERSITE"] = "1"
    env["BOARDLAB_TABLES"] = str(tmp / "tables")  # no tables: the same on every machine
    env["COLUMNS"] = "100"
    return env


def _check(case: Case, expected: str, status: int, out: str, err: str) -> None:
    shown = f"{case.line!r}: exit {status}\n--- stdout\n{out}\n--- stderr\n{err}"
    assert "Traceback" not in out + err, shown
    if expected == "ok":
        assert status == 0, shown
        return
    lines = err.splitlines()
    assert status != 0 and len(lines) == 1, shown
    if expected != "error":
        assert f"pip install 'boardlab[{expected}]'" in lines[0], shown
    else:
        assert "pip install" not in lines[0], shown


# ---------------------------------------------------------------------- the boundary
def test_a_missing_extra_is_one_boardlab_error_and_an_import_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # as if not installed
    assert not extras.has("fast") and extras.missing("fast") == "numba"
    with pytest.raises(extras.MissingExtraError) as raised:
        extras.require("fast", "the thing")
    error = raised.value
    assert isinstance(error, BoardlabError) and isinstance(error, ImportError)
    assert str(error) == "the thing needs numba: pip install 'boardlab[fast]'"
    assert str(pickle.loads(pickle.dumps(error))) == str(error)  # crosses processes
    monkeypatch.delitem(sys.modules, "boardlab.fast.perft", raising=False)
    with pytest.raises(extras.MissingExtraError, match=r"^--engine compiled needs numba: "):
        extras.import_extra("boardlab.fast.perft", "--engine compiled")
    with pytest.raises(ModuleNotFoundError) as other:  # not an extra's: goes through
        extras.import_extra("boardlab.no_such_module", "nothing")
    assert not isinstance(other.value, extras.MissingExtraError)


# ---------------------------------------------------------------------- the light install
@contextmanager
def _shared(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """A directory the xdist workers share, held under a lock while the body runs (one
    worker builds, the others wait and then find it built)."""
    base = tmp_path_factory.getbasetemp()
    try:
        import fcntl
    except ImportError:  # no flock: every worker builds its own
        yield base / name
        return
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield base / name
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _what_is_installed(bin_dir: Path) -> tuple[list[str], Path]:
    """The optional modules the venv's Python finds, and where its boardlab lies."""
    code = (
        "import json, boardlab, platformdirs, rich; from importlib.util import find_spec; "
        f"print(json.dumps([[m for m in {list(OPTIONAL)!r} if find_spec(m)], boardlab.__file__]))"
    )
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", code],
        capture_output=True,
        text=True,
        env=_environment(bin_dir, light=True),
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    installed, where = json.loads(done.stdout)
    return installed, Path(where)


def _copy_of_the_checkout(target: Path) -> Path:
    """The files a build reads, so that building leaves no build/ or egg-info here."""
    target.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc", "*.nbi", "*.nbc")
    shutil.copytree(ROOT / "src", target / "src", ignore=junk)
    return target


@pytest.fixture(scope="session")
def light_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a virtual environment with boardlab and its plain
    dependencies only."""
    if find_spec("ensurepip") is None:
        pytest.skip("this Python cannot make virtual environments with pip (no ensurepip)")
    with _shared(tmp_path_factory, "light-install") as home:
        venv = home / "venv"
        bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
        if not (home / "built").exists():
            shutil.rmtree(home, ignore_errors=True)
            source = _copy_of_the_checkout(home / "source")
            env = _environment(home, light=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
            python = bin_dir / "python"
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", str(source)],
                capture_output=True,
                text=True,
                env=env,
                timeout=600,
            )
            assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"
            (home / "built").touch()
    installed, _ = _what_is_installed(bin_dir)
    assert not installed, f"a light install must lack {OPTIONAL}: it has {installed}"
    return bin_dir


@pytest.fixture(scope="session")
def light_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the command lines name (``{tmp}``)."""
    tmp = tmp_path_factory.mktemp("light-files")
    (tmp / "actions.txt").write_text(ACTIONS, encoding="utf-8")
    (tmp / "records.txt").write_text(RECORDS, encoding="utf-8")
    return tmp


def test_the_light_install_is_light(light_bin: Path) -> None:
    installed, boardlab = _what_is_installed(light_bin)
    assert installed == []
    assert boardlab.is_relative_to(light_bin.parent), boardlab  # not this checkout's src


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_light_install_works_or_names_the_extra(
    case: Case, light_bin: Path, light_tmp: Path
) -> None:
    done = subprocess.run(
        [str(light_bin / "boardlab"), *_args(case, light_tmp)],
        input=case.stdin,
        capture_output=True,
        text=True,
        env=_environment(light_tmp, light=True),
        cwd=light_tmp,
        timeout=TIMEOUT,
    )
    _check(case, case.light, done.returncode, done.stdout, done.stderr)


def test_the_light_install_speaks_german(light_bin: Path, light_tmp: Path) -> None:
    """The compiled catalogue is package data: German needs no extra."""
    env = _environment(light_tmp, light=True)
    env["LANG"] = "de_DE.UTF-8"
    done = subprocess.run(
        [str(light_bin / "boardlab"), "show", "galatjang", *TINY.split()],
        capture_output=True,
        text=True,
        env=env,
        cwd=light_tmp,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert "Süd" in done.stdout, done.stdout


# ---------------------------------------------------------------------- the full install
#: Runs the command lines in one process, as the ``boardlab`` script does, so that
#: numba loads its compiled code once and not once a command.
DRIVER = textwrap.dedent(
    """
    import contextlib, io, json, sys, traceback
    from boardlab.cli import main

    results = []
    for args, stdin in json.loads(sys.argv[1]):
        out, err = io.StringIO(), io.StringIO()
        sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(args)
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 1
            except BaseException:
                traceback.print_exc()
                status = 1
        results.append([status, out.getvalue(), err.getvalue()])
    with open(sys.argv[2], "w", encoding="utf-8") as file:
        json.dump(results, file)
    """
)


def test_full_install_runs_every_command(tmp_path: Path) -> None:
    need("numba")
    (tmp_path / "actions.txt").write_text(ACTIONS, encoding="utf-8")
    (tmp_path / "records.txt").write_text(RECORDS, encoding="utf-8")
    cases = [case for case in CASES if case.full is not None]
    lines = [[_args(case, tmp_path), case.stdin] for case in cases]
    report = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(lines), str(report)],
        capture_output=True,
        text=True,
        env=_environment(tmp_path, light=False),
        cwd=tmp_path,
        timeout=TIMEOUT * 4,
    )
    assert done.returncode == 0 and report.exists(), done.stderr
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    failures = []
    for case, (status, out, err) in zip(cases, json.loads(report.read_text()), strict=True):
        assert case.full is not None
        try:
            _check(case, case.full, status, out, err)
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n\n".join(failures)
