"""The bot API's own routes (docs/web.md, *Bots*): who the token acts for, the games its
bot plays now, and its seeks in the lobby. The rest of what a bot does goes through the
routes every player uses (challenges, a game's state and actions, the live socket; a
seek is withdrawn by aborting its game), its token admitted there by
``web.bots.BotTokens``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import StrictInt

from boardlab.core.errors import clipped
from boardlab.core.i18n import _
from boardlab.web.accounts import Account, NotSignedIn
from boardlab.web.bots import Bots, seek_json
from boardlab.web.challenges import read_terms
from boardlab.web.data import RequestError, key_of, new_secret
from boardlab.web.deps import browser_id, site_of
from boardlab.web.pages import RATING_RANGES
from boardlab.web.routes.api import Terms, refusals

router = APIRouter(prefix="/api/bot")


def bot_of(request: Request) -> Account:
    """The bot the request's token acts for (``BotTokens`` checked it), or 401."""
    account = request.scope.get("state", {}).get("account")
    if request.scope.get("state", {}).get("bot") is None or not isinstance(account, Account):
        raise NotSignedIn(
            _("this needs a bot's token: send it as the header Authorization: Bearer TOKEN")
        )
    return account


@router.get("/account", responses=refusals(400, 401, 403, switches_language=True))
async def bot_account(request: Request) -> dict[str, Any]:
    """The bot the token acts for."""
    return {"name": bot_of(request).name, "bot": True}


@router.get("/games", responses=refusals(400, 401, 403, switches_language=True))
async def bot_games(request: Request) -> dict[str, Any]:
    """The games the bot holds a seat in that are not over, the oldest first: a client
    that restarts picks them up (the token holds the bot's seats)."""
    bots: Bots = request.app.state.bots
    return {"games": await bots.games_in_progress(bot_of(request))}


class SeekRequest(Terms):
    """A seek in the lobby (docs/web.md, Bots): the terms of a challenge, no one named,
    and the range of ratings it takes."""

    range: StrictInt | None = None


@router.get("/seeks", responses=refusals(400, 401, 403, switches_language=True))
async def bot_seeks(request: Request) -> dict[str, Any]:
    """The bot's seeks waiting in the lobby, the oldest first."""
    bots: Bots = request.app.state.bots
    return {"seeks": [seek_json(s) for s in await bots.seeks(bot_of(request))]}


@router.post("/seeks", status_code=201, responses=refusals(400, 401, 403))
async def bot_seek(request: Request, body: SeekRequest) -> dict[str, Any]:
    """Seek an opponent in the lobby: ``game``, its ``options`` (names and values, the
    defaults left out), ``clock`` (``MINUTES+SECONDS`` or null), ``rated`` (default
    rules only), the bot's ``side`` (``south``, ``north`` or ``random``) and ``range``
    (100, 200, 300 or 500: only players rated that near the bot's rating at the game
    take it; null: anyone). Counted as a new game; at most 3 open, and 8 games and seeks
    at once. The answer is the seek (its ``id`` the game's) with ``seat``, the secret of
    the bot's seat, this once (the token holds it too)."""
    bot = bot_of(request)
    site = site_of(request)
    terms = read_terms(
        body.game, body.options, body.clock, body.rated, body.side, site.limits.actions
    )
    if body.range is not None and body.range not in RATING_RANGES:
        raise RequestError(
            _("bad range {range}: choose {choices}, or null for anyone").format(
                range=clipped(str(body.range), 16),
                choices=", ".join(str(r) for r in RATING_RANGES),
            )
        )
    site.count_creation(request)
    bots: Bots = request.app.state.bots
    secret = new_secret()
    made = await bots.seek(bot, terms, body.range, key_of(secret), browser_id(request))
    return {**seek_json(made), "seat": secret}
