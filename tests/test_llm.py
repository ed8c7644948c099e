"""The language-model player: the text it is shown, the tolerant reading of its answers,
retries with the reason, and a whole game against a fake OpenAI-compatible endpoint served
on loopback, with every refused answer in the game record's comments."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import boardlab
from boardlab.ai import make_agent
from boardlab.ai.llm import find_action, text_observation
from boardlab.arena.match import play_game
from boardlab.core.errors import BoardlabError
from boardlab.core.record import GameRecord

Reply = Callable[[list[dict[str, str]]], str]


@pytest.fixture
def endpoint() -> Iterator[Any]:
    """A chat endpoint on loopback whose answers ``server.reply(messages)`` writes; every
    request it got is in ``server.requests``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
            if server.status != 200:
                self.send_response(server.status)
                self.end_headers()
                self.wfile.write(b"model overloaded")
                return
            content = server.reply(body["messages"])
            payload = json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": content}}]}
            )
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(payload.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests, server.status = [], 200
    server.reply = lambda messages: "Action: pass"
    server.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def legal_from(messages: list[dict[str, str]]) -> list[str]:
    """The legal actions the prompt lists."""
    line = next(x for x in messages[1]["content"].splitlines() if x.startswith("Legal actions"))
    return line.partition(": ")[2].split(", ")


def test_the_text_observation_shows_rules_board_turn_and_legal_actions() -> None:
    position = boardlab.new_game("jinli").initial().play("a1-b2")
    text = text_observation(position)
    assert "Jin Li" in text and "Rules in brief:" in text
    assert position.game.render(position.state) in text
    assert "You are Red, to drop a stone." in text
    assert "@d4" in text and position.position_string() in text


@pytest.mark.parametrize(
    ("game_id", "answer", "expected"),
    [
        ("jinli", "I like the centre.\nAction: `a1-b2`", "a1-b2"),
        ("jinli", "**Move:** A1 - B2 ... no wait, a1-b1", "a1-b1"),  # the marked line, read whole
        ("jinli", "Swimming with a1-b2 looks best.", "a1-b2"),
        ("linja", "I open with 0-1; then 1-3 maybe.\nFinal action: 0-1", "0-1"),
        ("galatjang", "Sow pit S3.", "s3"),
        ("galatjang", "I choose 4", "s4"),
    ],
)
def test_an_action_is_found_in_free_text(game_id: str, answer: str, expected: str) -> None:
    position = boardlab.new_game(game_id).initial()
    action, why = find_action(position, answer)
    assert why == "" and action == position.parse_action(expected)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("I play a1-b2 or g1-f2.", "several legal actions (a1-b2, g1-f2)"),
        ("Action: a1-c3", "'a1-c3' is not a legal action here"),
        ("Let me think about the koi.", "no action found in the answer"),
        ("", "no action found"),
    ],
)
def test_an_answer_without_one_legal_action_says_why(answer: str, why: str) -> None:
    position = boardlab.new_game("jinli").initial()
    action, reason = find_action(position, answer)
    assert action is None and why in reason


def test_refused_answers_are_retried_with_the_reason_and_recorded(endpoint: Any) -> None:
    def reply(messages: list[dict[str, str]]) -> str:
        if len(messages) == 2:  # the first question: a wrong answer
            return "I jump! Action: a1-c3"
        assert "'a1-c3' is not a legal action here. The legal" in messages[-1]["content"]
        return f"Sorry. Action: {legal_from(messages)[0]}"

    endpoint.reply = reply
    spec = f"llm:url={endpoint.url},model=fake"
    result = play_game("jinli", {"max_turns": 3}, spec, "random", 0, 1)
    record = GameRecord.from_text(result.record)
    assert record.is_over()
    refused = [c for c in record.comments.values() if "refused" in c]
    assert len(refused) == len([r for r in endpoint.requests if len(r["body"]["messages"]) == 2])
    assert all(
        c == "refused 'I jump! Action: a1-c3': 'a1-c3' is not a legal action here" for c in refused
    )
    first = endpoint.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["body"]["model"] == "fake"


def test_after_the_retries_a_random_legal_action_is_played(endpoint: Any) -> None:
    endpoint.reply = lambda messages: "I would rather not say."
    position = boardlab.new_game("linja").initial()
    choice = make_agent(f"llm:url={endpoint.url},model=m,retries=2", seed=3).choose(position)
    assert choice.action in position.legal_actions()
    assert len(endpoint.requests) == 3
    assert choice.comment.count("refused") == 3 and "at random" in choice.comment


def test_the_api_key_is_sent_from_the_named_variable(endpoint: Any, monkeypatch: Any) -> None:
    endpoint.reply = lambda messages: "Action: s1"
    monkeypatch.setenv("MY_KEY", "sekret")
    position = boardlab.new_game("galatjang").initial()
    make_agent(f"llm:url={endpoint.url},model=m,key_env=MY_KEY").choose(position)
    assert endpoint.requests[0]["headers"]["Authorization"] == "Bearer sekret"


def test_endpoint_failures_are_one_clear_line(endpoint: Any) -> None:
    position = boardlab.new_game("galatjang").initial()
    endpoint.status = 503
    with pytest.raises(BoardlabError, match="answered 503: model overloaded"):
        make_agent(f"llm:url={endpoint.url},model=m").choose(position)
    closed = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    with pytest.raises(BoardlabError, match="did not answer"):
        make_agent(f"llm:url={closed},model=m,time=2").choose(position)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("llm", "needs url=... and model=..."),
        ("llm:url=http://x/v1", "needs model=..."),
        ("llm:url=ftp://x,model=m", "must start with http"),
        ("llm:url=http://x,model=m,retries=lots", "bad value 'lots' for 'retries'"),
        ("llm:host=x", "bad agent parameter 'host=x'"),
    ],
)
def test_bad_llm_specs_are_named(spec: str, message: str) -> None:
    game = boardlab.new_game("linja")
    with pytest.raises(BoardlabError, match=message):
        make_agent(spec, game=game).check(game)
