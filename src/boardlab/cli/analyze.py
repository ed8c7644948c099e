"""``boardlab analyze``: the value of every legal action and the best line, exact where a
solver reaches the position."""

from __future__ import annotations

import argparse
from typing import Any

from boardlab.cli.common import (
    SEED,
    Commands,
    agent_help,
    column,
    command,
    game_of,
    named,
    position_of,
    with_options,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Position
from boardlab.core.i18n import _, ngettext, pgettext


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    analyze = command(commands, "analyze", _("the value of every legal action and the best line"))
    with_options(analyze)
    analyze.add_argument(
        "--agent",
        default="alphabeta:time=3",
        metavar="SPEC",
        help=_("{agents} (default: alphabeta:time=3)").format(agents=agents),
    )
    analyze.add_argument("--seed", type=SEED, default=0, metavar="S")
    return analyze


def run(args: argparse.Namespace) -> int:
    from boardlab.ai import make_agent

    position = position_of(game_of(args), args)
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
    print(f"  {column('action'):<8} {column('value'):>7} {column('visits'):>7}")
    for action, value, visits in rows:
        shown = str(visits) if visits else ""
        print(f"  {position.action_string(action):<8} {value:>+7.3f} {shown:>7}")
    line = position.line_strings((choice.action, *choice.pv[1:]))
    print(_("best: {action}, line: {line}").format(action=line[0], line=" ".join(line)))
    return 0


def _to_act(position: Position[Any]) -> str:
    """``<position string>  (south to act)``."""
    return _("{position}  ({player} to act)").format(
        position=position.position_string(), player=named(position.game, position.to_act)
    )


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
            player=named(game, position.to_act),
            n=abs(best),
            unit=ngettext(*game.point_words, abs(best)),
            value=best,
        )
    )
    print(f"  {column('action'):<8} {column('value'):>6}  {column('result')}")
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
