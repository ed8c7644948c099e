"""``boardlab replay``: records or lists of actions played through; the final positions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from boardlab.cli.common import Commands, command, game_of, say, with_options
from boardlab.core.errors import BoardlabError, UnknownGameError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.core.record import GameRecord, RecordError, read_record_text, split_records
from boardlab.core.registry import game_ids


def add(commands: Commands) -> argparse.ArgumentParser:
    replay = command(
        commands, "replay", _("play a record or a list of actions; print the final position")
    )
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
    return replay


def _replay_source(args: argparse.Namespace) -> tuple[Game[Any] | None, str | None]:
    """The game and the file to replay. GAME may be left out before a file of records
    that name their game (``boardlab replay games.txt``, as ``match --records`` writes)."""
    try:
        return game_of(args), args.file
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


def run(args: argparse.Namespace) -> int:
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
