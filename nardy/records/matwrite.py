"""Writing a match as a ``.mat`` record (:func:`write_mat`, laid out as GNU Backgammon writes it), and a
replayed match's summary (:func:`match_summary`, :func:`record_json`: ``nardy replay --json``).
"""

from __future__ import annotations

import json

from ..flow.events import (
    AcceptEvent,
    BeaverEvent,
    DeclineEvent,
    DoubleEvent,
    DropEvent,
    EndEvent,
    PassEvent,
    PlayEvent,
    ResignEvent,
    TakeEvent,
)
from ..flow.game import Game
from ..flow.match import Match
from ..rules.errors import RecordError
from ..rules.variants import get_rules

__all__ = ["VARIATIONS", "write_mat", "record_settings", "record_json", "match_summary"]

#: ``Variation`` header value written for each game.
VARIATIONS = {"backgammon": "Backgammon", "short": "Short Nardy", "long": "Long Nardy"}


def _plain(steps) -> str:
    """Steps as GNU Backgammon's plain move text: every step ``from/to`` (25 bar, 0 off), ``*``."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, _d, hit in steps)


def _points_text(n) -> str:
    if isinstance(n, float) and n != int(n):
        return f"{n} points"
    n = int(n)
    return f"{n} point{'s' if n != 1 else ''}"


def _game_cells(game):
    """The record cells of a game: list of (player, text)."""
    cells = []
    for i, e in enumerate(game.history):
        match e:
            case PlayEvent(player=p, dice=d, steps=steps):
                cells.append((p, f"{d[0]}{d[1]}: {_plain(steps)}".rstrip()))
            case PassEvent(player=p, dice=d):
                cells.append((p, f"{d[0]}{d[1]}:"))
            case DoubleEvent(player=p, value=v):
                cells.append((p, f" Doubles => {v}"))
            case TakeEvent(player=p):
                cells.append((p, " Takes"))
            case BeaverEvent(player=p, value=v):
                cells.append((p, f" Beavers => {v}"))
            case DropEvent(player=p):
                cells.append((p, " Drops"))
            case EndEvent(winner=None, points=pts):
                before = game.history[i - 1] if i > 0 else None
                cells.append((getattr(before, "player", 0), f"Draw {_points_text(pts)} each"))
            case EndEvent(winner=w, points=pts):
                cells.append((w, f"Wins {_points_text(pts)}"))
    return cells


def _write_game(out: list, game, number: int, score, players):
    out.append(f" Game {number}")
    left = f"{players[0]} : {_score_text(score[0])}"
    out.append(f" {left:<31}{players[1]} : {_score_text(score[1])}")
    cells = _game_cells(game)
    line_no = 0
    cur = None  # [left_text or None, right_text or None]

    def flush():
        nonlocal cur
        if cur is not None:
            lt = cur[0] if cur[0] is not None else ""
            if cur[1] is None:
                out.append(f"{line_no:3d}) {lt}".rstrip())
            else:
                out.append(f"{line_no:3d}) {lt:<27} {cur[1]}".rstrip())
        cur = None

    for player, text in cells:
        if text.startswith(("Wins", "Draw")):
            if player == 1 and cur is not None and cur[0] is not None and cur[1] is None:
                cur[1] = text  # as GNU Backgammon: 'Drops' and the doubler's 'Wins' on one line
                flush()
                continue
            flush()
            out.append((" " * 34 if player == 1 else " " * 6) + text)
            continue
        if player == 0:
            flush()
            line_no += 1
            cur = [text, None]
        else:
            if cur is None or cur[1] is not None:
                flush()
                line_no += 1
                cur = [None, None]
            cur[1] = text
    flush()
    out.append("")


def _score_text(s) -> str:
    return str(int(s)) if float(s) == int(s) else str(s)


def record_settings(match, writer: str, game_crawford: bool):
    """What a record writer needs of a :class:`~nardy.flow.match.Match` or a single :class:`~nardy.flow.game.Game`:
    ``(games, length, rules, players, jacoby, beavers, cube_limit, crawford, cube)``; a game alone is a
    match of length 0 whose Crawford flag is ``game_crawford``.

    Raises:
        RecordError: ``match`` is neither (the message names ``writer``).
    """
    if isinstance(match, Game):
        return (
            [match], 0, match.rules, match.players, match.jacoby, match.cube.beavers, match.cube.limit,
            game_crawford, match.cube_enabled,
        )  # fmt: skip
    if isinstance(match, Match):
        return (
            match.games, match.length, match.rules, match.players, match.jacoby, match.beavers,
            match.cube_limit, match.crawford_rule, match.cube,
        )  # fmt: skip
    raise RecordError(f"{writer} expects a Match or a Game, got {type(match).__name__}", reason="bad input")


def write_mat(match, headers: dict | None = None) -> str:
    """A match (or a single :class:`~nardy.flow.game.Game`) as ``.mat`` text.

    Plays are written from each player's own view, step by step as GNU Backgammon writes them
    (``13/8 8/5``, ``25/22*``, ``6/0``). Backgammon records import into GNU Backgammon; the nardy
    games get a ``; [Variation "..."]`` header and their options as headers. Declined resignations
    are not written (the format has no line for them); an accepted one is the winner's ``Wins`` line.

    Args:
        match: a :class:`~nardy.flow.match.Match` or :class:`~nardy.flow.game.Game`.
        headers: extra ``; [Key "value"]`` headers.
    Raises:
        RecordError: ``setup_not_in_mat``: a game began at a set-up position (:meth:`Match.new_game_from`):
            a .mat record has no way to say so, and its plays would be read from the starting position.
    """
    games, length, rules, players, jacoby, beavers, limit, crawford, cube = record_settings(match, "write_mat", True)
    for i, g in enumerate(games):
        if g.history and g.history[0].type == "setup":
            raise RecordError(
                f"game {i + 1} began at a set-up position ({g.history[0].position}): a .mat record cannot hold it",
                game=i + 1,
                code="setup_not_in_mat",
            )
    h = {"Site": "nardy", "Player 1": players[0], "Player 2": players[1], "Variation": VARIATIONS[rules.name]}
    if length:
        h["Crawford"] = "On" if crawford else "Off"
    else:
        h["Jacoby"] = "On" if jacoby else "Off"
        h["Beavers"] = "On" if beavers else "Off"
    if limit:
        h["CubeLimit"] = str(limit)
    default = get_rules(rules.name)
    if rules != default or rules.name != "backgammon" or cube != rules.cube:
        h["Opening"] = rules.opening
        h["Scoring"] = "/".join(str(v) for v in rules.scoring)
        h["Strict Bear-off"] = "On" if rules.strict_bear_off else "Off"
        if rules.name == "long":
            h["Head Exception"] = rules.head_exception
            h["Last Roll"] = rules.last_roll
        h["Cube"] = "On" if cube else "Off"
    if headers:
        h.update(headers)
    out = [f'; [{k} "{v}"]' for k, v in h.items()]
    out += ["", f" {length} point match", ""]
    score = list(getattr(match, "start_score", (0, 0)))  # a resumed match goes on from its score
    for i, g in enumerate(games):
        _write_game(out, g, i + 1, score, players)
        if g.result is not None:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return "\n".join(out) + "\n"


def record_json(match) -> str:
    """The replayed match's games, plays and results as JSON text (for ``nardy replay --json``)."""
    return json.dumps(match_summary(match), indent=1)


#: The events a match summary lists (plays, passes, cube actions, resignations).
_SUMMARY_EVENTS = (
    PlayEvent,
    PassEvent,
    DoubleEvent,
    TakeEvent,
    DropEvent,
    BeaverEvent,
    ResignEvent,
    AcceptEvent,
    DeclineEvent,
)


def match_summary(match) -> dict:
    """Each game's plays and result and the final score, as JSON-able data."""
    games = []
    score = list(match.start_score)
    for i, g in enumerate(match.games):
        events = [e.to_dict() for e in g.history if isinstance(e, _SUMMARY_EVENTS)]
        games.append(
            {
                "game": i + 1,
                "score": list(score),
                "crawford": g.crawford,
                "events": [{k: v for k, v in e.items() if k != "steps"} for e in events],
                "result": g.result.to_dict() if g.result else None,
            }
        )
        if g.result:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return {
        "game": match.rules.name,
        "length": match.length,
        "players": list(match.players),
        "games": games,
        "score": list(match.score),
        "winner": match.winner,
    }
