"""The order of an online game's provably fair dice: the commitment first, then each player's seed.

docs/fairness.md ("The order"). An online game's server seed is drawn, and its commitment published, when the
game is made (:func:`new_fair`), before anyone's client seed exists. Each seat's client seed is then either

* its player's own (the seat was taken with ``own_seed``): taken only by ``POST /api/games/{id}/seed`` (or a
  join carrying it) *with the commitment the player was shown*, which must be the game's (:func:`give_seed`):
  the player had the commitment before the server had their seed; or
* made by the server as the seat is taken, when the player asks for none (:func:`seat`): that side then
  trusts the server for the dice, and the record says so.

The match begins (its opening roll) once both seats are taken and both seeds are in (:func:`maybe_start`).
A game whose seeds are not both in :data:`SEED_WAIT` seconds after both seats were taken is aborted
(:func:`check_due`, run by the clock keeper at the game's ``clock_due``): no result, nothing rated, its
players free to play again.

Every step is an event of ``settings["fair"]["order"]`` (:func:`nardy.rules.fairdice.commit_event`,
:func:`nardy.rules.fairdice.seed_event`), which the public record shows as its ``order``;
:func:`nardy.rules.fairdice.order_problem` says what it must show. A game made before the order was kept has no
``order`` (its record says the order could not be checked) and is played on as it was.

The functions take the :class:`nardy.web.sessions.HostedGame` (``s``) and change its settings and table; the
caller stores the game.
"""

from __future__ import annotations

import secrets
import time

from ..rules import fairdice
from ..rules.errors import GameStateError
from .errors import Refused

__all__ = [
    "SEED_WAIT",
    "new_fair",
    "seat",
    "give_seed",
    "check_shown",
    "maybe_start",
    "seeding",
    "awaited",
    "due",
    "check_due",
    "refuse_early_seed",
]

#: Seconds the players have to give their seeds once both seats are taken; then the game is aborted.
SEED_WAIT = 60.0


def new_fair(now: float) -> dict:
    """A new game's ``settings["fair"]``: a fresh server seed and its commitment, published at ``now`` (the
    first event of the order), no client seed yet."""
    server_seed = fairdice.new_server_seed()
    c = fairdice.commitment(server_seed)
    return {
        "server_seed": server_seed.hex(),
        "commitment": c,
        "client_seeds": [None, None],
        "own": [False, False],
        "order": [fairdice.commit_event(c, now)],
        "due": None,
    }


def _take(fair: dict, side: int, seed: str, by: str, shown: str | None, now: float) -> None:
    fair["client_seeds"][side] = seed
    if "order" in fair:  # a game made before the order was kept goes on without one
        fair["order"].append(fairdice.seed_event(side, seed, by, now, shown))


def seat(fair: dict, side: int, own_seed: bool, now: float, client_seed: str | None = None) -> None:
    """The player of seat ``side`` sits down at ``now``. ``own_seed``: they will give their own seed after the
    commitment (:func:`give_seed`); else the server makes it now (``client_seed``: one made by an in-process
    caller, recorded as the server's too: it was not given after the commitment).

    Raises InvalidOptionError: ``client_seed`` is not a client seed."""
    if own_seed:
        fair.setdefault("own", [False, False])[side] = True
        return
    seed = fairdice.check_client_seed(client_seed) if client_seed is not None else secrets.token_hex(16)
    _take(fair, side, seed, "server", None, now)


def seeding(s) -> bool:
    """Both seats of online game ``s`` are taken but the match has not begun: a seed is still awaited."""
    return bool(s.online) and s.closed is None and not s.table.waiting and not s.match.games


def awaited(s, side: int) -> bool:
    """Seat ``side``'s player is to give their own seed (it was taken with ``own_seed``, none given yet, the
    game not closed)."""
    fair = s.settings.get("fair") or {}
    own = fair.get("own") or [False, False]
    return bool(s.online) and s.closed is None and bool(own[side]) and fair["client_seeds"][side] is None


def give_seed(s, side: int, seed: str, shown: str, now: float | None = None) -> bool:
    """Seat ``side``'s player gives their client ``seed``, sending back ``shown``, the commitment they were
    shown; the match begins when it was the last seed awaited. Returns True when the seed was taken now,
    False for the same seed again (a repeat whose answer was lost: nothing changes).

    Raises:
        GameStateError: ``game_closed`` (the game was cancelled, declined or aborted), ``seed_given`` (this
            seat's seed is in: another one, or the server's), ``commitment_mismatch`` (``shown`` is not this
            game's commitment: the seed is refused, the player must look at the game again).
        InvalidOptionError: ``seed`` is not a client seed.
    """
    now = time.time() if now is None else now
    fair = s.settings["fair"]
    seed = fairdice.check_client_seed(seed)
    if s.closed is not None:
        raise GameStateError(f"the game was {s.closed}", code="game_closed", params={"why": s.closed})
    given = fair["client_seeds"][side]
    if given is not None:
        if given == seed and (fair.get("own") or [False, False])[side]:
            return False
        raise GameStateError("the client seed of your seat is already given", code="seed_given")
    check_shown(s, shown)
    fair.setdefault("own", [False, False])[side] = True
    _take(fair, side, seed, "player", shown, now)
    maybe_start(s, now)
    return True


def check_shown(s, shown: str | None) -> None:
    """Raise GameStateError ``commitment_mismatch`` unless ``shown`` (the commitment a player sends back with
    their seed) is the commitment of game ``s``."""
    want = s.settings["fair"]["commitment"]
    if shown != want:
        raise GameStateError(
            "the commitment you sent is not this game's: look at the game again, then send your seed",
            code="commitment_mismatch",
            params={"commitment": want},
        )


def maybe_start(s, now: float) -> bool:
    """Begin the match of ``s`` if both seats are taken and both seeds are in (the fair dice made, the
    opening rolled); else, both seats taken, start the :data:`SEED_WAIT` for the seeds. True when begun."""
    if not seeding(s):
        return False
    fair = s.settings["fair"]
    seeds = fair["client_seeds"]
    if seeds[0] is None or seeds[1] is None:
        if fair.get("due") is None:
            fair["due"] = round(now + SEED_WAIT, 3)
        return False
    fair["due"] = None
    s.match.dice_source = fairdice.FairDice(bytes.fromhex(fair["server_seed"]), (seeds[0], seeds[1]))
    s.table.start(now)
    return True


def due(s) -> float | None:
    """When ``s`` is aborted if its seeds are not in by then (Unix seconds), ``None`` when nothing is awaited."""
    if not seeding(s):
        return None
    return (s.settings.get("fair") or {}).get("due")


def check_due(s, now: float) -> bool:
    """Abort ``s`` (closed ``aborted``: no result, nothing rated) when its seeds are not in by their time;
    True when it was aborted now."""
    when = due(s)
    if when is None or now < when:
        return False
    s.settings["closed"] = "aborted"
    s.settings["fair"]["due"] = None
    s.settings.pop("invite_hash", None)
    s.settings.pop("invite", None)
    return True


def refuse_early_seed(client_seed: str | None) -> None:
    """Refuse a client seed sent where the game's commitment cannot have been shown yet (making a game, a
    challenge, a seek, a rematch; accepting; joining without the commitment): 422 ``seed_before_commitment``.
    The player asks for ``own_seed`` there and sends the seed with the commitment once the game shows it."""
    if client_seed is not None:
        raise Refused(
            422,
            "a client seed is taken only after the game has shown you its commitment: ask for own_seed here, "
            "then send POST /api/games/{id}/seed {client_seed, commitment}",
            code="seed_before_commitment",
            kind="InvalidOptionError",
        )
