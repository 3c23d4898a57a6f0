"""Who may do what in a hosted game: see it, act in it, for which side, and when (docs/security.md).

Every game belongs to whoever started it (:attr:`HostedGame.owner`); an online game has two remote seats; each
seated player acts only for their side and only on their turn (a resignation at any time); others watch only
if the game allows it. A private game's existence is never confirmed to others (404 as for a missing game).
"""

from __future__ import annotations

import hashlib
import hmac

from ...flow.table import ACTIONS
from ..errors import Refused
from ..sessions import HostedGame
from .loading import missing

__all__ = [
    "ANY_TIME",
    "forbidden",
    "conflict",
    "check_reader",
    "knows_of",
    "spend_invite",
    "check_owner",
    "acting_side",
    "check_turn",
    "viewer_for",
]

#: Actions a seated player may send when it is not their turn to act (they answer nothing; they give up).
ANY_TIME = ("resign",)


# ----- who may do what ------------------------------------------------------------------------------------
def forbidden(code: str, detail: str, **params) -> Refused:
    """A 403 refusal with its code and parameters (the catalogue words it)."""
    return Refused(403, detail, code=code, kind="Forbidden", params=params)


def conflict(code: str, detail: str, **params) -> Refused:
    """A 409 refusal with its code and parameters (the catalogue words it)."""
    return Refused(409, detail, code=code, kind="Conflict", params=params)


def check_reader(s: HostedGame, uid: str | None, gid: str) -> None:
    """Raise the 404 of a missing game (:func:`nardy.web.services.loading.missing`) unless player ``uid`` may see game
    ``gid`` (seated, owner, or watchers allowed): a private game's existence is never confirmed to others."""
    if not s.may_watch(uid):
        raise missing(gid)


def knows_of(s: HostedGame, uid: str | None, invite: str | None = None) -> bool:
    """Player ``uid`` may know that the game exists: they may see it (:meth:`HostedGame.may_watch`), its seat is
    kept for them (a rematch), or ``invite`` is its invitation, valid or spent (taken, cancelled, declined:
    whoever holds the link is told what became of it). Everyone else is answered as for a missing game."""
    if s.may_watch(uid) or (uid is not None and s.settings.get("reserved") == uid) or s.invite_matches(invite):
        return True
    spent = s.settings.get("invite_spent")
    if not spent or not isinstance(invite, str):
        return False
    return hmac.compare_digest(spent, hashlib.sha256(invite.encode()).hexdigest())


def spend_invite(s: HostedGame, spent: str | None) -> None:
    """Keep the hash of the invitation a join or a close has just used up (``invite_spent``)."""
    if spent:
        s.settings["invite_spent"] = spent


def check_owner(s: HostedGame, uid: str | None) -> None:
    """Raise 403 ``not_owner`` unless player ``uid`` made the game (a game saved before players had ids has
    no owner: anyone may)."""
    if s.owner is not None and uid != s.owner:
        raise forbidden("not_owner", "only the player who made this game may do that")


def acting_side(s: HostedGame, uid: str | None, player: int | None) -> int | None:
    """The side player ``uid`` acts for (``None``: the table's default, a game at one screen); whether it is
    that side's turn is :func:`check_turn`'s (asked after a stale action is told apart: a resend of the
    action that passed the turn is stale, not out of turn).

    Raises Refused 403: ``not_seated`` (no side of theirs), ``not_your_side`` (``player`` names a side they do
    not play)."""
    sides = s.sides_of(uid)
    if not sides:
        raise forbidden("not_seated", "you do not sit at this game")
    if s.online and player is not None and player not in sides:
        raise forbidden("not_your_side", f"you do not play side {player}", player=player)
    return player if player is not None else (sides[0] if len(sides) == 1 else None)


def check_turn(s: HostedGame, action: str, side: int | None) -> None:
    """Raises Refused 403 ``not_your_turn`` for an online game's ``action`` by ``side`` out of turn (other than
    a resignation and the actions of any time)."""
    if s.online and action not in ANY_TIME and action in ACTIONS:
        to_act = s.table.to_act
        if to_act is not None and to_act != side:
            raise forbidden(
                "not_your_turn",
                f"cannot {action}: it is the other player's turn",
                player=side,
                expected=to_act,
                action=action,
            )


def viewer_for(s: HostedGame, uid: str | None, viewer: int | None) -> tuple[int | None, list[int] | None]:
    """The side at the bottom and the sides the viewer may act for: an online game's player sees their own
    side; a watcher sees White's (or ``viewer``) and may act for none; a game at one screen: as asked."""
    if not s.online:
        return viewer, None
    sides = s.sides_of(uid)
    return (viewer if viewer is not None else (sides[0] if sides else 0)), sides
