// Turn alerts (issue 43, docs/online.md "Turn alerts"): when it becomes your turn in an online game, or a
// challenge reaches you, the tab's title and icon change (a dot drawn as an SVG data URL); with your leave the
// browser's notification shows it (Notification API), and a sound of its own plays when it becomes your turn
// (made with WebAudio: no file), once a turn, not at every roll. The settings (title, notifications, sound) are
// kept with an account (GET/PUT /api/me/settings), by a guest's browser (localStorage "nardy.alerts").
// app.js's setView calls nardyAlerts.view(prev, v); social.js calls nardyAlerts.raise/clear for challenges.
"use strict";

const ALERTS = {
  settings: { title: true, notifications: false, sound: true },
  loadedFor: undefined,  // the user whose settings were loaded (null: a guest or nobody)
  base: null,            // the tab's own title and icon
  baseIcon: null,
  raised: new Map(),     // kind ("turn", "challenge:<id>") -> text, the alerts shown now
  notified: 0,           // notifications shown, sounds played (tests read them)
  sounds: 0,
  audio: null,
};
window.nardyAlerts = ALERTS;

function alertsMe() { return typeof S !== "undefined" && S.me ? S.me : null; }

async function loadAlertSettings() {
  const me = alertsMe();
  const who = me ? me.id : null;
  if (who === ALERTS.loadedFor) return;
  ALERTS.loadedFor = who;
  let got = null;
  if (me && !me.guest) {
    try { got = (await api("GET", "/api/me/settings")).alerts; } catch (e) { got = null; }
  } else {
    try { got = JSON.parse(localStorage.getItem("nardy.alerts") || "null"); } catch (e) { got = null; }
  }
  if (got) ALERTS.settings = { ...ALERTS.settings, ...got };
  syncAlertBoxes();
}

async function saveAlertSettings() {
  const me = alertsMe();
  if (me && !me.guest) {
    try { await api("PUT", "/api/me/settings", { alerts: ALERTS.settings }); } catch (e) { /* kept on the page */ }
  } else {
    try { localStorage.setItem("nardy.alerts", JSON.stringify(ALERTS.settings)); } catch (e) { /* private mode */ }
  }
}

function syncAlertBoxes() {
  for (const k of ["title", "notifications", "sound"]) {
    const box = document.getElementById("alert-" + k);
    if (box) box.checked = !!ALERTS.settings[k];
  }
}

function buildAlertBoxes() {
  const row = document.querySelector(".prefs");
  if (!row || document.getElementById("alert-title")) return;
  for (const k of ["title", "notifications", "sound"]) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "alert-" + k;
    box.checked = !!ALERTS.settings[k];
    box.onchange = async () => {
      ALERTS.settings[k] = box.checked;
      if (k === "notifications" && box.checked && "Notification" in window && Notification.permission !== "granted") {
        try { await Notification.requestPermission(); } catch (e) { /* refused */ }
      }
      saveAlertSettings();
    };
    const label = document.createElement("label");
    label.className = "check";
    const span = document.createElement("span");
    span.dataset.alertLabel = "alerts_" + k;
    span.textContent = " " + t("alerts_" + k);
    label.append(box, span);
    row.appendChild(label);
  }
}

function wordAlerts() {
  for (const s of document.querySelectorAll("[data-alert-label]")) s.textContent = " " + t(s.dataset.alertLabel);
  if (ALERTS.raised.size) showAlerts();
}

// ----- title, icon, notification, sound --------------------------------------------------------------------
function alertIcon(colour) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="${colour}"/></svg>`;
  return "data:image/svg+xml," + encodeURIComponent(svg);
}

function iconLink() {
  let link = document.querySelector("link[rel~='icon']");
  if (!link) { link = document.createElement("link"); link.rel = "icon"; document.head.appendChild(link); }
  return link;
}

function showAlerts() {
  if (ALERTS.base === null) { ALERTS.base = document.title; ALERTS.baseIcon = iconLink().href; }
  const texts = [...ALERTS.raised.values()];
  if (!texts.length || !ALERTS.settings.title) {
    document.title = ALERTS.base;
    iconLink().href = ALERTS.baseIcon;
    document.documentElement.dataset.alert = "";
    return;
  }
  document.title = `(${texts.length}) ${texts[texts.length - 1]} · ${ALERTS.base}`;
  iconLink().href = alertIcon(ALERTS.raised.has("turn") ? "#d33" : "#e90");
  document.documentElement.dataset.alert = [...ALERTS.raised.keys()].join(" ");
}

// An alert of ``kind`` with ``text``: the title and icon (while it stands), a notification where allowed.
function raiseAlert(kind, text, opts) {
  if (ALERTS.raised.get(kind) === text) return;
  ALERTS.raised.set(kind, text);
  showAlerts();
  if (ALERTS.settings.notifications && "Notification" in window && Notification.permission === "granted") {
    try {
      const n = new Notification("nardy", { body: text, tag: kind });
      n.onclick = () => { window.focus(); if (opts && opts.href) location.hash = opts.href; };
      ALERTS.notified++;
    } catch (e) { /* the browser refused (a service worker is needed on some phones) */ }
  }
}

function clearAlert(kind) {
  if (!ALERTS.raised.delete(kind)) return;
  showAlerts();
}

// A chime of two notes (the "your turn" sound: not the dice's or the checkers').
function turnSound() {
  if (!ALERTS.settings.sound) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    const ctx = ALERTS.audio || (ALERTS.audio = new Ctx());
    const now = ctx.currentTime;
    for (const [i, f] of [[0, 660], [1, 880]]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.3);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + i * 0.16);
      osc.stop(now + i * 0.16 + 0.32);
    }
    ALERTS.sounds++;
  } catch (e) { /* no audio here */ }
}

// ----- the game's views (app.js setView) ---------------------------------------------------------------------
function myTurn(v) {
  return !!(v && v.online && v.status === "playing" && v.you && v.you.length === 1 && v.to_act === v.you[0]);
}

ALERTS.view = function (prev, v) {
  if (!myTurn(v)) { clearAlert("turn"); return; }
  // a game opened at one's turn, or the same turn going on (a roll, a step): no alert
  if (!prev || prev.id !== v.id || myTurn(prev)) return;
  raiseAlert("turn", t("alerts_your_turn"), { href: "#/game/" + v.id });
  turnSound();
};
ALERTS.raise = raiseAlert;
ALERTS.clear = clearAlert;

document.addEventListener("visibilitychange", () => {
  // back on the tab: a turn's alert has done its work once the player looks at the game
  if (document.visibilityState === "visible" && ALERTS.raised.has("turn") && !document.hidden) {
    setTimeout(() => { if (document.hasFocus()) clearAlert("turn"); }, 1500);
  }
});

function alertsStart() {
  const wait = setInterval(() => {
    if (!document.body.dataset.ready) return;
    clearInterval(wait);
    buildAlertBoxes();
    const lang = document.getElementById("lang");  // app.js words the page first (its onchange), then this
    if (lang) lang.addEventListener("change", wordAlerts);
    loadAlertSettings();
    setInterval(loadAlertSettings, 2000);   // signed in or out meanwhile: that player's settings
  }, 200);
}

document.addEventListener("DOMContentLoaded", alertsStart);
