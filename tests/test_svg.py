"""SVG boards, drawn from the board model of any game: well-formed, one element for every
playing place named as actions name it, what stands on it said in its title, the last
turn's places marked and the targets dotted."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from itertools import pairwise

import pytest

import boardlab
from boardlab.core.i18n import use_language
from boardlab.ui.svg import NEUTRAL, SURFACE, board_svg, describe, draw
from support import random_game

SVG = "{http://www.w3.org/2000/svg}"


def places_of(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.attrib["data-place"]: g for g in root.iter(f"{SVG}g") if "data-place" in g.attrib}


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_every_position_of_random_games_draws(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    for seed in range(3):
        positions = random_game(game, random.Random(seed))
        for before, after in pairwise(positions):
            action = next(a for a in before.legal_actions() if before.play(a) == after)
            marked = set(game.action_parts(before.state, action).places)
            targets = {p.name for p in game.board_model(after.state).playing_places()[:2]}
            svg = board_svg(game, game.board_model(after.state), marked, targets)
            drawn = places_of(svg)
            board = game.board_model(after.state)
            assert set(drawn) == {p.name for p in board.playing_places()}
            for place in board.playing_places():
                assert drawn[place.name].find(f"{SVG}title").text == describe(game, place)
            strokes = {
                n for n, g in drawn.items() if 'stroke="#ffd54f"' in ET.tostring(g, "unicode")
            }
            assert strokes == marked
            dotted = {
                n for n, g in drawn.items() if g.find(f"{SVG}circle[@class='target']") is not None
            }
            assert dotted == targets


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_a_board_redrawn_from_the_one_before_is_the_board_drawn_whole(game_id: str) -> None:
    """A room draws each board from the one before it (``draw(before=...)``), redrawing
    only the places that are new objects or changed their mark: its lines are those of
    the board drawn from nothing, at every ply of random games, also when the board
    before it is one of a few plies ago or of another game, in both languages."""
    game = boardlab.new_game(game_id)
    rng = random.Random(game_id)
    for lang in ("en", "de"):
        with use_language(lang):
            before = None
            kept = []
            for seed in range(3):
                positions = random_game(game, random.Random(seed))
                for earlier, after in pairwise(positions):
                    action = next(a for a in earlier.legal_actions() if earlier.play(a) == after)
                    marked = game.action_parts(earlier.state, action).places
                    board = game.board_model(after.state)
                    title = f"ply {rng.randrange(9)}"
                    if kept and rng.random() < 0.1:
                        before = rng.choice(kept)  # a board of a few plies ago, or of the
                        # game before (the room of a game undone, or of a rematch)
                    drawing = draw(game, board, marked, title=title, before=before)
                    assert "\n".join(drawing.lines) == board_svg(game, board, marked, title=title)
                    kept.append(drawing)
                    before = drawing


def test_counts_pieces_and_titles_say_what_stands_there() -> None:
    galatjang = boardlab.new_game("galatjang", pits=3, seeds=2)
    svg = board_svg(galatjang, galatjang.board_model(galatjang.initial().state))
    pit = places_of(svg)["s2"]
    assert pit.find(f"{SVG}title").text == "s2: 2 seeds"
    assert [t.text for t in pit.iter(f"{SVG}text")] == ["2"]
    jinli = boardlab.new_game("jinli")
    drawn = places_of(board_svg(jinli, jinli.board_model(jinli.initial().state)))
    assert drawn["a1"].find(f"{SVG}title").text == "a1: red koi"
    assert drawn["d4"].find(f"{SVG}title").text == "d4: empty"
    assert 'fill="#d55e00"' in ET.tostring(drawn["a1"], "unicode")  # Red's colour


def test_names_and_labels_are_escaped() -> None:
    linja = boardlab.new_game("linja")
    svg = board_svg(linja, linja.board_model(linja.initial().state), title='<script>"x"</script>')
    assert (
        "<script>" not in svg and ET.fromstring(svg).attrib["aria-label"] == '<script>"x"</script>'
    )


# How people with each kind of dichromacy see a colour: Machado, Oliveira and Fernandes
# (2009), severity 1, applied to linear RGB.
DICHROMACY = {
    "typical": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def seen_as_lab(colour: str, vision: str) -> tuple[float, float, float]:
    """CIELAB (D65) of a CSS hex colour as ``vision`` sees it."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    rgb = [linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5)]
    rgb = [
        min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True))))
        for row in DICHROMACY[vision]
    ]
    x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047
    y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def difference(a: str, b: str, vision: str) -> float:
    """CIE76 colour difference; about 2 is just noticeable, above 20 plainly different."""
    return math.dist(seen_as_lab(a, vision), seen_as_lab(b, vision))


def test_the_colour_model_tells_red_from_green_only_for_typical_vision() -> None:
    assert difference("#ff0000", "#00a000", "typical") > 80
    assert difference("#d62728", "#2ca02c", "deuteranopia") < 20  # the classic clash


@pytest.mark.parametrize("game_id", boardlab.game_ids())
@pytest.mark.parametrize("vision", DICHROMACY)
def test_colour_blind_players_tell_the_pieces_apart(game_id: str, vision: str) -> None:
    first, second = boardlab.new_game(game_id).colours
    assert difference(first, second, vision) > 25
    for piece in (first, second):
        assert difference(piece, NEUTRAL, vision) > 20  # a stone is nobody's
        for surface in SURFACE.values():
            assert difference(piece, surface, vision) > 20  # on every kind of place
