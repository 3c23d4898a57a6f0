// The position editor (/editor): set up any position of the three games, see what is impossible about it
// (POST /api/positions/check names each problem with a code), analyse it (/api/move or /api/eval for a
// hint, /api/cube, POST /api/rollout), start a game from it against the computer (POST /api/games with
// start) and export it (Position ID, XGID, a diagram link).
//
// The board is kept from White's side (White at the bottom, points in White's own numbering 1..24):
// W[p] and B[p] are White's and Black's checkers on point p (both may be there: the check names it), bar
// and off per colour. What a side has not placed is in its spare box below the board. Checkers are dragged
// with pointer events (mouse, pen, touch); a click adds or removes one as the chosen mode says.
"use strict";

const $e = (sel) => document.querySelector(sel);
const ED = {
  game: "backgammon",
  W: new Array(25).fill(0), B: new Array(25).fill(0),   // [1..24] by White's numbering
  bar: { white: 0, black: 0 }, off: { white: 0, black: 0 },
  last: null,            // the last check's answer
  checks: 0,             // checks answered (tests wait on it)
  seq: 0,                // the latest check asked for (answers to older ones are dropped)
};
window.editor = ED;

const SPARE_Y = 580, SPARE_H = 60;   // the spare boxes under the board (viewBox 790 x 650)

function hitting() { return ED.game !== "long"; }
// Black's own number of White's point p (and back: the map is its own inverse), RULES.md "Board, points, views"
function otherPoint(p) { return hitting() ? 25 - p : ((p + 11) % 24) + 1; }

function placed(colour) {
  const pts = colour === "white" ? ED.W : ED.B;
  return pts.reduce((a, b) => a + b, 0) + ED.bar[colour] + ED.off[colour];
}
function spare(colour) { return 15 - placed(colour); }

function clearBoard() {
  ED.W.fill(0); ED.B.fill(0);
  ED.bar = { white: 0, black: 0 }; ED.off = { white: 0, black: 0 };
}

function startPosition(game) {
  ED.game = game;
  clearBoard();
  if (game === "long") {
    ED.W[24] = 15; ED.B[otherPoint(24)] = 15;
  } else {
    for (const [p, n] of [[24, 2], [13, 5], [8, 3], [6, 5]]) { ED.W[p] = n; ED.B[otherPoint(p)] = n; }
  }
}

// ----- drawing --------------------------------------------------------------------------------------------
function blackOffTray() { return hitting() ? G.trayR : G.trayL; }

function draw() {
  const svg = $e("#ed-board");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  el("rect", { x: 0, y: 0, width: G.W, height: G.H, rx: 12, class: "frame" }, svg);
  el("rect", { x: G.fieldL, y: G.top, width: 6 * G.pointW, height: G.bottom - G.top, class: "field" }, svg);
  el("rect", { x: G.fieldR, y: G.top, width: 6 * G.pointW, height: G.bottom - G.top, class: "field" }, svg);
  el("rect", { x: G.bar, y: G.top, width: G.fieldR - G.bar, height: G.bottom - G.top, class: "bar" }, svg);
  el("rect", { x: G.trayL, y: G.top, width: G.trayW, height: G.bottom - G.top, class: "tray" }, svg);
  el("rect", { x: G.trayR, y: G.top, width: G.trayW, height: G.bottom - G.top, class: "tray" }, svg);
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), top = isTop(p);
    const baseY = top ? G.top : G.bottom, tipY = top ? G.top + G.pointH : G.bottom - G.pointH;
    el("polygon", { points: `${x + 1},${baseY} ${x + G.pointW - 1},${baseY} ${x + G.pointW / 2},${tipY}`,
      class: "point " + (p % 2 ? "dark" : "light") }, svg);
    const label = el("text", { x: x + G.pointW / 2, y: top ? G.top - 10 : G.bottom + 22, class: "label" }, svg);
    label.textContent = String(p);
    const w = ED.W[p], b = ED.B[p], n = w + b;
    for (let k = 0; k < n; k++) {
      const [cx, cy] = stackPos(p, k, n);
      el("circle", { cx, cy, r: G.r, class: "checker " + (k < w ? "white" : "black"), "data-point": p }, svg);
    }
    if (n > 5) {
      const [cx, cy] = stackPos(p, n - 1, n);
      el("text", { x: cx, y: cy + 5, class: "count " + (b ? "black" : "white") }, svg).textContent = n;
    }
  }
  const barX = (G.bar + G.fieldR) / 2;
  for (const colour of ["white", "black"]) {
    const n = ED.bar[colour];
    for (let k = 0; k < Math.min(n, 6); k++) {
      const cy = colour === "white" ? G.mid - 45 - k * 20 : G.mid + 45 + k * 20;
      el("circle", { cx: barX, cy, r: G.r, class: "checker " + colour }, svg);
    }
    if (n > 1) el("text", { x: barX, y: (colour === "white" ? G.mid - 45 : G.mid + 45) + 5, class: "count " + colour }, svg).textContent = n;
    const off = ED.off[colour];
    const x = colour === "white" ? G.trayR : blackOffTray();
    for (let k = 0; k < off; k++) {
      const y = colour === "white" ? G.bottom - 6 - (k + 1) * 11 : G.top + 6 + k * 11;
      el("rect", { x: x + 5, y, width: G.trayW - 10, height: 10, rx: 3, class: "off " + colour }, svg);
    }
    if (off) el("text", { x: x + G.trayW / 2, y: colour === "white" ? G.bottom - 6 - off * 11 - 8 : G.top + 6 + off * 11 + 16, class: "label" }, svg).textContent = off;
  }
  // the spare boxes: what each side has not placed (drag from them, drop on them to take a checker away)
  for (const [colour, x0] of [["white", G.fieldL], ["black", G.fieldR]]) {
    el("rect", { x: x0, y: SPARE_Y, width: 6 * G.pointW, height: SPARE_H, rx: 8, class: "tray ed-spare", "data-spare": colour }, svg);
    el("circle", { cx: x0 + 30, cy: SPARE_Y + SPARE_H / 2, r: G.r, class: "checker " + colour }, svg);
    const txt = el("text", { x: x0 + 60, y: SPARE_Y + SPARE_H / 2 + 6, class: "ed-spare-text", "text-anchor": "start" }, svg);
    txt.textContent = t("ed_spare", { n: spare(colour) });
    txt.setAttribute("id", "ed-spare-" + colour);
  }
  // dice and cube of the set-up
  const d1 = Number($e("#ed-die1").value), d2 = Number($e("#ed-die2").value);
  const onRoll = $e("#ed-turn").value;
  if (d1 && d2) {
    const cx0 = (onRoll === "white" ? G.fieldR : G.fieldL) + 3 * G.pointW - 47;
    drawDie(svg, cx0, G.mid - 21, 42, d1, onRoll, false, 0);
    drawDie(svg, cx0 + 52, G.mid - 21, 42, d2, onRoll, false, 1);
  }
  if (hitting()) {
    const owner = $e("#ed-owner").value, v = Number($e("#ed-cube").value);
    const y = owner === "white" ? G.bottom - 60 : owner === "black" ? G.top + 20 : G.mid - 20;
    drawCube(svg, G.trayL + 5, y, owner === "centre" && v === 1 ? 64 : v, false);
  }
}

// ----- where a pointer is ---------------------------------------------------------------------------------
function svgPoint(ev) {
  const svg = $e("#ed-board");
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

// {kind: "point", p} | {kind: "bar", colour} | {kind: "off", colour} | {kind: "spare", colour} | null
function locate(x, y) {
  if (y >= SPARE_Y - 5 && y <= SPARE_Y + SPARE_H + 5) {
    if (x >= G.fieldL && x < G.bar) return { kind: "spare", colour: "white" };
    if (x >= G.fieldR && x < G.trayR) return { kind: "spare", colour: "black" };
    return null;
  }
  if (y < G.top - 20 || y > G.bottom + 20) return null;
  const upper = y < G.mid;
  for (const [x0, right] of [[G.fieldL, false], [G.fieldR, true]]) {
    if (x >= x0 && x < x0 + 6 * G.pointW) {
      const col = Math.floor((x - x0) / G.pointW);
      const p = right ? (upper ? 19 + col : 6 - col) : (upper ? 13 + col : 12 - col);
      return { kind: "point", p };
    }
  }
  if (x >= G.bar && x < G.fieldR) return { kind: "bar", colour: upper ? "white" : "black" };
  if (x >= G.trayR && x < G.trayR + G.trayW) {
    if (!hitting()) return { kind: "off", colour: "white" };
    return { kind: "off", colour: upper ? "black" : "white" };
  }
  if (x >= G.trayL && x < G.trayL + G.trayW && !hitting()) return { kind: "off", colour: "black" };
  return null;
}

// the colour a pick-up at loc takes (the top checker), or null when nothing is there
function topColour(loc) {
  if (!loc) return null;
  if (loc.kind === "point") return ED.B[loc.p] ? "black" : ED.W[loc.p] ? "white" : null;
  if (loc.kind === "bar") return ED.bar[loc.colour] ? loc.colour : null;
  if (loc.kind === "off") return ED.off[loc.colour] ? loc.colour : null;
  if (loc.kind === "spare") return spare(loc.colour) > 0 ? loc.colour : null;
  return null;
}

function take(loc, colour) {
  if (loc.kind === "point") { const a = colour === "white" ? ED.W : ED.B; if (a[loc.p]) a[loc.p]--; }
  else if (loc.kind === "bar") ED.bar[colour] = Math.max(0, ED.bar[colour] - 1);
  else if (loc.kind === "off") ED.off[colour] = Math.max(0, ED.off[colour] - 1);
}

function put(loc, colour) {
  if (!loc || loc.kind === "spare") return;   // back to the spare box
  if (loc.kind === "point") (colour === "white" ? ED.W : ED.B)[loc.p]++;
  else if (loc.kind === "bar") ED.bar[colour]++;   // the colour's own bar half, whichever half it was dropped on
  else if (loc.kind === "off") ED.off[colour]++;
}

let drag = null;   // {from, colour, x0, y0, moved, ghost, id}

function onDown(ev) {
  if (ev.button !== undefined && ev.button !== 0) return;
  const { x, y } = svgPoint(ev);
  const loc = locate(x, y);
  drag = { from: loc, colour: topColour(loc), x0: x, y0: y, moved: false, ghost: null, id: ev.pointerId };
  $e("#ed-board").setPointerCapture(ev.pointerId);
  ev.preventDefault();
}

function onMove(ev) {
  if (!drag || ev.pointerId !== drag.id) return;
  const { x, y } = svgPoint(ev);
  if (!drag.moved && Math.hypot(x - drag.x0, y - drag.y0) > 8 && drag.colour) {
    drag.moved = true;
    take(drag.from, drag.colour);
    draw();
    drag.ghost = el("circle", { cx: x, cy: y, r: G.r, class: "checker moving " + drag.colour }, $e("#ed-board"));
  }
  if (drag.ghost) { drag.ghost.setAttribute("cx", x); drag.ghost.setAttribute("cy", y); }
}

function onUp(ev) {
  if (!drag || ev.pointerId !== drag.id) return;
  const d = drag;
  drag = null;
  const { x, y } = svgPoint(ev);
  const loc = locate(x, y);
  if (d.moved) {
    put(loc, d.colour);
  } else if (loc) {
    click(loc);
  }
  changed();
}

// the click fallback: add a checker of the chosen colour, or take the top one away
function click(loc) {
  const mode = document.querySelector("input[name=ed-mode]:checked").value;
  if (mode === "remove") {
    const c = topColour(loc);
    if (c && loc.kind !== "spare") take(loc, c);
    return;
  }
  if (loc.kind === "spare") return;
  const colour = loc.kind === "point" ? mode : loc.colour;
  if (loc.kind !== "point" && colour !== mode) return;   // a colour's own bar half and tray only
  put(loc, colour);
}

// ----- the set-up as the API takes it --------------------------------------------------------------------
function ownBoard(colour) {
  const b = new Array(26).fill(0);
  for (let p = 1; p <= 24; p++) {
    if (colour === "white") b[p] = ED.W[p]; else b[otherPoint(p)] = ED.B[p];
  }
  b[0] = ED.off[colour]; b[25] = ED.bar[colour];
  return b;
}

function setup() {
  const onRoll = $e("#ed-turn").value, other = onRoll === "white" ? "black" : "white";
  const d1 = Number($e("#ed-die1").value), d2 = Number($e("#ed-die2").value);
  const owner = $e("#ed-owner").value;
  const score = { white: Number($e("#ed-score-white").value) || 0, black: Number($e("#ed-score-black").value) || 0 };
  return {
    game: ED.game,
    mover: ownBoard(onRoll), opponent: ownBoard(other),
    dice: d1 && d2 ? [d1, d2] : null,
    cube: hitting() ? Number($e("#ed-cube").value) : 1,
    owner: !hitting() || owner === "centre" ? "centre" : owner === onRoll ? "mover" : "opponent",
    score: [score[onRoll], score[other]],
    length: Number($e("#ed-length").value) || 0,
    crawford: $e("#ed-crawford").checked,
  };
}

async function api(method, url, body) {
  const init = { method, headers: { "Accept-Language": LANG } };
  if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  // a request that changes something carries the log-in session's CSRF token (the nardy_csrf cookie)
  const m = document.cookie.match(/(?:^|;\s*)nardy_csrf=([^;]+)/);
  if (m && method !== "GET") init.headers["X-CSRF-Token"] = decodeURIComponent(m[1]);
  const r = await fetch(url, init);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.message || data.detail || `HTTP ${r.status}`);
  return data;
}

let timer = null;
function changed() {
  draw();
  clearTimeout(timer);
  timer = setTimeout(check, 120);
}

async function check() {
  const seq = ++ED.seq;
  let out;
  try {
    out = await api("POST", "/api/positions/check", setup());
  } catch (e) {
    if (seq !== ED.seq) return;
    showErrors([{ code: "", detail: String(e.message || e), params: {} }]);
    ED.last = null;
    ED.checks++;
    return;
  }
  if (seq !== ED.seq) return;
  ED.last = out;
  showErrors(out.errors);
  $e("#ed-pips").textContent = t("ed_pips", { mover: out.pips[0], opponent: out.pips[1] });
  $e("#ed-pid").value = out.position || "";
  $e("#ed-xgid").value = out.xgid || "";
  $e("#ed-xgid-row").hidden = !hitting();
  const a = $e("#ed-diagram");
  if (out.ok) {
    // the board diagram of the set-up (GET /api/diagram.svg: the mover's view; long nardy has no cube drawn)
    const q = new URLSearchParams({ game: ED.game, position: out.position, cube: String(hitting() ? out.cube : 0),
      owner: out.owner, length: String(out.length) });
    if (out.dice) q.set("dice", out.dice.join("-"));
    if (out.length) q.set("score", out.score.join("-"));
    if (out.crawford) q.set("crawford", "true");
    if (LANG !== "en") q.set("lang", LANG);
    a.href = "/api/diagram.svg?" + q.toString();
    $e("#ed-diagram-img").src = a.href;
    a.hidden = false;
    $e("#ed-diagram-img").hidden = false;
  } else {
    a.hidden = true;
    $e("#ed-diagram-img").hidden = true;
  }
  for (const id of ["#ed-hint", "#ed-cubeq", "#ed-rollout", "#ed-play"]) $e(id).disabled = !out.ok;
  $e("#ed-cubeq").disabled = !out.ok || !hitting();
  ED.checks++;
}

function showErrors(errors) {
  const ul = $e("#ed-errors");
  ul.textContent = "";
  for (const e of errors) {
    const li = document.createElement("li");
    li.dataset.code = e.code;
    // worded in the page's language from the code; the English detail where the catalogue has none
    const worded = e.code && CAT && CAT.messages[e.code] ? msg(e.code, e.params || {}) : e.detail;
    li.textContent = worded;
    li.title = e.detail;
    ul.appendChild(li);
  }
  $e("#ed-ok").hidden = errors.length > 0;
}

// ----- analysis -------------------------------------------------------------------------------------------
function answer(lines, cls) {
  const box = $e("#ed-answer");
  box.textContent = "";
  box.className = "ed-answer" + (cls ? " " + cls : "");
  for (const line of lines) {
    const p = document.createElement("p");
    p.textContent = line;
    box.appendChild(p);
  }
}

const fmt = (x) => (x >= 0 ? "+" : "") + Number(x).toFixed(3);
const pct = (x) => (100 * x).toFixed(1) + "%";

async function busy(btn, fn) {
  btn.disabled = true;
  answer([t("ed_thinking")]);
  try { await fn(); } catch (e) { answer([String(e.message || e)], "error-text"); }
  finally { btn.disabled = !(ED.last && ED.last.ok); }
}

async function hint() {
  const out = ED.last;
  const q = new URLSearchParams({ game: ED.game, position: out.position });
  if (out.dice) {
    q.set("die1", out.dice[0]); q.set("die2", out.dice[1]); q.set("n", "5");
    const r = await api("GET", "/api/move?" + q.toString());
    answer(r.moves.map((m, i) => `${i + 1}. ${m.play || t("ed_no_play")}  ${fmt(m.equity)}` + (i ? `  (${fmt(-m.loss)})` : "")), "ed-moves");
  } else {
    const r = await api("GET", "/api/eval?" + q.toString());
    answer([t("ed_eval", { equity: fmt(r.equity), win: pct(r.probabilities.win) })]);
  }
}

async function cubeAction() {
  const out = ED.last;
  const q = new URLSearchParams({ game: ED.game, position: out.position, cube: out.cube,
    owner: { centre: "centre", mover: "me", opponent: "opponent" }[out.owner], length: out.length,
    score_me: out.score[0], score_opponent: out.score[1], crawford: out.crawford });
  const r = await api("GET", "/api/cube?" + q.toString());
  answer([`${r.action}, ${r.response}`, ...Object.entries(r.equities).map(([k, v]) => `${k}: ${fmt(v)}`)]);
}

async function rollout() {
  const out = ED.last;
  const r = await api("POST", "/api/rollout", { game: ED.game, position: out.position, trials: 324 });
  answer([t("ed_rollout_result", { equity: fmt(r.equity), ci: r.ci.toFixed(3), trials: r.trials, win: pct(r.probabilities.win) })]);
}

async function playBot() {
  const out = ED.last;
  const body = {
    game: ED.game, length: out.length, opponent: "bot", colour: $e("#ed-colour").value,
    start: { position: out.position, turn: $e("#ed-turn").value, dice: out.dice, cube: out.cube, owner: out.owner,
      score: out.score, crawford: out.crawford },
  };
  if (ED.game === "short" && (out.cube !== 1 || out.owner !== "centre")) body.options = { cube: true };
  const level = pref("level");
  if (level) body.level = level;
  const r = await api("POST", "/api/games", body);
  location.href = "/#/game/" + r.id;
}

// a pasted Position ID, XGID or XG's text export: read by POST /api/positions/import, its board by the
// check, then shown on the board with its dice, cube and score
async function load() {
  const text = $e("#ed-paste").value.trim();
  if (!text) return;
  let out, game;
  try {
    const imp = await api("POST", "/api/positions/import", { text, game: $e("#ed-game").value });
    game = imp.game;
    out = await api("POST", "/api/positions/check", { game, position: imp.position, dice: imp.dice,
      cube: imp.cube, owner: imp.owner, score: imp.score || [0, 0], length: imp.length, crawford: imp.crawford });
  } catch (e) {
    showErrors([{ code: "", detail: String(e.message || e), params: {} }]);
    return;
  }
  ED.game = game;
  const onRoll = $e("#ed-turn").value, other = onRoll === "white" ? "black" : "white";
  clearBoard();
  for (const [colour, b] of [[onRoll, out.mover], [other, out.opponent]]) {
    for (let q = 1; q <= 24; q++) {
      if (colour === "white") ED.W[q] = b[q]; else ED.B[otherPoint(q)] = b[q];
    }
    ED.bar[colour] = b[25]; ED.off[colour] = b[0];
  }
  $e("#ed-die1").value = out.dice ? String(out.dice[0]) : "";
  $e("#ed-die2").value = out.dice ? String(out.dice[1]) : "";
  $e("#ed-cube").value = String(out.cube);
  $e("#ed-owner").value = out.owner === "centre" ? "centre" : out.owner === "mover" ? onRoll : other;
  $e("#ed-score-" + onRoll).value = out.score[0];
  $e("#ed-score-" + other).value = out.score[1];
  $e("#ed-length").value = out.length;
  $e("#ed-crawford").checked = out.crawford;
  syncGame();
  changed();
}

function syncGame() {
  $e("#ed-game").value = ED.game;
  $e("#ed-cube-row").hidden = !hitting();
}

async function initEditor() {
  await loadCatalogue();
  setLanguage(LANG);
  $e("#lang").value = LANG;
  $e("#lang").onchange = (e) => { setLanguage(e.target.value); changed(); };
  const svg = $e("#ed-board");
  svg.addEventListener("pointerdown", onDown);
  svg.addEventListener("pointermove", onMove);
  svg.addEventListener("pointerup", onUp);
  svg.addEventListener("pointercancel", () => { drag = null; changed(); });
  document.querySelectorAll("[data-start]").forEach((b) => {
    b.onclick = () => { startPosition(b.dataset.start); syncGame(); changed(); };
  });
  $e("#ed-clear").onclick = () => { clearBoard(); changed(); };
  $e("#ed-game").onchange = () => { startPosition($e("#ed-game").value); syncGame(); changed(); };
  for (const id of ["#ed-turn", "#ed-die1", "#ed-die2", "#ed-cube", "#ed-owner", "#ed-score-white",
    "#ed-score-black", "#ed-length", "#ed-crawford"]) $e(id).addEventListener("input", changed);
  $e("#ed-hint").onclick = () => busy($e("#ed-hint"), hint);
  $e("#ed-cubeq").onclick = () => busy($e("#ed-cubeq"), cubeAction);
  $e("#ed-rollout").onclick = () => busy($e("#ed-rollout"), rollout);
  $e("#ed-play").onclick = () => busy($e("#ed-play"), playBot);
  $e("#ed-load").onclick = load;
  $e("#ed-paste").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) load(); });
  const game = new URLSearchParams(location.search).get("game");
  startPosition(["backgammon", "short", "long"].includes(game) ? game : "backgammon");
  syncGame();
  changed();
}

document.addEventListener("DOMContentLoaded", initEditor);
