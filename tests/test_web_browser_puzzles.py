"""The puzzles page in a real browser (Chromium driven by Playwright): a puzzle solved by
clicks, the opponent's replies coming from the tree; an equally good alternative answer
accepted (from a small puzzle file made here when no shipped puzzle has two right
answers at its start); a wrong answer explained and the rating lowered; the rating and
the streak kept through a reload. Skipped where no game ships puzzles (a game without a
file offers none; tests/test_web_puzzles.py checks it says so).

With ``BOARDLAB_SCREENSHOTS=DIR`` the page is photographed into DIR on a desktop and a
phone, in English and German, asked and after a wrong answer."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.core.registry import game_class
from boardlab.puzzles.make import why_not
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path, write_puzzles
from boardlab.web import puzzles as web_puzzles
from optional import need
from web_support import chromium, served_in_memory, watched_page

playwright = need("playwright.sync_api")
uvicorn = need("uvicorn")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
SCREENS = {"desktop": (1280, 860), "phone": (390, 844)}
#: The games that ship puzzles, those whose puzzles the solver proves here first (a
#: wrong answer is explained by its values; Linja's need its table, else the page says
#: the tree's best).
GAMES = sorted(
    (g for g in boardlab.game_ids() if shipped_path(game_class(g)).exists()),
    key=lambda g: why_not(boardlab.new_game(g)) is not None,
)
SHIPPED = [p for g in GAMES for p in read_puzzles(shipped_path(game_class(g)))]
pytestmark = pytest.mark.skipif(not SHIPPED, reason="no game ships puzzles yet")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served_in_memory() as served:
        yield served


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with watched_page(browser) as opened:
        yield opened


def click_action(page: Any, puzzle: Puzzle, played: list[str], action: str) -> None:
    """Play ``action`` after ``played`` the way a person does: its places, or its button."""
    position = puzzle.new_game().from_position_string(puzzle.position).play_all(played)
    parts = position.game.action_parts(position.state, position.parse_action(action))
    if not parts.places:
        page.click(f'#buttons button[data-action="{action}"]')
    for name in parts.places:
        page.click(f'#board [data-place="{name}"]')


def kept(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("JSON.parse(localStorage.getItem('boardlab.puzzles'))")
    return found


def solve(page: Any, puzzle: Puzzle, step: Step | None, played: list[str]) -> None:
    """Answer with the first right answer at every step; each reply comes by itself."""
    while step is not None:
        if step.reply is not None:
            played.append(step.reply)
            step = step.then
            continue
        page.wait_for_selector("#puzzle[data-ready=true]")
        action, step = step.answers[0]
        click_action(page, puzzle, played, action)
        played.append(action)
    page.wait_for_selector("#puzzle[data-phase=solved]")


def with_reply() -> Puzzle:
    """A shipped puzzle whose solution has a reply of the opponent, or the longest."""
    return max(SHIPPED, key=lambda p: ("reply" in str(p.tree.to_json()), len(p.tree.main_line())))


def test_a_puzzle_solved_by_clicks_with_the_replies_from_the_tree(page: Any, url: str) -> None:
    puzzle = with_reply()
    page.goto(f"{url}/puzzles/{puzzle.id}")
    assert page.get_attribute("#puzzle", "data-id") == puzzle.id
    assert page.inner_text("#task-words") == web_puzzles.task(puzzle)
    position = puzzle.new_game().from_position_string(puzzle.position)
    board = position.game.board_model(position.state)
    shown = page.locator("#players .tallies").all_inner_texts()
    assert shown == [" · ".join(map(str, side)) for side in board.tallies]  # the score
    solve(page, puzzle, puzzle.tree, [])
    assert "Solved!" in page.inner_text("#verdict")
    page.wait_for_selector("#puzzle[data-rated=true]")
    change = page.inner_text("#rating-change")
    before, after = (int(x) for x in change.split(" (")[0].split(" → "))
    assert before == 1500 and after > before
    assert round(kept(page)["rating"]["rating"]) == after == int(page.inner_text("#rating"))
    page.click("#next")
    page.wait_for_selector("#puzzle[data-ready=true]")
    assert page.get_attribute("#puzzle", "data-id") != puzzle.id


def two_answers() -> tuple[Puzzle, bool]:
    """A shipped puzzle with two right answers at its start, or one made of a shipped
    puzzle's step that has two (its position reached by the main line): (the puzzle,
    whether it was made)."""
    for puzzle in SHIPPED:
        if len(puzzle.tree.answers) >= 2:
            return puzzle, False
    for puzzle in SHIPPED:
        step: Step | None = puzzle.tree
        played: list[str] = []
        while step is not None:
            if step.reply is None and len(step.answers) >= 2 and played:
                position = puzzle.new_game().from_position_string(puzzle.position)
                after = position.play_all(played)
                made = Puzzle(
                    id=f"{puzzle.game}-made{len(played)}",
                    game=puzzle.game,
                    options=puzzle.options,
                    position=after.position_string(),
                    player=puzzle.player,
                    tree=step,
                    themes=puzzle.themes,
                    value=puzzle.value,
                    rating=puzzle.rating,
                    source=f"a step of {puzzle.id}",
                )
                return made, True
            if step.reply is not None:
                played.append(step.reply)
                step = step.then
            else:
                action, step = step.answers[0]
                played.append(action)
    pytest.skip("no shipped puzzle has a step with two right answers")


def test_an_equally_good_answer_is_accepted(
    page: Any, url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    puzzle, made = two_answers()
    if made:  # a small puzzle file of our own, read by the app instead of the shipped ones
        path = tmp_path / "puzzles.jsonl.gz"
        write_puzzles(path, [puzzle])
        mine = {g: (read_puzzles(path) if g == puzzle.game else []) for g in boardlab.game_ids()}
        monkeypatch.setattr(web_puzzles, "catalogue", lambda: mine)
    page.goto(f"{url}/puzzles/{puzzle.id}")
    page.wait_for_selector("#puzzle[data-ready=true]")
    action, after = puzzle.tree.answers[1]  # not the first: the solution's other answer
    click_action(page, puzzle, [], action)
    if after is None:
        page.wait_for_selector("#puzzle[data-phase=solved]")
    else:
        solve(page, puzzle, after, [action])
    assert "Not the best" not in page.inner_text("#verdict")


def test_a_wrong_answer_is_explained_and_lowers_the_rating(page: Any, url: str) -> None:
    puzzle = SHIPPED[0]
    position = puzzle.new_game().from_position_string(puzzle.position)
    right = [a for a, _after in puzzle.tree.answers]
    wrong = next(a for a in position.legal_action_strings() if a not in right)
    page.goto(f"{url}/puzzles/{puzzle.id}")
    page.wait_for_selector("#puzzle[data-ready=true]")
    click_action(page, puzzle, [], wrong)
    page.wait_for_selector("#puzzle[data-phase=failed]")
    page.wait_for_selector("#puzzle[data-explained=true]", timeout=60000)
    verdict = page.inner_text("#verdict")
    assert verdict.startswith("Not the best:") and wrong in verdict and right[0] in verdict
    page.wait_for_selector("#puzzle[data-rated=true]")
    assert kept(page)["rating"]["rating"] < 1500
    page.click("#solution")
    page.wait_for_selector("#puzzle[data-phase=shown]")


def test_the_rating_and_the_streak_survive_a_reload(page: Any, url: str) -> None:
    puzzle = with_reply()
    page.goto(f"{url}/puzzles/{puzzle.id}")
    page.wait_for_selector("#puzzle[data-ready=true]")
    page.click("#mode-streak")  # a streak starts with the next puzzle
    page.wait_for_selector("#puzzle[data-ready=true]")
    shown = page.get_attribute("#puzzle", "data-id")
    (current,) = [p for p in SHIPPED if p.id == shown]
    solve(page, current, current.tree, [])
    page.wait_for_selector("#puzzle[data-rated=true]")
    assert kept(page)["streak"] == 1
    rating = page.inner_text("#rating")
    page.reload()
    page.wait_for_selector("#puzzle[data-ready=true]")
    assert page.inner_text("#streak") == "1" and page.inner_text("#best-streak") == "1"
    assert page.inner_text("#rating") == rating
    assert page.get_attribute("#mode-streak", "aria-pressed") == "true"


@pytest.mark.skipif(not SHOTS, reason="BOARDLAB_SCREENSHOTS names no folder")
def test_screenshots(browser: Any, url: str) -> None:
    puzzle = SHIPPED[0]
    position = puzzle.new_game().from_position_string(puzzle.position)
    right = [a for a, _after in puzzle.tree.answers]
    wrong = next(a for a in position.legal_action_strings() if a not in right)
    for screen, (width, height) in SCREENS.items():
        for lang in ("en", "de"):
            context = browser.new_context(viewport={"width": width, "height": height})
            context.add_init_script("localStorage.setItem('boardlab.speed', 'off')")
            shot = context.new_page()
            shot.goto(f"{url}/puzzles/{puzzle.id}?lang={lang}")
            shot.wait_for_selector("#puzzle[data-ready=true]")
            shot.screenshot(
                path=str(Path(str(SHOTS)) / f"puzzle-{lang}-{screen}.png"), full_page=True
            )
            click_action(shot, puzzle, [], wrong)
            shot.wait_for_selector("#puzzle[data-explained=true]", timeout=60000)
            shot.screenshot(
                path=str(Path(str(SHOTS)) / f"puzzle-wrong-{lang}-{screen}.png"), full_page=True
            )
            context.close()
