"""The message catalogue: every text a player reads, in English and Russian, in one file
(``nardy/data/catalogue.toml``) for the terminal (:mod:`nardy.texts.i18n`), the server's refusals
(:mod:`nardy.texts.messages`) and the web page (served as JSON at ``/api/catalogue``, read by
``static/i18n.js``).

Entries live in sections (``common``: games, result levels, computer levels, colours; ``messages``: refusals
by code; ``terminal``; ``page``), each ``key = {en = "...", ru = "..."}``. Texts are ICU-style
messages: ``{name}`` is a value; ``{n, plural, one {# point} other {# points}}`` picks the form of the
number ``n`` by the CLDR plural rules of the language (Babel's ``Locale.plural_form``; the page uses the
browser's ``Intl.PluralRules``, the same CLDR data), ``#`` standing for the number written in that
language (``0,5`` in Russian).

>>> text("common", "points", "ru", n=41)
'41 очко'
>>> text("common", "pips", "ru", n=41) + ", " + text("common", "pips", "ru", n=45)
'41 пипс, 45 пипсов'
>>> text("common", "points", "en", n=1)
'1 point'
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources

__all__ = [
    "LANGS",
    "SECTIONS",
    "CatalogueError",
    "entries",
    "entry",
    "text",
    "format_message",
    "plural_category",
    "number_text",
    "diagram_words",
    "page_catalogue",
    "page_texts",
    "placeholders",
]

#: The languages every entry has.
LANGS = ("en", "ru")
#: The catalogue's sections.
SECTIONS = ("common", "messages", "terminal", "page")


class CatalogueError(ValueError):
    """A malformed catalogue message (an unclosed brace, a plural without ``other``) or an unknown
    language."""


@cache
def _load() -> dict[str, dict[str, dict[str, str]]]:
    raw = (resources.files("nardy") / "data" / "catalogue.toml").read_text(encoding="utf-8")
    data = tomllib.loads(raw)
    return {s: dict(data.get(s, {})) for s in SECTIONS}


def entries(section: str) -> dict[str, dict[str, str]]:
    """Every entry of ``section``: ``{key: {"en": text, "ru": text}}`` (a copy).

    Raises:
        KeyError: an unknown section.
    """
    return {k: dict(v) for k, v in _load()[section].items()}


def entry(section: str, key: str) -> dict[str, str]:
    """One entry: ``{"en": text, "ru": text}``. Raises KeyError when there is none."""
    return dict(_load()[section][key])


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise CatalogueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")


@cache
def _plural_fn(lang: str):
    from babel import Locale

    return Locale.parse(lang).plural_form


def plural_category(n: float, lang: str) -> str:
    """The CLDR plural category of ``n`` in ``lang``: ``one``/``other`` (English), ``one``/``few``/
    ``many``/``other`` (Russian; a fraction is ``other``).

    >>> [plural_category(n, "ru") for n in (1, 2, 5, 11, 21, 0.5)]
    ['one', 'few', 'many', 'many', 'one', 'other']
    """
    _check_lang(lang)
    if isinstance(n, float) and n == int(n):
        n = int(n)
    return _plural_fn(lang)(n)


def number_text(n: float, lang: str) -> str:
    """``n`` as the language writes it: ``2``, ``0.5`` (English), ``0,5`` (Russian)."""
    if isinstance(n, float) and n == int(n):
        n = int(n)
    s = f"{n:g}" if isinstance(n, float) else str(n)
    return s.replace(".", ",") if lang == "ru" else s


def _match_brace(s: str, i: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``i``."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise CatalogueError(f"unclosed brace in {s!r}")


def _plural_branches(body: str) -> dict[str, str]:
    out: dict[str, str] = {}
    i = 0
    while i < len(body):
        if body[i].isspace():
            i += 1
            continue
        j = body.index("{", i)
        sel = body[i:j].strip()
        end = _match_brace(body, j)
        out[sel] = body[j + 1 : end]
        i = end + 1
    if "other" not in out:
        raise CatalogueError(f"a plural needs an 'other' form: {body!r}")
    return out


def format_message(template: str, lang: str, params: Mapping, missing: str | None = None) -> str:
    """``template`` with its placeholders filled from ``params`` (see the module docstring).

    Args:
        template: an ICU-style message.
        lang: ``en`` or ``ru`` (plural rules, numbers).
        params: the values; ``{name:spec}`` formats one with a Python format spec.
        missing: what stands for a value not in ``params``; ``None`` raises KeyError instead.
    Raises:
        KeyError: a value missing (``missing`` None); CatalogueError: a malformed template.

    >>> format_message("{who} wins {n, plural, one {# point} other {# points}}", "en", {"who": "Ann", "n": 2})
    'Ann wins 2 points'
    """
    out: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c != "{":
            out.append(c)
            i += 1
            continue
        end = _match_brace(template, i)
        inner = template[i + 1 : end]
        i = end + 1
        name, _, rest = inner.partition(",")
        name = name.strip()
        spec = ""
        if not rest and ":" in name:
            name, spec = name.split(":", 1)
        if name not in params:
            if missing is None:
                raise KeyError(name)
            out.append(missing)
            continue
        value = params[name]
        if rest:
            kind, _, body = rest.partition(",")
            if kind.strip() != "plural":
                raise CatalogueError(f"unknown placeholder kind {kind.strip()!r} in {template!r}")
            branches = _plural_branches(body)
            num = float(value) if not isinstance(value, int) else value
            form = branches.get(f"={number_text(num, 'en')}") or branches.get(plural_category(num, lang))
            form = branches["other"] if form is None else form
            out.append(format_message(form.replace("#", number_text(num, lang)), lang, params, missing))
            continue
        out.append(format(value, spec) if spec else str(value))
    return "".join(out)


def text(section: str, key: str, lang: str, /, **params) -> str:
    """The entry ``section.key`` in ``lang`` with ``params`` filled in (a value missing: KeyError).
    Without params the text is given as it stands.

    Raises:
        KeyError: no such entry; CatalogueError: an unknown language.
    """
    _check_lang(lang)
    t = _load()[section][key][lang]
    return format_message(t, lang, params) if params else t


def placeholders(template: str) -> set[str]:
    """The names of the values ``template`` uses (``{who}``, ``{n, plural, ...}``: ``who``, ``n``).

    >>> sorted(placeholders("{who} {n, plural, one {# x {y}} other {#}}"))
    ['n', 'who', 'y']
    """
    names: set[str] = set()
    i = 0
    while i < len(template):
        if template[i] != "{":
            i += 1
            continue
        end = _match_brace(template, i)
        inner = template[i + 1 : end]
        name, _, rest = inner.partition(",")
        names.add(name.split(":")[0].strip())
        if rest:
            _, _, body = rest.partition(",")
            for form in _plural_branches(body).values():
                names |= placeholders(form)
        i = end + 1
    return names


def page_texts(lang: str):
    """The texts of the page (section ``page``, then ``common``) in ``lang`` as a callable ``(key,
    **params) -> str``: what :func:`nardy.analysis.report.html_report` takes (the analysis layer may not
    import this package, so its front ends hand it over).

    Raises:
        CatalogueError: an unknown language (a missing key raises KeyError when asked for).
    """
    _check_lang(lang)

    def tr(key: str, /, **params) -> str:
        data = _load()
        section = "page" if key in data["page"] else "common"
        return text(section, key, lang, **params)

    return tr


def diagram_words(lang: str) -> tuple[str, str, str]:
    """The words a board diagram draws in ``lang`` (:attr:`nardy.rules.diagram.Diagram.words`): ``(pips,
    match to, Crawford)``, the first two with ``{n}`` for the number (keys ``dg_*`` of ``[common]``).

    Raises:
        CatalogueError: an unknown language.
    """
    _check_lang(lang)
    data = _load()["common"]
    return tuple(data[k][lang] for k in ("dg_pips", "dg_match_to", "dg_crawford"))  # type: ignore[return-value]


def page_catalogue() -> dict:
    """What the web page reads (``GET /api/catalogue``): ``{"langs": [...], "common": {...}, "messages":
    {...}, "page": {...}}``, each section ``{key: {"en": text, "ru": text}}``."""
    data = _load()
    return {"langs": list(LANGS), **{s: data[s] for s in ("common", "messages", "page")}}
