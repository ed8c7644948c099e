"""What the pages show, gathered from the games' declarations: the catalogue, the new
game form (from the option schema and the levels), lists of games, the rules pages (the
game's card with its diagrams drawn by the board SVG) and the boards of a review."""

from __future__ import annotations

import html
import importlib.resources
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from markupsafe import Markup

import boardlab
from boardlab.ai import LEVEL_WORDS, level_name
from boardlab.core.errors import BoardlabError, OptionError
from boardlab.core.game import Game
from boardlab.core.i18n import _, counted, language, ngettext, pgettext
from boardlab.core.record import GameRecord
from boardlab.ui.svg import board_svg
from boardlab.web.clock import CHOICES, parse_control
from boardlab.web.data import StoredGame
from boardlab.web.language import format_when

HUMAN = "human"
#: The opponent of a game between two people online: a friend invited by a link.
ONLINE = "online"


def catalogue() -> list[dict[str, Any]]:
    """The registered games, for menus."""
    return [describe_game(game_id) for game_id in boardlab.game_ids()]


def describe_game(game_id: str) -> dict[str, Any]:
    """A game's facts as the API and the new game page show them."""
    game = boardlab.new_game(game_id)
    return {
        "id": game.id,
        "name": game.name,
        "summary": _(game.summary),
        "players": list(game.players),
        "colours": list(game.colours),
        "options": [
            {
                "name": o.name,
                "kind": o.kind,
                "default": o.default,
                "description": _(o.description),
                "choices": list(o.choices),
                "low": o.low,
                "high": o.high,
            }
            for o in game.schema
        ],
        "levels": list(levels(game)),
    }


def levels(game: Game[Any]) -> dict[str, str]:
    from boardlab.ai import levels as game_levels

    return game_levels(game)


@dataclass
class Setup:
    """What the new game form asked for: the options, who sits where, the seats the
    person who asked takes, and, for a game against a friend online, the seat left open
    for them and whether it waits in the lobby."""

    options: dict[str, Any]
    seats: list[str]
    mine: list[int]
    open_seat: int | None = None
    listed: bool = False
    #: The time control, (base, increment) seconds, of a game online; None: no clock.
    clock: tuple[int, int] | None = None


@dataclass
class NewGameForm:
    """The new game form of one game, and the values a person sent."""

    game: Game[Any]
    values: dict[str, str] = field(default_factory=dict)
    error: str = ""

    @classmethod
    def empty(cls, game_id: str) -> NewGameForm:
        return cls(boardlab.new_game(game_id))

    @property
    def summary(self) -> str:
        return _(self.game.summary)

    @staticmethod
    def clocks() -> tuple[str, ...]:
        """The time controls offered (``MINUTES+SECONDS``)."""
        return CHOICES

    @staticmethod
    def clock_label(choice: str) -> str:
        """A time control in words: ``1 minute + 2 seconds a turn``."""
        minutes, seconds = (int(part) for part in choice.split("+"))
        return _("{minutes} + {seconds} a turn").format(
            minutes=counted(minutes, "{n} minute", "{n} minutes"),
            seconds=counted(seconds, "{n} second", "{n} seconds"),
        )

    def fields(self) -> list[dict[str, Any]]:
        """Each option with its description, default and the value shown."""
        return [
            {
                "option": option,
                "description": _(option.description),
                "value": self.values.get(option.name, option.format(option.default)),
                "default": option.format(option.default),
            }
            for option in self.game.schema
        ]

    def opponents(self) -> list[tuple[str, str]]:
        """(value, label) of each opponent: a person on this screen, then each level."""
        found = []
        for name in levels(self.game):
            label = (
                _("{level}: {what}").format(level=level_name(name), what=_(LEVEL_WORDS[name][1]))
                if name in LEVEL_WORDS
                else name
            )
            if name in self.unready:
                label = _("{level} (not ready, see below)").format(level=label)
            found.append((name, label))
        return [
            (HUMAN, _("a friend on this screen")),
            (ONLINE, _("a friend online (an invitation link)")),
            *found,
        ]

    @cached_property
    def unready(self) -> dict[str, str]:
        """Why a level cannot play the game with the default options (the perfect
        player without its table names the command that builds it)."""
        from boardlab.ai import make_agent

        reasons = {}
        for name in levels(self.game):
            try:
                make_agent(name, None, self.game).check(self.game)
            except BoardlabError as error:
                reasons[name] = str(error)
        return reasons

    def read(self, values: Mapping[str, str]) -> Setup:
        """The options and seats the form asks for; an OptionError or BoardlabError says
        what is wrong with them."""
        self.values = dict(values)
        options: dict[str, Any] = {}
        for option in self.game.schema:
            if option.kind == "bool":
                text = "true" if values.get(option.name) in ("true", "on") else "false"
            else:
                text = values.get(option.name, option.format(option.default))
            value = option.parse(text)
            if value != option.default:
                options[option.name] = value
        game = boardlab.new_game(self.game.id, **options)
        opponent = values.get("opponent", "medium")
        if opponent not in (HUMAN, ONLINE) and opponent not in levels(game):
            raise BoardlabError(
                _(
                    "unknown opponent {opponent!r}: expected {human}, {online} or a level "
                    "({levels})"
                ).format(
                    opponent=opponent, human=HUMAN, online=ONLINE, levels=", ".join(levels(game))
                )
            )
        if opponent not in (HUMAN, ONLINE):
            from boardlab.ai import make_agent

            make_agent(opponent, 0, game).check(game)  # a missing table says how to build it
        seat = values.get("seat", "0")
        if seat not in ("0", "1", "random"):
            raise BoardlabError(_("bad seat {seat!r}: expected 0, 1 or random").format(seat=seat))
        if seat == "random":
            import secrets

            seat = str(secrets.randbelow(2))
        mine = int(seat)
        control = values.get("clock", "").strip()
        timed = parse_control(control) if control else None
        if opponent == ONLINE:
            listed = values.get("lobby") in ("true", "on")
            return Setup(options, [HUMAN, HUMAN], [mine], 1 - mine, listed, timed)
        if timed is not None:
            raise BoardlabError(
                _("a clock is for a game between two people online: choose a friend online")
            )
        seats = [HUMAN, HUMAN]
        seats[1 - mine] = opponent
        return Setup(options, seats, [0, 1] if opponent == HUMAN else [mine])


def game_list(games: list[StoredGame]) -> list[dict[str, Any]]:
    """Rows of a list of games."""
    rows = []
    for stored in games:
        game = boardlab.new_game(stored.game, **stored.options)
        seats = [
            game.player_name(k) if spec == HUMAN else _("AI {level}").format(level=level_name(spec))
            for k, spec in enumerate(stored.seats)
        ]
        if stored.result == "*":
            result = _("in play")
        elif stored.result == "draw":
            result = pgettext("result", "draw")
        else:
            winner = game.players.index(stored.result) if stored.result in game.players else None
            shown = stored.result if winner is None else game.player_name(winner)
            result = _("{player} won").format(player=shown)
        rows.append(
            {
                "id": stored.id,
                "name": game.name,
                "options": " ".join(game.option_assignments()),
                "seats": _("{first} vs {second}").format(first=seats[0], second=seats[1]),
                "result": result,
                "over": stored.result != "*",
                "updated": format_when(stored.updated),
            }
        )
    return rows


def lobby_list(games: list[StoredGame]) -> list[dict[str, Any]]:
    """Rows of the lobby: each game waiting for an opponent, and the side one plays."""
    rows = []
    for stored in games:
        game = boardlab.new_game(stored.game, **stored.options)
        seat = stored.open_seat if stored.open_seat is not None else 1
        rows.append(
            {
                "id": stored.id,
                "name": game.name,
                "options": " ".join(game.option_assignments()),
                "waiting": stored.names[1 - seat] or game.player_name(1 - seat),
                "side": game.player_name(seat),
                "colour": game.colours[seat],
                "since": format_when(stored.updated),
            }
        )
    return rows


#: The most boards one request of a review's positions draws: about 15 KB of SVG each,
#: so an answer stays under a megabyte however long the game.
MOST_POSITIONS = 50


def review_boards(record: GameRecord, start: int, count: int) -> list[dict[str, Any]]:
    """Positions ``start`` to ``start + count - 1`` of a game (clipped at its end) as a
    review steps through them: the board with the action that led to it marked, and what
    that action did. Only these are drawn: a long game's boards, all at once, ran to
    gigabytes."""
    game = record.game
    boards = []
    for ply in range(start, min(start + count, len(record.positions))):
        position = record.positions[ply]
        marked: tuple[str, ...] = ()
        notes: list[str] = []
        if ply:
            before, action = record.positions[ply - 1], record.actions[ply - 1]
            marked = game.action_parts(before.state, action).places
            notes = [str(note) for note in game.narrate(before.state, action)]
        board = game.board_model(position.state)
        boards.append(
            {
                "ply": ply,
                "svg": board_svg(game, board, marked),
                "notes": notes,
                "tallies": [[str(t) for t in side] for side in board.tallies],
                "due": board.due,
                "to_act": None if position.is_over() else position.to_act,
            }
        )
    return boards


def review_positions(record: GameRecord, start: int, count: int) -> dict[str, Any]:
    """The answer to a review's request for positions ``start`` onwards (at most
    ``count``) of the game ``record`` holds. SVGs: call it off the event loop."""
    total = len(record) + 1
    if start >= total:
        raise BoardlabError(
            ngettext(
                "no position {start}: this game has {n} position (0 to {last})",
                "no position {start}: this game has {n} positions (0 to {last})",
                total,
            ).format(start=start, n=total, last=total - 1)
        )
    return {"positions": total, "start": start, "boards": review_boards(record, start, count)}


# ---------------------------------------------------------------------- rules pages
@dataclass
class Rules:
    game: Game[Any]
    summary: str
    card: str  # the card as HTML, diagrams in place
    language: str  # the card's language (an English card where none is translated)
    diagram: str  # the start position under the default options
    options: list[dict[str, str]]  # name, default, allowed, description


def rules(game_id: str) -> Rules:
    """The rules page of a game in the current language."""
    return _rules(game_id, language())


@cache
def _rules(game_id: str, lang: str) -> Rules:
    """The rules page of a game: its card in ``lang`` (the binding rules, shipped with
    its package) rendered, each position string in it drawn as a diagram."""
    game = boardlab.new_game(game_id)
    text, card_language = card_text(game, lang)
    title = _("{game} start").format(game=game.name)
    start = board_svg(game, game.board_model(game.initial().state), title=title)
    if not text:
        body = f"<pre>{html.escape(game.rules_in_brief())}</pre>"
        card_language = lang
    else:
        body = render_card(game, text)
    options = [
        {
            "name": o.name,
            "default": o.format(o.default),
            "allowed": o.allowed(),
            "description": _(o.description),
        }
        for o in game.schema
    ]
    return Rules(game, _(game.summary), body, card_language, start, options)


def card_text(game: Game[Any], lang: str = "en") -> tuple[str, str]:
    """The game's card in ``lang`` (``card.de.md`` beside its module; ``card.md`` is the
    English one) and the language it is in; English where ``lang`` has none; empty
    when the game has no card."""
    package = type(game).__module__.rpartition(".")[0]
    for name, card_language in ((f"card.{lang}.md", lang), ("card.md", "en")):
        try:
            text = (importlib.resources.files(package) / name).read_text(encoding="utf-8")
        except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
            continue
        return text, card_language
    return "", "en"


def prose(text: str) -> Markup:
    """A message in markdown's inline syntax (commands in backticks) as HTML, any HTML
    in it escaped."""
    from markdown_it import MarkdownIt

    return Markup(MarkdownIt("commonmark", {"html": False}).renderInline(text))


#: The alignment markdown gives a table cell.
ALIGNED = re.compile(r' style="text-align:(left|center|right)"')
#: A fenced block of the card.
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
#: The card's link to itself in another language (``Deutsch: [id.de.md](id.de.md)``),
#: for readers of the docs; a page has its language links in the header instead.
OTHER_LANGUAGE = re.compile(r"\A\w+: \[[^\]]*\]\([\w.-]+\.md\)[ \t]*\n")


def render_card(game: Game[Any], text: str) -> str:
    """The card as HTML; after each example block a diagram of every position string in
    it that reads under the default options."""
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark").enable("table")
    text = OTHER_LANGUAGE.sub("", text.lstrip())
    out = []
    last = 0
    for match in FENCE.finditer(text):
        out.append(markdown.render(text[last : match.end()]))
        last = match.end()
        for line in match.group(1).splitlines():
            diagram = diagram_of(game, line.strip())
            if diagram:
                out.append(
                    f'<figure class="diagram">{diagram}<figcaption>'
                    f"<code>{html.escape(line.strip())}</code></figcaption></figure>"
                )
    out.append(markdown.render(text[last:]))
    # a table column's alignment as a class: the pages allow no style attribute
    return ALIGNED.sub(r' class="align-\1"', "\n".join(out))


def diagram_of(game: Game[Any], line: str) -> str:
    """The board of ``line`` if it is a position string of ``game``, else empty."""
    if not line or line.startswith(("$", ">>>", "...")) or len(line) > 200:
        return ""
    try:
        position = game.from_position_string(line)
    except (BoardlabError, OptionError, ValueError):
        return ""
    return board_svg(game, game.board_model(position.state), title=line)
