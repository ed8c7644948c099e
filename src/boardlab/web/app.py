"""The browser app: pages rendered on the server, a JSON API behind them, and a
WebSocket per game page on which it acts and hears every change (``routes/``).

Every request is checked by the engine; whatever goes wrong becomes one clear message
(JSON for the API, a page for a browser) and the game stays as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Mapping

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

import boardlab
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _, use_language
from boardlab.web.bots import Bots, BotTokens
from boardlab.web.data import GameStore
from boardlab.web.deps import (
    HERE,
    Site,
    account_of,
    headers_of,
    new_templates,
    page,
    redacted,
    status_of,
)
from boardlab.web.guard import (
    BodyLimit,
    ClientGate,
    Limits,
    SameOrigin,
    SecurityHeaders,
)
from boardlab.web.language import LanguageMiddleware, check_query, chosen
from boardlab.web.memory import MEMORY_URL, MemoryStore
from boardlab.web.routes import admin, api, bots, live, pages
from boardlab.web.service import GameService
from boardlab.web.store import Store
from boardlab.web.tables import Builds

log = logging.getLogger("boardlab.web")


def create_app(
    db: str | None = None,
    workers: int = 2,
    limits: Limits | None = None,
    secure_cookies: bool = False,
    upgrade: bool = True,
    server: bool = False,
) -> FastAPI:
    """The app on the database at URL ``db`` (SQLite in the user data directory by
    default), its agents searching in ``workers`` processes, each client held to
    ``limits``; ``secure_cookies``: every cookie Secure (the site is HTTPS only);
    ``upgrade``: the database's schema brought to the newest first (else checked);
    ``server``: the app is a server process's own (it keeps the process steady:
    ``GameService.keep_steady``; its AI workers start with it and prepare every level:
    ``FairQueue.prepare``)."""
    limits = limits or Limits()
    store: GameStore = MemoryStore() if db == MEMORY_URL else Store(db, upgrade)
    service = GameService(store, workers, limits.searches)
    builds = Builds()

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        beside = [asyncio.create_task(service.listen())] if store.announces else []
        if server:
            beside.append(asyncio.create_task(service.keep_steady()))
            beside.append(asyncio.create_task(builds.watch()))
            service.queue.prepare()
        yield
        builds.close()
        for task in beside:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task  # a listening connection closed before the loop ends
        await service.close()
        store.close()  # its connections back to the database now

    app = FastAPI(
        title="boardlab",
        version=boardlab.__version__,
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        dependencies=[Depends(check_query)],
    )
    app.add_middleware(BotTokens)  # (inside the client's bounds)
    app.add_middleware(ClientGate, limits=limits)
    app.add_middleware(BodyLimit, limits=limits)
    app.add_middleware(SameOrigin)
    app.add_middleware(LanguageMiddleware, secure=secure_cookies)
    app.add_middleware(SecurityHeaders)
    app.state.site = Site(service, limits, secure_cookies, new_templates())
    app.state.limits = limits
    app.state.service = service
    app.state.bots = Bots(store, limits.requests)
    app.state.builds = builds
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    # a page's header names the signed-in player: read once, before the page is made
    app.include_router(pages.router, dependencies=[Depends(account_of)])
    app.include_router(api.router)
    app.include_router(live.router)
    app.include_router(bots.router)
    app.include_router(admin.router, dependencies=[Depends(account_of)])
    add_error_handlers(app)
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Whatever goes wrong becomes one message: JSON for the API, a page for a browser."""

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


def app_from_environment() -> FastAPI:
    """The app of one server process among several (``boardlab serve --workers N``):
    the database and the AI's processes are named in the environment."""
    return create_app(
        os.environ["BOARDLAB_DB"],
        int(os.environ.get("BOARDLAB_AI_WORKERS", "2")),
        Limits.from_environment(),
        secure_cookies=bool(os.environ.get("BOARDLAB_SECURE_COOKIES")),
        upgrade=False,  # ``serve`` upgraded it once, before its processes started
        server=True,
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
    problems, in_body = [], False
    for item in error.errors():
        if item.get("type") == "json_invalid":  # the decoder's complaint and the text
            why = item.get("ctx", {}).get("error", "")
            return not_json(f"{why}: {str(error.body)[:40]!r}")
        in_body = in_body or item.get("loc", ("",))[0] == "body"
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        got = item.get("input")
        shown = (
            ""
            if got is None or isinstance(got, dict)
            else " " + _("(got {value!r})").format(value=str(got)[:60])
        )
        problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}{shown}")
    if in_body and any("action" in p or "ply" in p for p in problems):
        return _("bad request: {problems}; expected JSON like {example}").format(
            problems="; ".join(problems), example=example
        )
    return _("bad request: {problems}").format(problems="; ".join(problems))
