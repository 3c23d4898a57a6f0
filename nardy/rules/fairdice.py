"""Provably fair dice: scheme ``nardy-hmac-sha256-v1`` (docs/fairness.md says why it is fair and how to check).

The server draws a secret *server seed* (32 random bytes) and publishes its *commitment*, the SHA-256 of
those bytes, when the game is created. Each player then gives a *client seed*, only after being shown the
commitment, and sends that commitment back with it (or leaves it to the server, which makes one); the
record's ``order`` keeps this sequence (:func:`commit_event`, :func:`seed_event`, :func:`order_problem`).
Roll number ``n`` (0, 1, 2, ... over every call of the dice source in the match: each
opening die, each two-dice roll, across all the games of the match) is read from::

    digest = HMAC-SHA256(key=server_seed, msg=f"{seed0}:{seed1}:{n}".encode())

byte by byte: a byte ``b < 252`` gives the die ``b % 6 + 1``, a byte ``>= 252`` is skipped (252 = 42 * 6,
so each face comes from exactly 42 byte values: no modulo bias). A two-dice roll takes the first two
dice, a one-die call the first. Should the 32 bytes run out (needs 31 of them >= 252), reading goes on
with ``HMAC-SHA256(key, f"{seed0}:{seed1}:{n}:{k}")`` for ``k = 1, 2, ...``.

The server seed is shown when the match is over; anyone can then check the commitment and every roll
(:func:`verify`, ``nardy verify-dice FILE``, or ten lines of Python with :mod:`hmac`).

* :class:`FairDice`: a dice source (as :class:`~nardy.rules.dice.DiceSource`) rolling by the scheme and keeping
  the log of the rolls it made; its saved state holds the server seed (never shown to a client before the
  match is over).
* :func:`new_server_seed`, :func:`commitment`, :func:`derive`, :func:`check_client_seed`.
* :func:`public_record`: the JSON anyone may see (the seed only when ``reveal``, the order of commitment and
  seeds when given); :func:`verify` checks one, the order included.

Example::

    >>> dice = FairDice(bytes(range(32)), ("alice", "bob"))
    >>> dice.roll_one(), dice.roll()
    (3, (6, 1))
    >>> derive(bytes(range(32)), ("alice", "bob"), 1, 2)
    (6, 1)
    >>> verify(public_record(dice, reveal=True)).ok
    True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .errors import GameStateError, InvalidDiceError, InvalidOptionError

__all__ = [
    "SCHEME",
    "SEED_BYTES",
    "FairDice",
    "Verification",
    "new_server_seed",
    "commitment",
    "derive",
    "check_client_seed",
    "public_record",
    "commit_event",
    "seed_event",
    "order_problem",
    "order_text",
    "verify",
    "check_fair_state",
]

#: The name of the scheme (the ``scheme`` field of a public record and of the saved state).
SCHEME = "nardy-hmac-sha256-v1"
#: Length of the server seed in bytes (64 hex characters).
SEED_BYTES = 32
#: Bytes from 252 up are skipped: 252 = 42 * 6 values map evenly onto the six faces.
LIMIT = 252

_CLIENT_SEED = re.compile(r"[0-9A-Za-z_-]{1,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _quote(value: object) -> str:
    from .ids import _quote as quote

    return quote(value)


# ----- the scheme --------------------------------------------------------------------------------------
def new_server_seed() -> bytes:
    """A fresh server seed: 32 bytes from the operating system's random source (:func:`secrets.token_bytes`)."""
    return secrets.token_bytes(SEED_BYTES)


def _check_server_seed(server_seed) -> bytes:
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        what = f"{len(server_seed)} bytes" if isinstance(server_seed, bytes) else type(server_seed).__name__
        raise InvalidDiceError(f"server seed ({what}): expected {SEED_BYTES} bytes")
    return server_seed


def commitment(server_seed: bytes) -> str:
    """The commitment published before any roll: ``sha256(server_seed).hexdigest()`` (64 lowercase hex).

    Raises:
        InvalidDiceError: ``server_seed`` is not 32 bytes.
    """
    return hashlib.sha256(_check_server_seed(server_seed)).hexdigest()


def check_client_seed(text) -> str:
    """``text`` if it is a client seed: a string of 1-64 characters ``0-9 A-Z a-z _ -`` (returned as given).

    Raises:
        InvalidOptionError: anything else (the message quotes it); ``params``: ``{"option": "client_seed"}``.
    """
    if not isinstance(text, str) or not _CLIENT_SEED.fullmatch(text):
        raise InvalidOptionError(
            f"client seed {_quote(text)}: expected 1-64 characters 0-9, A-Z, a-z, _ or -",
            params={"option": "client_seed"},
        )
    return text


def _dice_stream(key: bytes, prefix: str, n: int) -> Iterator[int]:
    """The dice of roll ``n`` in order (endless): the digest's bytes < 252, then the next blocks'."""
    k = 0
    while True:
        msg = f"{prefix}:{n}" if k == 0 else f"{prefix}:{n}:{k}"
        for b in hmac.digest(key, msg.encode(), "sha256"):
            if b < LIMIT:
                yield b % 6 + 1
        k += 1


def _derive(key: bytes, prefix: str, n: int, count: int) -> tuple[int, ...]:
    if count <= 2:  # the usual case: the first block is enough unless 31 of its 32 bytes are >= 252
        got = [b % 6 + 1 for b in hmac.digest(key, f"{prefix}:{n}".encode(), "sha256") if b < LIMIT][:count]
        if len(got) == count:
            return tuple(got)
    stream = _dice_stream(key, prefix, n)
    return tuple(next(stream) for _ in range(count))


def derive(server_seed: bytes, seeds: Sequence[str], n: int, count: int = 2) -> tuple[int, ...]:
    """The first ``count`` dice of roll number ``n``: ``(d1, d2)`` for a two-dice roll, ``(d,)`` for one die.

    Args:
        server_seed: the 32-byte server seed (the HMAC key).
        seeds: the client seeds ``(seat 0, seat 1)``.
        n: the roll number (0 for the match's first call of the dice source).
        count: how many dice to read (1 or 2 in play; any positive number reads on through the blocks).
    Raises:
        InvalidDiceError: a server seed that is not 32 bytes, ``n`` or ``count`` out of range.
        InvalidOptionError: a client seed that :func:`check_client_seed` refuses.
    """
    key = _check_server_seed(server_seed)
    if not isinstance(seeds, (tuple, list)) or len(seeds) != 2:
        raise InvalidOptionError(f"client seeds {_quote(seeds)}: expected two (seat 0, seat 1)")
    s0, s1 = (check_client_seed(s) for s in seeds)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidDiceError(f"roll number {_quote(n)}: expected an integer >= 0")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidDiceError(f"count {_quote(count)}: expected an integer >= 1")
    return _derive(key, f"{s0}:{s1}", n, count)


# ----- the dice source ---------------------------------------------------------------------------------
def _die(v) -> bool:
    return type(v) is int and 1 <= v <= 6


def _is_roll(r) -> bool:
    return isinstance(r, (list, tuple)) and len(r) in (1, 2) and all(_die(x) for x in r)


class FairDice:
    """Dice by scheme ``nardy-hmac-sha256-v1``: roll ``n`` is :func:`derive` ``(server_seed, client_seeds, n)``.

    Args:
        server_seed: 32 secret bytes (:func:`new_server_seed`); its :func:`commitment` is what players see.
        client_seeds: ``(seat 0, seat 1)`` (White, Black); a seat's seed may be ``None`` until that player
            gives it (:meth:`set_client_seed`), but nothing can be rolled before both are given.
        n: the number of the next roll (the number of rolls made so far).
        rolls: the log of the rolls made, ``[[d1, d2] | [d], ...]`` (index = roll number); ``len(rolls)``
            must be ``n``. ``None`` is an empty log.
    Raises:
        InvalidDiceError: a server seed that is not 32 bytes, a log that is not rolls of dice 1-6 or does not
            have ``n`` entries, rolls made without both client seeds.
        InvalidOptionError: a client seed that :func:`check_client_seed` refuses.

    Attributes ``server_seed``, ``client_seeds``, ``n`` and ``rolls`` (tuples) hold the state; the repr shows
    only the commitment, never the seed.
    """

    kind = "fair"
    #: nothing here is a seed of :class:`random.Random` (as :attr:`DiceSource.seed`)
    seed = None

    def __init__(
        self,
        server_seed: bytes,
        client_seeds: Sequence[str | None],
        n: int = 0,
        rolls: Sequence[Sequence[int]] | None = None,
    ):
        self.server_seed: bytes = _check_server_seed(server_seed)
        if not isinstance(client_seeds, (tuple, list)) or len(client_seeds) != 2:
            raise InvalidOptionError(f"client seeds {_quote(client_seeds)}: expected two (seat 0, seat 1)")
        self.client_seeds: tuple[str | None, str | None] = (
            None if client_seeds[0] is None else check_client_seed(client_seeds[0]),
            None if client_seeds[1] is None else check_client_seed(client_seeds[1]),
        )
        log = [] if rolls is None else list(rolls)
        for k, r in enumerate(log):
            if not _is_roll(r):
                raise InvalidDiceError(f"rolls[{k}] {_quote(r)}: expected a roll [d1, d2] or a single die [d], 1-6")
        if isinstance(n, bool) or not isinstance(n, int) or n != len(log):
            raise InvalidDiceError(f"roll counter n {_quote(n)}: expected {len(log)} (the number of rolls logged)")
        if log and None in self.client_seeds:
            raise InvalidDiceError("rolls logged without both client seeds")
        self.n: int = n
        self.rolls: list[tuple[int, ...]] = [tuple(r) for r in log]

    # ----- rolling ------------------------------------------------------------------------------------
    def _next(self, count: int) -> tuple[int, ...]:
        s0, s1 = self.client_seeds
        if s0 is None or s1 is None:
            seat = 0 if s0 is None else 1
            raise GameStateError(f"fair dice: the client seed of seat {seat} is not given yet")
        d = _derive(self.server_seed, f"{s0}:{s1}", self.n, count)
        self.rolls.append(d)
        self.n += 1
        return d

    def roll_one(self) -> int:
        """One die, 1..6 (one roll number, logged as ``[d]``).

        Raises:
            GameStateError: a client seed is not given yet."""
        return self._next(1)[0]

    def roll(self) -> tuple[int, int]:
        """Two dice ``(d1, d2)``, each 1..6 (one roll number, logged as ``[d1, d2]``).

        Raises:
            GameStateError: a client seed is not given yet."""
        d1, d2 = self._next(2)
        return d1, d2

    def set_client_seed(self, seat: int, seed: str) -> None:
        """Give seat ``seat``'s client seed (0 White at create, 1 Black at join).

        Raises:
            GameStateError: that seat's seed is already given (a seed never changes once given).
            InvalidOptionError: ``seed`` is not a client seed; ``seat`` is not 0 or 1.
        """
        if seat not in (0, 1) or isinstance(seat, bool):
            raise InvalidOptionError(f"seat {_quote(seat)}: expected 0 or 1")
        seed = check_client_seed(seed)
        if self.client_seeds[seat] is not None:
            raise GameStateError(f"fair dice: the client seed of seat {seat} is already given")
        seeds = list(self.client_seeds)
        seeds[seat] = seed
        self.client_seeds = (seeds[0], seeds[1])

    @property
    def commitment(self) -> str:
        """:func:`commitment` of the server seed (64 lowercase hex)."""
        return commitment(self.server_seed)

    # ----- saving -------------------------------------------------------------------------------------
    def get_state(self) -> dict:
        """``{"scheme", "server_seed": hex, "client_seeds": [s0|None, s1|None], "n", "rolls": [[..], ..]}``
        (JSON-able; holds the secret server seed)."""
        return {
            "scheme": SCHEME,
            "server_seed": self.server_seed.hex(),
            "client_seeds": list(self.client_seeds),
            "n": self.n,
            "rolls": [list(r) for r in self.rolls],
        }

    def set_state(self, state) -> None:
        """Restore a state from :meth:`get_state`.

        Raises:
            InvalidDiceError: not such a state (:func:`check_fair_state`); the message names the bad field.
        """
        check_fair_state(state, _raise_invalid_dice)
        self.__init__(  # type: ignore[misc]
            bytes.fromhex(state["server_seed"]), tuple(state["client_seeds"]), state["n"], state["rolls"]
        )

    def to_dict(self) -> dict:
        """JSON-able description ``{"kind": "fair", "state": ...}`` (see :func:`nardy.rules.dice.dice_from_dict`)."""
        return {"kind": self.kind, "state": self.get_state()}

    def __repr__(self) -> str:
        return f"<FairDice commitment={self.commitment[:16]}... n={self.n}>"


def _raise_invalid_dice(field, value, why):
    raise InvalidDiceError(f"dice source state{field} {_quote(value)}: {why}")


def check_fair_state(state, fail) -> None:
    """Check a :meth:`FairDice.get_state` value; ``fail(subfield, value, why)`` raises (``subfield`` like
    ``".rolls[3]"``).

    The state is ``{"scheme", "server_seed", "client_seeds", "n", "rolls"}`` exactly: the scheme's name,
    64 lowercase hex characters, two client seeds (a seed ``null`` only while no roll is logged), ``n`` =
    the number of rolls logged, each roll ``[d1, d2]`` or ``[d]`` with dice 1-6. The rolls are not checked
    against the seeds here (:func:`verify` does that).
    """
    keys = ("scheme", "server_seed", "client_seeds", "n", "rolls")
    if not isinstance(state, dict):
        fail("", state, "expected {" + ", ".join(keys) + "}")
    for key in keys:
        if key not in state:
            fail(f".{key}", None, "missing")
    if set(state) != set(keys):
        fail("", sorted(map(str, state)), "expected exactly the keys " + ", ".join(keys))
    if state["scheme"] != SCHEME or not isinstance(state["scheme"], str):
        fail(".scheme", state["scheme"], f"expected {SCHEME!r}")
    seed = state["server_seed"]
    if not isinstance(seed, str) or not _HEX64.fullmatch(seed):
        fail(".server_seed", seed, "expected 64 lowercase hex characters (32 bytes)")
    seeds = state["client_seeds"]
    if not isinstance(seeds, (list, tuple)) or len(seeds) != 2:
        fail(".client_seeds", seeds, "expected two client seeds [seat 0, seat 1]")
    for i, s in enumerate(seeds):
        if s is not None and not (isinstance(s, str) and _CLIENT_SEED.fullmatch(s)):
            fail(f".client_seeds[{i}]", s, "expected 1-64 characters 0-9, A-Z, a-z, _ or - (or null)")
    rolls = state["rolls"]
    if not isinstance(rolls, (list, tuple)):
        fail(".rolls", rolls, "expected a list of rolls")
    for k, r in enumerate(rolls):
        if not _is_roll(r):
            fail(f".rolls[{k}]", r, "expected a roll [d1, d2] or a single die [d], dice 1-6")
    n = state["n"]
    if type(n) is not int or n != len(rolls):
        fail(".n", n, f"expected {len(rolls)} (the number of rolls logged: the next roll's number)")
    if rolls and None in seeds:
        fail(f".client_seeds[{list(seeds).index(None)}]", None, "rolls are logged: both client seeds must be given")


# ----- the public record and its check ------------------------------------------------------------------
def public_record(dice: FairDice, reveal: bool, order: list | None = None) -> dict:
    """What anyone may see of ``dice``: ``{"scheme", "commitment", "client_seeds": [s0|None, s1|None],
    "server_seed": hex | None, "rolls": [[d1, d2] | [d], ...]}``; the server seed only when ``reveal``
    (once the match is over: before that, it would tell every later roll). ``order``: the events of the
    commitment and the seeds (:func:`order_problem` says what they must show), kept under ``"order"``; ``None``
    leaves the key out (a record from before the order was kept)."""
    out: dict = {
        "scheme": SCHEME,
        "commitment": dice.commitment,
        "client_seeds": list(dice.client_seeds),
        "server_seed": dice.server_seed.hex() if reveal else None,
        "rolls": [list(r) for r in dice.rolls],
    }
    if order is not None:
        out["order"] = [dict(e) for e in order]
    return out


def commit_event(commitment_hex: str, t: float) -> dict:
    """The first event of a record's ``order``: the server published ``commitment_hex`` at ``t`` (Unix
    seconds) to the players, before any client seed was taken."""
    return {"event": "commit", "commitment": commitment_hex, "t": round(t, 3)}


def seed_event(seat: int, seed: str, by: str, t: float, shown: str | None = None) -> dict:
    """A seed event of a record's ``order``: seat ``seat``'s client seed ``seed`` was taken at ``t``.

    ``by``: ``"player"`` (the seat's player gave it, sending back ``shown``, the commitment they had been
    shown) or ``"server"`` (the player gave none: the server made it, and that side trusts the server).
    Raises InvalidOptionError: ``by`` is neither, or a player's seed comes without the commitment shown."""
    if by not in ("player", "server"):
        raise InvalidOptionError(f"seed by {_quote(by)}: expected 'player' or 'server'")
    out = {"event": "seed", "seat": seat, "by": by, "client_seed": check_client_seed(seed), "t": round(t, 3)}
    if by == "player":
        if not (isinstance(shown, str) and _HEX64.fullmatch(shown)):
            raise InvalidOptionError("a player's seed is recorded with the commitment they were shown")
        out["commitment"] = shown
    return out


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify`.

    Attributes:
        ok: the seed is revealed, the commitment matches it and every roll is the seeds' roll.
        revealed: the record shows the server seed (``False``: nothing but the shapes could be checked).
        commitment_ok: ``sha256(server seed) == commitment``; ``None`` when not revealed.
        rolls_total: rolls in the log.
        rolls_checked: rolls found right (all of them when ``ok``; those before the first bad one else; with a
            wrong order, the rolls are checked all the same).
        bad_roll: the roll number (log index) of the first roll that is not the seeds' roll, else ``None``.
        reason: ``None`` when ``ok``; else ``"not_revealed"``, ``"commitment"`` (the seed does not match
            the commitment), ``"order"`` (the record's ``order`` shows a client seed taken before the
            commitment, or after another commitment: ``order_problem``), ``"client_seed_missing"`` (rolls
            logged without both client seeds) or ``"roll"`` (roll ``bad_roll`` differs: ``got`` in the log,
            ``expected`` from the seeds).
        expected: the dice the seeds give for ``bad_roll``; ``got``: the logged ones.
        faces: how many logged dice show 1, 2, ... 6; ``doubles``: two-dice rolls that are doubles;
            ``two_dice`` / ``one_die``: rolls of each kind in the log.
        order_checked: the record has an ``order`` and it was checked (``False``: a record from before the
            order was kept: that each seed came after the commitment could not be checked; ``ok`` then says
            only that the commitment and the rolls check).
        order_problem: with reason ``"order"``: ``"commit_first"`` (event ``order_event`` should be the one
            commitment, first), ``"time"`` (event ``order_event`` is dated before the one above it),
            ``"seed_count"`` (seat ``order_seat`` has not exactly one seed event for its seed),
            ``"seed_value"`` (its event names another seed) or ``"shown"`` (its player sent their seed
            with the commitment ``order_shown``, not the one the server seed hashes to).
        server_seats: the seats whose seed the server made (their player gave none: those sides trust the
            server for the dice).
    """

    ok: bool
    revealed: bool
    commitment_ok: bool | None
    rolls_total: int
    rolls_checked: int
    bad_roll: int | None = None
    reason: str | None = None
    expected: tuple[int, ...] | None = None
    got: tuple[int, ...] | None = None
    faces: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    doubles: int = 0
    two_dice: int = 0
    one_die: int = 0
    order_checked: bool = False
    order_problem: str | None = None
    order_event: int | None = None
    order_seat: int | None = None
    order_shown: str | None = None
    server_seats: tuple[int, ...] = ()

    @property
    def detail(self) -> str:
        """English summary of the outcome (one line)."""
        if self.ok:
            done = f"the commitment matches and all {self.rolls_total} rolls are the seeds' rolls"
            if not self.order_checked:
                return done + "; the record does not show the order of the commitment and the seeds (not checked)"
            return done + "; each client seed was taken after the commitment"
        if self.reason == "order":
            return order_text(self.order_problem, self.order_event, self.order_seat, self.order_shown)
        if self.reason == "not_revealed":
            return "the server seed is not revealed yet (the match is not over): the rolls cannot be checked"
        if self.reason == "commitment":
            return "the server seed does not match the commitment"
        if self.reason == "client_seed_missing":
            return "rolls are logged but a client seed is missing"
        got = list(self.got or ())
        return f"roll {self.bad_roll} is {got}, but the seeds give {list(self.expected or ())}"


_SIDES = ("White (seat 0)", "Black (seat 1)")


def order_text(problem: str | None, event: int | None, seat: int | None, shown: str | None) -> str:
    """English words for an order problem of :class:`Verification` (``order_problem`` and its details)."""
    side = _SIDES[seat] if seat in (0, 1) else "?"
    return {
        "commit_first": f"the order is wrong: event {event} should be the commitment, published once and first",
        "time": f"the order is wrong: event {event} is dated before the event above it",
        "seed_count": f"the order is wrong: {side} has not exactly one seed event for its seed",
        "seed_value": f"the order is wrong: the seed event of {side} names another seed than the record's",
        "shown": f"the order is wrong: {side} gave their seed after being shown the commitment {shown}, "
        "not the one the server seed hashes to",
    }.get(problem or "", "the order is wrong")


def _wrong(problem: str, **where) -> tuple[str, dict]:
    return problem, where


def order_problem(record: dict) -> tuple[str, dict] | None:
    """What is wrong with the ``order`` of a checked record (:func:`verify` calls it), or ``None``.

    The order must show, in sequence (list order, times never going back): first and once, the commitment
    the server published (``{"event": "commit", "commitment", "t"}``, the record's commitment); then, for each
    seat with a client seed, exactly one ``{"event": "seed", "seat", "by", "client_seed", "t"}`` naming that
    seed, after the commitment; a seed given by its player (``by: "player"``) carries the commitment that
    player was shown and sent back with it, which must be the record's (the one the server seed hashes to
    once revealed). ``by: "server"``: the player gave none and the server made it. Returns ``(problem,
    details)`` as :class:`Verification`'s ``order_problem`` and ``order_event``/``order_seat``/``order_shown``.
    """
    events = record["order"]
    if not events or events[0]["event"] != "commit" or events[0]["commitment"] != record["commitment"]:
        return _wrong("commit_first", order_event=0)
    for k, e in enumerate(events):
        if k and e["event"] == "commit":
            return _wrong("commit_first", order_event=k)
        if k and e["t"] < events[k - 1]["t"]:
            return _wrong("time", order_event=k)
    for seat, seed in enumerate(record["client_seeds"]):
        mine = [e for e in events if e["event"] == "seed" and e["seat"] == seat]
        if len(mine) != (0 if seed is None else 1):
            return _wrong("seed_count", order_seat=seat)
        if not mine:
            continue
        e = mine[0]
        if e["client_seed"] != seed:
            return _wrong("seed_value", order_seat=seat)
        if e["by"] == "player" and e["commitment"] != record["commitment"]:
            return _wrong("shown", order_seat=seat, order_shown=e["commitment"])
    return None


def _check_order(order) -> None:
    """The shapes of a record's ``order`` (what the events must say is :func:`order_problem`'s)."""
    if not isinstance(order, list):
        _record_error("order", order, "expected a list of events")
    for k, e in enumerate(order):
        where = f"order[{k}]"
        if not isinstance(e, dict) or e.get("event") not in ("commit", "seed"):
            _record_error(where, e, "expected an event {'event': 'commit' or 'seed', ...}")
        t = e.get("t")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t != t or t in (float("inf"), float("-inf")):
            _record_error(f"{where}.t", t, "expected a time (Unix seconds)")
        if e["event"] == "commit":
            if not (isinstance(e.get("commitment"), str) and _HEX64.fullmatch(e["commitment"])):
                _record_error(f"{where}.commitment", e.get("commitment"), "expected 64 lowercase hex characters")
            continue
        if e.get("seat") not in (0, 1) or isinstance(e.get("seat"), bool):
            _record_error(f"{where}.seat", e.get("seat"), "expected 0 or 1")
        if e.get("by") not in ("player", "server"):
            _record_error(f"{where}.by", e.get("by"), "expected 'player' or 'server'")
        s = e.get("client_seed")
        if not (isinstance(s, str) and _CLIENT_SEED.fullmatch(s)):
            _record_error(f"{where}.client_seed", s, "expected 1-64 characters 0-9, A-Z, a-z, _ or -")
        shown = e.get("commitment")
        if e["by"] == "player" and not (isinstance(shown, str) and _HEX64.fullmatch(shown)):
            _record_error(f"{where}.commitment", shown, "a player's seed carries the commitment they were shown")


def _record_error(field: str, value, why: str):
    raise InvalidDiceError(f"not a fairness record: {field} {_quote(value)}: {why}")


def _check_record(record) -> dict:
    if isinstance(record, dict) and "scheme" not in record and isinstance(record.get("fairness"), dict):
        record = record["fairness"]  # a game record carrying the public record
    keys = ("scheme", "commitment", "client_seeds", "server_seed", "rolls")
    if not isinstance(record, dict):
        _record_error("record", record, "expected an object {" + ", ".join(keys) + "} (or one under 'fairness')")
    for key in keys:
        if key not in record:
            _record_error(key, None, "missing")
    if record["scheme"] != SCHEME or not isinstance(record["scheme"], str):
        _record_error("scheme", record["scheme"], f"this program checks {SCHEME!r}")
    for key in ("commitment", "server_seed"):
        v = record[key]
        if not (isinstance(v, str) and _HEX64.fullmatch(v)) and not (key == "server_seed" and v is None):
            _record_error(key, v, "expected 64 lowercase hex characters" + (" or null" if key == "server_seed" else ""))
    seeds = record["client_seeds"]
    if not isinstance(seeds, list) or len(seeds) != 2:
        _record_error("client_seeds", seeds, "expected two client seeds [seat 0, seat 1]")
    for i, s in enumerate(seeds):
        if s is not None and not (isinstance(s, str) and _CLIENT_SEED.fullmatch(s)):
            _record_error(f"client_seeds[{i}]", s, "expected 1-64 characters 0-9, A-Z, a-z, _ or - (or null)")
    rolls = record["rolls"]
    if not isinstance(rolls, list):
        _record_error("rolls", rolls, "expected a list of rolls")
    for k, r in enumerate(rolls):
        if not (isinstance(r, list) and _is_roll(r)):
            _record_error(f"rolls[{k}]", r, "expected a roll [d1, d2] or a single die [d], dice 1-6")
    if "order" in record:
        _check_order(record["order"])
    return record


def verify(record: dict) -> Verification:
    """Check a public record (:func:`public_record`), or a game record carrying one under ``"fairness"``.

    Checks that the server seed hashes to the commitment, that the record's ``order`` shows each client seed
    taken after that commitment (:func:`order_problem`; even before the seed is revealed; a record without
    ``order`` is from before it was kept: ``order_checked`` is then ``False``), then every roll in order
    against :func:`derive` (a ``[d]`` entry against the roll's first die, ``[d1, d2]`` against its first two).

    Raises:
        InvalidDiceError: not a record of scheme ``nardy-hmac-sha256-v1`` (a missing key, a value of the
            wrong type or shape); the message names the field and quotes the value.
    """
    rec = _check_record(record)
    rolls = [tuple(r) for r in rec["rolls"]]
    faces = [0] * 6
    for r in rolls:
        for d in r:
            faces[d - 1] += 1
    two = [r for r in rolls if len(r) == 2]

    has_order = "order" in rec
    servers = tuple(sorted({e["seat"] for e in rec.get("order", ()) if e["event"] == "seed" and e["by"] == "server"}))

    def outcome(revealed: bool, commitment_ok: bool | None, checked: int, **bad) -> Verification:
        return Verification(
            ok=bad.get("reason") is None and revealed and bool(commitment_ok),
            revealed=revealed,
            commitment_ok=commitment_ok,
            rolls_total=len(rolls),
            rolls_checked=checked,
            faces=tuple(faces),
            doubles=sum(1 for r in two if r[0] == r[1]),
            two_dice=len(two),
            one_die=len(rolls) - len(two),
            order_checked=has_order,
            server_seats=servers,
            **bad,
        )

    wrong = order_problem(rec) if has_order else None
    if rec["server_seed"] is None:
        if wrong:
            return outcome(False, None, 0, reason="order", order_problem=wrong[0], **wrong[1])
        return outcome(False, None, 0, reason="not_revealed")
    key = bytes.fromhex(rec["server_seed"])
    if hashlib.sha256(key).hexdigest() != rec["commitment"]:
        return outcome(True, False, 0, reason="commitment")
    s0, s1 = rec["client_seeds"]
    if rolls and (s0 is None or s1 is None):
        if wrong:
            return outcome(True, True, 0, reason="order", order_problem=wrong[0], **wrong[1])
        return outcome(True, True, 0, reason="client_seed_missing")
    prefix = f"{s0}:{s1}"
    checked = len(rolls)
    for n, got in enumerate(rolls):
        want = _derive(key, prefix, n, len(got))
        if want != got:
            if not wrong:
                return outcome(True, True, n, bad_roll=n, reason="roll", expected=want, got=got)
            checked = n
            break
    if wrong:  # the rolls are checked all the same (how many are right is told), but the order fails it
        return outcome(True, True, checked, reason="order", order_problem=wrong[0], **wrong[1])
    return outcome(True, True, len(rolls))
