"""Tournaments on the server (issue 44): the public JSON, and one step of a tournament's life.

A tournament is ``waiting`` until ``players`` have joined (or ``starts_at`` has come with two or more), then
``playing``: each round's boards are paired (:mod:`nardy.web.services.tourplan`) and their games made at once
as online games between the two entrants with the tournament's terms (length, clock, rated, Crawford, cube, long
nardy's last roll), seated and started (the dice seeds are the server's); when every board of a round has its
result the next round is paired; arena pairs players as they become free until its time is up. Then it is
``finished`` and its standings are stored.

:func:`step` is the whole of one step, run in the transaction of
:meth:`nardy.web.store.tournaments.TournamentBook.stepping`: either everything it decided (the results read,
the next round's pairings and every one of its games) is stored, or nothing, so a process killed mid-step
leaves the tournament where it was for another to step. Results: a match won scores 1-0; a match drawn by long
nardy's last roll ``draw_points`` (``"half"``: ½-½, ``"one"``: 1-1); a match aborted or cancelled 0-0; a bye 1.
Absence (:func:`absent_side`): a player who has not acted within ``grace_s`` of the board's start loses the match
(the runner forfeits it for them, :mod:`nardy.web.tourrunner`).
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from typing import Any

from sqlalchemy import select, update

from ...flow.clock import clock_spec
from .. import ratings as _r
from ..gamecache import columns
from ..sessions import HostedGame, new_session
from ..store.db import _now, games
from ..store.profiles import start_ratings
from ..store.storage import Storage
from ..store.tournaments import Board, Tournament, TournamentBook, pairings, tournaments
from . import tourplan

__all__ = ["public", "step", "board_result", "absent_side", "settings_of", "FORMATS", "GAMES_OVER"]

#: Tournament formats.
FORMATS = ("swiss", "arena", "knockout")
#: A board game's statuses once it is decided (or will never be played).
GAMES_OVER = ("over", "cancelled", "declined", "aborted")


def settings_of(body: dict, game: str) -> dict:
    """The stored terms of a tournament from a validated create body (``game``: the game's own name): every
    term with its default filled in, the clock's class (``clock_class``) added."""
    clock = body.get("clock")
    if clock == "none":
        clock = None
    spec = clock_spec(clock)
    klass = _r.clock_class(spec.initial, spec.increment, spec.delay, spec.days) if spec is not None else "untimed"
    fmt = body["format"]
    return {
        "game": game,
        "format": fmt,
        "rounds": body.get("rounds") if fmt == "swiss" else None,
        "length": int(body.get("length") or 1),
        "lengths": body.get("lengths") if fmt == "knockout" else None,
        "duration_min": body.get("duration_min") if fmt == "arena" else None,
        "clock": clock,
        "clock_class": klass,
        "rated": bool(body.get("rated", False)),
        "players": int(body["players"]),
        "berserk": bool(body.get("berserk", False)) if fmt == "arena" else False,
        "draw_points": body.get("draw_points") or "half",
        "crawford": bool(body.get("crawford", True)),
        "cube": body.get("cube"),
        "grace_s": int(body.get("grace_s") or 120),
    }


def _iso(t: _dt.datetime | None) -> str | None:
    return None if t is None else t.astimezone(_dt.UTC).isoformat()


def rounds_of(t: Tournament) -> int | None:
    """The number of rounds (Swiss: as set; knockout: of its bracket once the entrants are known; arena: none)."""
    if t.format == "swiss":
        return t.settings.get("rounds")
    if t.format == "knockout":
        n = len(t.entrants) if t.status != "waiting" else max(len(t.entrants), t.settings.get("players") or 2)
        return tourplan.knockout_rounds(n)
    return None


def current_standings(t: Tournament) -> list[dict[str, Any]]:
    """The standings now (the stored ones once finished), each with the entrant's ``name``."""
    rows = t.standings if t.standings is not None else tourplan.standings(t.format, t.entrants, t.boards)
    names = {e.id: e.name for e in t.entrants}
    return [{**r, "name": names.get(r["id"], "?")} for r in rows]


def public(t: Tournament, uid: str | None, now: _dt.datetime | None = None) -> dict[str, Any]:
    """``GET /api/tournaments/{id}``'s body for the asker ``uid`` (docs/tournaments.md "Server")."""
    now = now or _now()
    people = {e.id: {"id": e.id, "name": e.name, "bot": e.bot} for e in t.entrants}
    me = t.entrant(uid) if uid else None
    next_game = None
    if me is not None:
        for b in t.boards:
            if b.result is None and b.game is not None and uid in b.players:
                next_game = b.game
    starts_in = None
    if t.status == "waiting" and t.starts_at is not None:
        starts_in = max(0, int((t.starts_at - now).total_seconds()))
    ends_in = None
    if t.format == "arena" and t.status == "playing" and t.started is not None:
        end = t.started + _dt.timedelta(minutes=t.settings.get("duration_min") or 0)
        ends_in = max(0, int((end - now).total_seconds()))
    return {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "format": t.format,
        "settings": t.settings,
        "status": t.status,
        "round": t.round,
        "rounds": rounds_of(t),
        "revision": t.revision,
        "created_by": t.created_by,
        "starts_at": _iso(t.starts_at),
        "started": _iso(t.started),
        "finished": _iso(t.finished),
        "ends_in": ends_in,
        "entrants": [
            {"id": e.id, "name": e.name, "bot": e.bot, "rating": round(e.rating, 1), "withdrawn": e.withdrawn}
            for e in t.entrants
        ],
        "pairings": [
            {
                "round": b.round,
                "board": b.board,
                "game": b.game,
                "players": [people.get(b.players[0]), people.get(b.players[1]) if b.players[1] else None],
                "result": list(b.result) if b.result is not None else None,
                "berserk": b.extra.get("berserk", [False, False]),
            }
            for b in t.boards
        ],
        "standings": current_standings(t),
        "you": {"joined": me is not None, "next_game": next_game, "starts_in": starts_in},
    }


# ----- results ---------------------------------------------------------------------------------------------
def board_result(status: str, summary: dict, draw_points: str) -> tuple[float, float] | None:
    """The points of a board from its game's ``status`` and summary: ``None`` while it is played; 1-0 to the
    match's winner; a drawn match (long nardy's last roll: level at the length) ½-½ or 1-1 by ``draw_points``;
    a match that ended with no winner otherwise (aborted, cancelled) 0-0."""
    if status not in GAMES_OVER:
        return None
    winner = summary.get("winner")
    if winner in (0, 1):
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)
    score = summary.get("score") or [0, 0]
    length = summary.get("length") or 0
    if status == "over" and length and max(score) >= length and score[0] == score[1]:
        d = 1.0 if draw_points == "one" else 0.5
        return (d, d)
    return (0.0, 0.0)


def absent_side(s: HostedGame, since: float, grace_s: float, now: float) -> int | None:
    """The side that loses game ``s`` by absence at ``now``: the side to act that has made no move of its own
    (no action other than a roll: rolls are automatic) since the board began at ``since``, once ``grace_s``
    seconds have passed; ``None`` otherwise."""
    if now - since < grace_s or s.table.is_over or s.table.waiting:
        return None
    side = s.table.to_act
    if side is None:
        return None
    acted = any(
        e.get("type") == "act" and e.get("side") == side and e.get("action") != "roll" and not e.get("computer")
        for e in s.table.log
    )
    return None if acted else side


# ----- one step -----------------------------------------------------------------------------------------
def _make_game(c, store: Storage, t: Tournament, pair: tuple[str, str], length: int, names: dict) -> str:
    """The board's game between ``pair`` (player 0 White), seated, begun and stored on ``c``; its id."""
    a, b = pair
    st = t.settings
    options: dict[str, Any] = {}
    if st.get("cube") is not None:
        options["cube"] = bool(st["cube"])
    if t.game == "long":
        options["last-roll"] = st.get("draw_points") or "half"
    s = new_session(
        t.game,
        length=length,
        opponent="online",
        colour="white",
        players=[names.get(a, "?"), "?"],
        owner=a,
        own_seed=False,
        clock=st.get("clock"),
        watchers=True,
        crawford=bool(st.get("crawford", True)),
        options=options or None,
    )
    s.settings.update(rated=bool(st.get("rated")), rating_class=st.get("clock_class"), tournament=t.id)
    s.join(b, names.get(b, "?"), None, time.time(), own_seed=False)
    s.settings["ratings"] = start_ratings(c, [a, b], t.game, st.get("clock_class") or "untimed", bool(st.get("rated")))
    s.run_bots()
    saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s), conn=c)
    return saved.id


def _coloured(t: Tournament, pair: tuple[str, str]) -> tuple[str, str]:
    """``pair`` with White to the one who has had White less often (Swiss, arena: the colours balanced)."""
    white: dict[str, int] = {}
    for b in t.boards:
        if b.players[1] is not None:
            white[b.players[0]] = white.get(b.players[0], 0) + 1
            white[b.players[1]] = white.get(b.players[1], 0) - 1
    a, b = pair
    return (b, a) if white.get(a, 0) > white.get(b, 0) else (a, b)


def _add_boards(c, store: Storage, t: Tournament, round_no: int, pairs, now: _dt.datetime) -> list[Board]:
    names = {e.id: e.name for e in t.entrants}
    lengths = t.settings.get("lengths") or []
    length = int(lengths[round_no - 1]) if t.format == "knockout" and len(lengths) >= round_no else t.settings["length"]
    start = 1 + max((b.board for b in t.boards if b.round == round_no), default=-1)
    made = []
    for i, (a, b) in enumerate(pairs):
        board = Board(round=round_no, board=start + i, players=(a, b), created=now)
        if b is None:
            board.result = (tourplan.BYE_POINTS, 0.0)
            board.finished = now
        else:
            if t.format != "knockout":
                a, b = _coloured(t, (a, b))
                board.players = (a, b)
            board.game = _make_game(c, store, t, (a, b), length, names)
        c.execute(
            pairings.insert().values(
                tournament_id=t.id,
                round=round_no,
                board=board.board,
                player0=board.players[0],
                player1=board.players[1],
                game_id=board.game,
                result=json.dumps(list(board.result)) if board.result else None,
                extra="{}",
                created=now,
                finished=board.finished,
            )
        )
        t.boards.append(board)
        made.append(board)
    return made


def _read_results(c, t: Tournament, now: _dt.datetime) -> bool:
    open_ = {b.game: b for b in t.boards if b.result is None and b.game is not None}
    if not open_:
        return False
    rows = c.execute(select(games.c.id, games.c.status, games.c.summary).where(games.c.id.in_(list(open_)))).all()
    changed = False
    for r in rows:
        res = board_result(r.status, json.loads(r.summary or "{}"), t.settings.get("draw_points") or "half")
        if res is None:
            continue
        b = open_[r.id]
        b.result, b.finished = res, now
        c.execute(
            update(pairings)
            .where(pairings.c.tournament_id == t.id, pairings.c.round == b.round, pairings.c.board == b.board)
            .values(result=json.dumps(list(res)), finished=now)
        )
        changed = True
    return changed


def _finish(c, t: Tournament, now: _dt.datetime) -> None:
    t.status, t.finished = "finished", now
    t.standings = tourplan.standings(t.format, t.entrants, t.boards)
    TournamentBook.bump(c, t.id, status="finished", finished=now, standings=json.dumps(t.standings))


def _next_round(c, store: Storage, t: Tournament, now: _dt.datetime) -> None:
    """Pair round ``t.round + 1`` and make its games, or finish when there is none."""
    n = t.round + 1
    if t.format == "swiss":
        if n > (t.settings.get("rounds") or 1) or sum(not e.withdrawn for e in t.entrants) < 2:
            _finish(c, t, now)
            return
        pairs = tourplan.swiss_round(t.entrants, t.boards, n)
    else:
        ratings = {e.id: e.rating for e in t.entrants}
        pairs = tourplan.knockout_round(t.entrants, t.boards, n, ratings)
        if n > 1 and len(pairs) <= 1 and (not pairs or pairs[0][1] is None):
            _finish(c, t, now)
            return
    _add_boards(c, store, t, n, pairs, now)
    t.round = n
    TournamentBook.bump(c, t.id, round=n, round_started=now, status="playing")


def _arena(c, store: Storage, t: Tournament, now: _dt.datetime) -> bool:
    assert t.started is not None
    end = t.started + _dt.timedelta(minutes=t.settings.get("duration_min") or 0)
    busy = {p for b in t.boards if b.result is None for p in b.players if p is not None}
    if now >= end:
        if not busy:
            _finish(c, t, now)
            return True
        return False
    free = [e for e in t.entrants if not e.withdrawn and e.id not in busy]
    if len(free) < 2:
        return False
    scores = {s["id"]: s["points"] for s in tourplan.standings("arena", t.entrants, t.boards)}
    pairs = tourplan.arena_round(free, t.boards, scores, now.timestamp())
    if not pairs:
        return False
    t.round += 1
    _add_boards(c, store, t, t.round, pairs, now)
    TournamentBook.bump(c, t.id, round=t.round, round_started=now)
    return True


def step(c, store: Storage, t: Tournament, now: _dt.datetime | None = None) -> bool:
    """One step of tournament ``t`` on connection ``c`` (in :meth:`TournamentBook.stepping`'s transaction):
    start it when due, read the results of its boards' games, pair the next round (or arena's free players) and
    make its games, or finish it. Returns whether anything changed (the caller then tells the live channel)."""
    now = now or _now()
    changed = False
    if t.status == "waiting":
        n = len(t.entrants)
        due = n >= (t.settings.get("players") or 2) or (t.starts_at is not None and now >= t.starts_at)
        if not due or n < 2:
            return False
        t.status, t.started = "playing", now
        c.execute(update(tournaments).where(tournaments.c.id == t.id).values(status="playing", started=now))
        if t.format == "arena":
            _arena(c, store, t, now)
        else:
            _next_round(c, store, t, now)
        TournamentBook.bump(c, t.id)
        return True
    changed = _read_results(c, t, now)
    if t.format == "arena":
        changed = _arena(c, store, t, now) or changed
    elif all(b.result is not None for b in t.boards if b.round == t.round):
        _next_round(c, store, t, now)
        changed = True
    if changed:
        TournamentBook.bump(c, t.id)
    return changed
