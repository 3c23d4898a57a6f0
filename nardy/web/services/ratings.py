"""The ratings of a rated match that has just ended, stored with the game (docs/online.md "Ratings").

The rating rules are :mod:`nardy.web.ratings` (Glicko-2 weighted by length); the rows :mod:`nardy.web.store.community`.
"""

from __future__ import annotations

from .. import ratings as _r
from ..store.community import Community, RatedMatch

__all__ = ["rating_step"]


def rating_step(store, game):
    """For :meth:`Storage.save`: the ratings' update of a rated match that has just ended (``None`` when there
    is nothing to rate). Marks the session rated (``settings["rating_done"]``) before it is stored, so a match
    is rated once; the rows themselves are unique per match and player too. A match decided before each side
    took :data:`~nardy.web.ratings.MIN_TURNS` turns is not rated, however it ended (``settings["unrated"]``:
    ``"too_short"``; docs/online.md "Ratings")."""
    s = game.session
    if not s.rated or not s.table.is_over or s.settings.get("rating_done"):
        return None
    winner = s.table.winner
    if winner is None:
        return None
    if _r.too_short(s.match):
        s.settings.update(rating_done=True, unrated="too_short")
        return None
    seats = s.table.seats
    ended = s.table.ended
    m = RatedMatch(
        game_id=game.id,
        game=s.match.rules.name,
        clock_class=s.settings.get("rating_class") or "untimed",
        length=max(1, s.match.length),
        winner=seats[winner].player or "",
        loser=seats[1 - winner].player or "",
        reason=ended["reason"] if ended else "points",
    )
    s.settings["rating_done"] = True
    return Community(store).rate_match(m)
