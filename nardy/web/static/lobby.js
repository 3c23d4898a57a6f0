// The lobby (#/lobby): quick pairing, open challenges, who is online, games to watch, the leaderboard, a
// player's ratings, history and finished games, blocks. Live over WS /api/lobby/live (docs/online.md,
// "Lobby"): a snapshot, then only what changed. app.js's route() calls showLobby()/hideLobby(); this file
// builds its own part of the page and takes its texts from the one message catalogue
// (nardy/data/catalogue.toml, section page: lobby_*).
"use strict";

const LOBBY = {
  ws: null,          // the lobby's live channel
  wanted: false,     // the lobby is shown: keep the channel open
  retry: 0,
  timer: null,
  ping: null,
  state: null,       // the lobby as shown: the last snapshot with the deltas since applied
  v: null,           // its version (null: a snapshot is awaited)
  asked: 0,          // when a snapshot was last asked for (Date.now())
  snapshots: 0,      // counts the snapshots and the deltas received (tests read them)
  deltas: 0,
  opened: null,      // the paired game already opened
  updates: 0,        // counts lobby messages drawn (tests wait on it)
  board: null,       // the leaderboard shown
  mine: null,        // this player's ratings, "game/clock class" -> rating (loaded when the lobby opens)
};

//: A new player's rating (Glicko: nardy.web.ratings.Rating), where they have none at a challenge's terms.
const START_RATING = 1500;
window.nardyLobby = LOBBY;

function lel(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.appendChild(k);
  return e;
}

function lobbyOption(value, label) { return lel("option", { value, text: label }); }

// A player's name: a link to their page (profile.js) for an account, the name alone for a guest.
function lobbyName(name, isGuest) {
  return !isGuest && typeof nardyNameLink === "function" ? nardyNameLink(name) : document.createTextNode(name);
}

// ----- the part of the page ----------------------------------------------------------------------------
function buildLobby() {
  const nav = document.querySelector("header nav");
  const btn = lel("button", { id: "btn-lobby", type: "button", text: t("lobby") });
  btn.addEventListener("click", () => { location.hash = "#/lobby"; });
  nav.insertBefore(btn, nav.firstChild);
  const sel = (id, values, label) => {
    const s = lel("select", { id });
    for (const v of values) s.appendChild(lobbyOption(v, label(v)));
    return s;
  };
  const sec = lel("section", { id: "lobby", hidden: "" },
    lel("h2", { "data-lobby": "lobby_quick" }),
    lel("div", { class: "lobby-form" },
      sel("lq-game", ["backgammon", "short", "long"], (g) => t("game_" + g)),
      lel("label", {}, lel("span", { "data-lobby": "lobby_length" }),
        lel("input", { id: "lq-length", type: "number", min: "1", max: "25", value: "1" })),
      lel("label", {}, lel("span", { "data-lobby": "lobby_clock" }),
        sel("lq-clock", ["blitz", "rapid", "classic", "days1", "days2", "days3", "days7", "none"], (c) => t(c === "none" ? "lobby_clock_untimed" : c.startsWith("days") ? "corr_" + c : "lobby_clock_" + c))),
      lel("label", { class: "only-anon" }, lel("span", { "data-lobby": "your_name" }),
        lel("input", { id: "lq-name", type: "text", maxlength: "40", autocomplete: "nickname" })),
      lel("label", {}, lel("input", { id: "lq-rated", type: "checkbox", checked: "" }), lel("span", { "data-lobby": "lobby_rated" })),
      lel("label", {}, lel("span", { "data-lobby": "lobby_range" }),
        lel("input", { id: "lq-range", type: "number", min: "0", max: "4000", step: "50", "data-lobby-placeholder": "lobby_range_any" })),
      lel("button", { id: "btn-quick", type: "button", class: "primary", "data-lobby": "lobby_play_now", on: { click: quickPair } }),
      lel("button", { id: "btn-challenge", type: "button", class: "secondary", "data-lobby": "lobby_post", on: { click: postChallenge } })),
    lel("p", { id: "lq-status", hidden: "" }, lel("span", { "data-lobby": "lobby_looking" }), document.createTextNode(" "),
      lel("button", { id: "btn-quick-stop", type: "button", class: "secondary", "data-lobby": "lobby_stop", on: { click: stopQuick } })),
    lel("p", { id: "lobby-error", class: "error-text" }),
    lel("div", { class: "lobby-cols" },
      lel("div", {},
        lel("h3", { "data-lobby": "lobby_challenges" }), lel("ul", { id: "lobby-challenges" }),
        lel("h3", { "data-lobby": "lobby_live" }), lel("ul", { id: "lobby-live" })),
      lel("div", {},
        lel("h3", { "data-lobby": "lobby_online" }), lel("ul", { id: "lobby-online" }),
        lel("h3", { "data-lobby": "lobby_blocked" }), lel("ul", { id: "lobby-blocks" }))),
    lel("h2", { "data-lobby": "lobby_board" }),
    lel("div", { class: "lobby-form" },
      sel("lb-game", ["backgammon", "short", "long"], (g) => t("game_" + g)),
      sel("lb-clock", ["blitz", "rapid", "classic", "correspondence"], (c) => t("lobby_clock_" + c)),
      sel("lb-pool", ["people", "bots"], (p) => t("bt_pool_" + p))),   // the bots' own rating pool (issue 44)
    lel("table", { id: "leaderboard" }),
    lel("div", { id: "lobby-player", hidden: "" }));
  document.querySelector("main").appendChild(sec);
  $("#lb-game").addEventListener("change", loadBoard);
  $("#lb-clock").addEventListener("change", loadBoard);
  $("#lb-pool").addEventListener("change", loadBoard);
  $("#lq-game").value = "long";
}

function wordLobby() {
  $("#btn-lobby").textContent = t("lobby");
  document.querySelectorAll("[data-lobby]").forEach((e) => { e.textContent = t(e.dataset.lobby); });
  document.querySelectorAll("[data-lobby-placeholder]").forEach((e) => { e.placeholder = t(e.dataset.lobbyPlaceholder); });
  for (const id of ["#lq-game", "#lb-game"]) for (const o of $(id).options) o.textContent = t("game_" + o.value);
  for (const o of $("#lb-pool").options) o.textContent = t("bt_pool_" + o.value);
  for (const id of ["#lq-clock", "#lb-clock"]) {
    for (const o of $(id).options) o.textContent = t(o.value === "none" ? "lobby_clock_untimed" : o.value.startsWith("days") ? "corr_" + o.value : "lobby_clock_" + o.value);
  }
}

// ----- the lobby's live messages (docs/online.md, "The lobby's live channel") ----------------------------
// Each list's order, as the server sends it: challenges oldest first, players by name, games to watch the
// most recently begun first (then by id). The times are ISO 8601 in UTC, one form: ordered as text.
const LOBBY_ORDER = {
  challenges: (a, b) => cmp(a.created, b.created) || cmp(a.id, b.id),
  online: (a, b) => cmp(a.name, b.name) || cmp(a.id, b.id),
  live: (a, b) => cmp(b.started || "", a.started || "") || cmp(a.id, b.id),
};

function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

// The lobby ``lobby`` with the delta ``msg`` applied: each list's entries put (added or replaced, by id) and
// dropped, in the list's order; the seek and the taken challenge replaced when the delta has them.
function applyLobbyDelta(lobby, msg) {
  const out = { ...lobby };
  for (const key of Object.keys(LOBBY_ORDER)) {
    const d = msg[key];
    if (!d) continue;
    const byId = new Map(lobby[key].map((e) => [e.id, e]));
    for (const id of d.drop || []) byId.delete(id);
    for (const e of d.put || []) byId.set(e.id, e);
    out[key] = [...byId.values()].sort(LOBBY_ORDER[key]);
  }
  for (const key of ["seek", "taken"]) if (key in msg) out[key] = msg[key];
  return out;
}

// A message of the lobby's channel: a snapshot replaces the lobby; a delta from the version shown moves it
// on; a delta from another version (one was missed) asks for a snapshot (at most one every 2 seconds).
function lobbyMessage(ws, msg) {
  if (msg.type === "lobby") {
    LOBBY.v = msg.v === undefined ? null : msg.v;
    LOBBY.snapshots++;
    renderLobby(msg.lobby);
  } else if (msg.type === "lobby-delta") {
    if (LOBBY.state && LOBBY.v !== null && msg.from === LOBBY.v) {
      LOBBY.v = msg.v;
      LOBBY.deltas++;
      renderLobby(applyLobbyDelta(LOBBY.state, msg));
    } else {
      LOBBY.v = null;
      if (Date.now() - LOBBY.asked > 2000 && ws.readyState === 1) { LOBBY.asked = Date.now(); ws.send("snapshot"); }
    }
  }
}

// The page's language changed (app.js sets it first): word the lobby again.
function relabelLobby() {
  setTimeout(() => {
    wordLobby();
    if ($("#lobby").hidden) return;
    if (LOBBY.state) renderLobby(LOBBY.state);
    loadBoard();
  }, 0);
}

function showLobby() {
  if (typeof leaveGame === "function") leaveGame();
  S.id = null; S.view = null; S.join = null;
  for (const id of ["#home", "#play", "#join"]) $(id).hidden = true;
  $("#lobby").hidden = false;
  document.body.dataset.screen = "lobby";
  wordLobby();
  syncRatedChoice();
  $("#lobby-error").textContent = "";
  LOBBY.wanted = true;
  openLobbyLive();
  loadBoard();
  loadBlocks();
  loadMine();
}

// This player's own ratings (after each rated match they change: the lobby is opened again then), so that a
// challenge whose rating range leaves them out is shown so rather than refused on accepting.
async function loadMine() {
  const me = S.me ? S.me.id : null;
  if (!me) return;
  try {
    const p = await api("GET", `/api/players/${me}`);
    const mine = {};
    for (const r of p.ratings || []) mine[`${r.game}/${r.clock_class}`] = r.rating;
    LOBBY.mine = mine;
    if (LOBBY.state) renderLobby(LOBBY.state);
  } catch (e) { /* not shown: accepting still says why */ }
}

// Why this player may not accept challenge c (its rating range leaves them out), or null.
function outOfRange(c) {
  if (!LOBBY.mine || (c.rating_min == null && c.rating_max == null)) return null;
  const r = LOBBY.mine[`${c.game}/${c.clock_class}`] ?? START_RATING;
  if ((c.rating_min != null && r < c.rating_min) || (c.rating_max != null && r > c.rating_max)) {
    return t("lobby_outside_range", { rating: Math.round(r) });
  }
  return null;
}

function hideLobby() {
  const sec = $("#lobby");
  if (sec) sec.hidden = true;
  LOBBY.wanted = false;
  closeLobbyLive();
}

// ----- the live channel --------------------------------------------------------------------------------
function openLobbyLive() {
  if (LOBBY.ws) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/api/lobby/live`);
  LOBBY.ws = ws;
  LOBBY.v = null;  // a new connection: its first message is the lobby whole
  ws.onopen = () => {
    LOBBY.retry = 0;
    LOBBY.ping = setInterval(() => { if (ws.readyState === 1) ws.send("ping"); }, 20000);
  };
  ws.onmessage = (ev) => {
    if (ev.data === "pong") return;
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg && msg.type === "chat") { if (window.nardyChat) window.nardyChat.receive(":lobby", msg.message); return; }  // chat.js
    if (LOBBY.ws === ws) lobbyMessage(ws, msg);
  };
  ws.onclose = () => {
    clearInterval(LOBBY.ping);
    if (LOBBY.ws === ws) LOBBY.ws = null;
    if (!LOBBY.wanted) return;
    LOBBY.retry = Math.min(LOBBY.retry + 1, 6);
    LOBBY.timer = setTimeout(openLobbyLive, 500 * 2 ** LOBBY.retry);
  };
}

function closeLobbyLive() {
  clearTimeout(LOBBY.timer);
  clearInterval(LOBBY.ping);
  const ws = LOBBY.ws;
  LOBBY.ws = null;
  if (ws) ws.close();
}

// ----- drawing -----------------------------------------------------------------------------------------
function termsText(c) {
  const clock = t("lobby_clock_" + (c.clock_class || "untimed"));
  const range = c.rating_min != null || c.rating_max != null
    ? ", " + t("lobby_range_of", { lo: Math.round(c.rating_min ?? 0), hi: c.rating_max != null ? Math.round(c.rating_max) : "…" }) : "";
  return `${t("game_" + c.game)}, ${t("lobby_to", { n: c.length })}, ${clock}${c.rated ? "" : ", " + t("lobby_unrated")}${range}`;
}

function renderLobby(lobby) {
  LOBBY.state = lobby;
  const me = S.me ? S.me.id : null;
  const list = $("#lobby-challenges");
  list.textContent = "";
  if (!lobby.challenges.length) list.appendChild(lel("li", { class: "empty", text: t("lobby_no_challenges") }));
  for (const c of lobby.challenges) {
    const who = c.owner.name + (c.owner_rating ? ` (${c.owner_rating})` : "");
    const li = lel("li", { "data-challenge": c.id }, lel("span", {}, lobbyName(c.owner.name, c.owner.guest),
      document.createTextNode(`${who.slice(c.owner.name.length)}: ${termsText(c)} `)));
    const out = outOfRange(c);
    if (c.owner.id === me) {
      li.appendChild(lel("button", { type: "button", class: "secondary withdraw", text: t("lobby_withdraw"),
        on: { click: () => lobbyCall("DELETE", `/api/lobby/challenges/${c.id}`) } }));
    } else if (out) {
      li.appendChild(lel("span", { class: "out-of-range", text: out }));
    } else {
      li.appendChild(lel("button", { type: "button", class: "primary accept", text: t("lobby_accept"),
        on: { click: () => acceptChallenge(c.id) } }));
    }
    list.appendChild(li);
  }
  const online = $("#lobby-online");
  online.textContent = "";
  for (const u of lobby.online) {
    const li = lel("li", { "data-user": u.id }, lel("span", {}, lobbyName(u.name, u.guest), document.createTextNode(" ")));
    if (u.bot && typeof nardyBotMark === "function") li.firstChild.insertBefore(nardyBotMark(), li.firstChild.lastChild);
    if (me && u.id !== me) {
      li.appendChild(lel("button", { type: "button", class: "secondary block", text: t("lobby_block"),
        on: { click: () => blockPlayer(u.id) } }));
    }
    online.appendChild(li);
  }
  const live = $("#lobby-live");
  live.textContent = "";
  if (!lobby.live.length) live.appendChild(lel("li", { class: "empty", text: t("lobby_no_live") }));
  for (const g of lobby.live) {
    const score = g.score ? ` ${g.score[0]}-${g.score[1]}` : "";
    live.appendChild(lel("li", {}, lel("a", { href: `#/game/${g.id}`, text: `${(g.players || []).join(" - ")}${score}` }),
      lel("span", { text: ` ${t("game_" + g.game)}${g.rated ? "" : ", " + t("lobby_unrated")}` })));
  }
  const seek = lobby.seek;
  $("#lq-status").hidden = !(seek && seek.status === "open");
  // a seek paired or a challenge taken while this page waited: open the game (once)
  for (const c of [seek, lobby.taken]) {
    if (c && c.status === "accepted" && c.game_id && !opened(c.game_id)) openPaired(c.game_id);
  }
  LOBBY.updates++;
}

function opened(gid) {
  if (LOBBY.opened === gid) return true;
  return typeof recall === "function" && recall("opened", gid) !== null;
}

function openPaired(gid) {
  LOBBY.opened = gid;
  if (typeof remember === "function") remember("opened", gid, "1");
  location.hash = "#/game/" + gid;
}

async function loadBoard() {
  const game = $("#lb-game").value, clock = $("#lb-clock").value;
  const table = $("#leaderboard");
  try {
    const pool = $("#lb-pool") ? $("#lb-pool").value : "people";
    const r = await api("GET", `/api/ratings?game=${game}&clock=${clock}&pool=${pool}`);
    LOBBY.board = r;
    table.textContent = "";
    const head = lel("tr", {});
    // the rating's deviation and a provisional rating's "?" are named and explained (their title)
    const heads = { lobby_rank: null, lobby_player: null, lobby_rating: "b43_provisional_help", b43_rd: "b43_rd_help", lobby_matches: null };
    for (const [k, help] of Object.entries(heads)) head.appendChild(lel("th", help ? { text: t(k), title: t(help) } : { text: t(k) }));
    table.appendChild(head);
    if (!r.players.length) table.appendChild(lel("tr", {}, lel("td", { colspan: "5", class: "empty", text: t("lobby_no_ratings") })));
    for (const p of r.players) {
      const name = lel("a", { href: typeof nardyProfileLink === "function" ? nardyProfileLink(p.name) : "#/lobby", text: p.name });
      const nameCell = lel("td", {}, name);
      if (p.bot && typeof nardyBotMark === "function") nameCell.append(" ", nardyBotMark());
      const row = lel("tr", { "data-player": p.id },
        lel("td", { text: String(p.rank) }), nameCell,
        lel("td", p.provisional ? { class: "rating", text: Math.round(p.rating) + "?", title: t("b43_provisional_help") }
          : { class: "rating", text: String(Math.round(p.rating)) }),
        lel("td", { class: "rd", text: "±" + Math.round(p.rd), title: t("b43_rd_help") }), lel("td", { text: String(p.matches) }));
      table.appendChild(row);
    }
  } catch (e) { $("#lobby-error").textContent = e.message; }
  LOBBY.updates++;
}

async function showPlayer(uid) {
  const box = $("#lobby-player");
  try {
    const [p, h, g, st] = await Promise.all([
      api("GET", `/api/players/${uid}`), api("GET", `/api/players/${uid}/history`), api("GET", `/api/players/${uid}/games`),
      api("GET", `/api/players/${uid}/stats`).catch(() => null)]);
    box.textContent = "";
    box.appendChild(lel("h3", { text: p.name }));
    box.appendChild(lel("p", { text: p.ratings.map((r) => `${t("game_" + r.game)} ${t("lobby_clock_" + r.clock_class)}: ${Math.round(r.rating)}`).join("; ") }));
    box.appendChild(lel("p", { class: "fair", text: t("lobby_fair", p.fair_play) }));
    box.appendChild(lel("h4", { text: t("lobby_history") }));
    const ul = lel("ul", {});
    for (const x of h.history) {
      const d = Math.round(x.after - x.before);
      ul.appendChild(lel("li", { text: `${x.won ? t("lobby_won") : t("lobby_lost")} ${t("lobby_vs", { name: x.opponent.name || "?" })}, ${t("game_" + x.game)} ${t("lobby_to", { n: x.length })}: ${Math.round(x.before)} → ${Math.round(x.after)} (${d >= 0 ? "+" : ""}${d})` }));
    }
    box.appendChild(ul);
    box.appendChild(lel("h4", { text: t("lobby_games") }));
    const gl = lel("ul", {});
    for (const x of g.games) {
      gl.appendChild(lel("li", {}, lel("a", { href: `#/game/${x.id}`, text: `${(x.players || []).join(" - ")} ${(x.score || []).join("-")}` }),
        document.createTextNode(" "), lel("a", { href: x.mat, download: `nardy-${x.id}.mat`, text: ".mat" })));
    }
    box.appendChild(gl);
    if (st) box.appendChild(playerStats(st));
    box.hidden = false;
  } catch (e) { $("#lobby-error").textContent = e.message; }
}

// A player's statistics over their analysed games (GET /api/players/{id}/stats): per game type and month the
// error rate, PR and luck per game, then the kinds of decision with the most errors.
function playerStats(st) {
  const sec = lel("section", { class: "player-stats" });
  sec.appendChild(lel("h4", { text: t("ps_title") }));
  if (!st.rows.length) { sec.appendChild(lel("p", { class: "empty", text: t("ps_none") })); return sec; }
  const table = lel("table", { class: "player-stats-rows" });
  const head = lel("tr", {});
  for (const k of ["ps_game", "ps_month", "lobby_matches", "rv_decisions", "rv_error_rate", "rv_pr", "ps_luck"]) head.appendChild(lel("th", { text: t(k) }));
  table.appendChild(head);
  for (const r of st.rows) {
    table.appendChild(lel("tr", { "data-period": r.period },
      lel("td", { text: t("game_" + r.game) }), lel("td", { text: r.period === "all" ? t("ps_all") : r.period }),
      lel("td", { text: String(r.matches) }), lel("td", { text: String(r.decisions) }),
      lel("td", { text: r.error_rate.toFixed(1) }), lel("td", { text: r.pr.toFixed(1) }),
      lel("td", { text: (r.luck_per_game >= 0 ? "+" : "") + r.luck_per_game.toFixed(3) })));
  }
  sec.appendChild(table);
  if (st.kinds.length) {
    sec.appendChild(lel("h4", { text: t("ps_kinds") }));
    const ul = lel("ul", { class: "player-stats-kinds" });
    for (const k of st.kinds) {
      ul.appendChild(lel("li", { "data-kind": k.kind, text: `${t("game_" + k.game)}: ` + t("ps_kind_line",
        { kind: t("ps_kind_" + k.kind.replace("-", "_")), errors: k.errors, decisions: k.decisions, loss: k.loss.toFixed(3) }) }));
    }
    sec.appendChild(ul);
  }
  return sec;
}

async function loadBlocks() {
  const ul = $("#lobby-blocks");
  ul.textContent = "";
  if (!S.me) return;
  try {
    const r = await api("GET", "/api/blocks");
    for (const u of r.blocks) {
      ul.appendChild(lel("li", { "data-user": u.id }, lel("span", { text: u.name + " " }),
        lel("button", { type: "button", class: "secondary unblock", text: t("lobby_unblock"),
          on: { click: async () => { await lobbyCall("DELETE", `/api/blocks/${u.id}`); loadBlocks(); } } })));
    }
  } catch (e) { /* signed out meanwhile */ }
}

// ----- actions -----------------------------------------------------------------------------------------
function lobbyTerms() {
  const clock = $("#lq-clock").value;
  return {
    game: $("#lq-game").value,
    length: Number($("#lq-length").value || 1),
    clock: clock === "none" ? null : clock.startsWith("days") ? { days: Number(clock.slice(4)) } : clock,
    rated: $("#lq-rated").checked,
    // points either side of one's own rating that an opponent may have (empty: anyone)
    rating_range: $("#lq-range").value === "" ? null : Number($("#lq-range").value),
  };
}

// Guests play unrated only (the server refuses them rated games): their "Rated" is unticked and cannot be
// ticked; a registered player's is ticked again.
function syncRatedChoice() {
  const box = $("#lq-rated");
  const guest = !S.me || S.me.guest;
  if (!guest && box.disabled) box.checked = true;
  box.disabled = guest;
  if (guest) box.checked = false;
  box.parentElement.title = guest ? t("b43_guest_unrated") : "";
}

// Someone not signed in plays as a guest under the name given in the lobby (as a new online game does).
async function readyToPlay(terms) {
  const err = $("#lobby-error");
  err.textContent = "";
  if (!S.me) {
    try { await ensurePlayer($("#lq-name")); } catch (e) { err.textContent = e.message; return false; }   // online.js
    syncRatedChoice();
    terms.rated = false;
    closeLobbyLive(); openLobbyLive();   // the lobby's channel again, now as this guest (pairings reach them)
  }
  if (terms.rated && S.me.guest) { err.textContent = t("lobby_guest_rated"); return false; }
  return true;
}

async function lobbyCall(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (e) {
    $("#lobby-error").textContent = e.message;
    return null;
  } finally { LOBBY.updates++; }
}

async function quickPair() {
  const terms = lobbyTerms();
  if (!(await readyToPlay(terms))) return;
  // the dice seed is given on the game's page, after it has shown its commitment (online.js, sendSeed)
  const r = await lobbyCall("POST", "/api/lobby/quick", { ...terms, own_seed: true });
  if (!r) return;
  if (r.status === "paired") {
    openPaired(r.game);
  } else {
    $("#lq-status").hidden = false;
  }
}

async function stopQuick() {
  await lobbyCall("DELETE", "/api/lobby/quick");
  $("#lq-status").hidden = true;
}

async function postChallenge() {
  const terms = lobbyTerms();
  if (!(await readyToPlay(terms))) return;
  await lobbyCall("POST", "/api/lobby/challenges", { ...terms, own_seed: true });
}

async function acceptChallenge(cid) {
  if (!S.me) { $("#lobby-error").textContent = t("lobby_sign_in"); return; }
  const v = await lobbyCall("POST", `/api/lobby/challenges/${cid}/accept`, { own_seed: true });
  if (!v) return;
  openPaired(v.id);
}

async function blockPlayer(uid) {
  await lobbyCall("POST", "/api/blocks", { user: uid });
  loadBlocks();
}

// ----- an online game's page: a rated game's label, and the claim when the opponent has left (any game) -------------------------
function syncRated() {
  const v = S.view;
  const want = !!(v && v.online && !$("#play").hidden && v.id === S.id);  // casual games may be claimed too
  let box = $("#rated-box");
  if (!box) {
    if (!want) return;
    box = lel("div", { id: "rated-box" }, lel("span", { id: "rated-label" }), document.createTextNode(" "),
      lel("button", { id: "btn-claim", type: "button", class: "secondary", on: { click: claimMatch } }),
      lel("span", { id: "claim-msg", class: "error-text" }));
    $("#online-panel").appendChild(box);
  }
  box.hidden = !want;
  if (!want) return;
  $("#rated-label").textContent = v.online.rated
    ? t("lobby_rated_game", { clock: t("lobby_clock_" + v.online.rating_class) }) : "";
  $("#btn-claim").textContent = t("lobby_claim");
  syncClaim(v);
}

// The claim shows only once the server says it is possible (GET /api/games/{id}/claim: claim_in seconds, null
// when not possible); while the opponent has been away longer than a present player's page stays silent, the
// time left is shown. Asked again when the view changes and every CLAIM_ASK_MS while the opponent is to act.
const CLAIM = { key: null, asked: 0, at: null, grace: 0, busy: false };
const CLAIM_ASK_MS = 5000;
function syncClaim(v) {
  const possible = !v.match_over && v.you.length === 1 && v.to_act != null && !v.you.includes(v.to_act);
  const key = `${v.id}:${v.seq}`;
  if (!possible) { CLAIM.key = key; CLAIM.at = null; }
  else if (!CLAIM.busy && (CLAIM.key !== key || Date.now() - CLAIM.asked > CLAIM_ASK_MS)) {
    CLAIM.busy = true; CLAIM.asked = Date.now();
    api("GET", `/api/games/${v.id}/claim`).then((c) => {
      if (!S.view || `${S.view.id}:${S.view.seq}` !== key) return;
      CLAIM.key = key; CLAIM.grace = c.grace;
      CLAIM.at = c.claim_in == null ? null : Date.now() + c.claim_in * 1000;
    }).catch(() => { CLAIM.at = null; }).finally(() => { CLAIM.busy = false; });
  }
  const left = CLAIM.key === key && CLAIM.at != null ? Math.max(0, Math.ceil((CLAIM.at - Date.now()) / 1000)) : null;
  $("#btn-claim").hidden = left !== 0;
  let note = $("#claim-wait");
  if (!note) { note = lel("span", { id: "claim-wait" }); $("#rated-box").insertBefore(note, $("#claim-msg")); }
  // away longer than a present page stays silent (its presence is written every 15 s): say when a claim opens
  const away = left !== null && left > 0 && CLAIM.grace - left >= 25;
  note.hidden = !away;
  note.textContent = away ? t("b43_claim_in", { s: left }) : "";
}

async function claimMatch() {
  $("#claim-msg").textContent = "";
  try {
    setView(await api("POST", `/api/games/${S.id}/claim`));
  } catch (e) {
    $("#claim-msg").textContent = e.message;
  }
  S.updates++;
}

buildLobby();
setInterval(syncRated, 1000);
$("#lang").addEventListener("change", relabelLobby);
