"""The two kinds of storage give the same answers: ``MemoryStore`` and ``Store`` (on SQLite
and on PostgreSQL) are driven in lockstep through random games, seats, draws, undos,
chats and reviews, and every answer, refusal and stored game is compared."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from boardlab.core.errors import BoardlabError
from boardlab.web.data import HUMAN, Append, GameStore, NewGame, StoredGame, key_of
from boardlab.web.memory import MemoryStore
from boardlab.web.store import Store

ACTIONS = ("a", "b", "c", "d")


def seen(answer: Any, ids: dict[str, int]) -> Any:
    """An answer as both stores must give it: game ids by the order they were made,
    times left out (each store reads its own clock)."""
    if isinstance(answer, BoardlabError):
        message = str(answer)
        for game_id, n in ids.items():
            message = message.replace(game_id, f"#{n}")
        return (type(answer).__name__, message)
    if isinstance(answer, StoredGame):
        fields = dataclasses.asdict(answer)
        fields["id"] = ids.get(answer.id, answer.id)
        fields["rematch"] = ids.get(answer.rematch or "", answer.rematch)
        del fields["updated"]
        if answer.clock is not None:  # whether it runs, not since when
            fields["clock"] = {**answer.clock, "since": answer.clock["since"] is not None}
        return fields
    if isinstance(answer, list):
        return [seen(item, ids) for item in answer]
    if hasattr(answer, "said"):  # a line of chat
        return (answer.n, answer.seat, answer.text)
    if isinstance(answer, str):
        return ids.get(answer, answer)
    return answer


@dataclasses.dataclass(frozen=True)
class Ref:
    """The ``n``-th game made, by its id in each store."""

    n: int


class Lockstep:
    """The same steps on two stores, their answers compared."""

    def __init__(self, stores: list[GameStore]) -> None:
        self.stores = stores
        #: each game's id in each store, and each store's game numbers by id
        self.games: list[list[str]] = []
        self.ids: list[dict[str, int]] = [{} for _ in stores]

    def make(self, **settings: Any) -> Ref:
        made = [store.create(NewGame(**settings)) for store in self.stores]
        for k, game_id in enumerate(made):
            self.ids[k][game_id] = len(self.games)
        self.games.append(made)
        return Ref(len(self.games) - 1)

    def step(self, method: str, *args: Any) -> Any:
        """``method`` of both stores with ``args`` (a ``Ref`` as each store's id)."""
        answers = []
        for k, store in enumerate(self.stores):
            mine = [self.games[a.n][k] if isinstance(a, Ref) else a for a in args]
            try:
                answer = getattr(store, method)(*mine)
            except BoardlabError as error:
                answer = error
            answers.append(seen(answer, self.ids[k]))
        assert answers[0] == answers[1], (method, args)
        return answers[0]

    def append(self, plays: list[tuple[Ref | None, int, str]]) -> Any:
        """Actions of many games in one batch (None: a game that does not exist)."""
        answers = []
        for k, store in enumerate(self.stores):
            batch = [
                Append(
                    "nosuchgame00" if g is None else self.games[g.n][k],
                    ply,
                    action,
                    "*",
                    snapshot=f"snapshot after {ply + 1}",
                )
                for g, ply, action in plays
            ]
            answers.append(seen(store.append_many(batch), self.ids[k]))
        assert answers[0] == answers[1], plays
        return answers[0]


@pytest.fixture
def lockstep(database: str) -> Any:
    store = Store(database)
    yield Lockstep([MemoryStore(), store])
    store.close()


@pytest.mark.parametrize("seed", range(3))
def test_memory_and_database_answer_alike(lockstep: Lockstep, seed: int) -> None:
    rng = random.Random(seed)
    secret, invited = key_of("secret"), key_of("invitation")
    clock = {"base": 60_000, "increment": 0, "left": [60_000, 60_000], "since": None}
    games = [
        lockstep.make(
            game="galatjang",
            options={},
            seats=[HUMAN, HUMAN],
            owner=f"owner{k % 2}",
            seat_keys=[secret, invited],
            open_seat=1 if k % 2 else None,
            listed=k == 3,
            clock=clock,
        )
        for k in range(4)
    ]
    lockstep.step("take_seat", games[1], 1, key_of("friend"), key_of("wrong"), "Ann")
    lockstep.step("take_seat", games[1], 1, key_of("friend"), invited, "Ann")
    lockstep.step("take_seat", games[1], 1, key_of("late"), invited, "Bob")  # taken
    lockstep.step("take_seat", games[2], 1, key_of("lobby"), None, "Cy")  # not listed
    lockstep.step("take_seat", games[3], 1, key_of("lobby"), None, "Cy")
    for _ in range(80):
        game = rng.choice(games)
        length = len(lockstep.step("load", game)["actions"])
        roll = rng.random()
        if roll < 0.45:
            batch = [(game, length + rng.choice((0, 0, 0, 1, -1)), rng.choice(ACTIONS))]
            if rng.random() < 0.3:
                batch.append((None, 0, "a"))
            other = rng.choice(games)
            if other != game and rng.random() < 0.5:
                batch.append((other, len(lockstep.step("load", other)["actions"]), "b"))
            lockstep.append(batch)
        elif roll < 0.55:
            lockstep.step("truncate", game, length + rng.choice((0, 1)), max(0, length - 2))
        elif roll < 0.62:
            offer = rng.choice(("offer_draw", "offer_takeback"))
            lockstep.step(offer, game, length, rng.choice((0, 1, None)))
            if rng.random() < 0.3:  # a takeback agreed: back to where a turn began
                lockstep.step("truncate", game, length, max(0, length - 1), clock)
        elif roll < 0.67:
            lockstep.step("end", game, length, rng.choice((0, 1, None)), "1-0", "resign", clock)
        elif roll < 0.77:
            lockstep.step("say", game, rng.randrange(2), f"line {rng.random():.3f}")
        elif roll < 0.82:
            lockstep.step("chat", game, rng.randrange(4), rng.choice((2, 500)))
        elif roll < 0.87:  # a rematch made; of two, the first stands
            made = lockstep.make(
                game="linja", options={}, seats=[HUMAN, HUMAN], owner="o", clock=clock
            )
            lockstep.step("link_rematch", game, made)
            lockstep.step("start_clock", made)  # both players came: it runs
            lockstep.step("start_clock", game)  # runs already, open, or over: no change
            lockstep.step("load", made)
        elif roll < 0.92:
            lockstep.step("keep_review", game, "expert", length, {"values": [length]})
            lockstep.step("review", game, "expert", length)
            lockstep.step("review", game, "expert", length + 1)
        else:
            lockstep.step("lobby")
            lockstep.step("count")
    for game in games:
        lockstep.step("load", game)
        lockstep.step("chat", game)
    lockstep.step("load", "nosuchgame00")
    lockstep.step("truncate", "nosuchgame00", 0, 0)
    lockstep.step("discard", games[0])
    lockstep.step("load", games[0])
    lockstep.step("count")


def test_games_of_a_browser_come_latest_first(lockstep: Lockstep) -> None:
    made = [
        lockstep.make(game="jinli", options={}, seats=[HUMAN, "easy"], owner=owner)
        for owner in ("me", "me", "me", "someone else")
    ]
    lockstep.append([(made[0], 0, "a")])  # the first is now the latest changed
    assert [g["id"] for g in lockstep.step("games_of", "me")] == [0, 2, 1]
    assert lockstep.step("games_of", "me", 1)[0]["actions"] == ()


def test_a_game_is_read_at_one_moment_while_another_process_stores(database: str) -> None:
    """A game's row and its actions are read as of one moment: an action another process
    commits between the two reads is in neither (on PostgreSQL, read committed by
    default, it was in the actions and not in the row, and a room held a record one
    action ahead of its version)."""
    from sqlalchemy import event

    reader, writer = Store(database), Store(database)
    game_id = reader.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, [HUMAN, HUMAN], "me"))
    writer.append(game_id, 0, "s1", "*")
    committed: list[int] = []

    def between(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "FROM actions" in statement and not committed:
            committed.append(writer.append(game_id, 1, "s2", "*"))

    event.listen(reader.engine, "before_cursor_execute", between)
    try:
        stored = reader.load(game_id)
        event.remove(reader.engine, "before_cursor_execute", between)
        assert committed == [2]  # the other process's action was stored meanwhile
        assert stored.actions == ("s1",) and stored.revision == 1
        assert reader.load(game_id).actions == ("s1", "s2")
    finally:
        reader.close()
        writer.close()
