"""The analysis as a self-contained HTML page: no network, boards and graph as inline SVG, printable.

:func:`html_report` takes the JSON form of an analysis (:meth:`MatchAnalysis.to_dict`) and returns the
page, laid out as GNU Backgammon's HTML export: the match's statistics per player (checker play, luck,
cube, overall: gnubg's rows), the graph of player 0's equity (money) or match winning chance (match play)
over the match, an index of the marked decisions (doubtful, error, blunder), then per game (each a
collapsible ``<details>``) its statistics and **every** decision, numbered as gnubg numbers its moves,
each with its board drawn from the decider's view under its caption, the play made, the ranked plays with
their probabilities, the roll's luck in words, and for cube decisions the cubeless equity and
probabilities, the cubeful equities of no double / double-take / double-pass, the proper action in words
and the error (:mod:`nardy.analysis.reporthtml`). Rollout figures (a decision's ``rollout``) replace the
n-ply ones and are marked "rollout" with their trials and interval; eXtreme Gammon's (``xg``) are shown
beside ours.

Words come from the caller (``texts``): the analysis layer may not import :mod:`nardy.texts`, so the front
ends hand over :func:`nardy.texts.catalogue.page_texts` of the reader's language (English or Russian).
The only script is one attribute that opens every ``<details>`` before printing; ``@media print`` keeps
each decision (one board) on one page. :func:`board_svg` draws one position.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from ..rules.diagram import MAX_NAME, MAX_TITLE, Diagram, diagram_svg
from ..rules.numbering import NUMBERINGS
from ..rules.position import Position, check_dice
from ..rules.variants import get_rules
from .reporthtml import entries_of, entry_html, info_html, match_results, per_game_results, stats_table

__all__ = ["html_report", "board_svg", "graph_svg"]

_W, _H = 420, 300  # board size (px)
_MARK_CLASS = {"doubtful": "doubtful", "error": "error", "blunder": "blunder"}


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def board_svg(
    position_id: str, game: str, dice=None, title: str = "", *, theme: str = "light", width=_W, **fields
) -> str:
    """An SVG drawing of a position from the view of the side on roll (its checkers light, moving from point
    24 at the top right round to point 1 at the bottom right), with the dice if given and ``title`` as its
    caption: the one board renderer, :func:`nardy.rules.diagram.diagram_svg`, shown ``width`` px wide.

    ``fields`` are further :class:`~nardy.rules.diagram.Diagram` fields (``cube``, ``cube_owner``, ``score``,
    ``length``, ``names``, ``numbering``, ``crawford``, ``side``); ``theme`` one of its themes. A Position ID
    the game cannot read is drawn as a small "?" box.

    Raises:
        InvalidOptionError: a field, the theme or the dice out of range (a ``ValueError``).
    """
    try:
        pos = Position.from_id(position_id, get_rules(game))
    except ValueError:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="40"><text x="4" y="20">?</text></svg>'
    d = Diagram(pos, dice=check_dice(dice) if dice else None, title=title, **fields)
    return diagram_svg(d, theme, width=width)


def _diagram_words(tr) -> tuple | None:
    """The diagram's words in the report's language (``dg_*`` of the catalogue through ``tr``), or None (the
    renderer's English) when ``tr`` has none."""
    try:
        return tuple(tr(k) for k in ("dg_pips", "dg_match_to", "dg_crawford"))
    except KeyError:
        return None


def graph_svg(data: dict, width: int = 760, height: int = 220) -> str:
    """Player 0's equity (money: points, game after game) or match winning chance over the match, one
    point per turn, a dot at each marked decision (coloured by its mark)."""
    match_play = bool(data.get("length"))
    pts = []
    offset = 0.0
    last_game = None
    games = {g["game"]: g for g in data.get("games", [])}
    for d in data.get("decisions", []):
        if d.get("value_before") is None:
            continue
        if not match_play and d["game"] != last_game:
            if last_game is not None:
                g = games.get(last_game) or {}
                res = g.get("result") or {}
                if res.get("winner") is not None:
                    offset += res["points"] if res["winner"] == 0 else -res["points"]
            last_game = d["game"]
        v = d["value_before"] + (0.0 if match_play else offset)
        pts.append((v, d.get("mark", ""), d["game"], d["move"]))
    if not pts:
        return f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" height="{height}"></svg>'
    if match_play:
        lo, hi = 0.0, 1.0
    else:
        lo = min(min(p[0] for p in pts), -1.0)
        hi = max(max(p[0] for p in pts), 1.0)
    pad = 24
    n = len(pts)

    def xy(i, v):
        x = pad + (width - 2 * pad) * (i / max(n - 1, 1))
        y = height - pad - (height - 2 * pad) * ((v - lo) / (hi - lo))
        return x, y

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" id="graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="equity graph">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff" stroke="#ccc"/>',
    ]
    mid = 0.5 if match_play else 0.0
    _, ym = xy(0, mid)
    out.append(f'<line x1="{pad}" y1="{ym:.1f}" x2="{width - pad}" y2="{ym:.1f}" stroke="#999" stroke-dasharray="4"/>')
    label_hi = "100%" if match_play else f"{hi:+.1f}"
    label_lo = "0%" if match_play else f"{lo:+.1f}"
    out.append(f'<text x="2" y="{pad}" font-size="10">{label_hi}</text>')
    out.append(f'<text x="2" y="{height - pad}" font-size="10">{label_lo}</text>')
    # game boundaries
    prev = None
    for i, p in enumerate(pts):
        if p[2] != prev:
            x, _ = xy(i, lo)
            out.append(f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{height - pad}" stroke="#eee"/>')
            out.append(f'<text x="{x + 2:.1f}" y="{height - 6}" font-size="9" fill="#666">G{p[2]}</text>')
            prev = p[2]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, p[0]) for i, p in enumerate(pts)))
    out.append(f'<polyline class="equity" points="{line}" fill="none" stroke="#2f5f8c" stroke-width="1.5"/>')
    colours = {"doubtful": "#d9a400", "error": "#e06000", "blunder": "#c00000"}
    for i, p in enumerate(pts):
        if p[1] in colours:
            x, y = xy(i, p[0])
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colours[p[1]]}"><title>game {p[2]} move {p[3]}: '
                f"{_e(p[1])}</title></circle>"
            )
    out.append("</svg>")
    return "".join(out)


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1050px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 7px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr.group th{background:#e4e9f0}
.doubtful{color:#a07800}.error{color:#c05000}.blunder{color:#c00000;font-weight:bold}
.alert.doubtful,.alert.error,.alert.blunder{font-weight:bold}
section.entry{border-top:1px solid #ddd;padding:.8em 0;display:flex;gap:1.2em;flex-wrap:wrap;align-items:flex-start}
section.entry.mark-doubtful{border-left:4px solid #d9a400;padding-left:.5em}
section.entry.mark-error{border-left:4px solid #e06000;padding-left:.5em}
section.entry.mark-blunder{border-left:4px solid #c00000;padding-left:.5em}
.info{flex:1;min-width:330px}.info p{margin:.25em 0}.small{color:#666;font-size:90%}
.mono,code{font-family:ui-monospace,monospace;font-size:90%}code{background:#f6f6f6;padding:0 3px}
tr.played{font-weight:bold;background:#fff8e0}.cube{border-left:3px solid #2f5f8c;padding-left:.6em;margin:.4em 0}
.luck.very-lucky,.luck.lucky{color:#1a7a1a}.luck.unlucky,.luck.very-unlucky{color:#a03030}
details.game{margin:1em 0;border:1px solid #ccc;padding:.3em .8em}details.game>summary{font-size:120%;font-weight:bold;
cursor:pointer}ul.marked{columns:2}
@media print{body{margin:0;max-width:none}details.game{border:none;padding:0}
section.entry{break-inside:avoid;page-break-inside:avoid}section.entry.board-page{break-before:page}
svg.graph{max-width:100%;height:auto}a{color:inherit;text-decoration:none}}
"""


def _pct(x) -> str:
    return f"{100 * x:.1f}%"


def _game_name(tr, game: str) -> str:
    return tr("game_" + game)


def _board(d: dict, data: dict, title: str, numbering: str, theme: str = "light", words=None) -> str:
    """The board of a decision through the one renderer (:func:`board_svg`, :mod:`nardy.rules.diagram`): the
    decider's view (a take: the doubler's, whose position it is), the players' names and colours (player 0
    White), the cube's value and owner (none drawn where the game has no cube or in the Crawford game),
    the score and match length, the pip counts, the dice, the numbering chosen and ``title`` above it."""
    mover = 1 - d["player"] if d["action"] == "take" else d["player"]
    names = [_printable(p["name"])[:MAX_NAME] for p in data["players"]]
    game = _game_of(data, d["game"])
    crawford = bool(game.get("crawford"))
    cube = d.get("cube") or {}
    value = int(cube.get("value") or 1)
    if not get_rules(data["game"]).cube or crawford:
        value = 0
    owner = cube.get("owner")
    length = int(data.get("length") or 0)
    score = game.get("score") if length else None
    return board_svg(
        d["position"],
        data["game"],
        d.get("dice"),
        _printable(title)[:MAX_TITLE],
        cube=value,
        cube_owner=None if owner is None or not value else (0 if owner == mover else 1),
        score=(int(score[mover]), int(score[1 - mover])) if score else None,
        length=length,
        names=(names[mover], names[1 - mover]),
        numbering=numbering,
        crawford=crawford,
        side=mover,
        theme=theme,
        **({"words": words} if words else {}),
    )


def _game_of(data: dict, n: int) -> dict:
    return next((g for g in data.get("games", []) if g["game"] == n), {})


def _printable(text: str) -> str:
    """``text`` without control characters (a record's names may hold any): what a diagram may draw."""
    return "".join(c for c in str(text) if c.isprintable())


def html_report(
    data: dict, texts: Callable[..., str], lang: str = "en", numbering: str = "own", expanded: bool = False
) -> str:
    """The HTML page of an analysis (``MatchAnalysis.to_dict()``): self-contained, no network.

    Args:
        data: the analysis' JSON form (every decision, with ``number``: gnubg's move numbers).
        texts: ``texts(key, **params) -> str``, the page catalogue's texts in the reader's language
            (:func:`nardy.texts.catalogue.page_texts`); lang: the page's ``lang`` attribute (``"en"``, ``"ru"``).
        numbering: the point numbering the boards show (:data:`nardy.rules.numbering.NUMBERINGS`).
        expanded: every game's ``<details>`` open and the boards in the diagram's "print" theme (for PDF).
    Raises:
        KeyError: ``texts`` lacks a key the report needs; ValueError: a numbering the game does not have.
    """
    if numbering not in NUMBERINGS[data["game"]]:
        raise ValueError(
            f"numbering {numbering!r} is not available for {data['game']}: one of {', '.join(NUMBERINGS[data['game']])}"
        )
    tr = texts
    game = data["game"]
    match_play = bool(data.get("length"))
    names = [p["name"] for p in data["players"]]
    eng = data.get("engine", {})
    title = tr("rp_title", a=names[0], b=names[1])
    kind = tr("match_to", n=data["length"]) if match_play else tr("money")
    h = [
        f"<!DOCTYPE html><html lang='{_e(lang)}'><head><meta charset='utf-8'>",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>",
        "<body onbeforeprint=\"document.querySelectorAll('details').forEach(function(d){d.open=true})\">",
        f"<h1>{_e(title)}</h1>",
        "<p>"
        + _e(
            tr(
                "rp_intro",
                game=_game_name(tr, game),
                kind=kind,
                source=data.get("source", ""),
                level=eng.get("level", ""),
                ply=eng.get("ply", ""),
                net=eng.get("net", ""),
                seconds=data.get("seconds", 0),
            )
        )
        + "</p>",
        f"<details class='method'><summary>{_e(tr('rp_method'))}</summary><p class='small'>"
        + "<br>".join(_e(eng.get(k, "")) for k in ("cube", "luck", "thresholds"))
        + "</p></details>",
        info_html(tr, data),
        f"<h2>{_e(tr('rp_match_stats'))}</h2>",
        stats_table(
            tr,
            data,
            data["decisions"],
            "summary",
            match_results(data) if not match_play else None,
            fibs_r=data["players"][0].get("luck_adjusted_result") if match_play else None,
        ),
    ]
    if match_play:
        # the match's result (won 1 / lost 0) and its luck-adjusted form (may pass 100%)
        h.append(
            "<p>"
            + "; ".join(
                f"{_e(p['name'])}: {_e(tr('rp_st_result'))} {_pct(p['result'])}, "
                f"{_e(tr('rp_st_luck_adjusted'))} {_pct(p['luck_adjusted_result'])}"
                for p in data["players"]
            )
            + "</p>"
        )
    what = tr("rp_graph_mwc") if match_play else tr("rp_graph_equity")
    h.append(f"<h2>{_e(tr('rp_graph', name=names[0], what=what))}</h2>")
    h.append(graph_svg(data))
    marked = [d for d in data["decisions"] if d.get("mark")]
    h.append(f"<h2>{_e(tr('rp_marked', n=len(marked)))}</h2><ul class='marked'>")
    for d in marked:
        h.append(
            f"<li class='{_e(d['mark'])}'><a href='#g{d['game']}-m{d.get('number', d['move'])}'>"
            f"{_e(tr('rv_game_move', game=d['game'], move=d.get('number', d['move'])))}"
            f"</a>: {_e(names[d['player']])}, {_e(tr('rv_mark_' + d['mark']))} ({-d['equity_loss']:+.3f})</li>"
        )
    h.append("</ul>")
    by_game: dict[int, list] = {}
    for d in data["decisions"]:
        by_game.setdefault(d["game"], []).append(d)
    words = _diagram_words(tr)
    for g in data.get("games", []):
        n = g["game"]
        ds = by_game.get(n, [])
        h.append(f"<details class='game' id='game-{n}'{' open' if expanded else ''}>")
        h.append(f"<summary>{_e(_game_head(tr, g, data, names))}</summary>")
        h.append(f"<h3>{_e(tr('rp_game_stats', n=n))}</h3>")
        res = per_game_results(data, g)
        fibs_r = 0.5 + res[0][1] if match_play and res[0] else None  # gnubg: 0.5 + the luck-adjusted game
        h.append(stats_table(tr, data, ds, f"stats-{n}", res, fibs_r=fibs_r))
        entries = entries_of(ds)
        h.append(f"<h3>{_e(tr('rp_all', n=n, k=len(entries)))}</h3>")
        for e in entries:
            num = e[-1].get("number", e[-1]["move"])
            h.append(
                entry_html(
                    tr,
                    e,
                    data,
                    lambda d, t: _board(d, data, t, numbering, "print" if expanded else "light", words),
                    anchor=f"g{n}-m{num}",
                )
            )
        h.append("</details>")
    h.append(f"<p class='small'>{_e(tr('rp_footnote'))}</p>")
    h.append("</body></html>")
    return "\n".join(h)


def _game_head(tr, g: dict, data: dict, names) -> str:
    res = g.get("result")
    if res and res.get("winner") is not None:
        result = tr("rp_won", name=names[res["winner"]], points=tr("points", n=res["points"]))
    else:
        result = tr("rp_unfinished")
    score = g.get("score") or [0, 0]
    crawford = tr("rp_crawford") if g.get("crawford") else ""
    return tr("rp_game_head", n=g["game"], a=score[0], b=score[1], crawford=crawford, result=result)
