"""Chess clocks for games between two people online, counted on the server.

A clock is data kept with the game: the time control (``base`` seconds each, plus
``increment`` seconds after each turn), the milliseconds ``left`` to each player, and
``since``, when the player to act began thinking (None while the clock stands: before
the opponent has taken the seat, and once the game is over). Every function here is
pure, given the time, so the rules of the clock are tested without waiting.

>>> clock = start(new_clock(60, 2), now=0)
>>> clock = after_action(clock, mover=0, next_to_act=1, now=10_000)
>>> clock["left"], clock["since"]
([52000, 60000], 10000)
>>> left_now(clock, to_act=1, now=15_000)
[52000, 55000]
>>> expired(clock, to_act=1, now=70_000)
True
"""

from __future__ import annotations

import re
import time
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _

#: ``MINUTES+SECONDS``: 5+3 is five minutes each and three seconds more after each turn.
CONTROL = re.compile(r"^\s*(\d{1,3})\s*\+\s*(\d{1,2})\s*$")
#: The time controls the new game form offers (minutes, increment seconds).
CHOICES = ("1+0", "3+2", "5+3", "10+5", "15+10", "30+20")
MOST_MINUTES, MOST_INCREMENT = 180, 60

Clock = dict[str, Any]


def milliseconds() -> int:
    return int(time.time() * 1000)


def parse_control(text: str) -> tuple[int, int]:
    """``(base seconds, increment seconds)`` of ``MINUTES+SECONDS``, else a clear error."""
    found = CONTROL.match(text)
    minutes, increment = (int(found.group(1)), int(found.group(2))) if found else (0, -1)
    if not found or not 1 <= minutes <= MOST_MINUTES or not 0 <= increment <= MOST_INCREMENT:
        raise BoardlabError(
            _(
                "bad time control {text!r}: expected MINUTES+SECONDS such as 5+3 (1 to "
                "{minutes} minutes, 0 to {seconds} seconds more a turn)"
            ).format(text=text, minutes=MOST_MINUTES, seconds=MOST_INCREMENT)
        )
    return minutes * 60, increment


def new_clock(base: int, increment: int) -> Clock:
    """A full clock, standing."""
    return {"base": base, "increment": increment, "left": [base * 1000] * 2, "since": None}


def start(clock: Clock, now: int) -> Clock:
    """The clock running for the player to act from ``now`` (the opponent sat down)."""
    return {**clock, "since": now}


def left_now(clock: Clock, to_act: int | None, now: int) -> list[int]:
    """Each player's milliseconds at ``now``: the player to act's running down."""
    left = list(clock["left"])
    if clock["since"] is not None and to_act is not None:
        left[to_act] -= now - clock["since"]
    return left


def expired(clock: Clock | None, to_act: int | None, now: int) -> bool:
    """Whether the player to act has run out of time."""
    if clock is None or clock["since"] is None or to_act is None:
        return False
    return left_now(clock, to_act, now)[to_act] <= 0


def after_action(clock: Clock, mover: int, next_to_act: int | None, now: int) -> Clock:
    """The clock after ``mover`` acted at ``now``: their thinking time is taken off, and
    the increment added when the turn passes to the other player; it stands when the
    game is over (``next_to_act`` None)."""
    left = left_now(clock, mover, now)
    if next_to_act is not None and next_to_act != mover:
        left[mover] += clock["increment"] * 1000
    return {**clock, "left": left, "since": None if next_to_act is None else now}


def flagged(clock: Clock, to_act: int, now: int) -> Clock:
    """The clock of a player who ran out: at zero, standing."""
    left = left_now(clock, to_act, now)
    left[to_act] = 0
    return {**clock, "left": left, "since": None}
