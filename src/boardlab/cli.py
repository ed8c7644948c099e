"""The ``boardlab`` command: a thin layer over the library.

Every error about what the user typed becomes one line on standard error and a non-zero
exit status (2 for bad input, 1 for an illegal or malformed action in ``replay``); no
traceback reaches the user.

It speaks the language ``--lang`` names (before or after the command), else the
environment's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``): its output, its help
texts and argparse's own words ("usage:", "the following arguments are required").
Notation, agent specs, record headers and the ``key=value`` lines of ``replay`` are data
and stay as they are.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from boardlab.ai import LEVEL_NAMES
from boardlab.core.errors import BoardlabError, UnknownGameError
from boardlab.core.files import games_dir, write_atomic
from boardlab.core.game import Game, Position
from boardlab.core.i18n import (
    LANGUAGES,
    N_,
    SOURCE,
    _,
    check_language,
    language,
    ngettext,
    noun,
    pgettext,
    use_language,
)
from boardlab.core.perft import divide
from boardlab.core.record import GameRecord, RecordError, read_record_text, split_records
from boardlab.core.registry import game_class, game_ids, new_game
from boardlab.extras import MissingExtraError, require
from boardlab.fast import perft_counter

if TYPE_CHECKING:
    from boardlab.arena.backends import Backend


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


def seat_names() -> list[str]:
    """Every player name of every registered game: the seat flags of ``play``."""
    names: dict[str, None] = {}
    for game_id in game_ids():
        names.update(dict.fromkeys(game_class(game_id).players))
    return list(names)


class UsageError(Exception):
    """A command line that argparse refused; shown as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(
            _("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=message)
        )


class _CommandParser(_Parser):
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


def build_parser() -> argparse.ArgumentParser:
    """The parser, its help texts in the current language (build it after setting it)."""
    names = [game_class(game_id).name for game_id in game_ids()]
    parser = _Parser(
        prog="boardlab",
        description=_("Reference engines, AI and tools for {games}.").format(
            games=", ".join(names)
        ),
        epilog=_("games: {games}").format(games=", ".join(game_ids())),
    )
    lang_flag(parser, None)
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_CommandParser
    )
    agents = agent_help()

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument(
            "game", metavar="GAME", help=_("one of {games}").format(games=", ".join(game_ids()))
        )
        return sub

    def option_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--option",
            "-o",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help=_("set a game option (repeatable); see `boardlab rules GAME`"),
        )

    def parallel(sub: argparse.ArgumentParser) -> None:
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

    def with_options(sub: argparse.ArgumentParser) -> None:
        option_flag(sub)
        sub.add_argument(
            "--position", "-p", metavar="POS", help=_("start from this position string")
        )

    commands.add_parser("games", help=_("list the games"), description=_("List the games."))
    play = command("play", _("play a game in the terminal: people, agents, or both"))
    play.epilog = _(
        "With no seat named you play the first player against the level medium; with one "
        "seat named the other is you (or medium, if you named a human). WHO is human or "
        "{agents}."
    ).format(agents=agents)
    option_flag(play)
    for name in seat_names():
        play.add_argument(
            f"--{name}",
            metavar="WHO",
            help=_("who plays {player}: human, a level or an agent spec").format(player=name),
        )
    play.add_argument("--seed", type=SEED, help=_("seed for the agents (reproducible games)"))
    play.add_argument("--load", metavar="FILE", help=_("continue a saved game record"))
    play.add_argument("--save", metavar="FILE", help=_("keep the record in FILE after every move"))
    play.add_argument(
        "--delay",
        type=within(float, 0, 60),
        metavar="SECONDS",
        help=_("pause after each agent turn (default 1 when agents play each other)"),
    )
    play.add_argument(
        "--hint",
        metavar="AGENT",
        default="hard",
        help=_("the agent that answers `hint`: {agents} (default: hard)").format(agents=agents),
    )
    rules = command("rules", _("the rules in brief and every option with its default"))
    option_flag(rules)
    show = command("show", _("draw the board of a position"))
    with_options(show)
    count = command("perft", _("count the action sequences of a given length"))
    with_options(count)
    count.add_argument("--depth", "-d", type=within(int, 0, 40), required=True, metavar="N")
    count.add_argument("--divide", action="store_true", help=_("first one line per legal action"))
    count.add_argument(
        "--engine",
        choices=("auto", "python", "compiled"),
        default="auto",
        help=_(
            "count with the Python rules or the compiled kernel (auto: compiled for deep "
            "counts when numba is installed and the game has a kernel)"
        ),
    )
    match = command("match", _("play agents against each other and measure the difference"))
    match.add_argument("agent_a", metavar="AGENT_A", help=agents)
    match.add_argument("agent_b", metavar="AGENT_B", help=agents)
    match.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**7),
        metavar="N",
        help=_("games to play (default 100; with --sprt, the most to play: default 20000)"),
    )
    option_flag(match)
    parallel(match)
    match.add_argument("--seed", type=SEED, default=0, metavar="S")
    match.add_argument("--records", metavar="FILE", help=_("write every game's record to FILE"))
    match.add_argument(
        "--sprt",
        metavar="TEST",
        help=_(
            "stop when a sequential test over game pairs decides, like "
            "elo0=0,elo1=10,alpha=0.05,beta=0.05 (logistic Elo of AGENT_A over AGENT_B)"
        ),
    )
    tournament = command("tournament", _("every agent against every other, with ratings"))
    tournament.add_argument("agents", nargs="+", metavar="AGENT", help=agents)
    option_flag(tournament)
    tournament.add_argument(
        "--gauntlet",
        action="store_true",
        help=_("the first agent against each of the others only"),
    )
    tournament.add_argument(
        "--pairs",
        type=within(int, 1, 10**6),
        default=10,
        metavar="N",
        help=_("game pairs (seats swapped, same opening) per meeting (default 10)"),
    )
    tournament.add_argument(
        "--openings",
        type=within(int, 0, 200),
        default=0,
        metavar="N",
        help=_("start each pair from N random actions (default 0: from the start)"),
    )
    tournament.add_argument(
        "--openings-file",
        metavar="FILE",
        help=_("start the pairs from these position strings"),
    )
    parallel(tournament)
    tournament.add_argument("--seed", type=SEED, default=0, metavar="S")
    tournament.add_argument(
        "--results",
        metavar="FILE",
        help=_(
            "where each game is added as it ends; the same command and file resume a "
            "stopped tournament (default: a file named after the settings in the games folder)"
        ),
    )
    tournament.add_argument(
        "--records", metavar="FILE", help=_("write every game's record to FILE")
    )
    study = command("study", _("compare the game's rule variants by self-play"))
    study.epilog = _(
        "With no --vary the study compares every combination of the options that change "
        "how the game plays and have few values (see `boardlab rules GAME`); numbers are "
        "named, like --vary pits=3..6. Games are cached in OUT/games.jsonl: the same "
        "command with more --games plays only the games missing."
    )
    study.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="NAME[=VALUES]",
        help=_("an option to vary (repeatable): NAME for every value, NAME=A,B or NAME=LOW..HIGH"),
    )
    option_flag(study)
    study.add_argument(
        "--agent",
        default="medium",
        metavar="SPEC",
        help=_("who plays: {agents}").format(agents=agents),
    )
    study.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**6),
        default=100,
        metavar="N",
        help=_("self-play games per variant (default 100)"),
    )
    study.add_argument("--seed", type=SEED, default=0, metavar="S")
    study.add_argument(
        "--out",
        metavar="DIR",
        help=_("the folder for the report and the cache (default: study-GAME)"),
    )
    parallel(study)
    engine = command("engine", _("be an engine speaking UGI on standard input and output"))
    option_flag(engine)
    engine.add_argument(
        "--agent",
        default="medium",
        metavar="SPEC",
        help=_("{agents} (default: medium); also setoption name agent value SPEC").format(
            agents=agents
        ),
    )
    analyze = command("analyze", _("the value of every legal action and the best line"))
    with_options(analyze)
    analyze.add_argument(
        "--agent",
        default="alphabeta:time=3",
        metavar="SPEC",
        help=_("{agents} (default: alphabeta:time=3)").format(agents=agents),
    )
    analyze.add_argument("--seed", type=SEED, default=0, metavar="S")
    solve = command("solve", _("solve exactly and keep the table (games that declare a solver)"))
    solve.epilog = _(
        "Tables go to $BOARDLAB_TABLES, or the user data directory, unless --out names a "
        "file; an existing table is read, not built again, unless --rebuild."
    )
    option_flag(solve)
    solve.add_argument("--out", metavar="PATH", help=_("the table file"))
    solve.add_argument(
        "--max-seeds",
        type=within(int, 0, 40),
        metavar="K",
        help=_("endgame tables: the most seeds in the pits of a solved position"),
    )
    solve.add_argument("--rebuild", action="store_true", help=_("build even if the table exists"))
    solve.add_argument("--verify", action="store_true", help=_("check the table's checksum"))
    solve.add_argument(
        "--start",
        action="store_true",
        help=_("also solve the start above the endgame table and write a certificate"),
    )
    solve.add_argument("--certificate", metavar="FILE", help=_("where --start writes it"))
    solve.add_argument(
        "--check",
        metavar="FILE",
        help=_("check a certificate (with the table its leaves need)"),
    )
    replay = command("replay", _("play a record or a list of actions; print the final position"))
    replay.epilog = _(
        "GAME may be left out before a file of records that name their game in a Game tag, "
        "as `boardlab match --records` writes them: boardlab replay games.txt"
    )
    with_options(replay)
    replay.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help=_("a record or a list of action strings (default: standard input)"),
    )
    review = commands.add_parser(
        "review",
        help=_("review a saved game: the AI's best action and the value lost at each action"),
        description=_(
            "Review a saved game (a record in text or JSON that names its game): "
            "for each action the best action, its value, the value of the action played, and "
            "marks for inaccuracies (?!), mistakes (?) and blunders (??). Exact values where "
            "a solver reaches the position."
        ),
    )
    review.add_argument("file", metavar="FILE", help=_("a record, or - for standard input"))
    review.add_argument(
        "--agent",
        default="hard",
        metavar="SPEC",
        help=_("who judges: {agents}").format(agents=agents),
    )
    review.add_argument(
        "--game", choices=game_ids(), help=_("the game, for a record without a Game tag")
    )
    review.add_argument("--output", "-o", metavar="OUT", help=_("write the annotated record"))
    review.add_argument("--json", action="store_true", help=_("print the review as JSON"))
    serve = commands.add_parser(
        "serve",
        help=_("play in the browser: start the web app"),
        description=_(
            "Start the web app: play against the AI or a friend, review games, "
            "read the rules. Games are stored in the database (SQLite in your data directory "
            "unless --db or $BOARDLAB_DB names another)."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help=_("address to listen on"))
    serve.add_argument(
        "--port", type=within(int, 0, 65535), default=8000, help=pgettext("network", "port")
    )
    serve.add_argument(
        "--db",
        metavar="URL",
        help=_("an SQLAlchemy database URL, or memory: (games lost when the server stops)"),
    )
    serve.add_argument(
        "--workers",
        type=within(int, 1, 64),
        default=1,
        metavar="N",
        help=_(
            "server processes sharing the address and the database (default 1; more "
            "need PostgreSQL)"
        ),
    )
    serve.add_argument(
        "--ai-workers",
        type=within(int, 1, 64),
        default=2,
        metavar="N",
        help=_("processes in which the AI searches, for each server process (default 2)"),
    )
    serve.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=N",
        help=_("a bound on what one client may do, e.g. uploads=20 (the list: docs/web.md)"),
    )
    serve.add_argument(
        "--proxy",
        metavar="ADDRESSES",
        help=_(
            "the reverse proxies in front of the server (comma-separated addresses): only "
            "their X-Forwarded-For and X-Forwarded-Proto are believed"
        ),
    )
    serve.add_argument(
        "--secure-cookies",
        action="store_true",
        help=_("mark cookies Secure: the site is reached over HTTPS only"),
    )
    commands.add_parser(
        "prepare",
        help=_("compile what every AI level needs, before a server's first players wait"),
        description=_(
            "Compile and load the AI's searches and the solvers' tables for every level "
            "of every game, once, into the cache on disk: a fresh install takes about a "
            "minute, later runs a second or two. make serve runs it before the server "
            "starts, so that no first move waits for it."
        ),
    )
    db = commands.add_parser(
        "db",
        help=_("the web app's database: its schema"),
        description=_(
            "upgrade brings the database's schema to the newest (boardlab serve does it "
            "before its processes start); status says where it stands."
        ),
    )
    db.add_argument("action", choices=["upgrade", "status"])
    db.add_argument("--db", metavar="URL", help=_("an SQLAlchemy database URL"))
    puzzles = commands.add_parser(
        "puzzles",
        help=_("play, make or check puzzles proven by the solver"),
        description=_(
            "play solves puzzles in the terminal, near your rating (kept in your data "
            "directory); make finds puzzles in seeded self-play and writes them (by default "
            "to the game's own puzzle file); check proves every puzzle of a file again "
            "through the engine and the solver. See docs/puzzles.md."
        ),
    )
    puzzles.add_argument("action", choices=["play", "make", "check"])
    puzzles.add_argument(
        "game",
        nargs="?",
        metavar="GAME",
        help=_("one of {games} (play, check: every game with puzzles, if left out)").format(
            games=", ".join(game_ids())
        ),
    )
    option_flag(puzzles)
    puzzles.add_argument(
        "--count", type=within(int, 1, 10**6), default=1000, metavar="N",
        help=_("make: the puzzles wanted (default 1000)"),
    )  # fmt: skip
    puzzles.add_argument(
        "--seed", type=SEED, metavar="S", help=_("the seed (make, check: default 0; play: random)")
    )
    puzzles.add_argument(
        "--out", metavar="FILE", help=_("make: the file (default: the game's puzzle file)")
    )
    puzzles.add_argument(
        "--db",
        metavar="URL",
        help=_("make: also the games the web server stored in this database, first"),
    )
    puzzles.add_argument(
        "--theme", metavar="T", help=_("play: only puzzles with this theme (its id)")
    )
    puzzles.add_argument("--file", metavar="FILE", help=_("check, play: this file instead"))
    puzzles.add_argument(
        "--sample", type=within(int, 1, 10**6), metavar="N",
        help=_("check: a seeded sample of N puzzles of each file"),
    )  # fmt: skip
    for sub in commands.choices.values():  # --lang after the command too
        lang_flag(sub, argparse.SUPPRESS)
    return parser


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


def _game(args: argparse.Namespace) -> Game[Any]:
    cls = game_class(args.game)
    return new_game(cls.id, cls.schema.parse_assignments(getattr(args, "option", []), cls.id))


def _position(game: Game[Any], args: argparse.Namespace) -> Position[Any]:
    if args.position is None:
        return game.initial()
    if not args.position.strip():
        raise BoardlabError(_("empty --position: give a position string, or leave it out"))
    return game.from_position_string(args.position)


def run_games(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:<10} {cls.name}: {_(cls.summary)}")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    game = _game(args)
    cls = type(game)
    print(
        _("{game} ({id}), players {first} and {second}").format(
            game=cls.name, id=cls.id, first=_named(game, 0), second=_named(game, 1)
        )
    )
    print()
    print(game.rules_in_brief())
    print()
    print(_("Options (--option KEY=VALUE):"))
    width = max(len(o.name) for o in cls.schema)
    for option in cls.schema:
        default = _("default {value:<9} {allowed}").format(
            value=option.format(option.default), allowed=option.allowed()
        )
        print(f"  {option.name:<{width}}  {default}")
        print(f"  {'':<{width}}  {_(option.description)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    position = _position(_game(args), args)
    print(position.board())
    print(position.position_string())
    if not position.is_over():
        print(_("legal: {actions}").format(actions=" ".join(position.legal_action_strings())))
    return 0


def run_perft(args: argparse.Namespace) -> int:
    position = _position(_game(args), args)
    count = perft_counter(position.game, args.depth, args.engine)
    if args.divide and args.depth >= 1:
        rows = divide(position, args.depth, count)
        for action, number in rows:
            print(f"{action}: {number}")
        print(sum(number for _, number in rows))
    else:
        print(count(position, args.depth))
    return 0


def _replay_source(args: argparse.Namespace) -> tuple[Game[Any] | None, str | None]:
    """The game and the file to replay. GAME may be left out before a file of records
    that name their game (``boardlab replay games.txt``, as ``match --records`` writes)."""
    try:
        return _game(args), args.file
    except UnknownGameError:
        if args.file is not None or not Path(args.game).is_file():
            raise
    if args.option or args.position:
        raise BoardlabError(
            _(
                "--option and --position need the game: boardlab replay GAME FILE "
                "(GAME is one of {games})"
            ).format(games=", ".join(game_ids()))
        )
    return None, args.game


def run_replay(args: argparse.Namespace) -> int:
    game, file = _replay_source(args)
    if file:
        with open(file, "rb") as stream:
            text = read_record_text(stream, file)
    else:
        text = read_record_text(getattr(sys.stdin, "buffer", sys.stdin), "standard input")
    options = game.schema.parse_assignments(args.option, game.id) if game else None
    texts = [text] if text.lstrip().startswith("{") else split_records(text) or [text]
    for number, part in enumerate(texts, 1):
        try:
            record = GameRecord.read(
                part, game=game.id if game else None, options=options, start=args.position
            )
        except RecordError as error:
            if error.index is None:
                raise
            if len(texts) > 1:
                say(
                    _("boardlab replay: record {number}, {error}").format(
                        number=number, error=error
                    )
                )
            else:
                say(f"boardlab replay: {error}")
            return 1
        print(record.position.position_string())
        outcome = record.outcome()
        if outcome is None:
            points = record.position.points
            print(f"winner=none points={points[0]}/{points[1]} reason=none")
        else:
            print(outcome.summary())
    return 0


@contextmanager
def _progress_bar(label: str, unit: str) -> Iterator[Callable[..., None]]:
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


def _backend(args: argparse.Namespace) -> Backend:
    """Where ``--backend``, ``--address`` and ``--jobs`` say the games run."""
    from boardlab.arena.backends import make_backend

    return make_backend(args.backend, args.jobs, args.address)


def run_match(args: argparse.Namespace) -> int:
    from boardlab.arena import play_match
    from boardlab.arena.sprt import Sprt, pair_counts

    game = _game(args)
    test = Sprt.parse(args.sprt) if args.sprt else None
    games = args.games or (20_000 if test else 100)

    def live(results: list[Any]) -> str:
        """The test's log-likelihood ratio and its bounds, to show."""
        if test is None:
            return ""
        accept_h0, accept_h1 = test.bounds()
        return f"LLR {test.llr(pair_counts(results)):+.2f} ({accept_h0:+.2f}, {accept_h1:+.2f})"

    label = _("{first} vs {second}").format(first=args.agent_a, second=args.agent_b)
    with _progress_bar(label, pgettext("unit", "games")) as update:

        def decided(results: list[Any]) -> bool:
            """Show the progress; whether the test has decided."""
            update(len(results), games, live(results))
            return test is not None and test.verdict(pair_counts(results)) is not None

        with _backend(args) as backend:
            result = play_match(
                game.id,
                args.agent_a,
                args.agent_b,
                games,
                dict(game.options),
                seed=args.seed,
                stop=decided,
                backend=backend,
            )
    score = result.score
    low, high = score.interval()
    elo, elo_low, elo_high = score.elo()
    options = " ".join(game.option_assignments())
    print(
        _("{game}: {first} vs {second}, {games} games, seats alternating, seed {seed}").format(
            game=f"{game.id} ({options})" if options else game.id,
            first=args.agent_a,
            second=args.agent_b,
            games=score.games,
            seed=args.seed,
        )
    )
    print(
        _("{agent}: {wins} wins, {draws} draws, {losses} losses").format(
            agent=args.agent_a, wins=score.wins, draws=score.draws, losses=score.losses
        )
    )
    print(
        _("score {mean:.3f} (95% CI {low:.3f} to {high:.3f})").format(
            mean=score.mean, low=low, high=high
        )
    )
    print(
        _("Elo difference {elo:+.0f} (95% CI {low:+.0f} to {high:+.0f})").format(
            elo=elo, low=elo_low, high=elo_high
        )
    )
    print(_("first player scored {score:.3f}").format(score=result.first_player_score()))
    a_time, b_time = result.seconds_per_choice()
    print(
        _("time per action: {first} {first_time:.3f} s, {second} {second_time:.3f} s").format(
            first=args.agent_a, first_time=a_time, second=args.agent_b, second_time=b_time
        )
    )
    if test is not None:
        counts = pair_counts(result.games)
        verdict = test.verdict(counts)
        if verdict == "H1":
            said = _("H1 accepted (elo1={elo:g})").format(elo=test.elo1)
        elif verdict == "H0":
            said = _("H0 accepted (elo0={elo:g})").format(elo=test.elo0)
        else:
            said = _("no verdict")
        print(
            _("SPRT: {verdict}, {llr} after {pairs} pairs; pentanomial {counts}").format(
                verdict=said,
                llr=live(list(result.games)),
                pairs=sum(counts),
                counts=" ".join(map(str, counts)),
            )
        )
    if args.records:
        path = write_atomic(args.records, "\n".join(g.record for g in result.games))
        print(_("records: {path}").format(path=path))
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    from boardlab.ai import make_agent

    position = _position(_game(args), args)
    if position.is_over():
        outcome = position.outcome()
        assert outcome is not None
        print(_("the game is over: {outcome}").format(outcome=outcome.summary()))
        return 0
    if _exact_analysis(position):
        return 0
    note = _no_exact_values(position)
    if note:
        print(_("no exact values: {note}").format(note=note))
    agent = make_agent(args.agent, args.seed, position.game)
    agent.check(position.game)  # the perfect player: its solver and table, as play asks
    analyze = getattr(agent, "analyze", agent.choose)
    choice = analyze(position)
    print(_to_act(position))
    if choice.iterations:
        searched = _(
            "{agent}: depth {depth}, {iterations} iterations, {nodes} nodes, {seconds:.2f} s"
        )
    else:
        searched = _("{agent}: depth {depth}, {nodes} nodes, {seconds:.2f} s")
    print(
        searched.format(
            agent=args.agent,
            depth=choice.depth,
            iterations=choice.iterations,
            nodes=choice.nodes,
            seconds=choice.seconds,
        )
    )
    rows = sorted(choice.action_values, key=lambda row: (-row[1], -row[2]))
    print(f"  {_column('action'):<8} {_column('value'):>7} {_column('visits'):>7}")
    for action, value, visits in rows:
        shown = str(visits) if visits else ""
        print(f"  {position.action_string(action):<8} {value:>+7.3f} {shown:>7}")
    line = position.line_strings((choice.action, *choice.pv[1:]))
    print(_("best: {action}, line: {line}").format(action=line[0], line=" ".join(line)))
    return 0


def _named(game: Game[Any], player: int) -> str:
    """A player in the running text of research output: in English the name the records
    write (``south to act``, as it always read), in another language the translated name
    (``Süd``)."""
    return game.players[player] if language() == SOURCE else game.player_name(player)


def _to_act(position: Position[Any]) -> str:
    """``<position string>  (south to act)``."""
    return _("{position}  ({player} to act)").format(
        position=position.position_string(), player=_named(position.game, position.to_act)
    )


def _column(word: str) -> str:
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


def _exact_analysis(position: Position[Any]) -> bool:
    """Print the exact value of every action when a solver reaches ``position``."""
    from boardlab.solve import best_line, exact_values

    game = position.game
    values = exact_values(game, position.state)
    if values is None:
        return False
    best = max(values.values())
    if best == 0:
        verdict = _("exact: {player} a draw with perfect play (value {value:+d})")
    elif best > 0:
        verdict = _("exact: {player} wins by {n} {unit} with perfect play (value {value:+d})")
    else:
        verdict = _("exact: {player} loses by {n} {unit} with perfect play (value {value:+d})")
    print(_to_act(position))
    print(
        verdict.format(
            player=_named(game, position.to_act),
            n=abs(best),
            unit=ngettext(*game.point_words, abs(best)),
            value=best,
        )
    )
    print(f"  {_column('action'):<8} {_column('value'):>6}  {_column('result')}")
    for action, value in sorted(values.items(), key=lambda row: -row[1]):
        if value == 0:
            result = pgettext("result", "draw")
        else:
            result = pgettext("result", "win") if value > 0 else pgettext("result", "loss")
        print(f"  {position.action_string(action):<8} {value:>+6d}  {result}")
    line, current = [], position
    for action in best_line(game, position.state):
        line.append(current.action_string(action))
        current = current.play_unchecked(action)
    print(_("best: {action}, line: {line}").format(action=line[0], line=" ".join(line)))
    return True


def _no_exact_values(position: Position[Any]) -> str:
    """Why a game solved whole has no exact value here (its table is missing, or the
    position lies beyond it), and how to get one; empty for other games."""
    from boardlab.solve import open_solver, solver_class_or_none

    game = position.game
    solver = solver_class_or_none(game)
    if solver is None or not solver.needs_table:
        return ""
    try:
        return open_solver(game).unreached(position.state)
    except BoardlabError as error:
        return str(error)


def run_play(args: argparse.Namespace) -> int:
    require("play", "boardlab play")
    from boardlab.ai import make_agent
    from boardlab.ui.terminal import TerminalGame, console_for, make_seat, seat_specs

    cls = game_class(args.game)
    if args.load:
        if args.option:
            raise BoardlabError(_("--option cannot change a loaded game: its record sets them"))
        record = GameRecord.load(args.load, game=cls.id)
    else:
        record = GameRecord(_game(args))
    given = {name: getattr(args, name) for name in seat_names()}
    chosen = seat_specs(record.game, given)
    seed = args.seed
    seats = tuple(
        make_seat(spec, None if seed is None else seed + i, record.game)
        for i, spec in enumerate(chosen)
    )
    for name, seat in zip(record.game.players, seats, strict=True):
        if seat.agent is not None:
            seat.agent.check(record.game)
        record.headers[name.capitalize()] = "human" if seat.human else seat.label
    watching = not any(seat.human for seat in seats)
    delay = (
        args.delay if args.delay is not None else (1.0 if watching and sys.stdout.isatty() else 0)
    )
    game = TerminalGame(
        record,
        (seats[0], seats[1]),
        console_for(),
        echo=not sys.stdin.isatty(),
        delay=delay,
        autosave=Path(args.save) if args.save else None,
        hint_agent=make_agent(args.hint, None if seed is None else seed + 2, record.game),
    )
    return game.run()


def run_solve(args: argparse.Namespace) -> int:
    from boardlab.solve import SolveRequest, solver_class

    game = _game(args)
    solver = solver_class(game)
    if solver is None:
        solved = [game_id for game_id in game_ids() if game_class(game_id).solver is not None]
        raise BoardlabError(
            _("{game} has no solver: boardlab solves {games}").format(
                game=game.name, games=", ".join(solved)
            )
        )
    if args.max_seeds is not None and not solver.sized:
        sized = [
            game_id
            for game_id in game_ids()
            if (found := solver_class(new_game(game_id))) is not None and found.sized
        ]
        raise BoardlabError(
            _("--max-seeds is for endgame tables ({games}): {game} is solved whole").format(
                games=", ".join(sized), game=game.name
            )
        )
    if (args.start or args.check or args.certificate) and not solver.proves_start:
        raise BoardlabError(
            _(
                "--start, --certificate and --check are for solvers above an endgame table: "
                "{game} is solved whole"
            ).format(game=game.name)
        )
    request = SolveRequest(
        Path(args.out) if args.out else None,
        args.rebuild,
        args.verify,
        args.max_seeds,
        args.start,
        Path(args.certificate) if args.certificate else None,
        Path(args.check) if args.check else None,
    )
    for line in solver.solve(game, request, _progress_bar):
        print(line)
    return 0


def run_review(args: argparse.Namespace) -> int:
    from boardlab.review import SYMBOLS, annotate, mark_count, review

    if args.file == "-":
        text = read_record_text(getattr(sys.stdin, "buffer", sys.stdin), "standard input")
    else:
        with open(args.file, "rb") as stream:
            text = read_record_text(stream, args.file)
    record = GameRecord.read(text, game=args.game)
    with _progress_bar(_("reviewing"), pgettext("unit", "actions")) as progress:
        result = review(record, args.agent, progress)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        game = record.game
        played = _column("played")
        wide = max(7, len(played))  # the value of the action played, under its heading
        print(
            f"  {_column('ply'):>4} {_column('player'):<8} {played:<10} {_column('best'):<10} "
            f"{_column('value'):>7} {played:>{wide}}"
        )
        for item in result.items:
            shown = "{:+.0f}" if item.exact else "{:+.2f}"
            mark = SYMBOLS.get(item.mark, "")
            print(
                f"  {item.ply + 1:>4} {_named(game, item.player):<8} "
                f"{item.played + mark:<10} {item.best:<10} {shown.format(item.best_value):>7} "
                f"{shown.format(item.played_value):>{wide}}"
            )
        for k in range(len(game.players)):
            counts = ", ".join(mark_count(mark, n) for mark, n in result.counts(k).items())
            print(
                _("{player}: {counts}; average loss {loss:.3f}").format(
                    player=_named(game, k), counts=counts, loss=result.average_loss(k)
                )
            )
    if args.output:
        annotated = annotate(record, result)
        if args.output.endswith(".json"):
            write_atomic(args.output, annotated.to_json() + "\n")
        else:
            annotated.save(args.output)
        print(_("annotated record written to {path}").format(path=args.output), file=sys.stderr)
    return 0


def run_db(args: argparse.Namespace) -> int:
    require("web", "boardlab db")
    from boardlab.web.store import Store, default_url, migrate, safe_url, schema_of

    url = args.db or default_url()
    store = Store(url, upgrade=None)
    try:
        if args.action == "upgrade":
            before, after = migrate(store.engine)
            message = (
                _("{url}: schema {schema}, the newest")
                if before == after
                else _("{url}: schema {before} upgraded to {schema}")
            )
            print(message.format(url=safe_url(url), before=before or "none", schema=after))
        else:
            current, newest = schema_of(store.engine)
            message = (
                _("{url}: schema {schema}, the newest")
                if current == newest
                else _("{url}: schema {current}; the newest is {schema}: boardlab db upgrade")
            )
            print(message.format(url=safe_url(url), current=current or "none", schema=newest))
    finally:
        store.engine.dispose()
    return 0


def run_serve(args: argparse.Namespace) -> int:
    require("web", "boardlab serve")
    from boardlab.web.guard import Limits
    from boardlab.web.serve import serve

    limits = Limits.parse(args.limit)
    return serve(
        args.host,
        args.port,
        args.db,
        args.ai_workers,
        args.workers,
        limits=limits,
        proxies=args.proxy,
        secure_cookies=args.secure_cookies,
    )


def run_prepare(args: argparse.Namespace) -> int:
    from boardlab.extras import has
    from boardlab.web.thinking import prepare_levels

    if not has("fast"):
        print(_("nothing to prepare: without the fast extra the AI compiles nothing"))
        return 0
    prepare_levels(print, _("boardlab prepare"))
    return 0


def run_tournament(args: argparse.Namespace) -> int:
    from boardlab.arena.tournament import Plan, random_openings, read_openings, run, standings

    game = _game(args)
    agents = tuple(args.agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise BoardlabError(
            _("a tournament needs two or more different agents, got {agents}").format(
                agents=" ".join(agents)
            )
        )
    options = dict(game.options)
    if args.openings_file:
        openings: list[str | None] = list(read_openings(game.id, options, args.openings_file))
    elif args.openings:
        count = max(1, args.pairs * (len(agents) - 1 if args.gauntlet else len(agents)))
        openings = list(random_openings(game.id, options, count, args.openings, args.seed))
    else:
        openings = [None]
    plan = Plan(game.id, options, agents, args.gauntlet, args.pairs, tuple(openings), args.seed)
    path = (
        Path(args.results)
        if args.results
        else games_dir() / f"tournament-{game.id}-{plan.key()}.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    total = len(plan.games())
    print(_("results: {path}").format(path=path))
    label = _("{game} tournament").format(game=game.name)
    with _progress_bar(label, pgettext("unit", "games")) as update:

        def show(entries: list[Any]) -> None:
            rows = standings(agents, entries)[0]
            leader = ", ".join(f"{r.agent} {r.results.mean:.0%}" for r in rows[:3])
            update(len(entries), total, leader)

        with _backend(args) as backend:
            entries = run(plan, path, progress=show, backend=backend)
    rows, fitted = standings(agents, entries)
    width = max(len(a) for a in agents)
    print(
        _("{game}: {games} games, {pairs} pairs a meeting, seed {seed}").format(
            game=game.name, games=len(entries), pairs=args.pairs, seed=args.seed
        )
    )
    print(
        f"{_column('rank'):>4}  {_column('agent'):<{width}}  {'Elo':>6}  {'95%':>5}  "
        f"{_column('score'):>6}  {_column('W-D-L'):>11}"
    )
    for rank, row in enumerate(rows, 1):
        won = row.results
        print(
            f"{rank:>4}  {row.agent:<{width}}  {row.rating:>+6.0f}  {row.margin:>5.0f}  "
            f"{won.mean:>6.1%}  {f'{won.wins}-{won.draws}-{won.losses}':>11}"
        )
    if fitted is not None:
        print(
            _(
                "first seat ({player}) worth {advantage:+.0f} Elo (95% ± {margin:.0f}); "
                "draw term {draw:.0f} Elo"
            ).format(
                player=_named(game, 0),
                advantage=fitted.advantage,
                margin=fitted.advantage_margin,
                draw=fitted.draw_elo,
            )
        )
    if args.records:
        path = write_atomic(args.records, "\n".join(e.record for e in entries))
        print(_("records: {path}").format(path=path))
    return 0


def run_study(args: argparse.Namespace) -> int:
    from boardlab.arena.study import Study, default_vary, read_vary, variants
    from boardlab.arena.study_report import write_report, write_tables

    cls = game_class(args.game)
    fixed = cls.schema.parse_assignments(args.option, cls.id)
    varied = read_vary(cls.id, args.vary) if args.vary else default_vary(cls.id, fixed)
    games = variants(cls.id, fixed, varied)
    folder = Path(args.out or f"study-{cls.id}")
    study = Study(
        cls.id, games, args.agent, args.games, args.seed, folder / "games.jsonl", tuple(varied)
    )
    print(
        _("{game}: {variants} variants, {games} games each by {agent}").format(
            game=cls.name, variants=len(games), games=args.games, agent=args.agent
        )
    )
    label = _("{game} study").format(game=cls.name)
    with _progress_bar(label, pgettext("unit", "games")) as update, _backend(args) as backend:
        rows = study.run(backend, lambda done, total: update(done, total))
    _print_study(rows)
    fixed_words = [f"{k}={cls.schema.get(k).format(v)}" for k, v in fixed.items()]
    varied_words = [
        f"{k}={','.join(cls.schema.get(k).format(v) for v in values)}"
        for k, values in varied.items()
    ]
    command = ["boardlab study", cls.id, "--agent", args.agent, "--games", str(args.games)]
    command += ["--seed", str(args.seed), *(f"--vary {w}" for w in varied_words)]
    command += [*(f"-o {w}" for w in fixed_words), "--out", str(folder)]
    settings = {
        "game": cls.id,
        "agent": args.agent,
        "games": args.games,
        "seed": args.seed,
        "fixed": " ".join(fixed_words) or "none",
        "varied": " ".join(varied_words) or "none",
        "command": " ".join(command),
    }
    for path in write_tables(rows, settings, folder):
        print(_("table: {path}").format(path=path))
    try:
        print(_("report: {path}").format(path=write_report(games[0], rows, settings, folder)))
    except MissingExtraError as missing:
        print(_("no report.html: {reason}").format(reason=missing))
    return 0


def _print_study(rows: Sequence[Any]) -> None:
    """The study's table; a column as wide as its heading in the current language needs."""
    names = ("variant", "games", "first", "95%", "exact", "draws", "length", "leads", "branch")
    least = (max(len(r.label) for r in rows), 5, 6, 13, 5, 6, 6, 5, 6)
    headings = [name if name == "95%" else _column(name) for name in names]
    w = [max(n, len(heading)) for n, heading in zip(least, headings, strict=True)]
    w[0] = least[0]  # the labels' width, as it always was
    print("  ".join(h.ljust(w[0]) if k == 0 else h.rjust(w[k]) for k, h in enumerate(headings)))
    for row in rows:
        data = row.row()
        exact = "" if row.exact is None else f"{row.exact:+d}"
        interval = f"{data['first_score_low']:>6.3f}-{data['first_score_high']:<6.3f}"
        print(
            f"{row.label:<{w[0]}}  {row.games:>{w[1]}}  {row.first_score:>{w[2]}.3f}  "
            f"{interval:>{w[3]}}  {exact:>{w[4]}}  {row.draw_rate:>{w[5]}.1%}  "
            f"{data['length_median']:>{w[6]}g}  {row.lead_changes:>{w[7]}.2f}  "
            f"{row.branching:>{w[8]}.1f}"
        )


def run_engine(args: argparse.Namespace) -> int:
    from boardlab.arena.ugi import serve

    lock = threading.Lock()

    def write(line: str) -> None:  # the search thread writes too
        with lock:
            print(line, flush=True)

    serve(_game(args), args.agent, sys.stdin, write)
    return 0


def run_puzzles(args: argparse.Namespace) -> int:
    from boardlab.puzzles.check import check_puzzles
    from boardlab.puzzles.make import make_puzzles, why_not
    from boardlab.puzzles.puzzle import read_puzzles, shipped_path

    if args.action == "play":
        return play_puzzles(args)
    if args.action == "make":
        if args.game is None:
            raise UsageError(_("boardlab puzzles make: name the game"))
        game = _game(args)
        out = Path(args.out) if args.out else shipped_path(game)
        stored = None
        if args.db:
            from boardlab.web.puzzles import stored_positions

            stored = stored_positions(game, args.db)
        _made, tally = make_puzzles(game, args.count, args.seed or 0, out, print, stored=stored)
        print(
            _(
                "{puzzles} puzzles from {candidates} candidate positions ({unreached} out of "
                "the solver's reach) in {games} games, {seconds:.0f} s: {out}"
            ).format(out=out, **tally.to_json())
        )
        themes = ", ".join(f"{theme} {n}" for theme, n in sorted(tally.themes.items()))
        print(_("themes: {themes}").format(themes=themes or "-"))
        return 0
    if args.file:
        files = [Path(args.file)]
    else:
        ids = [args.game] if args.game else game_ids()
        files = [shipped_path(game_class(i)) for i in ids]
        if args.game and not files[0].exists():
            reason = why_not(_game(args))
            if reason is not None:
                raise BoardlabError(reason)
            raise BoardlabError(
                _("{game} has no puzzles yet: boardlab puzzles make {id} makes them").format(
                    game=game_class(args.game).name, id=game_class(args.game).id
                )
            )
        files = [f for f in files if f.exists()]
    for path in files:
        puzzles = read_puzzles(path)
        reason = why_not(new_game(puzzles[0].game)) if puzzles and not args.file else None
        if reason is not None:  # its solver cannot prove them here (a table not built)
            if args.game:
                raise BoardlabError(reason)
            print(_("not proven here: {reason}").format(reason=reason))
            continue
        count, seconds = check_puzzles(puzzles, args.sample, args.seed or 0)
        print(
            _("{count} puzzles proven again in {seconds:.1f} s: {file}").format(
                count=count, seconds=seconds, file=path
            )
        )
    return 0


def no_puzzles(game_id: str) -> BoardlabError:
    """Why a game has no puzzles, in one line: no solver, no table, or not made yet."""
    from boardlab.puzzles.make import why_not

    game = new_game(game_id)
    reason = why_not(game)
    if reason is not None:
        return BoardlabError(reason)
    return BoardlabError(
        _("{game} has no puzzles yet: boardlab puzzles make {id} makes them").format(
            game=game.name, id=game.id
        )
    )


def play_puzzles(args: argparse.Namespace) -> int:
    """``boardlab puzzles play [GAME]``: puzzles in the terminal (boardlab.ui.puzzles)."""
    import random

    from boardlab.puzzles.pick import catalogue, theme_words
    from boardlab.puzzles.puzzle import read_puzzles
    from boardlab.ui.puzzles import PuzzlePlayer, rating_path
    from boardlab.ui.terminal import console_for

    if args.file:
        pool = read_puzzles(Path(args.file))
        if args.game:
            pool = [p for p in pool if p.game == game_class(args.game).id]
    elif args.game:
        pool = catalogue().get(game_class(args.game).id, [])
        if not pool:
            raise no_puzzles(game_class(args.game).id)
    else:
        pool = [p for found in catalogue().values() for p in found]
    if not pool:
        raise BoardlabError(_("there are no puzzles yet"))
    if args.theme:
        themes = {t: p.game for p in pool for t in p.themes}
        chosen = [p for p in pool if args.theme in p.themes]
        if not chosen:
            raise BoardlabError(
                _("no puzzle has the theme {theme!r}: the themes are {themes}").format(
                    theme=args.theme,
                    themes=", ".join(
                        f"{t} ({theme_words(g, t)})" for t, g in sorted(themes.items())
                    ),
                )
            )
        pool = chosen
    player = PuzzlePlayer(
        pool,
        console_for(),
        rating_path(),
        echo=not sys.stdin.isatty(),
        rng=random.Random(args.seed),
    )
    return player.run()


COMMANDS = {
    "engine": run_engine,
    "tournament": run_tournament,
    "study": run_study,
    "review": run_review,
    "serve": run_serve,
    "prepare": run_prepare,
    "db": run_db,
    "solve": run_solve,
    "match": run_match,
    "analyze": run_analyze,
    "games": run_games,
    "play": run_play,
    "rules": run_rules,
    "show": run_show,
    "perft": run_perft,
    "replay": run_replay,
    "puzzles": run_puzzles,
}


def say(message: str) -> None:
    """An error as one line on standard error: characters a terminal would not show as
    they are (controls, line breaks that the input quoted) are written as escapes."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    print(shown, file=sys.stderr)


#: argparse's own words that people read (Python 3.11 to 3.13), marked for the catalogue;
#: ``argparse_in_our_words`` has argparse look them up there.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("%(heading)s:"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    *noun("expected %s argument", "expected %s arguments"),
)


def argparse_in_our_words() -> None:
    """Have argparse say its own words ("usage:", "the following arguments are
    required: ...") in the current language. argparse looks them up with the ``_`` and
    ``ngettext`` it imports from gettext at its top, which know only Python's catalogue
    (none is installed); routed to boardlab's, which has them (``ARGPARSE_WORDS``) and
    follows the current language. Done only when that is not English, so that an English
    run leaves argparse untouched; once done, English runs still read English."""
    vars(argparse).update(_=_, ngettext=ngettext)


def language_asked(argv: Sequence[str]) -> str | None:
    """The language ``--lang LANG`` or ``--lang=LANG`` names, anywhere before ``--`` (the
    last one wins, as in argparse), checked: an unknown language is a one-line error
    naming the languages there are. Read before the parser is built, so that its help
    texts are in that language; None without the flag (then the environment's language
    holds). A ``--lang`` without a value is left to argparse to refuse."""
    asked = None
    for k, word in enumerate(argv):
        if word == "--":
            break
        if word.startswith("--lang="):
            asked = word.partition("=")[2]
        elif word == "--lang" and k + 1 < len(argv) and not argv[k + 1].startswith("-"):
            asked = argv[k + 1]
    return None if asked is None else check_language(asked)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status. ``--lang`` (or else the
    environment) sets the language for the whole run, the parser's help texts included."""
    words = list(sys.argv[1:] if argv is None else argv)
    with ExitStack() as speaking:
        try:
            asked = language_asked(words)
            if asked is not None:
                speaking.enter_context(use_language(asked))
            if language() != SOURCE:
                argparse_in_our_words()
            args = build_parser().parse_args(words)
            if getattr(args, "lang", None) not in (None, asked):  # an abbreviation: --lan de
                speaking.enter_context(use_language(args.lang))
            return COMMANDS[args.command](args)
        except UsageError as error:
            say(str(error))
            return 2
        except BoardlabError as error:
            say(f"boardlab: {error}")
            return 2
        except BrokenPipeError:
            # The reader went away (``| head``): stop quietly.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except OSError as error:
            say(f"boardlab: {error.strerror or error}: {error.filename or ''}".rstrip(": "))
            return 2
        except KeyboardInterrupt:
            print(_("boardlab: interrupted"), file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
