"""Texts of the terminal front end (``nardy play``) in English and Russian: a thin layer over the message
catalogue (:mod:`nardy.texts.catalogue`, section ``terminal``; games, levels and colours from ``common``).

:func:`detect_lang` picks the language from the system locale (Russian when it is Russian, else
English); :class:`Texts` formats a message by key (``texts("roll_event", who="White", dice="6-3")``).
The nardy terms follow the seeds: оюн, марс, домашний марс, кокс (short nardy), ойн, марс (long
nardy), зары, голова, бар.
"""

from __future__ import annotations

import os
import re

from . import catalogue

__all__ = ["LANGS", "detect_lang", "Texts", "GAME_TITLES", "RESULT_NAMES", "plural_points"]

LANGS = catalogue.LANGS


def detect_lang(environ=None) -> str:
    """``"ru"`` when the system locale is Russian, else ``"en"``.

    Looks at ``LANGUAGE`` (first entry), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` in that order; the
    first one that is set decides.
    """
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        val = (env.get(var) or "").strip()
        if not val:
            continue
        first = val.split(":")[0].lower()
        if first in ("c", "posix") or first.startswith("c."):
            if var == "LANGUAGE":
                continue
            return "en"
        return "ru" if first.startswith("ru") else "en"
    try:
        import locale

        loc = locale.getlocale()[0] or ""
    except (ValueError, TypeError):  # pragma: no cover - broken locale settings
        loc = ""
    return "ru" if loc.lower().startswith("ru") else "en"


def _common(prefix: str, names, lang: str) -> tuple[str, ...]:
    return tuple(catalogue.text("common", prefix + n, lang) for n in names)


_RESULT_KEYS = {
    "backgammon": ("single", "gammon", "backgammon"),
    "short": ("oyun", "mars", "home mars", "koks"),
    "long": ("oyn", "mars"),
}

GAME_TITLES = {lang: {g: catalogue.text("common", f"game_{g}", lang) for g in _RESULT_KEYS} for lang in LANGS}

#: Result level names per language and game (lowest level first), as docs/rules.md orders them.
RESULT_NAMES: dict[str, dict] = {
    lang: {
        **{g: _common("res_", keys, lang) for g, keys in _RESULT_KEYS.items()},
        "draw": catalogue.text("common", "res_draw", lang),
    }
    for lang in LANGS
}

#: Words accepted for each result level by ``resign`` (any language), lowest level first.
RESIGN_WORDS = {
    "backgammon": (
        ("single", "simple", "one", "одинарная", "одинарную", "обычная", "обычную", "простая"),
        ("gammon", "гаммон"),
        ("backgammon", "бэкгаммон", "бекгаммон"),
    ),
    "short": (
        ("oyun", "oin", "oyn", "оюн", "ойн", "оин"),
        ("mars", "марс"),
        ("home mars", "home-mars", "homemars", "домашний марс", "домашний-марс", "дом. марс"),
        ("koks", "cox", "кокс"),
    ),
    "long": (("oyn", "oin", "oyun", "ойн", "оин", "оюн"), ("mars", "марс")),
}

_LEVELS = ("random", "heuristic", "beginner", "casual", "intermediate", "advanced", "expert", "grandmaster", "champion")
#: Bot levels (:data:`nardy.engine.BOT_LEVELS`) as shown to the player.
LEVEL_NAMES = {"ru": {lv: catalogue.text("common", f"level_{lv}", "ru") for lv in _LEVELS}}

COLOURS = {lang: _common("colour_", "01", lang) for lang in LANGS}
#: Genitive forms ("у белых"); English uses the plain names.
COLOURS_GEN = {lang: _common("colour_gen_", "01", lang) for lang in LANGS}


def plural_points(n, lang: str) -> str:
    """``"1 point"``, ``"2 points"``, ``"0.5 points"``; ``"1 очко"``, ``"2 очка"``, ``"5 очков"``, ``"0,5 очка"``
    (the catalogue's ``common.points``, CLDR plural rules)."""
    return catalogue.text("common", "points", lang, n=n)


#: Terminal texts not (yet) in the catalogue's ``[terminal]`` section: ``key: (English, Russian)``; looked up
#: first. New terminal texts belong in ``nardy/data/catalogue.toml``; tests/texts/test_catalogue.py checks these too.
_T: dict[str, tuple[str, str]] = {}


def _mid_sentence_who(text: str) -> str:
    """``text`` with each ``{who}`` that does not begin a sentence written ``{who_lc}``."""

    def sub(m):
        before = text[: m.start()].rstrip()
        return m.group(0) if not before or before[-1] in ".!?" else "{who_lc}"

    return re.sub(r"\{who\}", sub, text)


class Texts:
    """Message lookup for one language: ``texts(key, **fields)``."""

    def __init__(self, lang: str = "en"):
        if lang not in LANGS:
            raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
        self.lang = lang
        self._i = LANGS.index(lang)

    def __call__(self, key: str, **fields) -> str:
        """The terminal text ``key`` with ``fields`` filled in (KeyError: no such text, or a field missing)."""
        text = _T[key][self._i] if key in _T else catalogue.entry("terminal", key)[self.lang]
        if not fields:
            return text
        if self.lang == "ru" and fields.get("who") in COLOURS["ru"]:
            # «Начинают чёрные»: a side's name is capitalised only where it begins a sentence
            text = _mid_sentence_who(text)
            fields["who_lc"] = fields["who"].lower()
        return catalogue.format_message(text, self.lang, fields)

    def colour(self, side: int) -> str:
        """``White``/``Black`` (``Белые``/``Чёрные``)."""
        return COLOURS[self.lang][side]

    def colour_mid(self, side: int) -> str:
        """The name inside a sentence or a label (Russian lower case ``белые``; English as :meth:`colour`)."""
        name = COLOURS[self.lang][side]
        return name.lower() if self.lang == "ru" else name

    def colour_gen(self, side: int) -> str:
        """The genitive form (Russian ``белых``/``чёрных``; English as :meth:`colour`)."""
        return COLOURS_GEN[self.lang][side]

    def bot_level(self, level: str) -> str:
        """A bot level's name in this language (English: the level's own name)."""
        return LEVEL_NAMES.get(self.lang, {}).get(level, level)

    def game_title(self, game: str) -> str:
        return GAME_TITLES[self.lang][game]

    def level_name(self, game: str, level: int) -> str:
        return RESULT_NAMES[self.lang][game][level]

    def draw_name(self) -> str:
        return RESULT_NAMES[self.lang]["draw"]

    def points(self, n) -> str:
        return plural_points(n, self.lang)

    def yes(self, answer: str) -> bool:
        return answer.strip().lower() in self("yes_words").split()
