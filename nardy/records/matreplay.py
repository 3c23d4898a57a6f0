"""Replaying a ``.mat`` record through the rules: :func:`replay` plays a
:class:`~nardy.records.matrecord.MatchRecord` through :class:`~nardy.flow.match.Match`, checking every play,
cube action, result line and stated score, and reading what real records bend as GNU Backgammon reads it
(each a :class:`~nardy.records.matwarnings.RecordWarning`).
"""

from __future__ import annotations

import os
import re

from ..flow.events import PassEvent
from ..flow.match import Match
from ..rules.dice import FixedDice
from ..rules.errors import NardyError, RecordError
from ..rules.variants import Rules
from .matparse import UNKNOWN_PLAY, parse_mat, read_mat
from .matrecord import MAX_CUBE, MatchRecord, MatGame, is_on
from .matwarnings import RecordWarning, quote, short_name

__all__ = ["replay", "rules_uses_opening_dice"]


def replay(record, *, strict: bool | None = None):
    """Play a record through the rules and return the :class:`~nardy.flow.match.Match`.

    Every play is parsed with :meth:`Position.parse_play` and must be legal; cube actions must be in
    turn and allowed (no double in the Crawford game, ``Doubles => N`` must name the new value, the
    cube never passes ``MAX_CUBE``); each game's stated score must equal the running score, and each
    ``Wins N`` line the computed result (bear-off level times the cube, a drop's cube value, or a
    resignation worth N). Plays are read from the mover's own view (player 0 = White = the left
    column, player 1 = Black = the right one), as GNU Backgammon writes them.

    Unless ``strict``, what GNU Backgammon's import accepts is read as it reads it (the final score is
    gnubg's), each noted as a :class:`RecordWarning` (besides those of :func:`parse_mat`):

    * a roll with no play (or XG's ``????``) when the roll can be played: the only legal play when there
      is one (``forced_play_blank``), else, when the other player's ``Wins`` follows, the roller resigned
      after rolling (``roll_then_resign``, ``unknown_play_resign``);
    * ``Wins N`` after the game's end below its worth (capped at the match length or at the points the
      winner needed, ``wins_capped``; else ``wins_differs``, e.g. Galaxy's single games scored as with
      Jacoby's rule): the game's real worth counts (a ``Wins`` above it is refused);
    * ``Wins N`` before the end that no resignation is worth exactly: the smallest resignation worth at
      least N, else the highest (``resign_value``; GNU Backgammon's reading);
    * Galaxy's ``Losses N`` (ignored; a resignation when no ``Wins`` line follows) and ``Resigns`` lines;
    * a first game that starts at a score other than 0-0: the match resumes there (``resumed_match``).

    A play that is not legal, a cube action out of turn, a ``Wins`` line naming the other winner, a later
    game's score that does not follow from the games before: refused in both modes.

    Args:
        record: a :class:`MatchRecord`; a ``str``, which is always the record's text (parsed with
            :func:`parse_mat`, never opened as a file); or an :class:`os.PathLike` (a file, read with
            :func:`read_mat`).
        strict: only the standard format (each thing above refused, as :func:`parse_mat` with
            ``strict``); default: the record's own ``strict`` (``False`` for a text or a path).
    Returns:
        The :class:`~nardy.flow.match.Match`, its games replayed (the last one may be unfinished); its
        ``warnings`` list every :class:`RecordWarning` of the record and of the replay, in order.
    Raises:
        RecordError: anything else as ``record``, a text or file :func:`parse_mat`/:func:`read_mat`
            refuses, or the first violation of the rules, with ``.game``, ``.move``, ``.player`` (the
            name), ``.reason`` and ``.partial`` (the :class:`~nardy.flow.match.Match` of the valid part, with
            the warnings met up to there). No other exception is raised for any text.
    """
    if isinstance(record, str):
        record = parse_mat(record, strict=bool(strict))
    elif isinstance(record, os.PathLike):
        record = read_mat(record, strict=bool(strict))
    elif not isinstance(record, MatchRecord):
        raise RecordError(
            f"replay expects a MatchRecord, the text of a record (str) or a path (os.PathLike), "
            f"got {type(record).__name__}",
            reason="bad record",
        )
    strict = record.strict if strict is None else bool(strict)
    rules = record.rules()
    crawford = is_on(record.header("Crawford"), True)
    jacoby = is_on(record.header("Jacoby"), False) if record.length == 0 else False
    beavers = is_on(record.header("Beavers"), False) if record.length == 0 else False
    limit = (record.header("CubeLimit", "Cube Limit") or "").strip()
    # a power of two up to MAX_CUBE, else no limit (as before: a cube limit the record cannot state)
    limit = int(limit) if re.fullmatch(r"[0-9]{1,5}", limit) else None
    if limit is not None and (limit < 1 or limit & (limit - 1) or limit > MAX_CUBE):
        limit = None
    warnings = list(record.warnings)
    start, post_crawford = (0, 0), False
    first = record.games[0] if record.games else None
    if not strict and first is not None and first.score is not None and any(first.score):
        if all(isinstance(v, int) for v in first.score) and (not record.length or max(first.score) < record.length):
            start = tuple(first.score)
            warnings.append(RecordWarning("resumed_match", {"score0": start[0], "score1": start[1]}, first.line + 1, 1))
            # at match point the Crawford game may be behind: it is, when the first game has a double
            if record.length and record.length - 1 in start and crawford:
                post_crawford = any(a.kind in ("double", "beaver") for a in first.actions)
                if post_crawford:
                    warnings.append(RecordWarning("resumed_post_crawford", {}, first.line + 1, 1))
    try:
        match = Match(
            rules,
            length=record.length,
            dice=FixedDice(),
            jacoby=jacoby,
            beavers=beavers,
            cube_limit=limit,
            crawford=crawford,
            players=record.players,
            start_score=start,
            start_post_crawford=post_crawford,
        )
    except NardyError as e:
        raise RecordError(f"cannot start the match: {e}", reason=str(e), partial=record) from None
    match.warnings = warnings
    for mg in record.games:
        _replay_game(match, record, mg, strict, warnings)
    return match


def _fmt_score(s):
    return f"{s[0]}-{s[1]}"


#: Cells that say who lost a game but play nothing (Galaxy's ``Losses``, ``Resigns``).
_NOTES = ("losses", "resigns")


def _resigned_after_roll(acts, i: int) -> bool:
    """Whether what follows ``acts[i]`` (a roll with no play) is the other player's ``Wins``, perhaps after
    notes (:data:`_NOTES`, whose column Galaxy does not always keep), or only a ``Losses`` note: the
    roller resigned after rolling."""
    roller = acts[i].player
    for a in acts[i + 1 :]:
        if a.kind not in _NOTES:
            return a.kind == "wins" and a.player != roller
    return any(a.kind == "losses" for a in acts[i + 1 :])


def _replay_game(match, record: MatchRecord, mg: MatGame, strict: bool, warnings: list):
    names = tuple(short_name(n) for n in record.players)  # as messages show them
    k = mg.number
    index = len(match.games)  # the game's 0-based index in the match

    def fail(reason, act=None):
        who = record.players[act.player] if act is not None and act.player in (0, 1) else None
        mv = act.move if act is not None else None
        where = f"game {k}" + (f", move {mv}" if mv else "") + (f", {short_name(who)}" if who else "")
        raise RecordError(f"{where}: {reason}", game=k, move=mv, player=who, reason=reason, partial=match)

    def note(code: str, act, **params):
        warnings.append(RecordWarning(code, params, act.line or None, k, act.move or None))

    def resign_worth(winner: int, value, act):
        """The loser resigns at the level worth ``value`` (lenient: GNU Backgammon's nearest level)."""
        loser = 1 - winner
        levels = [lv for lv in range(len(match.rules.scoring)) if g.points_for(lv) == value]
        if not levels:
            if strict:
                fail(
                    f"'Wins {value}' before the game is over: no resignation level is worth "
                    f"that with the cube at {g.cube_value}",
                    act,
                )
            n = len(match.rules.scoring)
            lv = next((lv for lv in range(n) if g.points_for(lv) >= value), n - 1)
            levels = [lv]
            note(
                "resign_value",
                act,
                stated=value,
                level=match.rules.result_names[lv],
                points=g.points_for(lv),
                cube=g.cube_value,
            )
        if g.phase == "resign":
            g.decline_resignation()
        g.resign(levels[0], player=loser)
        g.accept_resignation(player=winner)

    if match.games and not match.games[-1].is_over:
        fail(f"game {k - 1} did not end (no result line)")
    if match.is_over:
        fail(f"the match was already over at {_fmt_score(match.score)}")
    if mg.score is not None and tuple(mg.score) != tuple(match.score):
        fail(f"the record states the score {_fmt_score(mg.score)} but the games before give {_fmt_score(match.score)}")
    g = match.new_game()
    acts = mg.actions
    if not acts:
        return
    first = acts[0]
    if not strict:  # Galaxy's notes before any play: the game opens with what follows them
        first = next((a for a in acts if a.kind not in _NOTES), acts[0])
    try:
        if first.kind in ("wins", "losses"):
            # A resignation before any play (the starter resigned on the opening roll): the record
            # cannot hold the opening dice, so the game is opened by the resigning side with a
            # placeholder roll and the resignation is applied to it.
            loser = 1 - first.player if first.kind == "wins" else first.player
            if rules_uses_opening_dice(match.rules):
                g.start(starter=loser, dice=(2, 1))
            else:
                g.start(starter=loser)
        elif rules_uses_opening_dice(match.rules):
            if first.kind != "move":
                fail(f"the game must open with a roll ({first.kind} found)", first)
            g.start(starter=first.player, dice=first.dice)
        else:
            g.start(starter=first.player)
    except RecordError:
        raise
    except NardyError as e:
        fail(str(e), first)
    opened = acts.index(first)
    for i, act in enumerate(acts):
        if g.is_over and act.kind not in ("wins", "draw", *_NOTES):
            fail(f"{act.kind} after the end of the game ({g.result_text()})", act)
        try:
            if act.kind == "move":
                if g.phase == "roll":
                    if act.player != g.turn:
                        fail(f"{names[act.player]} rolls but it is {names[g.turn]}'s turn", act)
                    passed_before = len(g.history)
                    g.roll(act.dice)
                    passed = any(isinstance(e, PassEvent) for e in g.history[passed_before:])
                    if passed:
                        if act.text.strip():
                            fail(
                                f"play {quote(act.text)} with {act.dice[0]}{act.dice[1]}: no checker can move "
                                f"(the roll must be passed)",
                                act,
                            )
                        continue
                elif g.phase == "move" and i == opened:
                    pass
                else:
                    fail(f"a roll is not allowed now (phase {g.phase!r})", act)
                if act.player != g.turn:
                    fail(f"{names[act.player]} plays but it is {names[g.turn]}'s turn", act)
                text = act.text.strip()
                if not strict and (not text or UNKNOWN_PLAY.match(text)):
                    legal = g.legal_plays()
                    if len(legal) == 1:  # as GNU Backgammon: a forced play left blank is made
                        note("forced_play_blank", act, dice=list(act.dice), play=str(legal[0]))
                        g.play(legal[0])
                        continue
                    if _resigned_after_roll(acts, i):
                        if text:
                            note("unknown_play_resign", act, text=text, dice=list(act.dice), player=act.player)
                        else:
                            note("roll_then_resign", act, dice=list(act.dice), player=act.player)
                        continue  # the roll stands unplayed; the Wins line is the resignation
                    if i == len(acts) - 1 and mg is record.games[-1]:
                        note("unplayed_last_roll", act, dice=list(act.dice), player=act.player)
                        continue  # the record stops there: the game is unfinished
                g.play(act.text)
            elif act.kind == "double":
                if g.phase != "roll" or act.player != g.turn:
                    why = f"it is {names[g.turn]}'s turn" if g.turn != act.player else f"phase {g.phase}"
                    fail(f"{names[act.player]} cannot double now ({why})", act)
                if act.value is not None and act.value != g.cube_value * 2:
                    fail(f"'Doubles => {act.value}' but the cube is at {g.cube_value}", act)
                if g.cube_value * 2 > MAX_CUBE:
                    fail(f"a double would take the cube past {MAX_CUBE}", act)
                g.double(player=act.player)
            elif act.kind == "take":
                g.take(player=act.player)
            elif act.kind == "beaver":
                if act.value is not None and act.value != g.cube_value * 4:
                    fail(f"'Beavers => {act.value}' but the cube is at {g.cube_value}", act)
                if g.cube_value * 4 > MAX_CUBE:
                    fail(f"a beaver would take the cube past {MAX_CUBE}", act)
                g.beaver(player=act.player)
            elif act.kind == "drop":
                g.drop(player=act.player)
            elif act.kind == "wins":
                if g.is_over:
                    r = g.result
                    if r.winner != act.player:
                        fail(f"the record says {names[act.player]} wins, but {g.result_text()}", act)
                    if r.points != act.value:
                        if strict or act.value > r.points:  # more than the game gave: a wrong line
                            fail(
                                f"'Wins {act.value}' but the game is worth {r.points} ({r.level_name}, cube {r.cube})",
                                act,
                            )
                        worth = {"points": r.points, "level": r.level_name, "cube": r.cube, "stated": act.value}
                        needed = match.length - match.score_before(index)[r.winner] if match.length else None
                        if match.length and act.value < r.points and act.value in (needed, match.length):
                            note("wins_capped", act, **worth)
                        else:
                            note("wins_differs", act, **worth)
                else:
                    # a resignation by the other player, accepted at the level worth that much
                    resign_worth(act.player, act.value, act)
            elif act.kind == "losses":
                # the loser: the game's, else the other side of the Wins line after it (Galaxy writes
                # some Losses lines in no column), else the column's player
                later = next((a for a in acts[i + 1 :] if a.kind == "wins"), None)
                if g.is_over and g.result.winner is not None:
                    note("galaxy_losses", act, points=act.value, player=1 - g.result.winner)
                elif later is not None:
                    note("galaxy_losses", act, points=act.value, player=1 - later.player)
                elif g.is_over:
                    note("galaxy_losses", act, points=act.value, player=act.player)
                else:  # no Wins line after it: the loser's line is the resignation
                    note("losses_resign", act, points=act.value, player=act.player)
                    resign_worth(1 - act.player, act.value, act)
            elif act.kind == "resigns":
                note("resigns_line", act, player=act.player)
            elif act.kind == "draw":
                if not g.is_over or g.result.winner is not None:
                    fail("a draw line, but the game is not drawn", act)
                if act.value is not None and act.value != g.result.points:
                    fail(f"draw worth {act.value} but the game gives {g.result.points} each", act)
        except RecordError:
            raise
        except NardyError as e:
            fail(str(e), act)


def rules_uses_opening_dice(rules: Rules) -> bool:
    """Whether a game of ``rules`` opens with the opening roll's dice as the starter's first roll."""
    return rules.opening == "use-opening-dice"
