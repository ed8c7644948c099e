"""Test configuration: Hypothesis profiles (CI runs more examples than a quick local run)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Messages are compared in English: the suite speaks it whatever this machine's locale
# (the German tests choose German themselves). Commands the tests start inherit this.
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"


# ---------------------------------------------------------------------- databases
@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A throwaway PostgreSQL server for this test process. Where none can be started the
    PostgreSQL cases skip, except under CI=true, where they must run."""
    try:
        import psycopg  # noqa: F401

        from web_support import Postgres

        server = Postgres(Path(tempfile.mkdtemp(prefix="boardlab-pg-")))
        server.start()
    except Exception as error:
        if os.environ.get("CI"):
            raise RuntimeError(f"CI needs PostgreSQL for the web tests: {error}") from error
        pytest.skip(f"no PostgreSQL server could be started here: {error}")
    yield server
    server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database: a SQLite file, then a PostgreSQL database; the web
    tests that take it run on both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.sqlite3'}"
    server = request.getfixturevalue("postgres")
    url: str = server.fresh()
    return url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, started by Playwright once for each module of browser tests."""
    from web_support import launched_chromium

    with launched_chromium() as launched:
        yield launched
