"""Who may do what in a hosted game, and an online game's invitation, seat and provably fair dice: the part of
:class:`nardy.web.sessions.HostedGame` that reads and changes its seats and settings (``settings``: ``opponent``,
``owner``, ``rated``, ``watchers``, ``closed``, ``invite_hash``, ``reserved``, ``fair``), never its play.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

from ..rules import fairdice
from ..rules.errors import GameStateError
from . import seeds

__all__ = ["HostedSeats"]


class HostedSeats:
    """The seats of a hosted game (a part of :class:`~nardy.web.sessions.HostedGame`, which gives it ``table``,
    ``match`` and ``settings``)."""

    table: Any
    settings: dict

    # ----- who may do what ----------------------------------------------------------------------
    @property
    def online(self) -> bool:
        return self.settings.get("opponent") == "online"

    @property
    def owner(self) -> str | None:
        """The player id the game belongs to (``None``: a game saved before players had ids)."""
        return self.settings.get("owner")

    def sides_of(self, user: str | None) -> list[int]:
        """The sides ``user`` (a player id) may act for: an online game's seats they hold; every person's side
        of a game of theirs against the computer or at one screen; none for anyone else."""
        if user is None:
            return []
        if self.online:
            return self.table.side_of(user)
        if self.owner is None or self.owner == user:
            return [i for i, seat in enumerate(self.table.seats) if seat.human]
        return []

    def may_watch(self, user: str | None) -> bool:
        """``user`` may see the game: they sit at it, own it, or it is an online game open to watchers."""
        return bool(self.sides_of(user)) or (user is not None and user == self.owner) or self.watchable

    @property
    def rated(self) -> bool:
        """A rated online match (made in the lobby; its result changes both players' ratings)."""
        return self.online and bool(self.settings.get("rated"))

    @property
    def watchable(self) -> bool:
        return self.online and bool(self.settings.get("watchers"))

    @property
    def closed(self) -> str | None:
        """``cancelled`` or ``declined`` for an invitation that will not be played, ``aborted`` for a game
        whose seeds did not come in time (:func:`nardy.web.seeds.check_due`), else ``None``."""
        return self.settings.get("closed")

    def close(self, why: str) -> None:
        """End an online game's invitation before anyone took the seat (``cancelled`` by the owner,
        ``declined`` by the invited). Raises GameStateError ``game_started``: the seat is taken."""
        if not self.table.waiting:
            raise GameStateError(f"cannot {why[:-1]}: the game has begun", code="game_started")
        self.settings["closed"] = why
        self.settings.pop("invite_hash", None)
        self.settings.pop("invite", None)

    # ----- online games: the invitation, the seat, the dice ------------------------------------
    def set_invite(self, token: str) -> None:
        """Keep the invitation ``token`` (shown again only to the owner, while the seat waits) and its SHA-256
        (what a join is checked against, in constant time)."""
        self.settings["invite_hash"] = hashlib.sha256(token.encode()).hexdigest()
        self.settings["invite"] = token

    def invite_matches(self, token: str | None) -> bool:
        want = self.settings.get("invite_hash")
        if not want or not isinstance(token, str):
            return False
        return hmac.compare_digest(want, hashlib.sha256(token.encode()).hexdigest())

    def join(
        self, user: str, name: str, client_seed: str | None, now: float | None = None, own_seed: bool = False
    ) -> int:
        """``user`` takes the empty seat of an online game under ``name``; the match begins (its first opening
        roll) once both seeds are in (:func:`nardy.web.seeds.maybe_start`). ``own_seed``: the player gives
        their own seed after the commitment (:func:`nardy.web.seeds.give_seed`); else the server makes it
        (``client_seed``: one made by an in-process caller, counted as the server's). Returns the side taken.

        Raises:
            GameStateError: not an online game, closed, no empty seat (``seat_taken``), or the owner
                joining their own invitation (``own_game``).
            InvalidOptionError: a malformed client seed."""
        if not self.online:
            raise GameStateError("only an online game has a seat to take", code="not_online")
        if self.closed:
            raise GameStateError(f"the invitation was {self.closed}", code="invite_closed", params={"why": self.closed})
        empty = [i for i, seat in enumerate(self.table.seats) if seat.empty]
        if not empty:
            raise GameStateError("both seats are taken", code="seat_taken")
        if self.table.side_of(user):
            raise GameStateError("you already sit at this game", code="own_game")
        side = empty[0]
        reserved = self.settings.get("reserved")
        if reserved is not None and reserved != user:
            raise GameStateError("this seat is kept for another player", code="seat_taken")
        if client_seed is not None:
            fairdice.check_client_seed(client_seed)
        now = time.time() if now is None else now
        self.table.take_seat(side, name, user, now)
        seeds.seat(self.settings["fair"], side, own_seed, now, client_seed)
        self.settings.pop("invite_hash", None)
        self.settings.pop("invite", None)
        self.settings.pop("reserved", None)
        seeds.maybe_start(self, now)
        return side

    def fairness(self) -> dict:
        """The public record of the provably fair dice (docs/fairness.md): scheme, commitment, the players'
        seeds, the rolls so far, the order of the commitment and the seeds (a game made before it was kept has
        none), and the server seed once the match is over (or the game closed)."""
        if not self.online:
            raise GameStateError("only online games roll provably fair dice", code="not_online")
        fair = self.settings["fair"]
        src = self.match.dice_source
        reveal = self.table.is_over or self.closed is not None
        order = fair.get("order")
        if isinstance(src, fairdice.FairDice):
            return fairdice.public_record(src, reveal, order)
        out = {
            "scheme": fairdice.SCHEME,
            "commitment": fair["commitment"],
            "client_seeds": list(fair["client_seeds"]),
            "server_seed": fair["server_seed"] if reveal else None,
            "rolls": [],
        }
        if order is not None:
            out["order"] = [dict(e) for e in order]
        return out
