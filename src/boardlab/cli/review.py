"""``boardlab review``: a saved game judged action by action."""

from __future__ import annotations

import argparse
import json
import sys

from boardlab.cli.common import Commands, agent_help, column, named, progress_bar
from boardlab.core.files import write_atomic
from boardlab.core.i18n import _, ngettext, pgettext
from boardlab.core.record import GameRecord, read_record_text
from boardlab.core.registry import game_ids


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
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
    return review


def run(args: argparse.Namespace) -> int:
    from boardlab.review import SYMBOLS, annotate, mark_count, review

    if args.file == "-":
        text = read_record_text(getattr(sys.stdin, "buffer", sys.stdin), "standard input")
    else:
        with open(args.file, "rb") as stream:
            text = read_record_text(stream, args.file)
    record = GameRecord.read(text, game=args.game)
    with progress_bar(_("reviewing"), pgettext("unit", "actions")) as progress:
        result = review(record, args.agent, progress)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        game = record.game
        played = column("played")
        wide = max(7, len(played))  # the value of the action played, under its heading
        print(
            f"  {column('ply'):>4} {column('player'):<8} {played:<10} {column('best'):<10} "
            f"{column('value'):>7} {played:>{wide}}"
        )
        for item in result.items:
            shown = "{:+.0f}" if item.exact else "{:+.2f}"
            mark = SYMBOLS.get(item.mark, "")
            print(
                f"  {item.ply + 1:>4} {named(game, item.player):<8} "
                f"{item.played + mark:<10} {item.best:<10} {shown.format(item.best_value):>7} "
                f"{shown.format(item.played_value):>{wide}}"
            )
        for k in range(len(game.players)):
            counts = ", ".join(mark_count(mark, n) for mark, n in result.counts(k).items())
            print(
                _("{player}: {counts}; average loss {loss:.3f}").format(
                    player=named(game, k), counts=counts, loss=result.average_loss(k)
                )
            )
            accuracy, exact = result.accuracy(k)
            if accuracy is not None:
                print(
                    ngettext(
                        "{player}: accuracy {accuracy:.1f}% over {n} action judged by exact values",
                        "{player}: accuracy {accuracy:.1f}% over {n} actions judged by exact "
                        "values",
                        exact,
                    ).format(player=named(game, k), accuracy=accuracy, n=exact)
                )
    if args.output:
        annotated = annotate(record, result)
        if args.output.endswith(".json"):
            write_atomic(args.output, annotated.to_json() + "\n")
        else:
            annotated.save(args.output)
        print(_("annotated record written to {path}").format(path=args.output), file=sys.stderr)
    return 0
