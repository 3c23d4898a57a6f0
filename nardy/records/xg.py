"""eXtreme Gammon's ``.xg`` match files (and ``.xgp`` position files) read into nardy's records.

:func:`parse_xg` turns an ``.xg`` file's bytes into the same :class:`~nardy.records.matrecord.MatchRecord`
the ``.mat`` and SGF readers make (an :class:`XGMatchRecord`: the players, the event, the match length, the
Crawford, Jacoby and beaver settings as headers, each game's score at its start, every play as ``.mat``
text in the mover's own numbering, every cube action, each game's result as a ``Wins`` cell: a
resignation when the plays did not end the game), so :func:`~nardy.records.mat.replay` plays it through
the rules the same way: every play must be legal, every result and score must follow.

How XG stores a match (:mod:`nardy.records.xgfile` has the container): after the match header, each game
is a game header (the score at its start, whether it is the Crawford game), then per turn a cube record
(the player on roll, ``Actif`` +1 for the first player (White, the left column of a ``.mat``), -1 for the
second; ``Double`` -2 no access to the cube, 0 no double, 1 doubled; ``Take`` -1 no answer, 0 pass, 1
take, 2 beaver) and a move record (the dice and up to four steps ``from, to`` in the mover's numbering,
0-based: 0..23 the points 1..24, 24 the bar, -1 off; a dance has none), and a game footer (the winner
+1/-1 and the points won; ``Termination`` 0 a pass, 1-3 single, gammon, backgammon, +100 a resignation).
Positions are 26 signed counts from the first player's view (index 1..24 the first player's points,
positive the first player's checkers, 25 the first player's bar, 0 the second player's bar, negative),
whoever is on roll (:func:`mover_board` turns them to the mover's view); the plays are in the mover's
own numbering.

XG's own analysis, where the file holds one, is kept beside the record (:attr:`XGMatchRecord.analysis`):
per decision its equity loss, its best play and its candidates' equities (XG's normalised equities,
the decider's view), keyed by game, decision, player, Position ID and dice so that
:func:`nardy.analysis.xgbeside.attach_xg` can put it beside nardy's figures.

Whatever the bytes, reading raises no exception but :class:`~nardy.rules.errors.RecordError`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from ..rules.errors import NardyError, RecordError
from ..rules.position import Position
from .matrecord import MAX_CUBE, MAX_GAMES, MAX_LENGTH, MAX_NAME, MAX_SCORE, MatAction, MatchRecord, MatGame
from .xgfile import VARIATIONS, looks_like_xg, play_codes, read_records
from .xgtext import XGPosition

__all__ = ["XGMatchRecord", "XGPosition", "parse_xg", "parse_xgp", "looks_like_xg", "mover_board", "xg_play_text"]

#: XG's match length of a money session.
UNLIMITED = 99999


@dataclass
class XGMatchRecord(MatchRecord):
    """A :class:`~nardy.records.matrecord.MatchRecord` read from an ``.xg`` file, with XG's analysis.

    Attributes:
        analysis: one dict per analysed decision: ``game`` (1-based), ``kind`` (``"checker"``/``"cube"``),
            ``action`` (``"play"``, ``"double"``, ``"take"``), ``player`` (0/1), ``position`` (Position ID,
            the decider's view; the doubler's for a take), ``dice`` (``[a, b]`` or ``None``) and ``xg``:
            ``{"equity_loss": float | None, "best": str | None, "equities": [[play, equity], ...]}``.
        final_score: the match footer's score (``None`` when the file has none).
    """

    analysis: list = field(default_factory=list)
    final_score: tuple | None = None


def xg_play_text(codes) -> str:
    """XG's step codes (see :func:`nardy.records.xgfile.play_codes`) as ``.mat`` text, ``13/9 24/23``
    (``25`` the bar, ``0`` off; ``""`` for no step, a dance). All zeros is XG's play not recorded (a
    transcribed match's unknown play, or a roll before a resignation): ``???``, as XG's own ``.mat``
    export writes it."""
    if len(codes) >= 2 and codes[0] == codes[1] == 0:
        return "???"
    return " ".join(f"{a}/{b}" for a, b in play_codes(codes))


def _side(actif: int, where: str) -> int:
    if actif == 1:
        return 0
    if actif == -1:
        return 1
    raise RecordError(f"bad XG file: {where}: the player on roll is {actif}, expected 1 or -1", reason="bad player")


def mover_board(board, actif: int) -> list[int]:
    """XG's board of a record (the first player's view) from the view of ``actif`` (+1 the first player,
    -1 the second): the same 26 signed counts with the other side's numbering and signs."""
    return list(board) if actif == 1 else [-board[25 - i] for i in range(26)]


def _position_id(board, where: str) -> str:
    """The Position ID of a board in the mover's view (wildbg's p0..p25 form)."""
    mover, opp = [0] * 26, [0] * 26
    for p in range(1, 25):
        v = board[p]
        if v > 0:
            mover[p] = v
        elif v < 0:
            opp[25 - p] = -v
    mover[25], opp[25] = abs(board[25]), abs(board[0])
    try:
        return Position.from_boards(mover, opp, "backgammon").id()
    except NardyError as e:
        raise RecordError(f"bad XG file: {where}: not a position ({e})", reason="bad position") from None


def _cube_state(code: int) -> tuple[int, int | None]:
    """XG's cube field (log2 of the value, + the first player owns it, - the second, 0 centred) ->
    (value, owner 0/1 or None)."""
    n = abs(code)
    if n > 15:
        raise RecordError(f"bad XG file: cube 2^{n} is beyond {MAX_CUBE}", reason="bad cube")
    return 1 << n, (None if code == 0 else 0 if code > 0 else 1)


def _date(days: float) -> str | None:
    try:
        if not 0 < days < 2958465:  # TDateTime: days since 1899-12-30, up to the year 9999
            return None
        d = datetime.datetime(1899, 12, 30) + datetime.timedelta(days=days)
    except (OverflowError, ValueError):
        return None
    return d.strftime("%Y.%m.%d")


def _clean(name: str) -> str:
    return "".join(c for c in name if c.isprintable()).strip()[:MAX_NAME]


def _move_analysis(f: dict) -> dict | None:
    if not f["candidates"]:
        return None
    eqs = []
    for codes, eq in f["candidates"]:
        try:
            eqs.append([xg_play_text(codes), round(eq, 6)])
        except RecordError:
            return None
    loss = f["err_move"]
    return {"equity_loss": None if loss is None else round(max(0.0, -loss), 6), "best": eqs[0][0], "equities": eqs}


def _cube_analysis(f: dict, take: bool) -> dict | None:
    err = f["err_take"] if take else f["err_cube"]
    if err is None or f["analysed"] < 0:
        return None
    nd, dt, dp = f["equities"]
    if take:  # the taker's view: the doubler's equities negated
        eqs = [["take", round(-dt, 6)], ["pass", round(-dp, 6)]]
        best = "take" if dt <= dp else "pass"
    else:
        eqs = [["no double", round(nd, 6)], ["double/take", round(dt, 6)], ["double/pass", round(dp, 6)]]
        best = "double" if min(dt, dp) > nd else "no double"
    return {"equity_loss": round(max(0.0, -err), 6), "best": best, "equities": eqs}


def parse_xg(data) -> XGMatchRecord:
    """An ``.xg`` file's bytes as an :class:`XGMatchRecord` (replay it with :func:`nardy.records.mat.replay`).

    Raises:
        RecordError: not an XG file, damaged or truncated (:func:`nardy.records.xgfile.read_records`), a
            variation other than backgammon, a record out of place (a play before any game header, a second
            match header), a number beyond the records' bounds; the message names the record.
    """
    records = read_records(data)
    head = records[0].fields
    var = head["variation"]
    if var != 0:
        name = VARIATIONS.get(var, f"variation {var}")
        raise RecordError(f"XG file of {name}: only backgammon is read", reason="unsupported variation")
    length = head["length"]
    if length >= UNLIMITED or length <= 0:
        length = 0
    if length > MAX_LENGTH:
        raise RecordError(f"bad XG file: match length {length}", reason="bad length")
    players = tuple(_clean(n) or d for n, d in zip(head["players"], ("Player 1", "Player 2")))
    headers = {"Variation": "Backgammon"}
    if head["event"].strip():
        headers["Event"] = _clean(head["event"])
    date = _date(head["date"])
    if date:
        headers["EventDate"] = date
    if length:
        headers["Crawford"] = "On" if head["crawford"] else "Off"
    else:
        headers["Jacoby"] = "On" if head["jacoby"] else "Off"
        headers["Beavers"] = "On" if head["beaver"] else "Off"
    if 0 < head["cube_limit"] <= 15:
        headers["CubeLimit"] = str(1 << head["cube_limit"])
    rec = XGMatchRecord(length=length, players=players, headers=headers)
    game: MatGame | None = None
    cube = 1
    move_no = 1
    last = None  # the player of the last cell, for the .mat line numbers

    def cell(player: int, kind: str, **kw) -> MatAction:
        nonlocal move_no, last
        if game is None:
            raise RecordError(f"bad XG file: record {r.index + 1}: a {r.kind} before any game header", reason="order")
        if last == 1 and player == 0:
            move_no += 1
        last = player
        a = MatAction(player=player, kind=kind, move=move_no, line=r.index + 1, **kw)
        game.actions.append(a)
        return a

    def note(kind: str, action: str, player: int, board, dice, xg, view: int | None = None):
        if xg is None or game is None:
            return
        where = f"record {r.index + 1}"
        rec.analysis.append(
            {
                "game": game.number,
                "kind": kind,
                "action": action,
                "player": player,
                "position": _position_id(
                    mover_board(board, 1 if (player if view is None else view) == 0 else -1), where
                ),
                "dice": sorted(dice, reverse=True) if dice else None,
                "xg": xg,
            }
        )

    for r in records[1:]:
        f = r.fields
        if r.kind == "match":
            raise RecordError(f"bad XG file: record {r.index + 1} is a second match header", reason="order")
        if r.kind == "game":
            if len(rec.games) >= MAX_GAMES:
                raise RecordError(f"bad XG file: more than {MAX_GAMES} games", reason="too many games")
            s = f["score"]
            if not all(0 <= v <= MAX_SCORE for v in s):
                raise RecordError(f"bad XG file: record {r.index + 1}: score {s[0]}-{s[1]}", reason="bad score")
            game = MatGame(number=len(rec.games) + 1, score=tuple(s), line=r.index + 1)
            rec.games.append(game)
            cube, move_no, last = 1, 1, None
        elif r.kind == "cube":
            if game is None:
                raise RecordError(f"bad XG file: record {r.index + 1}: a cube before any game header", reason="order")
            p = _side(f["actif"], f"record {r.index + 1}")
            if f["double"] in (0, 1):
                note("cube", "double", p, f["position"], None, _cube_analysis(f, take=False))
            if f["double"] != 1:
                continue
            if cube * 2 > MAX_CUBE:
                raise RecordError(f"bad XG file: record {r.index + 1}: the cube passes {MAX_CUBE}", reason="bad cube")
            cell(p, "double", value=cube * 2)
            cube *= 2
            if f["take"] in (0, 1, 2):
                note("cube", "take", 1 - p, f["position"], None, _cube_analysis(f, take=True), view=p)
            if f["take"] == 1:
                cell(1 - p, "take")
            elif f["take"] == 0:
                cell(1 - p, "drop")
            elif f["take"] == 2:
                if cube * 2 > MAX_CUBE:
                    raise RecordError(f"bad XG file: record {r.index + 1}: the cube passes {MAX_CUBE}", reason="cube")
                cell(1 - p, "beaver", value=cube * 2)
                cube *= 2
                if f["raccoon"] == 1:
                    raise RecordError(
                        f"XG file: record {r.index + 1}: a raccoon, which nardy's rules do not have",
                        reason="raccoon",
                    )
        elif r.kind == "move":
            p = _side(f["actif"], f"record {r.index + 1}")
            d = f["dice"]
            if not all(1 <= v <= 6 for v in d):
                raise RecordError(f"bad XG file: record {r.index + 1}: dice {d[0]}-{d[1]}", reason="bad dice")
            cell(p, "move", dice=(d[0], d[1]), text=xg_play_text(f["moves"]))
            note("checker", "play", p, f["position"], d, _move_analysis(f))
        elif r.kind == "game_end":
            if game is None:
                raise RecordError(f"bad XG file: record {r.index + 1}: a game's end before its header", reason="order")
            p = _side(f["winner"], f"record {r.index + 1}")
            pts = f["points"]
            if not 0 < pts <= 64 * MAX_CUBE:
                raise RecordError(f"bad XG file: record {r.index + 1}: {pts} points won", reason="bad points")
            cell(p, "wins", value=pts)
            game = None
        elif r.kind == "match_end":
            rec.final_score = tuple(f["score"])
    return rec


def parse_xgp(data) -> XGPosition:
    """The position of an ``.xgp`` file (or the last decision of an ``.xg`` file): its last checker-play or
    cube record, with the dice, cube, score, length and names of its game.

    Raises:
        RecordError: as :func:`~nardy.records.xgfile.read_records`; no game header or no position record.
    """
    records = read_records(data)
    head = records[0].fields
    if head["variation"] != 0:
        raise RecordError("XG position of another variation: only backgammon is read", reason="unsupported variation")
    game = next((r for r in reversed(records) if r.kind == "game"), None)
    last = next((r for r in reversed(records) if r.kind in ("move", "cube")), None)
    if game is None or last is None or last.index < game.index:
        raise RecordError("XG file without a position (no game header, or no play or cube record)", reason="empty")
    f = last.fields
    p = _side(f["actif"], f"record {last.index + 1}")
    pid = _position_id(mover_board(f["position"], f["actif"]), f"record {last.index + 1}")
    if last.kind == "move":
        d = f["dice"]
        dice = (d[0], d[1]) if all(1 <= v <= 6 for v in d) else None
        value, owner = _cube_state(f["cube_a"])
        xg = _move_analysis(f)
    else:
        rolled = f["dice_rolled"]
        dice = (int(rolled[0]), int(rolled[1])) if len(rolled) == 2 and all(c in "123456" for c in rolled) else None
        value, owner = _cube_state(f["cube_b"])
        xg = _cube_analysis(f, take=False)
    s = game.fields["score"]
    length = head["length"] if 0 < head["length"] < UNLIMITED else 0
    names = tuple(_clean(n) for n in head["players"])
    return XGPosition(
        position=Position.from_id(pid),
        dice=dice,
        cube=value,
        owner=None if owner is None else (0 if owner == p else 1),
        score=(s[p], s[1 - p]) if length else None,
        length=length,
        crawford=bool(game.fields["crawford"]) and bool(length),
        names=(names[p], names[1 - p]),
        xg=xg,
    )
