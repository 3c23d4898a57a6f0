"""The FastAPI app of ``nardy serve``: the page, the engine over HTTP, saved games.

Build it with :func:`create_app` (``database_url`` or a :class:`~nardy.web.storage.Storage`). The API
is documented by OpenAPI at ``/docs``. Bad input gets a 4xx answer with JSON ``{"detail": message,
"error": type}``: 422 for malformed input (IDs, dice, options, notation, records, request fields), 400
for an action the rules do not allow now (out of turn, an illegal play), 404 for an unknown saved game.

Every route that touches the database or the engine runs in a worker thread, so a bot thinking or a
slow query never blocks other requests; bot computations are limited to two at once.
"""

from __future__ import annotations

import re
import threading
import unicodedata
import zlib
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.concurrency import run_in_threadpool

from ..errors import GameStateError, IllegalPlayError, InvalidOptionError, NardyError, NotationError
from .sessions import _BOT_SLOTS as _bot_slots
from .sessions import ACTIONS, BOT_LEVELS, NUMBERINGS, Session, new_session
from .storage import Storage

__all__ = ["create_app"]

Level = Literal[tuple(BOT_LEVELS)]
Numbering = Literal["own", "absolute", "traditional"]

_STATIC = resources.files("nardy.web") / "static"
_GAME = Query("backgammon", max_length=40, description="backgammon, short (short nardy) or long (long nardy); "
                                                       "aliases such as long-nardy, narde, trictrac accepted")
_MAT_LIMIT = 5 * 1024 * 1024


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
        raise ValueError(f"player {i + 1}'s name {name!r} contains {' and '.join(map(repr, bad))}, "
                         "which a .mat record cannot hold")
    return name


def _clean_message(msg) -> str:
    """A validation message without pydantic's 'For further information visit ...' tail."""
    msg = str(msg)
    msg = re.sub(r"\s*For further information visit \S+", "", msg)
    msg = re.sub(r"\s*\[type=[^\]]*\]", "", msg).strip()
    return msg[len("Value error, "):] if msg.startswith("Value error, ") else msg


# ----- request and response models ------------------------------------------------------------------
class NewGame(BaseModel):
    """Settings of a new saved game (a match, or a money session with ``length`` 0)."""
    model_config = ConfigDict(extra="forbid")
    game: str = Field("backgammon", description="backgammon, short (short nardy) or long (long nardy); aliases "
                                                "accepted", max_length=40)
    length: int = Field(0, ge=0, le=99, description="match length in points; 0 = money session")
    opponent: Literal["bot", "human"] = Field("bot", description="the computer, or a second person at this device")
    level: Level = Field("advanced", description="the computer's level")
    colour: Literal["white", "black", "random"] = Field("white", description="the person's side against the computer")
    options: dict[str, Any] = Field(default_factory=dict, description="rules options with RULES.md names: cube, "
                                    "opening, last-roll, head-exception, strict-bear-off, scoring")
    players: list[str] | None = Field(None, min_length=2, max_length=2, description="the two names")
    seed: int | None = Field(None, ge=0, le=2**62, description="seed of the dice and the computer (reproducible)")
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
    action: Literal[ACTIONS] = Field(..., description="roll, step (one checker, from/to), undo (the last step), "
                                     "confirm, play (whole play in notation), double, take, drop, beaver, "
                                     "resign (level), accept, decline (a resignation), next (game)")
    from_: int | None = Field(None, alias="from", ge=0, le=25,
                              description="step: from point in the viewer's numbering (25 = the mover's bar)")
    to: int | None = Field(None, ge=0, le=25, description="step: to point in the viewer's numbering (0 = off)")
    die: int | None = Field(None, ge=1, le=6, description="step: the die to use when a bear-off could use either")
    play: str | None = Field(None, max_length=200, description="play: notation in the mover's own numbering")
    level: int | str | None = Field(None, description="resign: level index or name (single, gammon, oyun, mars...)")
    player: int | None = Field(None, ge=0, le=1, description="who acts (default: the person who must act)")


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


def _error(status: int, message: str, kind: str, **extra) -> JSONResponse:
    return JSONResponse({"detail": message, "error": kind, **extra}, status_code=status)


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



def create_app(database_url: str | None = None, storage: Storage | None = None) -> FastAPI:
    """The app. ``storage`` (a :class:`Storage`) or ``database_url`` (default: SQLite in the user data
    directory)."""
    store = storage if storage is not None else Storage(database_url)
    # FastAPIOffline: /docs and /redoc served from packaged Swagger UI/ReDoc files, no CDN needed.
    app = FastAPIOffline(
        title="nardy",
        summary="Backgammon, short nardy and long nardy: play in the browser, legal plays, best plays, "
                "evaluations and cube decisions over HTTP.",
        description=(
            "Positions are GNU Backgammon Position IDs from the view of the side on roll (long nardy: the "
            "same encoding, optional `:Fxy` first-turn suffix). Points are numbered from the mover's view: "
            "25 = bar, 0 = off. Errors are JSON `{\"detail\": message, \"error\": type}`: 422 malformed "
            "input, 400 an action the rules refuse now, 404 an unknown saved game."),
        version=_version(),
    )
    app.state.storage = store
    # One game's actions run one at a time (striped locks: a bounded number, whatever the games).
    locks = [threading.Lock() for _ in range(256)]

    def lock_for(gid: str) -> threading.Lock:
        return locks[zlib.crc32(gid.encode()) % len(locks)]

    # ----- errors ---------------------------------------------------------------------------------------
    @app.exception_handler(NardyError)
    async def nardy_error(request: Request, e: NardyError):
        return _error(_status_for(e), str(e), type(e).__name__)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, e: RequestValidationError):
        errs = e.errors()
        parts = []
        for er in errs[:5]:
            loc = ".".join(str(x) for x in er.get("loc", ()) if x != "body") or "request"
            parts.append(f"{loc}: {_clean_message(er.get('msg', 'invalid'))}")
        clean = [{"loc": list(er.get("loc", ())), "msg": _clean_message(er.get("msg")), "type": er.get("type")}
                 for er in errs]
        return _error(422, "; ".join(parts) or "invalid request", "RequestValidationError", errors=clean)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, e: Exception):  # pragma: no cover - a bug; keep serving
        return _error(500, f"internal error: {type(e).__name__}: {e}", "InternalError")

    # ----- the page -------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(str(_STATIC / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(_STATIC)), name="static")

    # ----- engine ---------------------------------------------------------------------------------------
    @app.get("/api/health", tags=["engine"], summary="Liveness and the database in use")
    async def health():
        return {"status": "ok", "version": _version(), "database": store.backend}

    @app.get("/api/info", tags=["engine"], summary="Games, options, levels and numberings the server knows")
    async def info():
        from ..rules import RESULT_NAMES, get_rules
        return {
            "games": {g: {"result_names": list(RESULT_NAMES[g]), "options": get_rules(g).options(),
                          "numberings": list(NUMBERINGS[g])} for g in ("backgammon", "short", "long")},
            "levels": list(BOT_LEVELS), "actions": list(ACTIONS), "version": _version(),
        }

    @app.get("/api/plays", tags=["engine"], response_model=PlaysOut, response_model_by_alias=True,
             summary="Every legal play for a position and roll")
    async def plays(game: str = _GAME,
                    position: str | None = Query(None, max_length=40, description="Position ID (default: start)"),
                    die1: int = Query(..., ge=1, le=6), die2: int = Query(..., ge=1, le=6),
                    numbering: Literal["own", "absolute"] = Query("own", description="long nardy: absolute"),
                    side: Literal["white", "black"] = Query("white", description="with absolute numbering")):
        def run():
            pos = _position(game, position)
            dice = _check_dice(die1, die2)
            if numbering == "absolute" and pos.rules.hitting:
                raise InvalidOptionError("numbering absolute is for long nardy only")
            out = []
            for p in pos.legal_plays(dice):
                text = p.notation(numbering, side) if numbering != "own" else str(p)
                out.append({"play": text, "steps": _steps(p), "position": p.result.id()})
            return {"game": pos.game, "position": pos.id(), "dice": list(dice), "plays": out}
        return await run_in_threadpool(run)

    @app.get("/api/move", tags=["engine"], response_model=MoveOut, response_model_by_alias=True,
             summary="The best play and the ranked candidates (like wildbg's /move)")
    async def move(game: str = _GAME, position: str | None = Query(None, max_length=40),
                   die1: int = Query(..., ge=1, le=6), die2: int = Query(..., ge=1, le=6),
                   level: Level = Query("grandmaster", description="search depth of that level"),
                   n: int = Query(5, ge=1, le=100, description="how many plays to list")):
        def run():
            pos = _position(game, position)
            dice = _check_dice(die1, die2)
            if pos.is_game_over():
                raise GameStateError(f"position {pos.id()} is a finished game: no play")
            with _bot_slots:
                hs = _bot(pos.rules, level).hints(pos, dice, n=n)
            moves = [{"play": str(h.play), "steps": _steps(h.play), "position": h.play.result.id(),
                      "equity": round(h.equity, 5), "loss": round(h.loss, 5), "ply": h.ply,
                      "probabilities": {k: round(x, 5) for k, x in h.probabilities.as_dict().items()}} for h in hs]
            return {"game": pos.game, "position": pos.id(), "dice": list(dice), "level": level,
                    "play": moves[0]["play"], "result": moves[0]["position"], "moves": moves}
        return await run_in_threadpool(run)

    @app.get("/api/eval", tags=["engine"], response_model=EvalOut,
             summary="Result probabilities of a position for the side on roll (like wildbg's /eval)")
    async def evaluate(game: str = _GAME, position: str | None = Query(None, max_length=40),
                       level: Level = Query("grandmaster", description="grandmaster and expert evaluate at 1-ply")):
        def run():
            pos = _position(game, position)
            with _bot_slots:
                bot = _bot(pos.rules, level)
                pr = bot.evaluate(pos)
            return {"game": pos.game, "position": pos.id(), "level": level, "ply": min(bot.ply or 0, 1),
                    "result_levels": list(pos.rules.result_names),
                    "probabilities": {k: round(x, 5) for k, x in pr.as_dict().items()},
                    "exclusive": {s: {k: round(x, 5) for k, x in d.items()} for s, d in pr.exclusive().items()},
                    "equity": round(pr.equity(pos.rules.scoring), 5)}
        return await run_in_threadpool(run)

    @app.get("/api/cube", tags=["engine"], response_model=CubeOut,
             summary="Cube decision for the side on roll: double or not, and take or pass for the opponent")
    async def cube(game: str = _GAME, position: str | None = Query(None, max_length=40),
                   cube: int = Query(1, ge=1, le=2**20, description="cube value (a power of two)"),
                   owner: Literal["centre", "me", "opponent"] = Query("centre", description="who owns the cube"),
                   length: int = Query(0, ge=0, le=99, description="match length; 0 = money"),
                   score_me: int = Query(0, ge=0), score_opponent: int = Query(0, ge=0),
                   crawford: bool = Query(False), jacoby: bool = Query(False),
                   level: Level = Query("grandmaster")):
        def run():
            from ..game import Game
            pos = _position(game, position)
            if cube & (cube - 1):
                raise InvalidOptionError(f"cube value {cube}: expected a power of two")
            if length and (score_me >= length or score_opponent >= length):
                raise InvalidOptionError(f"score {score_me}-{score_opponent} is not below the match length {length}")
            if crawford and not length:
                raise InvalidOptionError("crawford: the Crawford rule applies only to match play; "
                                         "money play (length 0) has no Crawford game")
            if crawford and [score_me, score_opponent].count(length - 1) != 1:
                raise InvalidOptionError(f"crawford: at {score_me}-{score_opponent} in a {length}-point match this "
                                         f"cannot be the Crawford game (exactly one side must be at {length - 1}, "
                                         "one point from winning)")
            g = Game.from_position(pos, turn=0, cube=True, crawford=crawford, jacoby=jacoby)
            # the cube's documented state attributes (a Game has no action that sets up a cube position)
            g.cube.value = cube
            g.cube.owner = {"centre": None, "me": 0, "opponent": 1}[owner]
            with _bot_slots:
                d = _bot(pos.rules, level).cube_action(g, score=(score_me, score_opponent), match_length=length)
            return {"game": pos.game, "position": pos.id(), "action": d.action, "double": d.double,
                    "take": d.take, "response": "take" if d.take else "pass", "too_good": d.too_good,
                    "reason": d.reason, "equities": {k: round(float(x), 5) for k, x in d.equities.items()},
                    "probabilities": {k: round(x, 5) for k, x in d.probabilities.as_dict().items()}}
        return await run_in_threadpool(run)

    @app.post("/api/mat", tags=["records"], summary="Import a .mat record: replay it through the rules",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "text/plain": {"schema": {"type": "string"}},
                  "application/json": {"schema": MatText.model_json_schema()}}}})
    async def import_mat(request: Request,
                         save: bool = Query(False, description="also store it as a saved game to view or continue"),
                         numbering: Numbering = Query("own")):
        raw = await request.body()
        if len(raw) > _MAT_LIMIT:
            return _error(413, f"record too large ({len(raw)} bytes; at most {_MAT_LIMIT})", "RecordError")
        ctype = request.headers.get("content-type", "")
        if "json" in ctype:
            try:
                text = MatText.model_validate_json(raw).text
            except ValidationError as e:
                why = "; ".join(f"{'.'.join(str(x) for x in er.get('loc', ())) or 'body'}: "
                                f"{_clean_message(er.get('msg', 'invalid'))}" for er in e.errors()[:5])
                return _error(422, f"expected JSON {{\"text\": \"...\"}}: {why}", "RequestValidationError")
            except Exception as e:
                return _error(422, f"expected JSON {{\"text\": \"...\"}}: {_clean_message(e)}",
                              "RequestValidationError")
        else:
            text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            return _error(422, "empty record: send the .mat text as the request body", "RecordError")

        def run():
            from ..dice import DiceSource
            from ..match import Match
            from ..records.mat import match_summary, replay
            m = replay(text)
            out = {"record": match_summary(m)}
            if save:
                md = m.to_dict()
                if m.current is not None and m.current.phase == "opening":
                    # a record cut after a game's header: that game has not begun; drop it and begin it
                    # afresh below (with its opening roll), so the saved game can be played on
                    md["games"] = md["games"][:-1]
                m2 = Match.from_dict(md, dice=DiceSource())
                s = Session(m2, {"humans": [True, True], "level": "advanced", "seed": None, "auto_roll": True,
                                 "viewer": 0, "opponent": "human"})
                if (m2.current is None or m2.current.is_over) and not m2.is_over and len(m2.games) < len(m.games):
                    m2.new_game(start=True)
                elif m2.current is None:
                    m2.new_game(start=True)
                saved = store.create(s.to_dict(), m2.rules.name, s.status, s.title(), s.summary())
                out["id"] = saved.id
            return out
        return await run_in_threadpool(run)

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
        store.save(saved)

    def listing(saved) -> dict:
        return {"id": saved.id, "created": saved.created.isoformat(), "updated": saved.updated.isoformat(),
                "game": saved.game, "status": saved.status, "title": saved.title, **saved.summary}

    @app.get("/api/games", tags=["games"], summary="Saved games, most recently played first")
    async def list_games(limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0, le=10**9),
                         status: Literal["playing", "game-over", "over"] | None = Query(None)):
        rows = await run_in_threadpool(store.list, limit, offset, status)
        return {"games": [listing(r) for r in rows]}

    @app.post("/api/games", tags=["games"], status_code=201,
              summary="Start a new game (the opening is played; the computer moves if it starts)")
    async def create_game(body: NewGame, numbering: Numbering = Query("own")):
        def run():
            s = new_session(body.game, length=body.length, opponent=body.opponent, level=body.level,
                            colour=body.colour, options=body.options, players=body.players, seed=body.seed,
                            auto_roll=body.auto_roll, crawford=body.crawford, jacoby=body.jacoby,
                            beavers=body.beavers, cube_limit=body.cube_limit)
            view = s.view(numbering=_numbering(s, numbering))
            saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary())
            return {"id": saved.id, **view}
        return await run_in_threadpool(run)

    def _numbering(s: Session, numbering: str) -> str:
        # a numbering that the game does not have falls back to the players' own
        return numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"

    @app.get("/api/games/{gid}", tags=["games"], summary="A saved game as the page draws it")
    async def get_game(gid: str, viewer: int | None = Query(None, ge=0, le=1, description="whose side is at "
                                                            "the bottom (default: the person's)"),
                       numbering: Numbering = Query("own")):
        def run():
            saved, s = load(gid)
            return {"id": gid, **s.view(viewer, _numbering(s, numbering))}
        return await run_in_threadpool(run)

    @app.delete("/api/games/{gid}", tags=["games"], status_code=204, summary="Delete a saved game")
    async def delete_game(gid: str):
        def run():
            with lock_for(gid):
                if not store.delete(gid):
                    raise HTTPException(404, f"no saved game {gid!r}")
        await run_in_threadpool(run)
        return Response(status_code=204)

    @app.post("/api/games/{gid}/actions", tags=["games"],
              summary="Act on a saved game (roll, step, confirm, double, take...); the computer answers")
    async def act(gid: str, body: Action, viewer: int | None = Query(None, ge=0, le=1),
                  numbering: Numbering = Query("own")):
        def run():
            with lock_for(gid):
                saved, s = load(gid)
                s.act(body.action, frm=body.from_, to=body.to, die=body.die, play=body.play, level=body.level,
                      player=body.player, viewer=viewer)
                store_session(saved, s)
                return {"id": gid, **s.view(viewer, _numbering(s, numbering))}
        return await run_in_threadpool(run)

    @app.get("/api/games/{gid}/hints", tags=["games"],
             summary="Hint for the side to act: the best plays with equities, or the cube decision")
    async def hints(gid: str, n: int = Query(5, ge=1, le=50), level: Level = Query("grandmaster"),
                    numbering: Numbering = Query("own")):
        def run():
            saved, s = load(gid)
            return s.hints(n=n, level=level, numbering=_numbering(s, numbering))
        return await run_in_threadpool(run)

    @app.get("/api/games/{gid}/mat", tags=["games"], response_class=PlainTextResponse,
             summary="The record as a Jellyfish .mat file")
    async def get_mat(gid: str):
        def run():
            from ..records.mat import write_mat
            saved, s = load(gid)
            return write_mat(s.match)
        text = await run_in_threadpool(run)
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="nardy-{gid}.mat"'})

    @app.get("/api/games/{gid}/record", tags=["games"], summary="Every game's plays and results, and the score")
    async def get_record(gid: str):
        def run():
            from ..records.mat import match_summary
            saved, s = load(gid)
            return {"id": gid, "status": s.status, "settings": s.settings, "record": match_summary(s.match)}
        return await run_in_threadpool(run)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, e: HTTPException):
        return _error(e.status_code, str(e.detail), "NotFound" if e.status_code == 404 else "HTTPError")

    from starlette.exceptions import HTTPException as StarletteHTTPException

    @app.exception_handler(StarletteHTTPException)
    async def starlette_error(request: Request, e: StarletteHTTPException):
        return _error(e.status_code, str(e.detail), "NotFound" if e.status_code == 404 else "HTTPError")

    return app


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("nardy")
    except Exception:  # pragma: no cover
        return "0"

