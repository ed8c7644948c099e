"""The pages a browser opens, rendered on the server: the home page, a new game's form,
a game, an invitation, the lobby, a review, the rules, a player's games, an upload."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any
from urllib.parse import unquote

from fastapi import APIRouter, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, Response

import boardlab
from boardlab.core.errors import BoardlabError, clipped
from boardlab.core.i18n import _, language
from boardlab.core.record import AGREEMENT, GameRecord, decode_record_text
from boardlab.web import challenges, pages, positions, puzzles
from boardlab.web.accounts import Account, SignInRefused
from boardlab.web.clock import new_clock
from boardlab.web.data import (
    HUMAN,
    NewGame,
    NotFound,
    RequestError,
    StoredGame,
    Viewer,
    key_of,
    new_secret,
    rating_span,
)
from boardlab.web.deps import (
    INVITATION,
    NAME,
    account_of,
    begin_session,
    browser_id,
    end_session,
    hold,
    keep,
    links,
    page,
    redirect,
    remember,
    service_of,
    session_of,
    signed_in_account,
    site_of,
    viewer_of,
)
from boardlab.web.guard import client_key
from boardlab.web.routes.admin import is_admin
from boardlab.web.routes.api import (
    accept_challenge,
    challenger_of,
    challenges_of,
    make_challenge,
    ratings_of,
    seen_challenge,
)
from boardlab.web.store import Store
from boardlab.web.talk import check_name

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    return page(request, "home.html", mine=pages.game_list(await games_of(request, 6)))


async def games_of(request: Request, limit: int = 200) -> list[StoredGame]:
    """The asker's games: a signed-in player's account's, else this browser's."""
    account = await account_of(request)
    site = site_of(request)
    if account is not None:
        return await site.accounts.games_of(account, limit)
    return await asyncio.to_thread(site.store.games_of, browser_id(request), limit)


async def link(request: Request, game_id: str) -> None:
    """A new game of a signed-in player's among the account's games."""
    await site_of(request).accounts.link(await account_of(request), game_id)


@router.get("/new/{game_id}", response_class=HTMLResponse)
async def new_game_page(request: Request, game_id: str, to: str = "") -> Response:
    """The new game form; ``to`` names a player to challenge (a profile's link)."""
    form = pages.NewGameForm.empty(game_id)
    await account_of(request)  # the form offers a signed-in player more
    if to.strip():
        form.values = {"opponent": pages.CHALLENGE, "to": to.strip()[:40], "seat": "random"}
    return page(request, "new.html", form=form)


@router.post("/new/{game_id}")
async def new_game(request: Request, game_id: str) -> Response:
    site = site_of(request)
    site.count_creation(request)
    values = await request.form()
    form = pages.NewGameForm.empty(game_id)
    try:
        setup = form.read({k: v for k, v in values.items() if isinstance(v, str)})
        name = check_name(values.get("name"))
        game = boardlab.new_game(game_id, **setup.options)
    except BoardlabError as error:
        form.error = str(error)
        return page(request, "new.html", 400, form=form)
    try:
        site.check_length(game)
    except RequestError:  # said with the options' labels, not as key=value
        form.error = form.too_long(game, site.limits.actions)
        return page(request, "new.html", 400, form=form)
    account = await account_of(request)
    if setup.challenge is not None:
        return await challenge_from_form(request, form, setup, game)
    rated = setup.rated and account is not None
    span = None
    if setup.rating_range is not None:
        if account is None:
            form.error = _("sign in to seek players by rating: a guest's game takes anyone")
            return page(request, "new.html", 400, form=form)
        rating = await asyncio.to_thread(site.store.rating_of, account.id, game_id)
        span = rating_span(rating, setup.rating_range)
    held: list[int | None] = [None, None]
    if setup.open_seat is not None and account is not None:  # a game online
        for seat in setup.mine:
            held[seat] = account.id
    secret, invitation = new_secret(), new_secret()
    keys: list[str | None] = [None, None]
    for seat in setup.mine:
        keys[seat] = key_of(secret)
    if setup.open_seat is not None:
        keys[setup.open_seat] = key_of(invitation)
    new_id = await asyncio.to_thread(
        lambda: site.store.create(
            NewGame(
                game_id,
                setup.options,
                setup.seats,
                browser_id(request),
                seat_keys=keys,
                open_seat=setup.open_seat,
                listed=setup.listed,
                clock=None if setup.clock is None else new_clock(*setup.clock),
                names=[name if [k] == setup.mine else None for k in (0, 1)],
                accounts=held,
                rated=rated,
                rating_range=span,
            )
        )
    )
    site.service.wake(new_id, setup.seats)
    await link(request, new_id)
    response = redirect(request, f"/play/{new_id}")
    hold(request, response, new_id, secret)
    remember(request, response, name)
    if setup.open_seat is not None:
        keep(request, response, INVITATION, new_id, invitation)
    return response


@router.get("/play/{game_id}", response_class=HTMLResponse)
async def play_page(request: Request, game_id: str) -> Response:
    viewer = viewer_of(request, game_id)
    room = await service_of(request).room(game_id)
    state = room.state(language(), viewer)
    state.update(links(request, room.stored, viewer))
    return page(request, "play.html", state=state)


@router.get("/seat/{game_id}/{secret}")
async def seat_link(request: Request, game_id: str, secret: str) -> Response:
    """A player's own link: it holds the seat in this browser too (another device, a
    cleared cookie) and opens the game."""
    stored, _record = await service_of(request).load(game_id)
    if not Viewer((secret,)).seats(stored) or stored.seat_keys is None:
        raise NotFound(_("this seat link is not valid for game {game!r}").format(game=game_id))
    response = redirect(request, f"/play/{game_id}")
    hold(request, response, game_id, secret)
    return response


@router.get("/join/{game_id}/{secret}", response_class=HTMLResponse)
async def join_page(request: Request, game_id: str, secret: str) -> Response:
    """An invitation: the game and a button that takes the seat (a GET never does:
    link previews would take it)."""
    room = await service_of(request).room(game_id)
    stored = room.stored
    state = room.state(language(), viewer_of(request, game_id))
    invited = stored.open_seat is not None and stored.seat_keys is not None
    valid = invited and stored.seat_keys[stored.open_seat] == key_of(secret)  # type: ignore[index]
    return page(request, "join.html", state=state, valid=valid, action=request.url.path)


@router.post("/join/{game_id}/{secret}")
async def join(request: Request, game_id: str, secret: str) -> Response:
    return await take_seat(request, game_id, secret)


@router.post("/rematch/{game_id}")
async def rematch_page(request: Request, game_id: str) -> Response:
    """Open the rematch (making it if the opponent has not yet), seated."""
    viewer = viewer_of(request, game_id)
    service = service_of(request)
    new_id = await service.rematch(
        game_id, viewer, lambda: site_of(request).count_creation(request)
    )
    await link(request, new_id)
    response = redirect(request, f"/play/{new_id}")
    stored, _record = await service.load(game_id)
    for secret in viewer.secrets:
        if Viewer((secret,)).seats(stored):
            hold(request, response, new_id, secret)
            break
    return response


async def challenge_from_form(
    request: Request, form: pages.NewGameForm, setup: pages.Setup, game: Any
) -> Response:
    """The new game form's challenge to a player by name: made, and the challenger sent
    to its page to wait for the answer; refused on the form with why."""
    await challenger_of(request)
    side = {"0": "south", "1": "north"}.get(setup.side, "random")
    control = None if setup.clock is None else f"{setup.clock[0] // 60}+{setup.clock[1]}"
    response = redirect(request, "/challenges")
    try:
        proposal = challenges.read_proposal(
            setup.challenge,
            game.id,
            setup.options,
            control,
            setup.rated,
            side,
            site_of(request).limits.actions,
        )
        made, _secret = await make_challenge(request, response, proposal)
    except RequestError as error:
        form.error = str(error)
        return page(request, "new.html", 400, form=form)
    response.headers["location"] = f"/challenges/{made.id}"
    return response


@router.get("/lobby", response_class=HTMLResponse)
async def lobby_page(request: Request, game: str = "") -> Response:
    """The games waiting for an opponent (``game``: of that game only), and the open
    challenges to a signed-in player."""
    site = site_of(request)
    waiting = await asyncio.to_thread(site.store.lobby)
    if game in boardlab.game_ids():
        waiting = [stored for stored in waiting if stored.game == game]
    account = await account_of(request)
    asker = None if account is None else account.id
    wanted = {
        (held, stored.game)
        for stored in waiting
        for held in (*stored.accounts, asker)
        if held is not None
    }
    ratings, names, bots = {}, {}, set()
    if wanted and isinstance(site.store, Store):
        ratings = await asyncio.to_thread(site.store.ratings_at, sorted(wanted))
        names = await asyncio.to_thread(site.store.names_of, [held for held, _g in wanted])
        bots = await request.app.state.bots.bots_among(sorted({held for held, _g in wanted}))
    incoming, _outgoing = await challenges_of(request).of(account)
    choices = [(g, boardlab.new_game(g).name) for g in boardlab.game_ids()]
    return page(
        request,
        "lobby.html",
        waiting=pages.lobby_list(waiting, ratings, names, asker, bots),
        challenges=[pages.challenge_row(c) for c in incoming],
        choices=choices,
        chosen=game if game in boardlab.game_ids() else "",
    )


@router.post("/lobby/{game_id}")
async def join_from_lobby(request: Request, game_id: str) -> Response:
    """Take the open seat of a game in the lobby (one click)."""
    return await take_seat(request, game_id, None)


async def take_seat(request: Request, game_id: str, invitation: str | None) -> Response:
    """Seat the asker in the game's open seat, by the ``invitation``'s secret or from
    the lobby (None), named as the form says. The seat gets a secret of its own: the
    invitation is used up, and whoever else saw its link (its maker, a chat it went
    through) acts for nobody."""
    name = check_name((await request.form()).get("name"))
    secret = new_secret()
    invited = None if invitation is None else key_of(invitation)
    account = await account_of(request)
    await service_of(request).take_seat(
        game_id,
        key_of(secret),
        invited,
        name,
        viewer_of(request, game_id),
        None if account is None else account.id,
    )
    await site_of(request).accounts.link(account, game_id)
    response = redirect(request, f"/play/{game_id}")
    hold(request, response, game_id, secret)
    remember(request, response, name)
    return response


# ---------------------------------------------------------------------- challenges
@router.get("/challenges", response_class=HTMLResponse)
async def challenges_page(request: Request) -> Response:
    """The challenges to the signed-in player, to accept or decline, and theirs."""
    account = await account_of(request)
    if account is None:
        return redirect(request, "/signin")
    incoming, outgoing = await challenges_of(request).of(account)
    return page(
        request,
        "challenges.html",
        incoming=[pages.challenge_row(c) for c in incoming],
        outgoing=[pages.challenge_row(c) for c in outgoing],
    )


@router.get("/challenges/{challenge_id}", response_class=HTMLResponse)
async def challenge_page(request: Request, challenge_id: str) -> Response:
    """One challenge, as its challenger waits for the answer (the page asks again every
    few seconds) or the challenged reads it; once accepted, its game (the challenger's
    browser that made it holding the seat)."""
    account = await account_of(request)
    if account is None:
        return redirect(request, "/signin")
    response = redirect(request, "/")
    found = await seen_challenge(request, response, challenge_id)
    if found.game_id is not None:
        response.headers["location"] = f"/play/{found.game_id}"
        return response
    mine = found.challenger_id == account.id
    return page(request, "challenge.html", challenge=pages.challenge_row(found), mine=mine)


@router.post("/challenges/{challenge_id}/accept")
async def challenge_accept(request: Request, challenge_id: str) -> Response:
    response = redirect(request, "/")
    game_id, _secret = await accept_challenge(request, response, challenge_id)
    response.headers["location"] = f"/play/{game_id}"
    return response


@router.post("/challenges/{challenge_id}/decline")
async def challenge_decline(request: Request, challenge_id: str) -> Response:
    account = await challenger_of(request)
    reason = (await request.form()).get("reason")
    await challenges_of(request).answer(challenge_id, account, "decline", reason)
    return redirect(request, "/challenges")


@router.post("/challenges/{challenge_id}/cancel")
async def challenge_cancel(request: Request, challenge_id: str) -> Response:
    account = await challenger_of(request)
    await challenges_of(request).answer(challenge_id, account, "cancel")
    return redirect(request, "/challenges")


@router.get("/review/{game_id}", response_class=HTMLResponse)
async def review_page(request: Request, game_id: str) -> Response:
    """The game and its move list; the page asks for the boards it shows
    (``positions``): all of a long game's boards ran to gigabytes."""
    room = await service_of(request).room(game_id)
    state = await asyncio.to_thread(room.state, language(), Viewer())
    return page(request, "review.html", state=state, positions=state["ply"] + 1)


@router.get("/rules/{game_id}", response_class=HTMLResponse)
async def rules_page(request: Request, game_id: str) -> Response:
    """How to play the game, short and illustrated, one click from its card; the card
    itself for a game whose package has no how-to text."""
    howto = pages.how_to(game_id)
    if howto is None:
        return page(request, "rules.html", rules=pages.rules(game_id))
    return page(request, "howto.html", howto=howto)


@router.get("/rules/{kind}/card", response_class=HTMLResponse)
async def card_page(request: Request, kind: str) -> Response:
    """The game's card: its binding rules, every option, every example drawn; ``kind``
    is a kind of game (a page of no stored game: handed to no process, see handoff)."""
    return page(request, "rules.html", rules=pages.rules(kind), howto=pages.how_to(kind))


@router.get("/learn", response_class=HTMLResponse)
async def learn_page(request: Request) -> Response:
    """Every game's way in: how to play, the lessons (the ones done marked by the
    browser, which keeps them) and the complete rules."""
    return page(request, "learn.html", learning=await asyncio.to_thread(pages.learning))


@router.get("/learn/{kind}/{lesson_id}", response_class=HTMLResponse)
async def lesson_page(request: Request, kind: str, lesson_id: str) -> Response:
    """One lesson: a prepared position, what to do there, and why; played on the
    board by the page, every action read by the server (``/api/board``)."""
    lesson = await asyncio.to_thread(pages.lesson_page, kind, lesson_id)
    return page(request, "lesson.html", lesson=lesson)


@router.get("/analysis/{kind}", response_class=HTMLResponse)
async def analysis_page(
    request: Request,
    kind: str,
    position: str | None = None,
    option: Annotated[list[str], Query()] = [],  # noqa: B006 (FastAPI copies a default)
) -> Response:
    """The analysis board: any position (set up, or opened from a game, a review or a
    lesson), played freely by both sides, with the AI's best lines; its address holds
    the position, so it is shared by its link. A position the rules refuse opens in the
    editor, saying why."""
    board = await asyncio.to_thread(positions.set_up, kind, option, position)
    tools = await asyncio.to_thread(pages.edit_tools, kind)
    return page(request, "analysis.html", board=board, tools=tools)


@router.get("/puzzles", response_class=HTMLResponse)
async def puzzles_page(request: Request) -> Response:
    """Puzzles near the player's rating (kept by the browser), solved by clicks; the
    filters (game, theme) in the address: ``?game=GAME&theme=THEME``."""
    return await puzzle_page(request, "next", None)


@router.get("/puzzles/daily", response_class=HTMLResponse)
async def daily_puzzle_page(request: Request) -> Response:
    """Today's puzzle (UTC), the same for everyone."""
    ratings = ratings_of(request)
    found = await asyncio.to_thread(lambda: puzzles.daily(ratings=ratings.current()))
    return await puzzle_page(request, "daily", found)


@router.get("/puzzles/{puzzle_id}", response_class=HTMLResponse)
async def one_puzzle_page(request: Request, puzzle_id: str) -> Response:
    """One puzzle, by its own link."""
    ratings = ratings_of(request)
    found = await asyncio.to_thread(
        lambda: puzzles.describe(puzzles.find(puzzle_id), ratings.current())
    )
    return await puzzle_page(request, "one", found)


async def puzzle_page(request: Request, mode: str, puzzle: dict[str, Any] | None) -> Response:
    """The puzzles page, with a signed-in player's rating as the account keeps it (the
    page keeps it in the browser too)."""
    games = await asyncio.to_thread(puzzles.games)
    account = await account_of(request)
    ratings = ratings_of(request)
    kept = await asyncio.to_thread(ratings.player, None if account is None else account.id)
    mine = None if kept is None else kept.to_dict()
    return page(request, "puzzles.html", mode=mode, puzzle=puzzle, games=games, player=mine)


@router.get("/games", response_class=HTMLResponse)
async def my_games(request: Request) -> Response:
    return page(request, "games.html", mine=pages.game_list(await games_of(request)))


# ---------------------------------------------------------------------- accounts
@router.get("/@/{name}", response_class=HTMLResponse)
async def profile_page(
    request: Request,
    name: str,
    page_number: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1,
) -> Response:
    """A player's page: their ratings, each game's rating history, their games online
    (a page of them, the latest first), and, for another signed-in player, a challenge."""
    await account_of(request)
    found = await site_of(request).accounts.profile(name[:64], page_number - 1)
    if found is None:
        raise NotFound(_("there is no player named {name!r}").format(name=name[:40]))
    ratings = [
        {
            "game": boardlab.new_game(standing.game).name,
            "standing": standing,
            "chart": pages.rating_chart(found.history.get(standing.game, [])),
        }
        for standing in found.ratings
    ]
    rows = pages.game_list(found.games)
    for row, stored in zip(rows, found.games, strict=True):  # the seats by their accounts
        game = boardlab.new_game(stored.game, **stored.options)
        who = [
            _("{name} ({side})").format(name=found.names[held], side=game.player_name(k))
            if held in found.names
            else game.player_name(k)
            for k, held in enumerate(stored.accounts)
        ]
        row["seats"] = _("{first} vs {second}").format(first=who[0], second=who[1])
        row["outcome"] = pages.outcome_for(stored, found.account.id)
        row["opponent"] = next(
            (
                found.names.get(a, "")
                for a in stored.accounts
                if a is not None and a != found.account.id
            ),
            "",
        )
    return page(
        request,
        "profile.html",
        player=found.account.name,
        bot=found.account.bot,
        ratings=ratings,
        mine=rows,
        page_number=page_number,
        more=found.more,
        games=[(g, boardlab.new_game(g).name) for g in boardlab.game_ids()],
    )


@router.get("/players", response_class=HTMLResponse)
async def players_page(request: Request, game: str = "") -> Response:
    """The leaderboard of one game: the best ratings that are not provisional."""
    games = boardlab.game_ids()
    chosen = game if game in games else games[0]
    best = await site_of(request).accounts.leaderboard(chosen)
    choices = [(g, boardlab.new_game(g).name) for g in games]
    return page(request, "players.html", choices=choices, chosen=chosen, best=best)


@router.get("/signup", response_class=HTMLResponse)
async def sign_up_page(request: Request) -> Response:
    return page(request, "signup.html", typed="", error=None)


@router.post("/signup")
async def sign_up(request: Request) -> Response:
    """A new account, signed in at once; this browser's games become its."""
    return await signed(request, site_of(request).accounts.sign_up, "signup.html", 400)


@router.get("/signin", response_class=HTMLResponse)
async def sign_in_page(request: Request) -> Response:
    return page(request, "signin.html", typed="", error=None)


@router.post("/signin")
async def sign_in(request: Request) -> Response:
    """A new session (never one the browser had); this browser's games become the
    account's. A refusal says the same whether the name exists or not."""
    return await signed(request, site_of(request).accounts.sign_in, "signin.html", 401)


async def signed(request: Request, act: Any, template: str, refused: int) -> Response:
    """The form's name and password given to ``act`` (sign up or in): the session begun
    and the player sent to their games, or the form again with why, status ``refused``."""
    form = await request.form()
    name, password = form.get("name"), form.get("password")
    try:
        _account, token = await act(
            name, password, browser_id(request), client_key(request.scope), session_of(request)
        )
    except (RequestError, SignInRefused) as error:
        shown = name if isinstance(name, str) else ""
        return page(request, template, refused, typed=shown[:40], error=str(error))
    response = redirect(request, "/games")
    begin_session(request, response, token)
    return response


@router.post("/signout")
async def sign_out(request: Request) -> Response:
    """The session ended on the server, its cookie gone."""
    await site_of(request).accounts.sign_out(session_of(request))
    response = redirect(request, "/")
    end_session(request, response)
    return response


@router.get("/account", response_class=HTMLResponse)
async def account_page(request: Request) -> Response:
    account = await account_of(request)
    if account is None:
        return redirect(request, "/signin")
    incoming, _outgoing = await challenges_of(request).of(account)
    done = request.query_params.get("done")
    return page(
        request,
        "account.html",
        done=done,
        error=None,
        challenged=len(incoming),
        admin=await is_admin(request),
    )


@router.post("/account/password")
async def change_password(request: Request) -> Response:
    """A new password; every other session of the account ends."""
    account = await signed_in_account(request)
    form = await request.form()
    try:
        await site_of(request).accounts.change_password(
            account,
            form.get("password"),
            form.get("new_password"),
            session_of(request) or "",
            client_key(request.scope),
        )
    except (RequestError, SignInRefused) as error:
        return account_form(request, account, error, "password")
    return redirect(request, "/account?done=password")


@router.post("/account/delete")
async def delete_account(request: Request) -> Response:
    """The account gone, confirmed by its password; its games stay, its name on them
    replaced."""
    account = await signed_in_account(request)
    form = await request.form()
    try:
        await site_of(request).accounts.delete(
            account, form.get("password"), client_key(request.scope)
        )
    except (RequestError, SignInRefused) as error:
        return account_form(request, account, error, "delete")
    request.state.account = None
    response = page(request, "deleted.html")
    end_session(request, response)
    if unquote(request.cookies.get(NAME, "")) == account.name:  # not offered on forms
        response.delete_cookie(NAME)
    return response


def account_form(request: Request, account: Account, error: BoardlabError, form: str) -> Response:
    code = 401 if isinstance(error, SignInRefused) else 400
    return page(request, "account.html", code, done=None, error=str(error), failed=form)


@router.post("/upload")
async def upload(
    request: Request, record: UploadFile | None = None, pasted: str = Form("")
) -> Response:
    """Keep an uploaded or pasted record to review, and to go on with if it is
    unfinished: its seats are the uploader's alone, as in a game on one screen."""
    site = site_of(request)
    site.count_upload(request)
    if record is not None and record.filename:
        name = clipped(record.filename)
        text = read_upload(await record.read(), name)
    else:
        name = _("the pasted record")
        text = read_upload(pasted.encode(), name)
    try:  # a replay of up to ``limits.actions`` actions: beside the event loop
        loaded = await asyncio.to_thread(GameRecord.read, text, most=site.limits.actions)
        site.check_length(loaded.game)
    except BoardlabError as error:  # a move or a position in a player's words
        raise RequestError(pages.upload_refusal(name, error)) from None
    start = loaded.start
    secret = new_secret()
    new_id = await asyncio.to_thread(
        lambda: site.store.create(
            NewGame(
                loaded.game.id,
                dict(loaded.game.non_default_options()),
                [HUMAN, HUMAN],
                browser_id(request),
                start=None if start == loaded.game.initial() else start.position_string(),
                headers=dict(loaded.headers),
                actions=loaded.action_strings(),
                resigned=loaded.resigned,
                result=loaded.result(),
                seat_keys=[key_of(secret), key_of(secret)],
                ending=loaded.resign_reason
                if loaded.resigned is not None
                else (AGREEMENT if loaded.agreed else None),
            )
        )
    )
    await link(request, new_id)
    response = redirect(request, f"/review/{new_id}")
    hold(request, response, new_id, secret)
    return response


def read_upload(data: bytes, name: str) -> str:
    """The text of an uploaded or pasted record (its size already bounded by
    ``Limits.body``), read as every reader of records reads one (``decode_record_text``)."""
    if not data.strip():
        raise RequestError(
            _("{name} is empty: expected a game record (text or JSON), as a file or pasted").format(
                name=name
            )
        )
    try:
        return decode_record_text(data, name)
    except BoardlabError as error:
        raise RequestError(str(error)) from None
