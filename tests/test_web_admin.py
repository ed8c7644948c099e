"""The admin page (docs/web.md, "Perfect play on a server"): the table "Who may do what on
the admin page" walked cell by cell for a guest, an account and an admin, on SQLite and
on PostgreSQL; a build asked for twice, cancelled, and refused for a game without a
table; the host's ``boardlab accounts admin`` and ``boardlab serve --perfect``.

No table is built here (the app's builder is held back: its builds are tested in
tests/test_solve_resume.py and tests/test_web_browser_admin.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need

need("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from boardlab.cli import main  # noqa: E402
from boardlab.web import tables  # noqa: E402
from boardlab.web.admin import AdminStore  # noqa: E402
from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.store import Store  # noqa: E402
from web_support import TESTING, expected, permission_rows, url_of  # noqa: E402

GUEST, ACCOUNT, ADMIN = "guest", "account", "admin"
VIEWERS = (GUEST, ACCOUNT, ADMIN)
GAME = "galatjang"  # a game with a table (one the perfect level plays without, too)
PASSWORD = "correct horse"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: Any
) -> Iterator[tuple[str, dict[str, TestClient]]]:
    """An app with a browser per viewer, its tables in a folder of its own, its builder
    held back."""
    folder = tmp_path_factory.mktemp("admin")
    db: Path | str = folder / "games.sqlite3"
    if request.param == "postgresql":
        db = request.getfixturevalue("postgres").fresh()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARDLAB_TABLES", str(folder / "tables"))
        app = create_app(url_of(db), workers=1, limits=TESTING)
        app.state.builds.start = lambda: False
        with TestClient(app) as guest:
            viewers = {GUEST: guest}
            for viewer in (ACCOUNT, ADMIN):
                viewers[viewer] = TestClient(app)
                answer = viewers[viewer].post(
                    "/api/account/signup", json={"name": viewer + "1", "password": PASSWORD}
                )
                assert answer.status_code == 200, answer.text
            store = Store(url_of(db), upgrade=None)
            AdminStore(store).mark("ADMIN1")
            store.engine.dispose()
            yield url_of(db), viewers


def fresh() -> None:
    """No build asked for, none kept."""
    shutil.rmtree(tables.builds_dir(), ignore_errors=True)


def status(answer: Any) -> str:
    return str(answer.status_code)


def ask(http: TestClient, method: str, route: str) -> Any:
    path = route.removeprefix(f"{method} ").replace("GAME", GAME)
    return http.request(method, path, follow_redirects=False)


@pytest.mark.parametrize(
    "row", permission_rows("Who may do what on the admin page"), ids=lambda row: row[0]
)
def test_who_may_do_what_on_the_admin_page(
    site: tuple[str, dict[str, TestClient]], row: tuple[str, list[str], str]
) -> None:
    _url, viewers = site
    name, routes, rule = row
    for route in routes:
        method = route.split()[0]
        for viewer in VIEWERS:
            fresh()
            if route.endswith("/cancel"):
                tables.want(GAME)  # a build to cancel
            answer = ask(viewers[viewer], method, route)
            refused = expected(rule, viewer)
            wanted = bool(tables.read_status(GAME).get("wanted"))
            if refused is None:
                assert answer.status_code in (200, 303), (name, viewer, answer.text)
                if method == "POST":  # done: asked for, or cancelled
                    assert wanted == (not route.endswith("/cancel")), (name, viewer)
            else:
                assert status(answer) == refused, (name, viewer, answer.text)
                if method == "POST":  # nothing changed
                    assert wanted == route.endswith("/cancel"), (name, viewer)
    fresh()


def test_the_page_shows_each_table_and_a_build_is_asked_for_once(
    site: tuple[str, dict[str, TestClient]],
) -> None:
    _url, viewers = site
    admin = viewers[ADMIN]
    fresh()
    assert 'href="/admin"' in admin.get("/account").text  # the way there
    assert 'href="/admin"' not in viewers[ACCOUNT].get("/account").text
    shown = admin.get("/admin")
    assert shown.status_code == 200 and f'id="table-{GAME}"' in shown.text
    assert "Refresh" not in shown.headers
    assert admin.post(f"/admin/tables/{GAME}", follow_redirects=False).status_code == 303
    again = admin.post(f"/admin/tables/{GAME}", follow_redirects=False)
    assert again.status_code == 409 and "being prepared already" in again.text
    rows = {row["game"]: row for row in admin.get("/api/admin/tables").json()}
    assert rows[GAME]["state"] == "waiting"
    assert admin.get("/admin").headers["Refresh"] == "5"  # the page follows the build
    assert admin.post(f"/admin/tables/{GAME}/cancel", follow_redirects=False).status_code == 303
    assert {row["game"]: row for row in admin.get("/api/admin/tables").json()}[GAME][
        "state"
    ] == "none"
    gone = admin.post("/admin/tables/chess", follow_redirects=False)
    assert gone.status_code == 404 and "the games with one are" in gone.text
    nothing = admin.post(f"/admin/tables/{GAME}/cancel", follow_redirects=False)
    assert nothing.status_code == 400 and "nothing to cancel" in nothing.text
    # a player meets a level whose table is being built greyed, with how far it is
    assert 'value="perfect"' not in viewers[GUEST].get("/new/linja").text
    assert admin.post("/admin/tables/linja", follow_redirects=False).status_code == 303
    tables.write_status("linja", done=73, total=169)
    form = viewers[GUEST].get("/new/linja?lang=de").text
    assert '<option value="perfect" disabled>perfekt: wird vorbereitet, 43 %</option>' in form
    fresh()


def test_the_host_makes_admins(
    site: tuple[str, dict[str, TestClient]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, viewers = site
    assert main(["accounts", "admin", "account1", "--db", url]) == 0
    assert capsys.readouterr().out.strip() == "account1 is an admin"
    assert viewers[ACCOUNT].get("/api/admin/tables").status_code == 200
    assert main(["accounts", "admin", "ACCOUNT1", "--revoke", "--db", url]) == 0
    assert viewers[ACCOUNT].get("/api/admin/tables").status_code == 403
    assert main(["accounts", "admins", "--db", url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "admin1"
    assert main(["accounts", "admin", "nobody", "--db", url]) == 2
    assert "there is no account named 'nobody'" in capsys.readouterr().err


def test_serve_perfect_names_the_games_with_a_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    assert main(["serve", "--perfect", "jinli", "--db", "memory:"]) == 2
    error = capsys.readouterr().err
    assert "there is no table to build for 'jinli'" in error and "linja" in error
    assert len(error.strip().splitlines()) == 1


def test_the_builder_stops_when_cancelled_and_goes_on_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builder itself (here in a thread, as its process runs it): cancelled after a
    few levels of a reduced Linja table, it stops keeping them; asked again, it goes on
    from them to the table."""
    import threading
    import time

    from boardlab.solve import resume

    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    monkeypatch.setenv(tables.TEST_REACH, "160")
    monkeypatch.setattr(tables, "REPORT_SECONDS", 0.0)
    monkeypatch.setattr(resume, "EVERY", 0.0)
    assert tables.want("linja") and tables.wanted() == ["linja"]
    first = threading.Thread(target=tables.build, args=("linja",))
    first.start()
    deadline = time.monotonic() + 120
    while tables.read_status("linja").get("done", 0) < 2:
        assert time.monotonic() < deadline and first.is_alive()
        time.sleep(0.02)
    assert tables.builder_running()
    tables.cancel("linja")
    first.join(120)
    row = {state.game: state for state in tables.states()}["linja"]
    assert not row.built and not row.wanted and row.done >= 2
    kept = row.done
    monkeypatch.setattr(resume, "EVERY", 3600.0)  # no more copies: the test's time
    assert tables.build("linja") == 0  # not asked for: nothing done
    assert tables.want("linja")
    assert tables.build("linja") == 0
    status = tables.read_status("linja")
    assert status["run_first"] >= kept  # it went on from the levels kept
    row = {state.game: state for state in tables.states()}["linja"]
    assert row.built and row.size and not row.wanted
    assert not tables.want("linja")  # built: nothing to ask for
