"""Jellyfish ``.mat`` match records: read, replay through the rules, write.

The ``.mat`` text is the format GNU Backgammon, eXtreme Gammon, BGBlitz and the playing sites
exchange (docs/rules.md "Notation", "Records")::

    ; [Variation "Backgammon"]

     7 point match

     Game 1
     gnubg : 0                      root : 0
      1)                             32: 24/21 13/11
      2) 42: 6/4* 8/4                22: 25/23 13/11 6/4 6/4
      3)  Doubles => 2                Takes
      4) 54:                         64: 23/17* 11/7
     ...
          Wins 1 point

* ``;`` lines are comments; ``; [Key "value"]`` lines are headers. ``Variation`` names the game
  (``Backgammon``, ``Short Nardy``, ``Long Nardy``; the game-name aliases of nardy.rules accepted); the nardy games'
  options are written as headers too (``Opening``, ``Scoring``, ``Strict Bear-off``,
  ``Head Exception``, ``Last Roll``, ``Cube``), with ``Crawford``, ``Jacoby``, ``Beavers`` and
  ``CubeLimit`` for the cube.
* `` N point match`` (0 = money session), then for each game `` Game k``, a score line
  ``name : score   name : score`` and numbered lines with two columns: the left column is player 0
  (White, the first name), the right column player 1 (Black). A cell is a roll and its play from that
  player's own view (``31: 8/5 6/5``; ``25`` or ``bar`` for the bar, ``0`` or ``off`` for off, ``*``
  hits, nothing after the roll for a dance), ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``,
  ``Wins N point(s)`` (in the winner's column; when the game is not over by then it is a resignation
  accepted at the level worth N points), or ``Draw N point(s) each`` (long nardy ``last-roll`` draw,
  this program's own line). Long nardy plays are in each player's own numbering.

:func:`parse_mat` parses a record's text into a :class:`MatchRecord` (syntax only) and
:func:`read_mat` reads a file and parses it; a string is never taken for a file name, so text from
outside (a request body) cannot make the reader open a file. :func:`replay` plays a record through
:class:`~nardy.flow.match.Match`: every play must be legal, every cube action in turn, every ``Wins``
line and game score line must agree with the computed score; the first violation raises
:class:`~nardy.rules.errors.RecordError` naming the game, move number, player and reason, with
``.partial`` holding the valid part. Whatever the text, parsing and replaying it raise no exception
but :class:`~nardy.rules.errors.RecordError`: every number is bounded (``MAX_LENGTH``, ``MAX_SCORE``,
``MAX_CUBE``, ...) before it is used, every line is read in time linear in its length, and a message
quotes at most 40 characters of any piece of the input. :func:`write_mat` writes a match (or one
game) in the same format, as GNU Backgammon lays it out.

This module gathers the names of the ``.mat`` modules: :mod:`~nardy.records.matrecord` (the parsed record, the
bounds), :mod:`~nardy.records.matwarnings` (what real records bend), :mod:`~nardy.records.matparse` (reading
the text), :mod:`~nardy.records.matreplay` (replaying through the rules), :mod:`~nardy.records.matwrite`
(writing, a replay's summary).
"""

from .matparse import parse_mat, read_mat
from .matrecord import (
    MAX_CUBE,
    MAX_GAMES,
    MAX_LENGTH,
    MAX_LINE,
    MAX_MOVE,
    MAX_NAME,
    MAX_OPTION,
    MAX_PLAY,
    MAX_POINTS,
    MAX_SCORE,
    MatAction,
    MatchRecord,
    MatGame,
)
from .matreplay import replay, rules_uses_opening_dice
from .matwarnings import WARNINGS, RecordWarning
from .matwrite import VARIATIONS, match_summary, record_json, record_settings, write_mat

__all__ = [
    "MatAction",
    "MatGame",
    "MatchRecord",
    "RecordWarning",
    "WARNINGS",
    "parse_mat",
    "read_mat",
    "replay",
    "write_mat",
    "VARIATIONS",
    # also importable from here, as before the split
    "MAX_LINE",
    "MAX_LENGTH",
    "MAX_GAMES",
    "MAX_MOVE",
    "MAX_CUBE",
    "MAX_POINTS",
    "MAX_SCORE",
    "MAX_PLAY",
    "MAX_NAME",
    "MAX_OPTION",
    "match_summary",
    "record_json",
    "record_settings",
    "rules_uses_opening_dice",
]
