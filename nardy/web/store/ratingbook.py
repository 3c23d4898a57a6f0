"""The ratings' part of the database (schema revisions 0003 and 0006): Glicko-2 ratings per player, game and
clock class, their history, and which results are rated and how much (:mod:`nardy.web.ratings`, "Which
results are rated").

:class:`RatingBook` is a part of :class:`nardy.web.store.community.Community` (its methods use ``self.engine`` and
``self.storage``); every method is one short transaction and raises
:class:`~nardy.web.store.storage.StorageUnavailable` when the database fails, except :meth:`RatingBook.rate_match`,
whose step runs in the transaction that stores the finished match.

Against farming one's own accounts (docs/online.md, "Ratings"): a match that is not a real game is not rated
(decided by :func:`nardy.web.services.ratings.rating_step` from the match, :func:`nardy.web.ratings.too_short`); here, a
result of two players who have rated results together in the last day weighs less, then not at all
(:func:`nardy.web.ratings.pair_weight`, counted from the history in the result's own transaction), and the
leaderboard lists only established ratings (:func:`nardy.web.ratings.established`: ``matches`` and
``opponents``, the count of different opponents, kept in the rating's row).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from sqlalchemy import Boolean, Column, DateTime, Float, Index, Integer, String, Table, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from .. import ratings as _r
from .db import _aware, _guarded, _now, metadata, users

__all__ = ["RatingBook", "RatedMatch", "ratings", "history", "insert_of"]

ratings = Table(
    "nardy_ratings",
    metadata,
    Column("user_id", String(32), primary_key=True),
    Column("game", String(16), primary_key=True),
    Column("clock_class", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("vol", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
    # different opponents among the rated matches (revision 0006): a rating is established with enough
    Column("opponents", Integer, nullable=False, server_default=text("0")),
)
Index("ix_nardy_ratings_board", ratings.c.game, ratings.c.clock_class, ratings.c.rating)

history = Table(
    "nardy_rating_history",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("user_id", String(32), primary_key=True),
    Column("game", String(16), nullable=False),
    Column("clock_class", String(16), nullable=False),
    Column("opponent", String(32), nullable=False),
    Column("length", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("reason", String(16), nullable=False),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    # the result's weight (revision 0005; null: a result rated before, weight 1), :func:`ratings.pair_weight`
    Column("weight", Float, nullable=True),
)
Index("ix_nardy_rating_history_user", history.c.user_id, history.c.at)


@dataclass
class RatedMatch:
    """A rated match that has ended: its id, game, clock class, length, the winner's and loser's player ids,
    and how it ended (``points``, ``time``, ``abandoned``)."""

    game_id: str
    game: str
    clock_class: str
    length: int
    winner: str
    loser: str
    reason: str


def insert_of(c, table):
    """An INSERT of the connection's dialect (for ON CONFLICT)."""
    return (postgresql.insert if c.dialect.name == "postgresql" else sqlite.insert)(table)


def _rating_row(r) -> dict:
    est = _r.established(r.matches, r.opponents)
    return {
        "game": r.game,
        "clock_class": r.clock_class,
        "rating": round(r.rating, 2),
        "rd": round(r.rd, 2),
        "provisional": r.rd > _r.PROVISIONAL_RD or not est,
        "established": est,
        "matches": r.matches,
        "opponents": r.opponents,
        "wins": r.wins,
    }


class RatingBook:
    """The ratings' methods of :class:`~nardy.web.store.community.Community` (see the module docstring)."""

    engine = None  # set by Community

    @staticmethod
    def _rating_in(c, user_id: str, game: str, klass: str) -> tuple[_r.Rating, int, _dt.datetime | None]:
        row = c.execute(
            select(ratings).where(ratings.c.user_id == user_id, ratings.c.game == game, ratings.c.clock_class == klass)
        ).first()
        if row is None:
            return _r.START, 0, None
        return _r.Rating(row.rating, row.rd, row.vol), row.matches, _aware(row.updated)

    @_guarded
    def rating(self, user_id: str, game: str, klass: str) -> _r.Rating:
        """``user_id``'s rating in ``game`` at clock class ``klass`` (a new player: 1500/350/0.06)."""
        with self.engine.connect() as c:
            return self._rating_in(c, user_id, game, klass)[0]

    @_guarded
    def ratings_for(self, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], _r.Rating]:
        """The ratings of many ``(player id, game, clock class)`` at once (a new player's: the start)."""
        out = dict.fromkeys(keys, _r.START)
        ids = sorted({k[0] for k in keys})
        if not ids:
            return out
        with self.engine.connect() as c:
            for r in c.execute(select(ratings).where(ratings.c.user_id.in_(ids))).all():
                k = (r.user_id, r.game, r.clock_class)
                if k in out:
                    out[k] = _r.Rating(r.rating, r.rd, r.vol)
        return out

    @_guarded
    def ratings_of(self, user_id: str) -> list[dict]:
        """Every rating of ``user_id``: ``{"game", "clock_class", "rating", "rd", "provisional", "established",
        "matches", "opponents", "wins"}`` (``provisional``: not established yet, or a deviation above
        :data:`~nardy.web.ratings.PROVISIONAL_RD`)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(ratings).where(ratings.c.user_id == user_id).order_by(ratings.c.game, ratings.c.clock_class)
            ).all()
        return [_rating_row(r) for r in rows]

    @_guarded
    def leaderboard(self, game: str, klass: str, limit: int = 50, offset: int = 0, pool: str = "people") -> list[dict]:
        """The established ratings of ``game`` at ``klass`` (:func:`~nardy.web.ratings.established`) of the
        players of rating pool ``pool`` (``people``, or ``bots``: the bot accounts rated among themselves, issue
        44), highest first: ``{"rank", "id", "name", "bot", "rating", "rd", "provisional", "established",
        "matches", "opponents", "wins"}``. A provisional player (too few rated matches or opponents) is not
        listed."""
        q = (
            select(ratings, users.c.name, users.c.bot)
            .join(users, users.c.id == ratings.c.user_id)
            .where(
                users.c.pool == pool,
                ratings.c.game == game,
                ratings.c.clock_class == klass,
                ratings.c.matches >= _r.ESTABLISHED_MATCHES,
                ratings.c.opponents >= _r.ESTABLISHED_OPPONENTS,
            )
            .order_by(ratings.c.rating.desc(), ratings.c.user_id)
            .limit(limit)
            .offset(offset)
        )
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [
            {"rank": offset + i + 1, "id": r.user_id, "name": r.name, "bot": bool(r.bot), **_rating_row(r)}
            for i, r in enumerate(rows)
        ]

    @_guarded
    def history(self, user_id: str, limit: int = 50, offset: int = 0) -> list[dict]:
        """``user_id``'s rated matches, most recent first: the game id, game, clock class, opponent (id and
        name), length, won, how it ended, the rating before and after, the deviation after and the result's
        weight (1, or less for a repeated result of the same two players)."""
        q = (
            select(history, users.c.name.label("opponent_name"))
            .join(users, users.c.id == history.c.opponent, isouter=True)
            .where(history.c.user_id == user_id)
            .order_by(history.c.at.desc(), history.c.game_id)
            .limit(limit)
            .offset(offset)
        )
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [
            {
                "game_id": r.game_id,
                "game": r.game,
                "clock_class": r.clock_class,
                "opponent": {"id": r.opponent, "name": r.opponent_name},
                "length": r.length,
                "won": bool(r.won),
                "reason": r.reason,
                "before": round(r.before, 2),
                "after": round(r.after, 2),
                "rd": round(r.rd, 2),
                "weight": r.weight if r.weight is not None else 1.0,
                "at": _aware(r.at).isoformat(),
            }
            for r in rows
        ]

    @_guarded
    def fair_play(self, user_id: str) -> dict:
        """``user_id``'s rated matches lost by leaving (``abandoned``) and on time (``time``), and all rated."""
        q = (
            select(history.c.reason, func.count().label("n"))
            .where(history.c.user_id == user_id, history.c.won.is_(False))
            .group_by(history.c.reason)
        )
        with self.engine.connect() as c:
            lost = {r.reason: int(r.n) for r in c.execute(q).all()}
            total = c.execute(select(func.count()).select_from(history).where(history.c.user_id == user_id)).scalar()
        return {"rated": int(total or 0), "abandoned": lost.get("abandoned", 0), "time": lost.get("time", 0)}

    def rate_match(self, m: RatedMatch, now: _dt.datetime | None = None):
        """A step for :meth:`Storage.save` (``also=``): on the save's connection, update both players' ratings
        for the finished match ``m`` and write their history rows (nothing when ``m`` was rated already, and
        nothing when the two have had :data:`~nardy.web.ratings.PAIR_WEIGHTS` rated results together within
        :data:`~nardy.web.ratings.PAIR_WINDOW_HOURS`: see :meth:`_rate_in`)."""

        def run(c) -> None:
            self._rate_in(c, m, now or _now())

        return run

    @staticmethod
    def _pair_results(c, a: str, b: str, since: _dt.datetime) -> int:
        """Rated results of players ``a`` and ``b`` together (any game, any clock class) since ``since``."""
        q = (
            select(func.count())
            .select_from(history)
            .where(history.c.user_id == a, history.c.opponent == b, history.c.at > since)
        )
        return int(c.execute(q).scalar() or 0)

    @staticmethod
    def _met_before(c, m: RatedMatch, uid: str, opp: str) -> bool:
        q = select(history.c.game_id).where(
            history.c.user_id == uid,
            history.c.opponent == opp,
            history.c.game == m.game,
            history.c.clock_class == m.clock_class,
        )
        return c.execute(q.limit(1)).first() is not None

    def _rate_in(self, c, m: RatedMatch, now: _dt.datetime) -> None:
        """Rate ``m`` on connection ``c`` at ``now``: once per match; never one's own; weighted by the two
        players' rated results together in the window before ``now`` (:func:`~nardy.web.ratings.pair_weight`;
        weight 0: not rated at all, no history rows); each player's count of different opponents grows when
        they had not met in this game and clock class."""
        if c.execute(select(history.c.game_id).where(history.c.game_id == m.game_id).limit(1)).first() is not None:
            return
        if m.winner == m.loser:  # playing oneself is never rated
            return
        ids = sorted({m.winner, m.loser})
        for uid in ids:  # a first rated match: the starting rating (another writer may insert it first)
            stmt = insert_of(c, ratings).values(
                user_id=uid,
                game=m.game,
                clock_class=m.clock_class,
                rating=_r.START.rating,
                rd=_r.START.rd,
                vol=_r.START.vol,
                matches=0,
                wins=0,
                updated=now,
                opponents=0,
            )
            c.execute(stmt.on_conflict_do_nothing(index_elements=["user_id", "game", "clock_class"]))
        q = (
            select(ratings)
            .where(ratings.c.user_id.in_(ids), ratings.c.game == m.game, ratings.c.clock_class == m.clock_class)
            .order_by(ratings.c.user_id)
        )
        if c.dialect.name == "postgresql":
            q = q.with_for_update()  # the rows locked in the order of the ids: two matches never deadlock
        rows = {r.user_id: r for r in c.execute(q).all()}
        # counted under the rows' locks: two results of one pair at once are counted one after the other
        earlier = self._pair_results(c, m.winner, m.loser, now - _dt.timedelta(hours=_r.PAIR_WINDOW_HOURS))
        weight = _r.pair_weight(earlier)
        if weight <= 0:
            return

        def before(uid: str) -> _r.Rating:
            r = rows[uid]
            days = (now - _aware(r.updated)).total_seconds() / 86400 if r.matches else 0.0
            return _r.idle(_r.Rating(r.rating, r.rd, r.vol), days)

        w0, l0 = before(m.winner), before(m.loser)
        w1, l1 = _r.match_update(w0, l0, m.length, weight=weight)
        for uid, old, new, won, opp in ((m.winner, w0, w1, True, m.loser), (m.loser, l0, l1, False, m.winner)):
            met = self._met_before(c, m, uid, opp)
            c.execute(
                update(ratings)
                .where(ratings.c.user_id == uid, ratings.c.game == m.game, ratings.c.clock_class == m.clock_class)
                .values(
                    rating=new.rating,
                    rd=new.rd,
                    vol=new.vol,
                    matches=ratings.c.matches + 1,
                    wins=ratings.c.wins + (1 if won else 0),
                    opponents=ratings.c.opponents + (0 if met else 1),
                    updated=now,
                )
            )
            c.execute(
                history.insert().values(
                    game_id=m.game_id,
                    user_id=uid,
                    game=m.game,
                    clock_class=m.clock_class,
                    opponent=opp,
                    length=m.length,
                    won=won,
                    reason=m.reason[:16],
                    before=old.rating,
                    after=new.rating,
                    rd=new.rd,
                    at=now,
                    weight=weight,
                )
            )
