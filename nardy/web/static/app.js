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
  diceKey: null,       // the dice shown (a new roll tumbles in)
  rolls: 0,            // counts the rolls shown tumbling (tests read it)
  sounds: 0,           // counts the sounds played
};
window.nardy = S;      // for tests and curious people

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);

// ----- HTTP ---------------------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    if (typeof body === "string") { opts.headers["Content-Type"] = "text/plain"; opts.body = body; }
    else if (body instanceof ArrayBuffer) { opts.headers["Content-Type"] = "application/octet-stream"; opts.body = body; }
    else { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  }
  // the server words refusals in the page's language (the shared message catalogue)
  opts.headers["Accept-Language"] = LANG;
  // a request that changes something carries the session's CSRF token (the nardy_csrf cookie)
  if (method !== "GET" && method !== "HEAD") {
    const m = document.cookie.match(/(?:^|;\s*)nardy_csrf=([^;]+)/);
    if (m) opts.headers["X-CSRF-Token"] = decodeURIComponent(m[1]);
  }
  let r;
  try { r = await fetch(path, opts); } catch (e) { throw new Error(msg("server_unreachable")); }
  if (r.status === 204) return null;
  const ct = r.headers.get("content-type") || "";
  const data = ct.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    // the server words its refusals in the page's language (Accept-Language); anything else by its kind
    const text = (data && data.message) ? data.message : msg(r.status === 404 ? "not_found" : "http_error");
    const err = new Error(text);
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
  const n = localStorage.getItem("nardy.rules.numbering." + game);
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
  hideLobby();   // lobby.js
  $("#refused").hidden = true;
  if (tournamentRoute() || profileRoute()) return;   // tournaments.js: #/tournament(s)/…; profile.js: #/player/{name}
  if (location.hash.startsWith("#/lobby")) return showLobby();
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
    try { await api("DELETE", "/api/games/" + g.id); showHome(); } catch (e) { deleteRefused(li, g, e); }
  };
  const btns = document.createElement("div");
  btns.className = "card-buttons";
  btns.append(open, del);
  const rv = reviewCardButton(g);   // review.js: "Analyse" on a finished game
  if (rv) btns.append(rv);
  li.append(title, meta, btns);
  return li;
}

// A refused delete is shown on the card itself (not on the hidden game screen), with what can be done instead:
// a game against another person under way is ended by resigning on its own page.
function deleteRefused(li, g, e) {
  let box = li.querySelector(".card-refusal");
  if (!box) { box = document.createElement("div"); box.className = "card-refusal"; li.appendChild(box); }
  box.textContent = "";
  const msg = document.createElement("span");
  msg.className = "error-text";
  msg.textContent = e.code === "game_in_progress" ? t("b43_delete_in_progress") : String(e.message || e);
  box.appendChild(msg);
  if (e.code === "game_in_progress") {
    const go = document.createElement("button");
    go.type = "button";
    go.className = "open-to-end";
    go.textContent = t("b43_open_to_end");
    go.onclick = () => { location.hash = "#/game/" + g.id; };
    box.append(" ", go);
  }
  S.updates++;
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
  } catch (e) {
    if (S.id === id && !S.view && e.status >= 400 && e.status < 500) showRefused(e); else showError(e);
  }
}

// A game the person may not see (private, or none): only the refusal and the way back, no board or buttons.
function showRefused(e) {
  leaveGame();
  S.id = null;
  $("#play").hidden = true;
  $("#refused").hidden = false;
  document.body.dataset.screen = "refused";
  $("#refused-text").textContent = String(e.message || e);
  S.updates++;
}

// Show v (a view of the game S.id); an answer older than the state shown is dropped (the live channel may
// have brought a newer one first). opts.animate: show the opponent's move that led here.
function setView(v, opts) {
  const prev = S.view;
  if (prev && prev.id === v.id && v.seq < prev.seq) { S.updates++; return; }
  // the opponent's move is shown from the state before (the board is drawn by the animation meanwhile)
  // (a state with the same board, such as the confirmation of the steps being shown, lets the showing finish)
  const plan = opts && opts.animate && pref("animate") !== "off"
    ? (v.online ? planAnimation(prev, v) : planLocal(prev, v, opts.step)) : null;
  const sameDrawing = prev && prev.id === v.id && prev.viewer === v.viewer && sameBoard(prev.board, v.board);
  if (!plan && !sameDrawing) stopAnimation();
  if (window.nardySeats) window.nardySeats.carry(prev, v);  // seats.js: the latest of the seats' presence
  S.view = v;
  S.updates++;
  S.selected = null;
  render();
  onlineView(prev, v, plan);
  renderClocks();
  if (window.nardyAlerts) window.nardyAlerts.view(prev, v);  // alerts.js: the turn's title, icon, sound
}

// A game at this device: the step just taken (step: [from, to]) or the computer's play that followed, slid
// from prev's board; null when the boards do not differ by exactly that.
function planLocal(prev, v, stepTaken) {
  if (!prev || prev.id !== v.id || prev.viewer !== v.viewer || prev.game_number !== v.game_number) return null;
  if (document.visibilityState === "hidden" || sameBoard(prev.board, v.board)) return null;
  const hitting = v.game !== "long";
  const fits = (steps, side) => {
    const b = copyBoard(prev.board);
    for (const [a, c] of steps) if (!applyStep(b, a, c, side, hitting)) return false;
    return sameBoard(b, v.board);
  };
  const mover = prev.turn;
  if (stepTaken && mover !== null) {
    const side = mover === v.viewer ? 0 : 1;
    if (fits([stepTaken], side)) return { steps: [stepTaken], side, hitting };
  }
  const lp = v.last_play;
  if (lp && lp.steps.length) {
    const side = lp.player === v.viewer ? 0 : 1;
    if (fits(lp.steps, side)) {
      const view = Object.assign({}, prev, { dice: lp.dice, dice_left: [], turn: lp.player, cube: v.cube });
      return { steps: lp.steps, side, hitting, view };
    }
  }
  return null;
}

// ----- sound: short sounds made here (Web Audio), no files ------------------------------------------------
let AUDIO = null;
function sound(kind) {
  if (pref("sound") === "off") return;
  S.sounds++;
  try {
    AUDIO = AUDIO || new (window.AudioContext || window.webkitAudioContext)();
    const now = AUDIO.currentTime;
    const knock = (at, freq, len, vol) => {
      const o = AUDIO.createOscillator(), g = AUDIO.createGain();
      o.type = "triangle"; o.frequency.setValueAtTime(freq, now + at);
      g.gain.setValueAtTime(vol, now + at); g.gain.exponentialRampToValueAtTime(0.001, now + at + len);
      o.connect(g).connect(AUDIO.destination); o.start(now + at); o.stop(now + at + len + 0.02);
    };
    if (kind === "dice") [0, 0.07, 0.15, 0.21].forEach((at, i) => knock(at, 900 + 170 * i, 0.05, 0.12));
    else knock(0, 380, 0.08, 0.2);
  } catch (e) { /* no audio here */ }
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
    const body = { action, ...(extra || {}), seq: before ? before.seq : 0 };
    const path = `/api/games/${S.id}/actions?${gameQuery()}`;
    const post = () => api("POST", path, body);
    // an online game's action goes on its open live channel (online.js), else (or if that fails) by POST
    const v = await (liveAction(body, post) || post());
    S.message = null;
    noteOutcome(before, v, action);
    setView(v, { animate: true, step: extra && action === "step" ? [extra.from, extra.to] : null });
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

// Resigning: first say what it loses ("You lose 4 points (gammon, cube 2)"), then offer it.
function askResign() {
  const v = S.view;
  if (!v || S.busy) return;
  const level = Number($("#resign-level").value);
  const n = v.resign_points[level] ?? v.rules.scoring[level] * v.cube.value;
  const args = { n, level: resultName(v.result_names[level]), cube: v.cube.value };
  $("#resign-text").textContent = t(v.cube.value > 1 ? "resign_lose_cube" : "resign_lose", args);
  const dlg = $("#resign-dialog");
  dlg.dataset.level = level;
  if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
}

// After a match: another one with the same settings (the same game, length, rules, opponent and level).
async function newMatch() {
  const v = S.view;
  if (!v || S.busy) return;
  const st = v.settings || {};
  const options = { cube: v.rules.cube, opening: v.rules.opening };
  if (v.game === "long") { options["last-roll"] = v.rules["last-roll"]; options["head-exception"] = v.rules["head-exception"]; }
  else options["strict-bear-off"] = v.rules["strict-bear-off"];
  const body = {
    game: v.game, length: v.length, options, opponent: st.opponent === "human" ? "human" : "bot", level: v.level,
    colour: v.viewer === 0 ? "white" : "black", auto_roll: st.auto_roll !== false, crawford: st.crawford !== false,
  };
  if (v.length === 0) { body.jacoby = !!st.jacoby; body.beavers = !!st.beavers; }
  if (st.cube_limit) body.cube_limit = st.cube_limit;
  if (params.get("seed") !== null) body.seed = Number(params.get("seed")) + 1;
  setBusy(true);
  try {
    const nv = await api("POST", `/api/games?numbering=${numberingFor(v.game)}`, body);
    leaveGame();
    S.id = null; S.view = null; S.viewer = null; S.hints = null; S.message = null;
    location.hash = "#/game/" + nv.id;
  } catch (e) { showError(e); }
  finally { setBusy(false); }
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
  if (S.busy || !S.view) return;
  // a click while a move is being shown: show where the game is now, and take the click
  if (S.animating) { stopAnimation(); S.animated++; renderBoardOnly(); }
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
  // a checker of the person to act that cannot move: say why (head rule, six-block, bar, closed points...)
  const why = (S.view.blocked || {})[loc];
  const v = S.view, n = Number(loc);
  const theirs = v.human_to_act && v.phase === "move" && n >= 1 && n <= 24
    && v.board.points[n] * (v.turn === v.viewer ? 1 : -1) < 0;
  if (why && why.length) {
    S.message = { kind: "note", text: blockedText(why) };
    renderStatus();
  } else if (theirs) {
    S.message = { kind: "note", text: t("not_your_checker") };
    renderStatus();
  } else if (S.message && S.message.kind === "note") {
    S.message = null;
    renderStatus();
  }
  renderBoardOnly();
}

// The refusals of a checker that cannot move, worded by the catalogue (bar/off in the page's language).
function blockedText(why) {
  const word = (x) => (x === "bar" || x === "off" ? msg(x) : x);
  const parts = why.map((r) => {
    const args = {};
    for (const [k, x] of Object.entries(r.params || {})) args[k] = word(x);
    return msg(r.code, args);
  });
  const text = [...new Set(parts)].join("; ");
  return t("cannot_move", { why: text });
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

// nardy's own words explained on the page ("oyn (single win)"): a b43_res_ key, else the common name.
function resultName(name) { const k = "b43_res_" + name, s = t(k); return s === k ? t("res_" + name) : s; }

// A player's name as the page shows it: the server's default names in the page's language ("Player" ->
// "Игрок", "White" -> "Белые", the computer "nardy-expert" -> "nardy").
function name(v, p) {
  if (p === null || p === undefined) return "";
  const n = v.players[p];
  if (n === "Player") return S.me && S.me.name && !v.online ? S.me.name : t("player");
  if (n === "White" || n === "Black") return t("colour_" + (n === "White" ? 0 : 1));
  if (!v.humans[p] && /^nardy-[a-z]+$/.test(n)) return "nardy";
  return n;
}

// "you": the one person at this device, or the one side this player sits at online
function isYou(v, p) {
  return v.online ? v.you.length === 1 && v.you[0] === p : v.humans.filter(Boolean).length === 1 && v.humans[p];
}

function pointsText(n) { return t("points", { n }); }

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
  const v = S.view;
  renderBoard($("#board"), v, { selected: S.selected });
  // new dice: they tumble onto the board (a CSS animation) with their sound
  const key = v.dice ? `${v.id}:${v.game_number}:${v.history.length}:${v.turn}:${v.dice}` : "";
  if (key && key !== S.diceKey && S.diceKey !== null && pref("animate") !== "off") {
    document.querySelectorAll("#board .die").forEach((d) => d.classList.add("rolling"));
    S.rolls++;
    sound("dice");
  }
  if (S.diceKey !== key) S.diceKey = key;
}

function statusText(v) {
  const you = (p) => isYou(v, p);
  if (v.online) {
    if (v.status === "cancelled") return t("st_cancelled");
    if (v.status === "declined") return t("st_declined_invite");
    if (v.status === "aborted") return t("st_aborted");
    if (v.status === "waiting") return t(v.online.waiting ? "st_waiting" : "st_seeding");
    const end = v.online.ended;
    if (end && end.reason === "time") {
      // the loser is told so ("You lost on time"), with the score the match ended at
      const args = { loser: name(v, end.loser), winner: name(v, end.winner), s0: fmt(v.score[0]), s1: fmt(v.score[1]) };
      return t(you(end.loser) ? "b43_st_time_you" : "b43_st_time", args);
    }
  }
  if (v.match_over) {
    return t(you(v.match_winner) ? "st_match_you" : "st_match", { name: name(v, v.match_winner), s0: fmt(v.score[0]), s1: fmt(v.score[1]) });
  }
  if (v.phase === "over" && v.result) {
    const r = v.result;
    if (r.winner === null) return t("st_draw", { points: pointsText(r.points) });
    return t(you(r.winner) ? "st_win_you" : "st_win", { name: name(v, r.winner), points: pointsText(r.points), level: r.reason === "drop" ? t("reason_drop") : resultName(r.level_name) });
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
    const cubeNote = lastCubeNote(v);
    const lp = v.last_play;
    if (cubeNote) {
      const last = document.createElement("div");
      last.id = "status-cube";
      last.textContent = cubeNote;
      box.appendChild(last);
    }
    if (lp && !(v.human_to_act && lp.player === v.to_act && v.phase === "move")) {
      const last = document.createElement("div");
      last.id = "status-last";
      last.textContent = `${name(v, lp.player)}: ${diceText(lp.dice)} ${lp.text || t("no_play")}`;
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

// The other side's answer to a double, while it is the latest news (the game goes on after a take).
function lastCubeNote(v) {
  const e = v.history[v.history.length - 1];
  if (!e || isYou(v, e.player)) return "";
  if (e.kind === "take") return t("st_taken", { name: name(v, e.player), value: e.value });
  if (e.kind === "beaver") return t("st_beavered", { name: name(v, e.player), value: e.value });
  return "";
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
      o.value = i; o.textContent = cap(resultName(n));
      sel.appendChild(o);
    });
    sel.dataset.game = v.game; sel.dataset.lang = LANG;
  }
  $("#btn-resign").disabled = S.busy;
  $("#btn-new-match").hidden = !(v.match_over && !v.online);
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
    nm.textContent = name(v, p) + (v.humans[p] ? "" : ` (${t("level_" + v.level)})`)
      + (v.online && v.you.length === 1 && v.you[0] === p ? ` ${t("you_mark")}` : "");
    const s = document.createElement("span");
    s.className = "pscore";
    s.textContent = fmt(v.score[p]);
    const pip = document.createElement("span");
    pip.className = "ppips";
    const pipCount = p === v.viewer ? v.pips[0] : v.pips[1];
    pip.textContent = t("pips", { n: pipCount });
    if (v.online && typeof nardyNameLink === "function" && v.seats[p] && v.seats[p].taken) {
      nm.textContent = nm.textContent.slice(name(v, p).length);   // the name links to the player's page (profile.js)
      nm.prepend(nardyNameLink(name(v, p)));
    }
    if (v.online && (v.online.bots || []).includes(p) && typeof nardyBotMark === "function") nm.append(" ", nardyBotMark());
    const rt = v.online && v.online.ratings ? v.online.ratings[p] : null;
    if (rt != null) nm.append(" ", Object.assign(document.createElement("span"), { className: "prating", textContent: `(${rt})` }));
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
  if (v.cube.enabled && !v.crawford) parts.push(`${t("cube")} ${v.cube.value}`);
  // the Crawford rule exists only with a cube, and only in a match longer than 1 point (docs/online.md)
  if (v.crawford && v.cube.enabled && v.length > 1) parts.push(t("crawford"));
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
        const pr = document.createElement("div");
        pr.className = "probs";
        pr.textContent = probsText(p.probabilities);
        li.append(b, eq, pr);
        ol.appendChild(li);
      }
      hb.appendChild(ol);
    } else {
      const p = document.createElement("p");
      p.className = "cube-hint";
      const key = (k) => "cube_" + k.replace(/[ /]/g, "_");
      const eqs = Object.entries(h.equities).map(([k, x]) => `${t(key(k))}: ${x >= 0 ? "+" : ""}${x.toFixed(3)}`).join(", ");
      p.textContent = `${t("hint_cube", { action: t(key(h.action)) })} (${eqs})`;
      const pr = document.createElement("div");
      pr.className = "probs";
      pr.textContent = probsText(h.probabilities);
      hb.append(p, pr);
    }
  }

  // history
  const hl = $("#history");
  hl.textContent = "";
  for (const e of v.history) {
    const li = document.createElement("li");
    li.className = "ev ev-" + e.kind;
    const who = e.player !== undefined && e.player !== null ? name(v, e.player) : "";
    let text = "";
    switch (e.kind) {
      case "opening": text = e.dice ? t("ev_opening", { name: who, dice: diceText(e.dice) }) : t("ev_opening_nodice", { name: who }); break;
      case "play": text = `${who}: ` + t("ev_play", { dice: diceText(e.dice), play: e.text }); break;
      case "pass": text = `${who}: ` + t("ev_pass", { dice: diceText(e.dice) }); break;
      case "end":
        text = e.winner === null ? t("ev_end_draw", { points: pointsText(e.points) })
          : `${name(v, e.winner)}: ` + t("ev_end", { points: pointsText(e.points), level: e.reason === "drop" ? t("reason_drop") : resultName(e.level_name) });
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

// Cubeless chances of a hint: "win 54.1% (gammon 12.0%) · lose 45.9% (gammon 9.6%)".
function probsText(pr) {
  if (!pr) return "";
  const pct = (x) => `${(100 * x).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
  const levels = (side) => Object.keys(pr).filter((k) => k.startsWith(side + "_"))
    .map((k) => `${resultName(k.slice(side.length + 1).replace(/_/g, " "))} ${pct(pr[k])}`).join(", ");
  const part = (side) => { const l = levels(side); return `${t("p_" + side)} ${pct(pr[side])}` + (l ? ` (${l})` : ""); };
  return `${part("win")} · ${part("lose")}`;
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
  fillSelect($("#ng-level"), S.info.levels, (x) => cap(t("level_" + x)), pref("level") || "grandmaster");
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
  if (body.opponent === "bot") setPref("level", body.level);
  setPref("game", game);
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
    // an eXtreme Gammon .xg file is binary: sent as its bytes (the server tells it by its first bytes)
    const body = /\.xg$/i.test(f.name) ? await f.arrayBuffer() : await f.text();
    const r = await api("POST", "/api/mat?save=true", body);
    location.hash = "#/game/" + r.id;
  } catch (e) {
    S.message = { kind: "error", text: e.message };
    const box = $("#home-message");
    box.textContent = e.message;
  }
}

// ----- start --------------------------------------------------------------------------------------------
async function init() {
  try { await loadCatalogue(); } catch (e) { document.body.textContent = String(e); return; }
  setLanguage(LANG);
  if (typeof wordLobby === "function") wordLobby();  // lobby.js built its part before the catalogue came
  $("#lang").value = LANG;
  $("#lang").onchange = (e) => {
    setLanguage(e.target.value);
    renderMe();
    if (S.view) { render(); renderClocks(); syncLive(); } else if (S.join) route(); else if (!$("#home").hidden) showHome();
  };
  try { S.info = await api("GET", "/api/info"); } catch (e) { showError(e); return; }
  initOnline();
  fillSelect($("#ng-game"), ["backgammon", "short", "long"], (x) => t("game_" + x), pref("game") || "backgammon");
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
  $("#btn-resign").onclick = askResign;
  $("#resign-cancel").onclick = () => $("#resign-dialog").close();
  $("#resign-ok").onclick = () => { const dlg = $("#resign-dialog"); dlg.close(); act("resign", { level: Number(dlg.dataset.level) }); };
  $("#btn-new-match").onclick = newMatch;
  $("#btn-flip").onclick = async () => {
    if (!S.view) return;
    S.viewer = 1 - S.view.viewer;
    try { setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`)); } catch (e) { showError(e); }
  };
  $("#numbering").onchange = async (e) => {
    localStorage.setItem("nardy.rules.numbering." + S.view.game, e.target.value);
    try { setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`)); } catch (err) { showError(err); }
  };
  for (const name of ["animate", "sound"]) {
    const box = $("#pref-" + name);
    box.checked = pref(name) !== "off";
    box.onchange = () => setPref(name, box.checked ? "on" : "off");
  }
  const svg = $("#board");
  svg.addEventListener("pointerdown", boardPointerDown);
  window.addEventListener("pointermove", boardPointerMove);
  window.addEventListener("pointerup", boardPointerUp);
  window.addEventListener("hashchange", route);
  // a phone turned (or a window resized): the board drawn again for the new width (board.js's geometry)
  let resizing = false;
  window.addEventListener("resize", () => {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(() => { resizing = false; renderBoardOnly(); });
  });
  await loadMe();   // who plays here, before the first screen (the invitation page asks a newcomer's name)
  route();
  document.body.dataset.ready = "yes";   // the buttons answer from now on (tests wait for it)
}

document.addEventListener("DOMContentLoaded", init);
