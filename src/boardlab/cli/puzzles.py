"""``boardlab puzzles``: puzzles proven by the solver, played, made or checked."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boardlab.cli.common import SEED, Commands, UsageError, game_of, option_flag, within
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, game_ids, new_game


def add(commands: Commands) -> argparse.ArgumentParser:
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
    return puzzles


def run(args: argparse.Namespace) -> int:
    from boardlab.puzzles.check import check_puzzles
    from boardlab.puzzles.make import make_puzzles, why_not
    from boardlab.puzzles.puzzle import read_puzzles, shipped_path

    if args.action == "play":
        return play_puzzles(args)
    if args.action == "make":
        if args.game is None:
            raise UsageError(_("boardlab puzzles make: name the game"))
        game = game_of(args)
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
            reason = why_not(game_of(args))
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
