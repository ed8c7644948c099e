"""The ``boardlab`` command: a thin layer over the library.

Every error about what the user typed becomes one line on standard error and a non-zero
exit status (2 for bad input, 1 for an illegal or malformed action in ``replay``); no
traceback reaches the user.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from boardlab.ai import LEVEL_NAMES
from boardlab.core.board import plural
from boardlab.core.errors import BoardlabError, UnknownGameError
from boardlab.core.files import games_dir, write_atomic
from boardlab.core.game import Game, Position
from boardlab.core.perft import divide
from boardlab.core.record import GameRecord, RecordError, read_record_text, split_records
from boardlab.core.registry import game_class, game_ids, new_game
from boardlab.extras import MissingExtraError, require
from boardlab.fast import perft_counter

if TYPE_CHECKING:
    from boardlab.arena.backends import Backend

#: How an agent is named, with every level, for the help texts.
AGENT_HELP = (
    f"a level ({', '.join(LEVEL_NAMES)}) or an agent spec such as mcts:time=2 or alphabeta:depth=6"
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
            raise argparse.ArgumentTypeError(
                f"bad value {text!r}: expected {'an integer' if kind is int else 'a number'} "
                f"from {shown(low)} to {shown(high)}"
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
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


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
    names = [game_class(game_id).name for game_id in game_ids()]
    parser = _Parser(
        prog="boardlab",
        description=f"Reference engines, AI and tools for {', '.join(names)}.",
        epilog=f"games: {', '.join(game_ids())}",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_CommandParser
    )

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("game", metavar="GAME", help=f"one of {', '.join(game_ids())}")
        return sub

    def option_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--option",
            "-o",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="set a game option (repeatable); see `boardlab rules GAME`",
        )

    def parallel(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--jobs", "-j", type=within(int, 1, 256), metavar="J", help="processes (default: cores)"
        )
        sub.add_argument(
            "--backend",
            default="local",
            metavar="NAME",
            help="where the games run: local (processes on this machine, the default) or ray",
        )
        sub.add_argument(
            "--address",
            metavar="ADDR",
            help="with --backend ray: the cluster to join (host:port, or auto for the one "
            "this machine belongs to); without it a local Ray is started",
        )

    def with_options(sub: argparse.ArgumentParser) -> None:
        option_flag(sub)
        sub.add_argument("--position", "-p", metavar="POS", help="start from this position string")

    commands.add_parser("games", help="list the games", description="List the games.")
    play = command("play", "play a game in the terminal: people, agents, or both")
    play.epilog = (
        "With no seat named you play the first player against the level medium; with one "
        f"seat named the other is you (or medium, if you named a human). WHO is human or "
        f"{AGENT_HELP}."
    )
    option_flag(play)
    for name in seat_names():
        play.add_argument(
            f"--{name}", metavar="WHO", help=f"who plays {name}: human, a level or an agent spec"
        )
    play.add_argument("--seed", type=SEED, help="seed for the agents (reproducible games)")
    play.add_argument("--load", metavar="FILE", help="continue a saved game record")
    play.add_argument("--save", metavar="FILE", help="keep the record in FILE after every move")
    play.add_argument(
        "--delay",
        type=within(float, 0, 60),
        metavar="SECONDS",
        help="pause after each agent turn (default 1 when agents play each other)",
    )
    play.add_argument(
        "--hint",
        metavar="AGENT",
        default="hard",
        help=f"the agent that answers `hint`: {AGENT_HELP} (default: hard)",
    )
    rules = command("rules", "the rules in brief and every option with its default")
    option_flag(rules)
    show = command("show", "draw the board of a position")
    with_options(show)
    count = command("perft", "count the action sequences of a given length")
    with_options(count)
    count.add_argument("--depth", "-d", type=within(int, 0, 40), required=True, metavar="N")
    count.add_argument("--divide", action="store_true", help="first one line per legal action")
    count.add_argument(
        "--engine",
        choices=("auto", "python", "compiled"),
        default="auto",
        help="count with the Python rules or the compiled kernel (auto: compiled for deep "
        "counts when numba is installed and the game has a kernel)",
    )
    match = command("match", "play agents against each other and measure the difference")
    match.add_argument("agent_a", metavar="AGENT_A", help=AGENT_HELP)
    match.add_argument("agent_b", metavar="AGENT_B", help=AGENT_HELP)
    match.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**7),
        metavar="N",
        help="games to play (default 100; with --sprt, the most to play: default 20000)",
    )
    option_flag(match)
    parallel(match)
    match.add_argument("--seed", type=SEED, default=0, metavar="S")
    match.add_argument("--records", metavar="FILE", help="write every game's record to FILE")
    match.add_argument(
        "--sprt",
        metavar="TEST",
        help="stop when a sequential test over game pairs decides, like "
        "elo0=0,elo1=10,alpha=0.05,beta=0.05 (logistic Elo of AGENT_A over AGENT_B)",
    )
    tournament = command("tournament", "every agent against every other, with ratings")
    tournament.add_argument("agents", nargs="+", metavar="AGENT", help=AGENT_HELP)
    option_flag(tournament)
    tournament.add_argument(
        "--gauntlet", action="store_true", help="the first agent against each of the others only"
    )
    tournament.add_argument(
        "--pairs",
        type=within(int, 1, 10**6),
        default=10,
        metavar="N",
        help="game pairs (seats swapped, same opening) per meeting (default 10)",
    )
    tournament.add_argument(
        "--openings",
        type=within(int, 0, 200),
        default=0,
        metavar="N",
        help="start each pair from N random actions (default 0: from the start)",
    )
    tournament.add_argument(
        "--openings-file", metavar="FILE", help="start the pairs from these position strings"
    )
    parallel(tournament)
    tournament.add_argument("--seed", type=SEED, default=0, metavar="S")
    tournament.add_argument(
        "--results",
        metavar="FILE",
        help="where each game is added as it ends; the same command and file resume a "
        "stopped tournament (default: a file named after the settings in the games folder)",
    )
    tournament.add_argument("--records", metavar="FILE", help="write every game's record to FILE")
    study = command("study", "compare the game's rule variants by self-play")
    study.epilog = (
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
        help="an option to vary (repeatable): NAME for every value, NAME=A,B or NAME=LOW..HIGH",
    )
    option_flag(study)
    study.add_argument("--agent", default="medium", metavar="SPEC", help=f"who plays: {AGENT_HELP}")
    study.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**6),
        default=100,
        metavar="N",
        help="self-play games per variant (default 100)",
    )
    study.add_argument("--seed", type=SEED, default=0, metavar="S")
    study.add_argument(
        "--out", metavar="DIR", help="the folder for the report and the cache (default: study-GAME)"
    )
    parallel(study)
    engine = command("engine", "be an engine speaking UGI on standard input and output")
    option_flag(engine)
    engine.add_argument(
        "--agent",
        default="medium",
        metavar="SPEC",
        help=f"{AGENT_HELP} (default: medium); also setoption name agent value SPEC",
    )
    analyze = command("analyze", "the value of every legal action and the best line")
    with_options(analyze)
    analyze.add_argument(
        "--agent",
        default="alphabeta:time=3",
        metavar="SPEC",
        help=f"{AGENT_HELP} (default: alphabeta:time=3)",
    )
    analyze.add_argument("--seed", type=SEED, default=0, metavar="S")
    solve = command("solve", "solve exactly and keep the table (games that declare a solver)")
    solve.epilog = (
        "Tables go to $BOARDLAB_TABLES, or the user data directory, unless --out names a "
        "file; an existing table is read, not built again, unless --rebuild."
    )
    option_flag(solve)
    solve.add_argument("--out", metavar="PATH", help="the table file")
    solve.add_argument(
        "--max-seeds",
        type=within(int, 0, 40),
        metavar="K",
        help="endgame tables: the most seeds in the pits of a solved position",
    )
    solve.add_argument("--rebuild", action="store_true", help="build even if the table exists")
    solve.add_argument("--verify", action="store_true", help="check the table's checksum")
    solve.add_argument(
        "--start",
        action="store_true",
        help="also solve the start above the endgame table and write a certificate",
    )
    solve.add_argument("--certificate", metavar="FILE", help="where --start writes it")
    solve.add_argument(
        "--check", metavar="FILE", help="check a certificate (with the table its leaves need)"
    )
    replay = command("replay", "play a record or a list of actions; print the final position")
    replay.epilog = (
        "GAME may be left out before a file of records that name their game in a Game tag, "
        "as `boardlab match --records` writes them: boardlab replay games.txt"
    )
    with_options(replay)
    replay.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a record or a list of action strings (default: standard input)",
    )
    review = commands.add_parser(
        "review",
        help="review a saved game: the AI's best action and the value lost at each action",
        description="Review a saved game (a record in text or JSON that names its game): "
        "for each action the best action, its value, the value of the action played, and "
        "marks for inaccuracies (?!), mistakes (?) and blunders (??). Exact values where "
        "a solver reaches the position.",
    )
    review.add_argument("file", metavar="FILE", help="a record, or - for standard input")
    review.add_argument("--agent", default="hard", metavar="SPEC", help=f"who judges: {AGENT_HELP}")
    review.add_argument(
        "--game", choices=game_ids(), help="the game, for a record without a Game tag"
    )
    review.add_argument("--output", "-o", metavar="OUT", help="write the annotated record")
    review.add_argument("--json", action="store_true", help="print the review as JSON")
    serve = commands.add_parser(
        "serve",
        help="play in the browser: start the web app",
        description="Start the web app: play against the AI or a friend, review games, "
        "read the rules. Games are stored in the database (SQLite in your data directory "
        "unless --db or $BOARDLAB_DB names another).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=within(int, 0, 65535), default=8000, help="port")
    serve.add_argument("--db", metavar="URL", help="an SQLAlchemy database URL")
    serve.add_argument(
        "--workers",
        type=within(int, 1, 64),
        default=2,
        metavar="N",
        help="processes in which the AI searches (default 2)",
    )
    return parser


def _game(args: argparse.Namespace) -> Game[Any]:
    cls = game_class(args.game)
    return new_game(cls.id, cls.schema.parse_assignments(getattr(args, "option", []), cls.id))


def _position(game: Game[Any], args: argparse.Namespace) -> Position[Any]:
    if args.position is None:
        return game.initial()
    if not args.position.strip():
        raise BoardlabError("empty --position: give a position string, or leave it out")
    return game.from_position_string(args.position)


def run_games(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:<10} {cls.name}: {cls.summary}")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    game = _game(args)
    cls = type(game)
    print(f"{cls.name} ({cls.id}), players {' and '.join(cls.players)}")
    print()
    print(game.rules_in_brief())
    print()
    print("Options (--option KEY=VALUE):")
    width = max(len(o.name) for o in cls.schema)
    for option in cls.schema:
        default = option.format(option.default)
        print(f"  {option.name:<{width}}  default {default:<9} {option.allowed()}")
        print(f"  {'':<{width}}  {option.description}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    position = _position(_game(args), args)
    print(position.board())
    print(position.position_string())
    if not position.is_over():
        print("legal: " + " ".join(position.legal_action_strings()))
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
            "--option and --position need the game: boardlab replay GAME FILE "
            f"(GAME is one of {', '.join(game_ids())})"
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
            where = f"record {number}, " if len(texts) > 1 else ""
            say(f"boardlab replay: {where}{error}")
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

    with _progress_bar(f"{args.agent_a} vs {args.agent_b}", "games") as update:

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
        f"{game.id}{' (' + options + ')' if options else ''}: {args.agent_a} vs "
        f"{args.agent_b}, {score.games} games, seats alternating, seed {args.seed}"
    )
    print(f"{args.agent_a}: {score.wins} wins, {score.draws} draws, {score.losses} losses")
    print(f"score {score.mean:.3f} (95% CI {low:.3f} to {high:.3f})")
    print(f"Elo difference {elo:+.0f} (95% CI {elo_low:+.0f} to {elo_high:+.0f})")
    print(f"first player scored {result.first_player_score():.3f}")
    a_time, b_time = result.seconds_per_choice()
    print(f"time per action: {args.agent_a} {a_time:.3f} s, {args.agent_b} {b_time:.3f} s")
    if test is not None:
        counts = pair_counts(result.games)
        verdict = test.verdict(counts)
        said = {
            "H1": f"H1 accepted (elo1={test.elo1:g})",
            "H0": f"H0 accepted (elo0={test.elo0:g})",
        }
        print(
            f"SPRT: {said.get(verdict or '', 'no verdict')}, {live(list(result.games))} "
            f"after {sum(counts)} pairs; pentanomial {' '.join(map(str, counts))}"
        )
    if args.records:
        path = write_atomic(args.records, "\n".join(g.record for g in result.games))
        print(f"records: {path}")
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    from boardlab.ai import make_agent

    position = _position(_game(args), args)
    if position.is_over():
        outcome = position.outcome()
        assert outcome is not None
        print(f"the game is over: {outcome.summary()}")
        return 0
    if _exact_analysis(position):
        return 0
    note = _no_exact_values(position)
    if note:
        print(f"no exact values: {note}")
    agent = make_agent(args.agent, args.seed, position.game)
    agent.check(position.game)  # the perfect player: its solver and table, as play asks
    analyze = getattr(agent, "analyze", agent.choose)
    choice = analyze(position)
    print(f"{position.position_string()}  ({position.player} to act)")
    iterations = f"{choice.iterations} iterations, " if choice.iterations else ""
    print(
        f"{args.agent}: depth {choice.depth}, {iterations}{choice.nodes} nodes, "
        f"{choice.seconds:.2f} s"
    )
    rows = sorted(choice.action_values, key=lambda row: (-row[1], -row[2]))
    print(f"  {'action':<8} {'value':>7} {'visits':>7}")
    for action, value, visits in rows:
        shown = str(visits) if visits else ""
        print(f"  {position.action_string(action):<8} {value:>+7.3f} {shown:>7}")
    line = position.line_strings((choice.action, *choice.pv[1:]))
    print(f"best: {line[0]}, line: {' '.join(line)}")
    return 0


def _exact_analysis(position: Position[Any]) -> bool:
    """Print the exact value of every action when a solver reaches ``position``."""
    from boardlab.solve import best_line, exact_values

    game = position.game
    values = exact_values(game, position.state)
    if values is None:
        return False
    best = max(values.values())
    unit = game.point_words[0 if abs(best) == 1 else 1]
    verdict = "a draw" if best == 0 else f"{'wins' if best > 0 else 'loses'} by {abs(best)} {unit}"
    print(f"{position.position_string()}  ({position.player} to act)")
    print(f"exact: {position.player} {verdict} with perfect play (value {best:+d})")
    print(f"  {'action':<8} {'value':>6}  result")
    for action, value in sorted(values.items(), key=lambda row: -row[1]):
        result = "draw" if value == 0 else "win" if value > 0 else "loss"
        print(f"  {position.action_string(action):<8} {value:>+6d}  {result}")
    line, current = [], position
    for action in best_line(game, position.state):
        line.append(current.action_string(action))
        current = current.play_unchecked(action)
    print(f"best: {line[0]}, line: {' '.join(line)}")
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
            raise BoardlabError("--option cannot change a loaded game: its record sets them")
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
        raise BoardlabError(f"{game.name} has no solver: boardlab solves {', '.join(solved)}")
    if args.max_seeds is not None and not solver.sized:
        sized = [
            game_id
            for game_id in game_ids()
            if (found := solver_class(new_game(game_id))) is not None and found.sized
        ]
        raise BoardlabError(
            f"--max-seeds is for endgame tables ({', '.join(sized)}): {game.name} is solved whole"
        )
    if (args.start or args.check or args.certificate) and not solver.proves_start:
        raise BoardlabError(
            f"--start, --certificate and --check are for solvers above an endgame table: "
            f"{game.name} is solved whole"
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
    from boardlab.review import SYMBOLS, annotate, review

    if args.file == "-":
        text = read_record_text(getattr(sys.stdin, "buffer", sys.stdin), "standard input")
    else:
        with open(args.file, "rb") as stream:
            text = read_record_text(stream, args.file)
    record = GameRecord.read(text, game=args.game)
    with _progress_bar("reviewing", "actions") as progress:
        result = review(record, args.agent, progress)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(f"  {'ply':>4} {'player':<8} {'played':<10} {'best':<10} {'value':>7} {'played':>7}")
        for item in result.items:
            shown = "{:+.0f}" if item.exact else "{:+.2f}"
            mark = SYMBOLS.get(item.mark, "")
            print(
                f"  {item.ply + 1:>4} {record.game.players[item.player]:<8} "
                f"{item.played + mark:<10} {item.best:<10} {shown.format(item.best_value):>7} "
                f"{shown.format(item.played_value):>7}"
            )
        for k, name in enumerate(record.game.players):
            counts = ", ".join(
                plural(n, mark, "inaccuracies" if mark == "inaccuracy" else None)
                for mark, n in result.counts(k).items()
            )
            print(f"{name}: {counts}; average loss {result.average_loss(k):.3f}")
    if args.output:
        annotated = annotate(record, result)
        if args.output.endswith(".json"):
            write_atomic(args.output, annotated.to_json() + "\n")
        else:
            annotated.save(args.output)
        print(f"annotated record written to {args.output}", file=sys.stderr)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    require("web", "boardlab serve")
    from boardlab.web.serve import serve

    return serve(args.host, args.port, args.db, args.workers)


def run_tournament(args: argparse.Namespace) -> int:
    from boardlab.arena.tournament import Plan, random_openings, read_openings, run, standings

    game = _game(args)
    agents = tuple(args.agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise BoardlabError(
            f"a tournament needs two or more different agents, got {' '.join(agents)}"
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
    print(f"results: {path}")
    with _progress_bar(f"{game.name} tournament", "games") as update:

        def show(entries: list[Any]) -> None:
            rows, _ = standings(agents, entries)
            leader = ", ".join(f"{r.agent} {r.results.mean:.0%}" for r in rows[:3])
            update(len(entries), total, leader)

        with _backend(args) as backend:
            entries = run(plan, path, progress=show, backend=backend)
    rows, fitted = standings(agents, entries)
    width = max(len(a) for a in agents)
    print(f"{game.name}: {len(entries)} games, {args.pairs} pairs a meeting, seed {args.seed}")
    print(f"{'rank':>4}  {'agent':<{width}}  {'Elo':>6}  {'95%':>5}  {'score':>6}  {'W-D-L':>11}")
    for rank, row in enumerate(rows, 1):
        won = row.results
        print(
            f"{rank:>4}  {row.agent:<{width}}  {row.rating:>+6.0f}  {row.margin:>5.0f}  "
            f"{won.mean:>6.1%}  {f'{won.wins}-{won.draws}-{won.losses}':>11}"
        )
    if fitted is not None:
        print(
            f"first seat ({game.players[0]}) worth {fitted.advantage:+.0f} Elo "
            f"(95% ± {fitted.advantage_margin:.0f}); draw term {fitted.draw_elo:.0f} Elo"
        )
    if args.records:
        print(f"records: {write_atomic(args.records, chr(10).join(e.record for e in entries))}")
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
    print(f"{cls.name}: {len(games)} variants, {args.games} games each by {args.agent}")
    with _progress_bar(f"{cls.name} study", "games") as update, _backend(args) as backend:
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
        print(f"table: {path}")
    try:
        print(f"report: {write_report(games[0], rows, settings, folder)}")
    except MissingExtraError as missing:
        print(f"no report.html: {missing}")
    return 0


def _print_study(rows: Sequence[Any]) -> None:
    width = max(len(r.label) for r in rows)
    print(f"{'variant':<{width}}  {'games':>5}  {'first':>6}  {'95%':>13}  {'exact':>5}  "
          f"{'draws':>6}  {'length':>6}  {'leads':>5}  {'branch':>6}")  # fmt: skip
    for row in rows:
        data = row.row()
        exact = "" if row.exact is None else f"{row.exact:+d}"
        print(
            f"{row.label:<{width}}  {row.games:>5}  {row.first_score:>6.3f}  "
            f"{data['first_score_low']:>6.3f}-{data['first_score_high']:<6.3f}  {exact:>5}  "
            f"{row.draw_rate:>6.1%}  {data['length_median']:>6g}  {row.lead_changes:>5.2f}  "
            f"{row.branching:>6.1f}"
        )


def run_engine(args: argparse.Namespace) -> int:
    from boardlab.arena.ugi import serve

    lock = threading.Lock()

    def write(line: str) -> None:  # the search thread writes too
        with lock:
            print(line, flush=True)

    serve(_game(args), args.agent, sys.stdin, write)
    return 0


COMMANDS = {
    "engine": run_engine,
    "tournament": run_tournament,
    "study": run_study,
    "review": run_review,
    "serve": run_serve,
    "solve": run_solve,
    "match": run_match,
    "analyze": run_analyze,
    "games": run_games,
    "play": run_play,
    "rules": run_rules,
    "show": run_show,
    "perft": run_perft,
    "replay": run_replay,
}


def say(message: str) -> None:
    """An error as one line on standard error: characters a terminal would not show as
    they are (controls, line breaks that the input quoted) are written as escapes."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    print(shown, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
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
        print("boardlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
