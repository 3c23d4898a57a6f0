"""A player's page from the database (docs/online.md "Player pages"): their finished online games filtered by
game, opponent and result, the points of their rating graph, and their record against another player.

Privacy (docs/security.md): a game is listed to an asker only when they may see it: it is open to watchers, or
the asker sat at it. A private game is never listed, counted or named to anyone else. Every list is bounded by
its caller (``limit`` at most :data:`MAX_GAMES`, :data:`MAX_POINTS`).

The winner of a stored game is its summary's ``winner`` (the side, 0 White, 1 Black), read inside the query
(SQLite's ``json_extract``, PostgreSQL's ``->>``), so that a filter by result and the head-to-head counts are the
database's work, whatever the number of games.
"""

from __future__ import annotations

import json

from sqlalchemy import Integer, and_, case, cast, func, literal_column, or_, select
from sqlalchemy.sql.elements import ColumnElement

from .db import _aware, _guarded, games, users
from .ratingbook import history, ratings

__all__ = ["Profiles", "MAX_GAMES", "MAX_POINTS", "RESULTS", "start_ratings"]

#: Games one request lists at most.
MAX_GAMES = 100
#: Rating points one request gives at most (the graph's most recent rated matches).
MAX_POINTS = 1000
#: The results a list may be filtered by, from the player's view.
RESULTS = ("won", "lost")


def _winner(dialect: str) -> ColumnElement:
    """The stored game's winning side (0, 1; NULL: none) from its summary's JSON."""
    if dialect == "postgresql":
        return cast(literal_column("(nardy_games.summary::json ->> 'winner')"), Integer)
    return cast(func.json_extract(games.c.summary, "$.winner"), Integer)


def _side(uid: str) -> ColumnElement:
    return case((games.c.seat0 == uid, 0), else_=1)


def _visible(uid: str, viewer: str | None) -> ColumnElement:
    """Finished online games ``uid`` sat at (two different seats: games at one screen are not online) that
    ``viewer`` may see: open to watchers, or the viewer sat at them."""
    seen = [games.c.visibility == "public"]
    if viewer is not None:
        seen += [games.c.seat0 == viewer, games.c.seat1 == viewer]
    return and_(
        games.c.status == "over",
        or_(games.c.seat0 == uid, games.c.seat1 == uid),
        games.c.seat0 != games.c.seat1,
        or_(*seen),
    )


def _against(uid: str, other: str) -> ColumnElement:
    return or_(and_(games.c.seat0 == uid, games.c.seat1 == other), and_(games.c.seat0 == other, games.c.seat1 == uid))


def start_ratings(c, seats: list[str | None], game: str, klass: str, rated: bool) -> list[int | None]:
    """The seated players' ratings (rounded) in ``game`` at clock class ``klass`` on connection ``c``, as a
    match begins (the game's view shows them beside the names): a player without one is at the start (1500)
    in a rated match, unknown (``None``) otherwise."""
    ids = [s for s in seats if s]
    rows = {}
    if ids:
        q = select(ratings.c.user_id, ratings.c.rating).where(
            ratings.c.user_id.in_(ids), ratings.c.game == game, ratings.c.clock_class == klass
        )
        rows = {r.user_id: r.rating for r in c.execute(q).all()}
    out: list[int | None] = []
    for s in seats:
        r = rows.get(s) if s else None
        out.append(round(r) if r is not None else (1500 if rated and s else None))
    return out


class Profiles:
    """The queries of a player's page on ``storage``'s engine (each one short read; StorageUnavailable when the
    database fails)."""

    def __init__(self, storage):
        self.storage = storage
        self.engine = storage.engine

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage.safe_url

    @_guarded
    def games(
        self,
        uid: str,
        viewer: str | None,
        game: str | None = None,
        opponent: str | None = None,
        result: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[list[dict], bool]:
        """``uid``'s finished online games ``viewer`` may see (:func:`_visible`), most recent first, filtered by
        ``game`` (backgammon, short, long), ``opponent`` (a player id) and ``result`` (won, lost: ``uid``'s).

        Returns ``(rows, more)``: each row ``{"id", "game", "title", "players", "length", "score", "rated",
        "side", "opponent": {"id", "name"}, "result": "won" | "lost" | None, "clock_class", "rating": {"before",
        "after"} | None, "ended"}`` (``clock_class`` and ``rating``: a rated result's); ``more``: rows follow.
        Raises ValueError: ``limit`` outside 1..:data:`MAX_GAMES`, ``result`` not in :data:`RESULTS`."""
        if not 1 <= limit <= MAX_GAMES or offset < 0:
            raise ValueError(f"limit {limit!r}, offset {offset!r}: expected 1..{MAX_GAMES} and >= 0")
        if result is not None and result not in RESULTS:
            raise ValueError(f"result {result!r}: expected one of {RESULTS}")
        with self.engine.connect() as c:
            winner = _winner(c.dialect.name)
            side = _side(uid)
            h = history.alias("h")
            q = (
                select(
                    games.c.id,
                    games.c.game,
                    games.c.title,
                    games.c.summary,
                    games.c.updated,
                    games.c.seat0,
                    games.c.seat1,
                    h.c.clock_class,
                    h.c.before,
                    h.c.after,
                )
                .join(h, and_(h.c.game_id == games.c.id, h.c.user_id == uid), isouter=True)
                .where(_visible(uid, viewer))
            )
            if game is not None:
                q = q.where(games.c.game == game)
            if opponent is not None:
                q = q.where(_against(uid, opponent))
            if result == "won":
                q = q.where(winner == side)
            elif result == "lost":
                q = q.where(winner == 1 - side)
            q = q.order_by(games.c.updated.desc(), games.c.id).limit(limit + 1).offset(offset)
            rows = c.execute(q).all()
            more = len(rows) > limit
            rows = rows[:limit]
            others = {r.seat1 if r.seat0 == uid else r.seat0 for r in rows}
            names = {}
            if others:
                names = {
                    r.id: r.name for r in c.execute(select(users.c.id, users.c.name).where(users.c.id.in_(others)))
                }
        out = []
        for r in rows:
            s = json.loads(r.summary or "{}")
            me = 0 if r.seat0 == uid else 1
            other = r.seat1 if me == 0 else r.seat0
            won = s.get("winner")
            out.append(
                {
                    "id": r.id,
                    "game": r.game,
                    "title": r.title,
                    "players": s.get("players"),
                    "length": s.get("length"),
                    "score": s.get("score"),
                    "status": s.get("status"),
                    "winner": won,
                    "rated": bool(s.get("rated")),
                    "side": me,
                    "opponent": {"id": other, "name": names.get(other)},
                    "result": None if won not in (0, 1) else ("won" if won == me else "lost"),
                    "clock_class": r.clock_class,
                    "rating": None if r.before is None else {"before": round(r.before, 2), "after": round(r.after, 2)},
                    "ended": _aware(r.updated).isoformat(),
                }
            )
        return out, more

    @_guarded
    def rating_points(
        self, uid: str, game: str | None = None, klass: str | None = None, limit: int = MAX_POINTS
    ) -> list[dict]:
        """``uid``'s rated matches as points of a graph, oldest first (the most recent ``limit``): ``{"game_id",
        "game", "clock_class", "at", "before", "rating", "rd", "won", "opponent": {"id", "name"}}`` (``rating``:
        after the match). Rated matches are public (their games are open to watchers). Raises ValueError:
        ``limit`` outside 1..:data:`MAX_POINTS`."""
        if not 1 <= limit <= MAX_POINTS:
            raise ValueError(f"limit {limit!r}: expected 1..{MAX_POINTS}")
        q = (
            select(history, users.c.name.label("opponent_name"))
            .join(users, users.c.id == history.c.opponent, isouter=True)
            .where(history.c.user_id == uid)
        )
        if game is not None:
            q = q.where(history.c.game == game)
        if klass is not None:
            q = q.where(history.c.clock_class == klass)
        q = q.order_by(history.c.at.desc(), history.c.game_id.desc()).limit(limit)
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [
            {
                "game_id": r.game_id,
                "game": r.game,
                "clock_class": r.clock_class,
                "at": _aware(r.at).isoformat(),
                "before": round(r.before, 2),
                "rating": round(r.after, 2),
                "rd": round(r.rd, 2),
                "won": bool(r.won),
                "opponent": {"id": r.opponent, "name": r.opponent_name},
            }
            for r in reversed(rows)
        ]

    @_guarded
    def versus(self, uid: str, other: str, viewer: str | None) -> dict:
        """``uid``'s record against ``other``: ``{"games": {"played", "won", "lost"}, "by_game": {game: {"played",
        "won", "lost"}}, "rated": {"played", "won", "lost"}}``: ``games`` over the finished online games between
        them that ``viewer`` may see (:func:`_visible`), ``rated`` over their rated results (rating history)."""
        with self.engine.connect() as c:
            winner = _winner(c.dialect.name)
            side = _side(uid)
            q = (
                select(
                    games.c.game,
                    func.count().label("played"),
                    func.sum(case((winner == side, 1), else_=0)).label("won"),
                    func.sum(case((winner == 1 - side, 1), else_=0)).label("lost"),
                )
                .where(_visible(uid, viewer), _against(uid, other))
                .group_by(games.c.game)
            )
            by_game = {
                r.game: {"played": int(r.played), "won": int(r.won or 0), "lost": int(r.lost or 0)}
                for r in c.execute(q).all()
            }
            rq = (
                select(history.c.won, func.count().label("n"))
                .where(history.c.user_id == uid, history.c.opponent == other)
                .group_by(history.c.won)
            )
            rated = {bool(r.won): int(r.n) for r in c.execute(rq).all()}
        total = {k: sum(g[k] for g in by_game.values()) for k in ("played", "won", "lost")}
        return {
            "games": total,
            "by_game": dict(sorted(by_game.items())),
            "rated": {
                "played": rated.get(True, 0) + rated.get(False, 0),
                "won": rated.get(True, 0),
                "lost": rated.get(False, 0),
            },
        }
