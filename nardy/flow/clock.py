"""Players' clocks: a time reserve per player, with a per-move delay or increment (docs/online.md, "Clocks").

The clock of the side *to act* runs: while they decide to roll or double, play their roll, answer a double
or a resignation. One *spell* is the time a side is to act without interruption (a roll and the play that
follows are one spell; a double, its answer, and the doubler's roll are three). Each spell starts with
``delay`` seconds that cost nothing (a simple delay, as on FIBS and the backgammon servers), and when it
ends the side gets ``increment`` seconds added (Fischer's increment, as the nardy sites' "1 minute plus
10 seconds a move"). A side whose reserve reaches zero while it is to act has *flagged*: it loses (see
:mod:`nardy.flow.table`).

A *correspondence* clock (``ClockSpec.correspondence(days)``, set as ``{"days": N}``, N in :data:`DAYS`) has no
reserve: each spell has ``N`` days (``initial`` = N * 86400 s), and a side that acts in time starts its next
spell with the whole ``N`` days again; one that lets a spell run out has flagged, as with any clock.

Times are wall-clock seconds (``time.time()``), always passed in as ``now`` (injected: tests and replays
pass their own), so a saved clock means the same after a restart; :meth:`Clock.shift` moves a running
spell's start forward by the time the server was down, so nobody pays for it.

    >>> c = Clock(ClockSpec(60, increment=10))
    >>> c.switch(0, now=1000.0)            # White to act
    >>> c.switch(1, now=1030.0)            # White played after 30 s: 60 - 30 + 10
    >>> c.left(0, now=1030.0), c.left(1, now=1045.0)
    (40.0, 45.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rules.errors import InvalidOptionError

__all__ = ["ClockSpec", "Clock", "CLOCK_PRESETS", "clock_spec", "DAYS", "DAY"]

#: Longest reserve a clock may have (24 hours) and longest delay/increment (10 minutes), in seconds.
MAX_INITIAL = 24 * 3600.0
MAX_EXTRA = 600.0
#: The days per move a correspondence clock may have, and a day in seconds.
DAYS = (1, 2, 3, 7)
DAY = 86400.0


@dataclass(frozen=True)
class ClockSpec:
    """How a clock is set: ``initial`` seconds of reserve per player, ``increment`` seconds added when a
    spell ends, ``delay`` free seconds at the start of each spell; ``days`` (one of :data:`DAYS`, else 0): a
    correspondence clock, ``days`` days a move and no reserve (``initial`` is then ``days * DAY``, no
    increment nor delay: make it with :meth:`correspondence`).

    Raises:
        InvalidOptionError: a negative, infinite or too large time, or a reserve under one second; days not
            one of :data:`DAYS`, or with other times.
    """

    initial: float
    increment: float = 0.0
    delay: float = 0.0
    days: int = 0

    @classmethod
    def correspondence(cls, days) -> ClockSpec:
        """``days`` days per move (one of :data:`DAYS`), no reserve.

        Raises:
            InvalidOptionError: other days."""
        if isinstance(days, bool) or days not in DAYS:
            raise InvalidOptionError(
                f"clock days {days!r:.20}: expected one of {', '.join(map(str, DAYS))}",
                code="bad_clock",
                params={"field": "days", "value": str(days)[:20]},
            )
        return cls(days * DAY, days=int(days))

    @property
    def per_move(self) -> bool:
        """A correspondence clock: each spell starts with the whole ``initial`` (no reserve is kept)."""
        return self.days != 0

    def __post_init__(self):
        if self.days:
            if (
                isinstance(self.days, bool)
                or self.days not in DAYS
                or (self.initial, self.increment, self.delay)
                != (
                    self.days * DAY,
                    0.0,
                    0.0,
                )
            ):
                raise InvalidOptionError(
                    f"clock days {self.days!r:.20}: expected one of {', '.join(map(str, DAYS))}, no other times",
                    code="bad_clock",
                    params={"field": "days", "value": str(self.days)[:20]},
                )
            return
        for name, v, hi in (
            ("initial", self.initial, MAX_INITIAL),
            ("increment", self.increment, MAX_EXTRA),
            ("delay", self.delay, MAX_EXTRA),
        ):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= hi:
                raise InvalidOptionError(
                    f"clock {name} {v!r}: expected seconds from 0 to {hi:g}",
                    code="bad_clock",
                    params={"field": name, "value": str(v)[:20]},
                )
        if self.initial < 1:
            raise InvalidOptionError(
                f"clock initial {self.initial!r}: expected at least 1 second",
                code="bad_clock",
                params={"field": "initial", "value": str(self.initial)[:20]},
            )

    def to_dict(self) -> dict:
        """``{"days": N}`` for a correspondence clock, else ``{"initial", "increment", "delay"}`` (seconds)."""
        if self.days:
            return {"days": self.days}
        return {"initial": self.initial, "increment": self.increment, "delay": self.delay}


#: Named settings: blitz is the nardy sites' "1 minute plus 10 seconds a move"; the slower ones follow the
#: backgammon servers' habit of a reserve with a delay of about 12 seconds a move.
CLOCK_PRESETS: dict[str, ClockSpec] = {
    "blitz": ClockSpec(60, increment=10),
    "rapid": ClockSpec(5 * 60, delay=12),
    "classic": ClockSpec(15 * 60, delay=15),
}


def clock_spec(value) -> ClockSpec | None:
    """A :class:`ClockSpec` from a preset name, a dict ``{"initial", "increment", "delay"}`` (seconds),
    ``{"days": N}`` (correspondence: N of :data:`DAYS` days a move) or ``None``/``"none"`` (no clock).

    Raises:
        InvalidOptionError: an unknown preset or bad times (quoting the input).
    """
    if value is None or value == "none":
        return None
    if isinstance(value, ClockSpec):
        return value
    if isinstance(value, str):
        if value not in CLOCK_PRESETS:
            raise InvalidOptionError(
                f"clock {value[:40]!r}: expected one of {', '.join(CLOCK_PRESETS)}, none, or times in seconds",
                code="bad_clock",
                params={"field": "preset", "value": value[:40]},
            )
        return CLOCK_PRESETS[value]
    if isinstance(value, dict) and "days" in value:
        if set(value) != {"days"}:
            raise InvalidOptionError(
                f"clock {value!r:.80}: days go alone",
                code="bad_clock",
                params={"field": "clock", "value": repr(value)[:40]},
            )
        return ClockSpec.correspondence(value["days"])
    if isinstance(value, dict):
        extra = set(value) - {"initial", "increment", "delay"}
        if extra or "initial" not in value:
            raise InvalidOptionError(
                f"clock {value!r:.80}: expected initial, and optionally increment and delay (seconds)",
                code="bad_clock",
                params={"field": "clock", "value": repr(value)[:40]},
            )
        return ClockSpec(value["initial"], value.get("increment", 0.0), value.get("delay", 0.0))
    raise InvalidOptionError(
        f"clock {value!r:.40}: expected a preset name or times",
        code="bad_clock",
        params={"field": "clock", "value": ""},
    )


class Clock:
    """Two reserves and the spell running now (see the module docstring).

    Attributes:
        spec: the :class:`ClockSpec`.
        remaining: ``[White, Black]`` seconds left at the start of the running spell (the running side's
            current time is :meth:`left`).
        running: the side to act whose time runs (0/1), or ``None`` (nobody: between games, over).
        since: wall time the running spell began.
    """

    def __init__(self, spec: ClockSpec, remaining=None, running: int | None = None, since: float | None = None):
        self.spec = spec
        self.remaining = [float(spec.initial)] * 2 if remaining is None else [float(x) for x in remaining]
        self.running = running
        self.since = since

    def _used(self, now: float) -> float:
        """Seconds the running spell has cost so far (the delay is free)."""
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, now - self.since - self.spec.delay)

    def left(self, side: int, now: float) -> float:
        """Seconds ``side`` has left at ``now`` (never below 0)."""
        t = self.remaining[side] - (self._used(now) if side == self.running else 0.0)
        return max(0.0, t)

    def flagged(self, now: float) -> int | None:
        """The side whose time has run out at ``now`` (only the running side can), or ``None``."""
        if self.running is not None and self.left(self.running, now) <= 0:
            return self.running
        return None

    def due(self) -> float | None:
        """Wall time at which the running side flags if it does not act, or ``None`` when nobody's time runs."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.spec.delay + self.remaining[self.running]

    def switch(self, side: int | None, now: float) -> None:
        """``side`` is to act from ``now`` (``None``: nobody). The same side keeps its spell running; another
        ends the running spell: its time is charged and the increment added (unless it flagged)."""
        if side == self.running and self.running is not None:
            return
        if self.running is not None:
            r = self.running
            left = self.remaining[r] - self._used(now)
            if self.spec.per_move:  # correspondence: a move in time earns the whole days again
                self.remaining[r] = self.spec.initial if left > 0 else 0.0
            else:
                self.remaining[r] = max(0.0, left) + (self.spec.increment if left > 0 else 0.0)
        self.running = side
        self.since = now if side is not None else None

    def shift(self, seconds: float, now: float | None = None) -> None:
        """The server was down for ``seconds``: the running spell starts that much later (nobody pays), but never
        later than ``now`` when given (a spell begun during the gap gets back its own time, not the whole gap)."""
        if self.since is not None and seconds > 0:
            self.since += seconds if now is None else min(seconds, max(0.0, now - self.since))

    def to_dict(self) -> dict:
        return {
            "spec": self.spec.to_dict(),
            "remaining": list(self.remaining),
            "running": self.running,
            "since": self.since,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Clock:
        """Rebuild a saved clock.

        Raises:
            InvalidOptionError: a malformed saved clock (names the field)."""

        def bad(field, v):
            return InvalidOptionError(
                f"saved clock {field} {v!r:.40}: malformed",
                code="bad_clock",
                params={"field": field, "value": str(v)[:20]},
            )

        if not isinstance(d, dict) or set(d) != {"spec", "remaining", "running", "since"}:
            raise bad("clock", d)
        spec = clock_spec(d["spec"])
        if spec is None:
            raise bad("spec", d["spec"])
        rem = d["remaining"]
        if (
            not isinstance(rem, list)
            or len(rem) != 2
            or any(
                isinstance(x, bool)
                or not isinstance(x, (int, float))
                or not 0 <= x <= max(2 * MAX_INITIAL, spec.initial)
                for x in rem
            )
        ):
            raise bad("remaining", rem)
        running, since = d["running"], d["since"]
        if running not in (None, 0, 1) or isinstance(running, bool):
            raise bad("running", running)
        if (running is None) != (since is None) or (
            since is not None
            and (isinstance(since, bool) or not isinstance(since, (int, float)) or not math.isfinite(since))
        ):
            raise bad("since", since)
        return cls(spec, rem, running, since)

    def __repr__(self):
        return f"Clock({self.spec}, remaining={self.remaining}, running={self.running}, since={self.since})"
