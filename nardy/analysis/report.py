"""The analysis as a self-contained HTML page: no script, no network, boards and graph as inline SVG.

:func:`html_report` takes the JSON form of an analysis (:meth:`MatchAnalysis.to_dict`) and returns the
page: the summary per player, the graph of player 0's equity (money) or match winning chance (match
play) over the match, and every marked decision (doubtful, error, blunder) with its board drawn from the
decider's view, the play made and the best plays. :func:`board_svg` draws one position.
"""

from __future__ import annotations

import html

from ..rules.diagram import Diagram, diagram_svg
from ..rules.position import Position, check_dice
from ..rules.variants import get_rules

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
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1000px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.doubtful{color:#a07800}.error{color:#c05000}
.blunder{color:#c00000;font-weight:bold}.decision{border-top:1px solid #ddd;padding:.8em 0;display:flex;gap:1.2em;
flex-wrap:wrap}.small{color:#666;font-size:90%}code{background:#f6f6f6;padding:0 3px}
"""


def _pct(x) -> str:
    return f"{100 * x:.1f}%"


def html_report(data: dict) -> str:
    """The HTML page of an analysis (``MatchAnalysis.to_dict()``): self-contained, no script, no network."""
    game = data["game"]
    match_play = bool(data.get("length"))
    names = [p["name"] for p in data["players"]]
    eng = data.get("engine", {})
    title = f"Analysis: {names[0]} vs {names[1]}"
    h = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(_game_name(game))}, "
        + (f"{data['length']}-point match" if match_play else "money play")
        + f" ({_e(data.get('source', ''))}). Analysed by nardy at level <b>{_e(eng.get('level'))}</b> "
        f"({eng.get('ply')}-ply) with net {_e(eng.get('net'))}; {_e(eng.get('cube', ''))}. "
        f"Luck: {_e(eng.get('luck', ''))}. Marks: {_e(eng.get('thresholds', ''))}. "
        f"{_e(data.get('seconds', 0))} s.</p>",
        "<h2>Summary</h2><table id='summary'><tr><th class='l'></th>"
        + "".join(f"<th>{_e(n)}</th>" for n in names)
        + "</tr>",
    ]
    rows = [
        ("Error rate (mp per decision)", "error_rate", "{:.1f}"),
        ("Performance rating (PR)", "pr", "{:.1f}"),
        ("Rating (gnubg's words)", "rating", "{}"),
        ("Decisions counted", "decisions", "{}"),
        ("Checker error rate (mp)", "checker_error_rate", "{:.1f}"),
        ("Cube error rate (mp)", "cube_error_rate", "{:.1f}"),
    ]
    for label, key, fmt in rows:
        h.append(f"<tr><td class='l'>{label}</td>" + "".join(f"<td>{fmt.format(p[key])}</td>" for p in data["players"]))
    for mark in ("doubtful", "error", "blunder"):
        h.append(
            f"<tr><td class='l {mark}'>{mark.capitalize()}s</td>"
            + "".join(f"<td>{p['errors'][mark]}</td>" for p in data["players"])
            + "</tr>"
        )
    for kind in ("missed double", "wrong double", "wrong take", "wrong pass"):
        h.append(
            f"<tr><td class='l'>{kind.capitalize()}</td>"
            + "".join(f"<td>{p['cube_errors'][kind]}</td>" for p in data["players"])
            + "</tr>"
        )
    fmt_luck = _pct if match_play else (lambda v: f"{v:+.3f} points")
    h.append("<tr><td class='l'>Luck</td>" + "".join(f"<td>{fmt_luck(p['luck'])}</td>" for p in data["players"]))
    h.append(
        "<tr><td class='l'>Luck rate (mp per roll)</td>"
        + "".join(f"<td>{p['luck_rate']:+.1f}</td>" for p in data["players"])
    )
    h.append(
        "<tr><td class='l'>Result</td>"
        + "".join(f"<td>{fmt_luck(p['result']) if not match_play else _pct(p['result'])}</td>" for p in data["players"])
    )
    h.append(
        "<tr><td class='l'>Luck-adjusted result</td>"
        + "".join(
            f"<td>{_pct(p['luck_adjusted_result']) if match_play else fmt_luck(p['luck_adjusted_result'])}</td>"
            for p in data["players"]
        )
    )
    h.append("</table>")
    h.append(
        "<p class='small'>Error rate: normalised equity lost per counted decision (forced plays not counted), in "
        "millipoints; PR = error rate / 2, the scale of eXtreme Gammon's PR. Luck: each roll's value against the "
        "average of all 36.</p>"
    )
    what = "match winning chance" if match_play else "equity (points)"
    h.append(f"<h2>{_e(names[0])}'s {what} over the match</h2>")
    h.append(graph_svg(data))
    marked = [d for d in data["decisions"] if d.get("mark")]
    h.append(f"<h2>Marked decisions ({len(marked)})</h2>")
    for d in marked:
        h.append(_decision_html(d, data, names))
    h.append("</body></html>")
    return "\n".join(h)


def _game_name(game: str) -> str:
    return {"backgammon": "Backgammon", "short": "Short nardy", "long": "Long nardy"}.get(game, game)


def _decision_html(d: dict, data: dict, names) -> str:
    game = data["game"]
    match_play = bool(data.get("length"))
    mark = d["mark"]
    who = names[d["player"]]
    head = (
        f"<h3 class='{_MARK_CLASS.get(mark, '')}'>Game {d['game']}, move {d['move']}: {_e(who)}, "
        f"{_e(mark)} ({d['equity_loss'] * 1000:.0f} mp"
        + (f", {d['mwc_loss'] * 100:.2f}% MWC" if match_play and d.get("mwc_loss") is not None else "")
        + ")</h3>"
    )
    board = board_svg(d["position"], game, d.get("dice"), title=f"game {d['game']} move {d['move']}")
    info = [head, f"<p>Position ID <code>{_e(d['position'])}</code></p>"]
    if d["kind"] == "checker":
        dice = "".join(str(x) for x in d["dice"] or ())
        info.append(
            f"<p>Rolled {dice}: played <b>{_e(d['played'] or '(no move)')}</b>; best <b>{_e(d['best'])}</b></p>"
        )
        info.append("<table><tr><th class='l'>Play</th><th>Equity</th><th>Loss</th><th>Win</th><th>ply</th></tr>")
        for c in d["candidates"]:
            cls = " style='font-weight:bold'" if c["play"] == d["played"] else ""
            info.append(
                f"<tr{cls}><td class='l'>{_e(c['play'])}</td><td>{c['equity']:+.3f}</td><td>{-c['loss']:.3f}</td>"
                f"<td>{_pct(c['probabilities']['win'])}</td><td>{c['ply']}</td></tr>"
            )
        info.append("</table>")
    else:
        eqs = d["candidates"]
        info.append(f"<p>Cube at {d['cube'].get('value')}: {_e(d['played'])}; proper: <b>{_e(d['best'])}</b></p>")
        info.append("<table><tr><th class='l'>Cube action</th><th>Equity</th></tr>")
        for k in ("no double", "double/take", "double/pass"):
            info.append(f"<tr><td class='l'>{k}</td><td>{eqs[k]:+.3f}</td></tr>")
        info.append("</table>")
        if d.get("error_kind"):
            info.append(f"<p>{_e(d['error_kind'].capitalize())}</p>")
    return f"<div class='decision'><div>{board}</div><div>{''.join(info)}</div></div>"
