"""The FastAPI app of ``nardy serve``: the page, the engine over HTTP, saved games.

Build it with :func:`create_app` (``database_url`` or a :class:`~nardy.web.storage.Storage`). The API
is documented by OpenAPI at ``/docs``. Every error is JSON ``{"detail": message, "error": type}``: 422
for malformed input (IDs, dice, options, notation, records, request fields), 400 for an action the rules
do not allow now (out of turn, an illegal play) or a bad Host header, 404 for an unknown saved game, 409
for an action on a state that has moved on (``seq``), 413 for a body over its limit, 429/503 with
``Retry-After`` when the computer is busy or the database is unavailable.

The server is meant to be safe to expose (see docs/security.md): no input is ever a path, every
request body is bounded (:mod:`nardy.web.guard`), the computer's work is queued fairly per client with
a time budget on worker threads of its own (:mod:`nardy.web.botwork`), so cheap requests never wait
behind it, and actions name the state they act on (``seq``), so a retried or doubled action changes
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import unicodedata
import zlib
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.concurrency import run_in_threadpool

from ..errors import GameStateError, IllegalPlayError, InvalidOptionError, NardyError, NotationError
from ..messages import LANGS, describe
from ..numbering import SCHEMES
from .botwork import BotWork, Busy, ClientGone
from .guard import BODY_LIMIT, Guard
from .sessions import ACTIONS, BOT_LEVELS, NUMBERINGS, Session, new_session
from .storage import StaleRevision, Storage, StorageUnavailable

__all__ = ["create_app"]

Level = Literal[tuple(BOT_LEVELS)]
Numbering = Literal[SCHEMES]

_STATIC = resources.files("nardy.web") / "static"
_GAME = Query(
    "backgammon",
    max_length=40,
    description="backgammon, short (short nardy) or long (long nardy); "
    "aliases such as long-nardy, narde, trictrac accepted",
)
#: Largest .mat record accepted (bytes): the longest real record we know is under 200 KB.
_MAT_LIMIT = 1024 * 1024
_GID = Path(..., min_length=1, max_length=32, pattern=r"^[0-9A-Za-z_-]+$", description="saved game id")


_NAME_MAX = 40
_NAME_BAD = ':"'


def _check_name(name: str, i: int) -> str:
    """A player's name as it can be written to (and read back from) a .mat score line."""
    name = name.strip()
    if not name:
        raise ValueError(f"player {i + 1}'s name is empty")
    if len(name) > _NAME_MAX:
        raise ValueError(f"player {i + 1}'s name is {len(name)} characters long; at most {_NAME_MAX}")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError(f"player {i + 1}'s name {name[:_NAME_MAX]!r} contains a control character")
    bad = sorted({c for c in name if c in _NAME_BAD})
    if bad:
        raise ValueError(
            f"player {i + 1}'s name {name!r} contains {' and '.join(map(repr, bad))}, which a .mat record cannot hold"
        )
    return name


def _clean_message(msg) -> str:
    """A validation message without pydantic's 'For further information visit ...' tail."""
    msg = str(msg)
    msg = re.sub(r"\s*For further information visit \S+", "", msg)
    msg = re.sub(r"\s*\[type=[^\]]*\]", "", msg).strip()
    return msg[len("Value error, ") :] if msg.startswith("Value error, ") else msg


# ----- request and response models ------------------------------------------------------------------
class NewGame(BaseModel):
    """Settings of a new saved game (a match, or a money session with ``length`` 0)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(
        "backgammon",
        description="backgammon, short (short nardy) or long (long nardy); aliases accepted",
        max_length=40,
    )
    length: int = Field(0, ge=0, le=99, description="match length in points; 0 = money session")
    opponent: Literal["bot", "human"] = Field("bot", description="the computer, or a second person at this device")
    level: Level = Field("advanced", description="the computer's level")
    colour: Literal["white", "black", "random"] = Field("white", description="the person's side against the computer")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="rules options with RULES.md names: cube, "
        "opening, last-roll, head-exception, strict-bear-off, scoring",
    )
    players: list[str] | None = Field(None, min_length=2, max_length=2, description="the two names")
    seed: int | None = Field(
        None,
        ge=0,
        le=2**62,
        description="seed of the dice and the computer (reproducible "
        "games for analysis and tests; refused unless the server allows seeded dice)",
    )
    auto_roll: bool = Field(True, description="roll for a person by itself when doubling is not possible")
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = Field(None, ge=1, le=2**20)

    @field_validator("players")
    @classmethod
    def _check_players(cls, v):
        return None if v is None else [_check_name(x, i) for i, x in enumerate(v)]


class Action(BaseModel):
    """An action on a saved game by a person at this device."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    action: Literal[ACTIONS] = Field(
        ...,
        description="roll, step (one checker, from/to), undo (the last step), "
        "confirm, play (whole play in notation), double, take, drop, beaver, "
        "resign (level), accept, decline (a resignation), next (game)",
    )
    from_: int | None = Field(
        None, alias="from", ge=0, le=25, description="step: from point in the viewer's numbering (25 = the mover's bar)"
    )
    to: int | None = Field(None, ge=0, le=25, description="step: to point in the viewer's numbering (0 = off)")
    die: int | None = Field(None, ge=1, le=6, description="step: the die to use when a bear-off could use either")
    play: str | None = Field(None, max_length=200, description="play: notation in the mover's own numbering")
    level: int | str | None = Field(None, description="resign: level index or name (single, gammon, oyun, mars...)")
    player: int | None = Field(None, ge=0, le=1, description="who acts (default: the person who must act)")
    seq: int = Field(
        ...,
        ge=0,
        le=2**62,
        description="the `seq` of the view this action was chosen on: an action "
        "on a state that has moved on (a retry, a double click) is refused with 409 and changes "
        "nothing",
    )


class MatText(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(..., max_length=_MAT_LIMIT, description="the .mat record")


class StepOut(BaseModel):
    from_: int = Field(..., alias="from")
    to: int
    die: int
    hit: bool


class PlayOut(BaseModel):
    play: str = Field(..., description="notation (mover's numbering; '' when nothing can move)")
    steps: list[StepOut]
    position: str = Field(..., description="Position ID after the play, from the mover's view (sides not swapped)")


class PlaysOut(BaseModel):
    game: str
    position: str
    dice: list[int]
    plays: list[PlayOut]


class RankedPlay(PlayOut):
    equity: float = Field(..., description="cubeless money equity after the play, mover's view")
    loss: float = Field(..., description="equity given up against the best play")
    ply: int
    probabilities: dict[str, float] = Field(..., description="result probabilities after the play, mover's view")


class MoveOut(BaseModel):
    game: str
    position: str
    dice: list[int]
    level: str
    play: str = Field(..., description="the best play")
    result: str = Field(..., description="Position ID after the best play")
    moves: list[RankedPlay]
    complete: bool = Field(
        ...,
        description="false when the time budget cut the search short: plays not reached "
        "keep the figures of a shallower ply",
    )


class EvalOut(BaseModel):
    game: str
    position: str
    level: str
    ply: int
    result_levels: list[str]
    probabilities: dict[str, float] = Field(..., description="cumulative: win, win_<level>..., lose_<level>..., lose")
    exclusive: dict[str, dict[str, float]] = Field(..., description="P(exactly each result level), per side")
    equity: float = Field(..., description="cubeless money equity of the side on roll")


class CubeOut(BaseModel):
    game: str
    position: str
    action: str = Field(..., description="for the side on roll: double / no double")
    double: bool
    take: bool = Field(..., description="the opponent should take a double")
    response: str = Field(..., description="take / pass")
    too_good: bool
    reason: str
    equities: dict[str, float]
    probabilities: dict[str, float]


# ----- helpers ------------------------------------------------------------------------------------------
_UNPROCESSABLE = (NotationError,)
_REFUSED = (GameStateError, IllegalPlayError)


def _lang(request: Request | None) -> str:
    """The player's language: ``?lang=ru|en``, else the first of ``Accept-Language`` we have, else English."""
    if request is None:
        return "en"
    q = request.query_params.get("lang", "")
    if q in LANGS:
        return q
    for part in request.headers.get("accept-language", "")[:200].split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGS:
            return tag
    return "en"


def _error(
    status: int,
    message: str,
    kind: str,
    code: str | None = None,
    params: dict | None = None,
    *,
    request: Request | None = None,
    **extra,
) -> JSONResponse:
    """The JSON error answer: ``detail`` (English detail for programs and logs), ``error`` (the type),
    ``code`` and ``params`` (:mod:`nardy.errors`), and ``message``: the refusal worded for the player from
    the message catalogue (:mod:`nardy.messages`) in their language (``?lang=`` or ``Accept-Language``),
    points labelled as the page shows them when the route knows the game."""
    code = code or _KIND_CODES.get(kind, "invalid_request")
    wording = getattr(request.state, "wording", None) if request is not None else None
    text = describe(code, params, _lang(request), **(wording or {}))
    return JSONResponse(
        {"detail": message, "error": kind, "code": code, "params": params or {}, "message": text, **extra},
        status_code=status,
    )


#: Codes of the errors the app raises itself (the engine's errors carry their own).
_KIND_CODES = {
    "RequestValidationError": "invalid_request",
    "NotFound": "not_found",
    "StaleAction": "stale_action",
    "Busy": "busy",
    "TooManyRequests": "too_many_requests",
    "DatabaseUnavailable": "database_unavailable",
    "RequestTooLarge": "too_large",
    "Conflict": "conflict",
    "MethodNotAllowed": "method_not_allowed",
    "ClientGone": "client_gone",
    "RecordError": "bad_record",
    "InvalidOptionError": "invalid_option",
    "HTTPError": "http_error",
}


def _status_for(e: NardyError) -> int:
    if isinstance(e, _UNPROCESSABLE):
        return 422
    if isinstance(e, _REFUSED):
        return 400
    return 422


def _check_dice(die1, die2):
    from ..position import check_dice

    return check_dice((die1, die2))


def _position(game: str, position: str | None):
    from ..position import Position
    from ..rules import get_rules

    rules = get_rules(game)
    return Position.from_id(position, rules) if position else Position.start(rules)


def _steps(play) -> list[dict]:
    return [{"from": s.frm, "to": s.to, "die": s.die, "hit": bool(s.hit)} for s in play.steps]


def _bot(game, level: str, seed=0):
    from ..bots import Bot

    return Bot(game, level=level, seed=seed)


def _client(request: Request) -> str:
    """Whom a request's computer work is counted against (fair share): the peer address."""
    return request.client.host if request.client else "unknown"


def create_app(
    database_url: str | None = None,
    storage: Storage | None = None,
    *,
    allowed_hosts: list[str] | None = None,
    allow_seeds: bool = False,
    bot_work: BotWork | None = None,
) -> FastAPI:
    """The app.

    Args:
        database_url / storage: where saved games live (default: SQLite in the user data directory).
        allowed_hosts: names accepted in the ``Host`` header (see :func:`nardy.web.guard.host_names_for`);
            ``None`` accepts any (in-process clients).
        allow_seeds: accept ``seed`` for new games (reproducible dice: analysis and tests only; a game
            played for real must never have dice that anyone can predict).
        bot_work: the scheduler of the computer's work (default: 2 workers, see :class:`BotWork`).
    """
    store = storage if storage is not None else Storage(database_url)
    work = bot_work if bot_work is not None else BotWork()
    # FastAPIOffline: /docs and /redoc served from packaged Swagger UI/ReDoc files, no CDN needed.
    app = FastAPIOffline(
        title="nardy",
        summary="Backgammon, short nardy and long nardy: play in the browser, legal plays, best plays, "
        "evaluations and cube decisions over HTTP.",
        description=(
            "Positions are GNU Backgammon Position IDs from the view of the side on roll (long nardy: the "
            "same encoding, optional `:Fxy` first-turn suffix). Points are numbered from the mover's view: "
            '25 = bar, 0 = off. Errors are JSON `{"detail": message, "error": type}`: 422 malformed '
            "input, 400 an action the rules refuse now, 404 an unknown saved game, 409 an action on a state "
            "that has moved on (send the view's `seq`), 413 a body too large, 429/503 (with `Retry-After`) "
            "the computer busy or the database unavailable."
        ),
        version=_version(),
        lifespan=_lifespan,
    )
    app.state.storage = store
    app.state.bot_work = work
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, body_limit=BODY_LIMIT, route_limits={"/api/mat": _MAT_LIMIT})
    # One game's actions run one at a time in this process (striped locks, per event loop); across
    # processes the revision check of Storage.save refuses the second writer.
    locks: dict[tuple[int, int], asyncio.Lock] = {}

    def lock_for(gid: str) -> asyncio.Lock:
        key = (id(asyncio.get_running_loop()), zlib.crc32(gid.encode()) % 256)
        lock = locks.get(key)
        if lock is None:
            lock = locks[key] = asyncio.Lock()
        return lock

    async def compute(request: Request, fn, budget: float | None = None):
        """Run ``fn(deadline)`` as computer work for this request's client."""
        return await work.run(_client(request), fn, is_disconnected=request.is_disconnected, budget=budget)

    # ----- errors ---------------------------------------------------------------------------------------
    @app.exception_handler(NardyError)
    async def nardy_error(request: Request, e: NardyError):
        return _error(_status_for(e), str(e), type(e).__name__, e.code, e.params, request=request)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, e: RequestValidationError):
        errs = e.errors()
        parts = []
        for er in errs[:5]:
            loc = ".".join(str(x) for x in er.get("loc", ()) if x != "body") or "request"
            parts.append(f"{loc}: {_clean_message(er.get('msg', 'invalid'))}")
        clean = [
            {"loc": list(er.get("loc", ())), "msg": _clean_message(er.get("msg")), "type": er.get("type")}
            for er in errs
        ]
        return _error(
            422, "; ".join(parts) or "invalid request", "RequestValidationError", request=request, errors=clean
        )

    @app.exception_handler(Busy)
    async def busy(request: Request, e: Busy):
        r = _error(
            e.status,
            e.message,
            "Busy" if e.status == 503 else "TooManyRequests",
            request=request,
            retry_after=e.retry_after,
        )
        r.headers["Retry-After"] = str(e.retry_after)
        return r

    @app.exception_handler(ClientGone)
    async def client_gone(request: Request, e: ClientGone):
        # nobody reads this answer: the client closed the connection (nginx's 499)
        return _error(499, "client closed the request", "ClientGone", request=request)

    @app.exception_handler(StorageUnavailable)
    async def storage_down(request: Request, e: StorageUnavailable):
        r = _error(503, str(e), "DatabaseUnavailable", request=request, retry_after=5)
        r.headers["Retry-After"] = "5"
        return r

    # ----- the page -------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(str(_STATIC / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(_STATIC)), name="static")

    # ----- engine ---------------------------------------------------------------------------------------
    @app.get("/api/health", tags=["engine"], summary="Liveness: the database answers (503 when it does not)")
    async def health():
        await run_in_threadpool(store.ping)
        return {"status": "ok", "version": _version(), "database": store.backend, "bot_work": work.stats()}

    @app.get("/api/info", tags=["engine"], summary="Games, options, levels and numberings the server knows")
    async def info():
        from ..rules import RESULT_NAMES, get_rules

        return {
            "games": {
                g: {
                    "result_names": list(RESULT_NAMES[g]),
                    "options": get_rules(g).options(),
                    "numberings": list(NUMBERINGS[g]),
                }
                for g in ("backgammon", "short", "long")
            },
            "levels": list(BOT_LEVELS),
            "actions": list(ACTIONS),
            "version": _version(),
            "seeded_dice": allow_seeds,
        }

    @app.get(
        "/api/plays",
        tags=["engine"],
        response_model=PlaysOut,
        response_model_by_alias=True,
        summary="Every legal play for a position and roll",
    )
    async def plays(
        game: str = _GAME,
        position: str | None = Query(None, max_length=40, description="Position ID (default: start)"),
        die1: int = Query(..., ge=1, le=6),
        die2: int = Query(..., ge=1, le=6),
        numbering: Literal["own", "absolute"] = Query("own", description="long nardy: absolute"),
        side: Literal["white", "black"] = Query("white", description="with absolute numbering"),
    ):
        def run():
            pos = _position(game, position)
            dice = _check_dice(die1, die2)
            if numbering not in NUMBERINGS[pos.game]:
                raise InvalidOptionError("numbering absolute is for long nardy only")
            out = []
            for p in pos.legal_plays(dice):
                text = p.notation(numbering, side) if numbering != "own" else str(p)
                out.append({"play": text, "steps": _steps(p), "position": p.result.id()})
            return {"game": pos.game, "position": pos.id(), "dice": list(dice), "plays": out}

        return await run_in_threadpool(run)

    @app.get(
        "/api/move",
        tags=["engine"],
        response_model=MoveOut,
        response_model_by_alias=True,
        summary="The best play and the ranked candidates (like wildbg's /move)",
    )
    async def move(
        request: Request,
        game: str = _GAME,
        position: str | None = Query(None, max_length=40),
        die1: int = Query(..., ge=1, le=6),
        die2: int = Query(..., ge=1, le=6),
        level: Level = Query("grandmaster", description="search depth of that level"),
        n: int = Query(5, ge=1, le=100, description="how many plays to list"),
    ):
        pos = _position(game, position)
        dice = _check_dice(die1, die2)
        if pos.is_game_over():
            raise GameStateError(f"position {pos.id()} is a finished game: no play")

        def run(deadline):
            hs = _bot(pos.rules, level).hints(pos, dice, n=n, deadline=deadline)
            moves = [
                {
                    "play": str(h.play),
                    "steps": _steps(h.play),
                    "position": h.play.result.id(),
                    "equity": round(h.equity, 5),
                    "loss": round(h.loss, 5),
                    "ply": h.ply,
                    "probabilities": {k: round(x, 5) for k, x in h.probabilities.as_dict().items()},
                }
                for h in hs
            ]
            return {
                "game": pos.game,
                "position": pos.id(),
                "dice": list(dice),
                "level": level,
                "play": moves[0]["play"],
                "result": moves[0]["position"],
                "moves": moves,
                "complete": not deadline.hit,
            }

        return await compute(request, run)

    @app.get(
        "/api/eval",
        tags=["engine"],
        response_model=EvalOut,
        summary="Result probabilities of a position for the side on roll (like wildbg's /eval)",
    )
    async def evaluate(
        request: Request,
        game: str = _GAME,
        position: str | None = Query(None, max_length=40),
        level: Level = Query("grandmaster", description="grandmaster and expert evaluate at 1-ply"),
    ):
        pos = _position(game, position)

        def run(deadline):
            bot = _bot(pos.rules, level)
            pr = bot.evaluate(pos)
            return {
                "game": pos.game,
                "position": pos.id(),
                "level": level,
                "ply": min(bot.ply or 0, 1),
                "result_levels": list(pos.rules.result_names),
                "probabilities": {k: round(x, 5) for k, x in pr.as_dict().items()},
                "exclusive": {s: {k: round(x, 5) for k, x in d.items()} for s, d in pr.exclusive().items()},
                "equity": round(pr.equity(pos.rules.scoring), 5),
            }

        return await compute(request, run)

    @app.get(
        "/api/cube",
        tags=["engine"],
        response_model=CubeOut,
        summary="Cube decision for the side on roll: double or not, and take or pass for the opponent",
    )
    async def cube(
        request: Request,
        game: str = _GAME,
        position: str | None = Query(None, max_length=40),
        cube: int = Query(1, ge=1, le=2**20, description="cube value (a power of two)"),
        owner: Literal["centre", "me", "opponent"] = Query("centre", description="who owns the cube"),
        length: int = Query(0, ge=0, le=99, description="match length; 0 = money"),
        score_me: int = Query(0, ge=0, le=99),
        score_opponent: int = Query(0, ge=0, le=99),
        crawford: bool = Query(False),
        jacoby: bool = Query(False),
        level: Level = Query("grandmaster"),
    ):
        from ..game import Game

        pos = _position(game, position)
        if cube & (cube - 1):
            raise InvalidOptionError(f"cube value {cube}: expected a power of two")
        if length and (score_me >= length or score_opponent >= length):
            raise InvalidOptionError(f"score {score_me}-{score_opponent} is not below the match length {length}")
        if crawford and not length:
            raise InvalidOptionError(
                "crawford: the Crawford rule applies only to match play; money play (length 0) has no Crawford game"
            )
        if crawford and [score_me, score_opponent].count(length - 1) != 1:
            raise InvalidOptionError(
                f"crawford: at {score_me}-{score_opponent} in a {length}-point match this "
                f"cannot be the Crawford game (exactly one side must be at {length - 1}, "
                "one point from winning)"
            )

        def run(deadline):
            g = Game.from_position(
                pos,
                turn=0,
                cube=True,
                crawford=crawford,
                jacoby=jacoby,
                cube_value=cube,
                cube_owner={"centre": None, "me": 0, "opponent": 1}[owner],
            )
            d = _bot(pos.rules, level).cube_action(g, score=(score_me, score_opponent), match_length=length)
            return {
                "game": pos.game,
                "position": pos.id(),
                "action": d.action,
                "double": d.double,
                "take": d.take,
                "response": "take" if d.take else "pass",
                "too_good": d.too_good,
                "reason": d.reason,
                "equities": {k: round(float(x), 5) for k, x in d.equities.items()},
                "probabilities": {k: round(x, 5) for k, x in d.probabilities.as_dict().items()},
            }

        return await compute(request, run)

    @app.post(
        "/api/mat",
        tags=["records"],
        summary="Import a .mat record: replay it through the rules",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "text/plain": {"schema": {"type": "string", "maxLength": _MAT_LIMIT}},
                    "application/json": {"schema": MatText.model_json_schema()},
                },
            }
        },
    )
    async def import_mat(
        request: Request,
        save: bool = Query(False, description="also store it as a saved game to view or continue"),
        numbering: Numbering = Query("own"),
    ):
        raw = await request.body()
        if len(raw) > _MAT_LIMIT:
            return _error(
                413, f"record too large ({len(raw)} bytes; at most {_MAT_LIMIT})", "RequestTooLarge", request=request
            )
        ctype = request.headers.get("content-type", "")
        if "json" in ctype:
            try:
                text = MatText.model_validate_json(raw).text
            except ValidationError as e:
                why = "; ".join(
                    f"{'.'.join(str(x) for x in er.get('loc', ())) or 'body'}: "
                    f"{_clean_message(er.get('msg', 'invalid'))}"
                    for er in e.errors()[:5]
                )
                return _error(422, f'expected JSON {{"text": "..."}}: {why}', "RequestValidationError", request=request)
        else:
            text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            return _error(422, "empty record: send the .mat text as the request body", "RecordError", request=request)

        def run(deadline):
            # the text is only ever parsed as a record: never taken for a file name
            from ..records.mat import match_summary, parse_mat, replay

            m = replay(parse_mat(text))
            out = {"record": match_summary(m)}
            if save:
                out["session"] = _imported_session(m)
            return out

        out = await compute(request, run)
        if save:
            s = out.pop("session")
            saved = await run_in_threadpool(
                store.create, s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary()
            )
            out["id"] = saved.id
        return out

    # ----- saved games ----------------------------------------------------------------------------------
    def load(gid: str) -> tuple:
        saved = store.get(gid)
        if saved is None:
            raise HTTPException(404, f"no saved game {gid!r}")
        return saved, Session.from_dict(saved.data)

    def store_session(saved, s: Session):
        saved.data = s.to_dict()
        saved.status = s.status
        saved.title = s.title()
        saved.summary = s.summary()
        try:
            store.save(saved)
        except KeyError:
            raise HTTPException(404, f"no saved game {saved.id!r}: it was deleted") from None
        except StaleRevision:
            raise HTTPException(409, "the game changed while this action was under way; reload it") from None

    def listing(saved) -> dict:
        return {
            "id": saved.id,
            "created": saved.created.isoformat(),
            "updated": saved.updated.isoformat(),
            "game": saved.game,
            "status": saved.status,
            "title": saved.title,
            **saved.summary,
        }

    def shown(gid: str, saved, s: Session, viewer, numbering: str) -> dict:
        return {"id": gid, "seq": saved.revision, **s.view(viewer, _numbering(s, numbering))}

    @app.get("/api/games", tags=["games"], summary="Saved games, most recently played first")
    async def list_games(
        limit: int = Query(50, ge=1, le=500),
        offset: int = Query(0, ge=0, le=10**9),
        status: Literal["playing", "game-over", "over"] | None = Query(None),
    ):
        rows = await run_in_threadpool(store.list, limit, offset, status)
        return {"games": [listing(r) for r in rows]}

    @app.post(
        "/api/games",
        tags=["games"],
        status_code=201,
        summary="Start a new game (the opening is played; the computer moves if it starts)",
    )
    async def create_game(request: Request, body: NewGame, numbering: Numbering = Query("own")):
        if body.seed is not None and not allow_seeds:
            return _error(
                422,
                "seed: this server rolls unpredictable dice for games played for real; seeded "
                "(reproducible) dice are for analysis and tests (nardy serve --allow-seeded-dice)",
                "InvalidOptionError",
                "seeded_dice_off",
                request=request,
            )

        def make():
            return new_session(
                body.game,
                length=body.length,
                opponent=body.opponent,
                level=body.level,
                colour=body.colour,
                options=body.options,
                players=body.players,
                seed=body.seed,
                auto_roll=body.auto_roll,
                crawford=body.crawford,
                jacoby=body.jacoby,
                beavers=body.beavers,
                cube_limit=body.cube_limit,
                run=False,
            )

        s = await run_in_threadpool(make)
        if s.bots_to_act():
            await compute(request, s.run_bots)

        def run():
            view = s.view(numbering=_numbering(s, numbering))
            saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary())
            return {"id": saved.id, "seq": saved.revision, **view}

        return await run_in_threadpool(run)

    def _numbering(s: Session, numbering: str) -> str:
        # a numbering that the game does not have falls back to the players' own
        return numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"

    @app.get("/api/games/{gid}", tags=["games"], summary="A saved game as the page draws it")
    async def get_game(
        gid: str = _GID,
        viewer: int | None = Query(None, ge=0, le=1, description="whose side is at the bottom (default: the person's)"),
        numbering: Numbering = Query("own"),
    ):
        def run():
            saved, s = load(gid)
            return shown(gid, saved, s, viewer, numbering)

        return await run_in_threadpool(run)

    @app.delete("/api/games/{gid}", tags=["games"], status_code=204, summary="Delete a saved game")
    async def delete_game(gid: str = _GID):
        async with lock_for(gid):
            if not await run_in_threadpool(store.delete, gid):
                raise HTTPException(404, f"no saved game {gid!r}")
        return Response(status_code=204)

    @app.post(
        "/api/games/{gid}/actions",
        tags=["games"],
        summary="Act on a saved game (roll, step, confirm, double, take...); the computer answers",
    )
    async def act(
        request: Request,
        body: Action,
        gid: str = _GID,
        viewer: int | None = Query(None, ge=0, le=1),
        numbering: Numbering = Query("own"),
    ):
        async with lock_for(gid):
            saved, s = await run_in_threadpool(load, gid)
            request.state.wording = s.wording(numbering, viewer)
            if body.seq != saved.revision:
                return _error(
                    409,
                    f"stale action: it was chosen on state {body.seq} but the game is at state "
                    f"{saved.revision} (a repeated or late request); nothing was done; reload the game",
                    "StaleAction",
                    request=request,
                    seq=saved.revision,
                )

            def apply():
                s.act(
                    body.action,
                    frm=body.from_,
                    to=body.to,
                    die=body.die,
                    play=body.play,
                    level=body.level,
                    player=body.player,
                    viewer=viewer,
                    run=False,
                )

            await run_in_threadpool(apply)
            if s.bots_to_act():
                # the person's action and the computer's answer are stored together, or not at all
                await compute(request, s.run_bots)

            def finish():
                store_session(saved, s)
                return shown(gid, saved, s, viewer, numbering)

            return await run_in_threadpool(finish)

    @app.get(
        "/api/games/{gid}/hints",
        tags=["games"],
        summary="Hint for the side to act: the best plays with equities, or the cube decision",
    )
    async def hints(
        request: Request,
        gid: str = _GID,
        n: int = Query(5, ge=1, le=50),
        level: Level = Query("grandmaster"),
        numbering: Numbering = Query("own"),
    ):
        saved, s = await run_in_threadpool(load, gid)
        request.state.wording = s.wording(numbering)
        return await compute(
            request, lambda deadline: s.hints(n=n, level=level, numbering=_numbering(s, numbering), deadline=deadline)
        )

    @app.get(
        "/api/games/{gid}/mat",
        tags=["games"],
        response_class=PlainTextResponse,
        summary="The record as a Jellyfish .mat file",
    )
    async def get_mat(gid: str = _GID):
        def run():
            from ..records.mat import write_mat

            saved, s = load(gid)
            return write_mat(s.match)

        text = await run_in_threadpool(run)
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="nardy-{gid}.mat"'})

    @app.get("/api/games/{gid}/record", tags=["games"], summary="Every game's plays and results, and the score")
    async def get_record(gid: str = _GID):
        def run():
            from ..records.mat import match_summary

            saved, s = load(gid)
            # what decides the dice (a seed) is never shown: only whether the dice were seeded
            settings = {k: v for k, v in s.settings.items() if k != "seed"}
            settings["seeded"] = s.settings.get("seed") is not None
            return {"id": gid, "status": s.status, "settings": settings, "record": match_summary(s.match)}

        return await run_in_threadpool(run)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, e: HTTPException):
        return _error(e.status_code, str(e.detail), _http_kind(e.status_code), request=request)

    from starlette.exceptions import HTTPException as StarletteHTTPException

    @app.exception_handler(StarletteHTTPException)
    async def starlette_error(request: Request, e: StarletteHTTPException):
        return _error(e.status_code, str(e.detail), _http_kind(e.status_code), request=request)

    return app


@contextlib.asynccontextmanager
async def _lifespan(app):
    yield
    app.state.bot_work.close()


def _http_kind(status: int) -> str:
    return {404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict", 413: "RequestTooLarge"}.get(status, "HTTPError")


def _imported_session(m) -> Session:
    """A saved game (two people at this device) continuing the replayed match ``m``."""
    from ..dice import SystemDice
    from ..match import Match

    md = m.to_dict()
    if m.current is not None and m.current.phase == "opening":
        # a record cut after a game's header: that game has not begun; drop it and begin it
        # afresh below (with its opening roll), so the saved game can be played on
        md["games"] = md["games"][:-1]
    m2 = Match.from_dict(md, dice=SystemDice())
    s = Session(
        m2,
        {
            "humans": [True, True],
            "level": "advanced",
            "seed": None,
            "auto_roll": True,
            "viewer": 0,
            "opponent": "human",
        },
    )
    if (m2.current is None or m2.current.is_over) and not m2.is_over and len(m2.games) < len(m.games):
        m2.new_game(start=True)
    elif m2.current is None:
        m2.new_game(start=True)
    return s


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("nardy")
    except Exception:  # pragma: no cover
        return "0"
