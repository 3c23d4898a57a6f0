// Chat (issue 43): a panel in the game screen (the game's channel this player writes in: players or watchers)
// and in the lobby (the lobby's channel). Messages come live on the channels the page has open already
// (online.js and lobby.js hand each {"type": "chat"} message to nardyChat.receive), and are read with
// GET /api/games/{id}/chat?after=SEQ (or /api/lobby/chat) when the panel opens and when a live channel opens
// again. Preset phrases as buttons (for phones), mute and report per message, an unread mark while the panel is
// folded. Texts: the catalogue's chat_* keys (section page).
"use strict";

const CHAT = {
  room: null,          // a game's id, or ":lobby"
  host: null,          // the element the panel is in
  panel: null,
  last: 0,             // the highest seq shown
  seen: new Set(),     // message ids shown
  unread: 0,
  folded: false,
  muted: new Set(),    // player ids this player mutes
  write: null,         // the channel this player writes in (null: none)
  wsKey: null,         // the live channel the messages were last read for (read again when it changes)
  sent: 0,             // counts messages sent (tests read it)
};
window.nardyChat = CHAT;

function chatEl(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
}

function chatPath(after) {
  const base = CHAT.room === ":lobby" ? "/api/lobby/chat" : `/api/games/${encodeURIComponent(CHAT.room)}/chat`;
  return after === undefined ? base : `${base}?after=${after}`;
}

function chatPresets() {
  return ["chat_preset_good_luck", "chat_preset_well_played", "chat_preset_thanks"].map((k) => t(k));
}

function chatBuild() {
  const list = chatEl("ol", { class: "chat-list", "aria-live": "polite" });
  const input = chatEl("input", { type: "text", maxlength: "300", class: "chat-input", placeholder: t("chat_placeholder"),
    "aria-label": t("chat_placeholder") });
  const form = chatEl("form", { class: "chat-form", on: { submit: (ev) => { ev.preventDefault(); chatSend(input.value, input); } } },
    input, chatEl("button", { type: "submit", class: "primary chat-send", text: t("chat_send") }));
  const presets = chatEl("div", { class: "chat-presets" },
    ...chatPresets().map((p) => chatEl("button", { type: "button", class: "secondary chat-preset", text: p,
      on: { click: () => chatSend(p) } })));
  const mark = chatEl("span", { class: "chat-unread", hidden: "" });
  const title = chatEl("button", { type: "button", class: "chat-toggle", "aria-expanded": "true",
    on: { click: () => chatFold(!CHAT.folded) } },
    chatEl("span", { class: "chat-title", text: CHAT.room === ":lobby" ? t("chat_lobby") : t("chat_title") }), mark);
  const error = chatEl("p", { class: "chat-error error-text" });
  const body = chatEl("div", { class: "chat-body" }, list, presets, form, error);
  return chatEl("aside", { class: "chat-panel", "data-room": CHAT.room }, title, body);
}

function chatFold(folded) {
  CHAT.folded = folded;
  if (!CHAT.panel) return;
  CHAT.panel.classList.toggle("folded", folded);
  CHAT.panel.querySelector(".chat-toggle").setAttribute("aria-expanded", folded ? "false" : "true");
  if (!folded) { CHAT.unread = 0; chatMark(); }
}

function chatMark() {
  if (!CHAT.panel) return;
  const mark = CHAT.panel.querySelector(".chat-unread");
  mark.hidden = CHAT.unread === 0;
  mark.textContent = CHAT.unread ? t("chat_unread", { n: CHAT.unread }) : "";
}

function chatCanWrite() {
  if (!CHAT.panel) return;
  const off = !CHAT.write;
  CHAT.panel.querySelector(".chat-form").hidden = off;
  CHAT.panel.querySelector(".chat-presets").hidden = off;
}

function chatShow(m, live) {
  if (!CHAT.panel || CHAT.seen.has(m.id) || CHAT.muted.has(m.from.id)) return;
  CHAT.seen.add(m.id);
  CHAT.last = Math.max(CHAT.last, m.seq);
  const me = window.nardy && window.nardy.me;
  const mine = me && me.id === m.from.id;
  const li = chatEl("li", { class: "chat-message" + (mine ? " mine" : "") + (m.channel === "watchers" ? " watchers" : ""),
    "data-id": m.id, "data-from": m.from.id },
    chatEl("span", { class: "chat-from", text: m.from.name }),
    m.channel === "watchers" && CHAT.room !== ":lobby" ? chatEl("span", { class: "chat-channel", text: t("chat_watchers") }) : null,
    chatEl("span", { class: "chat-text", text: m.text }));
  if (me && !mine) {
    li.append(chatEl("span", { class: "chat-tools" },
      chatEl("button", { type: "button", class: "link chat-mute", text: t("chat_mute"), on: { click: () => chatMute(m.from.id) } }),
      chatEl("button", { type: "button", class: "link chat-report", text: t("chat_report"), on: { click: (ev) => chatReport(m.id, ev.target) } })));
  }
  const list = CHAT.panel.querySelector(".chat-list");
  // in seq order (a message read late goes where it belongs)
  const after = [...list.children].find((x) => Number(x.dataset.seq) > m.seq);
  li.dataset.seq = String(m.seq);
  list.insertBefore(li, after || null);
  list.scrollTop = list.scrollHeight;
  if (live && !mine && (CHAT.folded || document.hidden)) { CHAT.unread++; chatMark(); }
}

async function chatLoad() {
  const room = CHAT.room;
  try {
    const out = await api("GET", chatPath(CHAT.last));
    if (room !== CHAT.room) return;
    CHAT.write = out.write;
    chatCanWrite();
    for (const m of out.messages) chatShow(m, false);
  } catch (e) { /* the panel stays as it is; the next live channel reads again */ }
}

async function chatSend(text, input) {
  const clean = (text || "").trim();
  if (!clean || !CHAT.room) return;
  const err = CHAT.panel.querySelector(".chat-error");
  err.textContent = "";
  const key = Math.random().toString(36).slice(2) + Date.now().toString(36);
  try {
    const m = await api("POST", chatPath(), { text: clean, key });
    CHAT.sent++;
    if (input) input.value = "";
    chatShow(m, false);
  } catch (e) { err.textContent = String(e.message || e); }
}

async function chatMute(uid) {
  try { await api("POST", "/api/mutes", { uid }); } catch (e) { return; }
  CHAT.muted.add(uid);
  if (CHAT.panel) for (const li of CHAT.panel.querySelectorAll(`.chat-message[data-from="${CSS.escape(uid)}"]`)) li.remove();
}

async function chatReport(mid, button) {
  const reason = window.prompt(t("chat_report_reason"), "");
  if (reason === null) return;
  try {
    await api("POST", `/api/chat/${encodeURIComponent(mid)}/report`, { reason: reason.slice(0, 200) });
    button.textContent = t("chat_reported");
    button.disabled = true;
  } catch (e) { /* nothing to undo */ }
}

function chatMount(room, host) {
  if (CHAT.panel) CHAT.panel.remove();
  Object.assign(CHAT, { room, host, panel: null, last: 0, seen: new Set(), unread: 0, write: null });
  if (!room || !host) return;
  CHAT.panel = chatBuild();
  host.append(CHAT.panel);
  chatFold(window.matchMedia && window.matchMedia("(max-width: 700px)").matches);
  chatCanWrite();
  if (window.nardy && window.nardy.me) {
    api("GET", "/api/mutes").then((out) => { for (const u of out.mutes) CHAT.muted.add(u.id); }).catch(() => {});
  }
  chatLoad();
}

// A message from a live channel: shown when it is of the open room.
CHAT.receive = (room, m) => { if (m && m.from && room === CHAT.room) chatShow(m, true); };

// Which room the screen shows: a game played online (a live channel is kept for it), the lobby, or none.
function chatSync() {
  const screen = document.body.dataset.screen;
  let room = null, host = null, wsKey = null;
  if (screen === "play" && typeof ONLINE !== "undefined" && ONLINE.key !== null && window.nardy && window.nardy.id) {
    room = window.nardy.id; host = document.getElementById("board-col"); wsKey = ONLINE.ws;
  } else if (screen === "lobby" && typeof LOBBY !== "undefined") {
    room = ":lobby"; host = document.getElementById("lobby"); wsKey = LOBBY.ws;
  }
  if (room !== CHAT.room || host !== CHAT.host) chatMount(room, host);
  else if (room && wsKey !== CHAT.wsKey && wsKey) chatLoad();  // a live channel opened again: read what it missed
  CHAT.wsKey = wsKey;
}

document.addEventListener("DOMContentLoaded", () => { setInterval(chatSync, 400); });
document.addEventListener("visibilitychange", () => { if (!document.hidden && !CHAT.folded) { CHAT.unread = 0; chatMark(); } });

// The record's review (review.js) shows the game's chat, read only: both channels once the game is over (the
// server gives each asker the channels they may read; a game without chat, or a record not stored here: nothing).
window.nardyChatReview = async (gid, host) => {
  if (!host) return;
  let box = host.querySelector("#rv-chat");
  if (box) box.remove();
  box = chatEl("div", { id: "rv-chat", class: "chat-review", hidden: "" });
  host.append(box);
  let out;
  try { out = await api("GET", `/api/games/${encodeURIComponent(gid)}/chat`); } catch (e) { return; }
  if (!out.messages.length) return;
  box.append(chatEl("h3", { text: t("chat_title") }));
  const list = chatEl("ol", { class: "chat-list" });
  for (const m of out.messages) {
    list.append(chatEl("li", { class: "chat-message" + (m.channel === "watchers" ? " watchers" : "") },
      chatEl("span", { class: "chat-from", text: m.from.name }),
      m.channel === "watchers" ? chatEl("span", { class: "chat-channel", text: t("chat_watchers") }) : null,
      chatEl("span", { class: "chat-text", text: m.text })));
  }
  box.append(list);
  box.hidden = false;
};
