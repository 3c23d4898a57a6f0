"""Match equity tables: the chance to win a match from a score, before a game starts.

* Backgammon: the published **Kazaross-XG2** table (Neil Kazaross, 2011, as distributed with GNU
  Backgammon, ``met/Kazaross-XG2.xml``), 25 x 25 pre-Crawford plus the post-Crawford row; shipped as
  ``nardy/data/met-kazaross-xg2.txt``. Scores beyond 25 away are extended with the same recursion as
  below (an approximation).
* Short and long nardy: computed here from each game's result distribution (the share of each result
  level among decided games, measured by self-play of the shipped nets: :data:`LEVEL_SHARES`), for even
  games without a cube: ``M(a, b) = 1/2 sum_k q_k M(a - v_k, b) + 1/2 sum_k q_k M(a, b - v_k)`` with
  ``M(a <= 0, b) = 1`` and ``M(a, b <= 0) = 0`` (``v_k`` the points of level k: 1/2/4/8 short, 1/2 long).

``MatchEquityTable.mwc(away_me, away_opp, post_crawford=False)`` gives the match winning chance of the
side that needs ``away_me`` points against one that needs ``away_opp``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

__all__ = ["MatchEquityTable", "get_met", "LEVEL_SHARES"]

_DATA = Path(__file__).resolve().parent.parent / "data"

#: Share of each result level among decided games (lowest level first), for the computed tables.
#: Backgammon's figure is the usual one (about 27% gammons, 1% backgammons) and only extends the
#: published table beyond 25 away; the nardy figures come from 0-ply self-play of the shipped nets
#: (short: measured with the 251k net; the 1.05M net gives 0.7393, 0.0314, 0.2290, 0.0003 over 20,000
#: games, within 0.0012; long: 50,000 games of the 994k net, 1.8 points more mars than the 193k net).
LEVEL_SHARES = {
    "backgammon": (0.72, 0.27, 0.01),
    "short": (0.7405, 0.0305, 0.2285, 0.0005),
    "long": (0.793, 0.207),
}
_VALUES = {"backgammon": (1, 2, 3), "short": (1, 2, 4, 8), "long": (1, 2)}


def _computed(shares, values, n: int) -> np.ndarray:
    """M[a, b] for a, b = 0..n (index = points away; 0 means the match is won/lost)."""
    M = np.zeros((n + 1, n + 1))
    M[0, :] = 1.0
    M[:, 0] = 0.0
    M[0, 0] = 0.5
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            s = 0.0
            for q, v in zip(shares, values):
                s += 0.5 * q * (M[max(a - v, 0), b] if a - v > 0 else 1.0)
                s += 0.5 * q * (M[a, max(b - v, 0)] if b - v > 0 else 0.0)
            M[a, b] = s
    return M


class MatchEquityTable:
    """A match equity table for one game.

    Attributes:
        game: the game; ``name``: the table's name (``"Kazaross-XG2"`` or ``"computed"``);
        pre: float64[N+1, N+1], ``pre[a, b]`` = MWC at a-away vs b-away (index 0 unused);
        post: float64[N+1] or ``None``, ``post[b]`` = MWC of the trailer b-away against the leader
            1-away after the Crawford game.
    """

    def __init__(self, game: str, name: str, pre: np.ndarray, post: np.ndarray | None):
        self.game = game
        self.name = name
        self.pre = pre
        self.post = post
        self.size = pre.shape[0] - 1

    def mwc(self, away_me: int, away_opp: int, post_crawford: bool = False) -> float:
        """MWC of the side needing ``away_me`` points against ``away_opp`` (<= 0 means already won/lost)."""
        if away_me <= 0:
            return 1.0
        if away_opp <= 0:
            return 0.0
        if post_crawford and self.post is not None and (away_me == 1 or away_opp == 1):
            if away_me == 1 and away_opp == 1:
                return 0.5
            if away_me == 1:
                return 1.0 - float(self.post[min(away_opp, self.size)])
            return float(self.post[min(away_me, self.size)])
        a = min(away_me, self.size)
        b = min(away_opp, self.size)
        return float(self.pre[a, b])

    def mwc_after(self, away_me: int, away_opp: int, before_me: int, before_opp: int) -> float:
        """MWC after a game that leaves ``away_me``/``away_opp``, started at ``before_me``/``before_opp``:
        a score reaching 1-away for the first time gives the Crawford game (the pre-Crawford entries
        hold it); when someone was already 1-away before, the post-Crawford entries apply."""
        post = before_me == 1 or before_opp == 1
        return self.mwc(away_me, away_opp, post_crawford=post)


@cache
def get_met(game: str) -> MatchEquityTable:
    """The match equity table of a game (see the module docstring)."""
    from ..rules.variants import get_rules

    g = get_rules(game).name
    if g == "backgammon":
        t = np.loadtxt(_DATA / "met-kazaross-xg2.txt")
        n = 64
        ext = _computed(LEVEL_SHARES[g], _VALUES[g], n)
        pre = ext.copy()
        pre[1:26, 1:26] = t[:25]
        post = np.zeros(n + 1)
        post[1:26] = t[25]
        # beyond 25 away: extend the post-Crawford row geometrically (it roughly halves every 2 points)
        for b in range(26, n + 1):
            post[b] = post[b - 2] * (post[25] / post[23])
        return MatchEquityTable(g, "Kazaross-XG2", pre, post)
    n = 64
    return MatchEquityTable(g, "computed", _computed(LEVEL_SHARES[g], _VALUES[g], n), None)


def level_shares_from_selfplay(net, games: int = 2000, seed: int = 1) -> tuple:
    """Share of each result level in ``games`` cubeless 0-ply self-play games of a net (how
    :data:`LEVEL_SHARES` of the nardy games were measured)."""
    from ..engine import _kernels as K
    from ..engine.tdtrain import _VALUES, _start

    vals = np.array(_VALUES[net.game], np.float64)
    r = K.play_matches(
        net.code,
        _start(net.game),
        vals,
        games,
        seed,
        K.POLICY_NET,
        *net.kernel_weights,
        K.POLICY_NET,
        *net.kernel_weights,
        0.0,
        0.0,
    )
    pts = np.abs(r[r != 0])
    return tuple(float(np.mean(pts == v)) for v in vals)
