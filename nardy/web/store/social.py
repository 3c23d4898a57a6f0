"""Follows and players' settings (schema revision 0010, issue 43): who follows whom, and each account's
settings (the turn alerts) as JSON.

A follower sees whom they follow online and the game they play, unless either blocks the other (then the
followed player is shown offline and playing nothing), and only a game open to watchers (a private game is
never named). Every method is one short transaction and raises
:class:`~nardy.web.store.storage.StorageUnavailable` when the database fails.
"""

from __future__ import annotations

import datetime as _dt
import json

from sqlalchemy import Column, DateTime, Index, String, Table, Text, and_, delete, func, or_, select

from .community import PRESENCE_FRESH, UNFINISHED, Community, blocks, community, presence
from .db import _guarded, _now, games, metadata, users
from .ratingbook import insert_of

__all__ = ["Social", "FollowLimit", "social", "follows", "user_settings", "MAX_FOLLOWS", "DEFAULT_SETTINGS"]

#: Players one may follow at most.
MAX_FOLLOWS = 200

#: The settings of a player who saved none (``/api/me/settings``).
DEFAULT_SETTINGS: dict = {"alerts": {"title": True, "notifications": False, "sound": True}}

follows = Table(
    "nardy_follows",
    metadata,
    Column("follower", String(32), primary_key=True),
    Column("followed", String(32), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
)
Index("ix_nardy_follows_followed", follows.c.followed)

user_settings = Table(
    "nardy_user_settings",
    metadata,
    Column("user_id", String(32), primary_key=True),
    Column("settings", Text, nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
)


class FollowLimit(Exception):
    """The follower follows :data:`MAX_FOLLOWS` players already."""


class Social:
    """Follows and settings on the database of a :class:`~nardy.web.store.community.Community`."""

    def __init__(self, com: Community):
        self.storage = com.storage
        self.engine = com.engine
        self.community = com

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage.safe_url

    @_guarded
    def follow(self, follower: str, followed: str, now: _dt.datetime | None = None) -> bool:
        """``follower`` follows ``followed``; False when they did already. Raises :class:`FollowLimit`."""
        with self.engine.begin() as c:
            n = c.execute(select(func.count()).select_from(follows).where(follows.c.follower == follower)).scalar()
            stmt = insert_of(c, follows).values(follower=follower, followed=followed, created=now or _now())
            stmt = stmt.on_conflict_do_nothing(index_elements=["follower", "followed"]).returning(follows.c.follower)
            if (n or 0) >= MAX_FOLLOWS:
                exists = c.execute(
                    select(follows.c.follower).where(follows.c.follower == follower, follows.c.followed == followed)
                ).first()
                if exists is None:
                    raise FollowLimit()
                return False
            return c.execute(stmt).first() is not None

    @_guarded
    def unfollow(self, follower: str, followed: str) -> bool:
        with self.engine.begin() as c:
            res = c.execute(delete(follows).where(follows.c.follower == follower, follows.c.followed == followed))
        return res.rowcount == 1

    @_guarded
    def following(self, follower: str, now: _dt.datetime | None = None) -> list[dict]:
        """Whom ``follower`` follows, by name: ``{"uid", "name", "online", "playing"}`` (``playing``: the id of
        an unfinished game open to watchers they sit at, else ``None``); a player either of the two blocks is
        shown offline, playing nothing."""
        since = (now or _now()) - PRESENCE_FRESH
        with self.engine.connect() as c:
            rows = c.execute(
                select(users.c.id, users.c.name)
                .join(follows, follows.c.followed == users.c.id)
                .where(follows.c.follower == follower)
                .order_by(users.c.name, users.c.id)
            ).all()
            ids = [r.id for r in rows]
            if not ids:
                return []
            hidden = {
                r.blocker if r.blocker != follower else r.blocked
                for r in c.execute(
                    select(blocks.c.blocker, blocks.c.blocked).where(
                        or_(
                            and_(blocks.c.blocker == follower, blocks.c.blocked.in_(ids)),
                            and_(blocks.c.blocked == follower, blocks.c.blocker.in_(ids)),
                        )
                    )
                ).all()
            }
            online = set(
                c.execute(
                    select(presence.c.user_id).where(presence.c.user_id.in_(ids), presence.c.seen >= since).distinct()
                ).scalars()
            )
            playing: dict[str, str] = {}
            for g in c.execute(
                select(games.c.id, games.c.seat0, games.c.seat1)
                .where(
                    or_(games.c.seat0.in_(ids), games.c.seat1.in_(ids)),
                    games.c.seat0 != games.c.seat1,
                    games.c.visibility == "public",
                    games.c.status.in_(UNFINISHED),
                )
                .order_by(games.c.created.desc())
                .limit(4 * len(ids))
            ).all():
                for seat in (g.seat0, g.seat1):
                    if seat in ids:
                        playing.setdefault(seat, g.id)
        return [
            {
                "uid": r.id,
                "name": r.name,
                "online": r.id in online and r.id not in hidden,
                "playing": None if r.id in hidden else playing.get(r.id),
            }
            for r in rows
        ]

    @_guarded
    def settings(self, user_id: str) -> dict:
        """``user_id``'s settings: :data:`DEFAULT_SETTINGS` overlaid with what they saved."""
        with self.engine.connect() as c:
            raw = c.execute(select(user_settings.c.settings).where(user_settings.c.user_id == user_id)).scalar()
        out = json.loads(json.dumps(DEFAULT_SETTINGS))
        if raw:
            saved = json.loads(raw)
            for k, v in saved.items():
                out[k] = {**out.get(k, {}), **v} if isinstance(v, dict) else v
        return out

    @_guarded
    def save_settings(self, user_id: str, settings: dict, now: _dt.datetime | None = None) -> None:
        """Store ``settings`` (JSON-able, already validated) as ``user_id``'s, whole."""
        now = now or _now()
        text = json.dumps(settings, sort_keys=True)
        with self.engine.begin() as c:
            stmt = insert_of(c, user_settings).values(user_id=user_id, settings=text, updated=now)
            c.execute(stmt.on_conflict_do_update(index_elements=["user_id"], set_={"settings": text, "updated": now}))


def social(app) -> Social:
    """The app's :class:`Social` (made once, on the app's community)."""
    s = getattr(app.state, "social", None)
    if s is None:
        s = app.state.social = Social(community(app))
    return s
