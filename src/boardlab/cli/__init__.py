"""The ``boardlab`` command: a thin layer over the library.

Every error about what the user typed becomes one line on standard error and a non-zero
exit status (2 for bad input, 1 for an illegal or malformed action in ``replay``); no
traceback reaches the user.

It speaks the language ``--lang`` names (before or after the command), else the
environment's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``): its output, its help
texts and argparse's own words ("usage:", "the following arguments are required").
Notation, agent specs, record headers and the ``key=value`` lines of ``replay`` are data
and stay as they are.

Each command is a module of this package that adds its parser (``add``) and runs it
(``run``); ``COMMANDS`` lists them in the order of the help, and a new command is a new
module named there. What several commands share is in ``common``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from boardlab.cli import (
    accounts,
    accuracy,
    analyze,
    bots,
    connect,
    db,
    engine,
    games,
    match,
    perft,
    play,
    prepare,
    puzzles,
    replay,
    review,
    rules,
    serve,
    show,
    solve,
    study,
    tournament,
)
from boardlab.cli.common import Command, CommandParser, Parser, UsageError, lang_flag, say
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import N_, SOURCE, _, check_language, language, ngettext, noun, use_language
from boardlab.core.registry import game_class, game_ids

#: The commands, in the order of the help.
COMMANDS: tuple[Command, ...] = (
    games,
    play,
    rules,
    show,
    perft,
    match,
    tournament,
    accuracy,
    study,
    engine,
    connect,
    analyze,
    solve,
    replay,
    review,
    serve,
    accounts,
    bots,
    prepare,
    db,
    puzzles,
)


def build_parser() -> argparse.ArgumentParser:
    """The parser, its help texts in the current language (build it after setting it)."""
    names = [game_class(game_id).name for game_id in game_ids()]
    parser = Parser(
        prog="boardlab",
        description=_("Reference engines, AI and tools for {games}.").format(
            games=", ".join(names)
        ),
        epilog=_("games: {games}").format(games=", ".join(game_ids())),
    )
    lang_flag(parser, None)
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=CommandParser
    )
    for module in COMMANDS:
        module.add(commands).set_defaults(run=module.run)
    for sub in commands.choices.values():  # --lang after the command too
        lang_flag(sub, argparse.SUPPRESS)
    return parser


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
            run: Callable[[argparse.Namespace], int] = args.run
            return run(args)
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
        except IsADirectoryError as error:
            say(
                "boardlab: "
                + _("{path} is a folder, not a file: name a file").format(path=error.filename)
            )
            return 2
        except OSError as error:
            say(f"boardlab: {error.strerror or error}: {error.filename or ''}".rstrip(": "))
            return 2
        except KeyboardInterrupt:
            print(_("boardlab: interrupted"), file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
