"""What several commands share: the parsers and their common flags, the argparse types,
the game and position a command line names, a progress bar, the column headings, the
one-line error.

Light on purpose: ``boardlab --help`` imports it, so what is heavy (the arena's backends,
Rich) is imported inside the functions that use it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeAlias

from boardlab.ai import LEVEL_NAMES
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import LANGUAGES, SOURCE, _, check_language, language, pgettext
from boardlab.core.registry import game_class, game_ids, new_game

if TYPE_CHECKING:
    from boardlab.arena.backends import Backend
    from boardlab.arena.openings import Openings


class UsageError(Exception):
    """A command line that argparse refused; shown as one line."""


class Parser(argparse.ArgumentParser):
    """A parser whose refusal is a ``UsageError``: one line that points to the help."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(
            _("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=message)
        )


class CommandParser(Parser):
    """A command's parser: options may stand anywhere among its positionals
    (``replay GAME -o KEY=VALUE FILE``), which argparse's greedy matching of an optional
    positional refuses; parsed intermixed, as ``parse_intermixed_args`` does."""

    _inside = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


#: The ``boardlab`` parser's commands: each command's module adds its parser to them.
Commands: TypeAlias = "argparse._SubParsersAction[CommandParser]"


class Command(Protocol):
    """A command's module: it adds its parser to the commands, and runs what was parsed."""

    def add(self, commands: Commands) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace) -> int: ...


def command(commands: Commands, name: str, help_text: str) -> CommandParser:
    """A command over one game: its parser, with GAME as its first positional."""
    sub = commands.add_parser(name, help=help_text, description=help_text)
    sub.add_argument(
        "game", metavar="GAME", help=_("one of {games}").format(games=", ".join(game_ids()))
    )
    return sub


def option_flag(sub: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE``, repeatable: the game's options."""
    sub.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=_("set a game option (repeatable); see `boardlab rules GAME`"),
    )


def with_options(sub: argparse.ArgumentParser) -> None:
    """``--option`` and ``--position``: the position a command starts from."""
    option_flag(sub)
    sub.add_argument("--position", "-p", metavar="POS", help=_("start from this position string"))


def parallel(sub: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--backend``, ``--address``: where a command's many games run."""
    sub.add_argument(
        "--jobs",
        "-j",
        type=within(int, 1, 256),
        metavar="J",
        help=_("processes (default: cores)"),
    )
    sub.add_argument(
        "--backend",
        default="local",
        metavar="NAME",
        help=_("where the games run: local (processes on this machine, the default) or ray"),
    )
    sub.add_argument(
        "--address",
        metavar="ADDR",
        help=_(
            "with --backend ray: the cluster to join (host:port, or auto for the one "
            "this machine belongs to); without it a local Ray is started"
        ),
    )


def openings_flags(sub: argparse.ArgumentParser) -> None:
    """``--openings N`` and ``--openings-file FILE``: where each pair of games starts."""
    sub.add_argument(
        "--openings",
        type=within(int, 0, 200),
        default=0,
        metavar="N",
        help=_("start each pair from N random actions (default 0: from the start)"),
    )
    sub.add_argument(
        "--openings-file",
        metavar="FILE",
        help=_("start the pairs from these position strings"),
    )


def openings_of(game: Game[Any], args: argparse.Namespace) -> Openings:
    """The openings ``--openings`` (drawn from ``--seed``) or ``--openings-file`` name."""
    from boardlab.arena.openings import Openings

    options = dict(game.options)
    if args.openings_file is not None:
        if args.openings:
            raise BoardlabError(
                _(
                    "--openings {length} and --openings-file {path!r} disagree: give random "
                    "openings or a file of them, not both"
                ).format(length=args.openings, path=args.openings_file)
            )
        return Openings.read(game.id, options, args.openings_file)
    if args.openings:
        return Openings.random(game.id, options, args.openings, args.seed)
    return Openings()


def lang_flag(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--lang LANG``. ``main`` reads it before the parser is built (so that the help
    texts are in that language); the parser shows it in the help and checks it."""
    parser.add_argument(
        "--lang",
        type=language_code,
        choices=tuple(LANGUAGES),
        default=default,
        metavar="LANG",
        help=_(
            "the language of the messages: {languages} (default: the environment's, from "
            "LANGUAGE, LC_ALL, LC_MESSAGES or LANG)"
        ).format(languages=", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())),
    )


def language_code(text: str) -> str:
    """An argparse type: ``text`` as a language code (``de_DE.UTF-8`` reads as ``de``)."""
    try:
        return check_language(text)
    except BoardlabError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def agent_help() -> str:
    """How an agent is named, with every level, for the help texts."""
    return _("a level ({levels}) or an agent spec such as mcts:time=2 or alphabeta:depth=6").format(
        levels=", ".join(LEVEL_NAMES)
    )


def within(kind: Callable[[str], Any], low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` from ``low`` to ``high``, else one line that
    says what is expected."""

    def read(text: str) -> Any:
        try:
            value = kind(text.strip())
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            if kind is int:
                message = _("bad value {text!r}: expected an integer from {low} to {high}")
            else:
                message = _("bad value {text!r}: expected a number from {low} to {high}")
            raise argparse.ArgumentTypeError(
                message.format(text=text, low=shown(low), high=shown(high))
            )
        return value

    return read


def shown(number: float) -> str:
    """``10,000,000``; ``0.5``."""
    return f"{int(number):,}" if float(number).is_integer() else f"{number:,}"


SEED = within(int, 0, 2**63 - 1)


def game_of(args: argparse.Namespace) -> Game[Any]:
    """The game GAME names, with the options of ``--option``."""
    cls = game_class(args.game)
    return new_game(cls.id, cls.schema.parse_assignments(getattr(args, "option", []), cls.id))


def position_of(game: Game[Any], args: argparse.Namespace) -> Position[Any]:
    """The position ``--position`` names, else the start."""
    if args.position is None:
        return game.initial()
    if not args.position.strip():
        raise BoardlabError(_("empty --position: give a position string, or leave it out"))
    return game.from_position_string(args.position)


@contextmanager
def progress_bar(label: str, unit: str) -> Iterator[Callable[..., None]]:
    """A progress bar on standard error when it is a terminal (Rich if installed); yields
    ``update(done, total, note="")``, the note shown after the label."""
    if not sys.stderr.isatty():
        yield lambda done, total, note="": None
        return
    try:
        from rich.progress import Progress
    except ImportError:

        def show(done: int, total: int, note: str = "") -> None:
            line = f"\r{label}: {done}/{total} {unit} {note}"
            print(line, end="", file=sys.stderr, flush=True)

        yield show
        print(file=sys.stderr)
        return
    from rich.console import Console

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int, note: str = "") -> None:
            bar.update(task, completed=done, total=total, description=f"{label} {note}".strip())

        yield update


def backend_of(args: argparse.Namespace) -> Backend:
    """Where ``--backend``, ``--address`` and ``--jobs`` say the games run."""
    from boardlab.arena.backends import make_backend

    return make_backend(args.backend, args.jobs, args.address)


def named(game: Game[Any], player: int) -> str:
    """A player in the running text of research output: in English the name the records
    write (``south to act``, as it always read), in another language the translated name
    (``Süd``)."""
    return game.players[player] if language() == SOURCE else game.player_name(player)


def column(word: str) -> str:
    """A column heading of a table in words, in the current language."""
    headings = {
        "action": pgettext("column", "action"),
        "value": pgettext("column", "value"),
        "visits": pgettext("column", "visits"),
        "result": pgettext("column", "result"),
        "ply": pgettext("column", "ply"),
        "player": pgettext("column", "player"),
        "played": pgettext("column", "played"),
        "best": pgettext("column", "best"),
        "rank": pgettext("column", "rank"),
        "agent": pgettext("column", "agent"),
        "score": pgettext("column", "score"),
        "W-D-L": pgettext("column", "W-D-L"),
        "variant": pgettext("column", "variant"),
        "games": pgettext("column", "games"),
        "first": pgettext("column", "first"),
        "exact": pgettext("column", "exact"),
        "draws": pgettext("column", "draws"),
        "length": pgettext("column", "length"),
        "leads": pgettext("column", "leads"),
        "branch": pgettext("column", "branch"),
    }
    return headings[word]


def say(message: str) -> None:
    """An error as one line on standard error: characters a terminal would not show as
    they are (controls, line breaks that the input quoted) are written as escapes."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    print(shown, file=sys.stderr)


def add_seek(parser: argparse.ArgumentParser) -> None:
    """``--seek SPEC``, repeatable: the seeks a bot keeps open in the lobby."""
    parser.add_argument(
        "--seek",
        action="append",
        default=[],
        metavar="SPEC",
        help=_(
            "a seek kept open in the lobby while there is room for a game, posted again "
            "after each game, e.g. 'GAME clock=5+3 rated': GAME [NAME=VALUE...] "
            "[clock=MINUTES+SECONDS] [rated|casual] [range=N] [side=south|north|random] "
            "(repeat for several)"
        ),
    )
