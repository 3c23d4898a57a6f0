"""The dice self-test: ``GET /api/dice/test`` rolls N pairs with the provably fair scheme of online games
(:mod:`nardy.rules.fairdice`, docs/fairness.md) from fresh seeds and counts them; ``GET /api/dice/played`` counts
the two-dice rolls of the most recent finished online games on this server; ``GET /dice`` is the page
(``static/dice.html``), which shows the counts against their expectation with chi-square figures.

The counts are of roll numbers ``0 .. N-1`` of one new server seed (32 random bytes, revealed in the answer
with its commitment) and two client seeds: the browser's (``client_seed``, or one made here) and one made
here. Anyone can recompute them with the ten lines of Python in docs/fairness.md. N is at most
:data:`MAX_ROLLS` (about 0.6 s of one core); one test runs at a time per process.
"""

from __future__ import annotations

import math
import secrets
from importlib import resources

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse

from ...rules import fairdice
from ..deps import ActionLane, StorageDep
from ..gamecache import materialise
from ..store.storage import Storage

__all__ = ["router", "MAX_ROLLS", "MAX_PLAYED", "roll_counts", "played_counts", "summary", "chi_square", "chi2_sf"]

router = APIRouter()

#: The most rolls one request may ask for.
MAX_ROLLS = 100_000
#: The most finished online games whose rolls one request counts (the most recent ones).
MAX_PLAYED = 200
#: One self-test at a time (each is CPU work of up to about half a second).
_LANE = ActionLane(size=1)


def roll_counts(server_seed: bytes, seeds: tuple[str, str], n: int) -> list[list[int]]:
    """How often each ordered pair came up in rolls ``0 .. n-1``: ``counts[d1 - 1][d2 - 1]`` (a 6 x 6 table).

    Raises InvalidOptionError for a client seed that :func:`nardy.rules.fairdice.check_client_seed` refuses."""
    s0, s1 = (fairdice.check_client_seed(s) for s in seeds)
    counts = [[0] * 6 for _ in range(6)]
    prefix = f"{s0}:{s1}"
    for i in range(n):
        d1, d2 = fairdice._derive(server_seed, prefix, i, 2)
        counts[d1 - 1][d2 - 1] += 1
    return counts


def played_counts(store: Storage, most: int) -> tuple[int, list[list[int]]]:
    """The ordered pairs of every two-dice roll (openings' single dice left out) of the ``most`` most recently
    finished online games: ``(games counted, 6 x 6 counts)``. A game that cannot be read is skipped."""
    counts = [[0] * 6 for _ in range(6)]
    found = offset = 0
    page = 100
    while found < most and offset < most * 20:
        rows = store.list(page, offset, "over")
        offset += page
        for row in rows:
            if row.summary.get("opponent") != "online":
                continue
            saved = store.get(row.id)
            try:
                rolls = materialise(saved).fairness()["rolls"] if saved else []
            except Exception:  # a game saved by another version, or damaged: not counted
                continue
            for roll in rolls:
                if len(roll) == 2:
                    counts[roll[0] - 1][roll[1] - 1] += 1
            found += 1
            if found == most:
                break
        if len(rows) < page:
            break
    return found, counts


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square distributed with ``df`` degrees of freedom: the regularized upper incomplete
    gamma function Q(df/2, x/2) (series below a + 1, Lentz's continued fraction above; Numerical Recipes,
    section 6.2). Accurate to about 1e-12 for the sizes used here."""
    if x <= 0:
        return 1.0
    a, z = df / 2.0, x / 2.0
    gln = math.lgamma(a)
    if z < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= z / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-z + a * math.log(z) - gln))
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-z + a * math.log(z) - gln) * h)


def chi_square(observed: list[int], expected: list[float]) -> dict:
    """Pearson's chi-square of ``observed`` counts against ``expected`` ones: ``{"chi2", "df", "p"}`` with
    ``df = len(observed) - 1`` and ``p`` the chance of a chi-square at least this large with fair dice."""
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    df = len(observed) - 1
    return {"chi2": round(chi2, 4), "df": df, "p": round(chi2_sf(chi2, df), 6)}


def summary(counts: list[list[int]]) -> dict:
    """The three views of a 6 x 6 table of ordered pairs: the 36 pairs, the 6 faces (both dice counted), the
    21 rolls (a non-double is two ordered pairs), each with its expected counts and chi-square."""
    n = sum(map(sum, counts))
    pairs = [c for row in counts for c in row]
    faces = [sum(counts[i]) + sum(row[i] for row in counts) for i in range(6)]
    rolls21 = []
    names = []
    expected21 = []
    for i in range(6):
        for j in range(i, 6):
            names.append(f"{i + 1}-{j + 1}")
            rolls21.append(counts[i][j] + (counts[j][i] if i != j else 0))
            expected21.append(n / 36 * (1 if i == j else 2))
    return {
        "n": n,
        "pairs": counts,
        "pairs_test": chi_square(pairs, [n / 36] * 36),
        "faces": faces,
        "faces_expected": 2 * n / 6,
        "faces_test": chi_square(faces, [2 * n / 6] * 6),
        "rolls21": [{"roll": r, "count": c, "expected": e} for r, c, e in zip(names, rolls21, expected21, strict=True)],
        "rolls21_test": chi_square(rolls21, expected21),
    }


@router.get(
    "/api/dice/test",
    tags=["dice"],
    summary="Roll N pairs with the fair dice scheme from fresh seeds and count them (the dice self-test)",
)
async def dice_test(
    n: int = Query(36_000, ge=36, le=MAX_ROLLS, description=f"how many rolls of two dice (36 to {MAX_ROLLS})"),
    client_seed: str | None = Query(
        None, max_length=64, description="your browser's seed (1-64 of [0-9A-Za-z_-]); one is made if missing"
    ),
):
    """``{"scheme", "server_seed", "commitment", "client_seeds", "n", "pairs": 6 x 6, "faces", "rolls21", ...
    "*_test": {"chi2", "df", "p"}}``; 422 ``invalid_option`` for a client seed outside the scheme's alphabet."""
    seeds = (
        fairdice.check_client_seed(client_seed) if client_seed else secrets.token_hex(16),
        secrets.token_hex(16),
    )
    server_seed = fairdice.new_server_seed()
    counts = await _LANE(roll_counts, server_seed, seeds, n)
    return {
        "scheme": fairdice.SCHEME,
        "server_seed": server_seed.hex(),
        "commitment": fairdice.commitment(server_seed),
        "client_seeds": list(seeds),
        **summary(counts),
    }


@router.get(
    "/api/dice/played",
    tags=["dice"],
    summary="Count the two-dice rolls of the most recent finished online games on this server",
)
async def dice_played(
    store: StorageDep,
    games: int = Query(100, ge=1, le=MAX_PLAYED, description=f"how many finished online games (1 to {MAX_PLAYED})"),
):
    """``{"games": counted, "n": rolls, ...}`` with the counts and tests of ``/api/dice/test`` when ``n`` > 0
    (only counts: no game, player or seed is named)."""
    found, counts = await _LANE(played_counts, store, games)
    n = sum(map(sum, counts))
    return {"games": found, **(summary(counts) if n else {"n": 0})}


@router.get("/dice", include_in_schema=False)
async def dice_page():
    """The self-test's page."""
    return FileResponse(str(resources.files("nardy.web") / "static" / "dice.html"), media_type="text/html")
