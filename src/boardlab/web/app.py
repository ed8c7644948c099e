"""The browser app: pages rendered on the server, a JSON API behind them, and a
WebSocket per game that pushes every change to the pages watching it.

Every request is checked by the engine; whatever goes wrong becomes one clear message
(JSON for the API, a page for a browser) and the game stays as it was.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, unquote

from fastapi import (
    Depends,
    FastAPI,
    Header,
    Query,
    Request,
    UploadFile,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

import boardlab
from boardlab.ai import level_name
from boardlab.core.errors import BoardlabError, UnknownGameError, clipped
from boardlab.core.game import Game
from boardlab.core.i18n import _, language, ngettext, use_language
from boardlab.core.record import AGREEMENT, GameRecord, decode_record_text
from boardlab.web import pages
from boardlab.web.clock import new_clock
from boardlab.web.guard import (
    BodyLimit,
    ClientGate,
    Limits,
    RateLimit,
    SameOrigin,
    SecurityHeaders,
    TooLarge,
    TooSlow,
    client_key,
)
from boardlab.web.language import (
    LanguageMiddleware,
    check_query,
    chosen,
    format_number,
    format_when,
    script_catalogue,
    switch_links,
)
from boardlab.web.queue import QueueFullError
from boardlab.web.service import (
    HUMAN,
    GameService,
    NotYourSeat,
    RequestError,
    Viewer,
    key_of,
    new_secret,
)
from boardlab.web.store import (
    DatabaseAway,
    NotFound,
    SeatTaken,
    StaleError,
    Store,
    StoredGame,
)
from boardlab.web.talk import CHAT_LINES, CHAT_SECONDS, check_line, check_name

HERE = Path(__file__).parent
COOKIE = "boardlab_browser"
#: The cookie of the name a player last gave.
NAME = "boardlab_name"
#: The largest message a page may send over its WebSocket, the kinds it may send, and
#: how many in how many seconds before the socket is closed.
MAX_MESSAGE = 4096
SOCKET_MESSAGES = ("ping", "chat")
SOCKET_MOST, SOCKET_SECONDS = 60, 10.0
#: Seconds a client is asked to wait while the database is away.
RETRY_SECONDS = 5


class TooMany(BoardlabError):
    """A client over a rate limit."""


log = logging.getLogger("boardlab.web")


class Answer(BaseModel):
    """A request that answers a ply: the number of actions the page has seen."""

    model_config = ConfigDict(extra="forbid")
    ply: StrictInt


class PlayRequest(Answer):
    action: StrictStr


class DrawRequest(Answer):
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


def create_app(
    db: str | None = None,
    workers: int = 2,
    limits: Limits | None = None,
    secure_cookies: bool = False,
    upgrade: bool = True,
) -> FastAPI:
    """The app on the database at URL ``db`` (SQLite in the user data directory by
    default), its agents searching in ``workers`` processes, each client held to
    ``limits``; ``secure_cookies``: every cookie Secure (the site is HTTPS only);
    ``upgrade``: the database's schema brought to the newest first (else checked)."""
    limits = limits or Limits()
    store = Store(db, upgrade)
    service = GameService(store, workers, limits.searches)
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["games"] = pages.catalogue
    templates.env.filters["prose"] = pages.prose
    templates.env.add_extension("jinja2.ext.i18n")
    templates.env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=_, ngettext=ngettext, newstyle=True
    )
    templates.env.globals.update(
        language=language,
        languages=switch_links,
        level_name=level_name,
        script_messages=script_catalogue,
        number=format_number,
        when=format_when,
        remembered=remembered,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        listening = asyncio.create_task(service.listen()) if store.announces else None
        yield
        if listening is not None:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listening  # its connection closed before the loop ends
        await service.close()
        store.engine.dispose()  # its connections back to the database now

    app = FastAPI(
        title="boardlab",
        version=boardlab.__version__,
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        dependencies=[Depends(check_query)],
    )
    app.add_middleware(ClientGate, limits=limits)
    app.add_middleware(BodyLimit, limits=limits)
    app.add_middleware(SameOrigin)
    app.add_middleware(LanguageMiddleware, secure=secure_cookies)
    app.add_middleware(SecurityHeaders)
    creations = RateLimit(limits.games, 60.0)
    uploads = RateLimit(limits.uploads, 60.0)
    chatter = RateLimit(CHAT_LINES, CHAT_SECONDS)
    #: WebSockets open now, by client
    sockets: collections.Counter[str] = collections.Counter()
    app.state.limits = limits
    app.state.secure_cookies = secure_cookies
    app.state.service = service
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    def page(
        request: Request,
        name: str,
        code: int = 200,
        headers: Mapping[str, str] | None = None,
        **context: Any,
    ) -> Response:
        response = templates.TemplateResponse(
            request, name, context, status_code=code, headers=headers
        )
        browser(request, response)
        return response

    def redirect(request: Request, url: str) -> Response:
        response = RedirectResponse(url, status_code=303)
        browser(request, response)
        return response

    # ------------------------------------------------------------------ errors
    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/") or "json" in request.headers.get("accept", "")

    def failure(
        request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> Response:
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=status, headers=headers)
        return page(request, "error.html", status, headers, message=message, status=status)

    @app.exception_handler(BoardlabError)
    async def boardlab_error(request: Request, error: BoardlabError) -> Response:
        return failure(request, status_of(error), str(error), headers_of(error))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        return failure(request, 422, validation_message(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if error.status_code == 404:
            return failure(
                request, 404, _("there is no page at {path}").format(path=request.url.path)
            )
        cause = error.__cause__  # of FastAPI's "error parsing the body"
        if isinstance(cause, UnicodeDecodeError):
            return failure(request, 422, not_json(cause))
        if isinstance(cause, BoardlabError):  # the body too large or too slow
            return failure(request, status_of(cause), str(cause), headers_of(cause))
        if error.status_code == 405:
            allowed = (error.headers or {}).get("Allow", "")
            message = _("{method} is not answered at {path}: it takes {allowed}").format(
                method=request.method[:16], path=request.url.path[:60], allowed=allowed
            )
            return failure(request, 405, message, error.headers)
        return failure(request, error.status_code, str(error.detail), error.headers)

    @app.exception_handler(Exception)
    async def crash(request: Request, error: Exception) -> Response:
        log.exception("request %s %s failed", request.method, redacted(request.url.path))
        with use_language(chosen(request.headers)):  # outside the language middleware
            message = _("something went wrong on the server; the game is safe")
            return failure(request, 500, message)

    # ------------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request) -> Response:
        mine = await run_in_threadpool(store.games_of, browser_id(request), 6)
        return page(request, "home.html", mine=pages.game_list(mine))

    @app.get("/new/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def new_game_page(request: Request, game_id: str) -> Response:
        form = pages.NewGameForm.empty(game_id)
        return page(request, "new.html", form=form)

    def count_creation(request: Request) -> None:
        """Count a new game (or rematch) of the asker's, refused over ``limits.games``."""
        if not creations.allow(client_key(request.scope)):
            raise TooMany(
                _("too many new games from your address: at most {most} a minute").format(
                    most=limits.games
                )
            )

    def check_length(game: Game[Any]) -> None:
        """Refuse options under which a game could outgrow ``limits.actions``."""
        if game.max_actions > limits.actions:
            raise RequestError(
                _(
                    "these options ({options}) allow games of up to {count} actions; this "
                    "server keeps games of up to {most}: choose options for a shorter game"
                ).format(
                    options=clipped(" ".join(game.option_assignments())),
                    count=format_number(game.max_actions),
                    most=format_number(limits.actions),
                )
            )

    @app.post("/new/{game_id}", include_in_schema=False)
    async def new_game(request: Request, game_id: str) -> Response:
        count_creation(request)
        values = await request.form()
        form = pages.NewGameForm.empty(game_id)
        try:
            setup = form.read({k: v for k, v in values.items() if isinstance(v, str)})
            name = check_name(values.get("name"))
            check_length(boardlab.new_game(game_id, **setup.options))
        except BoardlabError as error:
            form.error = str(error)
            return page(request, "new.html", 400, form=form)
        secret, invitation = new_secret(), new_secret()
        keys: list[str | None] = [None, None]
        for seat in setup.mine:
            keys[seat] = key_of(secret)
        if setup.open_seat is not None:
            keys[setup.open_seat] = key_of(invitation)
        new_id = await run_in_threadpool(
            lambda: store.create(
                game_id,
                setup.options,
                setup.seats,
                browser_id(request),
                seat_keys=keys,
                open_seat=setup.open_seat,
                listed=setup.listed,
                clock=None if setup.clock is None else new_clock(*setup.clock),
                names=[name if [k] == setup.mine else None for k in (0, 1)],
            )
        )
        service.wake(new_id)
        response = redirect(request, f"/play/{new_id}")
        hold(request, response, new_id, secret)
        remember(request, response, name)
        if setup.open_seat is not None:
            keep(request, response, INVITATION, new_id, invitation)
        return response

    @app.get("/play/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def play_page(request: Request, game_id: str) -> Response:
        viewer = viewer_of(request, game_id)
        stored, record = await service.load(game_id)
        state = service.describe(stored, record, viewer)
        state.update(links(request, stored, viewer))
        wake_if_due(state)
        return page(request, "play.html", state=state)

    @app.get("/seat/{game_id}/{secret}", include_in_schema=False)
    async def seat_link(request: Request, game_id: str, secret: str) -> Response:
        """A player's own link: it holds the seat in this browser too (another device, a
        cleared cookie) and opens the game."""
        stored, _record = await service.load(game_id)
        if not Viewer((secret,)).seats(stored) or stored.seat_keys is None:
            raise NotFound(_("this seat link is not valid for game {game!r}").format(game=game_id))
        response = redirect(request, f"/play/{game_id}")
        hold(request, response, game_id, secret)
        return response

    @app.get("/join/{game_id}/{secret}", response_class=HTMLResponse, include_in_schema=False)
    async def join_page(request: Request, game_id: str, secret: str) -> Response:
        """An invitation: the game and a button that takes the seat (a GET never does:
        link previews would take it)."""
        stored, record = await service.load(game_id)
        state = service.describe(stored, record, viewer_of(request, game_id))
        invited = stored.open_seat is not None and stored.seat_keys is not None
        valid = invited and stored.seat_keys[stored.open_seat] == key_of(secret)  # type: ignore[index]
        return page(request, "join.html", state=state, valid=valid, action=request.url.path)

    @app.post("/join/{game_id}/{secret}", include_in_schema=False)
    async def join(request: Request, game_id: str, secret: str) -> Response:
        return await take_seat(request, game_id, secret)

    @app.post("/rematch/{game_id}", include_in_schema=False)
    async def rematch_page(request: Request, game_id: str) -> Response:
        """Open the rematch (making it if the opponent has not yet), seated."""
        viewer = viewer_of(request, game_id)
        new_id = await service.rematch(game_id, viewer, lambda: count_creation(request))
        response = redirect(request, f"/play/{new_id}")
        stored, _record = await service.load(game_id)
        for secret in viewer.secrets:
            if Viewer((secret,)).seats(stored):
                hold(request, response, new_id, secret)
                break
        return response

    @app.get("/lobby", response_class=HTMLResponse, include_in_schema=False)
    async def lobby_page(request: Request) -> Response:
        waiting = await run_in_threadpool(store.lobby)
        return page(request, "lobby.html", waiting=pages.lobby_list(waiting))

    @app.post("/lobby/{game_id}", include_in_schema=False)
    async def join_from_lobby(request: Request, game_id: str) -> Response:
        """Take the open seat of a game in the lobby (one click)."""
        return await take_seat(request, game_id, None)

    async def take_seat(request: Request, game_id: str, invitation: str | None) -> Response:
        """Seat the asker in the game's open seat, by the ``invitation``'s secret or from
        the lobby (None), named as the form says. The seat gets a secret of its own: the
        invitation is used up, and whoever else saw its link (its maker, a chat it went
        through) acts for nobody."""
        name = check_name((await request.form()).get("name"))
        stored, _record = await service.load(game_id)
        if stored.open_seat is None:
            raise SeatTaken(_("this seat is not open: someone has taken it"))
        if viewer_of(request, game_id).seats(stored):
            raise RequestError(
                _(
                    "you play this game already: the open seat is for your opponent; send "
                    "them the invitation link"
                )
            )
        secret = new_secret()
        invited = None if invitation is None else key_of(invitation)
        await run_in_threadpool(
            store.take_seat, game_id, stored.open_seat, key_of(secret), invited, name
        )
        await service.tell(game_id)
        response = redirect(request, f"/play/{game_id}")
        hold(request, response, game_id, secret)
        remember(request, response, name)
        return response

    @app.get("/review/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def review_page(request: Request, game_id: str) -> Response:
        """The game and its move list; the page asks for the boards it shows
        (``positions``): all of a long game's boards ran to gigabytes."""
        stored, record = await service.load(game_id)
        state = await run_in_threadpool(service.describe, stored, record)
        return page(request, "review.html", state=state, positions=len(record) + 1)

    @app.get("/rules/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def rules_page(request: Request, game_id: str) -> Response:
        return page(request, "rules.html", rules=pages.rules(game_id))

    @app.get("/games", response_class=HTMLResponse, include_in_schema=False)
    async def my_games(request: Request) -> Response:
        mine = await run_in_threadpool(store.games_of, browser_id(request))
        return page(request, "games.html", mine=pages.game_list(mine))

    @app.post("/upload", include_in_schema=False)
    async def upload(request: Request, record: UploadFile) -> Response:
        """Keep an uploaded record to review, and to go on with if it is unfinished: its
        seats are the uploader's alone, as in a game on one screen."""
        if not uploads.allow(client_key(request.scope)):
            raise TooMany(
                _("too many uploads from your address: at most {most} a minute").format(
                    most=limits.uploads
                )
            )
        name = clipped(record.filename or _("the upload"))
        text = await read_upload(record, name)
        try:  # a replay of up to ``limits.actions`` actions: beside the event loop
            loaded = await run_in_threadpool(GameRecord.read, text, most=limits.actions)
            check_length(loaded.game)
        except BoardlabError as error:
            raise RequestError(f"{name}: {error}") from None
        start = loaded.start
        secret = new_secret()
        new_id = await run_in_threadpool(
            lambda: store.create(
                loaded.game.id,
                dict(loaded.game.non_default_options()),
                [HUMAN, HUMAN],
                browser_id(request),
                None if start == loaded.game.initial() else start.position_string(),
                dict(loaded.headers),
                loaded.action_strings(),
                loaded.resigned,
                loaded.result(),
                seat_keys=[key_of(secret), key_of(secret)],
                ending=loaded.resign_reason
                if loaded.resigned is not None
                else (AGREEMENT if loaded.agreed else None),
            )
        )
        response = redirect(request, f"/review/{new_id}")
        hold(request, response, new_id, secret)
        return response

    # ------------------------------------------------------------------ the API
    @app.get("/api/games", responses=refusals(400, switches_language=True))
    async def catalogue() -> list[dict[str, Any]]:
        """Every game with its options and the levels of its AI."""
        return [pages.describe_game(game_id) for game_id in boardlab.game_ids()]

    @app.get("/api/games/{game_id}", responses=READ, dependencies=SEATED)
    async def state(request: Request, game_id: str) -> dict[str, Any]:
        """The game as a page shows it: board, legal actions, moves, result; ``you`` are
        the seats the asker holds (its cookie or ``X-Boardlab-Seat`` header)."""
        answer = await service.state(game_id, viewer_of(request, game_id))
        wake_if_due(answer)
        return answer

    @app.post("/api/games/{game_id}/play", responses=CHANGE, dependencies=SEATED)
    async def play(request: Request, game_id: str, body: PlayRequest) -> dict[str, Any]:
        """Play an action (its string) as the answer to action number ``ply``, for the
        seat the asker holds."""
        return await service.play(game_id, body.action, body.ply, viewer_of(request, game_id))

    @app.post("/api/games/{game_id}/undo", responses=CHANGE, dependencies=SEATED)
    async def undo(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
        """Take back the latest turn a person played, with the AI's replies."""
        return await service.undo(game_id, body.ply, viewer_of(request, game_id))

    @app.post("/api/games/{game_id}/resign", responses=CHANGE, dependencies=SEATED)
    async def resign(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
        return await service.resign(game_id, body.ply, viewer_of(request, game_id))

    @app.post("/api/games/{game_id}/draw", responses=CHANGE, dependencies=SEATED)
    async def draw(request: Request, game_id: str, body: DrawRequest) -> dict[str, Any]:
        """Offer a draw, or accept or decline the opponent's offer (online games)."""
        return await service.draw(game_id, body.ply, body.answer, viewer_of(request, game_id))

    @app.post(
        "/api/games/{game_id}/rematch",
        responses=refusals(400, 403, 404),
        dependencies=SEATED,
    )
    async def rematch(request: Request, game_id: str) -> dict[str, str]:
        """The rematch of a finished game (made on the first request): its id. The
        asker's secret acts for its seat there too."""
        return {"id": await service.rematch(game_id, viewer_of(request, game_id))}

    @app.post("/api/games/{game_id}/hint", responses=CHANGE, dependencies=SEATED)
    async def hint(request: Request, game_id: str, body: Answer) -> dict[str, Any]:
        """The AI's suggestion for the player to act, with its evaluation."""
        return await service.hint(game_id, body.ply, viewer_of(request, game_id))

    @app.get("/api/games/{game_id}/review", responses=READ)
    async def review(game_id: str) -> dict[str, Any]:
        """The AI's review of every action; ``running`` until it is ready."""
        return await service.review(game_id)

    @app.get("/api/games/{game_id}/positions", responses=READ)
    async def positions(
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
        _stored, record = await service.load(game_id)
        return await run_in_threadpool(pages.review_positions, record, start, count)

    @app.get(
        "/api/games/{game_id}/record.txt",
        response_class=Response,
        responses={200: download_of("text/plain", "string"), **READ},
    )
    async def record_text(game_id: str) -> Response:
        stored, record = await service.load(game_id)
        text = await run_in_threadpool(record.to_text)
        return download(text, f"{stored.game}-{game_id}.txt", "text/plain")

    @app.get(
        "/api/games/{game_id}/record.json",
        response_class=Response,
        responses={200: download_of("application/json", "object"), **READ},
    )
    async def record_json(game_id: str) -> Response:
        stored, record = await service.load(game_id)
        text = await run_in_threadpool(record.to_json)
        return download(text, f"{stored.game}-{game_id}.json", "application/json")

    @app.websocket("/ws/games/{game_id}")
    async def watch(socket: WebSocket, game_id: str) -> None:
        client = client_key(socket.scope)
        if sockets[client] >= limits.sockets:
            await socket.close(code=1008, reason="too many sockets from this address")
            return
        sockets[client] += 1
        try:
            await watch_game(socket, game_id)
        finally:
            sockets[client] -= 1
            if sockets[client] <= 0:
                del sockets[client]

    async def watch_game(socket: WebSocket, game_id: str) -> None:
        await socket.accept()
        viewer = viewer_of(socket, game_id)
        try:
            stored, record = await service.load(game_id)
            first = service.describe(stored, record, viewer)
        except BoardlabError as error:
            await socket.send_json({"type": "error", "message": str(error)})
            await socket.close(code=1013 if isinstance(error, DatabaseAway) else 4404)
            return

        async def send(message: dict[str, Any]) -> None:
            await socket.send_json(message)

        service.watch(game_id, send, viewer)
        service.arm(stored, record)  # a clock running out is told to this page too
        seats = viewer.seats(stored)
        flood = RateLimit(SOCKET_MOST, SOCKET_SECONDS)  # this socket's messages
        try:
            await send({"type": "state", "state": first})
            if first["can_chat"]:
                await send({"type": "chat", "lines": await service.chat(game_id, viewer)})
            service.arrived(game_id, seats, here=True)
            wake_if_due(first)
            while True:
                message = await socket.receive_text()
                if not flood.allow(""):
                    await send(error_message(too_fast()))
                    await socket.close(code=1008)
                    return
                reply = await answer_socket(game_id, viewer, message)
                if reply is not None:
                    await send(reply)
        except WebSocketDisconnect:
            pass
        finally:
            service.unwatch(game_id, send)
            service.arrived(game_id, seats, here=False)

    async def answer_socket(game_id: str, viewer: Viewer, message: str) -> dict[str, Any] | None:
        """The reply to a message a page sent: a ping is answered, a line of chat is
        said (and comes back with the others' lines), anything else is told why not."""
        try:
            data = read_message(message)
            if data["type"] == "ping":
                return {"type": "pong"}
            line = check_line(data.get("text"))

            def admit(seat: int) -> None:
                if not chatter.allow(f"{game_id}:{seat}"):
                    raise TooMany(
                        _("too many chat lines: at most {most} in {seconds} seconds").format(
                            most=CHAT_LINES, seconds=int(CHAT_SECONDS)
                        )
                    )

            await service.say(game_id, line, viewer, admit)
        except BoardlabError as error:
            return error_message(str(error))
        return None

    def wake_if_due(state: dict[str, Any]) -> None:
        if state["to_act"] is not None and not state["human_to_act"]:
            service.wake(state["id"])

    return app


def status_of(error: BoardlabError) -> int:
    """The HTTP status that refuses a request for ``error``."""
    for kinds, status in (
        (NotFound | UnknownGameError, 404),
        (StaleError | SeatTaken, 409),
        (NotYourSeat, 403),
        (TooMany | QueueFullError, 429),
        (TooLarge, 413),
        (TooSlow, 408),
        (DatabaseAway, 503),
    ):
        if isinstance(error, kinds):
            return status
    return 400


def headers_of(error: BoardlabError) -> dict[str, str] | None:
    """The headers that go with the refusal: when to try again, for what passes."""
    if isinstance(error, DatabaseAway | TooMany | QueueFullError):
        return {"Retry-After": str(RETRY_SECONDS)}
    return None


def app_from_environment() -> FastAPI:
    """The app of one server process among several (``boardlab serve --workers N``):
    the database and the AI's processes are named in the environment."""
    return create_app(
        os.environ["BOARDLAB_DB"],
        int(os.environ.get("BOARDLAB_AI_WORKERS", "2")),
        Limits.from_environment(),
        secure_cookies=bool(os.environ.get("BOARDLAB_SECURE_COOKIES")),
        upgrade=False,  # ``serve`` upgraded it once, before its processes started
    )


def read_message(message: str) -> dict[str, Any]:
    """A message from a page, checked: ``{"type": "ping"}`` or ``{"type": "chat",
    "text": ...}``; anything else is a RequestError that says what would do."""
    if len(message) > MAX_MESSAGE:
        raise RequestError(
            _("message too long ({count} characters): at most {most}").format(
                count=len(message), most=MAX_MESSAGE
            )
        )
    try:
        data = json.loads(message)
    except ValueError:
        raise RequestError(_("not JSON: {text!r}").format(text=message[:80])) from None
    if isinstance(data, dict) and data.get("type") in SOCKET_MESSAGES:
        return data
    raise RequestError(
        _(
            "unknown message {text!r}: this socket takes {ping} and {chat}; actions go to "
            "POST /api/games/{{id}}/play"
        ).format(text=message[:80], ping='{"type": "ping"}', chat='{"type": "chat", "text": "..."}')
    )


def error_message(text: str) -> dict[str, Any]:
    return {"type": "error", "message": text}


def too_fast() -> str:
    return _("too many messages: at most {most} in {seconds} seconds; this socket closes").format(
        most=SOCKET_MOST, seconds=int(SOCKET_SECONDS)
    )


async def read_upload(upload: UploadFile, name: str) -> str:
    """The text of an uploaded record (its size already bounded by ``Limits.body``), read
    as every reader of records reads one (``decode_record_text``)."""
    data = await upload.read()
    if not data.strip():
        raise RequestError(
            _("{name} is empty: expected a game record (text or JSON)").format(name=name)
        )
    try:
        return decode_record_text(data, name)
    except BoardlabError as error:
        raise RequestError(str(error)) from None


def download(text: str, filename: str, media: str) -> Response:
    return Response(
        text,
        media_type=f"{media}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


#: What a request body looks like, for the messages that refuse one.
BODY_EXAMPLE = '{"action": "...", "ply": 0}'


def not_json(why: object) -> str:
    """The refusal of a body that is not JSON text (``why``: the decoder's complaint)."""
    message = _("bad request: the body is not JSON ({why}); expected JSON like {example}")
    return message.format(why=why, example=BODY_EXAMPLE)


def validation_message(error: RequestValidationError) -> str:
    """FastAPI's list of problems as one sentence."""
    example = BODY_EXAMPLE
    problems = []
    for item in error.errors():
        if item.get("type") == "json_invalid":  # the decoder's complaint and the text
            why = item.get("ctx", {}).get("error", "")
            return not_json(f"{why}: {str(error.body)[:40]!r}")
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        got = item.get("input")
        shown = (
            ""
            if got is None or isinstance(got, dict)
            else " " + _("(got {value!r})").format(value=str(got)[:60])
        )
        problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}{shown}")
    if any("action" in p or "ply" in p for p in problems):
        return _("bad request: {problems}; expected JSON like {example}").format(
            problems="; ".join(problems), example=example
        )
    return _("bad request: {problems}").format(problems="; ".join(problems))


#: The cookie of a browser's seat in a game (its secret) and of an invitation it made.
SEAT, INVITATION = "seat", "invite"
#: The header a program sends a seat's secret in, instead of the cookie.
SEAT_HEADER = "x-boardlab-seat"
#: The paths that carry a secret (kept out of the logs).
SECRET_PATH = re.compile(r"^/(seat|join)/([^/]+)/[^/]+")


def viewer_of(request: Request | WebSocket, game_id: str) -> Viewer:
    """Who asks about a game: the secrets it sent for it, cookie or header."""
    sent = [request.cookies.get(f"{SEAT}-{game_id}", ""), request.headers.get(SEAT_HEADER, "")]
    return Viewer(tuple(secret for secret in sent if 16 <= len(secret) <= 64))


def set_cookie(request: Request, response: Response, name: str, value: str, years: int) -> None:
    """A cookie no script reads, sent to this site alone, and only over HTTPS when the
    request came so (or the server is told the site is HTTPS only)."""
    secure = request.url.scheme == "https" or request.app.state.secure_cookies
    response.set_cookie(
        name, value, max_age=years * 365 * 86400, httponly=True, samesite="lax", secure=secure
    )


def keep(request: Request, response: Response, kind: str, game_id: str, secret: str) -> None:
    set_cookie(request, response, f"{kind}-{game_id}", secret, 1)


def hold(request: Request, response: Response, game_id: str, secret: str) -> None:
    """Let this browser act for the seats ``secret`` holds in the game."""
    keep(request, response, SEAT, game_id, secret)


def remember(request: Request, response: Response, name: str | None) -> None:
    """Keep the name a player gave, to fill it in on the next form (quoted: a cookie
    holds ASCII only)."""
    if name is not None:
        set_cookie(request, response, NAME, quote(name), 1)


def remembered(request: Request) -> str:
    """The name this browser's player gave last ('' for none or one no longer valid)."""
    with contextlib.suppress(BoardlabError):
        return check_name(unquote(request.cookies.get(NAME, ""))) or ""
    return ""


def links(request: Request, stored: StoredGame, viewer: Viewer) -> dict[str, str]:
    """The links only this browser may see: its own seat link (to play on another
    device) and, while the opponent's seat is open, the invitation it made."""
    base = str(request.base_url).rstrip("/")
    found = {}
    secret = request.cookies.get(f"{SEAT}-{stored.id}", "")
    if secret and viewer.seats(stored) and stored.seat_keys is not None:
        found["seat_link"] = f"{base}/seat/{stored.id}/{secret}"
    invitation = request.cookies.get(f"{INVITATION}-{stored.id}", "")
    keys, seat = stored.seat_keys, stored.open_seat
    if invitation and keys is not None and seat is not None and keys[seat] == key_of(invitation):
        found["invitation"] = f"{base}/join/{stored.id}/{invitation}"
    return found


def redacted(path: str) -> str:
    """A path as the log may show it: without the secret of a seat or an invitation."""
    return SECRET_PATH.sub(r"/\1/\2/…", path)


def browser_id(request: Request) -> str:
    """The browser's id from its cookie (a new one if it has none yet)."""
    known = request.cookies.get(COOKIE, "")
    if 16 <= len(known) <= 64 and known.replace("-", "").replace("_", "").isalnum():
        return known
    if not hasattr(request.state, "browser"):
        request.state.browser = secrets.token_urlsafe(18)
    browser: str = request.state.browser
    return browser


def browser(request: Request, response: Response) -> None:
    """Give a browser its id cookie: its games are listed under it."""
    if request.cookies.get(COOKIE) != browser_id(request):
        set_cookie(request, response, COOKIE, browser_id(request), 10)
