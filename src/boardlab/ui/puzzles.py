"""``boardlab puzzles play``: puzzles in the terminal, as the puzzles page plays them.

A puzzle near the player's rating (at random among the nearest, not one just seen) is
shown with its task, themes and rating; the player types actions, or the number of one
from ``moves``. Any answer the solution tree lists is right (equally good moves are all
listed); the opponent's reply is played from the tree and narrated. A wrong answer is not
played: the solver's exact values say why, and the rest of the solution is shown. After
each rated puzzle the player's Glicko-2 rating and its change; the rating, the streak
and the puzzles just seen are kept in a small JSON file in the user's data directory.
Nothing typed crashes it: a bad line gets a one-line answer; Ctrl-C and a closed input
leave cleanly.
"""

from __future__ import annotations

import json
import random
import re
import signal
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.game import Position
from boardlab.core.i18n import N_, _
from boardlab.puzzles import glicko
from boardlab.puzzles.pick import (
    explain,
    pick_near,
    puzzle_rating,
    solver_values,
    task,
    theme_words,
)
from boardlab.puzzles.puzzle import Puzzle, Step
from boardlab.ui.narrate import explain as narrate
from boardlab.ui.terminal import TerminalGame
from boardlab.ui.views import view

#: The file the rating is kept in, in the user's data directory.
FILE_NAME = "puzzles.json"
#: How many puzzles just seen are not picked again (as the page's exclusions).
RECENT = 50

HELP = N_("""\
Type the best action for the player to act (or the number of an action from `moves`).
Commands:
  moves          the legal actions, numbered
  hint           where the first right answer is played (after a wrong try: the answer)
  solution       play the rest of the solution (the puzzle counts as not solved)
  board          draw the board again
  next           the next puzzle
  quit           leave
  help           this text""")


class Leave(Exception):
    """The player asked to leave."""


def rating_path() -> Path:
    """The rating's file: ``puzzles.json`` in the user's data directory (platformdirs,
    which honours ``XDG_DATA_HOME`` on Linux), where boardlab keeps its tables and games."""
    from platformdirs import user_data_path

    return user_data_path("boardlab") / FILE_NAME


@dataclass
class Kept:
    """What is kept between runs: the rating, the streak of puzzles solved in a row (and
    the best), and the ids of the puzzles just seen."""

    rating: glicko.Rating = field(default_factory=glicko.Rating)
    streak: int = 0
    best: int = 0
    recent: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": self.rating.to_dict(),
            "streak": self.streak,
            "best": self.best,
            "recent": self.recent[-RECENT:],
        }

    @classmethod
    def from_json(cls, data: Any) -> Kept:
        """Read back, refusing (``BoardlabError``) what this program never writes."""
        if not isinstance(data, dict):
            raise BoardlabError(_("not a JSON object"))
        kept_rating: Any = data.get("rating")
        rating = glicko.Rating.from_dict(kept_rating)
        counts = [data.get("streak", 0), data.get("best", 0)]
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
            raise BoardlabError(_("the streak must be a whole number, at least 0"))
        recent = data.get("recent", [])
        if not isinstance(recent, list) or not all(isinstance(i, str) for i in recent):
            raise BoardlabError(_("the puzzles seen must be a list of ids"))
        return cls(rating, counts[0], max(counts), recent[-RECENT:])


def load_kept(path: Path) -> tuple[Kept, str | None]:
    """The kept rating, and a notice when the file is there but not one (it is then set
    aside as ``.bad``, so that nothing is lost, and the player starts again)."""
    if not path.exists():
        return Kept(), None
    try:
        return Kept.from_json(json.loads(path.read_text(encoding="utf-8"))), None
    except (OSError, ValueError, BoardlabError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        aside = path.with_name(path.name + ".bad")
        try:
            path.replace(aside)
        except OSError:
            return Kept(), _(
                "{path} is not a puzzle rating ({reason}): starting from 1500 without keeping it."
            ).format(path=path, reason=reason)
        return Kept(), _(
            "{path} is not a puzzle rating ({reason}): set aside as {aside}, starting from 1500."
        ).format(path=path, reason=reason, aside=aside)


class PuzzlePlayer:
    """Puzzles one after another at the terminal."""

    def __init__(
        self,
        pool: Sequence[Puzzle],
        console: Console,
        path: Path | None,
        read_line: Callable[[str], str] = input,
        echo: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        self.pool = list(pool)
        self.console = console
        self.path = path
        self.read_line = read_line
        self.echo = echo
        self.rng = rng or random.Random()
        self.kept = Kept()
        if path is not None:
            self.kept, notice = load_kept(path)
            if notice:
                self.say(notice)
        # the puzzle being solved
        self.puzzle: Puzzle = self.pool[0]
        self.position: Position[Any] = self.puzzle.new_game().from_position_string(
            self.puzzle.position
        )
        self.step: Step | None = None
        self.path_played: list[str] = []
        self.failed = False
        self.hinted = False
        self.rated = False

    # ------------------------------------------------------------------ output
    def say(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    def show(self, last: Sequence[tuple[Position[Any], int]] = ()) -> None:
        self.console.print()
        self.console.print(view(self.position, last))

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        try:
            while True:
                self.start(self.next_puzzle())
                if not self.solve():
                    return 0
        except (Leave, EOFError):
            self.console.print()
            self.goodbye()
            return 0
        except KeyboardInterrupt:
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C waits
            self.console.print()
            self.say(_("Interrupted."))
            return 130

    def next_puzzle(self) -> Puzzle:
        return pick_near(self.pool, self.kept.rating.rating, self.kept.recent, self.rng)

    def start(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.position = puzzle.new_game().from_position_string(puzzle.position)
        self.step = puzzle.tree
        self.path_played = []
        self.failed = self.hinted = self.rated = False
        self.kept.recent = [*(i for i in self.kept.recent if i != puzzle.id), puzzle.id][-RECENT:]
        self.keep()
        themes = ", ".join(theme_words(puzzle.game, t) for t in puzzle.themes) or "-"
        self.console.print()
        self.say(
            _("{game} puzzle {id}: rating {rating}; themes: {themes}.").format(
                game=self.position.game.name, id=puzzle.id, rating=puzzle.rating, themes=themes
            )
        )
        self.show()
        self.say(task(puzzle) + ". " + _("Type help for help."))

    def read(self, prompt: str) -> str:
        line = self.read_line(prompt)
        if self.echo:
            self.say(line)
        return line

    def solve(self) -> bool:
        """Read lines until the player asks for the next puzzle (True) or, the puzzle
        over, closes the input (False)."""
        while True:
            if self.step is None:
                prompt = _("next, or quit") + "> "
            else:
                game = self.position.game
                prompt = (
                    f"{game.player_name(self.position.to_act)}, {game.due(self.position.state)}> "
                )
            line = self.read(prompt).strip()
            if not line:
                continue
            command, _space, _argument = line.partition(" ")
            command = command.lower()
            if command in ("quit", "exit"):
                raise Leave
            if command == "next":
                if self.step is not None and not self.rated:
                    self.say(_("Skipped: the puzzle is not rated."))
                return True
            handler = {
                "help": self.cmd_help,
                "?": self.cmd_help,
                "moves": self.cmd_moves,
                "hint": self.cmd_hint,
                "solution": self.cmd_solution,
                "board": self.cmd_board,
            }.get(command)
            if handler is not None:
                handler()
            elif self.step is None:
                self.say(_("This puzzle is over: type next for another, or quit."))
            else:
                self.answer(line)

    # ------------------------------------------------------------------ answers
    def answer(self, line: str) -> None:
        for word in TerminalGame.tokens(line):
            if self.step is None:
                self.say(_("{word!r}: the puzzle is over before it").format(word=word))
                return
            try:
                action = TerminalGame.action_from(self.position, word)
            except BoardlabError as error:
                self.say(str(error))
                self.say(_("Type `moves` for the legal actions or `help`."))
                return
            text = self.position.action_string(action)
            answers = dict(self.step.answers)
            if text not in answers:
                self.wrong(action)
                return
            self.play(action)
            self.path_played.append(text)
            self.step = answers[text]
            self.replies()
            if self.step is None:
                self.solved()
                return
        self.show()

    def play(self, action: int) -> None:
        before = self.position
        self.position = before.play(action)
        for sentence in narrate(before, action, self.position):
            self.say("  " + sentence)

    def replies(self) -> None:
        """The opponent's replies from the tree, each said and narrated."""
        while self.step is not None and self.step.reply is not None:
            before = self.position
            action = before.parse_action(self.step.reply)
            self.say(
                _("{player} replies {action}").format(
                    player=before.game.player_name(before.to_act), action=self.step.reply
                )
            )
            self.play(action)
            self.path_played.append(self.step.reply)
            self.step = self.step.then

    def wrong(self, action: int) -> None:
        text = self.position.action_string(action)
        waiting = (
            self.console.status(_("Asking the solver why…"), spinner="dots")
            if self.console.is_terminal
            else nullcontext()
        )
        with waiting:
            try:
                found = solver_values(self.position, action)
            except BoardlabError:
                found = {"action": text, "value": None}
        sentence = explain(self.puzzle, self.path_played, found)["sentence"]
        self.say(_("Not the best: {why}").format(why=sentence))
        if not self.failed:
            self.failed = True
            self.rate(False)
        self.say(_("The solution: {line}").format(line=" ".join(self.rest())))
        self.say(_("Try again, type solution to see it played, or next."))

    def solved(self) -> None:
        self.show()
        if self.failed or self.hinted or self.rated:
            self.say(_("Solved (not rated again)."))
        else:
            self.say(_("Solved! Every move was the best."))
            self.rate(True)
        self.say(_("Type next for another puzzle, or quit."))

    def rest(self) -> list[str]:
        """The rest of the solution from here: the first right answer at each step."""
        return [] if self.step is None else self.step.main_line()

    def rate(self, solved: bool) -> None:
        """Rate the attempt once, keep it, and say the new rating and the streak."""
        if self.rated:
            return
        self.rated = True
        before = self.kept.rating
        after, _puzzle = glicko.attempt(before, puzzle_rating(self.puzzle), solved)
        self.kept.rating = after
        ended = 0
        if solved:
            self.kept.streak += 1
            self.kept.best = max(self.kept.best, self.kept.streak)
        else:
            ended, self.kept.streak = self.kept.streak, 0
        self.keep()
        change = round(after.rating) - round(before.rating)
        self.say(
            _("Your rating: {rating} ({change:+d}); streak {streak} (best {best}).").format(
                rating=round(after.rating),
                change=change,
                streak=self.kept.streak,
                best=self.kept.best,
            )
        )
        if ended:
            self.say(_("The streak ends at {n}.").format(n=ended))

    def keep(self) -> None:
        """Write the kept rating (atomically); a failure is said once, and play goes on."""
        if self.path is None:
            return
        try:
            write_atomic(self.path, json.dumps(self.kept.to_json(), indent=1) + "\n")
        except OSError as error:
            self.say(
                _("Could not keep the rating in {path}: {reason}; play goes on without it.").format(
                    path=self.path, reason=error.strerror or error
                )
            )
            self.path = None

    def goodbye(self) -> None:
        self.say(
            _("Your rating: {rating}; streak {streak} (best {best}).").format(
                rating=round(self.kept.rating.rating),
                streak=self.kept.streak,
                best=self.kept.best,
            )
        )

    # ------------------------------------------------------------------ commands
    def cmd_help(self) -> None:
        self.say(_(HELP))
        if self.position.game.input_hint:
            self.say(_(self.position.game.input_hint))

    def cmd_moves(self) -> None:
        strings = self.position.legal_action_strings()
        if TerminalGame.numbers_are_actions(self.position):
            items = strings
        else:
            items = [f"{n}. {s}" for n, s in enumerate(strings, 1)]
        self.say(_("Legal: {actions}").format(actions="  ".join(items)))

    def cmd_board(self) -> None:
        self.show()

    def cmd_hint(self) -> None:
        if self.step is None:
            self.say(_("This puzzle is over: type next for another, or quit."))
            return
        first = self.step.answers[0][0]
        if self.failed:
            self.say(_("The right answer here: {action}").format(action=first))
            return
        action = self.position.parse_action(first)
        places = self.position.game.action_parts(self.position.state, action).places
        place = places[0] if places else re.split(r"[-x:@]", first)[0]
        if not self.hinted and not self.rated:
            self.hinted = True
            self.say(_("(A hint: this puzzle is no longer rated.)"))
        self.say(_("Hint: the best move is played at {place}.").format(place=place))

    def cmd_solution(self) -> None:
        if self.step is None:
            self.say(_("This puzzle is over: type next for another, or quit."))
            return
        if not self.rated and not self.hinted:  # as on the page: a look at it fails it
            self.failed = True
            self.rate(False)
        self.say(_("The solution: {line}").format(line=" ".join(self.rest())))
        while self.step is not None:
            if self.step.reply is not None:
                self.replies()
                continue
            first, after = self.step.answers[0]
            self.say(
                _("{player} plays {action}").format(
                    player=self.position.game.player_name(self.position.to_act), action=first
                )
            )
            self.play(self.position.parse_action(first))
            self.path_played.append(first)
            self.step = after
        self.show()
        self.say(_("Type next for another puzzle, or quit."))
