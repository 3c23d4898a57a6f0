"""The message catalogue of refusals: every error code in English and Russian, for every front end.

The engine refuses with a :class:`~nardy.rules.errors.NardyError` that carries a ``code`` and ``params`` (see
:mod:`nardy.rules.errors`); a front end words it for the player with :func:`describe`, in the player's
language and point numbering. The terminal (:mod:`nardy.terminal.play`), the web page (through the server's
error answers, which carry the worded ``message``) and server messages all read this one table, so no
English-only reason reaches a Russian player (a test checks that every code the engine raises is here,
in both languages).

Params the texts use: ``point``, ``from``, ``to`` (the mover's own point numbers, labelled by the front
end's numbering: 25 is the bar, 0 off), ``dice`` (a list, written ``6-5``), ``options`` (plays in
notation), ``player``/``expected``/``owner`` (0 White, 1 Black: the players' names), ``phase`` (a
:class:`~nardy.flow.events.Phase` value), and plain numbers or short texts (``used``, ``most``, ``pips``,
``outside``, ``token``, ``minutes``, ``least``, ``parameters``) and a player's ``name``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import catalogue as _cat

__all__ = ["MESSAGES", "LANGS", "describe", "catalogue"]

LANGS = _cat.LANGS

#: code -> (English, Russian): the catalogue's ``[messages]`` section (``nardy/data/catalogue.toml``).
MESSAGES: dict[str, tuple[str, str]] = {k: (v["en"], v["ru"]) for k, v in _cat.entries("messages").items()}


def _text(key: str, lang: str) -> str:
    return MESSAGES[key][LANGS.index(lang)]


def catalogue(lang: str) -> dict[str, str]:
    """Every message in ``lang`` (``en`` or ``ru``): ``{code: text}``."""
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    return {k: v[LANGS.index(lang)] for k, v in MESSAGES.items()}


def describe(
    code: str,
    params: dict | None = None,
    lang: str = "en",
    *,
    label: Callable[[int], str] | None = None,
    relabel: Callable[[str], str] | None = None,
    names: tuple[str, str] | None = None,
) -> str:
    """The refusal ``code`` with ``params`` worded for a player in ``lang``.

    Args:
        code: an error code (:attr:`nardy.rules.errors.NardyError.code`); an unknown code gives the message of
            ``not_allowed_now``.
        params: the error's params (points in the mover's own numbering).
        lang: ``en`` or ``ru``.
        label: mover's own point (1-24) -> the label the player sees (default: the number itself); the bar
            (25) and off (0) are worded by the catalogue.
        relabel: a play in the mover's own notation -> as the player writes it (default: unchanged).
        names: the players' names (default: White/Black in ``lang``).
    Raises:
        ValueError: an unknown language.
    """
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    params = dict(params or {})
    if code not in MESSAGES:
        code = "not_allowed_now"
    who = names or (_text("player_0", lang), _text("player_1", lang))

    def point(p):
        if p == 25:
            return _text("bar", lang)
        if p == 0:
            return _text("off", lang)
        return label(p) if label is not None and isinstance(p, int) and 1 <= p <= 24 else str(p)

    for k in ("point", "from", "to"):
        if isinstance(params.get(k), int):
            params[k] = point(params[k])
    if isinstance(params.get("dice"), (list, tuple)):
        params["dice"] = "-".join(str(d) for d in sorted(params["dice"], reverse=True))  # larger die first
    if isinstance(params.get("options"), (list, tuple)):
        opts = [relabel(o) if relabel else o for o in params["options"]]
        params["options"] = f" {_text('or', lang)} ".join(opts)
    for k in ("player", "expected", "owner"):
        if params.get(k) in (0, 1) and not isinstance(params.get(k), bool):
            params[k] = who[params[k]]
    if code == "wrong_phase" and f"phase_{params.get('phase')}" in MESSAGES:
        params["phase"] = _text(f"phase_{params['phase']}", lang)

    return _cat.format_message(_text(code, lang), lang, params, missing="?")
