"""Programs as players in a real browser (Playwright, Debian's chromium, against ``nardy serve``; issue 44): a bot
account's name carries the BOT mark in the lobby's online list and on its player page; on one's own page the API
tokens are made (the token shown once), listed and revoked. Skipped when chromium or the playwright package is
missing, like tests/web/test_browser.py."""

from __future__ import annotations

import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import people, shots  # noqa: F401  (fixtures)
from .test_browser_profile import Player, log_in

pytestmark = [*tb.pytestmark, pytest.mark.slow]
browser = tb.browser

PASSWORD = "a long password"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "bots-web", "bots.db")


class Bot(Player):
    """A bot account over HTTP."""

    def __init__(self, url: str, name: str):  # noqa: D107
        super(Player, self).__init__(url)
        status, out = self.request("POST", "/api/auth/register", {"name": name, "password": PASSWORD, "bot": True})
        assert status == 201, out
        self.me = out["user"]


def test_the_bot_mark_and_the_api_tokens_of_ones_own_page(server, people, shots):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    ann, robo = Player(server.url, f"Ann{stamp}"), Bot(server.url, f"Robo{stamp}")
    assert robo.me["bot"] is True
    robo.get("/api/lobby")  # the bot is online
    (page,) = people(1)
    log_in(page, server, ann.me["name"])

    # the lobby: the bot's name in the online list has the mark, Ann's has none
    page.goto(server.url + "/#/lobby")
    page.wait_for_selector(f"#lobby-online li[data-user='{robo.me['id']}']")
    assert page.locator(f"#lobby-online li[data-user='{robo.me['id']}'] .bot-mark").inner_text() == "BOT"
    assert page.locator(f"#lobby-online li[data-user='{ann.me['id']}'] .bot-mark").count() == 0

    # the bot's page: the mark beside its name; no tokens there
    page.goto(server.url + "/#/player/" + robo.me["name"])
    page.wait_for_selector("#pf-name .bot-mark")
    assert page.locator("#pf-tokens").count() == 0

    # one's own page: make a token, shown once, listed, revoked
    page.goto(server.url + "/#/player/" + ann.me["name"])
    page.wait_for_selector("#pf-tokens #bt-list li")
    assert page.locator("#pf-name .bot-mark").count() == 0
    assert page.locator("#bt-list li[data-token]").count() == 0
    page.fill("#bt-name", "my bot")
    page.click("#bt-make")
    page.wait_for_selector("#bt-secret")
    secret = page.inner_text("#bt-secret")
    assert secret.startswith("nardy_") and len(secret) > 40
    page.wait_for_selector("#bt-list li[data-token]")
    assert "my bot" in page.inner_text("#bt-list") and secret not in page.inner_text("#bt-list")
    status, me = ann.request("GET", "/api/auth/tokens")
    assert status == 200 and [t["name"] for t in me["tokens"]] == ["my bot"]
    # shown once: after a reload the token is listed, never shown
    page.reload()
    page.wait_for_selector("#bt-list li[data-token]")
    assert page.locator("#bt-secret").count() == 0 and secret not in page.content()
    page.click("#bt-list li[data-token] .bt-revoke")
    page.wait_for_selector("#bt-list li.empty")
    status, me = ann.request("GET", "/api/auth/tokens")
    assert me["tokens"] == []
