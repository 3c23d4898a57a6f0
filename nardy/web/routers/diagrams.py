"""Board diagrams over HTTP (issue 47): ``GET /api/diagram.svg`` and ``GET /api/diagram.png``.

A position (a Position ID, or an XGID for backgammon and short nardy: its dice, cube, owner, score, match
length and Crawford flag are drawn unless the query gives them) drawn by the one board renderer
(:mod:`nardy.rules.diagram`), as a permalink a player can paste into a forum. Inputs are checked at the edge
(the query's types and bounds, then the renderer's own checks: 422 JSON with a code, never a 5xx), names
are bounded (40 characters each), the PNG's scale is fixed (790 px wide), and a PNG is drawn as computer work
of its client (:class:`~nardy.web.deps.Compute`: fair per client, bounded) unless the same picture was drawn
lately (a small cache of answers). Answers carry ``Cache-Control``, a strong ``ETag`` (a hash of the
picture; ``If-None-Match`` answers 304) and, the SVG being a document of its own, a Content-Security-Policy
that allows no script, no fetch and no framing.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...rules.diagram import (
    MAX_NAME,
    MAX_TITLE,
    THEMES,
    Diagram,
    default_cube,
    diagram_png,
    diagram_svg,
    with_options,
    xgid_fields,
)
from ...rules.numbering import BLACK, WHITE
from ...texts.catalogue import diagram_words
from ..deps import GAME_QUERY, ComputeDep, Numbering
from ..params import read_position

__all__ = ["router", "CACHE_CONTROL", "SVG_CSP", "CACHE_SIZE"]

router = APIRouter()

#: How long a client or a proxy may keep a diagram (the same query draws the same picture).
CACHE_CONTROL = "public, max-age=86400"
#: An SVG opened by itself is a document: no script runs, nothing is fetched, no site frames it.
SVG_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
#: Diagrams kept in memory (an SVG is a few KB, a PNG about 30 KB).
CACHE_SIZE = 256
#: Seconds a PNG's drawing may take (it takes about 50 ms).
PNG_BUDGET = 5.0

Theme = Literal[THEMES]
Owner = Literal["centre", "mover", "opponent"]


class _Cache:
    """The last :data:`CACHE_SIZE` diagrams drawn, by their canonical inputs: ``key -> (body, etag)``."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_cache = _Cache(CACHE_SIZE)


def _diagram(
    game: str,
    position: str | None,
    dice: str | None,
    cube: int | None,
    owner: str | None,
    score: str | None,
    length: int | None,
    crawford: bool | None,
    names: str | None,
    numbering: str,
    side: str,
    title: str,
    lang: str = "en",
) -> Diagram:
    """The :class:`Diagram` a query asks for (the XGID's fields first, the query's over them).

    Raises:
        NardyError: a bad position, dice, owner, score or names, a numbering the game lacks (422).
    """
    pin = read_position(game, position)
    pos = pin.position
    d = Diagram(pos, cube=default_cube(pos), numbering=numbering, side=BLACK if side == "black" else WHITE)
    if pin.xgid is not None:
        d = replace(d, **xgid_fields(pin.xgid, pos))
    d = with_options(
        d, dice=dice, cube=cube, owner=owner, score=score, length=length, crawford=crawford, names=names, title=title
    )
    return replace(d, words=diagram_words(lang))


def _key(kind: str, d: Diagram, theme: str) -> tuple:
    return (
        (kind, theme, d.position.game, d.position.id(), d.position.first_turn)
        + tuple(getattr(d, f) for f in ("dice", "cube", "cube_owner", "score", "length", "names", "numbering", "title"))
        + (d.crawford, d.side, d.words)
    )


def _answer(request: Request, body: bytes, etag: str, media_type: str) -> Response:
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": etag}
    if media_type == "image/svg+xml":
        headers["Content-Security-Policy"] = SVG_CSP
    wanted = request.headers.get("if-none-match", "")
    if etag in {t.strip() for t in wanted.split(",")} or wanted.strip() == "*":
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


POSITION_QUERY = Query(
    None,
    max_length=80,
    description="Position ID of the side to move (long nardy: optional :Fxy suffix) or an XGID (backgammon, short "
    "nardy: its dice, cube, owner, score, length and Crawford flag are drawn unless given here). Default: the "
    "starting position",
)
DICE_QUERY = Query(None, max_length=5, description="the roll to play, drawn on the board: 6-4 (or 64)")
CUBE_QUERY = Query(None, ge=0, le=4096, description="cube value (a power of two); 0: no cube")
OWNER_QUERY = Query(None, description="cube owner: centre, mover (the side to move) or opponent")
SCORE_QUERY = Query(None, max_length=9, description="score A-B, the side to move first")
LENGTH_QUERY = Query(None, ge=0, le=999, description="match length; 0: money play")
CRAWFORD_QUERY = Query(None, description="the Crawford game (shown with the score)")
NAMES_QUERY = Query(
    None,
    max_length=2 * MAX_NAME + 1,
    description=f"names A,B, the side to move first, each at most {MAX_NAME} characters",
)
NUMBERING_QUERY = Query("own", description="point labels: own, or a numbering the game allows (/api/info)")
SIDE_QUERY = Query("white", description="with absolute/traditional numbering: the side to move")
THEME_QUERY = Query("light", description="light, print (black on white) or dark")
TITLE_QUERY = Query("", max_length=MAX_TITLE, description="a caption above the board")
LANG_QUERY = Query("en", description="language of the words drawn (pips, match to, Crawford): en or ru")


def diagram_query(
    game: str = GAME_QUERY,
    position: str | None = POSITION_QUERY,
    dice: str | None = DICE_QUERY,
    cube: int | None = CUBE_QUERY,
    owner: Owner | None = OWNER_QUERY,
    score: str | None = SCORE_QUERY,
    length: int | None = LENGTH_QUERY,
    crawford: bool | None = CRAWFORD_QUERY,
    names: str | None = NAMES_QUERY,
    numbering: Numbering = NUMBERING_QUERY,
    side: Literal["white", "black"] = SIDE_QUERY,
    title: str = TITLE_QUERY,
    lang: Literal["en", "ru"] = LANG_QUERY,
) -> Diagram:
    """The dependency both routes share: the :class:`Diagram` their query asks for (:func:`_diagram`), read in
    a worker thread (FastAPI runs a plain function there).

    Raises:
        NardyError: a bad position, dice, owner, score or names, a numbering the game lacks (422).
    """
    return _diagram(game, position, dice, cube, owner, score, length, crawford, names, numbering, side, title, lang)


DiagramQuery = Annotated[Diagram, Depends(diagram_query)]


@router.get(
    "/api/diagram.svg",
    tags=["diagrams"],
    summary="A board diagram as SVG (cube, score, pips, dice, names; light, print or dark)",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "the diagram, a standalone SVG document"}},
)
async def diagram_svg_route(request: Request, d: DiagramQuery, theme: Theme = THEME_QUERY):
    def run():
        key = _key("svg", d, theme)
        hit = _cache.get(key)
        if hit is None:
            body = diagram_svg(d, theme).encode("utf-8")
            hit = (body, _etag(body))
            _cache.put(key, hit)
        return hit

    body, etag = await run_in_threadpool(run)
    return _answer(request, body, etag, "image/svg+xml")


@router.get(
    "/api/diagram.png",
    tags=["diagrams"],
    summary="A board diagram as PNG (790 px wide; the same drawing as /api/diagram.svg)",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "the diagram as PNG"}},
)
async def diagram_png_route(request: Request, compute: ComputeDep, d: DiagramQuery, theme: Theme = THEME_QUERY):
    key = _key("png", d, theme)
    hit = _cache.get(key)
    if hit is None:

        def draw(deadline):
            body = diagram_png(d, theme)
            return body, _etag(body)

        hit = await compute(draw, budget=PNG_BUDGET)
        _cache.put(key, hit)
    body, etag = hit
    return _answer(request, body, etag, "image/png")
