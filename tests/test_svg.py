"""SVG boards, drawn from the board model of any game: well-formed, one element for every
playing place named as actions name it, what stands on it said in its title, the last
turn's places marked and the targets dotted."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from itertools import pairwise

import pytest

import boardlab
from boardlab.ui.svg import board_svg, describe
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
