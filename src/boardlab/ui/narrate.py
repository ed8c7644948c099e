"""What just happened, in words: each action explained as it is played, so that a
newcomer learns the rules by playing (the follow-up count and the bonus in Linja, every
seed, relay, capture and refill in Galatjang, points and gives in Jin Li)."""

from __future__ import annotations

from typing import Any

from boardlab.core.game import Position
from boardlab.games.galatjang.rules import Step, pit_count, store_index
from boardlab.games.jinli.rules import DROP, GIVE, PASS
from boardlab.games.linja.rules import BONUS, FOLLOW_UP, NASTY, OPENING, ROWS, goal


def explain(before: Position[Any], action: int, after: Position[Any]) -> list[str]:
    """Sentences that explain ``action`` played in ``before``, giving ``after``."""
    explainers = {"jinli": _jinli, "linja": _linja, "galatjang": _galatjang}
    return explainers[before.game.id](before, action, after)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _name(position: Position[Any], player: int | None = None) -> str:
    side = position.to_act if player is None else player
    return position.game.players[side].capitalize()


# ---------------------------------------------------------------------- Jin Li
def _jinli(before: Position[Any], action: int, after: Position[Any]) -> list[str]:
    who, text = _name(before), before.action_string(action)
    side, state = before.to_act, after.state
    if action == PASS:
        return [f"{who} has no swim or jump and passes."]
    if action >= GIVE:
        other = _name(before, 1 - side)
        return [f"{who} gives the stone on {text[1:]} back to {other}, then plays a turn."]
    if action >= DROP:
        left = state.supply[side]
        lines = [f"{who} drops a stone on {text[1:]} ({left} left)."]
        if after.phase == "g":
            lines.append(f"That was {who}'s last stone: {_name(after)} gives one back.")
        return lines
    kind = action % 16
    verb = "jumps" if kind >= 8 else "swims"
    gained = state.score[side] - before.state.score[side]
    line = f"{who} {verb} {text}"
    if gained:
        line += f", next to {gained} koi: +{gained} (now {state.score[side]})"
    return [line + "."]


# ---------------------------------------------------------------------- Linja
def _linja(before: Position[Any], action: int, after: Position[Any]) -> list[str]:
    who, text, side = _name(before), before.action_string(action), before.to_act
    state = before.state
    if action == 2 * NASTY:
        if state.phase == BONUS:
            return [f"{who} declines the bonus move."]
        if state.extra:
            return [f"{who} has no opening move in the extra turn; the turn ends."]
        return [f"{who} has no opening move and passes."]
    if action >= NASTY:
        return [f"Bonus: {who} moves an opponent piece {text[1:]}."]
    origin, to = divmod(action, ROWS)
    if state.phase == BONUS:
        direction = "forward" if (to - origin) * (1 if side == 0 else -1) > 0 else "back"
        return [f"Bonus: {who} moves {text}, one row {direction}."]
    new = after.state
    if state.phase == OPENING:
        lines = [f"{who} opens {text}."]
        if to == goal(side):
            if new.phase == FOLLOW_UP and new.side == side:
                lines.append("The piece reaches the goal: a follow-up of 1 row.")
            elif new.phase == BONUS:
                lines.append("The piece reaches the goal: a bonus move.")
            else:
                lines.append("The piece reaches the goal: no follow-up.")
            return lines
        there = after.state.counts[0][to] + after.state.counts[1][to] - 1
        if there == 0:
            lines.append(f"Row {to} was empty: no follow-up.")
        elif new.phase == FOLLOW_UP and new.side == side:
            lines.append(
                f"Row {to} held {plural(there, 'piece')}: a follow-up of {plural(there, 'row')}."
            )
        else:
            lines.append(
                f"Row {to} held {plural(there, 'piece')}, but no piece can move "
                f"{plural(there, 'row')}: "
                f"the follow-up is forfeited."
            )
        return lines
    steps = state.steps
    lines = [f"{who} follows up {text}."]
    if new.phase == BONUS:
        lines.append(
            f"The piece enters the goal with exactly {plural(steps, 'step')}: a bonus move."
        )
    elif new.phase == OPENING and new.side == side:
        lines.append(f"It ends in row {to}, which was empty: an extra turn.")
    elif to == goal(side) and abs(to - origin) < steps:
        lines.append("It overshoots into the goal: the surplus steps are lost.")
    return lines


# ---------------------------------------------------------------------- Galatjang
def _place(before: Position[Any], k: int) -> str:
    pits = pit_count(before.state)
    if k == store_index(pits, 0):
        return "South's store"
    if k == store_index(pits, 1):
        return "North's store"
    return f"s{k + 1}" if k < pits else f"n{k - pits}"


def _galatjang(before: Position[Any], action: int, after: Position[Any]) -> list[str]:
    game = before.game
    steps: list[Step] = game.trace(before.state, action)  # type: ignore[attr-defined]
    who = _name(before)
    lines: list[str] = []
    leg: list[str] = []
    pits = pit_count(before.state)

    def short(k: int) -> str:
        return (
            "S"
            if k == store_index(pits, 0)
            else "N"
            if k == store_index(pits, 1)
            else (_place(before, k))
        )

    for step in steps:
        if step.kind == "take":
            leg = [f"{who} sows {_place(before, step.place)}: {plural(step.seeds, 'seed')} to"]
        elif step.kind == "drop":
            leg.append(short(step.place))
        elif step.kind == "relay":
            lines.append(" ".join(leg) + ".")
            leg = [
                f"{_place(before, step.place)} held seeds: {who} picks up {step.seeds} and "
                f"sows on to"
            ]
        elif step.kind in ("again", "stop", "capture", "stay"):
            lines.append(" ".join(leg) + ".")
            lines.append(_last_seed(before, step, who, after))
        elif step.kind == "sweep":
            lines.append(_round_end(before, after, step))
        elif step.kind == "refill":
            name = game.players[step.place].capitalize()
            blocked = pits - step.seeds
            note = f" ({blocked} blocked)" if blocked else ""
            lines.append(f"{name} fills {step.seeds} pits{note}.")
        elif step.kind == "round":
            starter = game.players[step.place].capitalize()
            lines.append(f"Round {step.seeds} begins; {starter} starts.")
    return lines


def _last_seed(before: Position[Any], step: Step, who: str, after: Position[Any]) -> str:
    place = _place(before, step.place)
    if step.kind == "again":
        if after.to_act == before.to_act and after.state.turns == before.state.turns:
            return f"The last seed falls into {place}: {who} sows again."
        return f"The last seed falls into {place}, but {who} has no seeds left: the turn ends."
    if step.kind == "stop":
        where = place if "store" in place else f"the empty {place}"
        return f"The last seed falls into {where}: the turn ends."
    if step.kind == "stay":
        return f"The last seed falls into the empty {place}, facing an empty pit: it stays."
    captured = step.seeds - 1
    if captured:
        return (
            f"The last seed falls into the empty {place}: it and the "
            f"{plural(captured, 'seed')} opposite go to {who}'s store."
        )
    return f"The last seed falls into the empty {place}, facing an empty pit: it goes to the store."


def _round_end(before: Position[Any], after: Position[Any], step: Step) -> str:
    pits = pit_count(before.state)
    south, north = step.ring[store_index(pits, 0)], step.ring[store_index(pits, 1)]
    limit = int(before.game.options["max_turns"])
    why = (
        "the turn limit is reached" if before.state.turns + 1 >= limit else "a player has no seeds"
    )
    return (
        f"Round {before.state.round} ends ({why}): the pits are emptied into the stores, "
        f"South {south}, North {north}."
    )
