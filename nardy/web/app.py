"""The FastAPI app of ``nardy serve``: the page, the engine over HTTP, saved games.

Build it with :func:`create_app` (``database_url`` or a :class:`~nardy.web.store.storage.Storage`). The API
is documented by OpenAPI at ``/docs``. Every error is JSON ``{"detail": message, "error": type}``: 422
for malformed input (IDs, dice, options, notation, records, request fields), 400 for an action the rules
do not allow now (out of turn, an illegal play) or a bad Host header, 404 for an unknown saved game, 409
for an action on a state that has moved on (``seq``), 413 for a body over its limit, 429/503 with
``Retry-After`` when the computer is busy or the database is unavailable, 401/403/429 for log-ins and
requests from other sites (:mod:`nardy.web.routers.auth`); see :mod:`nardy.web.errors`.

The routes live in routers: :mod:`nardy.web.routers.positions` (the engine and .mat records),
:mod:`nardy.web.routers.games` (saved games), :mod:`nardy.web.routers.auth` (guests, accounts, log-in sessions) and
:mod:`nardy.web.routers.lobby` (the lobby, ratings, blocks, fair play); they
reach the app's state (``app.state``: the storage, the computer's work, the games' locks, whether seeds
are allowed, whether cookies are Secure, the log-in limits) through the dependencies of
:mod:`nardy.web.deps` and :mod:`nardy.web.routers.auth` (who asks: ``CurrentUser``, ``SignedIn``). Every route
passes :func:`nardy.web.routers.auth.check_request` first (Origin, and the CSRF token of a request made with a
log-in session).

The server is meant to be safe to expose (see docs/security.md): no input is ever a path, every
request body is bounded (:mod:`nardy.web.guard`), the computer's work is queued fairly per client with
a time budget on worker threads of its own (:mod:`nardy.web.botwork`), so cheap requests never wait
behind it, and actions name the state they act on (``seq``), so a retried or doubled action changes
nothing.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from importlib import resources

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from ..rules.position import Position
from ..texts.catalogue import page_catalogue
from . import params
from .botwork import BotWork
from .cluster import Cluster
from .deps import ActionLane, GameId, GameLocks
from .errors import install_error_handlers
from .guard import BODY_LIMIT, Guard
from .routers import (
    auth,
    bots,
    chat,
    diagrams,
    dicetest,
    editor,
    ending,
    fairplay,
    games,
    lobby,
    online,
    positionimport,
    positions,
    profiles,
    review,
    rollouts,
    seeding,
    social,
    streams,
    tokens,
)
from .services import chat as chat_live
from .services import publishing, seats
from .services.live import ClockKeeper, Hub
from .store.storage import Storage

__all__ = ["create_app", "settle_gc"]

_STATIC = resources.files("nardy.web") / "static"

#: The page: index.html (its scripts and styles are mounted at /static).
page = APIRouter()


@page.get("/", include_in_schema=False)
async def index():
    return FileResponse(str(_STATIC / "index.html"), media_type="text/html")


@page.get("/api/catalogue", tags=["page"])
async def catalogue_json() -> JSONResponse:
    """The message catalogue the page reads (:func:`nardy.texts.catalogue.page_catalogue`): every text of the page,
    the shared words and the refusals by code, in each language (``{"langs", "common", "messages", "page"}``,
    each section ``{key: {"en": text, "ru": text}}``; ICU-style plurals)."""
    return JSONResponse(page_catalogue(), headers={"Cache-Control": "public, max-age=300"})


@page.get("/join/{gid}", include_in_schema=False)
async def join_page(gid: GameId):
    """The invitation link opens the page (the token is in the link's fragment, read by the page)."""
    return FileResponse(str(_STATIC / "index.html"), media_type="text/html")


def create_app(
    database_url: str | None = None,
    storage: Storage | None = None,
    *,
    allowed_hosts: list[str] | None = None,
    allow_seeds: bool = False,
    bot_work: BotWork | None = None,
    secure_cookies: bool = False,
) -> FastAPI:
    """The app.

    Args:
        database_url / storage: where saved games live (default: SQLite in the user data directory).
        allowed_hosts: names accepted in the ``Host`` header (see :func:`nardy.web.guard.host_names_for`);
            ``None`` accepts any (in-process clients).
        allow_seeds: accept ``seed`` for new games (reproducible dice: analysis and tests only; a game
            played for real must never have dice that anyone can predict).
        bot_work: the scheduler of the computer's work (default: 2 workers, see :class:`BotWork`).
        secure_cookies: mark the log-in cookies Secure on every answer (the server is reached over https
            through a proxy that does not say so); without it they are Secure on https requests only.
    """
    # FastAPIOffline: /docs and /redoc served from packaged Swagger UI/ReDoc files, no CDN needed.
    app = FastAPIOffline(
        title="nardy",
        summary="Backgammon, short nardy and long nardy: play in the browser, legal plays, best plays, "
        "evaluations and cube decisions over HTTP.",
        description=(
            "Positions are GNU Backgammon Position IDs from the view of the side on roll (long nardy: the "
            "same encoding, optional `:Fxy` first-turn suffix), XGIDs, or wildbg's `p0`..`p25` on `/api/move` "
            "and `/api/eval`; a query parameter a route does not take is refused (422 `unknown_parameter`). "
            "Points are numbered from the mover's view: "
            '25 = bar, 0 = off. Errors are JSON `{"detail": message, "error": type}`: 422 malformed '
            "input, 400 an action the rules refuse now, 404 an unknown saved game, 409 an action on a state "
            "that has moved on (send the view's `seq`), 413 a body too large, 429/503 (with `Retry-After`) "
            "the computer busy or the database unavailable; 401 a log-in needed (or a wrong one), 403 a "
            "request from another site or without the `X-CSRF-Token` of its log-in session, 429 too many "
            "log-ins. Players: `/api/auth/guest`, `/api/auth/register`, `/api/auth/login`, `/api/me`."
        ),
        version=positions.version(),
        lifespan=_lifespan,
        # every route: Origin/CSRF checks, and a query parameter the route does not take is refused
        dependencies=[Depends(auth.check_request), Depends(params.refuse_unknown_query)],
    )
    # the state the routes reach through nardy.web.deps
    app.state.storage = storage if storage is not None else Storage(database_url)
    app.state.bot_work = bot_work if bot_work is not None else BotWork()
    # several processes on one PostgreSQL: notifications between them and one writer per game (nardy.web.cluster)
    app.state.cluster = Cluster(app.state.storage)
    app.state.game_locks = GameLocks(app.state.cluster)
    # what other server processes store reaches this one's live connections (PostgreSQL LISTEN/NOTIFY)
    app.state.cluster.on("game", lambda key: publishing.follow(app, key))  # key: the id, and the change
    app.state.cluster.on_resync(lambda: publishing.publish_all(app))
    app.state.cluster.on("lobby", lambda key: lobby.publish_lobby(app))  # the lobby changed through another process
    app.state.cluster.on("chat", lambda key: chat_live.follow(app, key))  # a chat message stored by another process
    app.state.cluster.on("seats", lambda key: seats.heard(app, key))  # a seat's connections elsewhere (presence)
    app.state.cluster.on_resync(lambda: seats.resend(app))
    app.state.cluster.on_resync(lambda: lobby.publish_lobby(app))
    app.state.action_lane = ActionLane()
    app.state.allow_seeds = allow_seeds
    app.state.hub = Hub()
    app.state.clock_keeper = ClockKeeper(app, online.expire, online.shift)
    app.state.secure_cookies = secure_cookies
    app.state.auth_limits = auth.AuthLimits()
    app.state.presence_keeper = lobby.PresenceKeeper(app)
    app.state.analysis_cache = review.AnalysisCache()
    app.add_middleware(
        Guard,
        allowed_hosts=allowed_hosts,
        body_limit=BODY_LIMIT,
        route_limits={
            "/api/mat": positions.MAT_LIMIT,
            "/api/analyse/xg": review.XG_LIMIT,
            "/api/analyse": review.ANALYSE_BODY_LIMIT,
            "/api/positions/import": positionimport.IMPORT_BODY_LIMIT,
        },
    )
    install_error_handlers(app)
    app.include_router(page)
    app.mount("/static", StaticFiles(directory=str(_STATIC)), name="static")
    app.include_router(positions.router)
    app.include_router(positionimport.router)
    app.include_router(games.router)
    app.include_router(online.router)
    app.include_router(seeding.router)
    app.include_router(auth.router)
    app.include_router(tokens.router)  # issue 44: API tokens (Bearer)
    app.include_router(bots.router)  # issue 44: bot accounts
    app.include_router(streams.router)  # issue 44: event and game streams (NDJSON, WebSocket)
    app.include_router(dicetest.router)
    app.include_router(profiles.router)  # before lobby's /api/players/{uid}
    app.include_router(lobby.router)
    app.include_router(social.router)  # issue 43: follows, settings, declining a named challenge
    app.include_router(fairplay.router)
    app.include_router(ending.router)
    app.include_router(review.router)
    app.include_router(diagrams.router)
    app.include_router(rollouts.router)
    app.include_router(editor.router)
    app.include_router(chat.router)
    return app


@contextlib.asynccontextmanager
async def _lifespan(app):
    keeper = app.state.clock_keeper
    cluster = app.state.cluster
    app.state.bot_work.open()
    await cluster.start()
    # the time the server was down is given back to the running clocks, then they are kept
    try:
        await keeper.resume()
    except Exception:  # the database may be down at start: the keeper's rounds try again
        logging.getLogger("nardy.web").warning("could not resume the clocks", exc_info=True)
    keeper.start()
    app.state.presence_keeper.start()
    if getattr(app.state, "freeze_gc", False):
        settle_gc()
    yield
    await app.state.presence_keeper.stop()
    await keeper.stop()
    await cluster.stop()
    app.state.bot_work.close()


def settle_gc() -> None:
    """Tune CPython's garbage collector for a long-running server process (``nardy serve`` calls this once
    the app has started, ``app.state.freeze_gc``; apps made in-process, as tests make hundreds, do not):

    * what the process holds once started (the app, its routes and models, the engine's kernels loaded from
      numba's cache: some 200,000 objects) is left out of every later collection (:func:`gc.freeze`, after
      one full collection);
    * a full collection is considered after :data:`FULL_GC_EVERY` collections of the middle generation
      instead of CPython's 10 (the young generations keep CPython's thresholds). Each full collection walks
      every live object (a process with 500 live connections holds some 150,000 of them: the connections'
      coroutines, buffers and locks) and stops the event loop meanwhile, for a few hundred cyclic objects.

    Measured with bench/online_load.py (1,000 players, 500 games, two processes, 2 cores; docs/deploy.md
    "Capacity"): with CPython's settings 27 full collections in a minute and a half, each pausing a process
    for 30-530 ms; frozen, still 27 (up to 300 ms); frozen and considered every 50, 4-6 (up to 130 ms), and
    the action-to-opponent p99 from 360-780 ms to 62-110 ms. Reference cycles left are collected all the same,
    only less often (a process's RSS did not change: 288-296 MB)."""

    for game in ("backgammon", "short", "long"):
        Position.start(game).legal_plays((3, 1))  # the kernels loaded from numba's cache before the freeze
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_GC_EVERY)


#: Collections of the middle generation after which a full collection is considered (CPython: 10); see
#: :func:`settle_gc`.
FULL_GC_EVERY = 50
