"""Reading a play written in notation: which of a position's legal plays the text describes, or why none
does (docs/rules.md "Notation" and rule 4).

:func:`parse_among` applies the text's steps to the board in every way the dice allow and matches the
results against the legal plays; :meth:`nardy.rules.position.Position.parse_play` and
:meth:`nardy.flow.game.Game.play` call it. A refusal is a :class:`~nardy.rules.errors.NotationError` (not
notation) or an :class:`~nardy.rules.errors.IllegalPlayError` with a ``code`` and ``params`` saying why
(``no_checker``, ``enter_first``, ``distance``, ``not_home``, ``closed_point``, ``fewer_dice``,
``false_hit``, ``ambiguous_play``...).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from .errors import AmbiguousPlayError, IllegalPlayError, NotationError
from .notation import tokenize
from .numbering import BLACK, NUMBERINGS, absolute_point

__all__ = ["parse_among"]


def parse_among(pos, text: str, dice: tuple[int, int], plays: list, numbering="own", side=None):
    """The play of ``plays`` that ``text`` describes, ``plays`` being the legal plays of the position ``pos``
    (a :class:`~nardy.rules.position.Position`) for ``dice`` (checked), as
    :meth:`~nardy.rules.position.Position.parse_play` reads it.

    Args:
        pos: the position, from the mover's view.
        text: the play; ``""`` for no play (only legal when nothing can move).
        dice: the roll, checked (``(d1, d2)``, 1..6 each).
        plays: ``pos.legal_plays(dice)`` (worked out by the caller: a game keeps its current roll's).
        numbering: ``"own"`` (the mover's numbering) or, for long nardy, ``"absolute"`` with ``side``
            ``"white"`` or ``"black"``.
    Returns:
        The :class:`~nardy.rules.position.Play` of ``plays`` the text means.
    Raises:
        NotationError: the text is not notation, or the numbering or side is not one the game has.
        IllegalPlayError: no legal play matches (``AmbiguousPlayError``: several do); the message quotes the
            text, the roll and the Position ID and says why, ``code`` and ``params`` say it for a front end.
    """
    d1, d2 = dice
    unnumber = None
    if numbering == "absolute":
        if numbering not in NUMBERINGS[pos.rules.name]:
            raise NotationError("absolute numbering is only defined for long nardy", text=str(text))
        if side not in ("white", "black"):
            raise NotationError("absolute numbering needs side='white' or 'black'", text=str(text))
        if side == "black":
            unnumber = lambda p: absolute_point(p, BLACK)  # noqa: E731  (the map is its own inverse)
    elif numbering != "own":
        raise NotationError(f"unknown numbering {numbering!r}: expected own or absolute", text=str(text))
    try:
        paths = tokenize(text, 25 if pos.rules.hitting else 24, unnumber)
    except NotationError as e:
        raise NotationError(
            f"{e} (roll {max(d1, d2)}-{min(d1, d2)}, position {pos.id()})",
            text=str(text),
            dice=(d1, d2),
            position_id=pos.id(),
            reason=e.reason,
            code=e.code,
            params=e.params,
        ) from None
    by_result = {p._rb: p for p in plays}

    def fail(reason: str, code: str, cls=IllegalPlayError, **params):
        raise cls(
            f"illegal play {text!r} with roll {max(d1, d2)}-{min(d1, d2)} in position {pos.id()} "
            f"({pos.game}): {reason}",
            text=text,
            dice=(d1, d2),
            position_id=pos.id(),
            reason=reason,
            code=code,
            params=params,
        )

    if not plays:
        fail("the game is over", "game_over")
    if not paths:
        if len(plays) == 1 and not plays[0].steps:
            return plays[0]
        fail("a play must be made: the roll can be played", "must_play")
    dice_list = [d1] * 4 if d1 == d2 else [d1, d2]
    candidates = _apply_paths(pos, paths, dice_list)
    if not candidates:
        code, params, why = _explain(pos, paths, dice_list)
        fail(why, code, **params)
    matched: dict[bytes, list] = {}
    for rb, hits in candidates:
        if rb in by_result:
            matched.setdefault(rb, []).append(hits)
    if not matched:
        used = max(len(c[1]) for c in candidates)
        most = max(len(p.steps) for p in plays)
        if used < most:
            fail(
                f"it plays {used} of the {most} dice the roll allows; as many dice as possible must be played",
                "fewer_dice",
                used=used,
                most=most,
            )
        fail(
            "no legal play leads to that position (rules 2-5: blocked point, bar, bear-off, head or six-block rule)",
            "no_legal_play",
        )
    marked_to = {hop.to for path in paths for hop in path if hop.hit}
    fits = {rb: hs for rb, hs in matched.items() if marked_to <= _hit_points(by_result[rb])}
    if not fits:  # a hit mark where the play hits nothing (notation marks are optional, never false)
        wrong = _false_hit(paths, [by_result[rb] for rb in matched])
        mark = f"{_pt(wrong.frm)}/{wrong.to}*"
        where = {"from": wrong.frm, "to": wrong.to}
        if not pos.rules.hitting:
            fail(f"{mark}: nobody is hit in long nardy", "no_hitting", **where)
        fail(f"{mark} is marked as a hit, but there is no opposing blot to hit on {wrong.to}", "false_hit", **where)
    matched = fits
    if len(matched) > 1:
        marked = [(i, j) for i, path in enumerate(paths) for j, hop in enumerate(path) if hop.hit]
        if marked:
            want = {(i, j) for i, j in marked}
            keep = {
                rb: hs
                for rb, hs in matched.items()
                if any({(i, j) for (i, j, written, hit) in h if written and hit} == want for h in hs)
            }
            if keep:
                matched = keep
        if len(matched) > 1:
            # prefer the reading that hits nothing in passing (hits are written in notation)
            quiet = {
                rb: hs
                for rb, hs in matched.items()
                if any(not any(hit and not written for (_, _, written, hit) in h) for h in hs)
            }
            if len(quiet) == 1:
                matched = quiet
    if len(matched) > 1:
        options = sorted(str(by_result[rb]) for rb in matched)
        fail(f"ambiguous: it can mean {', '.join(options)}", "ambiguous_play", AmbiguousPlayError, options=options)
    return by_result[next(iter(matched))]


def _apply_paths(pos, paths, dice_list) -> list[tuple[bytes, tuple]]:
    """Every way to realise the written paths with the dice, as (resulting board, step record).

    The step record lists ``(path, hop, written, hit)`` per step; ``written`` is False for the
    intermediate points of a multi-die hop. Legality beyond "a checker is there and the point is
    open" is decided by comparing with the legal plays' results.
    """
    hitting = pos.rules.hitting
    hops = [(i, j, hop) for i, path in enumerate(paths) for j, hop in enumerate(path)]
    out: dict[tuple, None] = {}

    def rec(k, board, dice_left, record):
        if k == len(hops):
            out[(bytes(np.array(board, np.int8).tobytes()), tuple(record))] = None
            return
        i, j, hop = hops[k]
        seen = set()
        for n in range(1, len(dice_left) + 1):
            for seq in permutations(dice_left, n):
                if seq in seen:
                    continue
                seen.add(seq)
                total = sum(seq)
                if hop.to > 0 and total != hop.frm - hop.to:
                    continue
                if hop.to == 0:
                    if total < hop.frm or total - seq[-1] >= hop.frm:
                        continue
                b = list(board)
                p = hop.frm
                rec_steps = []
                ok = True
                for idx, d in enumerate(seq):
                    src = p
                    if src == 25:
                        if b[25] <= 0:
                            ok = False
                            break
                        b[25] -= 1
                        dst = 25 - d
                    else:
                        if b[src] <= 0:
                            ok = False
                            break
                        b[src] -= 1
                        dst = max(0, src - d)
                    last = idx == len(seq) - 1
                    hit = False
                    if dst == 0:
                        b[0] += 1
                    else:
                        if hitting:
                            if b[dst] < -1:
                                ok = False
                                break
                            if b[dst] == -1:
                                b[dst] = 0
                                b[26] += 1
                                hit = True
                        elif b[dst] < 0:
                            ok = False
                            break
                        b[dst] += 1
                    rec_steps.append((i, j, last, hit))
                    p = dst
                if not ok:
                    continue
                rest = list(dice_left)
                for d in seq:
                    rest.remove(d)
                rec(k + 1, b, rest, record + rec_steps)

    rec(0, list(pos.board), list(dice_list), [])
    return list(out)


def _explain(pos, paths, dice_list) -> tuple[str, dict, str]:
    """Why written paths cannot be realised at all with the dice: ``(code, params, English reason)`` for a
    missing checker, a checker left on the bar, a hop no combination of the dice covers, a bear-off with
    checkers outside the home board, or a closed landing point. Points are the mover's own numbers."""
    mover = pos.mover
    for path in paths:
        hop = path[0]
        if hop.frm == 25 and mover[25] == 0:
            return "no_checker_bar", {}, "no checker on the bar"
        if hop.frm != 25 and mover[hop.frm] == 0:
            return "no_checker", {"point": hop.frm}, f"no checker of the mover on point {hop.frm}"
    if pos.rules.hitting and mover[25] and any(path[0].frm != 25 for path in paths):
        return "enter_first", {}, "a checker on the bar must enter first"
    dice_txt = "-".join(str(d) for d in sorted(dice_list[:2], reverse=True))
    sums = set()
    for n in range(1, len(dice_list) + 1):
        for seq in permutations(dice_list, n):
            sums.add(sum(seq))
    for path in paths:
        for hop in path:
            dist = hop.frm - hop.to
            if hop.to > 0 and dist not in sums:
                return (
                    "distance",
                    {"from": hop.frm, "to": hop.to, "pips": dist, "dice": list(dice_list[:2])},
                    f"{_pt(hop.frm)}/{hop.to} is {dist} pips: no combination of the dice {dice_txt} moves that far",
                )
    if any(hop.to == 0 for path in paths for hop in path):
        outside = sum(mover[p] for p in range(7, 26))
        if outside:
            return (
                "not_home",
                {"outside": int(outside)},
                f"cannot bear off: {outside} checker(s) are not yet in the home board (points 1-6)",
            )
    b = pos.board
    closed = [
        hop.to
        for path in paths
        for hop in path
        if hop.to > 0 and (b[hop.to] < -1 or (not pos.rules.hitting and b[hop.to] < 0))
    ]
    if closed:
        return "closed_point", {"point": closed[0]}, f"point {closed[0]} is closed (held by the opponent)"
    return (
        "dice_fit",
        {"dice": list(dice_list[:2])},
        f"the moves written do not fit the dice {dice_txt} (intermediate points closed, or dice used twice)",
    )


def _hit_points(play) -> set[int]:
    """The points (mover's numbering) where ``play`` hits a blot."""
    return {s.to for s in play.steps if s.hit}


def _false_hit(paths, plays):
    """The first hop of ``paths`` marked ``*`` at a point that the first of ``plays`` (legal plays the text
    can mean, none hitting every marked point) does not hit."""
    hit = _hit_points(plays[0])
    return next(hop for path in paths for hop in path if hop.hit and hop.to not in hit)


def _pt(p: int) -> str:
    return "bar" if p == 25 else str(p)
