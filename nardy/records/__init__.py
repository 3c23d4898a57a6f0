"""Match records: Jellyfish ``.mat`` import, replay through the rules, export (:mod:`nardy.records.mat`)."""

from .mat import MatAction, MatchRecord, MatGame, parse_mat, read_mat, replay, write_mat

__all__ = ["MatAction", "MatchRecord", "MatGame", "parse_mat", "read_mat", "replay", "write_mat"]
