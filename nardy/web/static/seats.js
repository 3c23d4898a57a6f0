"use strict";
// Presence and early abort in an online game (docs/online.md "Presence", "Fair play"; issue 43).
// Each seat's line: connected, away since a time, or (this page's own seat while its live channel is down)
// reconnecting; the server pushes {"type": "presence", "id", "presence", "away_since"} on the game's live
// channel when a seat comes or goes (online.js hands it here), and every view carries the same fields.
// The abort button shows while the view says the match may still be aborted (view.abortable).

window.nardySeats = (() => {
  let ticker = null;

  function box() {
    let el = document.getElementById("seat-presence");
    if (!el) {
      const after = document.getElementById("live-state");
      if (!after) return null;
      el = document.createElement("ul");
      el.id = "seat-presence";
      el.className = "seat-presence";
      after.insertAdjacentElement("afterend", el);
    }
    return el;
  }

  function abortButton() {
    let b = document.getElementById("btn-abort");
    if (!b) {
      const resign = document.getElementById("btn-resign");
      if (!resign) return null;
      b = document.createElement("button");
      b.id = "btn-abort";
      b.type = "button";
      b.className = "secondary";
      b.hidden = true;
      b.addEventListener("click", abort);
      resign.insertAdjacentElement("afterend", b);
    }
    return b;
  }

  async function abort() {
    const v = S.view;
    if (!v || !v.abortable || !window.confirm(t("abort_confirm"))) return;
    try {
      receiveView(await api("POST", `/api/games/${encodeURIComponent(v.id)}/abort`));
    } catch (e) {
      showError(e);
    }
  }

  // "away since 12:03 (2 min)" from an ISO time, in the page's language.
  function awayText(iso) {
    const at = new Date(iso);
    if (isNaN(at)) return t("seat_away");
    const secs = Math.max(0, Math.round((Date.now() - at.getTime()) / 1000));
    const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    return t("seat_away_since", { time, n: secs });
  }

  function render() {
    const v = S.view;
    const el = box();
    const b = abortButton();
    const online = !!(v && v.online && v.presence);
    if (b) {
      b.textContent = t("abort_match");
      b.hidden = !(online && v.abortable && v.you.length > 0);
    }
    if (!el) return;
    el.hidden = !online || v.online.waiting || v.match_over;
    clearInterval(ticker);
    ticker = null;
    if (el.hidden) { el.textContent = ""; return; }
    el.textContent = "";
    for (const side of [0, 1]) {
      const li = document.createElement("li");
      const mine = v.you.includes(side);
      let state;
      if (mine && ONLINE.live === false) state = "reconnecting";
      else if (v.presence[side]) state = "on";
      else state = "away";
      li.dataset.side = String(side);
      li.dataset.state = state;
      li.className = `seat-${state}`;
      const name = (v.seats && v.seats[side] && v.seats[side].name) || "";
      const what = state === "on" ? t("seat_connected")
        : state === "reconnecting" ? t("seat_reconnecting")
          : (v.away_since && v.away_since[side] ? awayText(v.away_since[side]) : t("seat_away"));
      li.textContent = `${name}: ${what}`;
      el.appendChild(li);
    }
    if (v.presence.includes(false)) ticker = setInterval(render, 15000);  // the "for how long" goes on
  }

  // A presence message of the shown game: its fields go into the view kept (not a new state: no seq), unless
  // the view's came about later (views and these messages may cross: each says when its presence came about).
  function receive(m) {
    const v = S.view;
    if (!v || m.id !== v.id) return;
    if (typeof m.at === "number" && typeof v.presence_at === "number" && m.at < v.presence_at) return;
    v.presence = m.presence;
    v.away_since = m.away_since;
    v.presence_at = m.at;
    S.presenceAt = Date.now();
    render();
  }

  // A new view v of the game prev shows: the seats' presence of prev is kept when it came about later than v's (a view
  // read before a seat came may arrive after the seat's presence message). Called by app.js's setView.
  function carry(prev, v) {
    if (!prev || !v || prev.id !== v.id || !v.presence || !prev.presence) return;
    if (typeof prev.presence_at !== "number" || typeof v.presence_at !== "number") return;
    if (prev.presence_at <= v.presence_at) return;
    v.presence = prev.presence;
    v.away_since = prev.away_since;
    v.presence_at = prev.presence_at;
  }

  return { render, receive, carry };
})();
