"""The layers of docs/architecture.md are contracts of import-linter (pyproject.toml),
run by ``make lint``: here, that the package keeps them, and that a wrong import planted
in a copy of it breaks them, so the check is known to look."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import boardlab
from optional import need

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(boardlab.__file__).parent

need("importlinter")


def lint_imports(source: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the project's contracts over the package found under ``source``."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    script = Path(sys.executable).parent / "lint-imports"
    command = [str(script), "--config", str(ROOT / "pyproject.toml"), "--no-cache"]
    # the package is imported from ``source`` (not the installed one): run from there
    return subprocess.run(command, cwd=source, env=env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's Python files, copied (no data files, tables or caches)."""
    source = tmp_path_factory.mktemp("src")
    shutil.copytree(
        PACKAGE,
        source / "boardlab",
        ignore=lambda _dir, names: [n for n in names if not n.endswith(".py") and "." in n],
    )
    return source


def test_the_package_keeps_its_layers(copy: Path) -> None:
    run = lint_imports(copy)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(
    ("module", "planted", "words"),
    [
        ("core/planted.py", "import boardlab.games", "boardlab.core is not allowed to import"),
        ("ai/planted.py", "from boardlab.web import app", "boardlab.ai is not allowed to import"),
        ("rl/planted.py", "import boardlab.arena", "boardlab.rl is not allowed to import"),
        ("fast/planted.py", "import boardlab.solve", "boardlab.fast is not allowed to import"),
    ],
)
def test_a_wrong_import_breaks_the_layers(
    copy: Path, tmp_path: Path, module: str, planted: str, words: str
) -> None:
    tree = tmp_path / "src"
    shutil.copytree(copy, tree)
    (tree / "boardlab" / module).write_text(planted + "\n", encoding="utf-8")
    run = lint_imports(tree)
    assert run.returncode != 0 and words in run.stdout, run.stdout + run.stderr


def test_one_game_importing_another_breaks_its_independence(copy: Path, tmp_path: Path) -> None:
    tree = tmp_path / "src"
    shutil.copytree(copy, tree)
    first, second = boardlab.game_ids()[:2]
    (tree / "boardlab" / "games" / first / "planted.py").write_text(
        f"import boardlab.games.{second}.rules\n", encoding="utf-8"
    )
    run = lint_imports(tree)
    assert run.returncode != 0 and "each game on its own BROKEN" in run.stdout, run.stdout
