"""Bots: evaluators, nets, bearoff database, search, cube decisions, training."""
