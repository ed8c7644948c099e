"""``boardlab play``: a game in the terminal between people, agents, or both."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boardlab.cli.common import SEED, Commands, agent_help, command, game_of, option_flag, within
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.core.record import GameRecord
from boardlab.core.registry import game_class, game_ids
from boardlab.extras import require


def seat_names() -> list[str]:
    """Every player name of every registered game: the seat flags of ``play``."""
    names: dict[str, None] = {}
    for game_id in game_ids():
        names.update(dict.fromkeys(game_class(game_id).players))
    return list(names)


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    play = command(commands, "play", _("play a game in the terminal: people, agents, or both"))
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
    return play


def run(args: argparse.Namespace) -> int:
    require("play", "boardlab play")
    from boardlab.ai import make_agent
    from boardlab.ui.terminal import TerminalGame, console_for, make_seat, seat_specs

    cls = game_class(args.game)
    if args.load:
        if args.option:
            raise BoardlabError(_("--option cannot change a loaded game: its record sets them"))
        record = GameRecord.load(args.load, game=cls.id)
    else:
        record = GameRecord(game_of(args))
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
