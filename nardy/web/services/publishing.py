"""A stored game shown to its players and watchers: the view of one viewer, and the pushes to the live
connections (:class:`nardy.web.services.live.Hub`) after a change is stored here or in another process.
"""

from __future__ import annotations

import json

from ...rules.numbering import NUMBERINGS
from ..gamecache import Loaded
from ..view import SavedGameView, view_json
from . import events
from .access import viewer_for
from .live import Conn
from .seats import stamp

__all__ = ["shown", "shown_json", "conn_view", "publish", "follow", "publish_all"]


def shown(game: Loaded, uid: str | None, viewer: int | None, numbering: str) -> SavedGameView:
    """The view of the page for player ``uid``, with the game's ``id`` and ``seq``."""
    s = game.session
    numbering = numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"
    v, sides = viewer_for(s, uid, viewer)
    view = s.game_view(v, numbering, sides)
    stamp(game.id, view, s)
    return SavedGameView.of(game.id, game.saved.revision, view)


def shown_json(game: Loaded, uid: str | None, viewer: int | None, numbering: str) -> str:
    """:func:`shown` as JSON text, the same text as its ``model_dump_json(by_alias=True)`` (``id`` and ``seq``
    first, then the view's fields), without making the :class:`SavedGameView`."""
    s = game.session
    numbering = numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"
    v, sides = viewer_for(s, uid, viewer)
    view = s.game_view(v, numbering, sides, for_json=True)
    stamp(game.id, view, s)
    return view_json(game.id, game.saved.revision, view)


async def publish(app, gid: str, game: Loaded | None = None) -> None:
    """Push the stored game ``gid`` to its live connections in this process (the other server processes hear
    of the change from its ``NOTIFY``, :mod:`nardy.web.cluster`, and push theirs). ``game``: the game as just
    stored by this request (else it is read)."""
    hub = app.state.hub
    await hub.publish(gid, app.state.storage, conn_view, game, app.state.game_locks.local(gid))
    events.game_changed(app, gid)  # a program's event stream: the match may have finished (issue 44)


async def follow(app, key: str) -> None:
    """A game's notification from another server process (:mod:`nardy.web.cluster`, kind ``game``): ``key`` is
    ``"<id>"``, or ``"<id> <revision> <base> <logged action JSON>"`` when the change was one logged action
    (:meth:`nardy.web.store.storage.Storage.append`): this process's kept game follows it without a query when it is
    at the revision before. Then the game's live connections here are pushed their views."""
    gid, _, rest = key.partition(" ")
    notice = None
    if rest:
        try:
            rev, base, entry = rest.split(" ", 2)
            notice = (int(rev), int(base), json.loads(entry))
            if not isinstance(notice[2], dict):
                notice = None
        except ValueError:
            notice = None
    hub = app.state.hub
    await hub.publish(gid, app.state.storage, conn_view, None, app.state.game_locks.local(gid), notice)
    events.game_changed(app, gid)


def conn_view(game: Loaded, conn: Conn) -> str:
    """The view live connection ``conn`` is sent of ``game`` (its player's, side, numbering), as JSON text."""
    return shown_json(game, conn.user, conn.viewer, conn.numbering)


async def publish_all(app) -> None:
    """Push every game with live connections in this process again (notifications may have been missed)."""
    for gid in list(app.state.hub.games):
        await publish(app, gid)
