"""Certificates of exact Galatjang values, and the checker that needs to trust none of
the solver.

**The claim.** In the certificate's position, the player to act ends the round with
exactly ``value`` more seeds in his store than his opponent when both play perfectly:
his final difference is at least ``value`` (he has a way to get it whatever the opponent
does) and at most ``value`` (the opponent has a way to hold him to it).

**What it holds.** Only the choices a proof needs: for every claim "the player to act
gets at least T" met on the way, the action that keeps it. A claim "at most T" needs
every action, so it needs no choice. Claims are keyed by the pits (the player to act's,
then the opponent's, in sowing order) and the threshold less the current store
difference: within the last round the stores only grow and the future depends on the
pits alone, so one entry serves every position with those pits.

**The checker** replays every claim through the engine (``legal_actions``, ``apply``,
``outcome_of`` of the game in the certificate's options), down to positions where the
value is known without search: the end of the round (the engine's own final points) and,
if the certificate says so, positions in the endgame table: their entry is found by the
table's ranking, computed here on its own (``_rank``), and read from the file, whose
header must name these rules and whose build is checked on its own (``boardlab solve
galatjang --verify``, and the recheck of entries from their children).
It refuses a certificate whose choice is missing, illegal or does not keep its claim,
whose leaves contradict it, or whose game the turn cap could end early.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.core.registry import new_game
from boardlab.games.galatjang.endgames import table_rules
from boardlab.games.galatjang.rules import GalatjangState, pit_count, pit_index, store_index
from boardlab.solve.tables import Table

KIND = "boardlab-galatjang-certificate"
FORMAT = 1


@dataclass(frozen=True)
class Certificate:
    """A claimed exact value and the choices that prove it."""

    options: dict[str, Any]
    position: str
    value: int
    table_seeds: int  # leaves in the endgame table up to this many seeds; -1: none
    choices: dict[tuple[int, ...], int]  # (pits..., threshold less stores) -> action

    def to_json(self) -> str:
        lines = [[*key, action] for key, action in sorted(self.choices.items())]
        head = {
            "kind": KIND,
            "format": FORMAT,
            "game": "galatjang",
            "options": self.options,
            "position": self.position,
            "value": self.value,
            "table_seeds": self.table_seeds,
        }
        body = ",\n".join(json.dumps(line, separators=(",", ":")) for line in lines)
        return json.dumps(head)[:-1] + ', "choices": [\n' + body + "\n]}\n"

    def save(self, path: str | Path) -> Path:
        return write_atomic(path, self.to_json())

    @classmethod
    def read(cls, path: str | Path) -> Certificate:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if data.get("kind") != KIND or data.get("format") != FORMAT:
                raise ValueError
            choices = {tuple(int(x) for x in line[:-1]): int(line[-1]) for line in data["choices"]}
            found = cls(
                dict(data["options"]),
                str(data["position"]),
                int(data["value"]),
                int(data["table_seeds"]),
                choices,
            )
        except (OSError, UnicodeDecodeError) as error:
            raise BoardlabError(
                _("cannot read the certificate {path}: {error}").format(path=path, error=error)
            ) from None
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            raise BoardlabError(
                _("{path} is not a Galatjang certificate").format(path=path)
            ) from None
        try:
            new_game("galatjang", found.options).from_position_string(found.position)
        except BoardlabError as error:
            raise BoardlabError(
                _("{path} names no valid game or position: {error}").format(path=path, error=error)
            ) from None
        return found


@dataclass(frozen=True)
class Checked:
    """What the checker went through."""

    claims: int
    choices_used: int
    ends: int
    table_leaves: int


def _view(state: GalatjangState) -> tuple[tuple[int, ...], int]:
    """The pits from the player to act's side, and his store difference."""
    pits, me = pit_count(state), state.side
    ring = state.ring
    mine = [ring[pit_index(pits, me, k)] for k in range(pits)]
    theirs = [ring[pit_index(pits, 1 - me, k)] for k in range(pits)]
    stores = ring[store_index(pits, me)] - ring[store_index(pits, 1 - me)]
    return (*mine, *theirs), stores


def check(certificate: Certificate, table: Table | None = None) -> Checked:
    """Replay every claim of ``certificate`` through the engine; a BoardlabError names
    the first that fails. ``table`` is the endgame table file (needed when the
    certificate's leaves are in it)."""
    game = new_game("galatjang", certificate.options)
    start = game.from_position_string(certificate.position).state
    first, _stores = _view(start)
    seeds = sum(first)
    if any(x < 0 for x in first) or int(game.options["rounds"]) != start.round:
        raise BoardlabError(_("the certificate's position is not in the last round, or blocked"))
    if int(game.options["max_turns"]) - start.turns < seeds:
        raise BoardlabError(_("the turn cap could end the round early: the claim is not checked"))
    if certificate.table_seeds >= 0:
        if table is None:
            raise BoardlabError(
                _(
                    "the certificate's leaves are in the endgame table (up to {seeds} seeds): "
                    "the table is needed to check it"
                ).format(seeds=certificate.table_seeds)
            )
        table.require(table_rules(game))
        if int(table.header["max_seeds"]) < certificate.table_seeds:
            raise BoardlabError(
                _(
                    "the certificate's leaves need a table of {seeds} seeds; {path} holds {held}"
                ).format(
                    seeds=certificate.table_seeds, path=table.path, held=table.header["max_seeds"]
                )
            )
    seen: set[tuple[Any, ...]] = set()
    used: set[tuple[int, ...]] = set()
    ends = leaves = 0
    stack: list[tuple[GalatjangState, bool, int]] = [
        (start, True, certificate.value),
        (start, False, certificate.value),
    ]
    while stack:
        state, at_least, target = stack.pop()
        view, stores = _view(state)
        key = (view, at_least, target - stores)
        if key in seen:
            continue
        seen.add(key)
        known = _known(game, state, view, stores, certificate.table_seeds, table)
        if known is not None:
            if known[1]:
                leaves += 1
            else:
                ends += 1
            if (known[0] < target) if at_least else (known[0] > target):
                if at_least:
                    refuted = _(
                        "claim refuted: {position} is worth {value:+d} to the player to act, "
                        "not at least {target:+d}"
                    )
                else:
                    refuted = _(
                        "claim refuted: {position} is worth {value:+d} to the player to act, "
                        "not at most {target:+d}"
                    )
                raise BoardlabError(
                    refuted.format(position=game.format_state(state), value=known[0], target=target)
                )
            continue
        me = game.to_act(state)
        legal = game.legal_actions(state)
        if at_least:
            choice = (*view, target - stores)
            action = certificate.choices.get(choice)
            if action is None or action not in legal:
                raise BoardlabError(
                    _(
                        "no legal choice for the claim that {position} is worth at least "
                        "{target:+d} to the player to act"
                    ).format(position=game.format_state(state), target=target)
                )
            used.add(choice)
            legal = [action]
        for action in legal:
            child = game.apply(state, action)
            if game.to_act(child) == me:
                stack.append((child, at_least, target))
            else:  # the claim passes to the opponent, with the sign turned
                stack.append((child, not at_least, -target))
    return Checked(len(seen), len(used), ends, leaves)


def principal_line(certificate: Certificate) -> list[int]:
    """The actions the certificate's choices make from its position: both sides play
    its choices (each keeps the exact value), until a leaf."""
    game = new_game("galatjang", certificate.options)
    state = game.from_position_string(certificate.position).state
    target, line = certificate.value, []
    while game.outcome_of(state) is None:
        view, stores = _view(state)
        action = certificate.choices.get((*view, target - stores))
        if action is None or action not in game.legal_actions(state):
            break
        me = game.to_act(state)
        state = game.apply(state, action)
        line.append(action)
        target = target if game.to_act(state) == me else -target
    return line


def _known(
    game: Game[Any],
    state: GalatjangState,
    view: tuple[int, ...],
    stores: int,
    table_seeds: int,
    table: Table | None,
) -> tuple[int, bool] | None:
    """The exact value of ``state`` for the player to act where it needs no search (and
    whether the table gave it), else None."""
    outcome = game.outcome_of(state)
    if outcome is not None:
        me = game.to_act(state)
        return outcome.points[me] - outcome.points[1 - me], False
    if table is not None and sum(view) <= table_seeds:
        return stores + int(table.values[_rank(view)]), True
    return None


def _rank(view: tuple[int, ...]) -> int:
    """The entry of a configuration in the endgame table: configurations with fewer seeds
    come first (``C(n - 1 + m, m)`` of them for ``n`` seeds in ``m`` pits), then the
    colexicographic rank of the bar positions ``view[0] + ... + view[j] + j`` among those
    with the same total (the combinatorial number system)."""
    m, prefix, rank = len(view), 0, 0
    for j in range(m - 1):
        prefix += view[j]
        rank += comb(prefix + j, j + 1)
    total = prefix + view[-1]
    return comb(total + m - 1, m) + rank
