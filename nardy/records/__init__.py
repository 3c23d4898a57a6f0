"""Match records: Jellyfish ``.mat`` (:mod:`nardy.records.mat`) and GNU Backgammon's SGF
(:mod:`nardy.records.sgf`) import, replay through the rules, export; files by format (:mod:`nardy.records.files`)."""

from .mat import MatAction, MatchRecord, MatGame, parse_mat, read_mat, replay, write_mat
from .sgf import parse_sgf, read_sgf, replay_sgf, write_sgf

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
]
