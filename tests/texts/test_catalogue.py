"""The message catalogue (nardy/data/catalogue.toml): nothing untranslated in either language.

Every entry of every section has English and Russian; no Russian text is the English one or lacks Cyrillic
(except the few that are only placeholders or signs); both use the same placeholders; every template
formats; the plural forms follow CLDR; every text of the page (index.html, dice.html and the keys its
scripts ask for) is in the catalogue, and no text of the page's HTML bypasses it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from nardy.engine import BOT_LEVELS
from nardy.rules.variants import get_rules
from nardy.texts import catalogue, i18n, messages

STATIC = Path(catalogue.__file__).parent.parent / "web" / "static"

#: Entries whose Russian may equal the English: only placeholders and signs.
SAME_ALLOWED = {("page", "ev_play"), ("page", "vs")}
#: Entries whose Russian uses other placeholder names (a genitive form of a name).
PLACEHOLDERS_DIFFER = {("terminal", "cube_owned"): ({"who", "value"}, {"whom", "value"})}
CYRILLIC = re.compile("[а-яё]", re.I)


def all_entries():
    for s in catalogue.SECTIONS:
        for k, e in catalogue.entries(s).items():
            yield s, k, e
    # terminal texts added next to nardy.texts.i18n rather than in the file (none on this branch) count too
    for k, (en, ru) in i18n._T.items():
        yield "terminal", k, {"en": en, "ru": ru}


def test_every_entry_has_english_and_russian():
    n = 0
    for s, k, e in all_entries():
        assert set(e) == set(catalogue.LANGS), (s, k, sorted(e))
        assert all(isinstance(x, str) and x.strip() for x in e.values()), (s, k)
        n += 1
    assert n > 450


def test_no_russian_text_is_left_in_english():
    bad = [
        (s, k, e["ru"])
        for s, k, e in all_entries()
        if (s, k) not in SAME_ALLOWED and (e["ru"] == e["en"] or not CYRILLIC.search(e["ru"]))
    ]
    assert not bad, f"untranslated: {bad}"


def test_both_languages_use_the_same_placeholders():
    for s, k, e in all_entries():
        en, ru = catalogue.placeholders(e["en"]), catalogue.placeholders(e["ru"])
        if (s, k) in PLACEHOLDERS_DIFFER:
            assert (en, ru) == PLACEHOLDERS_DIFFER[(s, k)]
            continue
        assert en == ru, (s, k, en, ru)


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_every_template_formats(lang):
    for s, k, e in all_entries():
        names = catalogue.placeholders(e[lang])
        out = catalogue.format_message(e[lang], lang, dict.fromkeys(names, 3))
        assert "{" not in out.replace("{levels}", "").replace("{default}", ""), (s, k, out)


@pytest.mark.parametrize(
    ("n", "en", "ru"),
    [
        (1, "1 pip", "1 пипс"),
        (2, "2 pips", "2 пипса"),
        (5, "5 pips", "5 пипсов"),
        (11, "11 pips", "11 пипсов"),
        (21, "21 pips", "21 пипс"),
        (41, "41 pips", "41 пипс"),
        (104, "104 pips", "104 пипса"),
        (167, "167 pips", "167 пипсов"),
    ],
)
def test_pip_counts_take_the_cldr_plural_forms(n, en, ru):
    assert catalogue.text("common", "pips", "en", n=n) == en
    assert catalogue.text("common", "pips", "ru", n=n) == ru


def test_points_plural_forms_and_fractions():
    ru = [i18n.plural_points(n, "ru") for n in (1, 2, 5, 21, 0.5)]
    assert ru == ["1 очко", "2 очка", "5 очков", "21 очко", "0,5 очка"]
    assert [i18n.plural_points(n, "en") for n in (1, 2, 0.5)] == ["1 point", "2 points", "0.5 points"]


def test_refusals_are_worded_in_russian_from_the_same_catalogue():
    assert messages.describe("closed_point", {"point": 5}, "ru") == "пункт 5 закрыт"
    assert messages.MESSAGES["head_limit"][1] == catalogue.text("messages", "head_limit", "ru")
    assert i18n.Texts("ru")("crawford") == catalogue.text("terminal", "crawford", "ru")


def test_malformed_templates_are_refused():
    with pytest.raises(catalogue.CatalogueError):
        catalogue.format_message("{n, plural, one {# x}}", "en", {"n": 2})
    with pytest.raises(catalogue.CatalogueError):
        catalogue.format_message("{n", "en", {"n": 2})
    with pytest.raises(catalogue.CatalogueError):
        catalogue.text("page", "title", "de")


# ----- the page ----------------------------------------------------------------------------------------
PAGE_KEYS = set(catalogue.entries("page")) | set(catalogue.entries("common"))


class _Texts(HTMLParser):
    """Text of the page's HTML that is not under an element with data-i18n (so never translated)."""

    SKIP = {"script", "style", "title"}

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.keys: list[str] = []
        self.loose: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-i18n" in a:
            self.keys.append(a["data-i18n"])
        if "data-i18n-label" in a:
            self.keys.append(a["data-i18n-label"])
        inherited = bool(self.stack and self.stack[-1][1])
        translated = inherited or "data-i18n" in a or tag in self.SKIP or a.get("class") == "brand"
        translated = translated or (tag == "option" and self.stack and self.stack[-1][0] == "select#lang")
        name = tag + ("#" + a["id"] if "id" in a else "")
        if tag not in ("meta", "link", "input", "br", "img"):
            self.stack.append((name, translated))

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if re.search(r"[A-Za-zА-Яа-я]{2,}", data) and not (self.stack and self.stack[-1][1]):
            self.loose.append(data.strip())


@pytest.mark.parametrize("html", ["index.html", "dice.html"])
def test_every_text_of_the_html_goes_through_the_catalogue(html):
    p = _Texts()
    p.feed((STATIC / html).read_text(encoding="utf-8"))
    assert p.keys, "no data-i18n at all"
    missing = sorted(set(p.keys) - PAGE_KEYS)
    assert not missing, f"{html}: keys not in the catalogue: {missing}"
    assert not p.loose, f"{html}: texts that bypass the catalogue: {p.loose}"


SCRIPTS = ("app.js", "online.js", "dice.js", "board.js", "lobby.js", "alerts.js", "social.js")


def test_every_key_the_scripts_ask_for_is_in_the_catalogue():
    js = "\n".join((STATIC / f).read_text(encoding="utf-8") for f in SCRIPTS)
    # a key ending in "_" starts a family of keys (the next test)
    keys = {k for k in re.findall(r"""\bt\(\s*["']([^"']+)["']""", js) if not k.endswith("_")}
    keys |= set(re.findall(r"""["']data-lobby["']:\s*["']([^"']+)["']""", js))  # lobby.js fills these through t()
    keys |= set(re.findall(r"""["']data-soc["']:\s*["']([^"']+)["']""", js))  # social.js fills these through t()
    codes = set(re.findall(r"""\bmsg\(\s*["']([^"']+)["']""", js))
    assert len(keys) > 70
    assert not sorted(keys - PAGE_KEYS), sorted(keys - PAGE_KEYS)
    assert not sorted(codes - set(catalogue.entries("messages")))


def test_the_keys_the_scripts_build_are_in_the_catalogue():
    """Keys made from values (t("level_" + level) ...): every value they can take."""
    results = {n for g in ("backgammon", "short", "long") for n in get_rules(g).result_names}
    families = {
        "level_": BOT_LEVELS,
        "game_": ("backgammon", "short", "long"),
        "res_": results | {"draw"},
        "num_": ("own", "absolute", "traditional"),
        "status_": ("playing", "game-over", "over", "waiting", "cancelled", "declined"),
        "opening_": ("use-opening-dice", "reroll"),
        "last_roll_": ("off", "half", "one"),
        "head_": ("head-block", "always", "none"),
        "ev_": ("double", "take", "beaver", "drop", "accept", "decline", "last-roll"),
        "reason_": ("drop", "resign", "bear-off", "draw"),
        "cube_": ("double", "no_double", "take", "pass", "double_take", "double_pass"),
        "p_": ("win", "lose"),
        "colour_": ("0", "1"),
        "clock_": ("none", "blitz", "rapid", "classic", "custom"),
        "lobby_clock_": ("untimed", "blitz", "rapid", "classic", "correspondence"),
        "alerts_": ("title", "notifications", "sound"),
        "corr_days": ("1", "2", "3", "7"),
    }
    missing = [p + v for p, vals in families.items() for v in vals if p + v not in PAGE_KEYS]
    assert not missing, missing


def test_the_page_keeps_no_copy_of_the_texts():
    js = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert "/api/catalogue" in js
    assert "Новая партия" not in js and "New game" not in js


def test_the_server_serves_the_catalogue():
    from fastapi.testclient import TestClient

    from nardy.web.app import create_app

    with TestClient(create_app("sqlite://")) as c:
        r = c.get("/api/catalogue")
        assert r.status_code == 200
        data = r.json()
        assert data["langs"] == ["en", "ru"]
        assert data["page"]["act_drop"] == {"en": "Pass", "ru": "Отказаться"}
        assert data["page"]["act_resign"]["ru"] == "Сдаться"
        assert "head_limit" in data["messages"] and "pips" in data["common"]
        assert "terminal" not in data
