"""Ratings of online players: Glicko-2 (Glickman), a match weighted by its length as FIBS weights it.

The algorithm is the published one: Mark E. Glickman, "Example of the Glicko-2 system" (Boston University,
2013; http://www.glicko.net/glicko/glicko2.pdf), steps 1-8, the volatility found by the Illinois algorithm of
its step 5. :func:`update` is those steps for one rating period with any number of results; its test is the
paper's worked example (1500/200/0.06 against 1400/30 won, 1550/100 lost, 1700/300 lost: 1464.06/151.52/
0.05999 with tau 0.5).

Match length (FIBS)
    FIBS changes a backgammon rating after an N-point match by ``4 * K * sqrt(N) * P`` where ``P`` is the
    probability that the winner would have lost, ``1 / (10 ** (D * sqrt(N) / 2000) + 1)`` with ``D`` the
    rating difference (http://www.fibs.com/ratings.html): the change grows with sqrt(N). Here a match to N
    points counts as ``w = sqrt(N)`` games with the same result against that opponent in the rating period
    (a weighted observation): in the paper's formulas every sum over results gets the factor ``w``::

        v      = 1 / (w * g(phi_j)**2 * E * (1 - E))
        Delta  = v * w * g(phi_j) * (s - E)
        mu'    = mu + phi'**2 * w * g(phi_j) * (s - E)

    (``phi'`` from ``v`` as in step 7, so the deviation shrinks more after a longer match too). A 1-point
    match is exactly one Glicko-2 game; while ``phi*`` dominates ``v`` the change is ``sqrt(N)`` times a
    1-point match's, FIBS's scaling. The expected score ``E`` stays Glicko-2's (the ratings keep the Glicko
    scale, 1500 and 400 points for a factor of 10 in odds at RD 0).

Rating periods
    Every rated match is a rating period of its own for both players (as lichess does). A player who has not
    played for a while is less certain: before a match, ``phi`` grows by ``sigma**2`` for each whole
    :data:`PERIOD_DAYS` since their last rated match (step 6 for the periods without games), at most to the
    starting deviation.

Which results are rated (docs/online.md, "Ratings"; against farming one's own accounts)
    * A real game: a rated match counts only when each side has taken at least :data:`MIN_TURNS` turns in it
      (a play, or a roll that could not be played); one decided before (a resignation, a dropped double, an
      abandonment claim, the clock) is not rated.
    * Repeated results weigh less: the first, second and third rated results of the same two players within
      :data:`PAIR_WINDOW_HOURS` hours (any game, any clock class) weigh :data:`PAIR_WEIGHTS` (1, 1/2, 1/4: the
      weight multiplies the match's ``sqrt(N)``); later ones in that window are not rated.
    * Established players: a rating is on the leaderboard once its player has played
      :data:`ESTABLISHED_MATCHES` rated matches against :data:`ESTABLISHED_OPPONENTS` different opponents in
      that game and clock class (until then it is provisional, shown only on the player's own page).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..flow.events import PassEvent, PlayEvent

__all__ = [
    "Rating",
    "update",
    "match_update",
    "idle",
    "clock_class",
    "CLOCK_CLASSES",
    "SCALE",
    "TAU",
    "START",
    "PERIOD_DAYS",
    "PROVISIONAL_RD",
    "MIN_TURNS",
    "PAIR_WEIGHTS",
    "PAIR_WINDOW_HOURS",
    "ESTABLISHED_MATCHES",
    "ESTABLISHED_OPPONENTS",
    "turns_taken",
    "too_short",
    "pair_weight",
    "established",
]

#: Glicko-2's scale: mu = (r - 1500) / SCALE (the paper's 173.7178 = 400 / ln 10).
SCALE = 173.7178
#: The system constant tau (the paper: 0.3 to 1.2; smaller: volatility changes more slowly).
TAU = 0.5
#: The convergence tolerance of step 5.
EPSILON = 0.000001
#: Days a rating period lasts for a player who does not play (their RD grows once a period).
PERIOD_DAYS = 7
#: A rating whose deviation is above this is provisional (not yet known well).
PROVISIONAL_RD = 110.0


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: ``rating`` (1500 = a new player), ``rd`` its deviation (350 =
    nothing known), ``vol`` the volatility sigma."""

    rating: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


START = Rating()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility (the Illinois algorithm on f, as in the paper)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: list[tuple[Rating, float, float]], tau: float = TAU) -> Rating:
    """One rating period of ``player`` (Glickman's steps 1-8).

    Args:
        player: the rating before the period.
        results: ``(opponent's rating before the period, score, weight)``: score 1 a win, 0 a loss, 0.5 a
            draw, from ``player``'s view; weight 1 for one game (:func:`match_update` gives sqrt(N) for a
            match to N points). Empty: the period without games (only the deviation grows, step 6).
        tau: the system constant.

    Returns the rating after the period. Raises ValueError: a weight that is not positive, a score outside
    [0, 1].
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.rd / SCALE
    sigma = player.vol
    if not results:
        return Rating(player.rating, min(START.rd, SCALE * math.sqrt(phi * phi + sigma * sigma)), sigma)
    inv_v = 0.0
    total = 0.0
    for opp, score, weight in results:
        if not weight > 0 or not 0.0 <= score <= 1.0:
            raise ValueError(f"result ({score!r}, weight {weight!r}): expected a score in [0, 1] and a weight > 0")
        mu_j, phi_j = (opp.rating - 1500.0) / SCALE, opp.rd / SCALE
        g, e = _g(phi_j), _e(mu, mu_j, phi_j)
        inv_v += weight * g * g * e * (1.0 - e)
        total += weight * g * (score - e)
    v = 1.0 / inv_v
    delta = v * total
    sigma2 = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu2 = mu + phi2 * phi2 * total
    return Rating(SCALE * mu2 + 1500.0, SCALE * phi2, sigma2)


def idle(r: Rating, days: float) -> Rating:
    """``r`` after ``days`` without a rated match: one period without games (step 6) for each whole
    :data:`PERIOD_DAYS`, the deviation at most the starting one."""
    periods = int(max(0.0, days) // PERIOD_DAYS)
    for _ in range(min(periods, 1000)):
        r = update(r, [])
        if r.rd >= START.rd:
            break
    return r


def match_update(
    winner: Rating, loser: Rating, length: int, tau: float = TAU, weight: float = 1.0
) -> tuple[Rating, Rating]:
    """The two players' ratings after a rated match to ``length`` points won by ``winner``: each an
    :func:`update` with one result of weight ``weight * sqrt(length)`` against the other's rating before the
    match (see the module docstring; ``weight`` below 1: a repeated result of the same two players,
    :func:`pair_weight`). Raises ValueError: ``length`` < 1, ``weight`` not positive."""
    if length < 1:
        raise ValueError(f"match length {length!r}: a rated match is to 1 point or more")
    w = weight * math.sqrt(length)
    return update(winner, [(loser, 1.0, w)], tau), update(loser, [(winner, 0.0, w)], tau)


#: Clock classes of the ratings, by a player's estimated time for a match (initial + 40 x (increment +
#: delay), in seconds, as lichess estimates a game): at most 10 minutes blitz, 20 rapid, more classic.
CLOCK_CLASSES = ("blitz", "rapid", "classic", "correspondence")


def clock_class(initial: float, increment: float = 0.0, delay: float = 0.0, days: int = 0) -> str:
    """The clock class of a clock (seconds): correspondence (``days`` a move: a class of its own), blitz
    (estimate up to 600 s), rapid (up to 1200 s), else classic. The presets: blitz 60+10 (460 s), rapid 300
    d12 (780 s), classic 900 d15 (1500 s)."""
    if days:
        return "correspondence"
    estimate = initial + 40.0 * (increment + delay)
    if estimate <= 600:
        return "blitz"
    if estimate <= 1200:
        return "rapid"
    return "classic"


# ----- which results are rated ------------------------------------------------------------------------------
#: Turns each side must have taken in a rated match for its result to be rated (see the module docstring).
MIN_TURNS = 5
#: The weights of the 1st, 2nd, 3rd... rated result of the same two players within :data:`PAIR_WINDOW_HOURS`;
#: a result beyond them is not rated.
PAIR_WEIGHTS = (1.0, 0.5, 0.25)
#: The rolling window (hours) in which repeated results of the same two players weigh less.
PAIR_WINDOW_HOURS = 24
#: Rated matches, and different opponents among them, that make a rating established (on the leaderboard).
ESTABLISHED_MATCHES = 5
ESTABLISHED_OPPONENTS = 3


def turns_taken(match) -> tuple[int, int]:
    """The turns White (0) and Black (1) have taken in ``match`` (a :class:`~nardy.flow.match.Match`), all its games
    together: plays made (:class:`~nardy.flow.events.PlayEvent`) and rolls that could not be played
    (:class:`~nardy.flow.events.PassEvent`); the opening roll, doubles and resignations are not turns."""

    out = [0, 0]
    for g in match.games:
        for e in g.history:
            if isinstance(e, (PlayEvent, PassEvent)) and e.player in (0, 1):
                out[e.player] += 1
    return out[0], out[1]


def too_short(match) -> bool:
    """The match was decided before each side took :data:`MIN_TURNS` turns: its result is not rated."""
    return min(turns_taken(match)) < MIN_TURNS


def pair_weight(earlier: int) -> float:
    """The weight of a rated result of two players who have ``earlier`` rated results together within
    :data:`PAIR_WINDOW_HOURS`: :data:`PAIR_WEIGHTS`, 0 (not rated) beyond them."""
    return PAIR_WEIGHTS[earlier] if 0 <= earlier < len(PAIR_WEIGHTS) else 0.0


def established(matches: int, opponents: int) -> bool:
    """A rating is established (listed on the leaderboard) after :data:`ESTABLISHED_MATCHES` rated matches
    against :data:`ESTABLISHED_OPPONENTS` different opponents."""
    return matches >= ESTABLISHED_MATCHES and opponents >= ESTABLISHED_OPPONENTS
