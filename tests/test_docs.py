"""The examples in README.md and docs/ run as tests.

Two kinds of example are checked, in every Markdown file:
- Python sessions (lines starting with ``>>>``), run with doctest, one namespace a file;
- command sessions in ```console blocks: a line ``$ COMMAND`` followed by the exact output
  it prints (standard output and standard error together, trailing spaces aside), up to
  the next ``$`` line or the end of the block. Commands run in a shell whose PATH finds
  this ``boardlab``.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)


def console_examples(path: Path) -> list[tuple[str, str]]:
    """(command, expected output) pairs of the file's console blocks."""
    examples = []
    for block in CONSOLE.findall(path.read_text(encoding="utf-8")):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(output)))
                command, output = line[2:], []
            elif command is not None:
                output.append(line)
        if command is not None:
            examples.append((command, "\n".join(output)))
    return examples


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_python_examples_in_docs_run(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, _name(path), str(path), 0)
    if not test.examples:
        pytest.skip("no Python examples")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


CASES = [(path, cmd, out) for path in DOCUMENTS for cmd, out in console_examples(path)]


@pytest.mark.parametrize(
    ("path", "command", "expected"),
    CASES,
    ids=[f"{_name(p)}:{c[:40]}" for p, c, _ in CASES],
)
def test_command_examples_in_docs_run(path: Path, command: str, expected: str) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = "80"
    result = subprocess.run(
        command, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    shown = "\n".join(line.rstrip() for line in (result.stdout + result.stderr).splitlines())
    wanted = "\n".join(line.rstrip() for line in expected.splitlines())
    assert shown.rstrip("\n") == wanted.rstrip("\n"), f"$ {command}\n{shown}"
