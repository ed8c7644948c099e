"""The how-to pages (``/rules/GAME``): every game boardlab ships has one in English and in
German, each step's diagrams are positions the engine accepts, drawn by the board SVG with
a caption in words, the page shows no notation a newcomer cannot read, and the binding
card is one click away. (Their length in a browser: tests/test_web_browser_howto.py.)"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest

import boardlab
from boardlab.core.i18n import use_language
from boardlab.web import pages
from optional import need

need("fastapi")

from web_support import client, new_game  # noqa: E402

LANGUAGES = ("en", "de")
#: The games boardlab ships (a test may register more, without a how-to page).
SHIPPED = [
    g
    for g in boardlab.game_ids()
    if boardlab.game_class(g).__module__.startswith("boardlab.games.")
]
#: Tags and what SVGs hold, to leave the text a reader sees.
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
TAG = re.compile(r"<[^>]+>")


@pytest.fixture(scope="module")
def http() -> Iterator[Any]:
    with client("memory:") as test_client:
        yield test_client


def shown_text(page: str) -> str:
    """The words of a page as a reader sees them: no SVG, no tags."""
    return html.unescape(TAG.sub(" ", SVG.sub(" ", page)))


def test_every_shipped_game_has_a_how_to_page_in_both_languages() -> None:
    for game_id in SHIPPED:
        for lang in LANGUAGES:
            with use_language(lang):
                howto = pages.how_to(game_id)
            assert howto is not None and howto.language == lang, (game_id, lang)
            assert len(howto.steps) >= 4, "goal, board, a turn, the end: each a step"


@pytest.mark.parametrize("game_id", SHIPPED)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_diagram_is_a_legal_position_of_its_game(game_id: str, lang: str) -> None:
    diagrams = pages.how_to_diagrams(game_id, lang)
    assert diagrams, "a how-to page is illustrated"
    for diagram in diagrams:
        game = diagram.game(boardlab.new_game(game_id))
        position = game.from_position_string(diagram.position)  # the engine refuses the impossible
        assert position.position_string() == diagram.position, "written as the engine writes it"
        board = game.board_model(position.state)
        places = {place.name for place in board.places if place.kind != "label"}
        assert set(diagram.mark) | set(diagram.dot) <= places, diagram
        assert diagram.caption and diagram.position not in diagram.caption


@pytest.mark.parametrize("game_id", SHIPPED)
def test_both_languages_show_the_same_diagrams(game_id: str) -> None:
    english, german = (pages.how_to_diagrams(game_id, lang) for lang in LANGUAGES)
    assert [d.position for d in english] == [d.position for d in german]
    assert [(d.mark, d.dot, d.options) for d in english] == [
        (d.mark, d.dot, d.options) for d in german
    ]


def test_a_diagram_that_names_no_place_or_no_position_is_refused() -> None:
    game_id = SHIPPED[0]
    game = boardlab.new_game(game_id)
    start = game.initial().position_string()
    with pytest.raises(ValueError, match="no place 'nowhere'"):
        pages.Diagram.read(f"position: {start}\ncaption: x\nmark: nowhere").svg(game)
    with pytest.raises(ValueError, match="needs a position and a caption"):
        pages.Diagram.read(f"position: {start}")
    with pytest.raises(ValueError, match="key: value"):
        pages.Diagram.read(f"position: {start}\ncaption: x\ncolour: red")
    with pytest.raises(boardlab.BoardlabError):
        pages.Diagram.read("position: not a position\ncaption: x").svg(game)


@pytest.mark.parametrize("game_id", SHIPPED)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_draws_each_diagram_and_shows_no_notation(
    http: Any, game_id: str, lang: str
) -> None:
    http.get(f"/?lang={lang}")
    page = http.get(f"/rules/{game_id}")
    assert page.status_code == 200
    assert f'<html lang="{lang}">' in page.text
    diagrams = pages.how_to_diagrams(game_id, lang)
    assert page.text.count('<figure class="diagram"><svg') == len(diagrams)
    text = shown_text(page.text)
    for diagram in diagrams:
        assert diagram.position not in text
        assert diagram.position not in page.text, "not even as an SVG's label"
        assert html.escape(diagram.caption.split(":")[0], quote=False) in page.text
    assert ">>>" not in text and "$ boardlab" not in text
    assert "```" not in text, "every block became a diagram"
    assert f'href="/rules/{game_id}/card"' in page.text, "the complete rules, one click away"
    assert f'href="/new/{game_id}"' in page.text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_card_is_one_click_away_and_leads_back(http: Any, lang: str) -> None:
    http.get(f"/?lang={lang}")
    for game_id in SHIPPED:
        card = http.get(f"/rules/{game_id}/card")
        assert card.status_code == 200
        assert 'class="card"' in card.text and 'table class="options"' in card.text
        assert f'href="/rules/{game_id}"' in card.text
    assert http.get("/rules/nothing/card").status_code == 404


def test_the_learn_page_the_home_page_and_a_game_lead_to_the_how_to_page(http: Any) -> None:
    home = http.get("/?lang=en").text
    assert 'href="/learn"' in home  # the header's Learn
    learn = http.get("/learn").text
    for game_id in SHIPPED:
        assert home.count(f'href="/rules/{game_id}"') == 1, "on its card"
        assert f'href="/rules/{game_id}"' in learn, "on the learn page"
        game_page = http.get(f"/play/{new_game(http, game_id)}").text
        assert f'href="/rules/{game_id}"' in game_page
    howto = http.get(f"/rules/{SHIPPED[0]}").text
    assert 'class="howto"' in howto
