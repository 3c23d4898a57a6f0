"""The parts of the analysis report (:func:`nardy.analysis.report.html_report`): the statistics tables, one
game's decisions and one decision's block (board, play, candidates, cube block, luck, alerts), as GNU
Backgammon's HTML export lays them out, worded through a ``tr(key, **params)`` callable (the page
catalogue's ``rp_*`` texts in one language: :func:`nardy.texts.catalogue.page_texts`).
"""

from __future__ import annotations

import html

from ..rules.position import Position
from ..rules.variants import get_rules
from .reportcube import match_id_of, proper_code, window_percent
from .reportstats import (
    CUBE_ERROR_SPLIT,
    absolute_fibs_rating,
    fibs_rating_loss_checker,
    fibs_rating_loss_cube,
    game_results,
    player_stats,
    relative_fibs_rating,
)
from .results import proper_cube_action

_MARKS = ("doubtful", "error", "blunder")


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _pct(x) -> str:
    return f"{100 * x:.1f}%"


def _signed(x, nd: int = 3) -> str:
    return f"{x:+.{nd}f}"


def _emg_mwc(emg, mwc) -> str:
    """``-0.734 (-24.975%)``: an error or luck total in EMG and, in match play, MWC (gnubg's form)."""
    return _signed(emg) + (f" ({100 * mwc:+.3f}%)" if mwc is not None else "")


def _rate(mp: float, mwc) -> str:
    """``-26.2 (-0.892%)``: an error or luck rate in mEMG and, in match play, MWC per decision (gnubg's
    "Error rate mEMG (MWC)")."""
    return f"{mp:.1f}" + (f" ({100 * mwc:+.3f}%)" if mwc is not None else "")


def _rating(tr, word: str, prefix: str = "rp_rating_") -> str:
    if not word:
        return "—"
    try:
        return tr(prefix + word)
    except KeyError:
        return word


# ----- statistics ---------------------------------------------------------------------------------------
def stats_table(tr, data: dict, decisions: list, table_id: str, results=None, fibs_r=None) -> str:
    """gnubg's statistics table for ``decisions`` (a game's or the match's): checker play, luck, cube and
    overall rows, one column per player; ``results``: ``[(result, luck_adjusted) or None] * 2`` in
    the match's units (points, or MWC shown as percentages). In match play the overall rows end with
    gnubg's FIBS rating figures: the luck-based rating difference from ``fibs_r`` (player 0's luck-adjusted
    chance, :func:`~nardy.analysis.reportstats.relative_fibs_rating`; ``None``: "n/a"), the error-based
    absolute rating and the rating lost by checker play and by cube errors."""
    names = [p["name"] for p in data["players"]]
    st = [player_stats(decisions, k) for k in (0, 1)]
    match_play = bool(data.get("length"))
    rows: list[tuple[str, list[str]]] = []

    def head(key):
        rows.append(("#" + tr(key), []))

    def row(key, f):
        rows.append((tr(key), [f(s) for s in st]))

    head("rp_st_checker")
    row("rp_st_moves", lambda s: str(s["checker"]["moves"]))
    row("rp_st_unforced", lambda s: str(s["checker"]["unforced"]))
    for m in _MARKS:
        row(f"rp_st_marked_{m}", lambda s, m=m: str(s["checker"]["marks"][m]))
    row("rp_st_error_total", lambda s: _emg_mwc(-s["checker"]["error"], _neg(s["checker"]["error_mwc"])))
    row("rp_st_error_rate", lambda s: _rate(-s["checker"]["rate"], _neg(s["checker"]["rate_mwc"])))
    row("rp_st_checker_rating", lambda s: _rating(tr, s["checker"]["rating"]))
    head("rp_st_luck")
    for m in ("very lucky", "lucky", "unmarked", "unlucky", "very unlucky"):
        row("rp_st_rolls_" + m.replace(" ", "_"), lambda s, m=m: str(s["luck"]["marks"][m]))
    row("rp_st_luck_total", lambda s: _emg_mwc(s["luck"]["total"], s["luck"]["total_mwc"]))
    row("rp_st_luck_rate", lambda s: _rate(s["luck"]["rate"], s["luck"]["rate_mwc"]))
    row("rp_st_luck_rating", lambda s: _rating(tr, s["luck"]["rating"], "rp_luckrating_"))
    head("rp_st_cube")
    row("rp_st_cube_total", lambda s: str(s["cube"]["total"]))
    row("rp_st_cube_close", lambda s: str(s["cube"]["close"]))
    for k in ("doubles", "takes", "passes"):
        row("rp_st_" + k, lambda s, k=k: str(s["cube"][k]))
    for k in CUBE_ERROR_SPLIT:
        row(
            "rp_st_" + k.replace(" ", "_"),
            lambda s, k=k: _split_cell(s["cube"], k),
        )
    row("rp_st_error_total", lambda s: _emg_mwc(-s["cube"]["error"], _neg(s["cube"]["error_mwc"])))
    row("rp_st_error_rate", lambda s: _rate(-s["cube"]["rate"], _neg(s["cube"]["rate_mwc"])))
    row("rp_st_cube_rating", lambda s: _rating(tr, s["cube"]["rating"]))
    head("rp_st_overall")
    row("rp_st_error_total", lambda s: _emg_mwc(-s["overall"]["error"], _neg(s["overall"]["error_mwc"])))
    row("rp_st_error_rate", lambda s: _rate(-s["overall"]["rate"], _neg(s["overall"]["rate_mwc"])))
    row("rp_st_snowie", lambda s: f"{-s['overall']['snowie']:.1f}")
    row("rp_st_pr", lambda s: f"{s['overall']['pr']:.1f}")
    row("rp_st_rating", lambda s: _rating(tr, s["overall"]["rating"]))
    if results is not None:
        fmt = _pct_signed if match_play else (lambda v: f"{v:+.3f}")
        rows.append((tr("rp_st_result"), [fmt(r[0]) if r else "—" for r in results]))
        rows.append((tr("rp_st_luck_adjusted"), [fmt(r[1]) if r else "—" for r in results]))
    if match_play:
        rows.extend(_fibs_rows(tr, st, int(data["length"]), fibs_r))
    out = [f"<table class='stats' id='{_e(table_id)}'><tr><th class='l'></th>"]
    out += [f"<th>{_e(n)}</th>" for n in names]
    out.append("</tr>")
    for label, cells in rows:
        if label.startswith("#"):
            out.append(f"<tr class='group'><th class='l' colspan='3'>{_e(label[1:])}</th></tr>")
        else:
            out.append(f"<tr><td class='l'>{_e(label)}</td>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _split_cell(cube: dict, k: str) -> str:
    """gnubg's cube error cell: ``0``, or the count and its total ``1 (-0.093 (-2.310%))``."""
    n = cube["split"][k]
    return f"{n} ({_emg_mwc(-cube['split_error'][k], _neg(cube['split_mwc'][k]))})" if n else "0"


def _fibs_rows(tr, st: list, n: int, fibs_r) -> list:
    """gnubg's FIBS rating rows of match play (formulas: :mod:`nardy.analysis.reportstats`); rates there are
    per decision in EMG, ours in mEMG. "n/a" where gnubg prints it (no counted decision; ``r`` outside (0, 1))."""
    na = tr("rp_na")
    diff = relative_fibs_rating(fibs_r, n) if fibs_r is not None else None
    out = [(tr("rp_st_fibs_luck_diff"), [na if diff is None else f"{diff:+.2f}", ""])]

    def counted(s):
        return s["checker"]["unforced"] + s["cube"]["close"]

    out.append(
        (
            tr("rp_st_fibs_abs"),
            [
                f"{absolute_fibs_rating(s['checker']['rate'] / 1000, s['cube']['rate'] / 1000, n):.1f}"
                if counted(s)
                else na
                for s in st
            ],
        )
    )
    out.append(
        (
            tr("rp_st_fibs_checker_loss"),
            [
                f"{fibs_rating_loss_checker(s['checker']['rate'] / 1000, n):.1f}" if s["checker"]["unforced"] else na
                for s in st
            ],
        )
    )
    out.append(
        (
            tr("rp_st_fibs_cube_loss"),
            [f"{fibs_rating_loss_cube(s['cube']['rate'] / 1000, n):.1f}" if s["cube"]["close"] else na for s in st],
        )
    )
    return out


def _neg(x):
    return None if x is None else -x


def _pct_signed(x) -> str:
    return f"{100 * x:+.2f}%"


_INFO_KEYS = ("players", "event", "round", "date", "place", "annotator", "transcriber", "comment")


def info_html(tr, data: dict) -> str:
    """The match information (``data["info"]``: :func:`~nardy.analysis.reportstats.match_info` of the
    record's headers) as a small table, as gnubg's export heads its pages; ``""`` where the record has none."""
    info = data.get("info") or {}
    rows = [(tr("rp_info_" + k), info[k]) for k in _INFO_KEYS if info.get(k)]
    if not rows:
        return ""
    out = [f"<table class='info' id='match-info'><tr><th class='l' colspan='2'>{_e(tr('rp_info'))}</th></tr>"]
    out += [f"<tr><td class='l'>{_e(k)}</td><td class='l'>{_e(v)}</td></tr>" for k, v in rows]
    out.append("</table>")
    return "".join(out)


def match_results(data: dict) -> list:
    """The match's actual and luck-adjusted results per player as the analysis gives them (points, or the
    match won 1/0 in match play)."""
    return [(p["result"], p["luck_adjusted_result"]) for p in data["players"]]


def per_game_results(data: dict, game: dict) -> list:
    """:func:`nardy.analysis.reportstats.game_results` of one game."""
    return game_results(data, game)


# ----- one decision --------------------------------------------------------------------------------------
def entries_of(decisions: list) -> list[list[dict]]:
    """The decisions of one game grouped as GNU Backgammon's HTML export numbers its moves: one entry per
    ``number`` (a "no double" and the play after it share one)."""
    out: list[list[dict]] = []
    for d in decisions:
        if out and out[-1][0].get("number") == d.get("number") and d.get("number") is not None:
            out[-1].append(d)
        else:
            out.append([d])
    return out


def _dice_text(dice) -> str:
    return "".join(str(int(x)) for x in dice) if dice else ""


def entry_title(tr, entry: list[dict], names) -> str:
    """The caption of an entry (above its board): gnubg's "Move number N: NAME to play 31" forms."""
    main = entry[-1]
    n = main.get("number", main["move"])
    if main["kind"] == "checker":
        return tr("rp_move_play", n=n, name=names[main["player"]], dice=_dice_text(main["dice"]))
    if main["kind"] == "resign":
        key = "rp_move_resign" if main["action"] == "resign" else "rp_move_resign_answer"
        return tr(key, n=n, name=names[main["player"]])
    if main["action"] == "take":
        value = 2 * int(main["cube"].get("value", 1))
        return tr("rp_move_doubled", n=n, name=names[1 - main["player"]], value=value)
    return tr("rp_move_cube", n=n, name=names[main["player"]])


def entry_html(tr, entry: list[dict], data: dict, board, anchor: str) -> str:
    """One numbered entry: caption and board (``board(decision, title) -> svg``), then each decision's
    block (the cube block before the play when both are there)."""
    names = [p["name"] for p in data["players"]]
    title = entry_title(tr, entry, names)
    main = entry[-1]
    marks = [d["mark"] for d in entry if d.get("mark")]
    worst = max(marks, key=_MARKS.index) if marks else ""
    cls = "entry" + (f" mark-{worst}" if worst else "")
    out = [f"<section class='{cls}' id='{_e(anchor)}'>", board(main, title), "<div class='info'>"]
    pos = _position(data["game"], main["position"])
    if pos is not None:
        pips = pos.pip_count()
        me, opp = main["player"], 1 - main["player"]
        if main["action"] == "take":
            me, opp = opp, me
        out.append(
            "<p class='small'>"
            + _e(tr("rp_pips", a=names[me], pa=pips[0], b=names[opp], pb=pips[1]))
            + f"; {_e(tr('rp_position_id'))} <code>{_e(main['position'])}</code>"
            + (
                f" {_e(tr('rp_match_id'))} <code class='mid'>{_e(mid)}</code>"
                if (mid := match_id_of(main, data))
                else ""
            )
            + "</p>"
        )
    for d in entry:
        out.append(decision_html(tr, d, data))
    out.append("</div></section>")
    return "".join(out)


def _position(game: str, pid: str):
    try:
        return Position.from_id(pid, get_rules(game))
    except ValueError:
        return None


def decision_html(tr, d: dict, data: dict) -> str:
    """One decision's block: what was done, the cube block or the candidates, the luck and the alerts."""
    names = [p["name"] for p in data["players"]]
    who = names[d["player"]]
    out = []
    if d["kind"] == "checker":
        if d.get("error_kind", "").startswith("last roll"):
            line = tr("rp_last_roll", name=who) + (f": {d['played']}" if d.get("played") else "")
        elif d.get("played"):
            line = tr("rp_moves", name=who, play=d["played"])
        else:
            line = tr("rp_cannot_move", name=who)
    elif d["kind"] == "resign":
        line = _resign_line(tr, d, who)
    elif d["action"] == "double":
        line = tr("rp_doubles" if d["played"] == "double" else "rp_no_double", name=who)
    else:
        line = tr("rp_accepts" if d["played"] == "take" else "rp_passes", name=who)
    out.append(f"<p class='did'>• {_e(line)}</p>")
    if d["kind"] == "cube":
        out.append(cube_block(tr, d, data))
    elif d["kind"] == "resign":
        out.append(resign_block(tr, d))
    elif isinstance(d.get("candidates"), list) and d["candidates"] and not d.get("forced"):
        out.append(candidates_table(tr, d, data))
    if d.get("xg"):
        out.append(_xg_line(tr, d["xg"]))
    if d.get("luck") is not None:
        word = f" — {tr('rv_luck_' + d['luck_mark'].replace(' ', '_'))}" if d.get("luck_mark") else ""
        cls = " class='luck " + d["luck_mark"].replace(" ", "-") + "'" if d.get("luck_mark") else " class='luck'"
        out.append(f"<p{cls}>{_e(tr('rp_roll_luck', luck=_signed(d['luck'])) + word)}</p>")
    if d.get("mark"):
        loss = _signed(-d["equity_loss"])
        if data.get("length") and d.get("mwc_loss") is not None:
            loss += f", {100 * -d['mwc_loss']:+.2f}%"
        mark = tr("rv_mark_" + d["mark"])
        if d["kind"] in ("cube", "resign") and d.get("error_kind"):
            text = tr("rp_alert_cube", kind=tr("rp_kind_" + d["error_kind"].replace(" ", "_")), mark=mark, loss=loss)
        else:
            text = tr("rp_alert_move", mark=mark, loss=loss)
        out.append(f"<p class='alert {d['mark']}'>{_e(text)}</p>")
    return "<div class='decision'>" + "".join(out) + "</div>"


def _resign_line(tr, d: dict, who: str) -> str:
    """What was done at a resignation: "NAME resigns a gammon" or "NAME accepts/declines"."""
    if d["action"] == "resign":
        level = d["played"].removeprefix("resign ").strip()
        return tr("rp_resigns", name=who, level=tr("res_" + level) if level else "")
    return tr("rp_resign_accepts" if d["played"] == "accept" else "rp_resign_declines", name=who)


_RESIGN_ROWS = {
    "resign": "rp_rs_resign",
    "play on": "rp_rs_play_on",
    "accept": "rp_rs_accept",
    "decline": "rp_rs_decline",
}


def resign_block(tr, d: dict) -> str:
    """A resignation judged as gnubg does: the equity (normalised, the decider's view) of each answer, the best
    first, and the error ("resigned too early", "wrong accept", "wrong decline")."""
    cands = d.get("candidates") or {}
    if not isinstance(cands, dict) or not cands:
        return ""
    best = max(cands.values())
    out = ["<table class='cubeeq resign'>"]
    for i, (k, v) in enumerate(sorted(cands.items(), key=lambda kv: -kv[1]), 1):
        diff = "" if i == 1 else _signed(v - best)
        out.append(
            f"<tr data-action='{_e(k)}'><td>{i}.</td><td class='l'>{_e(tr(_RESIGN_ROWS.get(k, k)))}</td>"
            f"<td class='eq'>{_signed(v)}</td><td>{_e(diff)}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def _probs_cells(probs: dict | None, game: str) -> str:
    """gnubg's ``0.551 0.170 0.008 - 0.449 0.117 0.005``: the win levels, then the loss levels."""
    if not probs:
        return ""
    win = [probs.get("win", 0.0)] + [v for k, v in probs.items() if k.startswith("win_")]
    lose = [1.0 - probs.get("win", 0.0)] + [v for k, v in probs.items() if k.startswith("lose_")]
    return " ".join(f"{x:.3f}" for x in win) + " – " + " ".join(f"{x:.3f}" for x in lose)


def _probs_header(tr, game: str) -> str:
    names = get_rules(game).result_names[1:]
    lv = " ".join(tr("res_" + n) for n in names)
    return f"{tr('rp_p_win')} {lv} – {tr('rp_p_lose')} {lv}"


def candidates_table(tr, d: dict, data: dict) -> str:
    """The ranked plays: rank, ply, play, equity (and the loss to the best), MWC in match play, the cubeless
    probabilities after the play; the play made marked; rollout figures where the decision carries them."""
    match_play = bool(data.get("length"))
    ro = d.get("rollout") or {}
    ro_by_play = {c["play"]: c for c in ro.get("candidates", [])}
    out = ["<table class='cands'><tr><th></th><th>#</th>"]
    out.append(f"<th>{_e(tr('rp_col_ply'))}</th><th class='l'>{_e(tr('rv_col_play'))}</th>")
    out.append(f"<th>{_e(tr('rv_col_equity'))}</th>")
    if match_play:
        out.append(f"<th>{_e(tr('rp_col_mwc'))}</th>")
    out.append(f"<th class='l' title='{_e(_probs_header(tr, data['game']))}'>{_e(tr('rp_col_probs'))}</th></tr>")
    for i, c in enumerate(d["candidates"], 1):
        played = c["play"] == d["played"]
        r = ro_by_play.get(c["play"])
        eq = _signed(r["equity"] if r else c["equity"])
        if c.get("loss"):
            eq += f" ({_signed(-c['loss'])})"
        ply = "R" if r else str(c.get("ply", ""))
        probs = dict(zip(_names(data["game"]), r["probs"])) if r and r.get("probs") else c.get("probabilities")
        out.append(
            f"<tr class='{'played' if played else ''}'><td>{'•' if played else ''}</td><td>{i}</td><td>{_e(ply)}</td>"
            f"<td class='l'>{_e(c['play'] or tr('rv_no_play'))}</td><td>{_e(eq)}</td>"
            + (
                f"<td>{_pct(c['mwc'])}</td>"
                if match_play and c.get("mwc") is not None
                else ("<td></td>" if match_play else "")
            )
            + f"<td class='l mono'>{_e(_probs_cells(probs, data['game']))}</td></tr>"
        )
    out.append("</table>")
    if ro:
        ci = max((c.get("ci", 0.0) for c in ro.get("candidates", [])), default=0.0)
        out.append(f"<p class='small rollout'>{_e(_rollout_words(tr, ro, ci))}</p>")
    return "".join(out)


def _names(game: str):
    from ..engine.evaluator import OUTPUT_NAMES

    return OUTPUT_NAMES[game]


def _rollout_words(tr, ro: dict, ci: float) -> str:
    trunc = tr("rp_truncated", n=ro["truncation"]) if ro.get("truncation") else ""
    return tr("rp_rollout", trials=ro.get("trials", 0), trunc=trunc, ci=f"{ci:.3f}")


def _xg_line(tr, xg: dict) -> str:
    loss = xg.get("equity_loss")
    return (
        "<p class='small xg'>"
        + _e(tr("rp_xg", best=xg.get("best") or "—", loss="—" if loss is None else f"{-loss:+.3f}"))
        + "</p>"
    )


_CUBE_ROWS = (("no double", "rp_cube_nd"), ("double/take", "rp_cube_dt"), ("double/pass", "rp_cube_dp"))


def cube_block(tr, d: dict, data: dict) -> str:
    """gnubg's "Cube decision" block: the cubeless equity (normalised; money; MWC in match play) and
    probabilities, the cubeful equities of no double, double/take and double/pass ranked best first with
    their difference to the best, the proper action in words and this decision's error. Rollout figures
    (``rollout``: ``nd``, ``dt``, ``dp``, ``ci``) replace the n-ply equities and are marked so."""
    ca = d.get("cube_analysis") or {}
    eqs = dict(ca.get("equities") or d.get("candidates") or {})
    if not eqs:
        return ""
    ro = d.get("rollout") or {}
    if ro and all(k in ro for k in ("nd", "dt", "dp")):
        eqs = {"no double": ro["nd"], "double/take": ro["dt"], "double/pass": ro["dp"]}
    out = ["<div class='cube'>"]
    head = tr("rp_cube_block", ply=ca.get("ply", data.get("engine", {}).get("ply", "")))
    out.append(f"<p class='cubehead'><b>{_e(head)}</b></p>")
    if ca:
        if ca.get("cubeless_mwc") is not None:
            t = tr(
                "rp_cubeless_mwc",
                eq=_signed(ca["cubeless_equity"]),
                money=_signed(ca["cubeless_money"]),
                mwc=_pct(ca["cubeless_mwc"]),
            )
        else:
            t = tr("rp_cubeless", eq=_signed(ca["cubeless_equity"]), money=_signed(ca["cubeless_money"]))
        out.append(f"<p>{_e(t)}</p>")
    if d.get("probabilities"):
        out.append(
            f"<p class='mono' title='{_e(_probs_header(tr, data['game']))}'>"
            f"{_e(_probs_cells(d['probabilities'], data['game']))}</p>"
        )
    # gnubg's order: the proper action first, then double/pass, double/take, no double; the differences to it
    opt = _optimal(eqs)
    keys = dict(_CUBE_ROWS)
    ranked = [(opt, keys[opt])] + [(k, keys[k]) for k in ("double/pass", "double/take", "no double") if k != opt]
    best = eqs[opt]
    mwc = ca.get("mwc") or {}
    out.append(f"<table class='cubeeq'><tr><th colspan='5' class='l'>{_e(tr('rp_cubeful'))}</th></tr>")
    for i, (k, key) in enumerate(ranked, 1):
        diff = "" if i == 1 else _signed(eqs[k] - best)
        m = f"{_pct(mwc[k])}" if k in mwc else ""
        out.append(
            f"<tr data-action='{_e(k)}'><td>{i}.</td><td class='l'>{_e(tr(key))}</td>"
            f"<td class='eq'>{_signed(eqs[k])}</td><td>{_e(diff)}</td><td>{_e(m)}</td></tr>"
        )
    out.append("</table>")
    if ro:
        out.append(f"<p class='small rollout'>{_e(_rollout_words(tr, ro, ro.get('ci', 0.0)))}</p>")
    if ca.get("proper"):
        base = proper_cube_action(eqs, bool(ca.get("redouble"))) if ro else ca["proper"]  # rollout: its figures'
        code = proper_code(d, data, eqs, base)
        words = tr("rp_proper_" + code)
        pct = window_percent(code, eqs)
        if pct is not None:
            words += f" ({100 * pct:.1f}%)"  # gnubg's form, "No double, take (31.2%)", in either language
        out.append(f"<p class='proper' data-code='{_e(code)}'>{_e(tr('rp_proper'))}: <b>{_e(words)}</b></p>")
    err = d.get("equity_loss") or 0.0
    err_text = _signed(-err) if err > 1e-9 else tr("rp_no_error")
    if err > 1e-9 and d.get("mwc_loss") is not None:
        err_text += f" ({100 * -d['mwc_loss']:+.2f}%)"
    if d.get("error_kind"):
        err_text += f" — {tr('rp_kind_' + d['error_kind'].replace(' ', '_'))}"
    out.append(f"<p class='cubeerr'>{_e(tr('rp_error'))}: {_e(err_text)}</p>")
    out.append("</div>")
    return "".join(out)


def _optimal(eqs: dict) -> str:
    """The row the proper action stands for (the doubler's view): no double when it is worth at least the
    double (whose worth is the worse of take and pass), else the opponent's right answer."""
    dbl = min(eqs["double/take"], eqs["double/pass"])
    if eqs["no double"] >= dbl:
        return "no double"
    return "double/take" if eqs["double/take"] <= eqs["double/pass"] else "double/pass"
