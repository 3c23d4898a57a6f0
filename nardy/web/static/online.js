// Playing people elsewhere: who you are (guest, account), invitations, the joining page, the live
// channel (WS /api/games/{id}/live), the clocks, the rematch and the fair-dice panel with its check in
// the browser (SubtleCrypto, the scheme of docs/fairness.md). app.js calls in here; both share S, api, $.
"use strict";

const ONLINE = {
  ws: null,            // the open WebSocket (or the one connecting)
  key: null,           // the game and query it is for; null: no live channel wanted
  retry: 0,            // reconnections since the last good one (the backoff)
  timer: null,         // the pending reconnection
  ping: null,          // the keep-alive interval
  live: null,          // true: connected, false: reconnecting, null: not an online game
  clockAt: 0,          // performance.now() when the shown clock was received
  clock: null,         // the shown view's clock
  clockTimer: null,
  fair: null,          // the last public record of the dice (GET /fairness) for fairGame
  fairGame: null,
  fairState: null,     // the view status it was read at
  fairResult: null,    // {ok, text} of the last check
  seeding: null,       // the game whose dice seed is being sent (sendSeed)
  seedTried: null,     // "game:seq" of the last try
  anim: null,          // the running animation
  actionId: 0,         // the last id given to an action sent on the channel
  pending: new Map(),  // id -> the action sent on the channel and not yet answered (see liveAction)
  actionWait: 10000,   // ms an action sent on the channel waits for its answer before it goes by POST
};

// ----- small helpers -----------------------------------------------------------------------------------
function randomSeed() {
  // the player's seed for the provably fair dice: 16 random bytes as 32 hex characters
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

function bytesToHex(buf) { return Array.from(new Uint8Array(buf), (x) => x.toString(16).padStart(2, "0")).join(""); }

function remember(kind, gid, value) {
  try { localStorage.setItem(`nardy.${kind}.${gid}`, value); } catch (e) { /* private mode: not kept */ }
}

function recall(kind, gid) {
  try { return localStorage.getItem(`nardy.${kind}.${gid}`); } catch (e) { return null; }
}

function showModal(dlg) { if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", ""); }

// ----- who you are ---------------------------------------------------------------------------------------
async function loadMe() {
  try {
    const r = await api("GET", "/api/me");
    S.me = r.user || null;
  } catch (e) {
    S.me = null;
  }
  renderMe();
}

function renderMe() {
  const u = S.me;
  $("#me-name").textContent = !u ? t("sign_in") : (u.guest ? t("me_guest", { name: u.name }) : u.name);
  document.body.classList.toggle("anon", !u);
  if (typeof profileMe === "function") profileMe();   // profile.js: the header's link to one's own page
}

function renderAccount() {
  const u = S.me;
  $("#acc-who").textContent = !u ? t("acc_none") : (u.guest ? t("acc_guest", { name: u.name }) : t("acc_account", { name: u.name }));
  const account = !!(u && !u.guest);
  $("#acc-guest").hidden = !!u;
  $("#acc-name-row").hidden = account;
  $("#acc-password-row").hidden = account;
  $("#acc-pw-buttons").hidden = account;
  $("#acc-login").hidden = account;
  $("#acc-logout").hidden = !u;
  if (u && u.guest && !$("#acc-name").value) $("#acc-name").value = u.name;
}

function openAccount() {
  $("#acc-error").textContent = "";
  renderAccount();
  showModal($("#account"));
}

async function authCall(kind) {
  const name = $("#acc-name").value.trim();
  const password = $("#acc-password").value;
  const err = $("#acc-error");
  err.textContent = "";
  if (!name) { err.textContent = t("name_needed"); return; }
  if (kind !== "guest" && !password) { err.textContent = t("password_needed"); return; }
  try {
    const r = await api("POST", `/api/auth/${kind}`, kind === "guest" ? { name } : { name, password });
    S.me = r.user;
    $("#acc-password").value = "";
    renderMe();
    $("#account").close();
    afterLogin();
  } catch (e) {
    err.textContent = e.message;
  }
}

async function logout() {
  try { await api("POST", "/api/auth/logout"); } catch (e) { $("#acc-error").textContent = e.message; return; }
  S.me = null;
  renderMe();
  $("#account").close();
  afterLogin();
}

// The player changed: show the current screen again as the new player.
function afterLogin() {
  closeLive();
  ONLINE.fair = null; ONLINE.fairGame = null;
  route();
}

// A name given on the page (new online game, joining) makes a guest when nobody is signed in.
async function ensurePlayer(input) {
  if (S.me) return;
  const name = input.value.trim();
  if (!name) throw new Error(t("name_needed"));
  const r = await api("POST", "/api/auth/guest", { name });
  S.me = r.user;
  renderMe();
}

// ----- the invitation link: /join/{id}#{token} ---------------------------------------------------------
async function showJoin(gid, token) {
  closeLive();
  S.id = null; S.view = null;
  S.join = { gid, token };
  $("#home").hidden = true;
  $("#play").hidden = true;
  $("#join").hidden = false;
  document.body.dataset.screen = "join";
  $("#join-error").textContent = "";
  $("#btn-join").disabled = !token;
  $("#btn-join-decline").disabled = !token;
  if (S.me && !$("#join-name").value) $("#join-name").value = S.me.name;
  const desc = $("#join-desc");
  desc.textContent = token ? t("join_desc_private") : t("join_no_token");
  const watch = $("#join-watch");
  watch.hidden = true;
  $("#btn-join").hidden = false; $("#btn-join-decline").hidden = false;
  // a player who already sits at the game sees it at once; a used invitation of a game open to watchers
  // offers to watch it (its seat is taken: there is nothing to join)
  try {
    const v = await api("GET", `/api/games/${gid}`);
    if (!S.join || S.join.gid !== gid) return;   // left meanwhile
    if (v.you && v.you.length) { openJoined(gid); return; }
    if (v.online && !v.online.waiting && v.status !== "waiting") {
      desc.textContent = t("b43_invite_used_watch");
      $("#btn-join").hidden = true; $("#btn-join-decline").hidden = true;
      watch.href = "/#/game/" + gid;
      watch.hidden = false;
    } else if (token) desc.textContent = joinDescription(v);
  } catch (e) { /* private: joining shows it */ }
  S.updates++;
}

function joinDescription(v) {
  const owner = v.seats.find((s) => s.taken);
  const clock = v.clock ? t("join_clock", { initial: fmtClock(v.clock.initial) }) : "";
  return t("join_desc", {
    name: owner ? owner.name : "?", game: t("game_" + v.game), length: v.length ? t("match_to", { n: v.length }) : t("money"), clock,
  });
}

function openJoined(gid) {
  S.join = null;
  history.replaceState(null, "", "/#/game/" + gid);
  route();
}

async function joinGame() {
  const j = S.join;
  if (!j) return;
  $("#join-error").textContent = "";
  $("#btn-join").disabled = true;
  try {
    await ensurePlayer($("#join-name"));
    try {
      // the seed follows on the game's page, once the game has shown its commitment (sendSeed)
      await api("POST", `/api/games/${j.gid}/join`, { invite: j.token, own_seed: true });
    } catch (e) {
      if (e.code !== "own_game") throw e;
    }
    openJoined(j.gid);
  } catch (e) {
    $("#join-error").textContent = e.message;
    S.updates++;
  } finally {
    $("#btn-join").disabled = false;
  }
}

async function declineGame() {
  const j = S.join;
  if (!j) return;
  try {
    await api("POST", `/api/games/${j.gid}/decline`, { invite: j.token });
    S.join = null;
    history.replaceState(null, "", "/");
    await route();
    $("#home-message").textContent = t("join_declined");
  } catch (e) {
    $("#join-error").textContent = e.message;
  }
  S.updates++;
}

// ----- new online game (from the new-game dialog) ------------------------------------------------------
function clockChoice() {
  const c = $("#ng-clock").value;
  if (c === "none") return null;
  if (c.startsWith("days")) return { days: Number(c.slice(4)) };   // correspondence: days a move
  if (c !== "custom") return c;
  return {
    initial: Number($("#ng-clock-initial").value || 0),
    increment: Number($("#ng-clock-increment").value || 0),
    delay: Number($("#ng-clock-delay").value || 0),
  };
}

async function createOnline(body) {
  await ensurePlayer($("#ng-name"));
  const g = { ...body, own_seed: true, watchers: $("#ng-watchers").checked };
  const clock = clockChoice();
  if (clock !== null) g.clock = clock;
  delete g.level; delete g.auto_roll;
  const v = await api("POST", `/api/games?numbering=${numberingFor(body.game)}`, g);
  if (v.invite_url) remember("invite", v.id, v.invite_url);
  return v;
}

// ----- the live channel --------------------------------------------------------------------------------
// The channel's query: the view's (side, numbering) and the page's language (the answers' refusals are worded
// in it, as api()'s are by Accept-Language).
function liveQuery() {
  const q = new URLSearchParams(gameQuery());
  q.set("lang", LANG);
  return q.toString();
}

function liveUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/api/games/${S.id}/live?${liveQuery()}`;
}

// Keep a live channel open for the shown game when it is an online one (a new query: a new channel).
function syncLive() {
  const v = S.view;
  const want = v && v.online && S.id && v.id === S.id ? `${S.id}?${liveQuery()}` : null;
  if (want === ONLINE.key) return;
  closeLive();
  if (want === null) return;
  ONLINE.key = want;
  ONLINE.retry = 0;
  connect();
}

function connect() {
  const key = ONLINE.key;
  if (key === null) return;
  let ws;
  try { ws = new WebSocket(liveUrl()); } catch (e) { scheduleReconnect(); return; }
  ONLINE.ws = ws;
  ws.onopen = () => {
    if (ONLINE.ws !== ws) return;
    ONLINE.retry = 0;
    setLive(true);
    clearInterval(ONLINE.ping);
    ONLINE.ping = setInterval(() => { if (ws.readyState === 1) ws.send("ping"); }, 25000);
  };
  ws.onmessage = (ev) => {
    if (ONLINE.ws !== ws || ev.data === "pong") return;
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (m && m.type === "view" && m.view && m.view.id === S.id) receiveView(m.view);
    else if (m && m.type === "answer") receiveAnswer(m);
    else if (m && m.type === "chat" && window.nardyChat) window.nardyChat.receive(S.id, m.message);  // chat.js
    else if (m && m.type === "presence" && window.nardySeats) window.nardySeats.receive(m);  // seats.js
  };
  ws.onclose = (ev) => {
    postPending(ws);
    if (ONLINE.ws !== ws) return;
    ONLINE.ws = null;
    clearInterval(ONLINE.ping);
    // refused for good (no such game, not yours to see): no retry; else try again, waiting longer each time
    if (ev.code === 4403 || ev.code === 4404 || ev.code === 1008) { setLive(null); return; }
    S.drops++;
    setLive(false);
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  if (ONLINE.key === null || ONLINE.timer) return;
  const delay = Math.min(30000, 1000 * 2 ** ONLINE.retry) * (0.75 + Math.random() * 0.5);
  ONLINE.retry = Math.min(ONLINE.retry + 1, 10);
  ONLINE.timer = setTimeout(() => { ONLINE.timer = null; connect(); }, delay);
}

function closeLive() {
  ONLINE.key = null;
  clearTimeout(ONLINE.timer);
  ONLINE.timer = null;
  clearInterval(ONLINE.ping);
  const ws = ONLINE.ws;
  ONLINE.ws = null;
  if (ws) { postPending(ws); try { ws.close(1000); } catch (e) { /* closing anyway */ } }
  setLive(null);
}

function setLive(state) {
  ONLINE.live = state;
  renderOnline();
}

// A back-to-the-tab reconnects at once (the backoff may have grown while the computer slept).
function onVisible() {
  if (document.visibilityState === "visible" && ONLINE.key !== null && !ONLINE.ws) {
    clearTimeout(ONLINE.timer);
    ONLINE.timer = null;
    ONLINE.retry = 0;
    connect();
  }
}

function receiveView(v) {
  const prev = S.view;
  if (prev && prev.id === v.id && v.seq <= prev.seq) return;   // nothing newer
  setView(v, { animate: true });
}

// ----- actions on the live channel -------------------------------------------------------------------------
// Send an action (body as POST /api/games/{id}/actions takes it) of the shown game on its open live channel
// (no HTTP request per move); null when the channel cannot take it (none, not open yet, opened for another
// view's query): the caller POSTs it. The promise settles as api()'s would: the view, or an Error with status
// and code. post() sends it by POST instead, once, if the channel closes or no answer comes in time
// (ONLINE.actionWait): with the same seq, so an action the server did apply is refused 409, never done twice.
function liveAction(body, post) {
  const ws = ONLINE.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN || ONLINE.key !== `${S.id}?${liveQuery()}`) return null;
  const id = ++ONLINE.actionId;
  return new Promise((resolve, reject) => {
    const p = { ws, post, resolve, reject, timer: setTimeout(() => postAction(id), ONLINE.actionWait) };
    ONLINE.pending.set(id, p);
    try { ws.send(JSON.stringify({ type: "action", id, body })); } catch (e) { postAction(id); }
  });
}

// The channel gave up on action id (closed, silent): it goes by POST, and its answer is the POST's.
function postAction(id) {
  const p = ONLINE.pending.get(id);
  if (!p) return;
  ONLINE.pending.delete(id);
  clearTimeout(p.timer);
  p.post().then(p.resolve, p.reject);
}

// Every action still waiting on channel ws, which is closing.
function postPending(ws) {
  for (const [id, p] of [...ONLINE.pending]) if (p.ws === ws) postAction(id);
}

function receiveAnswer(m) {
  const p = ONLINE.pending.get(m.id);
  if (!p) {
    // an answer that came after its action was sent by POST: its view may still be news
    if (m.status === 200 && m.view && m.view.id === S.id) receiveView(m.view);
    return;
  }
  ONLINE.pending.delete(m.id);
  clearTimeout(p.timer);
  if (m.status === 200 && m.view) p.resolve(m.view);
  else p.reject(answerError(m));
}

// The Error api() throws for the same refusal by HTTP: the server's words (in the page's language), else the
// catalogue's for its kind; with its status and code.
function answerError(m) {
  const data = m.error || {};
  const err = new Error(data.message || msg(m.status === 404 ? "not_found" : "http_error"));
  err.status = m.status;
  err.code = data.code;
  return err;
}

// ----- the opponent's moves, animated --------------------------------------------------------------------
// Which steps turn prev's board into v's: the end of v.last_play (the steps not yet seen), or else the moves
// the boards differ by (a player's steps pushed one by one, or several at once when they came quickly).
// null: nothing to show (our own move, another game, a new game, too much changed in between).
function planAnimation(prev, v) {
  if (!prev || !v.online || prev.id !== v.id || prev.viewer !== v.viewer || prev.game_number !== v.game_number) return null;
  if (document.visibilityState === "hidden" || sameBoard(prev.board, v.board)) return null;
  const mover = prev.turn;
  if (mover === null || mover === undefined || v.you.includes(mover)) return null;
  const side = mover === v.viewer ? 0 : 1;
  const hitting = v.game !== "long";
  const fits = (steps) => {
    const b = copyBoard(prev.board);
    for (const [a, c] of steps) if (!applyStep(b, a, c, side, hitting)) return false;
    return sameBoard(b, v.board);
  };
  if (v.last_play && v.last_play.player === mover) {
    const steps = v.last_play.steps;
    for (let k = 0; k < steps.length; k++) if (fits(steps.slice(k))) return { steps: steps.slice(k), side, hitting };
  }
  const moved = boardMoves(prev.board, v.board, side);
  return moved && moved.length <= 4 ? { steps: moved, side, hitting } : null;
}

// The mover's checkers that left a place and those that arrived somewhere, paired in order: [[from, to]...]
// (25 the mover's bar, 0 off); null when the counts do not pair up.
function boardMoves(a, b, side) {
  const sg = side === 0 ? 1 : -1;
  const count = (board, loc) => (loc === 25 ? board.bar[side] : loc === 0 ? board.off[side] : Math.max(0, board.points[loc] * sg));
  const from = [], to = [];
  for (let loc = 25; loc >= 0; loc--) {
    const d = count(b, loc) - count(a, loc);
    for (let i = 0; i < -d; i++) from.push(loc);
    for (let i = 0; i < d; i++) to.push(loc);
  }
  if (!from.length || from.length !== to.length) return null;
  if (side === 1) to.reverse();   // the other side runs the other way round in the viewer's numbering
  return from.map((f, i) => [f, to[i]]);
}

// Show plan's steps from prev's board; while a move is still being shown, they follow it (a fast player's
// steps are each shown, not cut short), unless so many wait that showing them would lag behind the game.
function startAnimation(prev, plan) {
  if (ONLINE.anim && S.animating) {
    if (ONLINE.anim.pending() + plan.steps.length <= 8) { ONLINE.anim.add(plan.steps, plan.side, plan.hitting, prev); return; }
    stopAnimation();
    renderBoardOnly();
    return;
  }
  S.animating = true;
  ONLINE.anim = animatePlay($("#board"), prev, plan.steps, plan.side, plan.hitting, 180, () => {
    ONLINE.anim = null;
    S.animating = false;
    S.animated++;
    renderBoardOnly();
  });
}

function stopAnimation() {
  if (ONLINE.anim) { ONLINE.anim.cancel(); ONLINE.anim = null; }
  S.animating = false;
}

// ----- after each new view: clocks, panels, the channel --------------------------------------------------
function onlineView(prev, v, plan) {
  ONLINE.clock = v.clock || null;
  ONLINE.clockAt = performance.now();
  clearInterval(ONLINE.clockTimer);
  ONLINE.clockTimer = null;
  if (v.clock && v.clock.running !== null && v.clock.running !== undefined) {
    ONLINE.clockTimer = setInterval(renderClocks, 200);
  }
  if (ONLINE.fairGame !== v.id) { ONLINE.fair = null; ONLINE.fairResult = null; ONLINE.fairGame = v.id; ONLINE.fairState = null; }
  if (plan) startAnimation(plan.view || prev, plan);
  syncLive();
  // the seeds change when the seat is taken, the server seed shows when the match is over (and the panel,
  // when opened, reads the rolls so far): no reading at every move
  if (v.online && ONLINE.fairState !== v.status + ":" + v.game_number) loadFair();
}

// Seconds left of side p now (the running side's time ticks down here between views; the server decides).
function clockLeft(p) {
  const c = ONLINE.clock;
  if (!c) return null;
  if (c.running !== p) return c.remaining[p];
  const elapsed = (performance.now() - ONLINE.clockAt) / 1000;
  return Math.max(0, c.remaining[p] - Math.max(0, elapsed - c.delay_left));
}

function delayLeft() {
  const c = ONLINE.clock;
  if (!c || c.running === null) return 0;
  return Math.max(0, c.delay_left - (performance.now() - ONLINE.clockAt) / 1000);
}

function fmtClock(s) {
  if (s === null || s === undefined) return "";
  if (s < 10) return (Math.floor(Math.max(0, s) * 10) / 10).toFixed(1);
  const x = Math.ceil(s), h = Math.floor(x / 3600), m = Math.floor((x % 3600) / 60), sec = x % 60;
  const ss = String(sec).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

function renderClocks() {
  const c = ONLINE.clock;
  document.querySelectorAll(".pclock").forEach((e) => {
    const p = Number(e.dataset.player);
    const left = clockLeft(p);
    e.textContent = fmtClock(left);
    e.classList.toggle("running", !!c && c.running === p);
    e.classList.toggle("low", left !== null && left < 10);
    // while the delay runs the main time stands still: the clock says so and counts the delay down
    const d = c && c.running === p ? delayLeft() : 0;
    e.classList.toggle("in-delay", d > 0);
    if (d > 0) e.appendChild(Object.assign(document.createElement("span"), { className: "pdelay", textContent: t("b43_delay", { s: Math.ceil(d) }) }));
  });
}

// ----- the panels under the board: invitation, rematch, connection ----------------------------------------
function renderOnline() {
  const v = S.view;
  const panel = $("#online-panel");
  if (!panel) return;
  const online = !!(v && v.online);
  panel.hidden = !online;
  $("#fair").hidden = !online;
  if (!online) return;
  const o = v.online;
  // the invitation (its owner, while the seat is empty)
  const inviting = o.waiting && o.owner;
  $("#invite-box").hidden = !inviting;
  if (inviting) {
    // the server shows its owner the invitation while the seat waits (this browser also kept the link)
    const link = o.invite ? `${location.origin}/join/${v.id}#${o.invite}` : (recall("invite", v.id) || "");
    $("#invite-link").value = link;
    $("#invite-link").hidden = !link;
    $("#btn-copy").hidden = !link;
  }
  // the rematch, after the match
  const seated = v.you.length > 0;
  const box = $("#rematch-box");
  const mine = o.rematch && recall("rematch", v.id) === o.rematch;
  box.hidden = !(seated && v.match_over);
  $("#btn-rematch").hidden = !!o.rematch;
  $("#btn-rematch-accept").hidden = !o.rematch || mine;
  $("#btn-rematch-open").hidden = !o.rematch || !mine;
  $("#rematch-text").textContent = !o.rematch ? "" : (mine ? t("rematch_sent") : t("rematch_offered"));
  // the connection and the watcher's note
  const ls = $("#live-state");
  const parts = [];
  if (ONLINE.live === true) parts.push(t("live_on"));
  if (ONLINE.live === false) parts.push(t("live_off"));
  if (!seated) parts.push(t("watching"));
  ls.textContent = parts.join(" · ");
  ls.classList.toggle("off", ONLINE.live === false);
  renderFair();
  if (window.nardySeats) window.nardySeats.render();  // each seat's connection, the abort button (seats.js)
  if (window.nardyMatchEnd) window.nardyMatchEnd.render();  // between games, after the match (matchend.js)
  if (o.seed_wanted) sendSeed(v);
}

// The order of the fair dice (docs/fairness.md, "The order"): this browser's seed goes to the server only
// after the game has shown its commitment, and with it; both are kept here to check the record afterwards.
async function sendSeed(v) {
  // one try at a time, and one for each state of the game (a refusal is not sent again and again)
  const key = `${v.id}:${v.seq}`;
  if (ONLINE.seeding === v.id || ONLINE.seedTried === key) return;
  ONLINE.seeding = v.id;
  ONLINE.seedTried = key;
  const commitment = v.online.commitment;
  // a resend (the answer was lost, the page reloaded) sends the seed kept for this game and commitment
  const seed = recall("commitment", v.id) === commitment && recall("seed", v.id) ? recall("seed", v.id) : randomSeed();
  remember("seed", v.id, seed);
  remember("commitment", v.id, commitment);
  try {
    await api("POST", `/api/games/${v.id}/seed`, { client_seed: seed, commitment });
    if (S.view && S.view.id === v.id) setView(await api("GET", `/api/games/${v.id}?${gameQuery()}`));
  } catch (e) {
    showError(e);
  } finally {
    ONLINE.seeding = null;
    S.updates++;
  }
}

async function copyInvite() {
  const input = $("#invite-link");
  try {
    if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(input.value);
    else { input.select(); document.execCommand("copy"); }
    $("#btn-copy").textContent = t("copied");
    setTimeout(() => { $("#btn-copy").textContent = t("copy"); }, 2000);
  } catch (e) {
    input.select();
  }
}

async function cancelInvite() {
  if (!S.id) return;
  try {
    await api("POST", `/api/games/${S.id}/cancel`);
    setView(await api("GET", `/api/games/${S.id}?${gameQuery()}`));
  } catch (e) { showError(e); }
}

async function offerRematch() {
  if (!S.id || S.busy) return;
  setBusy(true);
  try {
    const old = S.id;
    const v = await api("POST", `/api/games/${old}/rematch`, { own_seed: true });
    remember("rematch", old, v.id);
    if (v.invite_url) remember("invite", v.id, v.invite_url);
    location.hash = "#/game/" + v.id;
  } catch (e) { showError(e); } finally { setBusy(false); S.updates++; }
}

async function acceptRematch() {
  const v = S.view;
  if (!v || !v.online || !v.online.rematch || S.busy) return;
  const rid = v.online.rematch;
  setBusy(true);
  try {
    try {
      await api("POST", `/api/games/${rid}/join`, { own_seed: true });
    } catch (e) {
      if (e.code !== "own_game") throw e;
    }
    location.hash = "#/game/" + rid;
  } catch (e) { showError(e); } finally { setBusy(false); S.updates++; }
}

function openRematch() {
  const v = S.view;
  if (v && v.online && v.online.rematch) location.hash = "#/game/" + v.online.rematch;
}

// ----- fair dice -----------------------------------------------------------------------------------------
async function loadFair() {
  const v = S.view;
  if (!v || !v.online) return;
  ONLINE.fairState = v.status + ":" + v.game_number;
  try {
    const rec = await api("GET", `/api/games/${v.id}/fairness`);
    if (S.view && S.view.id === v.id) { ONLINE.fair = rec; renderFair(); }
  } catch (e) { /* shown again at the next change */ }
}

function renderFair() {
  const v = S.view;
  if (!v || !v.online) return;
  const f = ONLINE.fair;
  $("#fair-commitment").textContent = v.online.commitment;
  $("#fair-seeds").textContent = f ? f.client_seeds.map((s) => s || "—").join(", ") : "…";
  $("#fair-server-seed").textContent = f && f.server_seed ? f.server_seed : t("fair_hidden");
  $("#fair-rolls").textContent = f ? t("fair_rolls_n", { n: f.rolls.length }) : "…";
  const rec = $("#fair-record");
  rec.href = `/api/games/${v.id}/record`;
  rec.setAttribute("download", `nardy-${v.id}-record.json`);
  $("#btn-verify").disabled = !(f && f.server_seed);
  const out = $("#fair-result");
  const r = ONLINE.fairResult;
  out.textContent = r ? r.text : "";
  out.className = r ? (r.ok ? "fair-ok" : "fair-bad") : "";
}

// The dice of roll n (docs/fairness.md): HMAC-SHA256(server seed, "seed0:seed1:n"), bytes below 252 give
// b % 6 + 1, others are skipped; more blocks "seed0:seed1:n:k" if 32 bytes were not enough.
async function fairDice(key, s0, s1, n, count) {
  const enc = new TextEncoder();
  const dice = [];
  for (let k = 0; dice.length < count; k++) {
    const msg = k === 0 ? `${s0}:${s1}:${n}` : `${s0}:${s1}:${n}:${k}`;
    const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(msg)));
    for (const b of digest) {
      if (b < 252) dice.push((b % 6) + 1);
      if (dice.length === count) break;
    }
  }
  return dice;
}

// What is wrong with a record's order (docs/fairness.md, "The order"), as nardy verify-dice sees it:
// null when it is in order; {key, params} of the catalogue's words else.
function fairOrderProblem(rec) {
  const ev = rec.order;
  const hex64 = /^[0-9a-f]{64}$/;
  if (!Array.isArray(ev) || !ev.length || ev[0].event !== "commit" || ev[0].commitment !== rec.commitment) {
    return { key: "fair_order_commit_first", params: { event: 0 } };
  }
  for (let k = 1; k < ev.length; k++) {
    const e = ev[k];
    if (!e || (e.event !== "commit" && e.event !== "seed") || typeof e.t !== "number") return { key: "fair_order_commit_first", params: { event: k } };
    if (e.event === "commit") return { key: "fair_order_commit_first", params: { event: k } };
    if (e.t < ev[k - 1].t) return { key: "fair_order_time", params: { event: k } };
  }
  for (const seat of [0, 1]) {
    const seed = rec.client_seeds[seat];
    const mine = ev.filter((e) => e.event === "seed" && e.seat === seat);
    const side = t(seat === 0 ? "white" : "black");
    if (mine.length !== (seed === null ? 0 : 1)) return { key: "fair_order_seed_count", params: { side } };
    if (!mine.length) continue;
    const e = mine[0];
    if (e.client_seed !== seed || (e.by !== "player" && e.by !== "server")) return { key: "fair_order_seed_value", params: { side } };
    if (e.by === "player" && !(hex64.test(e.commitment || "") && e.commitment === rec.commitment)) {
      return { key: "fair_order_shown", params: { side, shown: String(e.commitment) } };
    }
  }
  return null;
}

// Check a public record in the browser: {ok, text}. mine: what this browser kept when it sent its seed
// ({seed, commitment, side}); the record must have them.
async function verifyRecord(rec, mySeed, mySide, myCommitment) {
  if (!window.crypto || !crypto.subtle) return { ok: false, text: t("fair_no_crypto") };
  const hasOrder = Object.prototype.hasOwnProperty.call(rec, "order");
  const wrong = hasOrder ? fairOrderProblem(rec) : null;
  if (wrong) return { ok: false, text: t(wrong.key, wrong.params) };
  const mine = mySide !== null && mySide !== undefined;
  if (mine && myCommitment && myCommitment !== rec.commitment) {
    return { ok: false, text: t("fair_your_commitment_bad", { mine: myCommitment, theirs: rec.commitment }) };
  }
  if (!rec.server_seed) return { ok: false, text: t("fair_not_revealed") };
  const seed = hexToBytes(rec.server_seed);
  const hash = bytesToHex(await crypto.subtle.digest("SHA-256", seed));
  if (hash !== rec.commitment) return { ok: false, text: t("fair_bad_commitment") };
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const [s0, s1] = rec.client_seeds;
  for (let n = 0; n < rec.rolls.length; n++) {
    const roll = rec.rolls[n];
    const dice = await fairDice(key, s0, s1, n, roll.length);
    if (dice.join("-") !== roll.join("-")) {
      return { ok: false, text: t("fair_bad_roll", { n, record: roll.join("-"), seeds: dice.join("-") }) };
    }
  }
  let text = t("fair_ok", { n: rec.rolls.length });
  if (mySeed && mine) {
    if (rec.client_seeds[mySide] !== mySeed) return { ok: false, text: t("fair_your_seed_bad", { mine: mySeed, theirs: rec.client_seeds[mySide] }) };
    const given = (rec.order || []).find((e) => e.event === "seed" && e.seat === mySide);
    if (hasOrder && !(given && given.by === "player")) return { ok: false, text: t("fair_your_seed_server", { mine: mySeed }) };
    text += " " + t("fair_your_seed_ok");
  }
  if (!hasOrder) return { ok: true, text: text + " " + t("fair_order_missing") };
  text += " " + t("fair_order_ok");
  const server = rec.order.filter((e) => e.event === "seed" && e.by === "server").map((e) => t(e.seat === 0 ? "white" : "black"));
  if (server.length) text += " " + t("fair_order_server", { sides: server.join(", ") });
  return { ok: true, text };
}

async function verifyFair() {
  const v = S.view;
  if (!v || !v.online) return;
  $("#fair-result").textContent = t("fair_checking");
  $("#fair-result").className = "";
  try {
    const rec = await api("GET", `/api/games/${v.id}/fairness`);
    ONLINE.fair = rec;
    const side = v.you.length === 1 ? v.you[0] : null;
    ONLINE.fairResult = await verifyRecord(rec, recall("seed", v.id), side, recall("commitment", v.id));
  } catch (e) {
    ONLINE.fairResult = { ok: false, text: String(e.message || e) };
  }
  renderFair();
  S.verified = (S.verified || 0) + 1;
}

// ----- wiring (called from app.js's init) ------------------------------------------------------------------
function initOnline() {
  $("#btn-account").onclick = openAccount;
  $("#acc-guest").onclick = () => authCall("guest");
  $("#acc-login").onclick = () => authCall("login");
  $("#acc-register").onclick = () => authCall("register");
  $("#acc-logout").onclick = logout;
  $("#acc-close").onclick = () => $("#account").close();
  $("#account-form").onsubmit = (e) => { e.preventDefault(); authCall(S.me ? "register" : "guest"); };
  $("#btn-join").onclick = joinGame;
  $("#btn-join-decline").onclick = declineGame;
  $("#btn-copy").onclick = copyInvite;
  $("#btn-cancel-invite").onclick = cancelInvite;
  $("#btn-rematch").onclick = offerRematch;
  $("#btn-rematch-accept").onclick = acceptRematch;
  $("#btn-rematch-open").onclick = openRematch;
  $("#btn-verify").onclick = verifyFair;
  $("#fair").addEventListener("toggle", () => { if ($("#fair").open) loadFair(); });
  $("#ng-clock").onchange = updateDialogMoney;
  document.addEventListener("visibilitychange", onVisible);
}
