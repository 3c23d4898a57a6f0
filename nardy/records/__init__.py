"""Match records: Jellyfish ``.mat`` (:mod:`nardy.records.mat`) and GNU Backgammon's SGF
(:mod:`nardy.records.sgf`) import, replay through the rules, export; eXtreme Gammon's ``.xg``
(:mod:`nardy.records.xg`) import; files by format (:mod:`nardy.records.files`, :func:`read_record`)."""

from .mat import MatAction, MatchRecord, MatGame, parse_mat, read_mat, replay, write_mat
from .sgf import parse_sgf, read_sgf, replay_sgf, write_sgf
from .xg import parse_xg, parse_xgp

__all__ = [
    "MatAction",
    "MatchRecord",
    "MatGame",
    "parse_mat",
    "read_mat",
    "replay",
    "write_mat",
    "parse_sgf",
    "read_sgf",
    "replay_sgf",
    "write_sgf",
    "parse_xg",
    "parse_xgp",
    "read_record",
]


def read_record(path, *, strict: bool = False):
    """A record file (``.mat``, SGF or ``.xg``, told apart by its content) as a
    :class:`~nardy.records.matrecord.MatchRecord`: :func:`nardy.records.files.read_record`."""
    from .files import read_record as read

    return read(path, strict=strict)
