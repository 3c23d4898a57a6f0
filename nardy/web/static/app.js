// The page: saved games, the new-game dialog, the board and the controls. The rules live on the server:
// the page draws what it is sent and sends actions back.
"use strict";

const S = {
  info: null,          // /api/info
  view: null,          // the current game's view
  id: null,            // its id
  selected: null,      // selected source location (string) for a step
  drag: null,          // {loc, x, y, ghost, moved}
  busy: false,
  updates: 0,          // counts answers from the server (tests wait on it)
  viewer: null,        // null = the server's default side at the bottom
  hints: null,
  message: null,       // transient note (errors, declines)
  me: null,            // who plays here: {id, name, guest} (GET /api/me), or null
  join: null,          // the invitation being answered: {gid, token}
  animating: false,    // an opponent's move is being shown (the board ignores clicks meanwhile)
  animated: 0,         // counts the moves shown so (tests read it)
  drops: 0,            // counts live channels lost (and then opened again by themselves)
};
window.nardy = S;      // for tests and curious people

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);

// ----- HTTP ---------------------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    if (typeof body === "string") { opts.headers["Content-Type"] = "text/plain"; opts.body = body; }
    else { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  }
  // the server words refusals in the page's language (the shared message catalogue)
  opts.headers["Accept-Language"] = LANG;
  // a request that changes something carries the session's CSRF token (the nardy_csrf cookie)
  if (method !== "GET" && method !== "HEAD") {
    const m = document.cookie.match(/(?:^|;\s*)nardy_csrf=([^;]+)/);
    if (m) opts.headers["X-CSRF-Token"] = decodeURIComponent(m[1]);
  }
  const r = await fetch(path, opts);
  if (r.status === 204) return null;
  const ct = r.headers.get("content-type") || "";
  const data = ct.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const msg = (data && (data.message || data.detail)) ? (data.message || data.detail) : `HTTP ${r.status}`;
    const err = new Error(msg);
    err.status = r.status;
    err.code = data && data.code;
    throw err;
  }
  return data;
}

function setBusy(b) {
  S.busy = b;
  document.body.classList.toggle("busy", b);
  document.querySelectorAll("#controls button").forEach((x) => { x.disabled = b; });
}

function showError(e) {
  S.message = { kind: "error", text: String(e.message || e) };
  renderStatus();
}

function numberingFor(game) {
  const n = localStorage.getItem("nardy.numbering." + game);
  return n || (game === "long" ? "absolute" : "own");
}

function gameQuery() {
  const q = new URLSearchParams();
  if (S.view) q.set("numbering", numberingFor(S.view.game));
  if (S.viewer !== null) q.set("viewer", S.viewer);
  return q.toString();
}

// ----- routing ------------------------------------------------------------------------------------------
function route() {
  // an invitation link: /join/{id}#{token} (the token stays in the fragment, never sent to a server)
  const j = location.pathname.match(/^\/join\/([0-9a-zA-Z]+)\/?$/);
  if (j) return showJoin(j[1], decodeURIComponent(location.hash.slice(1)));
  if (reviewRoute()) return;   // review.js: #/review/{id}
  const m = location.hash.match(/^#\/game\/([0-9a-zA-Z]+)/);
  if (m) return openGame(m[1]);
  return showHome();
}

function leaveGame() {
  closeLive();
  stopAnimation();
  clearInterval(ONLINE.clockTimer);
  ONLINE.clockTimer = null;
}

async function showHome() {
  leaveGame();
  S.id = null; S.view = null; S.hints = null; S.message = null; S.join = null;
  $("#home").hidden = false;
  $("#play").hidden = true;
  $("#join").hidden = true;
  $("#home-message").textContent = "";
  document.body.dataset.screen = "home";
  const list = $("#games");
  list.textContent = "";
  try {
    const data = await api("GET", "/api/games?limit=100");
    if (!data.games.length) {
      const p = document.createElement("p");
      p.className = "empty";
      p.textContent = t("no_games");
      list.appendChild(p);
    }
    for (const g of data.games) list.appendChild(gameCard(g));
  } catch (e) { showError(e); }
  S.updates++;
}

function gameCard(g) {
  const li = document.createElement("li");
  li.className = "game-card";
  li.dataset.id = g.id;
  const title = document.createElement("div");
  title.className = "card-title";
  title.textContent = `${t("game_" + g.game)}: ${g.players[0]} ${t("vs")} ${g.players[1]}`;
  const meta = document.createElement("div");
  meta.className = "card-meta";
  const len = g.length ? t("match_to", { n: g.length }) : t("money");
  meta.textContent = `${t("score")} ${fmt(g.score[0])}-${fmt(g.score[1])} · ${len} · ${t("status_" + g.status)} · ${new Date(g.updated).toLocaleString(LANG)}`;
  const open = document.createElement("button");
  open.textContent = t("resume");
  open.className = "open-game";
  open.onclick = () => { location.hash = "#/game/" + g.id; };
  const del = document.createElement("button");
  del.textContent = t("delete");
  del.className = "secondary";
  del.onclick = async () => {
    if (!confirm(t("delete_confirm"))) return;
    try { await api("DELETE", "/api/games/" + g.id); showHome(); } catch (e) { showError(e); }
  };
  const btns = document.createElement("div");
  btns.className = "card-buttons";
  btns.append(open, del);
  const rv = reviewCardButton(g);   // review.js: "Analyse" on a finished game
  if (rv) btns.append(rv);
  li.append(title, meta, btns);
  return li;
}

async function openGame(id) {
  $("#home").hidden = true;
  $("#join").hidden = true;
  $("#play").hidden = false;
  document.body.dataset.screen = "play";
  if (S.id !== id) { leaveGame(); S.viewer = null; S.hints = null; S.message = null; S.selected = null; S.view = null; }
  S.id = id;
  try {
    let v = await api("GET", `/api/games/${id}`);
    // ask again in the numbering chosen for this game kind (S.view is set only once it is drawn)
    const want = numberingFor(v.game);
    if (v.numbering !== want && v.numberings.includes(want)) {
      const q = new URLSearchParams({ numbering: want });
      if (S.viewer !== null) q.set("viewer", S.viewer);
      v = await api("GET", `/api/games/${id}?${q}`);
    }
    if (S.id !== id) return;   // another game was opened meanwhile
    setView(v);
  } catch (e) { showError(e); }
}

// Show v (a view of the game S.id); an answer older than the state shown is dropped (the live channel may
// have brought a newer one first). opts.animate: show the opponent's move that led here.
function setView(v, opts) {
  const prev = S.view;
  if (prev && prev.id === v.id && v.seq < prev.seq) { S.updates++; return; }
  // the opponent's move is shown from the state before (the board is drawn by the animation meanwhile)
  // (a state with the same board, such as the confirmation of the steps being shown, lets the showing finish)
  const plan = opts && opts.animate ? planAnimation(prev, v) : null;
  const sameDrawing = prev && prev.id === v.id && prev.viewer === v.viewer && sameBoard(prev.board, v.board);
  if (!plan && !sameDrawing) stopAnimation();
  S.view = v;
  S.updates++;
  S.selected = null;
  render();
  onlineView(prev, v, plan);
  renderClocks();
}

// ----- actions ------------------------------------------------------------------------------------------
async function act(action, extra) {
  if (S.busy || !S.id) return;
  if (!(await tutorGate(action))) return;   // review.js: the tutor may warn before a confirmation
  const before = S.view;
  setBusy(true);
  S.message = null;
  if (action !== "hint") S.hints = null;
  if (action === "confirm" || action === "roll" || action === "take" || action === "decline" || action === "next") {
    const other = S.view && S.view.humans.includes(false);
    if (other) { S.message = { kind: "wait", text: t("st_wait", { name: S.view.players[S.view.humans.indexOf(false)] }) }; renderStatus(); }
  }
  try {
    // seq names the state this action was chosen on: a repeated click or a retry is refused (409)
    const v = await api("POST", `/api/games/${S.id}/actions?${gameQuery()}`,
                        { action, ...(extra || {}), seq: before ? before.seq : 0 });
    S.message = null;
    noteOutcome(before, v, action);
    setView(v);
  } catch (e) {
    S.selected = null;
    if (e.status === 409) {
      // the game moved on (another tab, a late retry): show where it is now
      try { setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`)); } catch (e2) { showError(e2); }
    } else {
      showError(e);
    }
    render();
  } finally {
    S.updates++;
    setBusy(false);
    renderControls();
  }
}

function noteOutcome(before, v, action) {
  if (action === "resign" && v.history.length && v.history[v.history.length - 1].kind === "decline") {
    S.message = { kind: "note", text: t("st_declined") };
  }
}

async function hint() {
  if (S.busy || !S.id) return;
  setBusy(true);
  try {
    S.hints = await api("GET", `/api/games/${S.id}/hints?n=5&${gameQuery()}`);
  } catch (e) { showError(e); }
  finally { S.updates++; setBusy(false); render(); }
}

function step(from, to) {
  S.selected = null;
  return act("step", { from: Number(from), to: Number(to) });
}

// ----- board interaction: click a checker, then a highlighted point; or drag --------------------------
function boardPointerDown(ev) {
  if (S.busy || !S.view || S.animating) return;
  const loc = ev.target.dataset ? ev.target.dataset.loc : undefined;
  if (loc === undefined) { S.selected = null; renderBoardOnly(); return; }
  const moves = S.view.moves || {};
  if (S.selected !== null && (moves[S.selected] || []).includes(Number(loc))) {
    ev.preventDefault();
    step(S.selected, loc);
    return;
  }
  if (moves[loc]) {
    ev.preventDefault();
    S.selected = loc;
    S.drag = { loc, x: ev.clientX, y: ev.clientY, moved: false, ghost: null };
    renderBoardOnly();
    return;
  }
  S.selected = null;
  renderBoardOnly();
}

function boardPointerMove(ev) {
  const d = S.drag;
  if (!d) return;
  if (!d.moved && Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < 8) return;
  d.moved = true;
  if (!d.ghost) {
    d.ghost = document.createElement("div");
    const v = S.view;
    const colour = v.turn === 0 ? "white" : "black";
    d.ghost.className = "ghost " + colour;
    document.body.appendChild(d.ghost);
  }
  d.ghost.style.left = ev.clientX + "px";
  d.ghost.style.top = ev.clientY + "px";
}

function boardPointerUp(ev) {
  const d = S.drag;
  S.drag = null;
  if (!d) return;
  if (d.ghost) d.ghost.remove();
  if (!d.moved) return;   // a click: the selection stays, destinations are highlighted
  const loc = locationAt(ev.clientX, ev.clientY);
  const dests = (S.view.moves || {})[d.loc] || [];
  if (loc !== null && dests.includes(Number(loc))) step(d.loc, loc);
  else { S.selected = null; renderBoardOnly(); }
}

// ----- rendering ----------------------------------------------------------------------------------------
function fmt(x) { return Number.isInteger(x) ? String(x) : String(x).replace(".5", "½").replace(/^0½$/, "½"); }

function diceText(d) { return d ? `${d[0]}-${d[1]}` : ""; }

function resultName(name) { return t("res_" + name); }

function name(v, p) {
  if (p === null || p === undefined) return "";
  const n = v.players[p];
  return n;
}

function render() {
  if (!S.view) return;
  renderBoardOnly();
  renderStatus();
  renderControls();
  renderSide();
  renderOnline();
  reviewControls(S.view);   // review.js: "Analyse", the tutor's switch
}

function renderBoardOnly() {
  if (!S.view || S.animating) return;
  renderBoard($("#board"), S.view, { selected: S.selected });
}

function statusText(v) {
  // "you": the one person at this device, or the one side this player sits at online
  const you = (p) => (v.online ? v.you.length === 1 && v.you[0] === p : v.humans.filter(Boolean).length === 1 && v.humans[p]);
  if (v.online) {
    if (v.status === "cancelled") return t("st_cancelled");
    if (v.status === "declined") return t("st_declined_invite");
    if (v.status === "waiting") return t("st_waiting");
    const end = v.online.ended;
    if (end && end.reason === "time") return t("st_time", { loser: name(v, end.loser), winner: name(v, end.winner) });
  }
  if (v.match_over) {
    return t("st_match", { name: name(v, v.match_winner), s0: fmt(v.score[0]), s1: fmt(v.score[1]) });
  }
  if (v.phase === "over" && v.result) {
    const r = v.result;
    if (r.winner === null) return t("st_draw", { points: fmt(r.points) });
    return t("st_win", { name: name(v, r.winner), points: fmt(r.points), level: r.reason === "drop" ? t("reason_drop") : resultName(r.level_name) });
  }
  const p = v.to_act;
  if (v.phase === "roll") return you(p) ? t("st_roll_you") : t("st_roll", { name: name(v, p) });
  if (v.phase === "move") {
    if (v.can_confirm) return t("st_confirm");
    return you(p) ? t("st_move_you", { dice: diceText(v.dice) }) : t("st_move", { name: name(v, p), dice: diceText(v.dice) });
  }
  if (v.phase === "double") return t("st_double", { name: name(v, 1 - p), value: v.cube.value * 2 });
  if (v.phase === "resign") return t("st_resign", { name: name(v, v.resignation.player), level: resultName(v.resignation.level_name) });
  return "";
}

function renderStatus() {
  const box = $("#status");
  if (!box) return;
  const v = S.view;
  box.textContent = "";
  box.className = "";
  if (v) {
    const main = document.createElement("div");
    main.id = "status-main";
    main.textContent = statusText(v);
    if (v.phase === "over" || v.match_over) main.className = "result";
    box.appendChild(main);
    const lp = v.last_play;
    if (lp && !(v.human_to_act && lp.player === v.to_act && v.phase === "move")) {
      const last = document.createElement("div");
      last.id = "status-last";
      last.textContent = `${name(v, lp.player)}: ${diceText(lp.dice)} ${lp.text || "—"}`;
      box.appendChild(last);
    }
  }
  if (S.message) {
    const m = document.createElement("div");
    m.id = "message";
    m.className = S.message.kind;
    m.textContent = S.message.text;
    box.appendChild(m);
  }
}

const BUTTONS = ["roll", "double", "take", "drop", "beaver", "accept", "decline", "undo", "confirm", "hint", "next"];

function renderControls() {
  const v = S.view;
  const box = $("#controls");
  if (!v || !box) return;
  for (const a of BUTTONS) {
    const b = $("#btn-" + a);
    b.hidden = !v.actions.includes(a);
    b.disabled = S.busy;
  }
  const canResign = v.actions.includes("resign");
  $("#resign-box").hidden = !canResign;
  const sel = $("#resign-level");
  if (sel.dataset.game !== v.game || sel.dataset.lang !== LANG) {
    sel.textContent = "";
    v.result_names.forEach((n, i) => {
      const o = document.createElement("option");
      o.value = i; o.textContent = resultName(n);
      sel.appendChild(o);
    });
    sel.dataset.game = v.game; sel.dataset.lang = LANG;
  }
  $("#btn-resign").disabled = S.busy;
  $("#btn-flip").disabled = S.busy;
}

function renderSide() {
  const v = S.view;
  // players, score, pips
  const sc = $("#scoreboard");
  sc.textContent = "";
  const order = [1 - v.viewer, v.viewer];   // the top side first, like the board
  for (const p of order) {
    const row = document.createElement("div");
    row.className = "player-row" + (v.to_act === p ? " to-act" : "");
    row.dataset.player = p;
    const sw = document.createElement("span");
    sw.className = "swatch " + (p === 0 ? "white" : "black");
    const nm = document.createElement("span");
    nm.className = "pname";
    nm.textContent = v.players[p] + (v.humans[p] ? "" : ` (${t("level_" + v.level)})`)
      + (v.online && v.you.length === 1 && v.you[0] === p ? ` ${t("you_mark")}` : "");
    const s = document.createElement("span");
    s.className = "pscore";
    s.textContent = fmt(v.score[p]);
    const pip = document.createElement("span");
    pip.className = "ppips";
    const pipCount = p === v.viewer ? v.pips[0] : v.pips[1];
    pip.textContent = `${pipCount} ${t("pips")}`;
    row.append(sw, nm, s, pip);
    if (v.clock) {
      const ck = document.createElement("span");
      ck.className = "pclock";
      ck.dataset.player = p;
      row.appendChild(ck);
    }
    sc.appendChild(row);
  }
  const meta = document.createElement("div");
  meta.className = "match-meta";
  const parts = [t("game_" + v.game), v.length ? t("match_to", { n: v.length }) : t("money")];
  if (v.cube.enabled) parts.push(`${t("cube")} ${v.cube.value}`);
  if (v.crawford) parts.push(t("crawford"));
  meta.textContent = parts.join(" · ");
  sc.appendChild(meta);

  // numbering
  const ns = $("#numbering");
  ns.textContent = "";
  for (const n of v.numberings) {
    const o = document.createElement("option");
    o.value = n; o.textContent = t("num_" + n);
    if (n === v.numbering) o.selected = true;
    ns.appendChild(o);
  }

  // hints
  const hb = $("#hints");
  hb.textContent = "";
  hb.hidden = !S.hints;
  if (S.hints) {
    const h = S.hints;
    const title = document.createElement("h3");
    title.textContent = t("hints");
    hb.appendChild(title);
    if (h.kind === "plays") {
      const ol = document.createElement("ol");
      for (const p of h.plays) {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.className = "hint-play link";
        b.textContent = p.text || "—";
        b.onclick = () => act("play", { play: p.play });
        const eq = document.createElement("span");
        eq.className = "eq";
        eq.textContent = ` ${p.equity >= 0 ? "+" : ""}${p.equity.toFixed(3)}` + (p.loss > 0 ? ` (−${p.loss.toFixed(3)})` : "");
        li.append(b, eq);
        ol.appendChild(li);
      }
      hb.appendChild(ol);
    } else {
      const p = document.createElement("p");
      const eqs = Object.entries(h.equities).map(([k, x]) => `${k}: ${x.toFixed(3)}`).join(", ");
      p.textContent = `${t("hint_cube", { action: h.action })} (${eqs})`;
      hb.appendChild(p);
    }
  }

  // history
  const hl = $("#history");
  hl.textContent = "";
  for (const e of v.history) {
    const li = document.createElement("li");
    li.className = "ev ev-" + e.kind;
    const who = e.player !== undefined && e.player !== null ? v.players[e.player] : "";
    let text = "";
    switch (e.kind) {
      case "opening": text = t("ev_opening", { name: who, dice: diceText(e.dice) }); break;
      case "play": text = `${who}: ` + t("ev_play", { dice: diceText(e.dice), play: e.text }); break;
      case "pass": text = `${who}: ` + t("ev_pass", { dice: diceText(e.dice) }); break;
      case "end":
        text = e.winner === null ? t("ev_end_draw", { points: fmt(e.points) })
          : `${v.players[e.winner]}: ` + t("ev_end", { points: fmt(e.points), level: e.reason === "drop" ? t("reason_drop") : resultName(e.level_name) });
        break;
      case "resign": text = `${who}: ` + t("ev_resign", { level: resultName(e.level_name) }); break;
      case "setup": text = t("ev_setup"); break;
      default: text = `${who}: ` + t("ev_" + e.kind, { value: e.value });
    }
    if (e.player !== undefined && e.player !== null) {
      const sw = document.createElement("span");
      sw.className = "swatch small " + (e.player === 0 ? "white" : "black");
      li.appendChild(sw);
    }
    li.appendChild(document.createTextNode(text));
    hl.appendChild(li);
  }
  hl.scrollTop = hl.scrollHeight;
  const dl = $("#download");
  dl.href = `/api/games/${S.id}/mat`;
  dl.setAttribute("download", `nardy-${S.id}.mat`);
}

// ----- new-game dialog ----------------------------------------------------------------------------------
function fillSelect(sel, values, label, current) {
  sel.textContent = "";
  for (const val of values) {
    const o = document.createElement("option");
    o.value = val; o.textContent = label(val);
    if (val === current) o.selected = true;
    sel.appendChild(o);
  }
}

function updateDialog() {
  const game = $("#ng-game").value;
  const info = S.info.games[game];
  const opts = info.options;
  $("#ng-cube").checked = !!opts.cube;
  fillSelect($("#ng-opening"), ["use-opening-dice", "reroll"], (x) => t("opening_" + x), opts.opening);
  fillSelect($("#ng-last-roll"), ["off", "half", "one"], (x) => t("last_roll_" + x), opts["last-roll"]);
  fillSelect($("#ng-head"), ["head-block", "always", "none"], (x) => t("head_" + x), opts["head-exception"]);
  $("#ng-strict").checked = !!opts["strict-bear-off"];
  document.querySelectorAll(".only-long").forEach((e) => { e.hidden = game !== "long"; });
  document.querySelectorAll(".only-hitting").forEach((e) => { e.hidden = game === "long"; });
  updateDialogMoney();
}

function updateDialogMoney() {
  const money = Number($("#ng-length").value || 0) === 0;
  document.querySelectorAll(".only-money").forEach((e) => { e.hidden = !money; });
  document.querySelectorAll(".only-match").forEach((e) => { e.hidden = money; });
  const opp = $("#ng-opponent").value;
  document.querySelectorAll(".only-bot").forEach((e) => { e.hidden = opp !== "bot"; });
  document.querySelectorAll(".only-online").forEach((e) => { e.hidden = opp !== "online"; });
  document.querySelectorAll(".not-online").forEach((e) => { e.hidden = opp === "online"; });
  document.querySelectorAll(".only-seat").forEach((e) => { e.hidden = opp === "human"; });
  document.querySelectorAll(".only-custom-clock").forEach((e) => { e.hidden = opp !== "online" || $("#ng-clock").value !== "custom"; });
}

function openDialog() {
  const dlg = $("#new-game");
  fillSelect($("#ng-level"), S.info.levels, (x) => t("level_" + x), localStorage.getItem("nardy.level") || "advanced");
  updateDialog();
  if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
}

async function startGame(ev) {
  ev.preventDefault();
  const game = $("#ng-game").value;
  const options = { cube: $("#ng-cube").checked, opening: $("#ng-opening").value };
  if (game === "long") {
    options["last-roll"] = $("#ng-last-roll").value;
    options["head-exception"] = $("#ng-head").value;
  } else {
    options["strict-bear-off"] = $("#ng-strict").checked;
  }
  const length = Number($("#ng-length").value || 0);
  const body = {
    game, length, options,
    opponent: $("#ng-opponent").value, level: $("#ng-level").value, colour: $("#ng-colour").value,
    auto_roll: $("#ng-auto-roll").checked, crawford: $("#ng-crawford").checked,
  };
  if (length === 0) { body.jacoby = $("#ng-jacoby").checked; body.beavers = $("#ng-beavers").checked; }
  if (params.get("seed") !== null && body.opponent !== "online") body.seed = Number(params.get("seed"));
  if (body.opponent === "bot") localStorage.setItem("nardy.level", body.level);
  $("#ng-error").textContent = "";
  try {
    const v = body.opponent === "online" ? await createOnline(body)
      : await api("POST", `/api/games?numbering=${numberingFor(game)}`, body);
    if (!S.me) loadMe();   // a first game makes a guest
    $("#new-game").close();
    // the game page reads and draws it (S.view is set once it is drawn)
    leaveGame();
    S.id = null; S.view = null; S.viewer = null; S.hints = null; S.message = null;
    location.hash = "#/game/" + v.id;
  } catch (e) {
    $("#ng-error").textContent = e.message;
  }
}

async function importMat(ev) {
  const f = ev.target.files[0];
  ev.target.value = "";
  if (!f) return;
  try {
    const text = await f.text();
    const r = await api("POST", "/api/mat?save=true", text);
    location.hash = "#/game/" + r.id;
  } catch (e) {
    S.message = { kind: "error", text: e.message };
    const box = $("#home-message");
    box.textContent = e.message;
  }
}

// ----- start --------------------------------------------------------------------------------------------
async function init() {
  setLanguage(LANG);
  $("#lang").value = LANG;
  $("#lang").onchange = (e) => {
    setLanguage(e.target.value);
    renderMe();
    if (S.view) { render(); renderClocks(); } else if (S.join) route(); else if (!$("#home").hidden) showHome();
  };
  try { S.info = await api("GET", "/api/info"); } catch (e) { showError(e); return; }
  initOnline();
  fillSelect($("#ng-game"), ["backgammon", "short", "long"], (x) => t("game_" + x), "backgammon");
  $("#ng-game").onchange = updateDialog;
  $("#ng-length").oninput = updateDialogMoney;
  $("#ng-opponent").onchange = updateDialogMoney;
  $("#new-game-form").onsubmit = startGame;
  $("#ng-cancel").onclick = () => $("#new-game").close();
  $("#btn-new").onclick = openDialog;
  $("#btn-home").onclick = () => { location.hash = "#/"; };
  $("#import").onchange = importMat;
  for (const a of BUTTONS) {
    $("#btn-" + a).onclick = () => (a === "hint" ? hint() : act(a));
  }
  $("#btn-resign").onclick = () => act("resign", { level: Number($("#resign-level").value) });
  $("#btn-flip").onclick = async () => {
    if (!S.view) return;
    S.viewer = 1 - S.view.viewer;
    try { setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`)); } catch (e) { showError(e); }
  };
  $("#numbering").onchange = async (e) => {
    localStorage.setItem("nardy.numbering." + S.view.game, e.target.value);
    try { setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`)); } catch (err) { showError(err); }
  };
  const svg = $("#board");
  svg.addEventListener("pointerdown", boardPointerDown);
  window.addEventListener("pointermove", boardPointerMove);
  window.addEventListener("pointerup", boardPointerUp);
  window.addEventListener("hashchange", route);
  await loadMe();   // who plays here, before the first screen (the invitation page asks a newcomer's name)
  route();
}

document.addEventListener("DOMContentLoaded", init);
