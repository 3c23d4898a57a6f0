"""A play typed in the game page's box (``POST /api/games/{id}/actions`` ``{"action": "play", "play": text,
"typed": true}``; docs/online.md, "Playing faster"): the text is in the player's own numbering of the page
(``own``, ``absolute`` board numbers or ``traditional``), with slashes or dashes (``24/18 13/11``, ``24-18``),
and becomes the mover's own-numbered notation the ``play`` action stores (:func:`nardy.flow.entry.to_own`):
stored, replayed and idempotent as any play."""

from __future__ import annotations

from ...flow.entry import to_own

__all__ = ["typed_play"]


def typed_play(session, text: str | None, numbering: str, side: int) -> str | None:
    """``text`` typed by ``side`` in ``numbering``, as the mover's own notation (``None`` stays ``None``: the
    action's own check refuses a play without text).

    Raises:
        NotationError: ``bad_point`` (a label the numbering lacks) or ``bad_notation``."""
    if text is None:
        return None
    return to_own(text, numbering, side, session.match.rules.name)
