// Named challenges and friends (issue 43, docs/online.md "Friends and challenges"). On every screen the page
// keeps the lobby's live channel open while someone is signed in: a challenge made to this player arrives in
// its "named" part (nobody else's channel carries it) and shows a toast with Accept and Decline wherever the
// player is (and the tab's title, icon and notification through alerts.js). nardyChallenge(name) opens the
// dialog that challenges a player by name (game, length, clock, rated): the lobby's online list, a finished
// game and a player's page call it. The lobby shows whom one follows (GET /api/follows): online, and the game
// they play, to watch.
"use strict";

const SOCIAL = {
  ws: null,
  uid: null,        // whose channel is open
  retry: 0,
  timer: null,
  ping: null,
  named: [],        // the named challenges as last received (to or from this player)
  toasts: 0,        // toasts shown (tests read them)
  sent: new Set(),  // challenges this page made (their game opens here when accepted)
  follows: null,    // GET /api/follows as last read
  opened: null,
};
window.nardySocial = SOCIAL;

function sel_(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.appendChild(k);
  return e;
}

function socialMe() { return typeof S !== "undefined" && S.me ? S.me : null; }

// ----- the channel --------------------------------------------------------------------------------------------
function socialSync() {
  const me = socialMe();
  const uid = me ? me.id : null;
  if (uid === SOCIAL.uid) return;
  socialClose();
  SOCIAL.uid = uid;
  if (uid) socialConnect();
}

function socialConnect() {
  if (!SOCIAL.uid) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let ws;
  try { ws = new WebSocket(`${proto}//${location.host}/api/lobby/live`); } catch (e) { socialRetry(); return; }
  SOCIAL.ws = ws;
  ws.onopen = () => {
    SOCIAL.retry = 0;
    clearInterval(SOCIAL.ping);
    SOCIAL.ping = setInterval(() => { if (ws.readyState === 1) ws.send("ping"); }, 25000);
  };
  ws.onmessage = (ev) => {
    if (SOCIAL.ws !== ws || ev.data === "pong") return;
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    const part = m.type === "lobby" ? m.lobby : m.type === "lobby-delta" ? m : null;
    if (!part) return;
    if ("named" in part) receiveNamed(part.named || []);
    if ("taken" in part) receiveTaken(part.taken);
  };
  ws.onclose = () => {
    if (SOCIAL.ws !== ws) return;
    SOCIAL.ws = null;
    clearInterval(SOCIAL.ping);
    socialRetry();
  };
}

function socialRetry() {
  if (!SOCIAL.uid || SOCIAL.timer) return;
  const delay = Math.min(30000, 1000 * 2 ** SOCIAL.retry) * (0.75 + Math.random() * 0.5);
  SOCIAL.retry = Math.min(SOCIAL.retry + 1, 10);
  SOCIAL.timer = setTimeout(() => { SOCIAL.timer = null; socialConnect(); }, delay);
}

function socialClose() {
  SOCIAL.uid = null;
  clearTimeout(SOCIAL.timer);
  SOCIAL.timer = null;
  clearInterval(SOCIAL.ping);
  const ws = SOCIAL.ws;
  SOCIAL.ws = null;
  if (ws) { try { ws.close(1000); } catch (e) { /* closing anyway */ } }
  for (const el of document.querySelectorAll("#toasts .toast")) el.remove();
}

// ----- challenges received: toasts ------------------------------------------------------------------------
function challengeTerms(c) {
  if (typeof termsText === "function") return termsText(c);
  return `${t("game_" + c.game)}, ${c.length}`;
}

function toastBox() {
  let box = document.getElementById("toasts");
  if (!box) { box = sel_("div", { id: "toasts", "aria-live": "polite" }); document.body.appendChild(box); }
  return box;
}

function receiveNamed(list) {
  SOCIAL.named = list;
  const me = SOCIAL.uid;
  const open = new Set();
  for (const c of list) {
    if (c.status === "open" && c.to && c.to.id === me) {
      open.add(c.id);
      if (!document.querySelector(`#toasts .toast[data-challenge="${c.id}"]`)) challengeToast(c);
    } else if (c.status === "declined" && c.owner && c.owner.id === me && SOCIAL.sent.has(c.id)) {
      SOCIAL.sent.delete(c.id);
      noteToast(t("soc_declined", { name: c.to ? c.to.name : "?" }));
    }
  }
  // withdrawn, lapsed, taken: their toasts go
  for (const el of document.querySelectorAll("#toasts .toast[data-challenge]")) {
    if (!open.has(el.dataset.challenge)) { el.remove(); if (window.nardyAlerts) nardyAlerts.clear("challenge:" + el.dataset.challenge); }
  }
}

function challengeToast(c) {
  const text = t("soc_challenge_from", { name: c.owner.name, terms: challengeTerms(c) });
  const el = sel_("div", { class: "toast", role: "alert", "data-challenge": c.id },
    sel_("span", { text }),
    sel_("button", { type: "button", class: "primary toast-accept", text: t("lobby_accept"),
      on: { click: () => answerChallenge(c, true, el) } }),
    sel_("button", { type: "button", class: "secondary toast-decline", text: t("soc_decline"),
      on: { click: () => answerChallenge(c, false, el) } }));
  toastBox().appendChild(el);
  SOCIAL.toasts++;
  if (window.nardyAlerts) nardyAlerts.raise("challenge:" + c.id, text, { href: "#/lobby" });
}

function noteToast(text) {
  const el = sel_("div", { class: "toast note", role: "status" }, sel_("span", { text }),
    sel_("button", { type: "button", class: "secondary", text: "×", "aria-label": t("soc_close"),
      on: { click: () => el.remove() } }));
  toastBox().appendChild(el);
  setTimeout(() => el.remove(), 8000);
}

async function answerChallenge(c, yes, el) {
  if (window.nardyAlerts) nardyAlerts.clear("challenge:" + c.id);
  try {
    if (yes) {
      const v = await api("POST", `/api/lobby/challenges/${c.id}/accept`, { own_seed: true });
      el.remove();
      openChallengeGame(v.id);
    } else {
      await api("POST", `/api/lobby/challenges/${c.id}/decline`);
      el.remove();
    }
  } catch (e) {
    el.remove();
    noteToast(e.message);
  }
}

function openChallengeGame(gid) {
  SOCIAL.opened = gid;
  if (typeof openPaired === "function") openPaired(gid);
  else location.hash = "#/game/" + gid;
}

// one's own named challenge accepted while the page is elsewhere: its game opens (once)
function receiveTaken(c) {
  if (!c || c.status !== "accepted" || !c.game_id || !SOCIAL.sent.has(c.id)) return;
  SOCIAL.sent.delete(c.id);
  if (SOCIAL.opened === c.game_id || (typeof opened === "function" && opened(c.game_id))) return;
  openChallengeGame(c.game_id);
}

// ----- the challenge dialog -------------------------------------------------------------------------------
function buildChallengeDialog() {
  const opts = (values, label) => values.map((v) => sel_("option", { value: v, text: label(v) }));
  const dlg = sel_("dialog", { id: "challenge-dialog" },
    sel_("form", { method: "dialog", id: "challenge-form" },
      sel_("h3", { id: "ch-title" }),
      sel_("label", {}, sel_("span", { "data-soc": "soc_game" }),
        sel_("select", { id: "ch-game" }, ...opts(["backgammon", "short", "long"], (g) => t("game_" + g)))),
      sel_("label", {}, sel_("span", { "data-soc": "lobby_length" }),
        sel_("input", { id: "ch-length", type: "number", min: "1", max: "25", value: "1" })),
      sel_("label", {}, sel_("span", { "data-soc": "lobby_clock" }),
        sel_("select", { id: "ch-clock" },
          ...opts(["blitz", "rapid", "classic", "none"], (c) => t(c === "none" ? "lobby_clock_untimed" : "lobby_clock_" + c)))),
      sel_("label", { class: "check" }, sel_("input", { id: "ch-rated", type: "checkbox" }), sel_("span", { "data-soc": "lobby_rated" })),
      sel_("p", { id: "ch-error", class: "error", role: "alert" }),
      sel_("div", { class: "buttons" },
        sel_("button", { type: "button", id: "ch-cancel", class: "secondary", "data-soc": "cancel",
          on: { click: () => dlg.close() } }),
        sel_("button", { type: "submit", id: "ch-send", class: "primary", "data-soc": "soc_send" }))));
  dlg.querySelector("form").addEventListener("submit", (ev) => { ev.preventDefault(); sendChallenge(); });
  document.body.appendChild(dlg);
  return dlg;
}

function wordSocial() {
  for (const e of document.querySelectorAll("[data-soc]")) e.textContent = t(e.dataset.soc);
}

// Open the dialog that challenges the player named ``name`` (other page code calls it).
function nardyChallenge(name) {
  const dlg = document.getElementById("challenge-dialog") || buildChallengeDialog();
  wordSocial();
  dlg.dataset.to = name;
  document.getElementById("ch-title").textContent = t("soc_challenge_title", { name });
  const me = socialMe();
  const rated = document.getElementById("ch-rated");
  rated.checked = !!(me && !me.guest);
  rated.disabled = !me || me.guest;
  document.getElementById("ch-error").textContent = me ? "" : t("lobby_sign_in");
  if (!dlg.open) dlg.showModal();
}
window.nardyChallenge = nardyChallenge;

async function sendChallenge() {
  const dlg = document.getElementById("challenge-dialog");
  const err = document.getElementById("ch-error");
  err.textContent = "";
  if (!socialMe()) { err.textContent = t("lobby_sign_in"); return; }
  const clock = document.getElementById("ch-clock").value;
  const body = {
    to: dlg.dataset.to,
    game: document.getElementById("ch-game").value,
    length: Number(document.getElementById("ch-length").value || 1),
    clock: clock === "none" ? null : clock,
    rated: document.getElementById("ch-rated").checked,
    own_seed: true,
  };
  try {
    const r = await api("POST", "/api/lobby/challenges", body);
    SOCIAL.sent.add(r.challenge.id);
    dlg.close();
    noteToast(t("soc_sent", { name: dlg.dataset.to }));
  } catch (e) {
    err.textContent = e.message;
  }
}

// ----- follows (in the lobby) ---------------------------------------------------------------------------------
async function loadFollows() {
  const lobby = document.getElementById("lobby");
  if (!lobby || lobby.hidden || !socialMe()) return;
  let list = document.getElementById("follows");
  if (!list) {
    lobby.appendChild(sel_("h3", { "data-soc": "soc_following" }));
    list = sel_("ul", { id: "follows", class: "lobby-list" });
    lobby.appendChild(list);
    wordSocial();
  }
  try { SOCIAL.follows = (await api("GET", "/api/follows")).follows; } catch (e) { return; }
  list.textContent = "";
  if (!SOCIAL.follows.length) list.appendChild(sel_("li", { class: "empty", text: t("soc_no_follows") }));
  for (const f of SOCIAL.follows) {
    const state = f.playing ? t("soc_playing") : f.online ? t("soc_online") : t("soc_offline");
    const li = sel_("li", { "data-follow": f.uid, class: f.online ? "online" : "offline" },
      sel_("span", { text: `${f.name}: ${state} ` }));
    if (f.playing) li.appendChild(sel_("a", { href: `#/game/${f.playing}`, text: t("soc_watch") }));
    li.appendChild(sel_("button", { type: "button", class: "secondary challenge", text: t("soc_challenge"),
      on: { click: () => nardyChallenge(f.name) } }));
    li.appendChild(sel_("button", { type: "button", class: "secondary unfollow", text: t("soc_unfollow"),
      on: { click: async () => { await api("DELETE", `/api/follows/${f.uid}`); loadFollows(); } } }));
    list.appendChild(li);
  }
}

async function followPlayer(name) {
  try { await api("POST", "/api/follows", { name }); } catch (e) { noteToast(e.message); return; }
  loadFollows();
}
window.nardyFollow = followPlayer;

// the lobby's online list: a challenge and a follow button by each account (not oneself, not a guest)
function decorateOnline() {
  const me = socialMe();
  const state = window.nardyLobby && window.nardyLobby.state;
  if (!me || !state) return;
  for (const u of state.online) {
    const li = document.querySelector(`#lobby-online li[data-user="${u.id}"]`);
    if (!li || u.id === me.id || u.guest || li.querySelector(".challenge")) continue;
    li.appendChild(sel_("button", { type: "button", class: "secondary challenge", text: t("soc_challenge"),
      on: { click: () => nardyChallenge(u.name) } }));
    li.appendChild(sel_("button", { type: "button", class: "secondary follow", text: t("soc_follow"),
      on: { click: () => followPlayer(u.name) } }));
  }
}

// a finished online game: challenge the opponent again by name
function decorateGame() {
  const v = typeof S !== "undefined" ? S.view : null;
  let btn = document.getElementById("btn-challenge-again");
  const over = v && v.online && v.you && v.you.length === 1 && v.match_over;
  const other = over && v.players ? v.players[1 - v.you[0]] : null;
  if (!other || !socialMe() || socialMe().guest) { if (btn) btn.hidden = true; return; }
  if (!btn) {
    const box = document.getElementById("resign-box");
    if (!box) return;
    btn = sel_("button", { type: "button", id: "btn-challenge-again", class: "secondary" });
    box.parentNode.insertBefore(btn, box.nextSibling);
  }
  btn.textContent = t("soc_challenge_name", { name: other });
  btn.onclick = () => nardyChallenge(other);
  btn.hidden = false;
}

function socialStart() {
  const wait = setInterval(() => {
    if (!document.body.dataset.ready) return;
    clearInterval(wait);
    const lang = document.getElementById("lang");  // app.js words the page first (its onchange), then this
    if (lang) lang.addEventListener("change", () => { wordSocial(); loadFollows(); });
    socialSync();
    let seenLobby = -1;
    setInterval(() => {
      socialSync();
      const n = window.nardyLobby ? window.nardyLobby.updates : -1;
      if (n !== seenLobby) { seenLobby = n; decorateOnline(); }
      decorateGame();
    }, 500);
    loadFollows();
    setInterval(loadFollows, 15000);
    window.addEventListener("hashchange", () => setTimeout(loadFollows, 300));
  }, 200);
}

document.addEventListener("DOMContentLoaded", socialStart);
