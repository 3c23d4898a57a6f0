"""The tournament pages' texts (nardy/web/static/tournaments.js, keys ``tn_*`` of the catalogue's page section):
every key the script asks for is in the catalogue, in English and in Russian, and so is every key it builds
from a value (the statuses, formats, tiebreaks and settings the tournament API sends)."""

from __future__ import annotations

import re
from pathlib import Path

from nardy.texts import catalogue

JS = (Path(catalogue.__file__).parent.parent / "web" / "static" / "tournaments.js").read_text(encoding="utf-8")
PAGE = catalogue.entries("page") | catalogue.entries("common")
CYRILLIC = re.compile("[а-яё]", re.I)

#: Keys built from values: every value the tournament API (issue 44 contract) can send.
FAMILIES = {
    "tn_status_": ("waiting", "playing", "finished"),
    "tn_format_": ("swiss", "arena", "knockout"),
    "tn_draw_": ("half", "one"),
    "tn_tb_": ("buchholz", "sonneborn_berger", "performance", "round"),
    "tn_set_": (
        "game", "format", "rounds", "length", "lengths", "duration_min", "clock", "rated", "players",
        "starts_at", "berserk", "draw_points", "crawford", "cube", "grace_s",
    ),
}  # fmt: skip


def test_every_tn_key_the_script_asks_for_is_in_the_catalogue():
    asked = set(re.findall(r"""\b(?:t|tnText)\(\s*["']([a-z_0-9]+)["']""", JS))
    asked |= set(re.findall(r""""data-i18n":\s*"([a-z_0-9]+)\"""", JS))
    asked |= set(re.findall(r""""(tn_[a-z_0-9]+)\"""", JS))  # the form's fields name their keys as values
    literal = {k for k in asked if not k.endswith("_")}
    assert len(literal) > 70
    assert not sorted(literal - set(PAGE)), sorted(literal - set(PAGE))
    assert {k for k in asked if k.endswith("_") and k.startswith("tn_")} <= set(FAMILIES)


def test_every_key_built_from_a_value_is_in_the_catalogue():
    missing = [p + v for p, vals in FAMILIES.items() for v in vals if p + v not in PAGE]
    assert not missing, missing


def test_every_tn_key_has_english_and_russian():
    tn = {k: e for k, e in catalogue.entries("page").items() if k.startswith("tn_")}
    assert len(tn) > 80
    for k, e in tn.items():
        assert e["en"].strip() and e["ru"].strip(), k
        assert CYRILLIC.search(e["ru"]) and e["ru"] != e["en"], (k, e["ru"])
    assert tn["tn_bot"] == {"en": "BOT", "ru": "БОТ"}
