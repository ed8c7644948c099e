"""Accessibility checked by a tool, and a whole game played with the keyboard alone.

axe-core (through ``axe-playwright-python``) runs in Debian's Chromium on every kind of
page: home, new game, a game page (against the AI, on one screen, online as a player and
as a spectator, finished), review, how to play, the rules card, the lobby, my games, an
invitation and an error page; each in English and German, on a desktop and a phone, in
the light and the dark colour scheme. No violation of impact serious or critical may
remain. Then a game against the AI is played to its end with Tab, Enter, Space and
Escape only.

With ``BOARDLAB_SCREENSHOTS=DIR`` the home page, a game page of each game and the lobby
are photographed into DIR in every language, size and scheme."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from boardlab.lessons import lessons
from optional import need
from web_support import SMALL, TESTING, chromium, served_in_thread

playwright = need("playwright.sync_api")
axe_playwright = need("axe_playwright_python.sync_playwright")
uvicorn = need("uvicorn")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
GAMES = ["jinli", "linja", "galatjang"]
SCREENS = {"desktop": (1280, 860), "phone": (390, 844)}
LOCALES = {"en": "en-GB", "de": "de-DE"}
#: The impacts no page may have.
FORBIDDEN = {"serious", "critical"}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite file: accounts need a database."""
    return f"sqlite:///{tmp_path_factory.mktemp('pages') / 'boardlab.db'}"


@pytest.fixture(scope="module")
def url(database: str) -> Iterator[str]:
    """The app on ``database`` with one AI worker, served in a thread."""
    from boardlab.web.app import create_app

    with served_in_thread(create_app(database, workers=1, limits=TESTING)) as served:
        yield served


@dataclass
class World:
    """The games the pages show, made once: each person's cookies (``storage_state``)
    and the paths of their pages."""

    url: str
    people: dict[str, Any] = field(default_factory=dict)
    paths: dict[str, tuple[str, str]] = field(default_factory=dict)  # kind: (person, path)


def wait_ready(page: Any, acts: bool) -> None:
    """The game page has drawn its state and, if the viewer ``acts`` in it, settled on
    their turn with the board's places to click."""
    ready = "p.dataset.ready === 'true'" if acts else "true"
    deadline = time.monotonic() + 120
    while not page.evaluate(
        "(() => { const p = document.getElementById('play');"
        " return !!p && p.dataset.ply !== undefined && !!document.querySelector('#board svg')"
        f" && document.getElementById('players').textContent !== '' && {ready}; }})()"
    ):
        assert time.monotonic() < deadline, "the game page did not settle"
        page.wait_for_timeout(100)


@pytest.fixture(scope="module")
def world(browser: Any, url: str, database: str) -> Iterator[World]:
    """One player's games of every kind, a friend seated online, a spectator, a game in
    the lobby and an open invitation."""
    made = World(url)
    owner = browser.new_context()
    friend = browser.new_context()
    http = owner.request

    def new(game: str, opponent: str, **extra: str) -> str:
        form = {"opponent": opponent, "seat": "0", **SMALL[game], **extra}
        answer = http.post(f"{url}/new/{game}", form=form, max_redirects=0)
        assert answer.status == 303, answer.text()
        return str(answer.headers["location"]).rsplit("/", 1)[1]

    try:
        for game in GAMES:
            made.paths[f"new-{game}"] = ("owner", f"/new/{game}")
            made.paths[f"play-ai-{game}"] = ("owner", f"/play/{new(game, 'easy')}")
            made.paths[f"howto-{game}"] = ("owner", f"/rules/{game}")
            made.paths[f"card-{game}"] = ("owner", f"/rules/{game}/card")
            made.paths[f"lesson-{game}"] = ("owner", f"/learn/{game}/{lessons(game)[0].id}")
            made.paths[f"analysis-{game}"] = ("owner", f"/analysis/{game}")
        made.paths["learn"] = ("owner", "/learn")
        made.paths["puzzles"] = ("owner", "/puzzles")
        made.paths["puzzles-daily"] = ("owner", "/puzzles/daily")
        impossible = "0,0,0,1,2,0/0,1,0,0,3,1+33/32+s+1+0"  # 73 seeds: set up in the editor
        made.paths["analysis-setup"] = ("owner", f"/analysis/galatjang?position={impossible}")
        made.paths["play-hot-seat"] = ("owner", f"/play/{new('linja', 'human')}")
        over = new("galatjang", "human")
        for action in ("s1", "n1"):
            state = http.get(f"{url}/api/games/{over}").json()
            if state["outcome"] is None and any(a["action"] == action for a in state["legal"]):
                http.post(
                    f"{url}/api/games/{over}/play", data={"action": action, "ply": state["ply"]}
                )
        state = http.get(f"{url}/api/games/{over}").json()
        http.post(f"{url}/api/games/{over}/resign", data={"ply": state["ply"]})
        assert http.get(f"{url}/api/games/{over}").json()["outcome"] is not None
        made.paths["play-finished"] = ("owner", f"/play/{over}")
        made.paths["review"] = ("owner", f"/review/{over}")
        online = new("jinli", "online", name="Ana")
        page = owner.new_page()
        page.goto(f"{url}/play/{online}")
        link = page.input_value("#invitation-link").split(url, 1)[1]
        page.close()
        taken = friend.request.post(f"{url}{link}", form={"name": "Bo"}, max_redirects=0)
        assert taken.status == 303, taken.text()
        page = friend.new_page()  # a line of chat to show
        page.goto(f"{url}/play/{online}")
        page.fill("#chat-text", "Good luck!")
        page.press("#chat-text", "Enter")
        page.wait_for_selector("#chat-lines li")
        page.close()
        made.paths["play-online"] = ("friend", f"/play/{online}")
        made.paths["play-spectator"] = ("nobody", f"/play/{online}")
        waiting = new("galatjang", "online", name="Cy")
        page = owner.new_page()
        page.goto(f"{url}/play/{waiting}")
        made.paths["join"] = ("nobody", page.input_value("#invitation-link").split(url, 1)[1])
        page.close()
        new("linja", "online", lobby="true")
        made.paths["lobby"] = ("nobody", "/lobby")
        made.paths["home"] = ("owner", "/")
        made.paths["games"] = ("owner", "/games")
        made.paths["error"] = ("owner", "/play/no-such-game")
        made.paths["signup"] = ("nobody", "/signup")
        made.paths["signin"] = ("nobody", "/signin")
        member = browser.new_context()  # signed up by the form, as a person does
        signed = member.request.post(
            f"{url}/signup",
            form={"name": "Ana_b", "password": "koi and seeds"},
            headers={"Origin": url},
            max_redirects=0,
        )
        assert signed.status == 303, signed.text()
        made.paths["account"] = ("member", "/account")
        from boardlab.web.admin import AdminStore
        from boardlab.web.store import Store

        store = Store(database, upgrade=None)
        try:
            AdminStore(store).mark("Ana_b")  # as the host does: boardlab accounts admin
        finally:
            store.engine.dispose()
        assert member.request.get(f"{url}/admin").status == 200  # the page, not a refusal
        made.paths["admin"] = ("member", "/admin")
        # a seek for players rated near the member's rating, greyed for a guest
        seek = {"opponent": "online", "seat": "0", "lobby": "true", "range": "200"}
        sought = member.request.post(f"{url}/new/linja", form=seek, max_redirects=0)
        assert sought.status == 303, sought.text()
        rival = browser.new_context()  # who challenges the member
        signed = rival.request.post(
            f"{url}/signup",
            form={"name": "Bo_b", "password": "koi and seeds"},
            headers={"Origin": url},
            max_redirects=0,
        )
        assert signed.status == 303, signed.text()
        terms = {"to": "Ana_b", "game": "galatjang", "clock": "5+3", "rated": True}
        asked = rival.request.post(f"{url}/api/challenges", data=terms)
        assert asked.status == 201, asked.text()
        made.paths["challenges"] = ("member", "/challenges")
        made.paths["challenge"] = ("rival", f"/challenges/{asked.json()['id']}")
        made.people = {"owner": owner.storage_state(), "friend": friend.storage_state()}
        made.people["member"] = member.storage_state()
        made.people["rival"] = rival.storage_state()
        member.close()
        rival.close()
        made.people["nobody"] = {"cookies": [], "origins": []}
        yield made
    finally:
        owner.close()
        friend.close()


@dataclass(frozen=True)
class Look:
    """How a page is seen: its language, screen and colour scheme."""

    lang: str
    screen: str
    scheme: str

    def __str__(self) -> str:
        return f"{self.lang}-{self.screen}-{self.scheme}"


#: Each language on each screen, each language in each scheme and each screen in each
#: scheme, in four looks (all eight would take twice as long and find nothing more).
LOOKS = [
    Look("en", "desktop", "light"),
    Look("de", "phone", "light"),
    Look("en", "phone", "dark"),
    Look("de", "desktop", "dark"),
]
if SHOTS:  # photographs in every look
    LOOKS = [
        Look(lang, screen, scheme)
        for lang in LOCALES
        for screen in SCREENS
        for scheme in ("light", "dark")
    ]
#: The pages photographed with ``BOARDLAB_SCREENSHOTS``.
PHOTOGRAPHED = {
    "home",
    "lobby",
    "challenges",
    "challenge",
    *(f"play-ai-{game}" for game in GAMES),
}


@pytest.fixture(scope="module")
def pages(browser: Any, world: World) -> Iterator[Callable[[str, Look], Any]]:
    """A page for each person and look, opened once and shared by the tests."""
    opened: dict[tuple[str, Look], Any] = {}
    contexts = []

    def get(person: str, look: Look) -> Any:
        if (person, look) not in opened:
            width, height = SCREENS[look.screen]
            context = browser.new_context(
                viewport={"width": width, "height": height},
                locale=LOCALES[look.lang],
                color_scheme=look.scheme,
                storage_state=world.people[person],
            )
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(30000)
            opened[person, look] = page
        return opened[person, look]

    yield get
    for context in contexts:
        context.close()


def violations(page: Any) -> list[str]:
    """The serious and critical violations axe-core finds on the page, one line each:
    its rule, impact, the elements and the help."""
    results = axe_playwright.Axe().run(page)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] not in FORBIDDEN:
            continue
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]]
        found.append(
            f"{violation['id']} ({violation['impact']}) on {len(targets)}: "
            f"{', '.join(targets[:6])}: {violation['help']}"
        )
    return found


KINDS = [
    "home",
    *(f"new-{game}" for game in GAMES),
    *(f"play-ai-{game}" for game in GAMES),
    "play-hot-seat",
    "play-online",
    "play-spectator",
    "play-finished",
    "review",
    *(f"howto-{game}" for game in GAMES),
    *(f"card-{game}" for game in GAMES),
    "learn",
    *(f"lesson-{game}" for game in GAMES),
    *(f"analysis-{game}" for game in GAMES),
    "analysis-setup",
    "puzzles",
    "puzzles-daily",
    "lobby",
    "games",
    "join",
    "error",
    "signup",
    "signin",
    "account",
    "admin",
    "challenges",
    "challenge",
]


@pytest.mark.parametrize("kind", KINDS)
def test_no_serious_accessibility_violation(
    world: World, pages: Callable[[str, Look], Any], kind: str
) -> None:
    person, path = world.paths[kind]
    failures = []
    for look in LOOKS:
        page = pages(person, look)
        page.goto(world.url + path)
        if kind.startswith("play-"):
            wait_ready(page, acts=kind.startswith(("play-ai", "play-hot")))
        elif kind.startswith("lesson-"):
            page.wait_for_selector("#lesson[data-ready=true]")
        elif kind.startswith("analysis-"):
            page.wait_for_selector("#analysis[data-ready=true]")
        elif kind.startswith("puzzles"):  # a game ships puzzles, or the page says none
            page.wait_for_selector("#puzzle:is([data-ready=true], [data-phase=empty])")
        elif kind == "review":  # the AI's review done, its summary shown
            page.wait_for_selector("#board svg")
            page.wait_for_selector("#summary table", timeout=120000)
        found = violations(page)
        if SHOTS and kind in PHOTOGRAPHED:
            page.screenshot(path=str(Path(SHOTS) / f"{kind}-{look}.png"))
        if found:
            failures.append(f"{look}:\n  " + "\n  ".join(found))
    assert not failures, f"{kind} ({path}):\n" + "\n".join(failures)


def focused(page: Any) -> dict[str, str | None]:
    """What has the keyboard's focus: a board's place or an action's button, by name."""
    found: dict[str, str | None] = page.evaluate(
        "(() => { const e = document.activeElement;"
        " return { place: e.closest('#board') ? e.dataset.place ?? null : null,"
        " action: e.closest('#buttons') ? e.dataset.action ?? null : null }; })()"
    )
    return found


def tab_to(page: Any, wanted: Callable[[dict[str, str | None]], bool]) -> dict[str, str | None]:
    """Press Tab until the focus is on something ``wanted``; what it is."""
    for _ in range(300):
        page.keyboard.press("Tab")
        now = focused(page)
        if wanted(now):
            return now
    raise AssertionError("Tab never reached a place or button that plays a legal action")


def test_a_whole_game_against_the_ai_with_the_keyboard_alone(browser: Any, url: str) -> None:
    """Jin Li on a small board against the AI, from the first turn to the end, with Tab
    to move the focus, Enter or Space to click and Escape to let go of a chosen koi: no
    mouse. (The game is made by a request, as the form's own tests make theirs.) Then
    its review passes axe too."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(60000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    rng = random.Random(32)
    try:
        form = {"opponent": "easy", "seat": "0", **SMALL["jinli"]}
        made = page.request.post(f"{url}/new/jinli", form=form, max_redirects=0)
        game_id = str(made.headers["location"]).rsplit("/", 1)[1]
        page.goto(f"{url}/play/{game_id}")
        let_go = False  # Escape has let go of a chosen koi once
        turns = 0
        while True:
            state = page.request.get(f"{url}/api/games/{game_id}").json()
            if state["outcome"] is not None:
                break
            if not state["human_to_act"]:
                page.wait_for_timeout(100)
                continue
            wait_ready(page, acts=True)
            page.wait_for_selector(f'#play[data-ply="{state["ply"]}"][data-ready="true"]')
            chosen: list[str] = []
            legal = state["legal"]
            while True:
                starts = {a["places"][len(chosen)] for a in legal if len(a["places"]) > len(chosen)}
                buttons = {a["action"] for a in legal if not a["places"]} if not chosen else set()
                now = tab_to(
                    page, lambda f, s=starts, b=buttons: f["place"] in s or f["action"] in b
                )
                page.keyboard.press(rng.choice(["Enter", " "]))
                if now["action"] is not None:
                    break  # a button plays its action
                chosen.append(str(now["place"]))
                legal = [a for a in legal if a["places"][: len(chosen)] == chosen]
                if not let_go and len(chosen) == 1 and any(len(a["places"]) > 1 for a in legal):
                    page.wait_for_selector(f'#board [data-place="{chosen[0]}"].selected')
                    page.keyboard.press("Escape")  # let go of it, and choose again
                    page.wait_for_selector("#board [data-place].selected", state="detached")
                    let_go, chosen, legal = True, [], state["legal"]
                    continue
                done = [a for a in legal if a["places"] == chosen]
                if done and len(legal) == 1:
                    break  # the click completed the only action it can be
                if done and rng.random() < 0.5:
                    page.keyboard.press("Enter")  # the chosen place again confirms it
                    break
                legal = [a for a in legal if len(a["places"]) > len(chosen)]
            deadline = time.monotonic() + 60
            while page.request.get(f"{url}/api/games/{game_id}").json()["ply"] == state["ply"]:
                assert time.monotonic() < deadline, f"the keys played nothing at {state['ply']}"
                page.wait_for_timeout(50)
            turns += 1
        page.wait_for_selector("#status.over")
        assert state["outcome"]["sentence"] in page.inner_text("#status")
        assert let_go, "no turn offered a koi to let go of"
        assert turns >= 3, turns
        cookies = context.storage_state()
        for scheme in ("light", "dark"):
            seen = browser.new_context(color_scheme=scheme, storage_state=cookies)
            reviewed = seen.new_page()
            reviewed.goto(f"{url}/review/{game_id}")
            reviewed.wait_for_selector("#summary table", timeout=120000)
            found = violations(reviewed)
            seen.close()
            assert not found, f"review of a whole game ({scheme}):\n" + "\n".join(found)
    finally:
        context.close()
    assert errors == [], errors
