"""The JSON API: what a page asks besides its live connection, and what scripts and
tests use. Every change goes through the game's room, as one sent over the socket."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

import boardlab
from boardlab.web import challenges, pages, puzzles
from boardlab.web import positions as boards
from boardlab.web.accounts import NAME_MAX, PASSWORD_MAX, Account
from boardlab.web.deps import (
    COOKIE,
    account_of,
    begin_session,
    browser,
    browser_id,
    end_session,
    hold,
    keep,
    service_of,
    session_of,
    signed_in_account,
    site_of,
    viewer_of,
)
from boardlab.web.guard import client_key

router = APIRouter(prefix="/api")


class Answer(BaseModel):
    """A request that answers a ply: the number of actions the page has seen."""

    model_config = ConfigDict(extra="forbid")
    ply: StrictInt


class PlayRequest(Answer):
    action: StrictStr


class OfferRequest(Answer):
    """An offer to the other player (a draw, a takeback), or the answer to theirs."""

    answer: Literal["offer", "accept", "decline"]


class ErrorBody(BaseModel):
    """What every refused API request gets back: one sentence, in the asker's language,
    saying what was wrong and what would do."""

    error: str


#: What each refusal of the API means (its body an ``ErrorBody``), for the OpenAPI
#: description: clients learn there which statuses to expect.
REFUSALS = {
    400: "The request cannot be taken: an illegal action, the game already over, nothing "
    "to undo, an unknown language in `lang`.",
    401: "Not signed in (a guest, or a session that ended), or a name and password that "
    "do not sign in: the same answer whether the name exists or not.",
    403: "The asker does not hold the seat that would act (no secret, or another seat's, "
    "in its cookie or the X-Boardlab-Seat header), or the request came from another "
    "site's page (its Origin or Sec-Fetch-Site).",
    404: "There is no game of that id.",
    409: "The game has moved on: `ply` is not the number of actions it holds; reload and "
    "answer again.",
    408: "The request's body was not sent in time (the limit `request_seconds`).",
    413: "The request's body is larger than the server takes (the limit `body`).",
    422: "The body (or a parameter) is not of the documented form.",
    429: "Too many requests (of this kind) from this client: wait `Retry-After` seconds.",
    503: "The database is away for a moment: try again after `Retry-After` seconds.",
}


def refusals(*statuses: int, switches_language: bool = False) -> dict[int | str, Any]:
    """The ``responses`` of an API operation: the errors it answers with (422 too: our
    body, not FastAPI's), the router's redirect of a game's address that ends in a slash
    (one with a 404: a game id in the path), and for a GET the redirect a ``lang`` that
    names a language gets (``LanguageMiddleware``)."""
    everywhere = (408, 413, 422, 429, 503)  # what any request may meet
    found: dict[int | str, Any] = {
        status: {"model": ErrorBody, "description": REFUSALS[status]}
        for status in (*statuses, *everywhere)
    }
    if 404 in statuses:
        found[307] = {"description": "The address ends in a slash: the same one without it."}
    if switches_language:
        found[303] = {
            "description": "`lang` names a language: the same address without it, the "
            "choice kept in a cookie."
        }
    return found


def seat_header(
    x_boardlab_seat: Annotated[
        str | None,
        Header(description="The secret of the seat to act for (a program's seat cookie)."),
    ] = None,
) -> None:
    """Puts the seat header in the OpenAPI description; ``viewer_of`` reads it."""


#: The operations on one game: reading it, changing it (as a seat), and the seat header
#: of those that act for one.
READ = refusals(400, 404, switches_language=True)
CHANGE = refusals(400, 403, 404, 409)
SEATED = [Depends(seat_header)]


def download_of(media: str, kind: str) -> dict[str, Any]:
    """The OpenAPI answer of a record download: a file of ``media``, a JSON ``kind``."""
    return {
        "description": "The game record, as a file to save.",
        "content": {media: {"schema": {"type": kind}}},
    }


@router.get("/games", responses=refusals(400, switches_language=True))
async def catalogue() -> list[dict[str, Any]]:
    """Every game with its options and the levels of its AI."""
    return [pages.describe_game(game_id) for game_id in boardlab.game_ids()]


@router.get("/games/{game_id}", responses=READ, dependencies=SEATED)
async def state(request: Request, game_id: str) -> dict[str, Any]:
    """The game as a page shows it: board, legal actions, moves, result; ``you`` are
    the seats the asker holds (its cookie or ``X-Boardlab-Seat`` header)."""
    return await service_of(request).state(game_id, viewer_of(request, game_id))


@router.post("/games/{game_id}/play", responses=CHANGE, dependencies=SEATED)
async def play(request: Request, game_id: str, body: PlayRequest) -> dict[str, Any]:
    """Play an action (its string) as the answer to action number ``ply``, for the
    seat the asker holds."""
    viewer = viewer_of(request, game_id)
    return await service_of(request).play(game_id, body.action, body.ply, viewer)


@router.post("/games/{game_id}/undo", responses=CHANGE, dependencies=SEATED)
async def undo(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
    """Take back the latest turn a person played, with the AI's replies."""
    return await service_of(request).undo(game_id, body.ply, viewer_of(request, game_id))


@router.post("/games/{game_id}/resign", responses=CHANGE, dependencies=SEATED)
async def resign(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
    return await service_of(request).resign(game_id, body.ply, viewer_of(request, game_id))


@router.post("/games/{game_id}/draw", responses=CHANGE, dependencies=SEATED)
async def draw(request: Request, game_id: str, body: OfferRequest) -> dict[str, Any]:
    """Offer a draw, or accept or decline the opponent's offer (online games)."""
    viewer = viewer_of(request, game_id)
    return await service_of(request).draw(game_id, body.ply, body.answer, viewer)


@router.post("/games/{game_id}/claim", responses=CHANGE, dependencies=SEATED)
async def claim(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
    """Claim the win of a game online whose opponent has been away (no page of it open)
    for a minute: they lose it, reason ``abandoned``."""
    return await service_of(request).claim(game_id, body.ply, viewer_of(request, game_id))


@router.post("/games/{game_id}/abort", responses=CHANGE, dependencies=SEATED)
async def abort(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
    """Abort a game online before it has really begun (while each player has had at
    most one turn), or one still waiting for its opponent: it ends with no result
    (not a win, not a draw), reason ``aborted``."""
    return await service_of(request).abort(game_id, body.ply, viewer_of(request, game_id))


@router.post("/games/{game_id}/takeback", responses=CHANGE, dependencies=SEATED)
async def takeback(request: Request, game_id: str, body: OfferRequest) -> dict[str, Any]:
    """Ask to take back your last turn (and the reply to it), or accept or decline the
    opponent's request (online games)."""
    viewer = viewer_of(request, game_id)
    return await service_of(request).takeback(game_id, body.ply, body.answer, viewer)


@router.post(
    "/games/{game_id}/rematch",
    responses=refusals(400, 403, 404),
    dependencies=SEATED,
)
async def rematch(request: Request, game_id: str) -> dict[str, str]:
    """The rematch of a finished game (made on the first request): its id. The
    asker's secret acts for its seat there too."""
    new_id = await service_of(request).rematch(game_id, viewer_of(request, game_id))
    await site_of(request).accounts.link(await account_of(request), new_id)
    return {"id": new_id}


@router.post("/games/{game_id}/hint", responses=CHANGE, dependencies=SEATED)
async def hint(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
    """The AI's suggestion for the player to act, with its evaluation."""
    return await service_of(request).hint(game_id, body.ply, viewer_of(request, game_id))


@router.get("/games/{game_id}/review", responses=READ)
async def review(request: Request, game_id: str) -> dict[str, Any]:
    """The AI's review of every action; ``running`` until it is ready."""
    return await service_of(request).review(game_id)


@router.get("/games/{game_id}/positions", responses=READ)
async def positions(
    request: Request,
    game_id: str,
    start: Annotated[
        int, Query(ge=0, description="The first position: 0 the start, p after action p.")
    ] = 0,
    count: Annotated[
        int,
        Query(
            ge=1,
            le=pages.MOST_POSITIONS,
            description=f"How many positions, at most {pages.MOST_POSITIONS}.",
        ),
    ] = pages.MOST_POSITIONS,
) -> dict[str, Any]:
    """The boards of positions ``start`` to ``start + count - 1`` (fewer at the end
    of the game) as the review page shows them, each with its ``ply``, the SVG, the
    notes of the action that led to it, the tallies, what is due and who is to act;
    ``positions``: how many the game has. A ``start`` past the end is a 400."""
    _stored, record = await service_of(request).load(game_id)
    return await asyncio.to_thread(pages.review_positions, record, start, count)


@router.get(
    "/games/{game_id}/record.txt",
    response_class=Response,
    responses={200: download_of("text/plain", "string"), **READ},
)
async def record_text(request: Request, game_id: str) -> Response:
    return await record_file(request, game_id, "txt")


@router.get(
    "/games/{game_id}/record.json",
    response_class=Response,
    responses={200: download_of("application/json", "object"), **READ},
)
async def record_json(request: Request, game_id: str) -> Response:
    return await record_file(request, game_id, "json")


async def record_file(request: Request, game_id: str, kind: str) -> Response:
    """The game's record as a file to save: ``txt`` (the text format) or ``json``."""
    stored, record = await service_of(request).load(game_id)
    text = await asyncio.to_thread(record.to_text if kind == "txt" else record.to_json)
    media = "text/plain" if kind == "txt" else "application/json"
    return download(text, f"{stored.game}-{game_id}.{kind}", media)


def download(text: str, filename: str, media: str) -> Response:
    return Response(
        text,
        media_type=f"{media}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


# ------------------------------------------------------------------ positions no game holds
#: The position a request about a board asks about, and the rules it is played under.
PositionText = Annotated[
    str | None,
    Query(
        max_length=boards.MOST_POSITION_CHARACTERS,
        description="The position string (the game's card says its form); the start if left out.",
    ),
]
OptionWords = Annotated[
    list[str],
    Query(
        max_length=boards.MOST_OPTIONS,
        description="The game's options, each `NAME=VALUE` (the default rules if none).",
    ),
]
BOARD = refusals(400, 404, switches_language=True)


@router.get("/board/{game}", responses=BOARD)
async def board(
    game: str,
    position: PositionText = None,
    option: OptionWords = [],  # noqa: B006 (FastAPI copies a default)
) -> dict[str, Any]:
    """A position no game stores, as a page shows it: the board, the legal actions with
    the places clicked for each, who acts and what is due. Anyone may ask; nothing is
    kept."""
    return await asyncio.to_thread(boards.played, game, option, position, ())


@router.get("/board/{game}/play", responses=BOARD)
async def board_play(
    game: str,
    position: PositionText = None,
    option: OptionWords = [],  # noqa: B006
    action: Annotated[
        list[str],
        Query(max_length=boards.MOST_ACTIONS, description="The actions to play, in order."),
    ] = [],  # noqa: B006
) -> dict[str, Any]:
    """The position after ``action``s played from ``position``, those actions marked and
    narrated (an illegal one is refused, the legal ones named)."""
    return await asyncio.to_thread(boards.played, game, option, position, action)


@router.get("/board/{game}/analysis", responses=refusals(400, 404, 429, switches_language=True))
async def board_analysis(
    request: Request,
    game: str,
    position: PositionText = None,
    option: OptionWords = [],  # noqa: B006
) -> dict[str, Any]:
    """The AI's best three actions in ``position`` with the line expected after each and
    its value for the player to act: ``exact`` points where a solver reaches the
    position, else the evaluation (-1 to 1). A search: it waits for the asker's turn."""
    return await service_of(request).analyse(game, option, position)


@router.get("/board/{game}/edit", responses=BOARD)
async def board_edit(
    game: str,
    position: PositionText = None,
    option: OptionWords = [],  # noqa: B006
    tool: Annotated[
        str | None,
        Query(max_length=40, description="The editor's tool to use (the game's palette)."),
    ] = None,
    place: Annotated[
        str | None, Query(max_length=40, description="The place it is used at, by name.")
    ] = None,
) -> dict[str, Any]:
    """A position being set up, after ``tool`` is used at ``place`` (without a tool:
    as it stands): drawn whether or not the rules accept it, ``error`` saying why they
    do not, the legal actions when they do. Nothing is kept."""
    if tool is None:
        return await asyncio.to_thread(boards.set_up, game, option, position)
    return await asyncio.to_thread(boards.edited, game, option, position, tool, place)


# ------------------------------------------------------------------ puzzles
class AttemptRequest(BaseModel):
    """An attempt at a puzzle: the rating the browser keeps (``Rating.to_dict``: rating,
    deviation, volatility) and whether the puzzle was solved."""

    model_config = ConfigDict(extra="forbid")
    rating: Any
    solved: StrictBool


PUZZLE = refusals(400, 404, switches_language=True)


def ratings_of(request: Request) -> puzzles.Ratings:
    """The puzzles' ratings of the app's store, made on first use."""
    state = request.app.state
    found: puzzles.Ratings | None = getattr(state, "puzzle_ratings", None)
    if found is None:
        found = state.puzzle_ratings = puzzles.Ratings(site_of(request).store)
    return found


@router.get("/puzzles/next", responses=PUZZLE)
async def puzzle_next(
    request: Request,
    game: Annotated[
        str | None, Query(max_length=40, description="Only this game's puzzles (any if none).")
    ] = None,
    theme: Annotated[
        str | None, Query(max_length=40, description="Only puzzles of this theme (any if none).")
    ] = None,
    rating: Annotated[
        float, Query(ge=0, le=5000, description="The player's rating: a puzzle near it.")
    ] = 1500.0,
    exclude: Annotated[
        list[str],
        Query(
            max_length=puzzles.MOST_EXCLUDED,
            description=f"Ids of puzzles not to give (just seen), at most {puzzles.MOST_EXCLUDED}.",
        ),
    ] = [],  # noqa: B006
) -> dict[str, Any]:
    """A puzzle near ``rating``, at random among the nearest not excluded: its solution
    tree, its themes in words, its rating (from players' attempts; at first its
    difficulty), the task in words and the view of its position; 404 when no puzzle
    matches the filters."""
    ratings = ratings_of(request)
    return await asyncio.to_thread(
        lambda: puzzles.next_puzzle(game, theme, rating, exclude, ratings=ratings.current())
    )


@router.get("/puzzles/daily", responses=PUZZLE)
async def puzzle_daily(request: Request) -> dict[str, Any]:
    """Today's puzzle (the day in UTC): the same for everyone on a day."""
    ratings = ratings_of(request)
    return await asyncio.to_thread(lambda: puzzles.daily(ratings=ratings.current()))


@router.get("/puzzles/{puzzle_id}", responses=PUZZLE)
async def puzzle_one(request: Request, puzzle_id: str) -> dict[str, Any]:
    """One puzzle, as ``next`` gives it (its own link)."""
    ratings = ratings_of(request)
    return await asyncio.to_thread(
        lambda: puzzles.describe(puzzles.find(puzzle_id), ratings.current())
    )


@router.post("/puzzles/{puzzle_id}/attempt", responses=refusals(400, 404))
async def puzzle_attempt(
    request: Request, response: Response, puzzle_id: str, body: AttemptRequest
) -> dict[str, Any]:
    """The player's new rating after an attempt (Glicko-2, against the puzzle's rating
    as it stands): a guest's browser keeps it; a signed-in player's is kept with the
    account (the rating sent counts at its first attempt only). The puzzle's rating
    moves too, by the
    browser's first attempt at it only (``puzzle.counted``; a request without the
    browser's cookie is not known, and gets one)."""
    known = request.cookies.get(COOKIE) == browser_id(request)
    account = await account_of(request)
    found = await asyncio.to_thread(
        ratings_of(request).attempt,
        puzzle_id,
        body.rating,
        body.solved,
        browser_id(request) if known else None,
        None if account is None else account.id,
    )
    browser(request, response)
    return found


@router.get("/puzzles/{puzzle_id}/why", responses=refusals(400, 404, 429, switches_language=True))
async def puzzle_why(
    request: Request,
    puzzle_id: str,
    action: Annotated[str, Query(max_length=64, description="The answer to explain.")],
    path: Annotated[
        list[str],
        Query(
            max_length=puzzles.MOST_PATH,
            description="The actions played from the puzzle's position before it, in order.",
        ),
    ] = [],  # noqa: B006
) -> dict[str, Any]:
    """Why ``action`` after ``path`` is not the best, in words: its exact value against
    the best's (the solver's). A search: it waits for the asker's turn."""
    return await service_of(request).why(puzzle_id, path, action)


# ---------------------------------------------------------------------- accounts
#: The longest name and password a request about an account may carry (longer ones are
#: no account's: refused before anything is looked up or hashed).
LONGEST_NAME, LONGEST_PASSWORD = 2 * NAME_MAX, PASSWORD_MAX


class Credentials(BaseModel):
    """A name and a password (docs/web.md, Accounts: the rules of each)."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(max_length=LONGEST_NAME)
    password: StrictStr = Field(max_length=LONGEST_PASSWORD)


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    password: StrictStr = Field(max_length=LONGEST_PASSWORD)
    new_password: StrictStr = Field(max_length=LONGEST_PASSWORD)


class Confirmation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    password: StrictStr = Field(max_length=LONGEST_PASSWORD)


@router.post("/account/signup", responses=refusals(400))
async def sign_up(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
    """A new account, signed in at once (the session in an HttpOnly cookie); the games
    this browser made become the account's."""
    account, token = await site_of(request).accounts.sign_up(
        body.name,
        body.password,
        browser_id(request),
        client_key(request.scope),
        session_of(request),
    )
    browser(request, response)
    begin_session(request, response, token)
    return {"name": account.name}


@router.post("/account/signin", responses=refusals(400, 401))
async def sign_in(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
    """A new session of the account (never the one the browser sent); the games this
    browser made become the account's. Refused with the same words whether the name
    exists or not; failures are counted per name and per address (429)."""
    account, token = await site_of(request).accounts.sign_in(
        body.name,
        body.password,
        browser_id(request),
        client_key(request.scope),
        session_of(request),
    )
    browser(request, response)
    begin_session(request, response, token)
    return {"name": account.name}


@router.post("/account/signout", responses=refusals(400))
async def sign_out(request: Request, response: Response) -> dict[str, Any]:
    """The session ended on the server and its cookie gone (a guest: nothing to end)."""
    await site_of(request).accounts.sign_out(session_of(request))
    end_session(request, response)
    return {"signed_in": False}


@router.get("/account", responses=refusals(400, 401, switches_language=True))
async def account(request: Request) -> dict[str, Any]:
    """Who the browser is signed in as."""
    return {"name": (await signed_in_account(request)).name}


@router.get("/account/games", responses=refusals(400, 401, switches_language=True))
async def account_games(request: Request) -> list[dict[str, Any]]:
    """The account's games, the latest first (from any browser it signed in on)."""
    games = await site_of(request).accounts.games_of(await signed_in_account(request))
    return [
        {"id": g.id, "game": g.game, "result": g.result, "updated": g.updated.isoformat()}
        for g in games
    ]


@router.post("/account/password", responses=refusals(400, 401))
async def change_password(request: Request, body: PasswordChange) -> dict[str, Any]:
    """A new password, given the present one; every other session of the account ends."""
    account = await signed_in_account(request)
    await site_of(request).accounts.change_password(
        account,
        body.password,
        body.new_password,
        session_of(request) or "",
        client_key(request.scope),
    )
    return {"name": account.name}


@router.post("/account/delete", responses=refusals(400, 401))
async def delete_account(
    request: Request, response: Response, body: Confirmation
) -> dict[str, Any]:
    """The account deleted, confirmed by its password: its sessions end, its games stay
    with its name replaced by "deleted player"."""
    account = await signed_in_account(request)
    await site_of(request).accounts.delete(account, body.password, client_key(request.scope))
    end_session(request, response)
    return {"deleted": account.name}


# ---------------------------------------------------------------------- challenges
class Terms(BaseModel):
    """The terms of a game asked for: a challenge's and a bot's seek's."""

    model_config = ConfigDict(extra="forbid")
    game: StrictStr = Field(max_length=40)
    options: dict[str, StrictBool | StrictInt | StrictStr] = Field(
        default_factory=dict, max_length=16
    )
    clock: StrictStr | None = Field(default=None, max_length=16)
    rated: StrictBool = False
    side: StrictStr = Field(default="random", max_length=16)


class ChallengeRequest(Terms):
    """A challenge to the account named ``to`` (docs/web.md, Challenges)."""

    to: StrictStr = Field(max_length=LONGEST_NAME)


class DeclineRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: StrictStr | None = Field(default=None, max_length=2 * challenges.REASON_MAX)


def challenges_of(request: Request) -> challenges.Challenges:
    """The challenges of the app's store, made on first use (none with ``--db memory:``)."""
    from boardlab.web.store import Store

    state = request.app.state
    found: challenges.Challenges | None = getattr(state, "challenges", None)
    if found is None:
        store = site_of(request).store
        found = state.challenges = challenges.Challenges(
            store if isinstance(store, Store) else None
        )
    return found


async def challenger_of(request: Request) -> Account:
    """The signed-in account asking about challenges; refused where the server keeps
    no accounts (``--db memory:``: said so, as sign-up does) or for a guest (401)."""
    challenges_of(request).kept()
    return await signed_in_account(request)


async def make_challenge(
    request: Request, response: Response, proposal: challenges.Proposal
) -> tuple[challenges.Challenge, str]:
    """A new challenge of the signed-in account's, counted as a new game; the
    challenger's seat secret to come kept by their browser (a cookie) too."""
    account = await challenger_of(request)
    site_of(request).count_creation(request)
    made, secret = await challenges_of(request).make(account, proposal)
    keep(request, response, challenges.COOKIE, made.id, secret)
    return made, secret


async def accept_challenge(
    request: Request, response: Response, challenge_id: str
) -> tuple[str, str]:
    """The game of the challenge accepted by the signed-in account, its seat held by
    this browser (a cookie); the seat's secret."""
    account = await challenger_of(request)
    site_of(request).count_creation(request)
    if request.scope.get("state", {}).get("bot") is not None:  # a bot's token (web/bots.py)
        await request.app.state.bots.check_room(account)
    game_id, secret = await challenges_of(request).accept(
        challenge_id, account, browser_id(request)
    )
    hold(request, response, game_id, secret)
    return game_id, secret


async def seen_challenge(
    request: Request, response: Response, challenge_id: str
) -> challenges.Challenge:
    """A challenge of the signed-in account's; once accepted, the challenger's browser
    holds the game's seat with the secret it was given with the challenge."""
    account = await challenger_of(request)
    found = await challenges_of(request).find(challenge_id, account)
    secret = challenges.seat_for(found, account, request.cookies)
    if secret is not None and found.game_id is not None:
        hold(request, response, found.game_id, secret)
    return found


CHALLENGE = refusals(400, 401, 403, 404)


@router.post("/challenges", status_code=201, responses=refusals(400, 401))
async def challenge(request: Request, response: Response, body: ChallengeRequest) -> dict[str, Any]:
    """Challenge the account named ``to`` to a game: ``game``, its ``options`` (names and
    values, the defaults left out), ``clock`` (``MINUTES+SECONDS`` or null), ``rated``
    (default rules only), the challenger's ``side`` (``south`` the first player,
    ``north`` the second, or ``random``). Open for ten minutes. ``seat`` is the secret
    of the challenger's seat in the game to come (send it as ``X-Boardlab-Seat`` there):
    given this once, to the challenger alone."""
    await challenger_of(request)  # a guest is told to sign in, whatever it sent
    proposal = challenges.read_proposal(
        body.to,
        body.game,
        body.options,
        body.clock,
        body.rated,
        body.side,
        site_of(request).limits.actions,
    )
    made, secret = await make_challenge(request, response, proposal)
    return {**made.json(), "seat": secret}


@router.get("/challenges", responses=refusals(400, 401, switches_language=True))
async def challenge_list(request: Request) -> dict[str, Any]:
    """The open challenges to the signed-in account (``in``) and those it made
    (``out``: open, or answered or expired in the last day, with ``game_id`` and ``url``
    once accepted), the latest first."""
    account = await challenger_of(request)
    incoming, outgoing = await challenges_of(request).of(account)
    return {"in": [c.json() for c in incoming], "out": [c.json() for c in outgoing]}


@router.get("/challenges/{challenge_id}", responses=refusals(400, 401, 404, switches_language=True))
async def challenge_one(request: Request, response: Response, challenge_id: str) -> dict[str, Any]:
    """One challenge the signed-in account made or received (another's: 404). Once
    accepted, ``game_id`` and ``url`` name its game, and the challenger's browser that
    made it (its cookie) holds the seat from this answer on."""
    return (await seen_challenge(request, response, challenge_id)).json()


@router.post("/challenges/{challenge_id}/accept", responses=CHALLENGE)
async def challenge_accept(
    request: Request, response: Response, challenge_id: str
) -> dict[str, Any]:
    """Accept a challenge to the signed-in account: its game is made, both seats held
    by their accounts; ``seat`` is the accepting player's secret (also in the seat
    cookie)."""
    game_id, secret = await accept_challenge(request, response, challenge_id)
    return {"game": game_id, "url": f"/play/{game_id}", "seat": secret}


@router.post("/challenges/{challenge_id}/decline", responses=CHALLENGE)
async def challenge_decline(
    request: Request, challenge_id: str, body: DeclineRequest | None = None
) -> dict[str, Any]:
    """Decline a challenge to the signed-in account, with a ``reason`` if you like
    (one line, shown to the challenger)."""
    account = await challenger_of(request)
    reason = None if body is None else body.reason
    await challenges_of(request).answer(challenge_id, account, "decline", reason)
    return {"id": challenge_id, "status": "declined"}


@router.post("/challenges/{challenge_id}/cancel", responses=CHALLENGE)
async def challenge_cancel(request: Request, challenge_id: str) -> dict[str, Any]:
    """Cancel a challenge the signed-in account made, while it is open."""
    account = await challenger_of(request)
    await challenges_of(request).answer(challenge_id, account, "cancel")
    return {"id": challenge_id, "status": "cancelled"}
