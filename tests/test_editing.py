"""The position editor of every game, checked from what the game declares: each tool at
each place it changes, in positions of random games. ``edit`` is string surgery that does
not ask the rules; whenever the parser accepts its result, the board model must show the
change at that place and nothing else changed, and an edit undone gives the string back.
A string the parser refuses is still read with ``parse_state(text, check=False)`` and
drawn: the board model shows the edits. No game is named here (the tools, places and
pieces are read from each game), except in the last section: Jin Li's stone supplies."""

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
from boardlab.core.errors import clipped
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


def tally_total(board: Board) -> int:
    return sum(tally.value for side in board.tallies for tally in side)


@pytest.mark.parametrize("game_id", GAMES)
def test_an_edit_undone_gives_the_string_back(game_id: str) -> None:
    """Exactly, unless the edit also moved a piece to or from a supply (a tally, not a
    place: Jin Li's stones) and the undoing one cannot tell which supply it came from;
    then the places, the player to act and the total of the tallies come back, and
    such an undo stays rare."""
    undone, near = 0, 0
    for game, text in sample_positions(game_id, POSITIONS // 2):
        tools = game.edit_tools()
        board = game.board_model(game.parse_state(text))
        for tool, place, edited in edits(game, text):
            if place is None:
                assert game.edit(edited, tool.id) == text
                continue
            back = undo(tools, tool, place)
            if back is None:
                continue
            again = game.edit(edited, back.id, place.name)
            undone += 1
            if again == text:
                continue
            where = (tool.id, place.name, text, again)
            changed = game.board_model(game.parse_state(edited, check=False))
            assert changed.tallies != board.tallies, where
            state = game.parse_state(again, check=False)
            after = game.board_model(state)
            assert places_of(after) == places_of(board), where
            assert game.to_act(state) == game.to_act(game.parse_state(text)), where
            assert tally_total(after) == tally_total(board), where
            near += 1
    assert undone
    assert near <= undone // 100, (near, undone)


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


# ---------------------------------------------------------------------- drawing any position
def unchecked(game: Game[Any], text: str) -> Board:
    """The board of ``text`` read without the rules, checked to be drawable: the board
    model, what is due and the player to act are made without error."""
    state = game.parse_state(text, check=False)
    game.due(state)
    assert game.to_act(state) in (0, 1)
    board = game.board_model(state)
    assert places_of(board)
    return board


def judged(game: Game[Any], text: str) -> Any | None:
    """The checked state of ``text``, or None: a refusal is an InvalidNotationError that
    quotes the string."""
    try:
        return game.parse_state(text)
    except InvalidNotationError as error:
        assert repr(clipped(text)) in str(error), (str(error), text)
        return None


@pytest.mark.parametrize("game_id", GAMES)
def test_every_edit_of_the_start_is_accepted_or_drawn(game_id: str) -> None:
    """From the initial position (under the default options and random ones), each tool
    at each place gives a position the parser accepts, or one that it refuses but reads
    unchecked and draws, showing the edit."""
    rng = random.Random(f"start {game_id}")
    cls = boardlab.game_class(game_id)
    for options in [{}, *(random_options(cls, rng) for _ in range(OPTION_SETS))]:
        game = boardlab.new_game(game_id, options)
        text = game.format_state(game.initial_state())
        before = places_of(game.board_model(game.initial_state()))
        accepted = 0
        for tool, place, edited in edits(game, text):
            state = judged(game, edited)
            board = unchecked(game, edited)
            if state is not None:
                accepted += 1
                assert game.parse_state(edited, check=False) == state
                assert game.format_state(state) == edited
            if place is not None:
                assert expected(tool, place, places_of(board)[place.name]), (tool.id, edited)
            else:
                assert places_of(board) == before
        assert accepted, "no edit of the start is a legal position"


@given(data=st.data())
def test_a_run_of_edits_is_always_drawn(data: st.DataObject) -> None:
    """Every string of a run of random edits is read unchecked and drawn, and its board
    shows each edit (the tool's change at its place, nothing else; a switch, the other
    player to act); the checked parser accepts it or refuses it quoting it."""
    game_id = data.draw(st.sampled_from(GAMES))
    game, text = data.draw(st.sampled_from(sample_positions(game_id, 20)))
    board = unchecked(game, text)
    for _ in range(data.draw(st.integers(1, 16))):
        tool = data.draw(st.sampled_from(game.edit_tools()))
        side = game.to_act(game.parse_state(text, check=False))
        if tool.kinds:
            name = data.draw(
                st.sampled_from([p.name for p in board.playing_places() if p.kind in tool.kinds])
            )
            text = game.edit(text, tool.id, name)
        else:
            name = None
            text = game.edit(text, tool.id)
        before, board = places_of(board), unchecked(game, text)
        after = places_of(board)
        state = game.parse_state(text, check=False)
        assert after.keys() == before.keys()
        if name is None:
            assert game.to_act(state) == 1 - side and after == before
        else:
            assert expected(tool, before[name], after[name]), (tool.id, name, text)
            assert game.to_act(state) == side
            assert {k: v for k, v in after.items() if k != name} == {
                k: v for k, v in before.items() if k != name
            }
        checked = judged(game, text)
        if checked is not None:
            assert checked == state and game.format_state(checked) == text


@pytest.mark.parametrize("game_id", GAMES)
def test_a_legal_string_reads_the_same_unchecked(game_id: str) -> None:
    for game, text in sample_positions(game_id):
        assert game.parse_state(text, check=False) == game.parse_state(text), text


@pytest.mark.parametrize("game_id", GAMES)
def test_a_malformed_string_is_refused_unchecked_too(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    text = game.format_state(game.initial_state())
    for bad in ("", "not a position", text + " 1", text.replace(" ", "  / ", 1)):
        with pytest.raises(InvalidNotationError) as refused:
            game.parse_state(bad, check=False)
        assert repr(clipped(bad)) in str(refused.value) or bad.split()[0] in str(refused.value)


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


# ---------------------------------------------------------------------- Jin Li's stones
def test_jinli_stones_come_from_a_supply_and_go_back_to_one() -> None:
    """A stone put on the pond comes from the supply of the player to act (else the
    other's); one cleared, or covered by a koi, goes back to the player to act's supply
    unless it is full (then to the other's); a stone more than the game has leaves it."""
    game = boardlab.new_game("jinli")
    start = "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0"
    put = game.edit(start, "stone", "d4")
    assert put == "Y5Y/7/7/3o3/7/7/R5R r m 9/10 0/0 0 0"
    game.parse_state(put)  # accepted: the stones of the game keep their number
    assert game.edit(put, "clear", "d4") == start
    assert game.edit(put, "stone", "d4") == put  # a stone on a stone: nothing moves
    assert game.edit(put, "red-koi", "d4") == "Y5Y/7/7/3R3/7/7/R5R r m 10/10 0/0 0 0"
    # after Red's drop Yellow is to act with a full supply: the stone goes back to Red
    dropped = "Y5Y/7/7/3o3/7/1R5/6R y m 9/10 0/0 0 1"
    assert game.edit(dropped, "clear", "d4") == "Y5Y/7/7/7/7/1R5/6R y m 10/10 0/0 0 1"
    # the player to act has none: the other's supply gives it
    empty = "Y5Y/7/7/3o3/7/1R5/6R r m 0/3 0/0 0 1"
    assert game.edit(empty, "stone", "e4").endswith(" r m 0/2 0/0 0 1")
    # both empty, all 20 on the pond: a 21st is refused, and cleared again leaves
    full = game.format_state(game.parse_state(put))
    for square in ("a2", "b2", "c2", "d2", "e2", "f2", "g2", "a3", "b3", "c3"):
        full = game.edit(full, "stone", square)
    for square in ("d3", "e3", "f3", "g3", "a4", "b4", "c4", "e4", "f4"):
        full = game.edit(full, "stone", square)
    assert full.split()[3] == "0/0"
    game.parse_state(full)
    over = game.edit(full, "stone", "g4")
    with pytest.raises(InvalidNotationError, match="21 stones on the board") as refused:
        game.parse_state(over)
    assert repr(over) in str(refused.value)
    assert game.board_model(game.parse_state(over, check=False)).tallies[0][1].value == 0
    assert game.edit(over, "clear", "g4") == full
