"""Stored analyses (schema revision 0008): the analysis of a saved game, kept in the database with the game.

One row per ``(game_id, revision, level)``: the game's revision analysed and the analysis level
(:data:`nardy.analysis.ANALYSIS_LEVELS`). Another level sits beside; the same level at the same revision replaces
the row; storing an analysis of a newer revision drops the rows of older revisions (the game they describe is no
longer the stored one). Deleting a game deletes its analyses (:meth:`nardy.web.store.games.GameRows.delete`).

``data`` is the analysis answer's JSON (compact, UTF-8) compressed with zlib (:func:`pack`, :func:`unpack`);
``size`` is the JSON's length before compression (bytes). ``player0`` and ``player1``: the player ids of the two
sides (``NULL`` for the computer, or a game saved before players had ids), so a player's analyses are found
without reading the games; ``digest``: a short JSON summary of the analysis per side
(:func:`nardy.analysis.stats.digest`), what a player's statistics are made of without unpacking every analysis.

Every method is one short transaction and raises :class:`~nardy.web.store.db.StorageUnavailable` when the
database fails.
"""

from __future__ import annotations

import datetime as _dt
import json
import zlib
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    DateTime,
    Engine,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    or_,
    select,
)
from sqlalchemy.exc import IntegrityError

from .db import _aware, _guarded, _now, games, metadata

__all__ = ["analyses", "AnalysisRows", "StoredAnalysis", "AnalysisInfo", "pack", "unpack", "ANALYSIS_MAX"]

analyses = Table(
    "nardy_analyses",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("revision", Integer, primary_key=True),
    Column("level", String(16), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("size", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("player0", String(32), nullable=True),
    Column("player1", String(32), nullable=True),
    Column("digest", Text, nullable=False, default="{}"),
)
Index("ix_nardy_analyses_player0", analyses.c.player0)
Index("ix_nardy_analyses_player1", analyses.c.player1)

#: Largest analysis JSON stored (bytes before compression): a long match's analysis is a few MB at most.
ANALYSIS_MAX = 32 * 1024 * 1024

#: zlib's level for stored analyses (6, its default: within a few per cent of 9, several times faster).
ZLIB_LEVEL = 6


def pack(data: dict) -> tuple[bytes, int]:
    """``data`` as compact UTF-8 JSON compressed with zlib: ``(compressed bytes, JSON bytes)``.

    Raises:
        ValueError: the JSON passes :data:`ANALYSIS_MAX` bytes, or holds a number JSON has not (NaN, infinity)."""
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    if len(raw) > ANALYSIS_MAX:
        raise ValueError(f"analysis of {len(raw)} bytes: at most {ANALYSIS_MAX} are stored")
    return zlib.compress(raw, ZLIB_LEVEL), len(raw)


def unpack(blob: bytes) -> dict:
    """The analysis :func:`pack` made (a dict)."""
    return json.loads(zlib.decompress(blob, bufsize=1 << 16))


@dataclass
class AnalysisInfo:
    """A stored analysis without its data: which revision and level, when (UTC), its JSON's size and its stored
    (compressed) size in bytes."""

    revision: int
    level: str
    created: _dt.datetime
    size: int
    stored: int

    def to_dict(self) -> dict:
        return {
            "revision": self.revision,
            "level": self.level,
            "created": self.created.astimezone(_dt.UTC).isoformat(),
            "size": self.size,
            "stored": self.stored,
        }


@dataclass
class StoredAnalysis:
    """A stored analysis: its :class:`AnalysisInfo` and ``data`` (the analysis answer, unpacked)."""

    info: AnalysisInfo
    data: dict


class AnalysisRows:
    """The stored analyses of a :class:`~nardy.web.store.storage.Storage` (a part of it: its engine is
    :class:`~nardy.web.store.db.Database`'s)."""

    engine: Engine

    @_guarded
    def put_analysis(
        self,
        gid: str,
        revision: int,
        level: str,
        data: dict,
        players: tuple[str | None, str | None] = (None, None),
        digest: dict | None = None,
    ) -> AnalysisInfo | None:
        """Store the analysis ``data`` of game ``gid`` at ``revision`` and ``level`` (the same level replaces the
        row, another sits beside; rows of older revisions of the game are dropped). ``players``: the player ids
        of sides 0 and 1; ``digest``: :func:`nardy.analysis.stats.digest` of the analysis.

        Returns ``None`` (nothing stored) when the game is gone or is no longer at ``revision``.

        Raises:
            ValueError: :func:`pack` refused the analysis (too large, or not JSON).
        """
        blob, size = pack(data)
        now = _now()
        row = dict(
            game_id=gid,
            revision=revision,
            level=level,
            created=now,
            size=size,
            data=blob,
            player0=players[0],
            player1=players[1],
            digest=json.dumps(digest or {}, separators=(",", ":")),
        )
        for attempt in (1, 2):
            try:
                if not self._put_row(gid, revision, level, row):
                    return None
                break
            except IntegrityError:  # another process stored the same analysis meanwhile: replace it
                if attempt == 2:
                    raise
        return AnalysisInfo(revision, level, now, size, len(blob))

    def _put_row(self, gid: str, revision: int, level: str, row: dict) -> bool:
        with self.engine.begin() as c:
            stored = c.execute(select(games.c.revision).where(games.c.id == gid)).scalar()
            if stored != revision:
                return False  # the game is gone, or has moved on since (nobody asks for that state any more)
            newest = c.execute(
                select(analyses.c.revision).where(analyses.c.game_id == gid).order_by(analyses.c.revision.desc())
            ).first()
            if newest is not None and newest.revision > revision:
                return False  # an analysis of a newer revision is kept: this one is already stale
            c.execute(
                delete(analyses).where(
                    analyses.c.game_id == gid,
                    or_(
                        analyses.c.revision < revision, and_(analyses.c.revision == revision, analyses.c.level == level)
                    ),
                )
            )
            c.execute(analyses.insert().values(**row))
        return True

    @_guarded
    def analysis_levels(self, gid: str, revision: int) -> list[AnalysisInfo]:
        """The analyses stored of game ``gid`` at ``revision``, newest first (without their data)."""
        q = (
            select(
                analyses.c.revision,
                analyses.c.level,
                analyses.c.created,
                analyses.c.size,
                func.length(analyses.c.data).label("stored"),
            )
            .where(analyses.c.game_id == gid, analyses.c.revision == revision)
            .order_by(analyses.c.created.desc(), analyses.c.level)
        )
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [AnalysisInfo(r.revision, r.level, _aware(r.created), r.size, int(r.stored)) for r in rows]

    @_guarded
    def get_analysis(self, gid: str, revision: int, level: str | None = None) -> StoredAnalysis | None:
        """The analysis of game ``gid`` at ``revision``: at ``level``, or the newest stored (``None``: none)."""
        q = select(analyses).where(analyses.c.game_id == gid, analyses.c.revision == revision)
        if level is not None:
            q = q.where(analyses.c.level == level)
        q = q.order_by(analyses.c.created.desc(), analyses.c.level).limit(1)
        with self.engine.connect() as c:
            r = c.execute(q).first()
        if r is None:
            return None
        info = AnalysisInfo(r.revision, r.level, _aware(r.created), r.size, len(r.data))
        return StoredAnalysis(info, unpack(r.data))

    @_guarded
    def analysis_digests(self, user_id: str, viewer: str | None, limit: int = 500) -> list[dict]:
        """The digests of the analyses of games ``user_id`` played (a side of theirs), newest first, the newest
        analysis of each game only: ``{"game_id", "game", "revision", "created", "sides", "level", "digest"}``
        (``sides``: the sides ``user_id`` played, both in a game at one screen). ``viewer``: who asks; unless it
        is ``user_id``, only the games ``viewer`` may see (open to watchers, or theirs:
        seated or owner). At most ``limit`` games."""
        mine = or_(analyses.c.player0 == user_id, analyses.c.player1 == user_id)
        q = (
            select(
                analyses.c.game_id,
                analyses.c.revision,
                analyses.c.level,
                analyses.c.created,
                analyses.c.player0,
                analyses.c.player1,
                analyses.c.digest,
                games.c.game,
            )
            .join(games, games.c.id == analyses.c.game_id)
            .where(mine)
            .order_by(analyses.c.created.desc(), analyses.c.game_id)
        )
        if viewer != user_id:
            seen = [games.c.visibility == "public"]
            if viewer is not None:
                seen += [games.c.owner == viewer, games.c.seat0 == viewer, games.c.seat1 == viewer]
            q = q.where(or_(*seen))
        out: list[dict] = []
        taken: set[str] = set()
        with self.engine.connect() as c:
            for r in c.execute(q.limit(4 * limit)):
                if r.game_id in taken:
                    continue
                taken.add(r.game_id)
                out.append(
                    {
                        "game_id": r.game_id,
                        "game": r.game,
                        "revision": r.revision,
                        "created": _aware(r.created),
                        "sides": [k for k, p in enumerate((r.player0, r.player1)) if p == user_id],
                        "level": r.level,
                        "digest": json.loads(r.digest or "{}"),
                    }
                )
                if len(out) >= limit:
                    break
        return out
