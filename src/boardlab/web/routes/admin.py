"""The admin page: the solvers' tables of this server, each built with one click in the
background (web/tables.py), for the accounts the host made admins (web/admin.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from boardlab.core.i18n import _
from boardlab.web import tables
from boardlab.web.admin import AdminStore
from boardlab.web.data import NotYourSeat
from boardlab.web.deps import account_of, page, redirect, signed_in_account, site_of
from boardlab.web.store import Store

router = APIRouter(include_in_schema=False)

#: Seconds between two loads of the admin page while a table is built.
REFRESH_SECONDS = 5


class NotAdmin(NotYourSeat):
    """A signed-in account that is not an admin asks for the admin's work (403)."""


async def is_admin(request: Request) -> bool:
    account = await account_of(request)
    store = site_of(request).store
    if account is None or not isinstance(store, Store):
        return False
    return await asyncio.to_thread(AdminStore(store).is_admin, account.id)


async def require_admin(request: Request) -> None:
    """Go on for an admin; 401 for a guest, 403 for any other account."""
    await signed_in_account(request)
    if not await is_admin(request):
        raise NotAdmin(_("only the server's admins may do this"))


def _shown(state: tables.TableState) -> dict[str, Any]:
    return {
        "game": state.game,
        "name": state.name,
        "covers": state.covers,
        "needs_table": state.needs_table,
        "state": "built"
        if state.built
        else "building"
        if state.building
        else "waiting"
        if state.wanted
        else "failed"
        if state.error
        else "stopped"
        if state.done
        else "none",
        "size": state.size,
        "done": state.done,
        "total": state.total,
        "percent": state.percent,
        "unit": state.unit,
        "seconds_left": None if state.seconds_left is None else round(state.seconds_left),
        "error": state.error,
    }


async def rows() -> list[dict[str, Any]]:
    return [_shown(state) for state in await asyncio.to_thread(tables.states)]


@router.get("/admin", response_class=HTMLResponse)
async def admin_page(request: Request) -> Response:
    if await account_of(request) is None:
        return redirect(request, "/signin")
    await require_admin(request)
    found = await rows()
    busy = any(row["state"] in ("building", "waiting") for row in found)
    # while a table is built the page shows its progress anew (a header: no script)
    again = {"Refresh": str(REFRESH_SECONDS)} if busy else None
    return page(request, "admin.html", headers=again, rows=found, busy=busy)


@router.post("/admin/tables/{game_id}")
async def build_table(request: Request, game_id: str) -> Response:
    """Build ``game_id``'s table: one builder at a time (the others wait their turn),
    never twice the same."""
    await require_admin(request)
    await asyncio.to_thread(tables.ask, game_id)
    await asyncio.to_thread(request.app.state.builds.start)
    return redirect(request, "/admin")


@router.post("/admin/tables/{game_id}/cancel")
async def cancel_table(request: Request, game_id: str) -> Response:
    """Stop building ``game_id``'s table, keeping what is done (Build goes on from it)."""
    await require_admin(request)
    await asyncio.to_thread(tables.cancel, game_id)
    return redirect(request, "/admin")


@router.get("/api/admin/tables")
async def table_states(request: Request) -> list[dict[str, Any]]:
    """Each game's table and how far its build is (what the admin page shows)."""
    await require_admin(request)
    return await rows()
