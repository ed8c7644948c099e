"""``boardlab play``: a game in the terminal, between people and agents in any mix.

People type action strings (a whole turn at once if they like: ``a1-b2 @d4``), the
number of an action from ``moves``, or a command. Nothing typed can crash the game or
lose it: a bad line gets a one-line answer and the prompt again; Ctrl-C, a closed input
and ``quit`` save an unfinished game to a file and say where.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from boardlab.ai import DEFAULT_LEVEL, Agent, level_name, make_agent
from boardlab.core.errors import BoardlabError, InvalidNotationError
from boardlab.core.files import games_dir
from boardlab.core.game import Game, Position
from boardlab.core.i18n import N_, _, counted, pgettext
from boardlab.core.record import GameRecord, add_action_token
from boardlab.ui.narrate import explain
from boardlab.ui.views import view

#: The commands, shown by ``help`` (translated there); the command words stay English.
HELP = N_("""\
Type an action, several actions of your turn at once, or the number of an action from
`moves`. Commands:
  moves          the legal actions, numbered
  hint           the AI's suggestion, with its evaluation and expected line
  undo           take back your last turn (and the reply to it)
  save [FILE]    save the game record (text; .json for JSON)
  board          draw the board again
  rules          the rules in brief and the options of this game
  resign         give up this game
  quit           leave (an unfinished game is saved first)
  help           this text""")


class Quit(Exception):
    """The person asked to leave."""


@dataclass(frozen=True)
class Seat:
    """Who plays a side: a person (agent None) or an agent; ``label`` is how it was named."""

    agent: Agent | None
    label: str

    @property
    def human(self) -> bool:
        return self.agent is None


HUMAN = ("human", "person", "me")


def make_seat(spec: str, seed: int | None, game: Game[Any] | str | None = None) -> Seat:
    if spec.strip().lower() in HUMAN:
        return Seat(None, "human")
    return Seat(make_agent(spec, seed, game), spec)


def seat_specs(game: Game[Any], given: Mapping[str, str | None]) -> list[str]:
    """Who plays each side, in the game's player order, from the seats named by player
    (``{"red": "hard"}``): none named, a person against the default level; one named,
    the other is a person (or the default level, if the named one is a person). A seat
    named for a player the game does not have is refused."""
    players = game.players
    strays = [name for name, spec in given.items() if spec is not None and name not in players]
    if strays:
        raise BoardlabError(
            _("--{flag} is not a player of {game}: the players are {first} and {second}").format(
                flag=strays[0], game=game.id, first=players[0], second=players[1]
            )
        )
    chosen = [given.get(name) for name in players]
    if chosen == [None, None]:
        return ["human", DEFAULT_LEVEL]
    if None in chosen:
        other = str(chosen[1 - chosen.index(None)])
        fill = DEFAULT_LEVEL if other.strip().lower() in HUMAN else "human"
        return [str(c) if c is not None else fill for c in chosen]
    return [str(c) for c in chosen]


class TerminalGame:
    """One game at the terminal: the record, the seats, and the conversation."""

    def __init__(
        self,
        record: GameRecord,
        seats: tuple[Seat, Seat],
        console: Console,
        read_line: Callable[[str], str] = input,
        echo: bool = False,
        delay: float = 0.0,
        autosave: Path | None = None,
        hint_agent: Agent | None = None,
    ) -> None:
        self.record = record
        self.seats = seats
        self.console = console
        self.read_line = read_line
        self.echo = echo
        self.delay = delay
        self.autosave = autosave
        self.hint_agent = hint_agent or make_agent("hard", 0, record.game)
        #: the thread that gets each agent ready (compiles its search), by ``id(agent)``
        self.warming: dict[int, threading.Thread] = {}
        #: the number of actions in the last saved (or loaded) record
        self.saved_length = len(record) if record.actions else 0

    @property
    def position(self) -> Position[Any]:
        return self.record.position

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play until the game is over and the person leaves; the exit status."""
        agents = [seat.agent for seat in self.seats if seat.agent is not None]
        if any(seat.human for seat in self.seats):
            agents.append(self.hint_agent)
        for agent in agents:  # compile while the person thinks
            warming = threading.Thread(target=agent.warm, args=(self.position,), daemon=True)
            warming.start()
            self.warming[id(agent)] = warming
        self.say_players()
        self.show()
        try:
            while True:
                if self.record.is_over():
                    self.announce_result()
                    if not any(seat.human for seat in self.seats) or not self.after_the_game():
                        return 0
                    continue
                seat = self.seats[self.position.to_act]
                if seat.agent is not None:
                    self.agent_turn(seat.agent, level_name(seat.label))
                else:
                    self.read_and_act()
        except Quit:
            self.save_unfinished(_("You left"))
            return 0
        except EOFError:
            self.console.print()
            self.save_unfinished(_("Input closed"))
            return 0
        except KeyboardInterrupt:
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C waits
            self.console.print()
            self.save_unfinished(_("Interrupted"))
            return 130

    def read(self, prompt: str) -> str:
        line = self.read_line(prompt)
        if self.echo:
            self.console.print(line, markup=False, highlight=False)
        return line

    def prompt(self) -> str:
        position = self.position
        return (
            f"{position.game.player_name(position.to_act)}, {position.game.due(position.state)}> "
        )

    # ------------------------------------------------------------------ people
    def read_and_act(self) -> None:
        line = self.read(self.prompt()).strip()
        if not line:
            return
        command, _space, argument = line.partition(" ")
        handler = {
            "help": self.cmd_help,
            "?": self.cmd_help,
            "moves": self.cmd_moves,
            "hint": self.cmd_hint,
            "undo": self.cmd_undo,
            "save": self.cmd_save,
            "board": self.cmd_board,
            "rules": self.cmd_rules,
            "resign": self.cmd_resign,
            "quit": self.cmd_quit,
            "exit": self.cmd_quit,
        }.get(command.lower())
        if handler is not None:
            handler(argument.strip())
            return
        try:
            actions = self.resolve(line)
        except BoardlabError as error:
            self.console.print(f"{error}", markup=False, highlight=False)
            self.console.print(_("Type `moves` for the legal actions or `help`."), markup=False)
            return
        self.play(actions)

    def resolve(self, line: str) -> list[int]:
        """The actions a typed line names, checked in order on a scratch position: all of
        them legal and for people to play, or an error and nothing played."""
        position, actions = self.position, []
        for word in self.tokens(line):
            if position.is_over():
                raise BoardlabError(_("{word!r}: the game is over before it").format(word=word))
            if not self.seats[position.to_act].human:
                raise BoardlabError(_("{word!r}: it is not your turn then").format(word=word))
            action = self.action_from(position, word)
            actions.append(action)
            position = position.play(action)
        return actions

    @staticmethod
    def tokens(line: str) -> list[str]:
        words: list[tuple[int, str]] = []
        for word in line.replace(",", " ").split():
            add_action_token(words, 1, word)
        return [word for _number, word in words]

    @staticmethod
    def numbers_are_actions(position: Position[Any]) -> bool:
        """Whether a bare number is an action string of the game (a pit to sow), so the
        ``moves`` list needs no numbers of its own."""
        try:
            position.game.parse_action(position.state, "1")
        except InvalidNotationError:
            return False
        except BoardlabError:
            return True
        return True

    @staticmethod
    def action_from(position: Position[Any], word: str) -> int:
        """An action string, or else the number of an action in the ``moves`` list (where
        a bare number is not itself an action string)."""
        try:
            return position.parse_action(word)
        except InvalidNotationError:
            if not (word.isascii() and word.isdigit()):
                raise
        legal = position.legal_actions()
        if len(word) > 4 or not 1 <= int(word) <= len(legal):
            raise BoardlabError(
                _("no action number {word}: the actions are 1-{count}").format(
                    word=word, count=len(legal)
                )
            )
        return legal[int(word) - 1]

    def play(self, actions: list[int]) -> None:
        for action in actions:
            before = self.position
            after = self.record.play(action)
            for sentence in explain(before, action, after):
                self.console.print(sentence, markup=False, highlight=False)
        self.keep()
        if self.position_changes_hands() or self.record.is_over():
            self.show()

    def position_changes_hands(self) -> bool:
        """Draw the board when the turn passes (a person mid-turn keeps typing)."""
        return len(self.record) >= 1 and (
            self.record.positions[-2].to_act != self.position.to_act
            or self.seats[self.position.to_act].human
        )

    # ------------------------------------------------------------------ agents
    def agent_turn(self, agent: Agent, label: str) -> None:
        """The agent plays its whole turn; it is shown once, then explained."""
        first = self.position
        player = first.game.player_name(first.to_act)
        started = time.perf_counter()
        played: list[tuple[Position[Any], int, Position[Any]]] = []
        while not self.record.is_over() and self.position.to_act == first.to_act:
            before = self.position
            doing = _("{player} ({agent}) is thinking").format(player=player, agent=label)
            with self.thinking(agent, doing):
                choice = agent.choose(before)
            action = choice.action
            played.append((before, action, self.record.play(action, choice.comment)))
        seconds = time.perf_counter() - started
        words = " ".join(before.action_string(action) for before, action, _after in played)
        if seconds >= 0.5:
            plays = _("{player} ({agent}) plays {actions}  ({seconds:.1f} s)")
        else:
            plays = _("{player} ({agent}) plays {actions}")
        self.console.print(
            plays.format(player=player, agent=label, actions=words, seconds=seconds),
            markup=False,
            highlight=False,
        )
        for before, action, after in played:
            for sentence in explain(before, action, after):
                self.console.print("  " + sentence, markup=False, highlight=False)
        self.keep()
        self.show()
        if self.delay and not self.record.is_over():
            time.sleep(self.delay)

    @contextmanager
    def thinking(self, agent: Agent, doing: str) -> Iterator[None]:
        """A spinner with what is going on, shown on a terminal once an agent takes more
        than half a second (saying so when it first compiles its search), gone after."""
        warming = self.warming.get(id(agent))
        if warming and warming.is_alive():
            shown = _("{doing}... (compiling the search, once)").format(doing=doing)
        else:
            shown = f"{doing}..."
        status = self.console.status(shown, spinner="dots")
        done, lock = threading.Event(), threading.Lock()

        def show() -> None:
            with lock:
                if not done.is_set():
                    status.start()

        timer = threading.Timer(0.5, show)
        timer.daemon = True
        if self.console.is_terminal:
            timer.start()
        try:
            yield
        finally:
            with lock:
                done.set()
                timer.cancel()
                status.stop()

    # ------------------------------------------------------------------ commands
    def cmd_help(self, argument: str) -> None:
        self.console.print(_(HELP), markup=False, highlight=False)
        if self.position.game.input_hint:
            self.console.print(_(self.position.game.input_hint), markup=False, highlight=False)

    def cmd_moves(self, argument: str) -> None:
        strings = self.position.legal_action_strings()
        if self.numbers_are_actions(self.position):
            items = strings
        else:
            items = [f"{n}. {s}" for n, s in enumerate(strings, 1)]
        legal = _("Legal: {actions}").format(actions="  ".join(items))
        self.console.print(legal, markup=False, highlight=False)

    def cmd_hint(self, argument: str) -> None:
        position = self.position
        with self.thinking(self.hint_agent, _("Looking for a hint")):
            choice = self.hint_agent.choose(position)
        self.hint_agent.reset()
        value = choice.value if choice.value is not None else 0.0
        chance = round(50 * (value + 1))
        line = " ".join(position.line_strings(choice.pv[:8]))
        hint = _(
            "Hint: {action} (evaluation {value:+.2f} for {player}, about {chance}% expected; "
            "line: {line})"
        )
        self.console.print(
            hint.format(
                action=position.action_string(choice.action),
                value=value,
                player=position.game.player_name(position.to_act),
                chance=chance,
                line=line,
            ),
            markup=False,
            highlight=False,
        )

    def cmd_undo(self, argument: str) -> None:
        """Back to the start of the latest turn a person has played (any agent replies
        after it go too)."""
        record = self.record
        if record.resigned is not None:
            record.resigned = None
            self.keep()
            self.console.print(_("Took back the resignation."))
            self.show()
            return
        start = record.turn_start(lambda player: self.seats[player].human)
        if start is None:
            self.console.print(_("Nothing to undo."))
            return
        taken = len(record) - start
        record.undo_to(start)
        for seat in self.seats:
            if seat.agent is not None:
                seat.agent.reset()
        self.keep()
        self.console.print(counted(taken, "Took back {n} action.", "Took back {n} actions."))
        self.show()

    def cmd_save(self, argument: str) -> None:
        try:
            path = self.record.save(argument or self.default_path())
        except (OSError, ValueError) as error:
            self.console.print(
                _("Could not save: {reason}").format(reason=reason(error)),
                markup=False,
                highlight=False,
            )
            return
        self.saved_length = len(self.record)
        self.console.print(_("Saved to {path}").format(path=path), markup=False, highlight=False)

    def cmd_board(self, argument: str) -> None:
        self.show()

    def cmd_rules(self, argument: str) -> None:
        game = self.position.game
        self.console.print(game.rules_in_brief(), markup=False, highlight=False)
        options = " ".join(game.option_assignments()) or _("all defaults")
        self.console.print(
            _("Options of this game: {options}").format(options=options),
            markup=False,
            highlight=False,
        )

    def cmd_resign(self, argument: str) -> None:
        player = self.position.game.player_name(self.position.to_act)
        self.console.print(_("{player} resigns.").format(player=player), markup=False)
        self.record.resign()
        self.keep()

    def cmd_quit(self, argument: str) -> None:
        raise Quit

    # ------------------------------------------------------------------ output
    def say_players(self) -> None:
        game = self.position.game
        you = pgettext("seat", "you")
        names = ", ".join(
            f"{game.player_name(k)}: {you if seat.human else level_name(seat.label)}"
            for k, seat in enumerate(self.seats)
        )
        options = " ".join(game.option_assignments())
        if options:
            said = _("{game} ({options}). {players}. Type help for help.")
        else:
            said = _("{game}. {players}. Type help for help.")
        self.console.print(
            said.format(game=game.name, options=options, players=names),
            markup=False,
            highlight=False,
        )

    def show(self) -> None:
        self.console.print()
        self.console.print(view(self.position, self.record.last_turn()))

    def announce_result(self) -> None:
        game = self.position.game
        aborted = self.record.aborted
        if aborted is not None:  # no result: nobody won, nobody lost
            said = _("The game was aborted by {player}.").format(player=game.player_name(aborted))
            self.console.print(said, markup=False)
            return
        outcome = self.record.outcome()
        assert outcome is not None
        names = [game.player_name(k) for k in range(len(game.players))]
        sentence = outcome.sentence(game.reason_words, names)
        self.console.print(sentence, markup=False)

    def after_the_game(self) -> bool:
        """Commands once the game is over; True if an undo reopened it."""
        self.console.print(
            _("The game is over: save [FILE] keeps the record, undo takes back, quit leaves."),
            markup=False,
        )
        while True:
            try:
                line = self.read("> ").strip()
            except EOFError:
                self.console.print()
                return False
            command, _space, argument = line.partition(" ")
            command = command.lower()
            if command in ("quit", "exit"):
                return False
            if command == "save":
                self.cmd_save(argument.strip())
            elif command == "undo":
                self.cmd_undo("")
                if not self.record.is_over():
                    return True
            elif command == "board":
                self.show()
            elif command:
                self.console.print(_("The game is over: save [FILE], undo, board or quit."))

    # ------------------------------------------------------------------ saving
    def default_path(self) -> Path:
        """A new file in the games folder, named for the game and the time."""
        folder = games_dir()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        path = folder / f"boardlab-{self.position.game.id}-{stamp}.txt"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"boardlab-{self.position.game.id}-{stamp}-{n}.txt"
        return path

    def keep(self) -> None:
        """Keep the autosave file up to date (written atomically); a failure is said
        once, and the game goes on."""
        if self.autosave is None:
            return
        try:
            self.record.save(self.autosave)
            self.saved_length = len(self.record)
        except (OSError, ValueError) as error:
            self.console.print(
                _("Could not save to {path}: {reason}; the game goes on without it.").format(
                    path=self.autosave, reason=reason(error)
                ),
                markup=False,
                highlight=False,
            )
            self.autosave = None

    def save_unfinished(self, why: str) -> None:
        """Save an unfinished game (unless nothing changed since it was saved or loaded)
        and say where, and how to go on with it."""
        current = len(self.record) == self.saved_length
        if self.record.is_over() or (current and self.autosave is None):
            self.console.print(f"{why}.", markup=False)
            return
        path = self.autosave or self.default_path()
        if not current:
            try:
                self.record.save(path)
            except (OSError, ValueError) as error:
                self.console.print(
                    _("{why}; the game could not be saved: {reason}").format(
                        why=why, reason=reason(error)
                    ),
                    markup=False,
                )
                return
        saved = _(
            "{why}: the unfinished game is saved in {path} "
            "(continue with: boardlab play {game} --load {path})."
        )
        self.console.print(
            saved.format(why=why, path=path, game=self.position.game.id),
            markup=False,
            highlight=False,
        )


def reason(error: Exception) -> str:
    """Why a file could not be written, for a person: the system's words and the file,
    without the error number."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    return str(error)


def console_for(stream: Any = None) -> Console:
    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True)
