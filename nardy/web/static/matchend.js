"use strict";
// Between the games of an online match and after it (issue 43; docs/online.md "Presence"): who won the last
// game and how (single, gammon/mars, koks..., resignation), the score, and a pause with a "Continue" button
// that goes by itself after PAUSE seconds (a clocked match's pause is held by the server: the view's "pause"
// {"until", "seconds"}, no clock runs; Continue sends the "next" action, else the server starts the next game at
// "until"; without a clock the next game has begun already and the pause is only the page's); after the match a
// summary: the result (or how it ended otherwise:
// time, the opponent gone, aborted), the rating change of a rated match, a link to its analysis (review.js's
// #/review/{id}), beside the rematch buttons. The view's last_game and online.ended say it (services/seats.py).

window.nardyMatchEnd = (() => {
  const PAUSE = 6;            // seconds the game's result stays before the next game shows by itself
  const shown = new Set();    // "id:number" of the games whose pause was shown already
  let timer = null;
  let ratedFor = null;        // the game whose rating change was asked for
  let held = null;            // "id:number" of the game whose server-held pause is shown

  function el(id, tag, after) {
    let e = document.getElementById(id);
    if (!e) {
      const anchor = document.getElementById(after);
      if (!anchor) return null;
      e = document.createElement(tag);
      e.id = id;
      e.className = id;
      e.hidden = true;
      anchor.insertAdjacentElement("afterend", e);
    }
    return e;
  }

  function name(v, side) {
    return (v.seats && v.seats[side] && v.seats[side].name) || (v.players && v.players[side]) || "";
  }

  // "Ann wins game 2: gammon, 2 points (resignation)"
  function gameText(v, g) {
    if (g.winner === null) return t("me_game_draw", { n: g.number, points: g.points });
    const how = g.reason === "resign" ? t("me_by_resign") : g.reason === "drop" ? t("me_by_drop") : "";
    return t("me_game_won", { name: name(v, g.winner), n: g.number, kind: g.level_name, points: g.points })
      + (how ? ` (${how})` : "");
  }

  function scoreText(v) {
    return t("me_score", { a: name(v, 0), b: name(v, 1), x: v.score[0], y: v.score[1] });
  }

  function hidePause() {
    clearInterval(timer);
    timer = null;
    held = null;
    const box = document.getElementById("between-box");
    if (box) box.hidden = true;
  }

  // the seconds left of the server's pause, by the server's own time of the view (the clock's server_time: the
  // page's clock may be off), at most its length
  function heldLeft(v) {
    const p = v.pause;
    const now = v.clock && v.clock.server_time ? v.clock.server_time * 1000 : Date.now();
    const ms = Date.parse(p.until) - now;
    const most = Math.ceil(p.seconds || PAUSE);
    return Number.isFinite(ms) ? Math.max(1, Math.min(most, Math.ceil(ms / 1000))) : most;
  }

  function showPause(v) {
    const box = el("between-box", "div", "live-state");
    if (!box) return;
    const server = !!v.pause;
    let left = server ? heldLeft(v) : PAUSE;
    box.textContent = "";
    const p = document.createElement("p");
    p.textContent = `${gameText(v, v.last_game)}. ${scoreText(v)}`;
    const b = document.createElement("button");
    b.id = "btn-continue";
    b.type = "button";
    b.className = "primary";
    const tick = () => { b.textContent = t("me_continue", { n: left }); };
    tick();
    b.addEventListener("click", () => {
      hidePause();
      // the server's pause: the next game starts now for both (unless it has started already)
      if (server && S.view && S.view.id === v.id && S.view.pause) act("next");
    });
    box.append(p, b);
    box.hidden = false;
    if (server) held = `${v.id}:${v.last_game.number}`;
    clearInterval(timer);
    timer = setInterval(() => { left -= 1; if (left <= 0) hidePause(); else tick(); }, 1000);
  }

  function endedText(v) {
    const e = v.online.ended;
    if (e && e.reason === "aborted") return t("me_aborted");
    const w = v.match_winner;
    if (w === null || w === undefined) return scoreText(v);
    const how = !e ? "" : e.reason === "time" ? t("me_on_time") : e.reason === "abandoned" ? t("me_left") : "";
    return t("me_match_won", { name: name(v, w) }) + (how ? ` (${how})` : "") + `. ${scoreText(v)}`;
  }

  async function ratingChange(v, line) {
    if (!v.online.rated || !S.me || !v.you.length || ratedFor === v.id) return;
    ratedFor = v.id;
    try {
      const h = await api("GET", `/api/players/${encodeURIComponent(S.me.id)}/history?limit=5`);
      const r = (h.history || []).find((x) => x.game_id === v.id);
      if (r && S.view && S.view.id === v.id) {
        const d = Math.round(r.after - r.before);
        line.textContent = t("me_rating", { before: Math.round(r.before), after: Math.round(r.after), d: (d >= 0 ? "+" : "") + d });
      }
    } catch (e) { ratedFor = null; }
  }

  function showSummary(v) {
    const box = el("match-summary", "div", "live-state");
    if (!box) return;
    if (box.dataset.game === `${v.id}:${v.seq}`) return;
    box.dataset.game = `${v.id}:${v.seq}`;
    box.textContent = "";
    const h = document.createElement("p");
    h.className = "match-result";
    h.textContent = endedText(v);
    box.appendChild(h);
    if (v.last_game && !(v.online.ended && v.online.ended.reason === "aborted")) {
      const g = document.createElement("p");
      g.textContent = gameText(v, v.last_game);
      box.appendChild(g);
    }
    const rating = document.createElement("p");
    rating.className = "rating-change";
    box.appendChild(rating);
    if (!(v.online.ended && v.online.ended.reason === "aborted")) {
      const a = document.createElement("a");
      a.id = "summary-analysis";
      a.href = "#/review/" + encodeURIComponent(v.id);
      a.textContent = t("me_analysis");
      box.appendChild(a);
    }
    box.hidden = false;
    ratingChange(v, rating);
  }

  function render() {
    const v = S.view;
    const summary = document.getElementById("match-summary");
    if (!v || !v.online || v.online.waiting) {
      if (summary) summary.hidden = true;
      hidePause();
      return;
    }
    if (v.match_over) {
      hidePause();
      showSummary(v);
      return;
    }
    if (summary) summary.hidden = true;
    const g = v.last_game;
    if (v.pause && g) {
      // held by the server until the next game starts (by Continue, or by itself at v.pause.until)
      if (!shown.has(`${v.id}:${g.number}`)) {
        shown.add(`${v.id}:${g.number}`);
        showPause(v);
      }
      return;
    }
    if (held) hidePause();  // the next game has started: its view has no pause
    if (g && g.number === v.game_number - 1 && !shown.has(`${v.id}:${g.number}`)) {
      shown.add(`${v.id}:${g.number}`);
      showPause(v);
    }
  }

  return { render, PAUSE };
})();
