"""A player's statistics over their analysed games on their player page in the lobby (issue 45), in a real browser
(Playwright, Debian's chromium, against ``nardy serve``): a player saves a real record (``gnubg-matches/
gnubg-1002.mat``), has it analysed at 0-ply (the answer comes gzip-compressed and the page reads it), and their
player page shows the analysed games' error rate and PR as the stats route gives them, and the kinds of error,
in English and in Russian. Skipped when chromium or the playwright package is missing, like
tests/web/test_browser.py."""

from __future__ import annotations

import pytest

from tests.helpers import shared_path

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import open_lobby, people, register, shots  # noqa: F401  (fixtures)

pytestmark = tb.pytestmark
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "stats-web", "stats.db")


def test_the_player_page_shows_the_statistics_of_their_analysed_games(server, people):  # noqa: F811
    (page,) = people(1)
    register(page, server, "Statsy")
    record = shared_path("data", "gnubg-matches", "gnubg-1002.mat").read_text()
    gid = page.evaluate("async (t) => (await api('POST', '/api/mat?save=true', t)).id", record)
    analysis = page.evaluate(f"async () => await api('POST', '/api/games/{gid}/analysis?level=advanced')")
    assert len(analysis["decisions"]) > 50 and analysis["levels"][0]["level"] == "advanced"
    encoding = page.evaluate(f"async () => (await fetch('/api/games/{gid}/analysis')).headers.get('content-encoding')")
    assert encoding == "gzip"  # the browser asked for it, and read the JSON all the same
    stats = page.evaluate("async () => await api('GET', `/api/players/${window.nardy.me.id}/stats`)")
    assert stats["analysed"] == 1
    open_lobby(page)
    page.evaluate("() => showPlayer(window.nardy.me.id)")
    page.wait_for_selector("#lobby-player .player-stats")
    text = page.inner_text("#lobby-player .player-stats")
    assert "Analysed games" in text and "Backgammon" in text and "Most frequent errors" in text
    row = stats["rows"][0]
    cells = page.eval_on_selector_all(
        "#lobby-player .player-stats-rows tr[data-period='all'] td", "(tds) => tds.map((td) => td.textContent)"
    )
    assert cells == ["Backgammon", "All", str(row["matches"]), str(row["decisions"]),
                     f"{row['error_rate']:.1f}", f"{row['pr']:.1f}", f"{row['luck_per_game']:+.3f}"]  # fmt: skip
    kinds = page.eval_on_selector_all(
        "#lobby-player .player-stats-kinds li", "(lis) => lis.map((li) => li.dataset.kind)"
    )
    assert kinds == [k["kind"] for k in stats["kinds"]] and "contact" in kinds
    assert "Contact play" in text
    page.select_option("#lang", "ru")
    page.evaluate("() => showPlayer(window.nardy.me.id)")
    page.wait_for_function(
        "() => document.querySelector('#lobby-player .player-stats h4').textContent === 'Разобранные партии'"
    )
    assert "Игра в контакте" in page.inner_text("#lobby-player .player-stats")
