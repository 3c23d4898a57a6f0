"""Play notation: printing and tokenising ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/4(2)``, ``24/18/13``.

docs/rules.md "Notation": plays are written from the mover's view; ``bar`` = 25 and ``off`` = 0 are
accepted on input; hit marks are optional on input and always printed; a multi-pip hop such as
``20/10`` with 5-5 means two steps through 15. Long nardy may also be written in absolute numbering
(White's head 24, Black's head 12) and short nardy in the traditional numbering of seed 003.

This module only deals with text; matching a parsed play against the legal plays is done by
:meth:`nardy.Position.parse_play`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .errors import NotationError


class Step(NamedTuple):
    """One checker moved by one die, from the mover's view.

    Attributes:
        frm: source point 1..24, or 25 for the bar.
        to: destination point 1..24, or 0 for off.
        die: the die value used (1..6); for a bear-off it may exceed ``frm``.
        hit: True if the step hit an opponent blot on ``to``.
    """

    frm: int
    to: int
    die: int
    hit: bool


def _pt(p: int, numbering) -> str:
    if p == 25:
        return "bar"
    if p == 0:
        return "off"
    return str(numbering(p) if numbering else p)


def chains(steps: Sequence[Step]) -> list[list[tuple[int, bool]]]:
    """Join steps into checker paths: each path is ``[(point, hit_on_arrival), ...]``.

    A step that starts where an earlier path ends continues that path (which checker moved does not
    change the resulting position). Paths are sorted from the highest start point down.
    """
    paths: list[list[tuple[int, bool]]] = []
    for st in steps:
        for path in paths:
            last = path[-1][0]
            if last == st.frm and last != 0:
                path.append((st.to, bool(st.hit)))
                break
        else:
            paths.append([(st.frm, False), (st.to, bool(st.hit))])
    paths.sort(key=lambda p: tuple(-x[0] for x in p))
    return paths


def format_steps(steps: Sequence[Step], numbering=None) -> str:
    """Standard notation for a step list, as GNU Backgammon prints it.

    Paths of one checker are joined (``24/13``), intermediate points are kept only where a blot was
    hit (``13/8*/5``), identical paths are counted (``8/4(2)``), paths are ordered from the highest
    point down. ``numbering`` optionally maps a mover point 1..24 to the printed number. An empty
    step list prints as ``""`` (no play possible).
    """
    parts: list[str] = []
    for path in chains(steps):
        kept = [path[0]] + [pt for pt in path[1:-1] if pt[1]] + [path[-1]]
        text = "/".join(_pt(p, numbering) + ("*" if hit else "") for p, hit in kept)
        parts.append(text)
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1] == parts[i]:
            j += 1
        n = j - i + 1
        out.append(parts[i] + (f"({n})" if n > 1 else ""))
        i = j + 1
    return " ".join(out)


#: Dashes accepted between the points of a step (``24-18``, the way many Russian players write plays):
#: hyphen-minus, the en and em dashes and the minus sign.
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2212"
_DASH_STEP = re.compile(f"(?<=[0-9A-Za-z*])[{DASHES}](?=[0-9A-Za-z])")


def dash_to_slash(text: str) -> str:
    """``24-18 13-11`` written with slashes (``24/18 13/11``): a dash between two points of a step
    (a digit, ``bar``/``off``, a hit mark before it) is read as ``/``; anything else is left alone, so a
    lone ``-`` (no play) stays.

    >>> dash_to_slash("24-18 13-11"), dash_to_slash("bar-22* 6–off"), dash_to_slash("-")
    ('24/18 13/11', 'bar/22* 6/off', '-')
    """
    return _DASH_STEP.sub("/", text)


def dice_text(dice) -> str:
    """A roll as players write it, the larger die first: ``(1, 2)`` is ``2-1``.

    >>> dice_text((1, 2)), dice_text([6, 6])
    ('2-1', '6-6')
    """
    a, b = (int(d) for d in dice)
    return f"{max(a, b)}-{min(a, b)}"


class Hop(NamedTuple):
    """One written segment ``a/b`` of a play: from ``a`` to ``b`` (25 bar, 0 off), ``hit`` if marked ``*``."""

    frm: int
    to: int
    hit: bool


_TOKEN = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<count>\d+)\))?$")
_POINT = re.compile(r"^(?P<p>bar|b|off|o|\d{1,2})(?P<hit>\*?)$", re.IGNORECASE)


def tokenize(text: str, max_point: int = 25, unnumber=None) -> list[list[Hop]]:
    """Split play text into checker paths of hops.

    Args:
        text: e.g. ``"24/18 13/11"``, ``"bar/22*"``, ``"8/4(2)"``, ``"24/18/13"``; separators are spaces
            or commas; a dash may stand for the slash (``24-18 13-11``, :func:`dash_to_slash`);
            ``bar``/``25`` and ``off``/``0`` are accepted; ``*`` marks are optional.
        max_point: highest number accepted (25 where a bar exists, 24 otherwise).
        unnumber: optional map from a written point number (1..24) to the mover's point.
    Returns:
        One list of hops per written path, repeated for ``(n)`` counts.
    Raises:
        NotationError: the text is not play notation (the message quotes it).
    """
    if not isinstance(text, str):
        raise NotationError(
            f"play {text!r} is not text",
            text=str(text),
            reason="not text",
            code="bad_token",
            params={"token": str(text)[:40]},
        )
    paths: list[list[Hop]] = []
    norm = dash_to_slash(text.strip().replace(",", " "))
    if norm in ("", "-", "pass", "none", "no play", "(no play)"):
        return []
    for tok in norm.split():
        m = _TOKEN.match(tok)
        if not m:
            raise NotationError(
                f"cannot read {tok!r} in play {text!r}",
                text=text,
                reason=f"bad token {tok!r}",
                code="bad_token",
                params={"token": tok[:40]},
            )
        count = int(m.group("count") or 1)
        if not 1 <= count <= 4:
            raise NotationError(
                f"count ({count}) in {tok!r} of play {text!r} must be 1 to 4",
                text=text,
                reason="bad count",
                code="bad_count",
                params={"token": tok[:40]},
            )
        pts = m.group("path").split("/")
        if len(pts) < 2:
            raise NotationError(
                f"{tok!r} in play {text!r} needs a from/to pair such as 24/18",
                text=text,
                reason=f"bad token {tok!r}",
                code="bad_token",
                params={"token": tok[:40]},
            )
        parsed = []
        for i, raw in enumerate(pts):
            pm = _POINT.match(raw)
            if not pm:
                raise NotationError(
                    f"{raw!r} in play {text!r} is not a point (1-24, bar, off)",
                    text=text,
                    reason=f"bad point {raw!r}",
                    code="bad_point",
                    params={"point": raw[:20]},
                )
            word = pm.group("p").lower()
            if word in ("bar", "b"):
                p = 25
            elif word in ("off", "o"):
                p = 0
            else:
                p = int(word)
                if p != 0 and p != 25 and unnumber is not None:
                    if not 1 <= p <= 24:
                        raise NotationError(
                            f"point {p} in play {text!r} is out of range",
                            text=text,
                            reason=f"bad point {raw!r}",
                            code="bad_point",
                            params={"point": raw[:20]},
                        )
                    p = unnumber(p)
            if p > max_point or p < 0:
                raise NotationError(
                    f"point {raw!r} in play {text!r} is out of range 0-{max_point}",
                    text=text,
                    reason=f"bad point {raw!r}",
                    code="bad_point",
                    params={"point": raw[:20]},
                )
            if p == 25 and i > 0:
                raise NotationError(
                    f"the bar can only start a path, not end one, in {text!r}",
                    text=text,
                    reason="bar as destination",
                    code="bar_destination",
                )
            if p == 0 and i < len(pts) - 1:
                raise NotationError(
                    f"off can only end a path in {text!r}", text=text, reason="off as source", code="off_source"
                )
            parsed.append((p, bool(pm.group("hit"))))
        hops = []
        for (a, _), (b, hit) in zip(parsed, parsed[1:]):
            if b >= a:
                raise NotationError(
                    f"{tok!r} in play {text!r} moves backwards ({a} to {b})",
                    text=text,
                    reason="backward move",
                    code="backward",
                    params={"from": a, "to": b},
                )
            hops.append(Hop(a, b, hit))
        for _ in range(count):
            paths.append(list(hops))
    return paths
