"""A language-model player: any OpenAI-compatible chat endpoint as an agent.

``llm:url=http://127.0.0.1:8080/v1,model=NAME`` asks the model at ``url`` (its
``/chat/completions``) for each action. The model sees ``text_observation``: the rules in
brief, the board as the terminal draws it, whose turn and what is due, and the legal
actions in notation. ``find_action`` reads an action out of a free-text answer (a line
``Action: ...`` first, else the one legal action the answer names). An answer with no
legal action is sent back with the reason, up to ``retries`` times (default 3); then a
random legal action is played. Every refused answer is kept in the choice's comment,
which matches and terminal play write into the game record.

Settings: ``url`` and ``model`` (required), ``retries``, ``temperature`` (default 0),
``key_env`` (the environment variable holding the API key, default ``OPENAI_API_KEY``;
none is sent when it is unset) and ``time`` (seconds an answer may take, default 60).
Only the standard library is used for HTTP.
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.error
import urllib.request
from typing import Any, ClassVar

from boardlab.ai.base import Agent, Choice, Clock, Limit, require_playable, with_time
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _

SYSTEM = (
    "You play a board game. Read the rules, the board and the legal actions, think as "
    "long as you like, then end your answer with one line 'Action: <action>' naming "
    "exactly one of the legal actions as written."
)
#: A word that may be an action in any game's notation: a1-b2, @d4, xd4, o4-5, s3, pass, 3.
CANDIDATE = re.compile(r"@?[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?")
MARKER = re.compile(r"(?im)^[\s*_>#-]*(?:final\s+)?(?:action|move|answer)\s*[:=]\s*(.*)$")
MAX_ANSWER = 20_000  # characters of an answer that are read


def text_observation(position: Position[Any]) -> str:
    """The position as a language model is shown it."""
    game = position.game
    player = game.players[position.to_act].capitalize()
    return "\n".join(
        [
            f"Game: {game.name}. {game.summary}",
            "",
            "Rules in brief:",
            game.rules_in_brief(),
            "",
            "The board:",
            game.render(position.state),
            f"Position string: {position.position_string()}",
            "",
            f"You are {player}, to {game.due(position.state)}.",
            f"Legal actions: {', '.join(position.legal_action_strings())}",
        ]
    )


def find_action(position: Position[Any], answer: str) -> tuple[int | None, str]:
    """The legal action a free-text answer names, or None and why not (said so that the
    model can do better)."""
    text = answer[:MAX_ANSWER].replace("`", " ").replace("*", " ")
    marked = MARKER.findall(text)
    where = marked[-1] if marked else text
    legal, illegal = _named(position, where)
    if marked and not legal and not illegal:  # a marker with nothing usable after it
        legal, illegal = _named(position, text)
    if len(legal) == 1:
        return legal[0], ""
    if len(legal) > 1:
        names = ", ".join(position.game.format_action(position.state, a) for a in legal)
        return None, f"the answer names several legal actions ({names})"
    if illegal:
        return None, f"{illegal[-1]!r} is not a legal action here"
    return None, "no action found in the answer"


def _named(position: Position[Any], text: str) -> tuple[list[int], list[str]]:
    """The distinct legal actions ``text`` names, in order, and the words that look like
    actions (a digit in them, or ``pass``) but are not legal."""
    legal: list[int] = []
    illegal: list[str] = []
    actions = set(position.legal_actions())
    for word in CANDIDATE.findall(text):
        try:
            action = position.parse_action(word)
        except BoardlabError:
            if any(c.isdigit() for c in word) or word.lower() == "pass":
                illegal.append(word)
            continue
        if action not in actions:
            illegal.append(word)
        elif action not in legal:
            legal.append(action)
    return legal, illegal


class LlmAgent(Agent):
    """Asks a language model for each action (see the module's text)."""

    kind = "llm"
    params: ClassVar[dict[str, type]] = {
        "url": str,
        "model": str,
        "retries": int,
        "temperature": float,
        "key_env": str,
    }

    def check(self, game: Game[Any]) -> None:
        missing = [name for name in ("url", "model") if not self.settings.get(name)]
        if len(missing) == 2:
            raise BoardlabError(
                _(
                    "agent 'llm' needs url=... and model=..., like "
                    "llm:url=http://127.0.0.1:8080/v1,model=NAME"
                )
            )
        if missing:
            raise BoardlabError(
                _(
                    "agent 'llm' needs {setting}=..., like "
                    "llm:url=http://127.0.0.1:8080/v1,model=NAME"
                ).format(setting=missing[0])
            )
        url = str(self.settings["url"])
        if not url.startswith(("http://", "https://")):
            raise BoardlabError(
                _("agent 'llm': url {url!r} must start with http:// or https://").format(url=url)
            )

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        actions = require_playable(position)
        self.check(position.game)
        clock = Clock(None)
        seconds = self.limit_for(limit).time or 60.0
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": text_observation(position)},
        ]
        refused: list[str] = []
        for _attempt in range(int(self.settings.get("retries", 3)) + 1):
            answer = self._ask(messages, seconds)
            action, why = find_action(position, answer)
            if action is not None:
                return with_time(Choice(action=action, comment=_comment(refused)), clock)
            refused.append(f"{_short(answer)!r}: {why}")
            shown = ", ".join(position.legal_action_strings())
            again = f"{why}. The legal actions are {shown}. End with 'Action: <one of them>'."
            messages += [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": again},
            ]
        action = (rng or self.rng).choice(actions)
        shown = position.game.format_action(position.state, action)
        note = f"{_comment(refused)}; no legal action in {len(refused)} answers: {shown} at random"
        return with_time(Choice(action=action, comment=note), clock)

    def _ask(self, messages: list[dict[str, str]], seconds: float) -> str:
        url = str(self.settings["url"]).rstrip("/") + "/chat/completions"
        body = {
            "model": str(self.settings["model"]),
            "messages": messages,
            "temperature": float(self.settings.get("temperature", 0.0)),
        }
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(str(self.settings.get("key_env", "OPENAI_API_KEY")))
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=seconds) as response:
                data = json.loads(response.read(4_000_000))
            return str(data["choices"][0]["message"]["content"] or "")
        except urllib.error.HTTPError as error:
            detail = error.read(300).decode("utf-8", "replace")
            raise BoardlabError(
                _("the model at {url} answered {code}: {detail}").format(
                    url=url, code=error.code, detail=detail
                )
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise BoardlabError(
                _("the model at {url} did not answer: {reason}").format(url=url, reason=reason)
            ) from None
        except (ValueError, KeyError, IndexError, TypeError):
            raise BoardlabError(
                _(
                    "the model at {url} did not answer as an OpenAI-compatible chat endpoint "
                    "(expected choices[0].message.content)"
                ).format(url=url)
            ) from None


def _short(answer: str) -> str:
    flat = " ".join(answer.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."


def _comment(refused: list[str]) -> str:
    return "; ".join(f"refused {note}" for note in refused)
