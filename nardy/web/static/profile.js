// A player's page (#/player/<name>; docs/online.md "Player pages"): their ratings per game and clock class, the
// rating graph (inline SVG drawn here: axes, dates, one line per game and clock class, a point per rated
// match), their finished games with filters (game, opponent, result) and links to the record and the analysis,
// the head-to-head record against the viewer, their statistics over analysed games, and a "Challenge" button
// (when window.nardyChallenge exists). nardyProfileLink(name) is the href of a player's page, for any page code
// that shows names. app.js's route() calls profileRoute(); texts from the catalogue (page section, pf_*).
"use strict";

const PROFILE = {
  name: null,        // the name asked for (the route's)
  player: null,      // GET /api/players?name=: {id, name, guest}
  ratings: null,     // GET /api/players/{id}/ratings
  games: null,       // the games' page shown: {games, more, offset}
  versus: null,      // the head-to-head against the viewer, or null
  stats: null,       // GET /api/players/{id}/stats, or null
  filters: { game: "", opponent: "", result: "" },
  offset: 0,
  ticket: 0,         // the games' request last made (an older answer is not drawn)
  lang: null,        // the language it was drawn in
  updates: 0,        // counts the drawings (tests wait on it)
};
window.nardyProfile = PROFILE;

//: Games a page of the games' table shows.
const PROFILE_PAGE = 20;
//: The graph's lines' colours, one per game and clock class (in the order they first appear).
const PROFILE_COLOURS = ["#1f6fb2", "#c0392b", "#27864a", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#b7950b", "#2c3e50"];

function nardyProfileLink(name) { return "#/player/" + encodeURIComponent(name); }
window.nardyProfileLink = nardyProfileLink;

// An <a> to a player's page, showing their name.
function nardyNameLink(name) {
  const a = document.createElement("a");
  a.className = "profile-link";
  a.href = nardyProfileLink(name);
  a.textContent = name;
  return a;
}
window.nardyNameLink = nardyNameLink;

function pfEl(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
  return e;
}

const PF_SVGNS = "http://www.w3.org/2000/svg";
function pfSvg(tag, attrs, parent) {
  const e = document.createElementNS(PF_SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

function pfClockName(c) { const k = "lobby_clock_" + c; const s = t(k); return s === k ? c : s; }
function pfSeriesName(game, klass) { return `${t("game_" + game)}, ${pfClockName(klass)}`; }

// ----- the header's link to one's own page (online.js's renderMe calls profileMe) ---------------------
function profileMe() {
  let btn = document.getElementById("btn-profile");
  if (!btn) {
    const nav = document.querySelector("header nav");
    if (!nav) return;
    btn = pfEl("button", { id: "btn-profile", type: "button", class: "secondary", hidden: "" });
    btn.addEventListener("click", () => { if (S.me) location.hash = nardyProfileLink(S.me.name); });
    nav.insertBefore(btn, document.getElementById("btn-account"));
  }
  btn.textContent = t("pf_my_page");
  btn.hidden = !(S.me && !S.me.guest);
  const sec = document.getElementById("profile");
  if (sec && !sec.hidden && PROFILE.lang !== LANG) drawProfile();
}

// ----- the route -----------------------------------------------------------------------------------------
function profileRoute() {
  const m = location.hash.match(/^#\/player\/(.+)$/) || location.hash.match(/^#player=(.+)$/);
  const sec = document.getElementById("profile");
  if (!m) { if (sec) sec.hidden = true; return false; }
  let name;
  try { name = decodeURIComponent(m[1]); } catch (e) { name = m[1]; }
  if (typeof leaveGame === "function") leaveGame();
  S.id = null; S.view = null; S.join = null;
  for (const id of ["#home", "#play", "#join", "#review", "#lobby"]) { const e = $(id); if (e) e.hidden = true; }
  buildProfile().hidden = false;
  document.body.dataset.screen = "profile";
  if (PROFILE.name !== name) {
    PROFILE.name = name;
    PROFILE.filters = { game: "", opponent: "", result: "" };
    PROFILE.offset = 0;
    for (const id of ["#pf-game", "#pf-opponent", "#pf-result"]) $(id).value = "";
  }
  loadProfile();
  return true;
}

function buildProfile() {
  let sec = document.getElementById("profile");
  if (sec) return sec;
  const pfSelect = (id, values) => {
    const s = pfEl("select", { id });
    for (const v of values) s.appendChild(pfEl("option", { value: v }));
    return s;
  };
  sec = pfEl("section", { id: "profile", hidden: "" },
    pfEl("div", { class: "pf-head" }, pfEl("h2", { id: "pf-name" }), pfEl("div", { id: "pf-actions" })),
    pfEl("p", { id: "pf-error", class: "error-text" }),
    pfEl("div", { id: "pf-body" },
      pfEl("h3", { "data-pf": "pf_ratings" }), pfEl("table", { id: "pf-ratings", class: "pf-table" }),
      pfEl("h3", { "data-pf": "pf_graph" }), pfEl("div", { id: "pf-graph-box" }),
      pfEl("div", { id: "pf-versus-box" }),
      pfEl("h3", { "data-pf": "pf_games" }),
      pfEl("div", { class: "pf-filters" },
        pfEl("label", {}, pfEl("span", { "data-pf": "pf_game" }), pfSelect("pf-game", ["", "backgammon", "short", "long"])),
        pfEl("label", {}, pfEl("span", { "data-pf": "pf_opponent" }),
          pfEl("input", { id: "pf-opponent", type: "text", maxlength: "40", autocomplete: "off" })),
        pfEl("label", {}, pfEl("span", { "data-pf": "pf_result" }), pfSelect("pf-result", ["", "won", "lost"]))),
      pfEl("table", { id: "pf-games", class: "pf-table" }),
      pfEl("div", { class: "pf-pager" },
        pfEl("button", { id: "pf-prev", type: "button", class: "secondary", "data-pf": "pf_prev" }),
        pfEl("button", { id: "pf-next", type: "button", class: "secondary", "data-pf": "pf_next" })),
      pfEl("div", { id: "pf-stats" })));
  document.querySelector("main").appendChild(sec);
  const refilter = () => {
    PROFILE.filters = { game: $("#pf-game").value, opponent: $("#pf-opponent").value.trim(), result: $("#pf-result").value };
    PROFILE.offset = 0;
    loadGames();
  };
  $("#pf-game").addEventListener("change", refilter);
  $("#pf-result").addEventListener("change", refilter);
  $("#pf-opponent").addEventListener("change", refilter);
  $("#pf-prev").addEventListener("click", () => { PROFILE.offset = Math.max(0, PROFILE.offset - PROFILE_PAGE); loadGames(); });
  $("#pf-next").addEventListener("click", () => { PROFILE.offset += PROFILE_PAGE; loadGames(); });
  return sec;
}

// ----- loading -----------------------------------------------------------------------------------------
async function loadProfile() {
  const name = PROFILE.name;
  $("#pf-error").textContent = "";
  PROFILE.player = null;
  try {
    const p = await api("GET", "/api/players?" + new URLSearchParams({ name }));
    if (PROFILE.name !== name) return;
    const uid = p.id;
    const me = S.me && !S.me.guest && S.me.id !== uid ? S.me.id : null;
    const [ratings, versus, stats] = await Promise.all([
      api("GET", `/api/players/${uid}/ratings`),
      me ? api("GET", `/api/players/${uid}/versus/${me}`).catch(() => null) : null,
      api("GET", `/api/players/${uid}/stats`).catch(() => null)]);
    if (PROFILE.name !== name) return;
    Object.assign(PROFILE, { player: p, ratings, versus, stats });
    await loadGames(true);
  } catch (e) {
    if (PROFILE.name !== name) return;
    PROFILE.player = null;
    drawProfile();
    $("#pf-error").textContent = e.status === 404 ? t("pf_no_player", { name }) : e.message;
  }
}

async function loadGames(whole) {
  const p = PROFILE.player;
  if (!p) return;
  const q = new URLSearchParams({ limit: String(PROFILE_PAGE), offset: String(PROFILE.offset) });
  const f = PROFILE.filters;
  const ticket = ++PROFILE.ticket;
  $("#pf-error").textContent = "";
  try {
    if (f.game) q.set("game", f.game);
    if (f.result) q.set("result", f.result);
    if (f.opponent) {
      let other;
      try { other = await api("GET", "/api/players?" + new URLSearchParams({ name: f.opponent })); } catch (e) { other = null; }
      if (ticket !== PROFILE.ticket) return;
      if (!other) {
        PROFILE.games = { games: [], more: false, offset: 0 };
        drawProfile(whole);
        $("#pf-error").textContent = t("pf_no_player", { name: f.opponent });
        return;
      }
      q.set("opponent", other.id);
    }
    const games = await api("GET", `/api/players/${p.id}/games?${q}`);
    if (ticket !== PROFILE.ticket) return;
    PROFILE.games = games;
  } catch (e) {
    if (ticket !== PROFILE.ticket) return;
    PROFILE.games = { games: [], more: false, offset: 0 };
    $("#pf-error").textContent = e.message;
  }
  drawProfile(whole);
}

// ----- drawing -----------------------------------------------------------------------------------------
function drawProfile() {
  buildProfile();
  PROFILE.lang = LANG;
  document.querySelectorAll("[data-pf]").forEach((e) => { e.textContent = t(e.dataset.pf); });
  for (const o of $("#pf-game").options) o.textContent = o.value ? t("game_" + o.value) : t("pf_all_games");
  for (const o of $("#pf-result").options) o.textContent = o.value ? t("pf_" + o.value) : t("pf_all_results");
  $("#pf-opponent").placeholder = t("pf_opponent_any");
  const p = PROFILE.player;
  $("#pf-body").hidden = !p;
  $("#pf-name").textContent = p ? p.name : (PROFILE.name || "");
  const actions = $("#pf-actions");
  actions.textContent = "";
  if (p && typeof window.nardyChallenge === "function" && S.me && S.me.id !== p.id) {
    actions.appendChild(pfEl("button", { id: "pf-challenge", type: "button", class: "primary", text: t("pf_challenge"),
      on: { click: () => window.nardyChallenge(p.name) } }));
  }
  if (!p) { PROFILE.updates++; return; }
  drawRatings();
  drawRatingGraph();
  drawVersus();
  drawGames();
  const st = $("#pf-stats");
  st.textContent = "";
  if (PROFILE.stats && typeof playerStats === "function") st.appendChild(playerStats(PROFILE.stats));   // lobby.js
  if (typeof botsProfile === "function") botsProfile(p);   // bots.js: the BOT mark, one's own API tokens
  PROFILE.updates++;
}

function drawRatings() {
  const table = $("#pf-ratings");
  table.textContent = "";
  const rows = (PROFILE.ratings && PROFILE.ratings.ratings) || [];
  const head = pfEl("tr", {});
  for (const k of ["pf_game", "pf_clock", "pf_rating", "pf_rd", "pf_matches", "pf_wins"]) head.appendChild(pfEl("th", { text: t(k) }));
  table.appendChild(head);
  if (!rows.length) table.appendChild(pfEl("tr", {}, pfEl("td", { colspan: "6", class: "empty", text: t("pf_no_ratings") })));
  for (const r of rows) {
    table.appendChild(pfEl("tr", { "data-series": `${r.game}/${r.clock_class}` },
      pfEl("td", { text: t("game_" + r.game) }), pfEl("td", { text: pfClockName(r.clock_class) }),
      pfEl("td", { class: "rating", text: Math.round(r.rating) + (r.provisional ? "?" : "") }),
      pfEl("td", { text: String(Math.round(r.rd)) }), pfEl("td", { text: String(r.matches) }), pfEl("td", { text: String(r.wins) })));
  }
}

// A round step for about n ticks over span (1, 2, 5 x 10^k).
function pfNiceStep(span, n) {
  const raw = Math.max(span, 1e-9) / n;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// The rating graph: x the time of each rated match, y the rating after it; one line per game and clock class.
function drawRatingGraph() {
  const box = $("#pf-graph-box");
  box.textContent = "";
  const points = (PROFILE.ratings && PROFILE.ratings.points) || [];
  if (!points.length) { box.appendChild(pfEl("p", { class: "empty", text: t("pf_no_points") })); return; }
  const W = 640, H = 260, L = 52, R = 12, T = 12, B = 36;
  const svg = pfSvg("svg", { id: "pf-graph", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("pf_graph") });
  const times = points.map((x) => Date.parse(x.at));
  const values = points.flatMap((x) => [x.rating, x.before]);
  let t0 = Math.min(...times), t1 = Math.max(...times);
  if (t1 - t0 < 60000) { t0 -= 30000; t1 += 30000; }
  const step = pfNiceStep(Math.max(...values) - Math.min(...values) + 40, 5);
  const v0 = Math.floor((Math.min(...values) - 10) / step) * step, v1 = Math.ceil((Math.max(...values) + 10) / step) * step;
  const x = (ms) => L + (W - L - R) * (ms - t0) / (t1 - t0);
  const y = (v) => T + (H - T - B) * (v1 - v) / (v1 - v0);
  const axes = pfSvg("g", { class: "pf-axes" }, svg);
  pfSvg("line", { x1: L, y1: T, x2: L, y2: H - B }, axes);
  pfSvg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B }, axes);
  for (let v = v0; v <= v1 + 1e-9; v += step) {
    pfSvg("line", { class: "pf-grid", x1: L, y1: y(v), x2: W - R, y2: y(v) }, axes);
    pfSvg("text", { class: "pf-ytick", x: L - 6, y: y(v) + 4, "text-anchor": "end", text: String(Math.round(v)) }, axes);
  }
  const short = t1 - t0 < 2 * 86400000;
  const fmtX = (ms) => new Date(ms).toLocaleString(LANG, short
    ? { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" } : { year: "numeric", month: "short", day: "numeric" });
  const ticks = 4;
  for (let i = 0; i <= ticks; i++) {
    const ms = t0 + (t1 - t0) * i / ticks;
    pfSvg("line", { x1: x(ms), y1: H - B, x2: x(ms), y2: H - B + 4 }, axes);
    pfSvg("text", { class: "pf-xtick", x: x(ms), y: H - B + 18, "text-anchor": i === 0 ? "start" : (i === ticks ? "end" : "middle"), text: fmtX(ms) }, axes);
  }
  const series = new Map();
  points.forEach((pt, i) => {
    const k = `${pt.game}/${pt.clock_class}`;
    if (!series.has(k)) series.set(k, []);
    series.get(k).push([pt, times[i]]);
  });
  const legend = pfEl("ul", { class: "pf-legend" });
  let c = 0;
  for (const [k, pts] of series) {
    const colour = PROFILE_COLOURS[c++ % PROFILE_COLOURS.length];
    const g = pfSvg("g", { class: "pf-series", "data-series": k }, svg);
    pfSvg("polyline", { fill: "none", stroke: colour, "stroke-width": 2,
      points: pts.map(([pt, ms]) => `${x(ms).toFixed(1)},${y(pt.rating).toFixed(1)}`).join(" ") }, g);
    for (const [pt, ms] of pts) {
      const dot = pfSvg("circle", { class: "pf-point", cx: x(ms).toFixed(1), cy: y(pt.rating).toFixed(1), r: 4, fill: colour,
        "data-game-id": pt.game_id }, g);
      const d = Math.round(pt.rating - pt.before);
      pfSvg("title", { text: `${pfSeriesName(pt.game, pt.clock_class)}: ${Math.round(pt.rating)} (${d >= 0 ? "+" : ""}${d}) `
        + `${pt.won ? t("pf_won") : t("pf_lost")} ${pt.opponent.name || "?"}, ${new Date(ms).toLocaleString(LANG)}` }, dot);
    }
    const [game, klass] = k.split("/");
    legend.appendChild(pfEl("li", { "data-series": k },
      pfEl("span", { class: "pf-swatch", style: `background:${colour}` }), pfSeriesName(game, klass)));
  }
  box.append(svg, legend);
}

function drawVersus() {
  const box = $("#pf-versus-box");
  box.textContent = "";
  const v = PROFILE.versus;
  if (!v) return;
  box.appendChild(pfEl("h3", { text: t("pf_versus") }));
  // the record from the viewer's side: the page's player's wins are the viewer's losses
  const g = v.games, r = v.rated;
  box.appendChild(pfEl("p", { id: "pf-versus", "data-won": String(g.lost), "data-lost": String(g.won),
    text: t("pf_versus_line", { name: v.player.name, played: g.played, won: g.lost, lost: g.won }) }));
  if (r.played) box.appendChild(pfEl("p", { id: "pf-versus-rated", text: t("pf_versus_rated", { played: r.played, won: r.lost, lost: r.won }) }));
  const by = Object.entries(v.by_game);
  if (by.length > 1) {
    box.appendChild(pfEl("p", { class: "pf-versus-games",
      text: by.map(([game, x]) => `${t("game_" + game)}: ${x.lost}-${x.won}`).join(" · ") }));
  }
}

function drawGames() {
  const table = $("#pf-games");
  table.textContent = "";
  const page = PROFILE.games || { games: [], more: false };
  const head = pfEl("tr", {});
  for (const k of ["pf_date", "pf_game", "pf_opponent", "pf_result", "pf_score", "pf_rating", ""]) head.appendChild(pfEl("th", { text: k ? t(k) : "" }));
  table.appendChild(head);
  if (!page.games.length) table.appendChild(pfEl("tr", {}, pfEl("td", { colspan: "7", class: "empty", text: t("pf_no_games") })));
  for (const g of page.games) {
    const opp = g.opponent && g.opponent.name;
    const score = g.score ? `${g.score[g.side]}-${g.score[1 - g.side]}` : "";
    let rating = "";
    if (g.rating) {
      const d = Math.round(g.rating.after - g.rating.before);
      rating = `${Math.round(g.rating.after)} (${d >= 0 ? "+" : ""}${d})`;
    }
    const kind = `${t("game_" + g.game)}${g.length ? ", " + t("lobby_to", { n: g.length }) : ""}${g.clock_class ? ", " + pfClockName(g.clock_class) : ""}`;
    table.appendChild(pfEl("tr", { "data-game": g.id, "data-result": g.result || "" },
      pfEl("td", { text: new Date(g.ended).toLocaleDateString(LANG) }),
      pfEl("td", { text: kind + (g.rated ? "" : ", " + t("pf_unrated")) }),
      pfEl("td", {}, opp ? nardyNameLink(opp) : "?"),
      pfEl("td", { class: "pf-result", text: g.result ? t("pf_" + g.result) : "" }),
      pfEl("td", { text: score }),
      pfEl("td", { class: "rating", text: rating }),
      pfEl("td", { class: "pf-links" },
        pfEl("a", { href: `#/game/${g.id}`, class: "pf-open", text: t("pf_open") }), " ",
        pfEl("a", { href: g.mat, download: `nardy-${g.id}.mat`, class: "pf-mat", text: ".mat" }), " ",
        pfEl("a", { href: `#/review/${g.id}`, class: "pf-analysis", text: t("pf_analysis") }))));
  }
  $("#pf-prev").disabled = PROFILE.offset <= 0;
  $("#pf-next").disabled = !page.more;
}
