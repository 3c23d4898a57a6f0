"""eXtreme Gammon's own analysis beside nardy's: :func:`attach_xg` puts the figures an ``.xg`` file holds
(:attr:`nardy.records.xg.XGMatchRecord.analysis`) on the matching decisions of a
:class:`~nardy.analysis.results.MatchAnalysis`, as ``Decision.xg`` (``"xg"`` in the decision's dict:
``{"equity_loss", "best", "equities": [[play, equity], ...]}``, XG's normalised equities from the
decider's view; docs/records.md "eXtreme Gammon's .xg").
"""

from __future__ import annotations

from collections import defaultdict, deque

__all__ = ["attach_xg"]


def _key(game, action, player, position, dice) -> tuple:
    return (int(game), str(action), int(player), str(position), tuple(sorted(dice, reverse=True)) if dice else None)


def attach_xg(analysis, entries) -> int:
    """Set ``xg`` on each decision of ``analysis`` that one of ``entries`` (dicts with ``game``, ``action``,
    ``player``, ``position``, ``dice``, ``xg``) describes: the same game, kind of decision (``play``,
    ``double``, ``take``), player, Position ID and roll. Entries are matched in order, so a position met
    twice in a game gets XG's figures of each time. Returns how many decisions got XG's figures."""
    queues: dict = defaultdict(deque)
    for e in entries or ():
        queues[_key(e["game"], e["action"], e["player"], e["position"], e.get("dice"))].append(e["xg"])
    n = 0
    for d in analysis.decisions:
        q = queues.get(_key(d.game, d.action, d.player, d.position, d.dice))
        if q:
            d.xg = q.popleft()
            n += 1
    return n
