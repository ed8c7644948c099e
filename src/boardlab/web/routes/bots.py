"""The bot API's own routes (docs/web.md, *Bots*): who the token acts for, and the games
its bot plays now. The rest of what a bot does goes through the routes every player
uses (challenges, a game's state and actions, the live socket), its token admitted
there by ``web.bots.BotTokens``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from boardlab.core.i18n import _
from boardlab.web.accounts import Account, NotSignedIn
from boardlab.web.bots import Bots
from boardlab.web.routes.api import refusals

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
