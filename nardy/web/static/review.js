// Review mode (issue 16): a finished game or an imported record analysed by the server
// (POST /api/games/{id}/analysis, POST /api/analyse), stepped through play by play on the board of
// board.js; the played move against the best ones with their equities, the equity / match winning chance
// graph over the match (click a point to jump), mistakes coloured, jumps to the next/previous mistake.
// A saved game's analysis may be rolled out (the marked decisions played out by the server, polled until done).
// And the tutor: in a game against the computer, before a play is confirmed, the server judges it
// (GET /api/games/{id}/tutor) and the page asks "this loses 0.123 - best is ...; confirm anyway?".
//
// Hooks in app.js: route() calls reviewRoute(), render() calls reviewControls(view), gameCard() adds
// reviewCardButton(game), act() asks tutorGate(action) before a confirmation.
"use strict";

const R = {
  data: null,      // the analysis JSON (docs/analysis.md) with review.steps
  id: null,        // the saved game's id, or null for an uploaded record
  index: 0,        // the decision shown
  shown: null,     // null: the board before the decision; "played" or a candidate's index: the board after it
  level: localStorage.getItem("nardy.review.level") || "expert",
  updates: 0,      // counts what was drawn (tests wait on it)
  busy: false,
  rolling: false,  // a rollout asked for and not finished
};
window.nardyReview = R;

const REVIEW_LEVELS = ["advanced", "expert", "grandmaster"];
const MARKS = ["doubtful", "error", "blunder"];
const RECORD_LIMIT = 256 * 1024;   // nardy.web.review.ANALYSE_LIMIT
const XG_LIMIT = 2 * 1024 * 1024;  // nardy.web.review.XG_LIMIT

const rq = (sel) => document.querySelector(sel);

function rEl(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function num(x, d) { return x === null || x === undefined ? "—" : Number(x).toFixed(d === undefined ? 3 : d); }
function signed(x, d) { const s = num(x, d); return x > 0 ? "+" + s : s; }

// ----- the screen -------------------------------------------------------------------------------------------
function reviewSection() {
  let sec = rq("#review");
  if (sec) return sec;
  sec = rEl("section", { id: "review", hidden: "" }, rq("main"));
  const col = rEl("div", { id: "rv-board-col" }, sec);
  const head = rEl("div", { id: "rv-head" }, col);
  rEl("h2", { id: "rv-title" }, head);
  const lv = rEl("label", { class: "rv-level" }, head);
  rEl("span", { "data-i18n": "rv_level" }, lv, t("rv_level"));
  const sel = rEl("select", { id: "rv-level" }, lv);
  for (const l of REVIEW_LEVELS) rEl("option", { value: l }, sel, t("rv_level_" + l));
  sel.value = R.level;
  sel.onchange = () => { R.level = sel.value; localStorage.setItem("nardy.review.level", R.level); reanalyse(); };
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.id = "rv-board";
  svg.setAttribute("viewBox", "0 0 790 570");
  svg.setAttribute("role", "img");
  col.appendChild(svg);
  const nav = rEl("div", { id: "rv-nav" }, col);
  // glyph: the button's symbol (no words: the same in every language), its title from the catalogue
  const btn = (id, key, fn, cls, glyph) => {
    const attrs = { id, type: "button", class: cls || "secondary", "data-title": key + "_title", title: t(key + "_title") };
    if (!glyph) attrs["data-i18n"] = key;
    const b = rEl("button", attrs, nav, glyph || t(key));
    b.onclick = fn;
    return b;
  };
  btn("rv-first", "rv_first", () => go(0), "secondary", "«");
  btn("rv-prev-error", "rv_prev_error", () => jumpError(-1));
  btn("rv-prev", "rv_prev", () => go(R.index - 1), "secondary", "◀");
  rEl("span", { id: "rv-pos" }, nav);
  btn("rv-next", "rv_next", () => go(R.index + 1), "primary", "▶");
  btn("rv-next-error", "rv_next_error", () => jumpError(1));
  btn("rv-last", "rv_last", () => go(R.data ? R.data.decisions.length - 1 : 0), "secondary", "»");
  // an image of the position shown (GET /api/diagram.svg): opens in a new tab, its link copied (for forums)
  const img = rEl("a", { id: "rv-image", class: "button secondary", target: "_blank", rel: "noopener",
    "data-i18n": "rv_image", "data-title": "rv_image_title", title: t("rv_image_title") }, nav, t("rv_image"));
  img.onclick = copyImageLink;
  rEl("div", { id: "rv-status", role: "status", "aria-live": "polite" }, col);
  const gsvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  gsvg.id = "rv-graph";
  gsvg.setAttribute("role", "img");
  col.appendChild(gsvg);
  const side = rEl("aside", { id: "rv-side" }, sec);
  rEl("div", { id: "rv-decision" }, side);
  rEl("div", { id: "rv-summary" }, side);
  rEl("div", { id: "rv-list" }, side);
  const back = rEl("p", {}, side);
  const a = rEl("button", { id: "rv-back", type: "button", class: "secondary", "data-i18n": "rv_back" }, back, t("rv_back"));
  a.onclick = () => { location.hash = R.id ? "#/game/" + R.id : "#/"; };
  document.addEventListener("keydown", reviewKey);
  return sec;
}

function reviewKey(ev) {
  const sec = rq("#review");
  if (!sec || sec.hidden || !R.data || ev.target.closest("input, select, textarea")) return;
  if (ev.key === "ArrowRight") { ev.preventDefault(); ev.shiftKey ? jumpError(1) : go(R.index + 1); }
  else if (ev.key === "ArrowLeft") { ev.preventDefault(); ev.shiftKey ? jumpError(-1) : go(R.index - 1); }
  else if (ev.key === "Home") go(0);
  else if (ev.key === "End") go(R.data.decisions.length - 1);
}

function showReviewScreen() {
  const sec = reviewSection();
  for (const s of ["#home", "#play", "#join"]) { const e = rq(s); if (e) e.hidden = true; }
  sec.hidden = false;
  document.body.dataset.screen = "review";
}

// app.js's route(): true when the address is a review (#/review/{id} or #/review/record)
function reviewRoute() {
  const m = location.hash.match(/^#\/review\/([0-9a-zA-Z_-]+)/);
  const sec = rq("#review");
  if (!m) { if (sec) sec.hidden = true; return false; }
  if (typeof leaveGame === "function") leaveGame();
  showReviewScreen();
  if (m[1] === "record") {
    if (!R.data || R.id !== null) { location.hash = "#/"; return true; }
    drawReview();
    return true;
  }
  if (R.id !== m[1] || !R.data) openReview(m[1]);
  else drawReview();
  return true;
}

function setStatus(text, kind) {
  const box = rq("#rv-status");
  if (!box) return;
  box.textContent = text || "";
  box.className = kind || "";
}

async function openReview(id) {
  R.id = id; R.data = null; R.index = 0; R.shown = null;
  drawReview();
  if (window.nardyChatReview) window.nardyChatReview(id, rq("#rv-side"));  // the game's chat (chat.js)
  // the analysis stored at this level is instant; else the server analyses the game now (and stores it)
  try {
    let d = null;
    try { d = await api("GET", `/api/games/${id}/analysis?level=${R.level}`); } catch (e) { if (e.status !== 404) throw e; }
    if (!d || d.engine.level !== R.level) d = await analyseGame(id);
    if (R.id !== id) return;
    showAnalysis(d, id);
  } catch (e) {
    R.busy = false;
    setStatus(e.message, "error");
    R.updates++;
  }
}

async function analyseGame(id) {
  R.busy = true;
  setStatus(t("rv_analysing", { level: t("rv_level_" + R.level) }), "wait");
  try { return await api("POST", `/api/games/${id}/analysis?level=${R.level}`); }
  finally { R.busy = false; }
}

async function reanalyse() {
  if (R.busy) return;
  try {
    if (R.id) { showAnalysis(await analyseGame(R.id), R.id, R.index); }
    else if (R.text) { showAnalysis(await analyseText(R.text), null, R.index); }
  } catch (e) { setStatus(e.message, "error"); R.updates++; }
}

async function analyseText(text) {
  R.busy = true;
  setStatus(t("rv_analysing", { level: t("rv_level_" + R.level) }), "wait");
  try {
    if (text instanceof ArrayBuffer) return await api("POST", `/api/analyse/xg?level=${R.level}`, text);
    return await api("POST", "/api/analyse", { text, level: R.level });
  }
  finally { R.busy = false; }
}

function showAnalysis(d, id, index) {
  R.data = d; R.id = id;
  R.index = Math.min(index || 0, Math.max(0, d.decisions.length - 1));
  R.shown = null;
  setStatus("");
  drawReview();
}

// the home screen's "Analyse a record": the text is sent to the server, which parses it (never a path)
async function analyseUpload(ev) {
  const f = ev.target.files[0];
  ev.target.value = "";
  if (!f) return;
  const box = rq("#home-message");
  try {
    const xg = /\.xg$/i.test(f.name);   // eXtreme Gammon's binary file: sent as its bytes
    const limit = xg ? XG_LIMIT : RECORD_LIMIT;
    if (f.size > limit) throw new Error(t("rv_too_large", { kb: Math.round(limit / 1024) }));
    const text = xg ? await f.arrayBuffer() : await f.text();
    box.textContent = t("rv_analysing", { level: t("rv_level_" + R.level) });
    R.text = text;
    const d = await analyseText(text);
    box.textContent = "";
    showAnalysis(d, null);
    location.hash = "#/review/record";
  } catch (e) { box.textContent = e.message; R.updates++; }
}

// ----- drawing ------------------------------------------------------------------------------------------------
function stepView(i, shown) {
  const d = R.data.decisions[i], s = R.data.review.steps[i];
  let board = s.board, dice = d.dice;
  if (shown === "played" && s.after) { board = s.after; dice = null; }
  else if (typeof shown === "number" && s.candidates_after && s.candidates_after[shown]) { board = s.candidates_after[shown]; dice = null; }
  const seen = d.action === "take" ? 1 - d.player : d.player;
  // the board after a play marks where its checkers came from and went
  const lastPlay = board !== s.board && board.steps ? { player: seen, steps: board.steps } : null;
  return {
    game: R.data.game, viewer: 0, turn: seen, to_act: d.player, human_to_act: false, moves: {},
    board, labels: R.data.review.labels, dice: dice || null, dice_left: dice ? [...dice] : [],
    cube: { enabled: R.data.review.cube, value: d.cube.value, owner: d.cube.owner,
            offered_by: d.action === "take" ? 1 - d.player : null },
    last_play: lastPlay,
  };
}

function drawReview() {
  const sec = reviewSection();
  const d = R.data;
  const title = rq("#rv-title");
  rq("#rv-level").value = R.level;
  if (!d) {
    title.textContent = t("rv_title");
    rq("#rv-decision").textContent = ""; rq("#rv-summary").textContent = ""; rq("#rv-pos").textContent = "";
    rq("#rv-list").textContent = "";
    const g = rq("#rv-graph"); while (g.firstChild) g.removeChild(g.firstChild);
    sec.querySelectorAll("#rv-nav button").forEach((b) => { b.disabled = true; });
    rq("#rv-image").removeAttribute("href"); rq("#rv-image").setAttribute("aria-disabled", "true");
    R.updates++;
    return;
  }
  const names = d.players.map((p) => p.name);
  const len = d.length ? t("match_to", { n: d.length }) : t("money");
  title.textContent = `${t("game_" + d.game)}: ${names[0]} ${t("vs")} ${names[1]} · ${len}`;
  const n = d.decisions.length;
  sec.querySelectorAll("#rv-nav button").forEach((b) => { b.disabled = !n; });
  if (n) {
    renderBoard(rq("#rv-board"), stepView(R.index, R.shown), { selected: null });
    rq("#rv-prev").disabled = rq("#rv-first").disabled = R.index <= 0;
    rq("#rv-next").disabled = rq("#rv-last").disabled = R.index >= n - 1;
    rq("#rv-prev-error").disabled = nextError(-1) === null;
    rq("#rv-next-error").disabled = nextError(1) === null;
    rq("#rv-pos").textContent = `${R.index + 1} / ${n}`;
    rq("#rv-image").href = diagramLink(R.index);
    rq("#rv-image").removeAttribute("aria-disabled");
  } else {
    rq("#rv-pos").textContent = t("rv_nothing");
  }
  if (!n) { rq("#rv-image").removeAttribute("href"); rq("#rv-image").setAttribute("aria-disabled", "true"); }
  drawDecision();
  drawGraph();
  drawSummary();
  drawDecisionList();
  R.updates++;
}

// The permalink of a board diagram of decision i (GET /api/diagram.svg): its position from the view of the
// side on roll, dice, cube, score, names, the page's numbering for the game and the caption "Game g, move m".
function diagramLink(i) {
  const d = R.data.decisions[i];
  const seen = d.action === "take" ? 1 - d.player : d.player;
  const name = (p) => String(R.data.players[p].name || "").replace(/[,\u0000-\u001f\u007f-\u009f]/g, " ").trim().slice(0, 40);
  const q = new URLSearchParams({ game: R.data.game, position: d.position });
  if (d.dice) q.set("dice", `${d.dice[0]}-${d.dice[1]}`);
  const g = (R.data.games || []).find((x) => x.game === d.game) || {};
  if (!R.data.review.cube || g.crawford) q.set("cube", "0");
  else {
    q.set("cube", String(d.cube.value));
    q.set("owner", d.cube.owner === null || d.cube.owner === undefined ? "centre" : (d.cube.owner === seen ? "mover" : "opponent"));
  }
  const sc = R.data.review.steps[i].score || g.score;
  if (sc && (R.data.length || sc[0] || sc[1])) q.set("score", seen === 0 ? `${sc[0]}-${sc[1]}` : `${sc[1]}-${sc[0]}`);
  if (R.data.length) q.set("length", String(R.data.length));
  if (g.crawford) q.set("crawford", "true");
  q.set("names", `${name(seen)},${name(1 - seen)}`);
  q.set("numbering", numberingFor(R.data.game));
  q.set("side", seen === 0 ? "white" : "black");
  q.set("theme", "light");
  q.set("title", t("rv_image_caption", { game: d.game, move: d.move }).slice(0, 120));
  if (LANG !== "en") q.set("lang", LANG);
  return `${location.origin}/api/diagram.svg?${q}`;
}

function copyImageLink(ev) {
  const a = ev.currentTarget;
  if (!a.href || a.getAttribute("aria-disabled") === "true") { ev.preventDefault(); return; }
  const done = () => { setStatus(t("rv_image_copied"), "note"); R.updates++; };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(a.href).then(done, () => {});
}

function go(i) {
  if (!R.data || !R.data.decisions.length) return;
  R.index = Math.max(0, Math.min(R.data.decisions.length - 1, i));
  R.shown = null;
  drawReview();
}

function isMistake(x) { return MARKS.includes(x.mark); }

function nextError(dir) {
  const ds = R.data ? R.data.decisions : [];
  for (let i = R.index + dir; i >= 0 && i < ds.length; i += dir) if (isMistake(ds[i])) return i;
  return null;
}

function jumpError(dir) {
  const i = nextError(dir);
  if (i !== null) go(i);
}

function playerName(p) { return R.data.players[p].name; }

function markBadge(mark, parent) {
  if (!mark) return null;
  return rEl("span", { class: "rv-mark mark-" + mark }, parent, t("rv_mark_" + mark));
}

function drawDecision() {
  const box = rq("#rv-decision");
  box.textContent = "";
  const d = R.data.decisions[R.index];
  if (!d) return;
  const head = rEl("div", { class: "rv-dhead" }, box);
  // moves numbered as GNU Backgammon numbers them (the analysis' "number"; older analyses: the record's line)
  const who = `${t("rv_game_move", { game: d.game, move: d.number || d.move })} · ${playerName(d.player)}`;
  rEl("span", {}, head, d.dice ? `${who} · ${d.dice[0]}-${d.dice[1]}` : who);
  markBadge(d.mark, head);
  const line = (key, text, cls) => {
    const p = rEl("p", { class: "rv-line " + (cls || "") }, box);
    rEl("b", {}, p, t(key) + ": ");
    rEl("span", {}, p, text);
    return p;
  };
  const actionText = (x) => (d.kind === "cube" ? t("rv_cube_" + x.replace(/[ /,]+/g, "_"))
    : d.kind === "resign" ? resignText(x) : (x || t("rv_no_play")));
  const played = line("rv_played", actionText(d.played), "rv-played");
  if (d.forced) rEl("span", { class: "rv-forced" }, played, " " + t("rv_forced"));
  line("rv_best", actionText(d.best), "rv-best");
  if (d.equity_loss > 0) {
    const l = line("rv_loss", num(d.equity_loss), "rv-loss");
    if (d.mwc_loss) rEl("span", {}, l, ` (${t("rv_mwc")} ${num(100 * d.mwc_loss, 2)}%)`);
  }
  if (d.luck !== null && d.luck !== undefined) {
    const l = line("rv_luck", signed(d.luck), "rv-luckline");
    if (d.luck_mark) rEl("span", { class: "rv-luck" }, l, " " + t("rv_luck_" + d.luck_mark.replace(" ", "_")));
  }
  if (d.xg && d.xg.best !== null && d.xg.best !== undefined) {
    // eXtreme Gammon's own figures, read from an .xg file (contracts: the decision's "xg")
    const loss = d.xg.equity_loss > 0 ? " " + t("rv_xg_loss", { loss: num(d.xg.equity_loss) }) : "";
    line("rv_xg", actionText(d.xg.best) + loss, "rv-xg");
  }
  if (d.rollout) drawRollout(d, box);
  if (d.kind === "checker" && Array.isArray(d.candidates)) {
    const tbl = rEl("table", { id: "rv-candidates", class: "rv-table" }, box);
    const hr = rEl("tr", {}, rEl("thead", {}, tbl));
    for (const k of ["rv_col_rank", "rv_col_play", "rv_col_equity", "rv_col_loss"]) rEl("th", {}, hr, t(k));
    const body = rEl("tbody", {}, tbl);
    d.candidates.forEach((c, i) => {
      const tr = rEl("tr", { class: "rv-cand" + (c.play === d.played ? " rv-is-played" : "") + (R.shown === i ? " rv-shown" : ""), title: t("rv_show_after") }, body);
      rEl("td", {}, tr, String(i + 1));
      rEl("td", {}, tr, c.play || t("rv_no_play"));
      rEl("td", {}, tr, signed(c.equity) + (R.data.match_play && c.mwc !== undefined ? ` (${num(100 * c.mwc, 1)}%)` : ""));
      rEl("td", {}, tr, c.loss > 0 ? "-" + num(c.loss) : "");
      tr.onclick = () => { R.shown = R.shown === i ? null : i; drawReview(); };
    });
    if (!d.candidates.some((c) => c.play === d.played) && d.played) {
      const tr = rEl("tr", { class: "rv-cand rv-is-played" + (R.shown === "played" ? " rv-shown" : "") }, body);
      rEl("td", {}, tr, "…");
      rEl("td", {}, tr, d.played);
      rEl("td", {}, tr, "");
      rEl("td", {}, tr, d.equity_loss > 0 ? "-" + num(d.equity_loss) : "");
      tr.onclick = () => { R.shown = R.shown === "played" ? null : "played"; drawReview(); };
    }
    const row = rEl("div", { class: "side-row" }, box);
    const b = rEl("button", { id: "rv-toggle-after", type: "button", class: "secondary" }, row,
      t(R.shown === null ? "rv_show_played" : "rv_show_before"));
    b.onclick = () => { R.shown = R.shown === null ? "played" : null; drawReview(); };
  } else if (d.kind === "cube" && d.candidates) {
    drawCubeBlock(box, d);
  } else if (d.kind === "resign" && d.candidates) {
    drawResignBlock(box, d);
  }
}

// A resignation's words: "resign gammon" -> "Resign: gammon", "play on", "accept", "decline" (the analysis' terms).
function resignText(x) {
  if (x && x.startsWith("resign ")) return t("rv_resign_level", { level: t("res_" + x.slice(7)) });
  return x ? t("rp_rs_" + x.replace(/ /g, "_")) : "";
}

// A resignation judged (docs/analysis.md): the equity of each answer (the decider's view), the best first.
function drawResignBlock(box, d) {
  const tbl = rEl("table", { id: "rv-resign", class: "rv-table" }, box);
  const body = rEl("tbody", {}, tbl);
  const rows = Object.entries(d.candidates).sort((a, b) => b[1] - a[1]);
  rows.forEach(([k, v], i) => {
    const tr = rEl("tr", { "data-action": k }, body);
    rEl("td", {}, tr, `${i + 1}.`);
    rEl("td", {}, tr, resignText(k));
    rEl("td", { class: "rv-eq" }, tr, signed(v));
    rEl("td", {}, tr, i ? signed(v - rows[0][1]) : "");
  });
}

// The cube block, as GNU Backgammon's: the cubeless equity and probabilities, the cubeful equities of no
// double / double-take / double-pass (the proper action first, the others with their difference to it),
// the proper action in words and the decision's error (the doubler's view, as the analysis gives them).
function drawCubeBlock(box, d) {
  const ca = d.cube_analysis || {};
  const eqs = ca.equities || d.candidates;
  const div = rEl("div", { id: "rv-cube", class: "rv-cube" }, box);
  if (ca.cubeless_equity !== undefined) {
    const key = ca.cubeless_mwc !== undefined ? "rp_cubeless_mwc" : "rp_cubeless";
    rEl("p", { class: "rv-cubeless" }, div, t(key, {
      eq: signed(ca.cubeless_equity), money: signed(ca.cubeless_money),
      mwc: ca.cubeless_mwc !== undefined ? num(100 * ca.cubeless_mwc, 1) + "%" : "" }));
  }
  if (d.probabilities) rEl("p", { class: "rv-probs" }, div, cubeProbsText(d.probabilities));
  const dbl = Math.min(eqs["double/take"], eqs["double/pass"]);
  const opt = eqs["no double"] >= dbl ? "no double" : (eqs["double/take"] <= eqs["double/pass"] ? "double/take" : "double/pass");
  const order = [opt, ...["double/pass", "double/take", "no double"].filter((k) => k !== opt)];
  const names = { "no double": "rp_cube_nd", "double/take": "rp_cube_dt", "double/pass": "rp_cube_dp" };
  const tbl = rEl("table", { id: "rv-candidates", class: "rv-table" }, div);
  const body = rEl("tbody", {}, tbl);
  order.forEach((k, i) => {
    const tr = rEl("tr", { "data-action": k }, body);
    rEl("td", {}, tr, `${i + 1}.`);
    rEl("td", {}, tr, t(names[k]));
    rEl("td", { class: "rv-eq" }, tr, signed(eqs[k]));
    rEl("td", {}, tr, i ? signed(eqs[k] - eqs[opt]) : "");
  });
  if (ca.proper) {
    const p = rEl("p", { id: "rv-proper", class: "rv-line" }, div);
    rEl("b", {}, p, t("rp_proper") + ": ");
    rEl("span", {}, p, t("rp_proper_" + ca.proper));
  }
  const err = rEl("p", { class: "rv-line rv-cube-error" }, div);
  rEl("b", {}, err, t("rp_error") + ": ");
  let text = d.equity_loss > 0 ? signed(-d.equity_loss) : t("rp_no_error");
  if (d.error_kind) text += " — " + t("rp_kind_" + d.error_kind.replace(/ /g, "_"));
  rEl("span", {}, err, text);
}

// gnubg's "0.551 0.170 0.008 - 0.449 0.117 0.005": the win levels, then the loss levels (cubeless).
function cubeProbsText(p) {
  const keys = Object.keys(p);
  const win = [p.win, ...keys.filter((k) => k.startsWith("win_")).map((k) => p[k])];
  const lose = [1 - p.win, ...keys.filter((k) => k.startsWith("lose_")).map((k) => p[k])];
  return win.map((x) => num(x)).join(" ") + " – " + lose.map((x) => num(x)).join(" ");
}

// Every decision, per game in a <details> (its players' error rates in the summary line): a click jumps to it.
function drawDecisionList() {
  const box = rq("#rv-list");
  const open = new Set([...box.querySelectorAll("details[open]")].map((e) => e.dataset.game));
  if (!box.childElementCount && R.data.decisions.length) open.add(String(R.data.decisions[R.index].game));
  box.textContent = "";
  const ds = R.data.decisions;
  const games = [...new Set(ds.map((x) => x.game))];
  for (const g of games) {
    const det = rEl("details", { class: "rv-game", "data-game": String(g) }, box);
    if (open.has(String(g)) || ds[R.index].game === g) det.open = true;
    const mine = ds.map((x, i) => [x, i]).filter(([x]) => x.game === g);
    const rate = (p) => {
      const c = mine.filter(([x]) => x.player === p && x.counted);
      return c.length ? num((1000 * c.reduce((a, [x]) => a + x.equity_loss, 0)) / c.length, 1) : "—";
    };
    rEl("summary", {}, det, `${t("rp_game", { n: g })} · ${playerName(0)} ${rate(0)} · ${playerName(1)} ${rate(1)} (${t("rv_error_rate")})`);
    const ol = rEl("ol", { class: "rv-all" }, det);
    for (const [x, i] of mine) {
      const li = rEl("li", { class: "rv-item" + (i === R.index ? " rv-here" : ""), "data-index": String(i) }, ol);
      const what = x.kind === "cube" ? t("rv_cube_" + x.played.replace(/[ /,]+/g, "_"))
        : x.kind === "resign" ? resignText(x.played) : (x.played || t("rv_no_play"));
      const dice = x.dice ? `${x.dice[0]}${x.dice[1]}: ` : "";
      rEl("span", {}, li, `${x.number || x.move}. ${playerName(x.player)} ${dice}${what}`);
      markBadge(x.mark, li);
      if (x.luck_mark) rEl("span", { class: "rv-luck" }, li, " " + t("rv_luck_" + x.luck_mark.replace(" ", "_")));
      li.onclick = () => go(i);
    }
  }
}

function drawSummary() {
  const box = rq("#rv-summary");
  box.textContent = "";
  const d = R.data;
  rEl("h3", {}, box, t("rv_summary"));
  const tbl = rEl("table", { class: "rv-table rv-players" }, box);
  const hr = rEl("tr", {}, rEl("thead", {}, tbl));
  rEl("th", {}, hr, "");
  for (const p of d.players) {   // a stored game's players link to their pages (profile.js)
    const th = rEl("th", {}, hr, R.id && typeof nardyNameLink === "function" ? "" : p.name);
    if (R.id && typeof nardyNameLink === "function") th.appendChild(nardyNameLink(p.name));
  }
  const body = rEl("tbody", {}, tbl);
  const row = (key, f) => {
    const tr = rEl("tr", {}, body);
    rEl("th", {}, tr, t(key));
    for (const p of d.players) rEl("td", {}, tr, f(p));
  };
  row("rv_pr", (p) => num(p.pr, 1));
  row("rv_error_rate", (p) => num(p.error_rate, 1));
  row("rv_rating", (p) => p.rating);
  row("rv_decisions", (p) => String(p.decisions));
  for (const m of MARKS) row("rv_marks_" + m, (p) => String(p.errors[m]));
  row("rv_luck_total", (p) => signed(p.luck));
  const eng = rEl("p", { class: "rv-engine" }, box,
    t("rv_engine", { level: t("rv_level_" + d.engine.level), ply: d.engine.ply, seconds: num(d.seconds, 1) }));
  eng.title = d.engine.net;
  rolloutControls(box);
}

// ----- rollouts (POST/GET /api/games/{id}/analysis/rollout): the marked decisions played out by the server ------
// The figures a rollout gave a decision: each candidate's equity with its 95% interval, or the cube's
// ND/DT/DP; and the n-ply mark it replaced.
function drawRollout(d, box) {
  const ro = d.rollout;
  const sec = rEl("div", { id: "rv-rollout", class: "rv-rollout" }, box);
  let head = t("rv_rollout_figures", { trials: ro.trials, plies: ro.truncation || "∞" });
  if (ro.cubeful) head += ", " + t("rv_rollout_cubeful");
  rEl("h4", {}, sec, head);
  const tbl = rEl("table", { class: "rv-table" }, sec);
  const body = rEl("tbody", {}, tbl);
  const row = (label, eq, ci) => {
    const tr = rEl("tr", {}, body);
    rEl("td", {}, tr, label);
    rEl("td", {}, tr, `${signed(eq)} ± ${num(ci)}`);
  };
  if (Array.isArray(ro.candidates)) {
    for (const c of ro.candidates) row(c.play || t("rv_no_play"), c.equity, c.ci);
  } else {
    row(t("rv_cube_no_double"), ro.nd, ro.ci);
    row(t("rv_cube_double_take"), ro.dt, ro.ci);
    row(t("rv_cube_double_pass"), ro.dp, ro.ci);
  }
  if (d.nply && d.nply.mark !== d.mark) {
    const p = rEl("p", { class: "rv-line rv-nply" }, sec);
    rEl("b", {}, p, t("rv_rollout_nply") + ": ");
    rEl("span", {}, p, `${d.nply.mark ? t("rv_mark_" + d.nply.mark) : "—"} (${num(d.nply.equity_loss)})`);
  }
}

// The button under the summary (a saved game's analysis only), and the rollout's progress while it runs.
function rolloutControls(box) {
  if (!R.id || !R.data) return;
  const st = R.data.rollout_status;
  const row = rEl("div", { class: "side-row" }, box);
  const note = rEl("span", { id: "rv-rollout-status", class: "rv-engine" }, row);
  if (st) note.textContent = t("rv_rollout_done", { done: st.done, total: st.total });
  if (st && st.complete) return;
  const b = rEl("button", { id: "rv-rollout-btn", type: "button", class: "secondary" }, row,
    t(st ? "rv_rollout_more" : "rv_rollout"));
  b.disabled = !!R.rolling;
  b.onclick = rolloutGame;
}

async function rolloutGame() {
  if (R.rolling || !R.id) return;
  const id = R.id;
  R.rolling = true;
  const btn = rq("#rv-rollout-btn");
  if (btn) btn.disabled = true;
  try {
    // the settings: the server's defaults, or those kept in this browser ("trials=72&truncate=20&candidates=3")
    const kept = (localStorage.getItem("nardy.review.rollout") || "").replace(/[^a-z0-9=&]/g, "");
    let st = await api("POST", `/api/games/${id}/analysis/rollout${kept ? "?" + kept : ""}`);
    while (st.state === "waiting" || st.state === "running") {
      setStatus(st.state === "waiting" ? t("rv_rollout_waiting") : t("rv_rollout_running", { done: st.done, total: st.total || "…" }), "wait");
      R.updates++;
      await new Promise((ok) => setTimeout(ok, 1500));
      if (R.id !== id) return;
      st = await api("GET", `/api/games/${id}/analysis/rollout`);
    }
    if (st.state === "failed") throw new Error((st.error && st.error.detail) || t("rv_rollout"));
    R.rolling = false;
    if (R.id === id && st.analysis) showAnalysis(st.analysis, id, R.index);
    setStatus(t("rv_rollout_done", { done: st.done, total: st.total }));
  } catch (e) {
    setStatus(e.message, "error");
  } finally {
    R.rolling = false;
    const b = rq("#rv-rollout-btn");
    if (b) b.disabled = false;
    R.updates++;
  }
}

// The graph: player 0's equity or match winning chance before each decision; games separated, mistakes
// coloured; a click jumps to the nearest decision.
function drawGraph() {
  const svg = rq("#rv-graph");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const ds = R.data.decisions;
  const W = 790, H = 170, L = 46, Rm = 10, T = 12, B = 22;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const ns = "http://www.w3.org/2000/svg";
  const mk = (tag, attrs) => { const e = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); svg.appendChild(e); return e; };
  if (!ds.length) return;
  const mwc = R.data.match_play;
  const vals = ds.map((x) => x.value_before);
  let lo = mwc ? 0 : Math.min(-1, ...vals), hi = mwc ? 1 : Math.max(1, ...vals);
  const x = (i) => L + (ds.length === 1 ? 0 : (i * (W - L - Rm)) / (ds.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  mk("rect", { x: L, y: T, width: W - L - Rm, height: H - T - B, class: "rv-graph-bg" });
  const mid = mwc ? 0.5 : 0;
  mk("line", { x1: L, x2: W - Rm, y1: y(mid), y2: y(mid), class: "rv-graph-axis" });
  for (const v of [lo, mid, hi]) {
    const tx = mk("text", { x: L - 4, y: y(v) + 4, class: "rv-graph-label" });
    tx.textContent = mwc ? `${Math.round(v * 100)}%` : num(v, 1);
  }
  // games: a dashed line where each begins
  ds.forEach((dd, i) => {
    if (i > 0 && dd.game !== ds[i - 1].game) mk("line", { x1: x(i), x2: x(i), y1: T, y2: H - B, class: "rv-graph-game" });
  });
  mk("polyline", { points: ds.map((dd, i) => `${x(i)},${y(dd.value_before)}`).join(" "), class: "rv-graph-line" });
  ds.forEach((dd, i) => {
    if (isMistake(dd)) mk("circle", { cx: x(i), cy: y(dd.value_before), r: 4.5, class: "rv-graph-mark mark-" + dd.mark, "data-index": i });
  });
  mk("line", { x1: x(R.index), x2: x(R.index), y1: T, y2: H - B, class: "rv-graph-cursor", id: "rv-graph-cursor" });
  mk("circle", { cx: x(R.index), cy: y(ds[R.index].value_before), r: 5, class: "rv-graph-here" });
  const cap = mk("text", { x: L + 4, y: H - 6, class: "rv-graph-caption" });
  cap.textContent = t(mwc ? "rv_graph_mwc" : "rv_graph_equity", { name: playerName(0) });
  const hit = mk("rect", { x: L, y: 0, width: W - L - Rm, height: H, class: "rv-graph-hit" });
  hit.addEventListener("click", (ev) => {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const i = ds.length === 1 ? 0 : Math.round(((p.x - L) * (ds.length - 1)) / (W - L - Rm));
    go(i);
  });
}

// ----- hooks from app.js ------------------------------------------------------------------------------------
function finishedStatus(status) { return status === "over" || status === "game-over"; }

// a saved game's card: "Analyse" for a finished one
function reviewCardButton(g) {
  if (!finishedStatus(g.status)) return null;
  const b = rEl("button", { type: "button", class: "secondary review-game" }, null, t("rv_analyse"));
  b.onclick = () => { location.hash = "#/review/" + g.id; };
  return b;
}

function isTutorGame(v) { return v && !v.online && v.humans.includes(false) && v.humans.includes(true); }

// the play screen: the "Analyse" button of a finished game, the tutor's switch in a game against the computer
function reviewControls(v) {
  const side = rq("#side");
  if (!side || !v) return;
  let box = rq("#review-box");
  if (!box) {
    box = rEl("div", { id: "review-box", class: "side-row" }, null);
    side.insertBefore(box, rq("#history") ? rq("#history").previousElementSibling : null);
    const b = rEl("button", { id: "btn-analyse", type: "button", class: "secondary" }, box, t("rv_analyse"));
    b.onclick = () => { if (S.id) location.hash = "#/review/" + S.id; };
    const lab = rEl("label", { class: "check", id: "tutor-row" }, box);
    const cb = rEl("input", { id: "tutor", type: "checkbox" }, lab);
    rEl("span", { id: "tutor-label" }, lab, " " + t("tutor"));
    cb.checked = localStorage.getItem("nardy.tutor") === "1";
    cb.onchange = () => localStorage.setItem("nardy.tutor", cb.checked ? "1" : "0");
  }
  rq("#btn-analyse").textContent = t("rv_analyse");
  rq("#tutor-label").textContent = " " + t("tutor");
  const finished = v.match_over || v.phase === "over" || (v.online && v.online.ended);
  rq("#btn-analyse").hidden = !(finished && (!v.online || v.match_over));
  rq("#tutor-row").hidden = !isTutorGame(v) || v.match_over;
  box.hidden = rq("#btn-analyse").hidden && rq("#tutor-row").hidden;
}

// The tutor's dialog: resolves true (confirm anyway) or false (take the play back to think again).
function tutorAsk(text) {
  let dlg = rq("#tutor-dialog");
  if (!dlg) {
    dlg = rEl("dialog", { id: "tutor-dialog" }, document.body);
    rEl("p", { id: "tutor-text" }, dlg);
    const row = rEl("div", { class: "dialog-buttons" }, dlg);
    rEl("button", { id: "tutor-back", type: "button", class: "secondary" }, row);
    rEl("button", { id: "tutor-confirm", type: "button", class: "primary" }, row);
  }
  rq("#tutor-text").textContent = text;
  rq("#tutor-back").textContent = t("tutor_back");
  rq("#tutor-confirm").textContent = t("tutor_confirm");
  return new Promise((resolve) => {
    const done = (ok) => { dlg.close(); resolve(ok); };
    rq("#tutor-back").onclick = () => done(false);
    rq("#tutor-confirm").onclick = () => done(true);
    dlg.oncancel = (ev) => { ev.preventDefault(); done(false); };
    dlg.showModal();
  });
}

// act()'s gate: before a confirmation or a cube action (double, take, pass) in a game against the computer,
// with the tutor on, the server judges it; a mistake is shown and the person decides. Resolves true when
// the action may go ahead.
const TUTOR_ACTIONS = ["confirm", "double", "take", "drop"];

async function tutorGate(action) {
  const v = S.view;
  const cb = rq("#tutor");
  if (!TUTOR_ACTIONS.includes(action) || !cb || !cb.checked || !isTutorGame(v) || !v.human_to_act) return true;
  if (action === "confirm" && !v.can_confirm) return true;
  let judged;
  S.tutor = null;
  setBusy(true);
  try {
    const q = new URLSearchParams({ level: R.level, numbering: numberingFor(v.game), action });
    judged = await api("GET", `/api/games/${S.id}/tutor?${q}`);
  } catch (e) {
    return true;   // the tutor could not judge it (busy...): the action goes ahead as without the tutor
  } finally { setBusy(false); }
  S.tutor = judged;
  S.updates++;
  if (!judged.warn) return true;
  const words = (x) => (judged.kind === "cube" ? t("rv_cube_" + x.replace(/[ /,]+/g, "_")) : x);
  const text = t(judged.kind === "cube" ? "tutor_warn_cube" : "tutor_warn", {
    loss: num(judged.loss), mark: t("rv_mark_" + judged.mark), best: words(judged.best_text), played: words(judged.played_text),
  });
  const ok = await tutorAsk(text);
  S.updates++;
  return ok;
}

// the home screen: "Analyse a record" next to the import of a .mat
function reviewHome() {
  const row = rq("#home .import-row");
  if (!row || rq("#analyse-upload")) return;
  const lab = rEl("label", { class: "button secondary", id: "analyse-label" }, null);
  rEl("span", { id: "analyse-label-text", "data-i18n": "rv_upload" }, lab, t("rv_upload"));
  const inp = rEl("input", { id: "analyse-upload", type: "file", accept: ".mat,.sgf,.txt,.xg,text/plain", hidden: "" }, lab);
  inp.onchange = analyseUpload;
  row.insertBefore(lab, rq("#home-message"));
}

function reviewLanguage() {
  const l = rq("#analyse-label-text");
  if (l) l.textContent = t("rv_upload");
  const sel = rq("#rv-level");
  if (sel) sel.querySelectorAll("option").forEach((o) => { o.textContent = t("rv_level_" + o.value); });
  document.querySelectorAll("#rv-nav button, #rv-image").forEach((b) => {
    if (b.dataset.i18n) b.textContent = t(b.dataset.i18n);
    b.title = t(b.dataset.title);
  });
  const lv = rq(".rv-level span");
  if (lv) lv.textContent = t("rv_level");
  const sec = rq("#review");
  if (sec && !sec.hidden) drawReview();
}

document.addEventListener("DOMContentLoaded", () => {
  reviewHome();
  const lang = rq("#lang");
  // after app.js's own handler has set the language
  if (lang) lang.addEventListener("change", () => setTimeout(reviewLanguage, 0));
});
