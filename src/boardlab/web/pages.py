"""What the pages show, gathered from the games' declarations: the catalogue, the new
game form (from the option schema and the levels), lists of games, the rules pages (the
game's card with its diagrams drawn by the board SVG) and the boards of a review."""

from __future__ import annotations

import html
import importlib.resources
import logging
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, partial
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

import boardlab
from boardlab.ai import LEVEL_WORDS, level_name
from boardlab.core.errors import (
    BoardlabError,
    IllegalActionError,
    InvalidNotationError,
    OptionError,
    clipped,
)
from boardlab.core.game import Game
from boardlab.core.i18n import _, counted, language, ngettext, pgettext
from boardlab.core.options import Option, OptionValue
from boardlab.core.record import ABORTED, GameRecord, RecordError
from boardlab.lessons import lesson, lessons, words
from boardlab.ui.svg import board_svg
from boardlab.web.clock import CHOICES, parse_control
from boardlab.web.data import NotFound, StoredGame, shown_name
from boardlab.web.language import format_number, time_tag
from boardlab.web.positions import view

if TYPE_CHECKING:
    from boardlab.web.challenges import Challenge

log = logging.getLogger("boardlab.web")

HUMAN = "human"
#: The opponent of a game between two people online: a friend invited by a link.
ONLINE = "online"
#: The opponent of a challenge: a player named on the form (``to``).
CHALLENGE = "challenge"
#: The rating ranges a seek in the lobby may ask for: this far from its maker's rating.
RATING_RANGES = (100, 200, 300, 500)


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
    #: A rated game (asked for, online, under the default rules): only accounts play it.
    rated: bool = False
    #: A seek's rating range, this far either side of its maker's rating (in the lobby).
    rating_range: int | None = None
    #: The player challenged (by name), and the challenger's side (``0``, ``1`` or
    #: ``random``): a challenge rather than a game.
    challenge: str | None = None
    side: str = "0"


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
    def rating_ranges() -> tuple[int, ...]:
        """The rating ranges a seek may ask for, either side of its maker's rating."""
        return RATING_RANGES

    @staticmethod
    def clock_label(choice: str) -> str:
        """A time control in words: ``1 minute + 2 seconds a turn``."""
        minutes, seconds = (int(part) for part in choice.split("+"))
        return _("{minutes} + {seconds} a turn").format(
            minutes=counted(minutes, "{n} minute", "{n} minutes"),
            seconds=counted(seconds, "{n} second", "{n} seconds"),
        )

    def fields(self) -> list[dict[str, Any]]:
        """Each option in words (its label, its choices), with its description, default
        and the value shown."""
        return [
            {
                "option": option,
                "label": option.title(),
                "description": _(option.description),
                "value": self.values.get(option.name, option.format(option.default)),
                "default": value_in_words(option, option.default),
                "choices": [(c, option.choice_title(c)) for c in option.choices],
            }
            for option in self.game.schema
        ]

    def opponents(self, signed_in: bool = False) -> list[tuple[str, str]]:
        """(value, label) of each opponent: a person on this screen, a friend online, a
        player by name (a challenge, for a signed-in player), then each level that can
        play the game here (with its default options)."""
        found = [
            (
                name,
                _("{level}: {what}").format(level=level_name(name), what=_(LEVEL_WORDS[name][1]))
                if name in LEVEL_WORDS
                else name,
            )
            for name in levels(self.game)
            if name not in self.unready
        ]
        return [
            (HUMAN, _("a friend on this screen")),
            (ONLINE, _("a friend online (an invitation link)")),
            *([(CHALLENGE, _("a player by name (a challenge)"))] if signed_in else []),
            *found,
        ]

    def preparing(self) -> list[tuple[str, str]]:
        """(value, label) of the levels that play from a table this server is building
        now, with how far it is (the form shows them greyed, not to be chosen)."""
        from boardlab.web import tables

        status = tables.read_status(self.game.id)
        if not status.get("wanted"):
            return []
        percent = int(100 * status.get("done", 0) / status["total"]) if status.get("total") else 0
        return [
            (
                name,
                _("{level}: being prepared, {percent} %").format(
                    level=level_name(name), percent=percent
                ),
            )
            for name, spec in levels(self.game).items()
            if name in self.unready and spec.split(":")[0] == "perfect"
        ]

    @cached_property
    def unready(self) -> dict[str, str]:
        """The levels that cannot play the game here with the default options, and why,
        for the host (the perfect player without a solver, or without its table, names
        the command that builds it). The form leaves them out; the server's log says
        why, once per level and game (``host_note``)."""
        reasons = {}
        for name in levels(self.game):
            why = cannot_play(name, self.game)
            if why is not None:
                reasons[name] = why
                host_note(self.game.id, name, why)
        return reasons

    def read(self, values: Mapping[str, str]) -> Setup:
        """The options and seats the form asks for; an OptionError or BoardlabError says
        what is wrong with them in a player's words (the options by their labels)."""
        self.values = dict(values)
        options: dict[str, Any] = {}
        for option in self.game.schema:
            if option.kind == "bool":
                text = "true" if values.get(option.name) in ("true", "on") else "false"
            else:
                text = values.get(option.name, option.format(option.default))
            try:
                value = option.parse(text)
            except OptionError:
                raise OptionError(refusal(option, text)) from None
            if value != option.default:
                options[option.name] = value
        game = boardlab.new_game(self.game.id, **options)
        opponent = values.get("opponent", "medium")
        if opponent not in (HUMAN, ONLINE, CHALLENGE) and opponent not in levels(game):
            raise BoardlabError(
                _("unknown opponent {opponent!r}: choose one the form offers").format(
                    opponent=clipped(opponent, 32)
                )
            )
        if opponent not in (HUMAN, ONLINE, CHALLENGE):
            why = cannot_play(opponent, game)
            if why is not None:  # the host learns why from the log, the player what to do
                host_note(game.id, opponent, why)
                raise BoardlabError(
                    _(
                        "The level {level} cannot play {game} with these options here: "
                        "choose another opponent"
                    ).format(level=level_name(opponent), game=game.name)
                )
        seat = values.get("seat", "0")
        if seat not in ("0", "1", "random"):
            raise BoardlabError(
                _("bad seat {seat!r}: expected 0, 1 or random").format(seat=clipped(seat, 32))
            )
        side = seat
        if seat == "random":
            import secrets

            seat = str(secrets.randbelow(2))
        mine = int(seat)
        control = values.get("clock", "").strip()
        timed = parse_control(control) if control else None
        # any option that is not the default makes the game unrated (as the form says)
        rated = values.get("rated") in ("true", "on") and not options
        if opponent == CHALLENGE:
            to = " ".join(str(values.get("to", "")).split())
            if not to:
                raise BoardlabError(_("name the player to challenge"))
            setup = Setup(options, [HUMAN, HUMAN], [mine], clock=timed, rated=rated)
            setup.challenge, setup.side = to[:64], side
            return setup
        if opponent == ONLINE:
            listed = values.get("lobby") in ("true", "on")
            setup = Setup(options, [HUMAN, HUMAN], [mine], 1 - mine, listed, timed, rated)
            setup.rating_range = read_range(values.get("range", ""), listed)
            return setup
        if timed is not None:
            raise BoardlabError(
                _("a clock is for a game between two people online: choose a friend online")
            )
        seats = [HUMAN, HUMAN]
        seats[1 - mine] = opponent
        return Setup(options, seats, [0, 1] if opponent == HUMAN else [mine])

    @staticmethod
    def too_long(game: Game[Any], most: int) -> str:
        """The refusal of options under which a game could outgrow what the server keeps
        (``most`` actions), naming the numbers the player chose by their labels."""
        chosen = [
            game.schema.get(name).title()
            for name, value in game.non_default_options().items()
            if not isinstance(value, bool) and isinstance(value, int)
        ]
        return _(
            "With these options a game could last {count} actions, and this server keeps "
            "games of up to {most}: choose a lower {options}"
        ).format(
            count=format_number(game.max_actions),
            most=format_number(most),
            options=", ".join(chosen) or _("number"),
        )


def read_range(text: str, listed: bool) -> int | None:
    """A seek's rating range as the form sends it (``200``: 200 either side of the
    maker's rating; nothing: any rating), refused with the choices."""
    if not text.strip():
        return None
    if text.strip() in {str(r) for r in RATING_RANGES}:
        if not listed:
            raise BoardlabError(
                _("a rating range is for a game that waits in the lobby: tick “wait in the lobby”")
            )
        return int(text)
    raise BoardlabError(
        _("bad rating range {range!r}: choose any rating or ±{choices} of yours").format(
            range=clipped(text, 32), choices=", ±".join(str(r) for r in RATING_RANGES)
        )
    )


def cannot_play(level: str, game: Game[Any]) -> str | None:
    """Why the agent of ``level`` cannot play ``game`` on this server (for the host: it
    may name a command or a path), or None when it can."""
    from boardlab.ai import make_agent

    try:
        make_agent(level, None, game).check(game)
    except BoardlabError as error:
        return str(error)
    return None


@cache
def host_note(game_id: str, level: str, why: str) -> None:
    """Tell the host, once per process, that a level cannot play a game here and why
    (where its table is missing, the command that builds it)."""
    log.warning("the level %s is not offered for %s: %s", level, game_id, why)


def value_in_words(option: Option, value: OptionValue) -> str:
    """A value of ``option`` as the form shows it: a choice in words, a box ticked or
    not, a number as it is."""
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if option.kind == "choice":
        return option.choice_title(str(value))
    return str(value)


def refusal(option: Option, text: str) -> str:
    """A value the form sent for ``option`` that it does not allow, refused in a
    player's words: the option's label and what to choose."""
    if option.kind == "int":
        allowed = _("a whole number from {low} to {high}").format(low=option.low, high=option.high)
    elif option.kind == "choice":
        allowed = ", ".join(option.choice_title(c) for c in option.choices)
    else:
        allowed = _("on or off")
    return _("{option}: {value} is not allowed here; choose {allowed}").format(
        option=option.title(), value=clipped(text.strip() or '""', 32), allowed=allowed
    )


def options_in_words(game: Game[Any]) -> str:
    """The options a game changed from their defaults, as people read them:
    ``Pits per row: 3, Seeds per pit: 2``."""
    return ", ".join(
        _("{option}: {value}").format(
            option=game.schema.get(name).title(),
            value=value_in_words(game.schema.get(name), value),
        )
        for name, value in game.non_default_options().items()
    )


def upload_refusal(name: str, error: BoardlabError) -> str:
    """Why an uploaded record cannot be read, for a player: a move by its number and
    text, the start position as the record's, never the engine's notation of a
    position (the reader's message quotes it, for the command line)."""
    cause = error.__context__  # what the record's reader caught (raised "from None")
    if isinstance(error, RecordError) and error.index is not None:
        move = clipped(error.token, 32)
        if isinstance(cause, IllegalActionError):
            message = _("{name}: move {index}, {move}, cannot be played at that point of the game")
        else:
            message = _("{name}: move {index}, {move}, is not a move of this game")
        return message.format(name=name, index=error.index, move=move)
    if isinstance(cause, InvalidNotationError) and not isinstance(cause, RecordError):
        return _("{name}: the record's start position cannot be read").format(name=name)
    if isinstance(cause, OptionError):
        return _("{name}: the record's options are not allowed ({why})").format(
            name=name, why=cause
        )
    return f"{name}: {error}"


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
        elif stored.result == ABORTED:
            result = pgettext("result", "aborted")
        else:
            winner = game.players.index(stored.result) if stored.result in game.players else None
            shown = stored.result if winner is None else game.player_name(winner)
            result = _("{player} won").format(player=shown)
        rows.append(
            {
                "id": stored.id,
                "name": game.name,
                "options": options_in_words(game),
                "seats": _("{first} vs {second}").format(first=seats[0], second=seats[1]),
                "result": result,
                "over": stored.result != "*",
                "updated": time_tag(stored.updated),
            }
        )
    return rows


def lobby_list(
    games: list[StoredGame],
    ratings: Mapping[tuple[int, str], tuple[float, str]],
    names: Mapping[int, str],
    asker: int | None,
    bots: Collection[int] = frozenset(),
) -> list[dict[str, Any]]:
    """Rows of the lobby: each game waiting for an opponent, its rules and clock in
    words, its maker (with their rating at the game, when signed in; marked when a bot,
    one of ``bots``), the side one plays, and why the asker (an account, None: a guest)
    may not take it, if so. ``ratings`` are the accounts' at games (``Store.ratings_at``),
    ``names`` their names (a seat held by an account is named by it, unless its player
    gave a name)."""
    rows = []
    for stored in games:
        game = boardlab.new_game(stored.game, **stored.options)
        seat = stored.open_seat if stored.open_seat is not None else 1
        maker = stored.accounts[1 - seat]
        rating = None if maker is None else ratings.get((maker, stored.game))
        span = stored.rating_range
        rows.append(
            {
                "id": stored.id,
                "game": stored.game,
                "name": game.name,
                "options": options_in_words(game) or _("default rules"),
                "clock": _("no clock")
                if stored.clock is None
                else NewGameForm.clock_label(
                    f"{stored.clock['base'] // 60}+{stored.clock['increment']}"
                ),
                "waiting": shown_name(stored.names[1 - seat])
                or (None if maker is None else names.get(maker))
                or game.player_name(1 - seat),
                "rating": None if rating is None else rating[1],
                "bot": maker is not None and maker in bots,
                "side": game.player_name(seat),
                "colour": game.colours[seat],
                "since": time_tag(stored.updated),
                "rated": stored.rated,
                "range": None
                if span is None
                else _("{low} to {high}").format(low=span[0], high=span[1]),
                "blocked": seek_blocked(stored, ratings, asker),
            }
        )
    return rows


def seek_blocked(
    stored: StoredGame, ratings: Mapping[tuple[int, str], tuple[float, str]], asker: int | None
) -> str | None:
    """Why the asker may not take the game's open seat (the server refuses it in the
    same terms), or None."""
    span = stored.rating_range
    if asker is None and span is not None:
        return _("for players rated {low} to {high}: sign in").format(low=span[0], high=span[1])
    if span is not None and asker is not None:
        mine = ratings.get((asker, stored.game))
        if mine is not None and not span[0] <= round(mine[0]) <= span[1]:
            return _("for players rated {low} to {high}; yours is {rating}").format(
                low=span[0], high=span[1], rating=round(mine[0])
            )
    return None


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
                "position": position.position_string(),
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


# ---------------------------------------------------------------------- how to play
#: A diagram of a how-to page: a fenced block ``board`` of ``key: value`` lines.
BOARD_BLOCK = re.compile(r"^```board\n(.*?)^```[ \t]*\n?", re.S | re.M)
#: A step of a how-to page begins with a second-level heading.
STEP = re.compile(r"^## +(.+)$", re.M)
#: The lines a diagram's block may hold (``key: value``).
DIAGRAM_KEYS = ("position", "caption", "options", "mark", "dot", "width")


@dataclass(frozen=True)
class Diagram:
    """A board on a how-to page, read from its ``board`` block: a ``position`` string
    (under ``options``, ``key=value`` apart by spaces), the places to ``mark`` (outlined)
    and to ``dot`` (where a piece may go), comma-separated place names, a one-line
    ``caption`` in words, and the ``width`` it is shown at on a wide screen, in CSS
    pixels (a board of few large places reads well small, one of many small pieces
    needs more)."""

    position: str
    caption: str
    options: tuple[str, ...] = ()
    mark: tuple[str, ...] = ()
    dot: tuple[str, ...] = ()
    width: int = 300

    @classmethod
    def read(cls, text: str) -> Diagram:
        fields: dict[str, str] = {}
        for line in text.strip().splitlines():
            key, colon, value = line.partition(":")
            key = key.strip()
            if not colon or key not in DIAGRAM_KEYS:
                keys = ", ".join(DIAGRAM_KEYS)
                raise ValueError(f"a diagram's line is 'key: value' ({keys}), not {line!r}")
            fields[key] = value.strip()
        if not fields.get("position") or not fields.get("caption"):
            raise ValueError(f"a diagram needs a position and a caption: {text.strip()!r}")

        def names(key: str) -> tuple[str, ...]:
            return tuple(n.strip() for n in fields.get(key, "").split(",") if n.strip())

        return cls(
            fields["position"],
            fields["caption"],
            tuple(fields.get("options", "").split()),
            names("mark"),
            names("dot"),
            int(fields.get("width", "300")),
        )

    def game(self, game: Game[Any]) -> Game[Any]:
        """``game`` under the diagram's options."""
        if not self.options:
            return game
        return boardlab.new_game(game.id, game.schema.parse_assignments(self.options, game.id))

    def svg(self, game: Game[Any]) -> str:
        """The board, drawn as the game page draws it; raises BoardlabError for a position
        the engine refuses and ValueError for a place the board does not have."""
        game = self.game(game)
        board = game.board_model(game.from_position_string(self.position).state)
        places = {place.name for place in board.places if place.kind != "label"}
        unknown = [name for name in (*self.mark, *self.dot) if name not in places]
        if unknown:
            raise ValueError(f"no place {unknown[0]!r} on the board of {self.position!r}")
        svg = board_svg(game, board, self.mark, self.dot, title=plain(self.caption))
        return SIZE.sub(partial(sized, self.width), svg, count=1)


#: The size an SVG board is drawn at (its viewBox keeps its own units).
SIZE = re.compile(r'width="(\d+)" height="(\d+)"')


def sized(width: int, found: re.Match[str]) -> str:
    """The size of a board drawn ``width`` pixels wide."""
    height = round(int(found.group(2)) * width / int(found.group(1)))
    return f'width="{width}" height="{height}"'


def plain(text: str) -> str:
    """A caption as plain text (an SVG's label): its markdown marks dropped."""
    return re.sub(r"[*_`]", "", text)


@dataclass
class Step:
    """A step of a how-to page: its heading, its words and its diagrams (HTML)."""

    heading: str
    words: str
    figures: list[str]


@dataclass
class HowTo:
    game: Game[Any]
    title: str  # the page's heading, in its language
    lead: str  # the words before the first step (HTML)
    steps: list[Step]
    end: str  # the words after the last step, below a line ``---`` (HTML)
    language: str  # the text's language (English where none is translated)
    options: list[dict[str, str]]  # the variants: title, default and what it does


def how_to(game_id: str) -> HowTo | None:
    """How to play a game, in the current language; None when its package has no
    how-to text (its card is then the rules page)."""
    return _how_to(game_id, language())


@cache
def _how_to(game_id: str, lang: str) -> HowTo | None:
    """A game's how-to page: ``howto.md`` (or ``howto.LANG.md``) of its package, each
    ``## `` heading a step, each ``board`` block in it a diagram beside its words, and
    the words below a last line ``---`` after the steps."""
    from markdown_it import MarkdownIt

    game = boardlab.new_game(game_id)
    text, text_language = own_text(game, "howto", lang)
    if not text:
        return None
    markdown = MarkdownIt("commonmark").enable("table")
    title, _newline, text = text.lstrip().partition("\n")
    text, _line, end = text.partition("\n---\n")
    parts = STEP.split(text)
    steps = []
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        figures = [
            f'<figure class="diagram">{d.svg(game)}<figcaption>{prose(d.caption)}</figcaption>'
            "</figure>"
            for d in map(Diagram.read, BOARD_BLOCK.findall(body))
        ]
        words = ALIGNED.sub(r' class="align-\1"', markdown.render(BOARD_BLOCK.sub("", body)))
        steps.append(Step(str(prose(heading.strip())), words, figures))
    options = [
        {
            "title": o.title(),
            "default": o.choice_title(o.format(o.default)),
            "description": _(o.description),
        }
        for o in game.schema
    ]
    return HowTo(
        game,
        title.lstrip("# ").strip(),
        markdown.render(parts[0]),
        steps,
        markdown.render(end),
        text_language,
        options,
    )


def own_text(game: Game[Any], stem: str, lang: str = "en") -> tuple[str, str]:
    """The text ``STEM.LANG.md`` (``STEM.md``: English) beside the game's module in
    ``lang``, and the language it is in; English where ``lang`` has none; empty when
    the game has none."""
    package = type(game).__module__.rpartition(".")[0]
    for name, text_language in ((f"{stem}.{lang}.md", lang), (f"{stem}.md", "en")):
        try:
            text = (importlib.resources.files(package) / name).read_text(encoding="utf-8")
        except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
            continue
        return text, text_language
    return "", "en"


def how_to_diagrams(game_id: str, lang: str = "en") -> list[Diagram]:
    """Every diagram of a game's how-to text in ``lang``."""
    text, _language = own_text(boardlab.new_game(game_id), "howto", lang)
    return [Diagram.read(block) for block in BOARD_BLOCK.findall(text)]


# ---------------------------------------------------------------------- learning
def learning() -> list[dict[str, Any]]:
    """Every game's way in, as the learn page lists it: how to play, its lessons in
    order (their titles in the reader's language) and the complete rules."""
    lang = language()
    return [
        {
            "id": game_id,
            "name": boardlab.new_game(game_id).name,
            "summary": _(boardlab.new_game(game_id).summary),
            "lessons": [
                {"id": k.id, "number": k.number, "title": words(k.title, lang)}
                for k in lessons(game_id)
            ],
        }
        for game_id in boardlab.game_ids()
    ]


def lesson_page(game_id: str, lesson_id: str) -> dict[str, Any]:
    """What a lesson's page needs, in the reader's language: its words, its steps (the
    actions each accepts, the other side's reply), the board it starts from, and where
    the next lesson is. A game or lesson that does not exist is a NotFound."""
    if game_id not in boardlab.game_ids():
        raise NotFound(
            _("no game {game!r} here: the games are {games}").format(
                game=clipped(game_id, 40), games=", ".join(boardlab.game_ids())
            )
        )
    found = lesson(game_id, lesson_id)
    if found is None:
        raise NotFound(
            _("no lesson {lesson!r} of {game!r}: its lessons are {lessons}").format(
                lesson=clipped(lesson_id, 40),
                game=game_id,
                lessons=", ".join(k.id for k in lessons(game_id)),
            )
        )
    lang = language()
    every = lessons(game_id)
    after = every[found.number] if found.number < len(every) else None
    return {
        "game": game_id,
        "id": found.id,
        "number": found.number,
        "count": len(every),
        "title": words(found.title, lang),
        "intro": words(found.intro, lang),
        "steps": [
            {
                "ask": words(step.ask, lang),
                "explain": words(step.explain, lang),
                "wrong": words(step.wrong, lang),
                "accept": list(step.accept),
                "reply": list(step.reply),
            }
            for step in found.steps
        ],
        "start": view(found.start(game_id)),
        "next": None if after is None else {"id": after.id, "title": words(after.title, lang)},
    }


def edit_tools(game_id: str) -> list[dict[str, Any]]:
    """The editor's palette of a game for the analysis board: each tool's id, its label
    in the reader's language, the kinds of place it changes and its effect."""
    if game_id not in boardlab.game_ids():
        raise NotFound(_("no game {game!r}").format(game=clipped(game_id, 40)))
    return [
        {"id": t.id, "label": _(t.label), "kinds": list(t.kinds), "effect": t.effect}
        for t in boardlab.new_game(game_id).edit_tools()
    ]


#: The rating chart's size and margins (the SVG's own units; it scales to its box).
CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_BOTTOM, CHART_PAD = 600, 220, 60, 30, 10


def rating_chart(ratings: list[float]) -> dict[str, Any]:
    """A rating history drawn server-side (no script): the polyline's points, the y axis
    ticks (ratings, rounded to 50) and the x axis's first and last game number."""
    low, high = min([*ratings, 1500.0]), max([*ratings, 1500.0])
    low, high = 50 * math.floor((low - 25) / 50), 50 * math.ceil((high + 25) / 50)
    width = CHART_WIDTH - CHART_LEFT - CHART_PAD
    height = CHART_HEIGHT - CHART_BOTTOM - CHART_PAD
    count = len(ratings)

    def x(k: int) -> float:
        return CHART_LEFT + (width * k / (count - 1) if count > 1 else width / 2)

    def y(rating: float) -> float:
        return CHART_PAD + height * (high - rating) / (high - low)

    step = max(50, 50 * math.ceil((high - low) / 4 / 50))
    ticks = [(value, round(y(value), 1)) for value in range(int(low), int(high) + 1, step)]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": CHART_LEFT,
        "right": CHART_WIDTH - CHART_PAD,
        "top": CHART_PAD,
        "bottom": CHART_HEIGHT - CHART_BOTTOM,
        "points": " ".join(f"{x(k):.1f},{y(r):.1f}" for k, r in enumerate(ratings)),
        "dots": [(round(x(k), 1), round(y(r), 1), round(r)) for k, r in enumerate(ratings)],
        "ticks": ticks,
        "games": count,
    }


def outcome_for(stored: StoredGame, account: int) -> str:
    """A finished game's result for the player holding a seat by ``account``: won,
    lost, drawn or aborted (in play: '')."""
    if stored.result == "*":
        return ""
    if stored.result == ABORTED:
        return pgettext("result", "aborted")
    if stored.result == "draw":
        return pgettext("result", "draw")
    game = boardlab.new_game(stored.game, **stored.options)
    players = [name.lower() for name in game.players]
    winner = players.index(stored.result.lower()) if stored.result.lower() in players else None
    if winner is None or account not in stored.accounts:
        return ""
    return _("won") if stored.accounts[winner] == account else _("lost")


def challenge_row(challenge: Challenge) -> dict[str, Any]:
    """A challenge as the pages list it: who asks whom, the game, its rules and clock in
    words, rated or casual, the challenger's side, its state and when it expires."""
    game = boardlab.new_game(challenge.game, **challenge.options)
    control = challenge.clock
    side = (
        _("either side, by lot")
        if challenge.side == "random"
        else game.player_name(int(challenge.side))
    )
    states = {
        "open": _("waiting for an answer"),
        "accepted": _("accepted"),
        "declined": _("declined"),
        "cancelled": _("cancelled"),
        "expired": _("expired"),
    }
    return {
        "id": challenge.id,
        "challenger": challenge.challenger,
        "challenged": challenge.challenged,
        "name": game.name,
        "options": options_in_words(game) or _("default rules"),
        "clock": _("no clock")
        if control is None
        else NewGameForm.clock_label(f"{control[0] // 60}+{control[1]}"),
        "rated": challenge.rated,
        "side": side,
        "status": challenge.status,
        "state": states.get(challenge.status, challenge.status),
        "reason": challenge.reason,
        "expires": time_tag(challenge.expires),
        "game_id": challenge.game_id,
    }
