"""Optional dependencies of the tests, in place of bare ``pytest.importorskip``: a module
an extra provides is skipped where it is not installed, except under CI=true, which
installs every extra (``make test``): there a module that does not import fails, naming
its extra, as the PostgreSQL and Chromium tests do, so that no broken import turns a
file into a silent skip while the run stays green."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

#: The extra of pyproject.toml that installs each top-level module the tests import.
EXTRAS = {
    "axe_playwright_python": "test",
    "babel": "web",
    "fastapi": "web",
    "gymnasium": "rl",
    "importlinter": "test",
    "matplotlib": "study",
    "numba": "fast",
    "numpy": "fast",
    "pettingzoo": "rl",
    "pexpect": "test",
    "playwright": "test",
    "pyspiel": "openspiel",
    "ray": "ray",
    "schemathesis": "test",
    "sqlalchemy": "web",
    "torch": "train",
    "uvicorn": "web",
}


def need(module: str) -> ModuleType:
    """``module`` imported; if it is not installed, the calling test (or, at the top of
    a file, the file's tests) is skipped, or under CI=true fails. A module that is there
    but fails to import raises its error anywhere, as ``pytest.importorskip`` does."""
    __tracebackhide__ = True  # a skip or failure is reported where ``need`` was called
    extra = EXTRAS[module.split(".")[0]]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if os.environ.get("CI"):
            pytest.fail(
                f"CI needs the {extra} extra (pip install -e '.[{extra}]'): "
                f"import {module} failed: {error}",
                pytrace=False,
            )
        pytest.skip(f"{module} is not installed (the {extra} extra)", allow_module_level=True)
