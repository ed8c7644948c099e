"""What a page shows of one position, wherever the position comes from: a game being
played, a lesson's step, the analysis board. The board (SVG), the legal actions with the
places a person clicks for each, and what the last actions did.

The lessons and the analysis board ask about positions no game stores: their requests
carry the position (its string and the game's options) and the server keeps nothing, so
any process answers them and a position is shared by its address. Drawing a board is
work: call these off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import boardlab
from boardlab.core.errors import BoardlabError, InvalidNotationError, UnknownGameError, clipped
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.ui.svg import board_svg

#: The longest position string a request may carry (the longest of any game's is below
#: 100 characters), and the most options.
MOST_POSITION_CHARACTERS, MOST_OPTIONS = 400, 16
#: The most actions one request plays from a position (a lesson's step and its reply).
MOST_ACTIONS = 16

#: The actions a last turn played in a position shown: the position before each, and
#: the action.
LastTurn = Sequence[tuple[Position[Any], int]]


def legal_actions(position: Position[Any]) -> list[dict[str, Any]]:
    """Each legal action: its string, the places a person clicks for it in order, its
    label and kind; none once the game is over."""
    game = position.game
    found = []
    for action in () if position.is_over() else position.legal_actions():
        parts = game.action_parts(position.state, action)
        found.append(
            {
                "action": position.action_string(action),
                "places": list(parts.places),
                "label": parts.label,
                "kind": parts.kind,
            }
        )
    return found


def narration(last: LastTurn, first: int = 0) -> tuple[list[str], list[dict[str, Any]]]:
    """The places the actions of ``last`` involved, and what each did as notes a page
    animates (``ply``: counted from ``first``)."""
    marked: list[str] = []
    notes: list[dict[str, Any]] = []
    for ply, (before, action) in enumerate(last, first):
        game = before.game
        marked.extend(game.action_parts(before.state, action).places)
        notes.extend(
            {"ply": ply, "kind": n.kind, "text": str(n), "places": list(n.places), "sows": n.sows}
            for n in game.narrate(before.state, action)
        )
    return marked, notes


def outcome_of(position: Position[Any]) -> dict[str, Any] | None:
    """How the game ended at ``position`` in words, or None while it goes on."""
    outcome = position.outcome()
    if outcome is None:
        return None
    game = position.game
    names = [game.player_name(0), game.player_name(1)]
    return {
        "sentence": outcome.sentence(game.reason_words, names),
        "winner": outcome.winner,
        "reason": outcome.reason,
    }


def read_position(game_id: str, options: Sequence[str], text: str | None) -> Position[Any]:
    """The position ``text`` of the game ``game_id`` under ``options`` (``NAME=VALUE``
    words), the start when ``text`` is empty; a BoardlabError says what is wrong."""
    game = game_of(game_id, options)
    if not text or not text.strip():
        return game.initial()
    return game.from_position_string(short(text))


def game_of(game_id: str, options: Sequence[str]) -> Game[Any]:
    """The game ``game_id`` under ``options`` (``NAME=VALUE`` words)."""
    if game_id not in boardlab.game_ids():
        raise UnknownGameError(
            _("unknown game {game!r}: expected one of {games}").format(
                game=clipped(game_id, 32), games=", ".join(boardlab.game_ids())
            )
        )
    if len(options) > MOST_OPTIONS:
        raise BoardlabError(
            _("too many options: {count}, at most {most}").format(
                count=len(options), most=MOST_OPTIONS
            )
        )
    schema = boardlab.new_game(game_id).schema
    return boardlab.new_game(game_id, schema.parse_assignments(options, game_id))


def short(text: str) -> str:
    """A position string a request carries, stripped, refused when longer than any."""
    if len(text) > MOST_POSITION_CHARACTERS:
        raise InvalidNotationError(
            _("a position string of {count} characters: a position has at most {most}").format(
                count=len(text), most=MOST_POSITION_CHARACTERS
            )
        )
    return text.strip()


def view(position: Position[Any], last: LastTurn = ()) -> dict[str, Any]:
    """What a page shows of ``position`` that no stored game holds: its board with the
    ``last`` actions marked, what they did, the legal actions, who acts and what is due,
    and the position's string and options, with which a page asks what comes next."""
    game: Game[Any] = position.game
    board = game.board_model(position.state)
    marked, notes = narration(last)
    outcome = outcome_of(position)
    return {
        "game": game.id,
        "name": game.name,
        "options": game.option_assignments(),
        "position": position.position_string(),
        "players": [game.player_name(k) for k in range(len(game.players))],
        "colours": list(game.colours),
        "svg": board_svg(game, board, marked, title=game.name),
        "legal": legal_actions(position),
        "to_act": None if outcome is not None else position.to_act,
        "due": board.due,
        "notes": list(board.notes),
        "tallies": [[str(t) for t in side] for side in board.tallies],
        "turn": position.turns + 1,
        "last": {"places": marked, "notes": notes},
        "outcome": outcome,
    }


def played(
    game_id: str, options: Sequence[str], text: str | None, actions: Sequence[str]
) -> dict[str, Any]:
    """The view after playing ``actions`` (strings) from the position ``text``, those
    actions marked and narrated; an illegal one is refused with the legal ones named."""
    if len(actions) > MOST_ACTIONS:
        raise BoardlabError(
            _("too many actions: {count}, at most {most}").format(
                count=len(actions), most=MOST_ACTIONS
            )
        )
    position = read_position(game_id, options, text)
    last = []
    for action_text in actions:
        action = position.parse_action(action_text)
        last.append((position, action))
        position = position.play(action)
    return view(position, last)


def places(game: Game[Any], state: Any) -> dict[str, str]:
    """The board's places by name, each with its kind (a square, a pit...): those an
    editor's tool may change; the labels are left out."""
    return {p.name: p.kind for p in game.board_model(state).places if p.kind != "label"}


def set_up(game_id: str, options: Sequence[str], text: str | None) -> dict[str, Any]:
    """A position being set up: its view when the rules accept it (``error`` None); else
    its board drawn as the string has it, with nothing to play, and ``error`` saying why
    the rules refuse it. A string that cannot be read at all is refused."""
    try:
        position = read_position(game_id, options, text)
        return {**view(position), "places": places(position.game, position.state), "error": None}
    except InvalidNotationError as refusal:
        game = game_of(game_id, options)
        state = game.parse_state(short(text or ""), check=False)
        board = game.board_model(state)
        return {
            "game": game.id,
            "name": game.name,
            "options": game.option_assignments(),
            "position": short(text or ""),
            "players": [game.player_name(k) for k in range(len(game.players))],
            "colours": list(game.colours),
            "svg": board_svg(game, board, title=game.name),
            "legal": [],
            "to_act": None,
            "due": "",
            "notes": [],
            "tallies": [[str(t) for t in side] for side in board.tallies],
            "turn": None,
            "last": {"places": [], "notes": []},
            "outcome": None,
            "places": places(game, state),
            # the string is in sight beside the board: the reason is what is news
            "error": str(refusal).replace(f" {short(text or '')!r}", ""),
        }


def edited(
    game_id: str, options: Sequence[str], text: str | None, tool: str, place: str | None
) -> dict[str, Any]:
    """The position set up after ``tool`` is used at ``place`` on ``text`` (the start
    when empty), as ``set_up`` shows it."""
    game = game_of(game_id, options)
    before = short(text) if text and text.strip() else game.initial().position_string()
    return set_up(game_id, options, game.edit(before, tool, place))
