"""``boardlab match``: two agents play each other; the difference, measured."""

from __future__ import annotations

import argparse
from typing import Any

from boardlab.cli.common import (
    SEED,
    Commands,
    agent_help,
    backend_of,
    command,
    game_of,
    openings_flags,
    openings_of,
    option_flag,
    parallel,
    progress_bar,
    within,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.i18n import _, ngettext, pgettext


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    match = command(
        commands, "match", _("play agents against each other and measure the difference")
    )
    match.add_argument("agent_a", metavar="AGENT_A", help=agents)
    match.add_argument("agent_b", metavar="AGENT_B", help=agents)
    match.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**7),
        metavar="N",
        help=_(
            "games to play (default 100, with --openings-file two a position; with --sprt, "
            "the most to play: default 20000)"
        ),
    )
    option_flag(match)
    openings_flags(match)
    parallel(match)
    match.add_argument(
        "--time",
        type=within(float, 0.001, 86_400),
        metavar="SECONDS",
        help=_(
            "both agents think SECONDS for every action, in place of the budgets their specs "
            "or levels name (a level's iterations, an alpha-beta's nodes)"
        ),
    )
    match.add_argument("--seed", type=SEED, default=0, metavar="S")
    match.add_argument("--records", metavar="FILE", help=_("write every game's record to FILE"))
    match.add_argument(
        "--results",
        metavar="FILE",
        help=_(
            "add each game to FILE as it ends; the same command and file resume a stopped "
            "match, playing only the games missing"
        ),
    )
    match.add_argument(
        "--sprt",
        metavar="TEST",
        help=_(
            "stop when a sequential test over game pairs decides, like "
            "elo0=0,elo1=10,alpha=0.05,beta=0.05 (logistic Elo of AGENT_A over AGENT_B)"
        ),
    )
    return match


def run(args: argparse.Namespace) -> int:
    from boardlab.arena import play_match
    from boardlab.arena.openings import described
    from boardlab.arena.sprt import Sprt, pair_counts

    game = game_of(args)
    test = Sprt.parse(args.sprt) if args.sprt else None
    openings = openings_of(game, args)
    from_file = 2 * len(openings.known) if openings.source is not None else 100
    games = args.games or (20_000 if test else from_file)
    if games % 2 and not openings.from_start:
        raise BoardlabError(
            _(
                "--games {games} with openings: each opening is played by a pair of games, "
                "the seats swapped; give an even number"
            ).format(games=games)
        )

    def live(results: list[Any]) -> str:
        """The test's log-likelihood ratio and its bounds, to show."""
        if test is None:
            return ""
        accept_h0, accept_h1 = test.bounds()
        return f"LLR {test.llr(pair_counts(results)):+.2f} ({accept_h0:+.2f}, {accept_h1:+.2f})"

    label = _("{first} vs {second}").format(first=args.agent_a, second=args.agent_b)
    with progress_bar(label, pgettext("unit", "games")) as update:

        def decided(results: list[Any]) -> bool:
            """Show the progress; whether the test has decided."""
            update(len(results), games, live(results))
            return test is not None and test.verdict(pair_counts(results)) is not None

        with backend_of(args) as backend:
            result = play_match(
                game.id,
                args.agent_a,
                args.agent_b,
                games,
                dict(game.options),
                seed=args.seed,
                stop=decided,
                backend=backend,
                openings=openings,
                seconds=args.time,
                results=args.results,
            )
    if result.resumed:
        print(
            ngettext(
                "{path}: {games} game of this match was played before",
                "{path}: {games} games of this match were played before",
                result.resumed,
            ).format(path=args.results, games=result.resumed)
        )
    score = result.score
    low, high = score.interval()
    elo, elo_low, elo_high = score.elo()
    print(
        _("{game}: {first} vs {second}, {games} games, seats alternating, seed {seed}").format(
            game=described(game),
            first=args.agent_a,
            second=args.agent_b,
            games=score.games,
            seed=args.seed,
        )
    )
    print(openings.describe(len({g.index // 2 for g in result.games})))
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
        if verdict is not None and result.resumed == len(result.games):
            print(
                _("the test had decided on the games in {path}: none played").format(
                    path=args.results
                )
            )
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
