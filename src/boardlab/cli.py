"""The ``boardlab`` command: a thin layer over the library.

Every error about what the user typed becomes one line on standard error and a non-zero
exit status (2 for bad input, 1 for an illegal or malformed action in ``replay``); no
traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.perft import divide, perft
from boardlab.core.record import GameRecord, RecordError
from boardlab.core.registry import game_class, game_ids, new_game


class UsageError(Exception):
    """A command line that argparse refused; shown as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="boardlab",
        description="Rules engines for Jin Li, Linja and Galatjang.",
        epilog=f"games: {', '.join(game_ids())}",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("game", metavar="GAME", help=f"one of {', '.join(game_ids())}")
        return sub

    def with_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--option",
            "-o",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="set a game option (repeatable); see `boardlab rules GAME`",
        )
        sub.add_argument("--position", "-p", metavar="POS", help="start from this position string")

    commands.add_parser("games", help="list the games", description="List the games.")
    command("rules", "the rules in brief and every option with its default")
    show = command("show", "draw the board of a position")
    with_options(show)
    count = command("perft", "count the action sequences of a given length")
    with_options(count)
    count.add_argument("--depth", "-d", type=int, required=True, metavar="N")
    count.add_argument("--divide", action="store_true", help="first one line per legal action")
    replay = command("replay", "play a record or a list of actions; print the final position")
    with_options(replay)
    replay.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a record or a list of action strings (default: standard input)",
    )
    return parser


def _game(args: argparse.Namespace) -> Game[Any]:
    cls = game_class(args.game)
    return new_game(cls.id, cls.schema.parse_assignments(getattr(args, "option", []), cls.id))


def _position(game: Game[Any], args: argparse.Namespace) -> Position[Any]:
    return game.from_position_string(args.position) if args.position else game.initial()


def run_games(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:<10} {cls.name}: {cls.summary}")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    cls = game_class(args.game)
    print(f"{cls.name} ({cls.id}), players {' and '.join(cls.players)}")
    print()
    print(cls.brief.strip())
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
    if args.depth < 0:
        raise BoardlabError(f"bad depth {args.depth}: expected 0 or more")
    position = _position(_game(args), args)
    if args.divide and args.depth >= 1:
        rows = divide(position, args.depth)
        for action, count in rows:
            print(f"{action}: {count}")
        print(sum(count for _, count in rows))
    else:
        print(perft(position, args.depth))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    game = _game(args)
    text = Path(args.file).read_text(encoding="utf-8") if args.file else sys.stdin.read()
    options = game.schema.parse_assignments(args.option, game.id)
    try:
        record = GameRecord.read(text, game=game.id, options=options, start=args.position)
    except RecordError as error:
        if error.index is None:
            raise
        print(f"boardlab replay: {error}", file=sys.stderr)
        return 1
    print(record.position.position_string())
    outcome = record.outcome()
    if outcome is None:
        points = record.position.points
        print(f"winner=none points={points[0]}/{points[1]} reason=none")
    else:
        print(outcome.summary())
    return 0


COMMANDS = {
    "games": run_games,
    "rules": run_rules,
    "show": run_show,
    "perft": run_perft,
    "replay": run_replay,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    except BoardlabError as error:
        print(f"boardlab: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(
            f"boardlab: {error.strerror or error}: {error.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("boardlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
