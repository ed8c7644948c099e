"""The position editor of every game, checked from what the game declares: each tool at
each place it changes, in positions of random games. ``edit`` is string surgery that does
not ask the rules; whenever the parser accepts its result, the board model must show the
change at that place and nothing else changed, and an edit undone gives the string back.
No game is named here: the tools, places and pieces are read from each game."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import boardlab
from boardlab import InvalidNotationError
from boardlab.core.board import Board, Piece, Place
from boardlab.core.editing import EditTool
from boardlab.core.game import Game
from boardlab.testing import random_options

GAMES = boardlab.game_ids()
#: Positions a game: from random games under the default options and a few random sets.
POSITIONS = 200
OPTION_SETS = 4


def sample_positions(game_id: str, count: int = POSITIONS) -> list[tuple[Game[Any], str]]:
    """``count`` position strings of random games, taken here and there from start to end
    (the end always), under the default options and then random option sets."""
    rng = random.Random(f"edit {game_id}")
    cls = boardlab.game_class(game_id)
    sets = [{}, *(random_options(cls, rng) for _ in range(OPTION_SETS))]
    found: list[tuple[Game[Any], str]] = []
    for number, options in enumerate(sets):
        game = boardlab.new_game(game_id, options)
        wanted = count // 2 + (count - count // 2) * number // OPTION_SETS
        while len(found) < wanted:
            state = game.initial_state()
            while True:
                actions = game.legal_actions(state)
                if not actions or rng.random() < 0.08:
                    found.append((game, game.format_state(state)))
                if not actions or len(found) >= wanted:
                    break
                state = game.apply(state, rng.choice(actions))
    return found


def parsed(game: Game[Any], text: str) -> Any | None:
    """The state of ``text``, or None when the parser refuses it (the only way it may)."""
    try:
        return game.parse_state(text)
    except InvalidNotationError:
        return None


def places_of(board: Board) -> dict[str, Place]:
    return {place.name: place for place in board.playing_places()}


def count(place: Place, piece: Piece) -> int:
    """Pieces like ``piece`` (kind and owner) on ``place``."""
    return sum(p.count for p in place.pieces if (p.kind, p.owner) == (piece.kind, piece.owner))


def holding(place: Place) -> list[tuple[str, int | None, int]]:
    """What stands on ``place``: kind, owner and count of each piece present."""
    return sorted(((p.kind, p.owner, p.count) for p in place.pieces if p.count), key=str)


def is_empty(place: Place) -> bool:
    return not holding(place) and not place.blocked


def expected(tool: EditTool, before: Place, after: Place) -> bool:
    """Whether ``after`` is ``before`` changed as ``tool`` says."""
    piece = tool.piece
    if tool.effect == "put":
        assert piece is not None
        return holding(after) == [(piece.kind, piece.owner, 1)]
    if tool.effect == "clear":
        return is_empty(after)
    if tool.effect == "block":
        return after.blocked != before.blocked and not holding(after)
    assert piece is not None and tool.effect in ("add", "remove")
    if before.blocked:
        return after == before
    change = 1 if tool.effect == "add" else -1 if count(before, piece) else 0
    others = [h for h in holding(before) if h[:2] != (piece.kind, piece.owner)]
    rest = [h for h in holding(after) if h[:2] != (piece.kind, piece.owner)]
    return count(after, piece) == count(before, piece) + change and rest == others


def undo(tools: tuple[EditTool, ...], tool: EditTool, place: Place) -> EditTool | None:
    """The tool that gives back the string ``tool`` changed at ``place``, when there is
    one: remove after add, add after remove of a piece there, clear after put on an empty
    place, put after clear of a place holding its piece, block after block of an empty
    pit, switch after switch."""
    piece = tool.piece

    def find(effect: str, piece: Piece | None = None) -> EditTool | None:
        for other in tools:
            if other.effect != effect or place.kind not in other.kinds:
                continue
            if piece is None or (other.piece is not None and same(other.piece, piece)):
                return other
        return None

    if tool.effect == "add":
        return find("remove", piece)
    if tool.effect == "remove" and piece is not None and count(place, piece) and not place.blocked:
        return find("add", piece)
    if tool.effect == "put" and is_empty(place):
        return find("clear")
    if tool.effect == "clear" and len(holding(place)) == 1:
        kind, owner, n = holding(place)[0]
        return find("put", Piece(kind, owner)) if n == 1 else None
    if tool.effect == "block" and not holding(place):
        return tool
    return None


def same(a: Piece, b: Piece) -> bool:
    return (a.kind, a.owner) == (b.kind, b.owner)


def edits(game: Game[Any], text: str) -> Iterator[tuple[EditTool, Place | None, str]]:
    """Every edit of ``text``: each tool at each place of a kind it changes (a tool of no
    kind once, with no place), with its result."""
    board = game.board_model(game.parse_state(text))
    for tool in game.edit_tools():
        if not tool.kinds:
            yield tool, None, game.edit(text, tool.id)
            continue
        for place in board.playing_places():
            if place.kind in tool.kinds:
                yield tool, place, game.edit(text, tool.id, place.name)


# ---------------------------------------------------------------------- the palette
@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_declares_a_palette_of_its_own_places(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    tools = game.edit_tools()
    assert tools, "a game without an editor"
    ids = [tool.id for tool in tools]
    assert len(ids) == len(set(ids)) and all(i == i.lower() and " " not in i for i in ids)
    kinds = {place.kind for place in game.board_model(game.initial_state()).playing_places()}
    for tool in tools:
        assert tool.label and set(tool.kinds) <= kinds, tool
        assert (tool.piece is not None) == (tool.effect in ("put", "add", "remove")), tool
    assert [tool.effect for tool in tools].count("switch") == 1


# ---------------------------------------------------------------------- every tool, every place
@pytest.mark.parametrize("game_id", GAMES)
def test_each_tool_changes_its_place_and_nothing_else(game_id: str) -> None:
    shown: Counter[str] = Counter()
    for game, text in sample_positions(game_id):
        state = game.parse_state(text)
        before = places_of(game.board_model(state))
        for tool, place, edited in edits(game, text):
            assert isinstance(edited, str)
            where = f"{tool.id} at {place.name if place else '-'} in {text!r} -> {edited!r}"
            after_state = parsed(game, edited)
            if after_state is None:
                continue
            assert game.format_state(after_state) == edited, where
            after = places_of(game.board_model(after_state))
            assert after.keys() == before.keys(), where
            if place is None:
                assert game.to_act(after_state) == 1 - game.to_act(state), where
                assert after == before, where
            else:
                assert expected(tool, place, after[place.name]), where
                assert game.to_act(after_state) == game.to_act(state), where
                assert {k: v for k, v in after.items() if k != place.name} == {
                    k: v for k, v in before.items() if k != place.name
                }, where
            if edited != text:
                shown[tool.id] += 1
    # every tool was seen to change a position the parser accepts (so the check bites)
    missing = [tool.id for tool in boardlab.new_game(game_id).edit_tools() if not shown[tool.id]]
    if missing:
        moved = moves(game_id)
        missing = [tool for tool in missing if not moved[tool]]
    assert missing == []


def moves(game_id: str) -> Counter[str]:
    """Tools seen at work in a piece moved: lifted from one place (clear, remove) and set
    on another (put, add), as a player moves a piece on the editor; a position with one
    koi lifted is impossible, the one with the koi set down again is not."""
    seen: Counter[str] = Counter()
    for game, text in sample_positions(game_id, POSITIONS // 4):
        tools = game.edit_tools()
        board = places_of(game.board_model(game.parse_state(text)))
        for setter in tools:
            if setter.effect not in ("put", "add") or setter.piece is None:
                continue
            lifter = next(
                t
                for t in tools
                if t.effect in ("clear", "remove")
                and (t.effect == "clear" or (t.piece and same(t.piece, setter.piece)))
                and set(t.kinds) & set(setter.kinds)
            )
            origins = [
                p for p in board.values() if p.kind in lifter.kinds and count(p, setter.piece)
            ]
            targets = [p for p in board.values() if p.kind in setter.kinds and not p.blocked]
            for origin in origins[:3]:
                for target in targets:
                    if target.name == origin.name or (
                        setter.effect == "put" and not is_empty(target)
                    ):
                        continue
                    edited = game.edit(
                        game.edit(text, lifter.id, origin.name), setter.id, target.name
                    )
                    state = parsed(game, edited)
                    if state is None:
                        continue
                    after = places_of(game.board_model(state))
                    assert (
                        count(after[origin.name], setter.piece) == count(origin, setter.piece) - 1
                    )
                    assert (
                        count(after[target.name], setter.piece) == count(target, setter.piece) + 1
                    )
                    moved = {origin.name, target.name}
                    assert {k: v for k, v in after.items() if k not in moved} == {
                        k: v for k, v in board.items() if k not in moved
                    }
                    seen[setter.id] += 1
                    seen[lifter.id] += 1
    return seen


@pytest.mark.parametrize("game_id", GAMES)
def test_an_edit_undone_gives_the_string_back(game_id: str) -> None:
    undone = 0
    for game, text in sample_positions(game_id, POSITIONS // 2):
        tools = game.edit_tools()
        for tool, place, edited in edits(game, text):
            if place is None:
                assert game.edit(edited, tool.id) == text
                continue
            back = undo(tools, tool, place)
            if back is not None:
                assert game.edit(edited, back.id, place.name) == text, (tool.id, place.name, text)
                undone += 1
    assert undone


@pytest.mark.parametrize("game_id", GAMES)
def test_a_moved_piece_makes_a_position_the_parser_accepts(game_id: str) -> None:
    assert sum(moves(game_id).values()) > 0


# ---------------------------------------------------------------------- impossible positions
@given(data=st.data())
def test_edits_go_through_impossible_positions(data: st.DataObject) -> None:
    """A run of random edits never fails however impossible the position becomes; each
    string it makes is read again by the editor, and is either refused by the parser with
    InvalidNotationError or accepted and written back the same."""
    game_id = data.draw(st.sampled_from(GAMES))
    game, text = data.draw(st.sampled_from(sample_positions(game_id, 20)))
    places = game.board_model(game.parse_state(text)).playing_places()
    for _ in range(data.draw(st.integers(1, 12))):
        tool = data.draw(st.sampled_from(game.edit_tools()))
        if tool.kinds:
            place = data.draw(st.sampled_from([p.name for p in places if p.kind in tool.kinds]))
            text = game.edit(text, tool.id, place)
        else:
            text = game.edit(text, tool.id)
        state = parsed(game, text)
        if state is not None:
            assert game.format_state(state) == text


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("game_id", GAMES)
def test_bad_edits_are_refused_quoting_the_input(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    text = game.format_state(game.initial_state())
    tools = game.edit_tools()
    placed = next(tool for tool in tools if tool.kinds)
    whole = next(tool for tool in tools if not tool.kinds)
    places = game.board_model(game.initial_state()).playing_places()
    bad = [
        (text, "no-such-tool", None, ["no-such-tool", text, *(t.id for t in tools)]),
        (text, placed.id, "z99", ["z99", text, placed.id]),
        (text, placed.id, None, [text, placed.id]),
        (text, whole.id, places[0].name, [places[0].name, text, whole.id]),
        ("not a position", whole.id, None, ["not a position"]),
        ("", placed.id, places[0].name, ["''"]),
        (text.replace(" ", "  / ", 1), whole.id, None, [text.split()[0]]),
    ]
    # a place of another kind: another kind of place the board has, or a label
    for tool in tools:
        every = game.board_model(game.initial_state()).places
        wrong = [p.name for p in every if tool.kinds and p.kind not in tool.kinds]
        bad += [(text, tool.id, name, [name, text, tool.id]) for name in wrong[:1]]
    assert len(bad) > 7
    for source, tool, place, quoted in bad:
        with pytest.raises(InvalidNotationError) as refused:
            game.edit(source, tool, place)
        message = str(refused.value)
        assert all(part in message for part in quoted), (message, quoted)


def test_a_game_without_an_editor_says_so() -> None:
    from fourth_game import TicTacToe

    game = TicTacToe()
    text = game.format_state(game.initial_state())
    assert game.edit_tools() == ()
    with pytest.raises(InvalidNotationError, match="no position editor") as refused:
        game.edit(text, "switch")
    assert repr(text) in str(refused.value)
