// Tournaments (docs/online.md "Tournaments"; the HTTP API of nardy.web's tournament routes, issue 44):
//  #/tournaments            the list, filtered by status, and the form that creates one (#/tournaments/new);
//  #/tournament/{id}        one tournament: its settings (shown to all), join / leave / withdraw, the player's
//                           next game with a countdown that opens it, the Swiss table, the arena leaderboard or
//                           the knockout bracket (inline SVG), every game with links to it and its analysis,
//                           the standings as CSV and the records as a zip; live over WS /api/tournaments/{id}/live
//                           (each frame {"type": "tournament", "tournament": <the GET body>}).
// app.js's route() calls tournamentRoute() first (it hides this file's screens when the route is another's);
// texts from the catalogue (page section, tn_*; the elements built here carry data-i18n, worded by app.js).
"use strict";

const TOUR = {
  id: null,          // the tournament shown (its page), or null
  data: null,        // its last GET body (or live frame)
  list: null,        // the list's last answer
  ws: null,          // its live channel
  wanted: false,     // the page is shown: keep the channel open
  retry: 0,
  timer: null,       // the channel's reconnection timer
  tick: null,        // the countdown's timer
  nextAt: null,      // {game, at: ms} the player's game to play and when the page opens it (null: not again)
  startAt: null,     // when the tournament starts (ms; a waiting tournament with a start time), or null
  endAt: null,       // when the arena ends (ms), or null
  ping: null,        // the channel's keep-alive timer
  lang: null,        // the language the page was drawn in
  frames: 0,         // counts live frames received (tests read it)
  updates: 0,        // counts drawings (tests wait on it)
  opened: null,      // the last game the countdown opened
};
window.nardyTour = TOUR;

//: The formats, the games and the clocks offered by the form (the clocks are the lobby's).
const TN_FORMATS = ["swiss", "arena", "knockout"];
const TN_GAMES = ["backgammon", "short", "long"];
const TN_CLOCKS = ["blitz", "rapid", "classic", "days1", "days2", "days3", "days7", "none"];
//: The statuses of the list's filter ("" = all).
const TN_STATUSES = ["", "waiting", "playing", "finished"];
//: Seconds the page counts down before it opens the player's new game (a link opens it at once).
const TN_GO_S = 5;
//: The knockout bracket's geometry (SVG user units): a match box and the gaps between columns and boxes.
const TN_BOX = { w: 190, h: 46, gapX: 40, gapY: 14, pad: 8 };

function tnEl(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") e.textContent = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== false) e.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
  return e;
}

function tnSvg(tag, attrs, parent) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

// A text of the catalogue, or fallback when the key is not there (a term the server added later).
function tnText(key, fallback, args) { const s = t(key, args); return s === key ? fallback : s; }

function tnClockName(c) {
  if (c === null || c === undefined || c === "none") return t("lobby_clock_untimed");
  if (typeof c === "object") {
    if (c.days) return t("corr_days", { n: c.days });
    if (c.initial !== undefined) return `${c.initial} s + ${c.increment || 0} s`;
    return JSON.stringify(c);
  }
  if (String(c).startsWith("days")) return t("corr_" + c);
  return tnText("lobby_clock_" + c, String(c));
}

// Points as a person writes them: 1, ½, 2½.
function tnPoints(x) {
  if (x === null || x === undefined) return "";
  const whole = Math.floor(x), half = Math.abs(x - whole - 0.5) < 1e-9;
  if (half) return (whole ? String(whole) : "") + "½";
  return numText(Math.round(x * 100) / 100);
}

// A player's name: a link to their page (profile.js) with a BOT mark for a bot.
function tnName(p) {
  if (!p) return tnEl("span", { class: "tn-bye", text: t("tn_bye") });
  const span = tnEl("span", { class: "tn-player", "data-player": p.id });
  span.appendChild(typeof nardyNameLink === "function" ? nardyNameLink(p.name) : document.createTextNode(p.name));
  if (p.bot) span.append(" ", tnEl("span", { class: "bot-mark", text: t("tn_bot") }));
  return span;
}

// ----- the header's button and the screens -------------------------------------------------------------
function tnBuild() {
  if (document.getElementById("tournaments")) return;
  const nav = document.querySelector("header nav");
  const btn = tnEl("button", { id: "btn-tournaments", type: "button", "data-i18n": "tn_tournaments",
    on: { click: () => { location.hash = "#/tournaments"; } } });
  const lobby = document.getElementById("btn-lobby");
  nav.insertBefore(btn, lobby ? lobby.nextSibling : nav.firstChild);
  // on a phone the header has no room for the button (tournaments.css hides it): links on home and the lobby
  const links = document.querySelector("#home .home-links");
  if (links) links.append(" ", tnEl("a", { href: "#/tournaments", id: "tn-home-link", "data-i18n": "tn_tournaments" }));
  const lobbySec = document.getElementById("lobby");
  if (lobbySec) lobbySec.prepend(tnEl("p", { class: "tn-lobby-link" }, tnEl("a", { href: "#/tournaments", "data-i18n": "tn_tournaments" })));
  const sel = (id, values) => { const s = tnEl("select", { id }); for (const v of values) s.appendChild(tnEl("option", { value: v })); return s; };
  const num = (id, min, max, value) => tnEl("input", { id, type: "number", min: String(min), max: String(max), value: String(value) });
  const field = (cls, key, input) => tnEl("label", { class: cls }, tnEl("span", { "data-i18n": key }), input);
  const check = (cls, key, id, on) => tnEl("label", { class: "check " + cls }, tnEl("input", { id, type: "checkbox", checked: on }), tnEl("span", { "data-i18n": key }));
  const list = tnEl("section", { id: "tournaments", hidden: true },
    tnEl("div", { class: "tn-head" }, tnEl("h2", { "data-i18n": "tn_tournaments" }),
      field("", "tn_filter", sel("tn-filter", TN_STATUSES)),
      tnEl("button", { id: "tn-new", type: "button", class: "primary", "data-i18n": "tn_create",
        on: { click: () => { location.hash = "#/tournaments/new"; } } })),
    tnEl("form", { id: "tn-form", hidden: true },
      tnEl("h3", { "data-i18n": "tn_create_title" }),
      tnEl("div", { class: "tn-grid" },
        field("", "tn_name", tnEl("input", { id: "tn-name", type: "text", maxlength: "60" })),
        field("", "tn_game", sel("tn-game", TN_GAMES)),
        field("", "tn_format", sel("tn-format", TN_FORMATS)),
        field("tn-swiss", "tn_rounds", num("tn-rounds", 1, 20, 3)),
        field("tn-knockout", "tn_lengths", tnEl("input", { id: "tn-lengths", type: "text", placeholder: "3, 5, 7", pattern: "[0-9 ,]*" })),
        field("tn-arena", "tn_duration", num("tn-duration", 5, 720, 60)),
        field("", "tn_length", num("tn-length", 1, 25, 3)),
        field("", "tn_clock", sel("tn-clock", TN_CLOCKS)),
        field("", "tn_players", num("tn-players", 2, 256, 4)),
        field("", "tn_starts_at", tnEl("input", { id: "tn-starts", type: "datetime-local" })),
        field("tn-long", "tn_draw_points", sel("tn-draw", ["half", "one"])),
        field("", "tn_grace", num("tn-grace", 10, 3600, 120)),
        check("", "tn_rated", "tn-rated", true),
        check("tn-arena", "tn_berserk", "tn-berserk", false),
        check("", "tn_cube", "tn-cube", true),
        check("", "tn_crawford", "tn-crawford", true)),
      tnEl("p", { id: "tn-form-error", class: "error-text" }),
      tnEl("div", { class: "dialog-buttons left" },
        tnEl("button", { id: "tn-create", type: "submit", class: "primary", "data-i18n": "tn_create" }),
        tnEl("button", { id: "tn-cancel", type: "button", class: "secondary", "data-i18n": "cancel",
          on: { click: () => { location.hash = "#/tournaments"; } } }))),
    tnEl("p", { id: "tn-list-error", class: "error-text" }),
    tnEl("table", { id: "tn-list", class: "tn-table" }));
  const page = tnEl("section", { id: "tournament", hidden: true },
    tnEl("div", { class: "tn-head" }, tnEl("h2", { id: "tn-title" }), tnEl("span", { id: "tn-status", class: "tn-status" }),
      tnEl("a", { href: "#/tournaments", class: "tn-back", "data-i18n": "tn_all" })),
    tnEl("p", { id: "tn-summary" }),
    tnEl("div", { id: "tn-actions", class: "tn-actions" },
      tnEl("button", { id: "tn-join", type: "button", class: "primary", "data-i18n": "tn_join", on: { click: () => tnCall("join") } }),
      tnEl("button", { id: "tn-leave", type: "button", class: "secondary", "data-i18n": "tn_leave", on: { click: () => tnCall("leave") } }),
      tnEl("button", { id: "tn-withdraw", type: "button", class: "secondary", "data-i18n": "tn_withdraw",
        on: { click: () => { if (confirm(t("tn_withdraw_confirm"))) tnCall("leave"); } } }),
      tnEl("span", { id: "tn-live", class: "tn-live" })),
    tnEl("p", { id: "tn-error", class: "error-text" }),
    tnEl("div", { id: "tn-next", class: "tn-next", hidden: true }),
    tnEl("div", { class: "tn-cols" },
      tnEl("div", { class: "tn-main" },
        tnEl("h3", { id: "tn-board-title" }), tnEl("div", { id: "tn-board" }),
        tnEl("h3", { "data-i18n": "tn_games" }), tnEl("div", { id: "tn-games" })),
      tnEl("aside", { class: "tn-side" },
        tnEl("h3", { "data-i18n": "tn_settings" }), tnEl("dl", { id: "tn-settings", class: "tn-settings" }),
        tnEl("h3", { "data-i18n": "tn_entrants" }), tnEl("ul", { id: "tn-entrants", class: "tn-entrants" }),
        tnEl("h3", { "data-i18n": "tn_downloads" }),
        tnEl("p", { class: "tn-downloads" },
          tnEl("a", { id: "tn-csv", "data-i18n": "tn_results_csv" }), " ",
          tnEl("a", { id: "tn-zip", "data-i18n": "tn_records_zip" })))));
  const main = document.querySelector("main");
  main.append(list, page);
  $("#tn-filter").addEventListener("change", tnLoadList);
  $("#tn-form").addEventListener("submit", tnCreate);
  for (const id of ["#tn-format", "#tn-game"]) $(id).addEventListener("change", tnSyncForm);
}

// Words the options of this file's selects in the page's language (the data-i18n texts are app.js's).
function tnWord() {
  tnBuild();
  TOUR.lang = LANG;
  for (const o of $("#tn-filter").options) o.textContent = o.value ? t("tn_status_" + o.value) : t("tn_all_statuses");
  for (const o of $("#tn-game").options) o.textContent = t("game_" + o.value);
  for (const o of $("#tn-format").options) o.textContent = t("tn_format_" + o.value);
  for (const o of $("#tn-clock").options) o.textContent = tnClockName(o.value);
  for (const o of $("#tn-draw").options) o.textContent = t("tn_draw_" + o.value);
}

// The route: true when the hash is one of this file's (its screen shown), else its screens hidden.
function tournamentRoute() {
  tnBuild();
  const h = location.hash;
  const one = h.match(/^#\/tournament\/([0-9A-Za-z_-]+)/);
  const many = /^#\/tournaments(\/new)?\/?$/.exec(h);
  if (!one) tnClose();
  if (!one && !many) { $("#tournaments").hidden = true; $("#tournament").hidden = true; return false; }
  if (typeof leaveGame === "function") leaveGame();
  S.id = null; S.view = null; S.join = null;
  for (const id of ["#home", "#play", "#join", "#review", "#lobby", "#profile", "#refused"]) { const e = $(id); if (e) e.hidden = true; }
  tnWord();
  $("#tournaments").hidden = !many;
  $("#tournament").hidden = !one;
  if (many) {
    document.body.dataset.screen = "tournaments";
    $("#tn-form").hidden = !many[1];
    if (many[1]) tnOpenForm();
    tnLoadList();
  } else {
    document.body.dataset.screen = "tournament";
    tnOpen(one[1]);
  }
  return true;
}

// ----- the list ----------------------------------------------------------------------------------------
async function tnLoadList() {
  const status = $("#tn-filter").value;
  $("#tn-list-error").textContent = "";
  const signedIn = !!(S.me && !S.me.guest);
  $("#tn-new").hidden = !signedIn;
  try {
    const r = await api("GET", "/api/tournaments" + (status ? "?" + new URLSearchParams({ status }) : ""));
    if ($("#tn-filter").value !== status) return;
    TOUR.list = r.tournaments;
  } catch (e) {
    TOUR.list = [];
    $("#tn-list-error").textContent = e.message;
  }
  tnDrawList();
}

function tnDrawList() {
  const table = $("#tn-list");
  table.textContent = "";
  const head = tnEl("tr", {});
  for (const k of ["tn_name", "tn_game", "tn_format", "tn_status", "tn_players", "tn_round", "tn_starts_at", "tn_created_by"]) head.appendChild(tnEl("th", { text: t(k) }));
  table.appendChild(head);
  const rows = TOUR.list || [];
  if (!rows.length) table.appendChild(tnEl("tr", {}, tnEl("td", { colspan: "8", class: "empty", text: t("tn_none") })));
  for (const x of rows) {
    table.appendChild(tnEl("tr", { "data-tournament": x.id, "data-status": x.status },
      tnEl("td", {}, tnEl("a", { href: "#/tournament/" + x.id, class: "tn-open", text: x.name || t("tn_untitled") })),
      tnEl("td", { text: t("game_" + x.game) }),
      tnEl("td", { text: tnText("tn_format_" + x.format, x.format) }),
      tnEl("td", { text: tnText("tn_status_" + x.status, x.status) }),
      tnEl("td", { class: "num", text: `${x.joined ?? 0}/${x.players ?? "?"}` }),
      tnEl("td", { class: "num", text: x.rounds ? `${x.round || 0}/${x.rounds}` : String(x.round || "") }),
      tnEl("td", { text: x.starts_at ? new Date(x.starts_at).toLocaleString(LANG) : "" }),
      tnEl("td", {}, x.created_by && x.created_by.name ? tnName(x.created_by) : null)));
  }
  TOUR.updates++;
}

// ----- the form ----------------------------------------------------------------------------------------
function tnOpenForm() {
  $("#tn-form-error").textContent = "";
  if (!S.me || S.me.guest) $("#tn-form-error").textContent = t("tn_sign_in");
  tnSyncForm();
}

// Only the fields of the chosen format and game: rounds (Swiss), lengths (knockout), duration and berserk
// (arena), the last-roll draw's points (long nardy).
function tnSyncForm() {
  const f = $("#tn-format").value, game = $("#tn-game").value;
  for (const k of TN_FORMATS) document.querySelectorAll(".tn-" + k).forEach((e) => { e.hidden = f !== k; });
  document.querySelectorAll(".tn-long").forEach((e) => { e.hidden = game !== "long"; });
}

// The form's terms as POST /api/tournaments takes them (the server checks them and says what is wrong).
function tnTerms() {
  const format = $("#tn-format").value, game = $("#tn-game").value, clock = $("#tn-clock").value;
  const body = {
    game, format, length: Number($("#tn-length").value || 1), players: Number($("#tn-players").value || 2),
    clock: clock === "none" ? null : clock.startsWith("days") ? { days: Number(clock.slice(4)) } : clock,
    rated: $("#tn-rated").checked, cube: $("#tn-cube").checked, crawford: $("#tn-crawford").checked,
    grace_s: Number($("#tn-grace").value || 120),
  };
  const name = $("#tn-name").value.trim();
  if (name) body.name = name;
  if (format === "swiss") body.rounds = Number($("#tn-rounds").value || 1);
  if (format === "arena") { body.duration_min = Number($("#tn-duration").value || 60); body.berserk = $("#tn-berserk").checked; }
  if (format === "knockout") {
    const lengths = $("#tn-lengths").value.split(/[\s,]+/).filter(Boolean).map(Number);
    if (lengths.length) body.lengths = lengths;
  }
  if (game === "long") body.draw_points = $("#tn-draw").value;
  const at = $("#tn-starts").value;
  if (at) body.starts_at = new Date(at).toISOString();
  return body;
}

async function tnCreate(ev) {
  ev.preventDefault();
  const err = $("#tn-form-error");
  err.textContent = "";
  if (!S.me || S.me.guest) { err.textContent = t("tn_sign_in"); return; }
  try {
    const r = await api("POST", "/api/tournaments", tnTerms());
    location.hash = "#/tournament/" + r.id;
  } catch (e) {
    err.textContent = e.message;
  }
  TOUR.updates++;
}

// ----- one tournament ----------------------------------------------------------------------------------
async function tnOpen(id) {
  if (TOUR.id !== id) { tnClose(); Object.assign(TOUR, { id, data: null, nextAt: null, startAt: null, endAt: null }); }
  tnDraw();   // what is known at once (coming back: the last state, its countdowns going on)
  TOUR.wanted = true;
  $("#tn-error").textContent = "";
  tnLive();
  await tnFetch();
}

async function tnFetch() {
  const id = TOUR.id;
  if (!id) return;
  try {
    const d = await api("GET", `/api/tournaments/${id}`);
    if (TOUR.id === id) tnShow(d);
  } catch (e) {
    if (TOUR.id !== id) return;
    $("#tn-error").textContent = e.status === 404 ? t("tn_not_found") : e.message;
    TOUR.updates++;
  }
}

// A new state of the tournament (an answer or a live frame); a frame without "you" keeps the last one. The
// countdowns: to the start (you.starts_in), to the arena's end (ends_in), and TN_GO_S seconds to opening the
// player's game (you.next_game, a game not opened here before).
function tnShow(d) {
  if (!d.you && TOUR.data && TOUR.data.you) d = { ...d, you: TOUR.data.you };
  TOUR.data = d;
  const you = d.you || {};
  const now = Date.now();
  TOUR.startAt = d.status === "waiting" && you.starts_in != null ? now + you.starts_in * 1000 : null;
  TOUR.endAt = d.status === "playing" && d.ends_in != null ? now + d.ends_in * 1000 : null;
  const g = you.next_game || null;
  if (!g) TOUR.nextAt = null;
  else if (!TOUR.nextAt || TOUR.nextAt.game !== g) {
    const seen = TOUR.opened === g || (typeof recall === "function" && recall("opened", g) !== null);
    TOUR.nextAt = { game: g, at: seen ? null : now + TN_GO_S * 1000 };
  }
  tnDraw();
}

// Join, leave (before the start) or withdraw (after it): POST /api/tournaments/{id}/join|leave.
async function tnCall(what) {
  $("#tn-error").textContent = "";
  if (!S.me) { $("#tn-error").textContent = t("tn_sign_in"); return; }
  try {
    const r = await api("POST", `/api/tournaments/${TOUR.id}/${what}`, {});
    if (r && r.id === TOUR.id && r.entrants) tnShow(r); else await tnFetch();
  } catch (e) {
    $("#tn-error").textContent = e.message;
    TOUR.updates++;
  }
}

// ----- the live channel --------------------------------------------------------------------------------
function tnLive() {
  if (TOUR.ws || !TOUR.id) return;
  const id = TOUR.id;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/api/tournaments/${id}/live`);
  TOUR.ws = ws;
  ws.onopen = () => {
    TOUR.retry = 0;
    tnLiveMark(true);
    TOUR.ping = setInterval(() => { if (ws.readyState === 1) ws.send("ping"); }, 20000);
  };
  ws.onmessage = (ev) => {
    if (ev.data === "pong") return;
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (!m || m.type !== "tournament" || !m.tournament || TOUR.ws !== ws || TOUR.id !== id) return;
    TOUR.frames++;
    tnShow(m.tournament);   // each connection's frames carry its own player's part ("you")
  };
  ws.onclose = () => {
    clearInterval(TOUR.ping);
    if (TOUR.ws === ws) TOUR.ws = null;
    tnLiveMark(false);
    if (!TOUR.wanted || TOUR.id !== id) return;
    TOUR.retry = Math.min(TOUR.retry + 1, 6);
    TOUR.timer = setTimeout(tnLive, 500 * 2 ** TOUR.retry);
  };
}

function tnLiveMark(on) {
  const e = $("#tn-live");
  if (!e) return;
  e.textContent = on ? t("tn_live") : "";
  e.classList.toggle("on", on);
}

function tnClose() {
  TOUR.wanted = false;
  clearTimeout(TOUR.timer);
  clearInterval(TOUR.ping);
  clearInterval(TOUR.tick);
  TOUR.tick = null;
  const ws = TOUR.ws;
  TOUR.ws = null;
  if (ws) ws.close();
}

// ----- drawing -----------------------------------------------------------------------------------------
function tnDraw() {
  if (!$("#tournament")) return;
  const d = TOUR.data;
  $("#tn-title").textContent = d ? (d.name || t("tn_untitled")) : "";
  const st = $("#tn-status");
  st.textContent = d ? tnText("tn_status_" + d.status, d.status) : "";
  st.dataset.status = d ? d.status : "";
  for (const id of ["#tn-join", "#tn-leave", "#tn-withdraw"]) $(id).hidden = true;
  if (!d) { for (const id of ["#tn-board", "#tn-games", "#tn-settings", "#tn-entrants"]) $(id).textContent = ""; $("#tn-next").hidden = true; TOUR.updates++; return; }
  const s = d.settings || {};
  const round = d.rounds ? t("tn_round_of", { round: d.round || 0, rounds: d.rounds }) : (d.round ? t("tn_round_n", { round: d.round }) : "");
  $("#tn-summary").textContent = [t("game_" + d.game), tnText("tn_format_" + d.format, d.format),
    s.length ? t("lobby_to", { n: s.length }) : "", tnClockName(s.clock), s.rated ? t("lobby_rated") : t("tn_unrated"), round]
    .filter(Boolean).join(" · ");
  tnDrawActions(d);
  tnDrawNext();
  tnDrawSettings(d);
  tnDrawEntrants(d);
  const board = $("#tn-board");
  board.textContent = "";
  $("#tn-board-title").textContent = t(d.format === "knockout" ? "tn_bracket" : d.format === "arena" ? "tn_leaderboard" : "tn_table");
  if (d.format === "knockout") board.appendChild(tnBracket(d));
  board.appendChild(tnStandings(d));
  tnDrawGames(d);
  $("#tn-csv").href = `/api/tournaments/${d.id}/results.csv`;
  $("#tn-csv").setAttribute("download", `tournament-${d.id}.csv`);
  $("#tn-zip").href = `/api/tournaments/${d.id}/records.zip`;
  $("#tn-zip").setAttribute("download", `tournament-${d.id}.zip`);
  TOUR.updates++;
}

function tnDrawActions(d) {
  const you = d.you || {};
  const mine = S.me ? (d.entrants || []).find((e) => e.id === S.me.id) : null;
  const joined = !!(you.joined || (mine && !mine.withdrawn));
  $("#tn-join").hidden = !(d.status === "waiting" && !joined);
  $("#tn-leave").hidden = !(d.status === "waiting" && joined);
  $("#tn-withdraw").hidden = !(d.status === "playing" && joined);
  if (mine && mine.withdrawn) $("#tn-error").textContent = t("tn_withdrawn");
}

function tnClockText(ms) {
  const left = Math.max(0, Math.ceil((ms - Date.now()) / 1000));
  const h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, sec = String(left % 60).padStart(2, "0");
  return { left, text: h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}` };
}

// The countdowns' box: the start, the arena's end, and the player's game: "Your game starts in 0:04" counting
// down, then the game opened (once: coming back to the tournament's page does not open it again), with a link
// to it all the while and, in an arena with berserk, the Berserk button.
function tnDrawNext() {
  const box = $("#tn-next");
  const n = TOUR.nextAt, d = TOUR.data;
  clearInterval(TOUR.tick);
  TOUR.tick = null;
  box.hidden = !(n || TOUR.startAt || TOUR.endAt);
  box.textContent = "";
  if (box.hidden) return;
  const when = tnEl("span", { id: "tn-when" });
  const text = tnEl("span", { id: "tn-countdown" });
  box.append(when, text);
  if (n) {
    box.append(tnEl("a", { id: "tn-next-link", class: "button primary", href: "#/game/" + n.game, text: t("tn_go_to_game"),
      on: { click: () => tnOpened(n.game) } }));
    const mine = d && S.me ? (d.pairings || []).find((p) => p.game === n.game) : null;
    const side = mine ? mine.players.findIndex((x) => x && x.id === S.me.id) : -1;
    if (d && d.format === "arena" && d.settings && d.settings.berserk && side >= 0 && !(mine.berserk || [])[side]) {
      box.append(tnEl("button", { id: "tn-berserk-now", type: "button", class: "secondary", text: t("tn_berserk_now"),
        on: { click: () => tnBerserk(n.game) } }));
    }
  }
  const step = () => {
    const parts = [];
    if (TOUR.startAt) parts.push(t("tn_starts_in", { time: tnClockText(TOUR.startAt).text }));
    if (TOUR.endAt) parts.push(t("tn_ends_in", { time: tnClockText(TOUR.endAt).text }));
    when.textContent = parts.join(" · ");
    if (!n) { text.textContent = ""; return; }
    if (n.at === null) { text.textContent = t("tn_your_game"); text.dataset.left = ""; return; }
    const c = tnClockText(n.at);
    text.dataset.left = String(c.left);
    text.textContent = t("tn_next_in", { time: c.text });
    if (c.left > 0 || $("#tournament").hidden || TOUR.nextAt !== n) return;
    tnOpened(n.game);
    location.hash = "#/game/" + n.game;
  };
  TOUR.tick = setInterval(step, 250);
  step();
}

// The player's game g is opened (by the countdown or the link): not opened by the countdown again.
function tnOpened(g) {
  TOUR.opened = g;
  if (TOUR.nextAt && TOUR.nextAt.game === g) TOUR.nextAt.at = null;
  if (typeof remember === "function") remember("opened", g, "1");
}

// Arena: berserk in one's game before one's first move (half the clock, a point more for a win).
async function tnBerserk(game) {
  $("#tn-error").textContent = "";
  try { await api("POST", `/api/tournaments/${TOUR.id}/berserk`, { game }); await tnFetch(); } catch (e) { $("#tn-error").textContent = e.message; }
}

function tnSettingValue(k, v) {
  if (k === "cube" && v == null) return t("tn_game_default");
  if (v === null || v === undefined || v === "") return "—";
  if (typeof v === "boolean") return t(v ? "tn_yes" : "tn_no");
  if (k === "clock") return tnClockName(v);
  if (k === "game") return t("game_" + v);
  if (k === "format") return tnText("tn_format_" + v, v);
  if (k === "draw_points") return tnText("tn_draw_" + v, v);
  if (k === "starts_at") return new Date(v).toLocaleString(LANG);
  if (k === "grace_s") return t("tn_seconds", { n: v });
  if (k === "duration_min") return t("tn_minutes", { n: v });
  if (Array.isArray(v)) return v.join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function tnDrawSettings(d) {
  const dl = $("#tn-settings");
  dl.textContent = "";
  const s = { game: d.game, format: d.format, ...(d.settings || {}) };
  for (const [k, v] of Object.entries(s)) {
    if (tnText("tn_set_" + k, null) === null || (v == null && k !== "cube")) continue;   // shown: the terms the page knows
    dl.append(tnEl("dt", { "data-key": k, text: tnText("tn_set_" + k, k) }), tnEl("dd", { "data-key": k, text: tnSettingValue(k, v) }));
  }
}

function tnDrawEntrants(d) {
  const ul = $("#tn-entrants");
  ul.textContent = "";
  const es = d.entrants || [];
  if (!es.length) ul.appendChild(tnEl("li", { class: "empty", text: t("tn_no_entrants") }));
  for (const e of es) {
    ul.appendChild(tnEl("li", { "data-entrant": e.id, class: e.withdrawn ? "withdrawn" : null }, tnName(e),
      e.rating != null ? tnEl("span", { class: "prating", text: ` (${Math.round(e.rating)})` }) : null,
      e.withdrawn ? tnEl("span", { class: "tn-withdrawn", text: " " + t("tn_withdrawn_mark") }) : null));
  }
}

// The standings: the Swiss table (points, Buchholz, Sonneborn-Berger), the arena's leaderboard (points with
// the streak bonus, performance) or the knockout's places; the tiebreaks shown are those the server sends.
function tnStandings(d) {
  const rows = d.standings || [];
  const byId = new Map((d.entrants || []).map((e) => [e.id, e]));
  const tbs = [];
  for (const r of rows) for (const k of Object.keys(r.tiebreaks || {})) if (!tbs.includes(k)) tbs.push(k);
  const table = tnEl("table", { id: "tn-standings", class: "tn-table" });
  const head = tnEl("tr", {}, tnEl("th", { text: t("tn_rank") }), tnEl("th", { text: t("tn_player") }), tnEl("th", { text: t("tn_points") }));
  for (const k of tbs) head.appendChild(tnEl("th", { "data-tb": k, text: tnText("tn_tb_" + k, k) }));
  table.appendChild(head);
  if (!rows.length) table.appendChild(tnEl("tr", {}, tnEl("td", { colspan: String(3 + tbs.length), class: "empty", text: t("tn_no_standings") })));
  const me = S.me ? S.me.id : null;
  for (const r of rows) {
    const e = byId.get(r.id) || { id: r.id, name: r.name, bot: r.bot };
    const tr = tnEl("tr", { "data-id": r.id, class: r.id === me ? "me" : null },
      tnEl("td", { class: "num", text: String(r.rank) }), tnEl("td", {}, tnName({ ...e, name: r.name || e.name })),
      tnEl("td", { class: "num tn-pts", text: tnPoints(r.points) }));
    for (const k of tbs) tr.appendChild(tnEl("td", { class: "num", "data-tb": k, text: tnPoints((r.tiebreaks || {})[k]) }));
    table.appendChild(tr);
  }
  return table;
}

function tnResultText(res) { return res ? `${tnPoints(res[0])}–${tnPoints(res[1])}` : ""; }

// Every game, round by round: the players, the result, links to the game and (once played) its analysis.
function tnDrawGames(d) {
  const box = $("#tn-games");
  box.textContent = "";
  const ps = d.pairings || [];
  if (!ps.length) { box.appendChild(tnEl("p", { class: "empty", text: t("tn_no_games") })); return; }
  const rounds = [...new Set(ps.map((p) => p.round))].sort((a, b) => b - a);
  for (const rn of rounds) {
    const table = tnEl("table", { class: "tn-table tn-round", "data-round": String(rn) },
      tnEl("caption", { text: d.format === "arena" ? t("tn_arena_games", { n: rn }) : t("tn_round_n", { round: rn }) }));
    for (const p of ps.filter((x) => x.round === rn)) {
      const links = tnEl("td", { class: "tn-links" });
      if (p.game) {
        links.append(tnEl("a", { href: "#/game/" + p.game, class: "tn-game", "data-game": p.game, text: t(p.result ? "tn_open" : "tn_watch") }));
        if (p.result) links.append(" ", tnEl("a", { href: "#/review/" + p.game, class: "tn-analysis", "data-game": p.game, text: t("tn_analysis") }));
      }
      const win = p.result ? (p.result[0] > p.result[1] ? 0 : p.result[1] > p.result[0] ? 1 : null) : null;
      table.appendChild(tnEl("tr", { "data-game": p.game || null },
        tnEl("td", { class: win === 0 ? "won" : null }, tnName(p.players[0])),
        tnEl("td", { class: "num tn-result", text: p.result ? tnResultText(p.result) : (p.players[1] ? "–" : "") }),
        tnEl("td", { class: win === 1 ? "won" : null }, tnName(p.players[1])), links));
    }
    box.appendChild(table);
  }
}

// The knockout bracket as an inline SVG: a column per round (the first round's size a power of two, byes to
// the top seeds), a box per match with both names and the result (the winner in bold), lines to the next
// round's match, each box a link to its game; rounds not yet paired are empty boxes.
function tnBracket(d) {
  const ps = d.pairings || [];
  const first = Math.min(...ps.map((p) => p.round));
  const r1 = ps.filter((p) => p.round === first);
  let size = 2;
  while (size < Math.max(2 * r1.length, (d.entrants || []).length)) size *= 2;
  const nRounds = Math.max(Math.round(Math.log2(size)), d.rounds || 0, 1);
  const { w, h, gapX, gapY, pad } = TN_BOX;
  const W = pad * 2 + nRounds * w + (nRounds - 1) * gapX, H = pad * 2 + (size / 2) * (h + gapY);
  const svg = tnSvg("svg", { id: "tn-bracket", viewBox: `0 0 ${W} ${H}`, width: String(W), role: "img", "aria-label": t("tn_bracket") });
  const centre = (r, i) => pad + (H - 2 * pad) * (i + 0.5) / (size / 2 ** (r + 1));
  for (let r = 0; r < nRounds; r++) {
    const count = size / 2 ** (r + 1);
    const here = ps.filter((p) => p.round === first + r).sort((a, b) => (a.board ?? 0) - (b.board ?? 0));   // bracket order
    const x = pad + r * (w + gapX);
    tnSvg("text", { class: "tn-bracket-round", x: x + w / 2, y: 11, "text-anchor": "middle",
      text: r === nRounds - 1 ? t("tn_final") : t("tn_round_n", { round: first + r }) }, svg);
    for (let i = 0; i < count; i++) {
      const p = here[i] || null;
      const cy = centre(r, i);
      if (r < nRounds - 1) {
        const ny = centre(r + 1, Math.floor(i / 2));
        tnSvg("path", { class: "tn-bracket-line", d: `M${x + w},${cy} H${x + w + gapX / 2} V${ny} H${x + w + gapX}`, fill: "none" }, svg);
      }
      const parent = p && p.game ? tnSvg("a", { href: "#/game/" + p.game, class: "tn-bracket-link" }, svg) : svg;
      const g = tnSvg("g", { class: "tn-match" + (p ? "" : " tn-empty"), "data-round": String(first + r), "data-slot": String(i),
        "data-game": p && p.game ? p.game : "" }, parent);
      tnSvg("rect", { x, y: cy - h / 2, width: w, height: h, rx: 5 }, g);
      tnSvg("line", { x1: x, y1: cy, x2: x + w, y2: cy }, g);
      for (const side of [0, 1]) {
        const pl = p ? p.players[side] : null;
        const won = p && p.result && p.result[side] > p.result[1 - side];
        const label = pl ? pl.name + (pl.bot ? " · " + t("tn_bot") : "") : (p ? t("tn_bye") : "");
        const ty = cy - h / 2 + (side ? 0.75 : 0.25) * h + 4;
        tnSvg("text", { x: x + 6, y: ty, class: "tn-bracket-name" + (won ? " won" : ""), "data-player": pl ? pl.id : "",
          text: label.length > 22 ? label.slice(0, 21) + "…" : label }, g);
        if (p && p.result) tnSvg("text", { x: x + w - 6, y: ty, "text-anchor": "end", class: "tn-bracket-score" + (won ? " won" : ""), text: tnPoints(p.result[side]) }, g);
      }
    }
  }
  const wrap = tnEl("div", { class: "tn-bracket-box" });
  wrap.appendChild(svg);
  return wrap;
}

// The page's language changed (app.js sets it first): word the screens again.
function tnRelabel() {
  setTimeout(() => {
    if (!$("#tournaments")) return;
    tnWord();
    if (!$("#tournaments").hidden) tnDrawList();
    if (!$("#tournament").hidden) tnDraw();
  }, 0);
}

tnBuild();   // before app.js's init: its setLanguage words the data-i18n texts built here
$("#lang").addEventListener("change", tnRelabel);
