"""Saved games of ``nardy play``: the format written by ``save FILE``, and reading ``--resume FILE`` (a saved
game, version 2 or 1, or a ``.mat``/SGF record replayed), every field checked before use (an edited file is
refused with the field named, as a :class:`click.UsageError`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

import click

from ..flow.game import PHASES
from ..flow.match import Match
from ..flow.table import SeatKind, Table
from ..rules.dice import DiceSource
from ..rules.errors import NardyError, RecordError
from ..rules.numbering import SCHEMES
from ..texts.i18n import LANGS
from .players import PlayerSpec, parse_player

__all__ = ["SAVE_FORMAT", "SAVE_VERSION", "load_saved_game"]

SAVE_FORMAT = "nardy-play"
#: Version 2: the table (:meth:`~nardy.flow.table.Table.to_dict`) and the terminal's settings. Version 1 (still
#: read): the match, the players as ``human``/``bot:LEVEL``, the seed and the bots' random states.
SAVE_VERSION = 2


def load_saved_game(path: str, seed=None):
    """Read ``--resume FILE``: a saved game (JSON, version 2 or 1) or a ``.mat`` record (replayed; it
    continues with fresh dice). Returns ``(match, data)``, ``data`` being the saved settings as version 1
    words them (``players`` as ``human``/``bot:LEVEL``, ``seed``, ``single``, ``lang``, ``numbering``,
    ``record``, ``hint_level``) and, from version 2, the table's event log (``log``); empty for a record.
    Version 1's random states of the bots (``bots``) are not used: the table seeds each decision of the
    computer from its seed and the place in the match.
    Raises click.UsageError with the reason."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as e:
        raise click.UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise click.UsageError(
            f"{path} is not UTF-8 text (byte {e.start}): not a saved game or a .mat record"
        ) from None
    if not raw.strip():
        raise click.UsageError(f"{path} is empty: not a saved game or a .mat record")
    if raw.lstrip().startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise click.UsageError(f"{path} is not a saved game: {e}") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise click.UsageError(f"{path} is not a game saved by nardy play")
        version = data.get("version", 1)
        if version == 2:
            return _load_table(path, data)
        if version != 1:
            raise click.UsageError(
                f"{path}: cannot resume: field 'version': {version!r:.20}: expected 1 or 2 (a newer nardy play?)"
            )
        _check_saved_settings(path, data)
        _check_saved_v1(path, data)
        try:
            match = Match.from_dict(data["match"])
        except (NardyError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            why = f"missing key {e}" if isinstance(e, KeyError) else str(e)
            raise click.UsageError(f"{path}: cannot resume: field 'match': {why}") from None
        _check_saved_match(path, match)
        return match, data
    from ..records.files import parse_record  # here: only a record to resume needs the records (start-up time)
    from ..records.mat import replay

    try:
        match = replay(parse_record(raw))  # raw is the file's text (.mat, or SGF when it starts with '(')
    except RecordError as e:
        raise click.UsageError(f"{path}: {e}") from None
    src = DiceSource(seed)
    match.dice_source = src
    for g in match.games:
        g.dice_source = src
    return match, {}


def _bad(path, field, why) -> NoReturn:
    raise click.UsageError(f"{path}: cannot resume: field {field!r}: {why}")


def _load_table(path, data: dict):
    """A version 2 saved game: the terminal's settings and a table (:meth:`~nardy.flow.table.Table.from_dict`) that
    ``nardy play`` can sit at (a person or the computer at a known level in each seat, no clock). Returns
    ``(match, settings)`` as :func:`load_saved_game`."""
    from ..engine.bot import BOT_LEVELS  # here: the engine's kernels load slowly (start-up)
    from ..flow.bot import bot_player

    _check_saved_settings(path, data)
    if "table" not in data:
        _bad(path, "table", "missing (the saved table)")
    if not isinstance(data["table"], dict):
        _bad(path, "table", f"expected an object, got {type(data['table']).__name__}")
    try:
        table = Table.from_dict(data["table"], computer=bot_player)
    except (NardyError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        why = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        _bad(path, "table", why)
    for i, seat in enumerate(table.seats):
        if seat.kind is SeatKind.REMOTE:
            _bad(path, f"table.seats[{i}]", "a remote seat: nardy play seats a person here or the computer")
        if seat.kind is SeatKind.COMPUTER and seat.level not in BOT_LEVELS:
            _bad(path, f"table.seats[{i}].level", f"{seat.level!r}: expected one of {', '.join(BOT_LEVELS)}")
    if table.seed is not None and table.seed < 0:
        _bad(path, "table.seed", f"{table.seed!r}: expected a whole number >= 0 or null")
    if table.clock is not None:
        _bad(path, "table.clock", "nardy play has no clock: expected null")
    if table.ended is not None:
        _bad(path, "table.ended", "the match ended on time: nothing to continue")
    _check_saved_match(path, table.match, "table.match")
    settings = {k: data[k] for k in ("single", "lang", "numbering", "record", "hint_level") if k in data}
    settings.update(
        players=[str(PlayerSpec.from_seat(s)) for s in table.seats],
        seed=table.seed,
        log=table.log,
    )
    return table.match, settings


def _check_saved_settings(path, data: dict):
    """Refuse a saved game whose terminal settings were edited into something ``nardy play`` cannot use."""
    from ..engine.bot import BOT_LEVELS  # here: the engine's kernels load slowly (start-up)

    def bad(field, why) -> NoReturn:
        _bad(path, field, why)

    if "single" in data and not isinstance(data["single"], bool):
        bad("single", f"{data['single']!r}: expected true or false")
    if data.get("lang") is not None and data["lang"] not in LANGS:
        bad("lang", f"{data['lang']!r}: expected one of {', '.join(LANGS)}")
    if data.get("numbering") is not None and data["numbering"] not in SCHEMES:
        bad("numbering", f"{data['numbering']!r}: expected one of {', '.join(SCHEMES)}")
    if data.get("record") is not None and not isinstance(data["record"], str):
        bad("record", f"{data['record']!r}: expected a file name or null")
    if data.get("hint_level") is not None and data["hint_level"] not in BOT_LEVELS:
        bad("hint_level", f"{data['hint_level']!r}: expected one of {', '.join(BOT_LEVELS)}")


def _check_saved_v1(path, data: dict):
    """Refuse a version 1 saved game whose match, players or seed were edited into something unusable."""

    def bad(field, why) -> NoReturn:
        _bad(path, field, why)

    if "match" not in data:
        bad("match", "missing (the saved match)")
    if not isinstance(data["match"], dict):
        bad("match", f"expected an object, got {type(data['match']).__name__}")
    players = data.get("players")
    if players is not None:
        if not isinstance(players, list) or len(players) != 2:
            bad("players", f"{players!r}: expected two players")
        for p in players:
            if not isinstance(p, str):
                bad("players", f"{p!r}: expected human or bot[:LEVEL]")
            try:
                parse_player(p)
            except ValueError as e:
                bad("players", str(e))
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        bad("seed", f"{seed!r}: expected a whole number >= 0 or null")
    if data.get("bots") is not None and not isinstance(data["bots"], dict):
        bad("bots", f"expected an object, got {type(data['bots']).__name__}")


def _check_saved_match(path, match, field: str = "match"):
    """Refuse a loaded match (saved as ``field``) whose games are in a state no turn can continue from (an
    edited file)."""
    for i, g in enumerate(match.games):
        where = f"{field}.games[{i}]"
        if g.phase not in PHASES:
            raise click.UsageError(
                f"{path}: cannot resume: field '{where}.state.phase': {g.phase!r}: expected one of {', '.join(PHASES)}"
            )
        if g.phase not in ("opening", "over") and g.to_act not in (0, 1):
            raise click.UsageError(f"{path}: cannot resume: field '{where}.state.turn': {g.turn!r}: expected 0 or 1")
        if i < len(match.games) - 1 and not g.is_over:
            raise click.UsageError(f"{path}: cannot resume: field '{where}': a game before the last is not over")
        if g.phase == "opening":  # the table plays a game's opening when it starts the game
            raise click.UsageError(f"{path}: cannot resume: field '{where}.state.phase': the opening was not played")
