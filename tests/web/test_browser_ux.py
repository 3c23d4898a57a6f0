"""A player's experience of the page (issue 19), in a real browser: Playwright driving Debian's chromium
against ``nardy serve``, on a desktop (1280x800) and a phone (390x844), in English and Russian.

Everything in the player's language (the cube hint, the chances, the pips' plural forms, names, refusals
from the server, Pass and Resign told apart), a resignation confirmed with what it loses, why a checker
cannot move, the computer's take in the status line, no cube in the Crawford game, a new match after a
match, the strongest computer by default, checker moves and dice animated (and both that and the sound
can be turned off, remembered with the language and the numbering), a phone layout with the score, dice
and controls in view and targets of 44 px. Screenshots of each game in each language and size go to
``test-artifacts/``. Skipped when chromium or the playwright package is missing.
"""

from __future__ import annotations

import json
import re

import pytest

from nardy.texts import catalogue

from . import test_browser as tb
from .helpers import ARTIFACTS, serve_sqlite

#: test_browser's skips (no chromium, no playwright), its chromium (the fixture, by name), its racing player
#: and its view of the page.
pytestmark = tb.pytestmark
browser = tb.browser
pick_step = tb.pick_step
view = tb.view

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
COMBOS = [pytest.param(s, lang, id=f"{s}-{lang}") for s in SIZES for lang in ("en", "ru")]
#: The longer games: each size and each language in the default run (desktop-en, phone-ru), the other two
#: pairs with -m slow.
SPLIT = [
    pytest.param(s, lang, id=f"{s}-{lang}", marks=() if (s == "desktop") == (lang == "en") else pytest.mark.slow)
    for s in SIZES
    for lang in ("en", "ru")
]


def T(key: str, lang: str, section: str = "page", **params) -> str:
    """The catalogue's text (what the page must show)."""
    return catalogue.text(section, key, lang, **params)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "ux")


@pytest.fixture
def open_page(browser, server):
    """open_page(size, lang, animate=False): a fresh visitor (new storage) with these first preferences."""
    ctxs = []

    def make(size: str, lang: str, animate: bool = False, sound: bool = False):
        ctx = browser.new_context(viewport=SIZES[size], locale="ru-RU" if lang == "ru" else "en-GB")
        prefs = {
            "nardy.lang": lang,
            "nardy.animate": "on" if animate else "off",
            "nardy.sound": "on" if sound else "off",
        }
        # the first visit's preferences (later visits keep what the page stored)
        ctx.add_init_script(
            "if (localStorage.getItem('nardy.test') === null) {"
            f" for (const [k, v] of Object.entries({json.dumps(prefs)})) localStorage.setItem(k, v);"
            " localStorage.setItem('nardy.test', '1'); }"
        )
        pg = ctx.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        pg.goto(server.url + "/")
        pg.wait_for_selector("body[data-ready] #home:not([hidden])")
        pg.wait_for_function("window.nardy.updates > 0")  # the page has its handlers and its list
        ctxs.append((ctx, pg))
        return pg

    yield make
    for ctx, pg in ctxs:
        ctx.close()
        assert not pg.errors, f"JavaScript errors on the page: {pg.errors}"


def wait_idle(page, before: int):
    page.wait_for_function("(n) => window.nardy.updates > n && !window.nardy.busy", arg=before, timeout=60_000)


def click(page, selector: str):
    before = page.evaluate("window.nardy.updates")
    page.click(selector)
    wait_idle(page, before)


def start(page, game="backgammon", opponent="bot", level="beginner", seed=1, length=0, cube=True, colour="white"):
    """A new game made as the page makes it (its api()), then opened."""
    body = {
        "game": game,
        "length": length,
        "opponent": opponent,
        "level": level,
        "colour": colour,
        "seed": seed,
        "options": {"cube": cube},
    }
    gid = page.evaluate("async (b) => (await api('POST', '/api/games', b)).id", body)
    page.evaluate("(id) => { location.hash = '#/game/' + id; }", gid)
    page.wait_for_function("(id) => window.nardy.view && window.nardy.id === id && !window.nardy.busy", arg=gid)
    return gid


def play_turn(page):
    """The person's whole play by clicking checkers and destinations, then confirm."""
    for _ in range(8):
        v = view(page)
        if v["phase"] != "move" or not v["human_to_act"]:
            return
        if v["can_confirm"]:
            click(page, "#btn-confirm")
            return
        frm, to = pick_step(v["moves"])
        page.click(f'#board [data-loc="{frm}"]')
        click(page, f'#board [data-loc="{to}"]')
    raise AssertionError("a turn took more than 8 steps")


def until_double(page, turns=12):
    """Play on until the person to act may double."""
    for _ in range(turns):
        v = view(page)
        if "double" in v["actions"]:
            return v
        if v["phase"] == "move":
            play_turn(page)
        elif "roll" in v["actions"]:
            click(page, "#btn-roll")
        else:
            raise AssertionError(f"stuck in {v['phase']} {v['actions']}")
    raise AssertionError("never a chance to double")


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"ux-{name}.png"))


LATIN_OK = {"nardy", "mat", "English", "bar", "off", "SHA"}


def english_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in LATIN_OK]


# ----- item 2: everything in the player's language -------------------------------------------------------
@pytest.mark.parametrize(("size", "lang"), COMBOS)
@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_each_game_in_each_language_and_size(open_page, size, lang, game):
    """The board of each game (a screenshot), pips with their plural forms, no English left in Russian."""
    page = open_page(size, lang)
    start(page, game, seed=4)
    v = view(page)
    pips = page.inner_text("#scoreboard")
    for p in v["pips"]:
        assert T("pips", lang, "common", n=p) in pips
    if lang == "ru":
        assert "очков" not in pips and re.search(r"\d+ пипс", pips)
        body = page.inner_text("body")
        assert not english_words(body), english_words(body)
        assert "Player" not in body and T("player", "ru") in body or "Гость" in body
    shot(page, f"{game}-{lang}-{size}")


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_cube_hint_and_chances_are_worded(open_page, size, lang):
    page = open_page(size, lang)
    start(page, "backgammon", seed=2)
    until_double(page)
    click(page, "#btn-hint")
    hint = page.inner_text("#hints .cube-hint")
    action = page.evaluate("window.nardy.hints.action").replace(" ", "_")
    assert hint.startswith(T("hint_cube", lang, action=T("cube_" + action, lang)))
    probs = page.inner_text("#hints .probs")
    assert "%" in probs and T("p_win", lang) in probs and T("res_gammon", lang, "common") in probs
    if lang == "ru":
        assert not english_words(hint + probs), hint + probs
    # the plays' hints carry their chances too
    click(page, "#btn-roll")
    click(page, "#btn-hint")
    rows = page.query_selector_all("#hints li .probs")
    assert rows and all("%" in r.inner_text() for r in rows)
    assert T("p_lose", lang) in rows[0].inner_text()
    page.query_selector("#hints").scroll_into_view_if_needed()
    shot(page, f"hints-{lang}-{size}")


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_pass_and_resign_differ_and_a_resignation_says_what_it_loses(open_page, size, lang):
    page = open_page(size, lang)
    start(page, "backgammon", opponent="human", seed=3)
    until_double(page)
    click(page, "#btn-double")
    drop, resign = page.inner_text("#btn-drop"), page.inner_text("#btn-resign")
    assert drop == T("act_drop", lang) and resign == T("act_resign", lang) and drop != resign
    assert page.is_visible("#btn-take") and page.is_visible("#btn-drop")
    click(page, "#btn-take")
    # the cube is on 2; a gammon resignation loses 4 points, and the page says so before it is offered
    page.select_option("#resign-level", "1")
    page.click("#btn-resign")
    page.wait_for_selector("#resign-dialog[open]")
    text = page.inner_text("#resign-text")
    assert text == T("resign_lose_cube", lang, n=4, level=T("res_gammon", lang, "common"), cube=2)
    assert text == {"en": "You lose 4 points (gammon, cube 2).", "ru": "Вы проиграете 4 очка (гаммон, куб 2)."}[lang]
    shot(page, f"resign-{lang}-{size}")
    page.click("#resign-cancel")
    assert view(page)["phase"] != "resign"
    page.click("#btn-resign")
    click(page, "#resign-ok")
    assert view(page)["phase"] == "resign"


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_a_checker_that_cannot_move_says_why(open_page, size, lang):
    """Long nardy: a second checker from the head is refused by the head rule, and the page says so."""
    page = open_page(size, lang)
    for seed in range(1, 30):
        start(page, "long", opponent="human", seed=seed, cube=False)
        v = view(page)
        if v["phase"] == "move" and v["dice"][0] != v["dice"][1]:
            break
    sign = 1 if v["turn"] == v["viewer"] else -1
    head = next(p for p in range(1, 25) if v["board"]["points"][p] * sign == 15)
    to = v["moves"][str(head)][0]
    page.click(f'#board [data-loc="{head}"]')
    click(page, f'#board [data-loc="{to}"]')
    assert str(head) not in view(page)["moves"]
    page.click(f'#board [data-loc="{head}"]')
    note = page.inner_text("#message")
    assert note == T("cannot_move", lang, why=T("head_limit", lang, "messages"))
    # the other side's checkers: the page says whose they are
    theirs = next(p for p in range(1, 25) if view(page)["board"]["points"][p] * sign < 0)
    page.click(f'#board [data-loc="{theirs}"]')
    assert page.inner_text("#message") == T("not_your_checker", lang)


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_the_status_line_says_the_computer_took_the_double(open_page, size, lang):
    page = open_page(size, lang)
    start(page, "backgammon", seed=2)
    until_double(page)
    click(page, "#btn-double")
    v = view(page)
    assert [e["kind"] for e in v["history"]][-2:] == ["double", "take"]
    assert page.inner_text("#status-cube") == T("st_taken", lang, name="nardy", value=2)


def resign_and_accept(page):
    page.select_option("#resign-level", "0")
    page.click("#btn-resign")
    page.wait_for_selector("#resign-dialog[open]")
    click(page, "#resign-ok")
    click(page, "#btn-accept")


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_the_crawford_game_shows_no_cube(open_page, size, lang):
    page = open_page(size, lang)
    start(page, "backgammon", opponent="human", seed=5, length=2)
    assert page.query_selector("#board .cube") is not None
    resign_and_accept(page)
    click(page, "#btn-next")
    v = view(page)
    assert v["crawford"] and v["game_number"] == 2
    assert page.query_selector("#board .cube") is None
    assert page.text_content("#board .crawford-label") == T("crawford_short", lang)
    assert T("crawford", lang) in page.inner_text("#scoreboard .match-meta")
    shot(page, f"crawford-{lang}-{size}")


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_a_new_match_is_offered_when_a_match_ends(open_page, size, lang):
    page = open_page(size, lang)
    gid = start(page, "short", opponent="human", seed=6, length=1)
    assert page.is_hidden("#btn-new-match")
    resign_and_accept(page)
    v = view(page)
    assert v["match_over"]
    assert page.inner_text("#btn-new-match") == T("act_new_match", lang)
    page.click("#btn-new-match")
    page.wait_for_function("(id) => window.nardy.view && window.nardy.id !== id && !window.nardy.busy", arg=gid)
    w = view(page)
    assert (w["game"], w["length"], w["match_over"], w["game_number"]) == ("short", 1, False, 1)


@pytest.mark.parametrize(("size", "lang"), COMBOS)
def test_new_game_dialog_defaults_to_grandmaster_and_names_the_rule(open_page, size, lang):
    page = open_page(size, lang)
    page.click("#btn-new")
    assert page.input_value("#ng-level") == "grandmaster"
    assert page.inner_text("#ng-level option:checked") == T("level_grandmaster", lang, "common").capitalize()
    strict = page.inner_text('[data-i18n="opt_strict-bear-off"]')
    assert strict == T("opt_strict-bear-off", lang) and "26" not in strict and "seed" not in strict
    page.click("#ng-cancel")


@pytest.mark.parametrize(("size", "lang"), SPLIT)
def test_moves_and_dice_are_animated_and_can_be_turned_off(open_page, server, size, lang):
    page = open_page(size, lang, animate=True, sound=True)
    start(page, "backgammon", seed=8, cube=False)
    v = view(page)
    assert v["phase"] == "move" and v["human_to_act"]
    shown = page.evaluate("window.nardy.animated")
    frm, to = pick_step(v["moves"])
    page.click(f'#board [data-loc="{frm}"]')
    page.click(f'#board [data-loc="{to}"]')
    # one's own step is drawn at once (issue 43: no round trip, no slide); the server's answer then agrees
    page.wait_for_function("!window.nardy.busy && !window.nardy.animating")
    # the rest of the play; the computer's play slides, and the next dice tumble in
    rolls = page.evaluate("window.nardy.rolls")
    shown = page.evaluate("window.nardy.animated")
    play_turn(page)
    page.wait_for_function(
        "([n, r]) => window.nardy.animated > n && window.nardy.rolls > r && !window.nardy.animating", arg=[shown, rolls]
    )
    assert page.evaluate("window.nardy.sounds") > 0
    # off: remembered on the next visit, and nothing moves by itself
    page.uncheck("#pref-animate")
    page.uncheck("#pref-sound")
    page.reload()
    page.wait_for_function("window.nardy.view && !window.nardy.busy")
    assert not page.is_checked("#pref-animate") and not page.is_checked("#pref-sound")
    v = view(page)
    shown, sounds = page.evaluate("[window.nardy.animated, window.nardy.sounds]")
    if v["phase"] == "move" and v["human_to_act"]:
        frm, to = pick_step(v["moves"])
        page.click(f'#board [data-loc="{frm}"]')
        click(page, f'#board [data-loc="{to}"]')
        assert page.query_selector("#board .checker.moving") is None
    assert page.evaluate("[window.nardy.animated, window.nardy.sounds]") == [shown, sounds]


@pytest.mark.parametrize(("size", "lang"), COMBOS)
def test_preferences_are_remembered_between_visits(open_page, size, lang):
    page = open_page(size, lang)
    other = "ru" if lang == "en" else "en"
    start(page, "long", seed=9)
    page.select_option("#lang", other)
    page.select_option("#numbering", "own")
    page.wait_for_function("window.nardy.view.numbering === 'own' && !window.nardy.busy")
    page.reload()
    page.wait_for_function("window.nardy.view && !window.nardy.busy")
    assert page.evaluate("document.documentElement.lang") == other and page.input_value("#lang") == other
    assert view(page)["numbering"] == "own" and page.input_value("#numbering") == "own"
    assert page.inner_text("#btn-hint") == T("act_hint", other)


@pytest.mark.parametrize(("size", "lang"), COMBOS)
def test_server_refusals_come_in_the_page_language(open_page, size, lang):
    page = open_page(size, lang)
    page.evaluate("location.hash = '#/game/nosuchgame'")
    page.wait_for_selector("#refused:not([hidden])")  # issue 43: only the refusal and a way back
    assert page.inner_text("#refused-text") == T("not_found", lang, "messages")
    err = page.evaluate(
        "async () => { try { await api('POST', '/api/games', {game: 'chess'}); } catch (e) { return e.message; } }"
    )
    assert err == T("unknown_game", lang, "messages")


# ----- item 8: the phone --------------------------------------------------------------------------------
@pytest.mark.parametrize(("size", "lang"), COMBOS)
def test_the_board_score_dice_and_controls_fit_and_are_large_enough(open_page, size, lang):
    page = open_page(size, lang)
    start(page, "backgammon", seed=4, cube=False)
    assert view(page)["dice"]
    vp = SIZES[size]
    label = page.query_selector("#board .label").bounding_box()
    dice = [d.bounding_box() for d in page.query_selector_all("#board .die rect")]
    assert label["height"] >= 12, f"point labels {label['height']:.1f} px high"
    assert dice and min(d["width"] for d in dice) >= 28, f"dice {min(d['width'] for d in dice):.1f} px"
    # the score, the pips, the board, the dice and the controls are all in view without scrolling
    for sel in ("#scoreboard", "#board", "#status", "#controls"):
        b = page.query_selector(sel).bounding_box()
        assert b["y"] >= 0 and b["y"] + b["height"] <= vp["height"], f"{sel} below the fold: {b}"
    for b in dice:
        assert b["y"] + b["height"] <= vp["height"]
    if size == "phone":
        board = page.query_selector("#board").bounding_box()
        assert board["width"] >= 370
        targets = page.query_selector_all("#controls button:not([hidden]), header button, header select, #resign-box *")
        small = [(t.inner_text()[:20], t.bounding_box()["height"]) for t in targets if t.bounding_box()]
        assert all(h >= 44 for _, h in small), small
