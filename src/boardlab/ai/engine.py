"""An external engine as an agent: ``engine:cmd=PROGRAM`` drives any program that speaks
UGI (``boardlab engine`` is one; see ``boardlab.arena.ugi``).

The program is started on first use and kept for the next moves and games: ``ugi`` and
``isready`` are asked once (the answers must come within 30 seconds), then
each action is ``position fen <position string>`` and ``go movetime <ms>`` (the agent's
``time``, default 1 s; or ``nodes``, ``depth``), answered by ``bestmove <action>``.
The last ``info ... score cp N`` gives the choice's value. An engine that crashes, does
not answer ``bestmove`` within the move time plus ``timeout``, or answers an illegal or
unreadable action raises ``EngineFault`` (an ``AgentFault``): matches and tournaments
score that game as a forfeit, record why, and start the program afresh for the next game.
"""

from __future__ import annotations

import contextlib
import queue
import random
import shlex
import subprocess
import threading
import time
from typing import Any, ClassVar

from boardlab.ai.base import Agent, AgentFault, Choice, Limit, require_playable
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _

#: Seconds a program may take to start and answer ``ugi`` and ``isready``.
HANDSHAKE = 30.0


class EngineFault(AgentFault):
    """An external engine failed during a game (crash, timeout, illegal answer)."""


class EngineAgent(Agent):
    """Plays the moves of an external UGI engine (see the module's text)."""

    kind = "engine"
    params: ClassVar[dict[str, type]] = {"cmd": str, "timeout": float}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.name = ""

    def check(self, game: Game[Any]) -> None:
        if not str(self.settings.get("cmd", "")).strip():
            raise BoardlabError(
                _("agent 'engine' needs cmd=PROGRAM, like engine:cmd=boardlab engine <game>")
            )
        self.start()

    def reset(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.send("uginewgame")

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        require_playable(position)
        self.start()
        budget = self.limit_for(limit)
        go = "go"
        if budget.nodes or budget.depth:
            go += f" nodes {budget.nodes}" if budget.nodes else ""
            go += f" depth {budget.depth}" if budget.depth else ""
            wait = 3600.0
        else:
            seconds = budget.time or 1.0
            go += f" movetime {round(seconds * 1000)}"
            wait = seconds
        self.send(f"position fen {position.position_string()}")
        self.send(go)
        began = time.perf_counter()
        deadline = began + wait + float(self.settings.get("timeout", 5.0))
        value: float | None = None
        while True:
            line = self.read(deadline, "bestmove")
            words = line.split()
            if words[:1] == ["info"] and "cp" in words:
                cp = words[words.index("cp") + 1 : words.index("cp") + 2]
                if cp and cp[0].lstrip("-").isdigit():
                    value = max(-1.0, min(1.0, int(cp[0]) / 100))
            if words[:1] == ["bestmove"]:
                answer = " ".join(words[1:2])
                try:
                    action = position.parse_action(answer)
                except BoardlabError as error:  # unreadable or illegal
                    self.close()
                    raise EngineFault(
                        _("engine {name!r} answered bestmove {answer!r}: {error}").format(
                            name=self.shown_name(), answer=answer, error=error
                        )
                    ) from None
                return Choice(action=action, value=value, seconds=time.perf_counter() - began)

    # ------------------------------------------------------------------ the process
    def start(self) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        command = shlex.split(str(self.settings.get("cmd", "")))
        if not command:
            raise BoardlabError(_("agent 'engine' needs cmd=PROGRAM"))
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as error:
            raise BoardlabError(
                _("agent 'engine': cannot start {program!r}: {error}").format(
                    program=command[0], error=error
                )
            ) from None
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.process, self.lines), daemon=True).start()
        deadline = time.perf_counter() + max(HANDSHAKE, float(self.settings.get("timeout", 5.0)))
        self.send("ugi")
        while not (line := self.read(deadline, "ugiok")).startswith("ugiok"):
            if line.startswith("id name "):
                self.name = line[len("id name ") :].strip()
        self.send("isready")
        while not self.read(deadline, "readyok").startswith("readyok"):
            pass

    @staticmethod
    def _pump(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        with contextlib.suppress(ValueError, OSError):  # closed by ``close``
            for line in process.stdout:
                lines.put(line.strip())
        lines.put(None)  # the program closed its output

    def send(self, line: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise EngineFault(
                _("engine {name!r} has stopped (it no longer reads its input)").format(
                    name=self.shown_name()
                )
            ) from None

    def read(self, deadline: float, awaited: str) -> str:
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
        except queue.Empty:
            self.close()
            raise EngineFault(
                _("engine {name!r} gave no {awaited} in time").format(
                    name=self.shown_name(), awaited=awaited
                )
            ) from None
        if line is None:
            code = self.process.wait() if self.process is not None else None
            self.close()
            raise EngineFault(
                _("engine {name!r} has stopped (exit code {code}) before {awaited}").format(
                    name=self.shown_name(), code=code, awaited=awaited
                )
            )
        return line

    def label(self) -> str:
        return f"engine {self.shown_name()!r}"

    def shown_name(self) -> Any:
        """The engine's name as it gave it, else its command."""
        return self.name or self.settings.get("cmd")

    def interrupt(self) -> None:
        """Kill the program, from any thread: a search under way fails at once."""
        process = self.process
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()

    def close(self) -> None:
        """End the program (the next game starts it afresh)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.flush()
                process.wait(timeout=1)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown: nothing to tell
            self.close()
