"""Correspondence games in real browsers (docs/online.md, "Correspondence"): a player posts a challenge of 3 days a
move from the lobby's clock choice; taken, the game is rated in the correspondence class with a 3-day clock,
and the home page of the player to move lists it under "Your turn" (opponent, game, hours left) while the
other's says nothing waits. Skipped when chromium or the playwright package is missing."""

from __future__ import annotations

import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import open_lobby, people, register  # noqa: F401  (the people fixture)
from .test_browser_online import PUSH_WAIT, view

pytestmark = tb.pytestmark
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "corr-web", "corr.db")


def test_a_3_day_challenge_is_a_correspondence_game_listed_on_the_home_page_of_the_player_to_move(server, people):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    names = f"Ada{stamp}", f"Ben{stamp}"
    ann, bob = people(2)
    for p, n in zip((ann, bob), names, strict=True):
        register(p, server, n)
    open_lobby(ann)
    open_lobby(bob)
    ann.select_option("#lq-game", "long")
    ann.fill("#lq-length", "1")
    ann.select_option("#lq-clock", "days3")
    assert ann.inner_text("#lq-clock option[value=days3]") == "3 days a move"
    ann.set_checked("#lq-rated", True)
    ann.click("#btn-challenge")
    bob.wait_for_selector("#lobby-challenges li[data-challenge] button.accept", timeout=PUSH_WAIT * 1000)
    assert "Correspondence" in bob.inner_text("#lobby-challenges li[data-challenge]")
    bob.click("#lobby-challenges button.accept")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
    v = view(ann)
    assert v["clock"]["days"] == 3 and v["online"]["rating_class"] == "correspondence"
    mover, other = (ann, bob) if v["to_act"] in v["you"] else (bob, ann)
    opponent = names[1] if mover is ann else names[0]
    for p in (mover, other):
        p.goto(server.url + "/")
        p.wait_for_selector("#your-turn-list li")
    [item] = mover.query_selector_all("#your-turn-list li")
    text = item.inner_text()
    assert opponent in text and "Long nardy" in text and ("71 h left" in text or "72 h left" in text), text
    assert item.get_attribute("data-id") == v["id"]
    assert other.inner_text("#your-turn-list") == "No game waits for your move."
