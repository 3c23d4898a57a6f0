"""Analyses of saved games kept in the database (issue 45): stored after they are made, read by any server
process (after a restart too), and a player's statistics made of them.

The database is the truth (:mod:`nardy.web.store.analyses`); the process's :class:`~nardy.web.routers.review.
AnalysisCache` only spares a second read. Blocking functions: call them on a worker thread.

Large answers are sent gzip-compressed to a client that accepts it (:func:`json_answer`): an analysis answer
holds no secret (no log-in token, no invitation), so compressing it beside text a client chose (names, the
record) gives nothing away (the BREACH attack needs a secret in the same compressed answer); other routes'
answers are left as they are.
"""

from __future__ import annotations

import gzip
import json
import logging

from starlette.requests import Request
from starlette.responses import Response

from ...analysis.stats import DIGEST_VERSION, digest, period_of, summarise
from ..sessions import HostedGame
from ..store.storage import AnalysisInfo, Storage, StorageUnavailable

__all__ = [
    "players_of",
    "store_analysis",
    "read_analysis",
    "player_stats",
    "json_answer",
    "GZIP_FROM",
    "STATS_GAMES",
]

log = logging.getLogger("nardy.web")

#: Answers of at least this many bytes are gzip-compressed for a client that accepts it (below, the header
#: costs more than it saves).
GZIP_FROM = 1024

#: A player's statistics are made of the analyses of their most recent games, at most this many.
STATS_GAMES = 500


def players_of(s: HostedGame) -> tuple[str | None, str | None]:
    """The player ids of sides 0 and 1 of a hosted game: an online game's seated players; in a game against the
    computer or at one screen, its owner on each side a person plays (``None``: the computer, or no owner)."""
    if s.online:
        seats = [seat.player for seat in s.table.seats]
    else:
        seats = [s.owner if seat.human else None for seat in s.table.seats]
    return seats[0], seats[1]


def store_analysis(
    store: Storage, gid: str, revision: int, level: str, answer: dict, s: HostedGame
) -> AnalysisInfo | None:
    """Store the analysis ``answer`` of game ``gid`` at ``revision`` and ``level`` with its players and its
    digest (:func:`nardy.analysis.stats.digest`); ``None`` when the game is gone or has moved on meanwhile. An
    answer too large to store, or one the database failed to take, is logged and not stored (it is still
    answered)."""
    try:
        dg = digest(answer)
    except Exception:  # an analysis the classifier cannot read: stored without its digest
        log.exception("no digest for the analysis of game %s", gid)
        dg = {}
    try:
        return store.put_analysis(gid, revision, level, answer, players_of(s), dg)
    except ValueError as e:
        log.warning("analysis of game %s not stored: %s", gid, e)
    except StorageUnavailable:  # the analysis is answered all the same; a later ask analyses again
        log.warning("analysis of game %s not stored: the database is unavailable", gid)
    return None


def read_analysis(
    store: Storage, gid: str, revision: int, level: str | None, kept=None
) -> tuple[dict, str, list[AnalysisInfo]] | None:
    """The stored analysis of game ``gid`` at ``revision``: at ``level``, else the newest; with its level and the
    list of every analysis stored at that revision (:class:`AnalysisInfo`, newest first). ``None``: none.
    ``kept(level)``: the process's copy of the analysis at that level, if it has one (then it is not read
    again: the database says which levels there are, the copy spares unpacking one)."""
    levels = store.analysis_levels(gid, revision)
    chosen = level if level is not None else (levels[0].level if levels else None)
    if chosen is None or all(i.level != chosen for i in levels):
        return None
    data = kept(chosen) if kept is not None else None
    if data is None:
        got = store.get_analysis(gid, revision, chosen)
        if got is None:  # replaced or dropped between the two reads
            return None
        data = got.data
    return data, chosen, levels


def player_stats(store: Storage, uid: str, viewer: str | None, limit: int = STATS_GAMES) -> dict:
    """Player ``uid``'s statistics over the stored analyses of their games that ``viewer`` may see (all of
    them for the player themself; for anyone else only the games open to watchers or the viewer's own: a private
    game's analysis is never counted for a stranger): :func:`nardy.analysis.stats.summarise`'s ``rows`` and
    ``kinds`` (``who`` left out), and ``analysed``: the games counted."""
    items = []
    counted = 0
    for row in store.analysis_digests(uid, viewer, limit):
        dg = row["digest"]
        if dg.get("version") != DIGEST_VERSION:  # made by another version of the classifier: made again
            got = store.get_analysis(row["game_id"], row["revision"], row["level"])
            if got is None:
                continue
            dg = digest(got.data)
        counted += 1
        for side in row["sides"]:
            items.append((uid, period_of(row["created"]), dg, side))
    out = summarise(items)
    for part in ("rows", "kinds"):
        for r in out[part]:
            r.pop("who", None)
    return {"id": uid, "analysed": counted, **out}


def json_answer(request: Request, data: dict, status_code: int = 200) -> Response:
    """``data`` as a JSON answer, gzip-compressed (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``) when
    the client accepts gzip and the JSON has at least :data:`GZIP_FROM` bytes. Only for answers that hold no
    secret (see the module docstring)."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    headers = {"vary": "Accept-Encoding"}
    accepts = request.headers.get("accept-encoding", "")
    if len(body) >= GZIP_FROM and _accepts_gzip(accepts):
        body = gzip.compress(body, 6)
        headers["content-encoding"] = "gzip"
    return Response(body, status_code=status_code, media_type="application/json", headers=headers)


def _accepts_gzip(header: str) -> bool:
    """``Accept-Encoding`` names gzip with a weight above 0 (``gzip;q=0`` refuses it)."""
    for part in header.split(","):
        name, _, params = part.partition(";")
        if name.strip().lower() != "gzip":
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False
