"use strict";
// Correspondence games (docs/online.md, "Correspondence"): the home page lists the games where it is this
// player's turn (GET /api/games?turn=mine): opponent, game, time left to move. Loaded after app.js: it wraps
// showHome().

function yourTurnItem(g) {
  const li = document.createElement("li");
  li.className = "your-turn-game";
  li.dataset.id = g.id;
  const a = document.createElement("a");
  a.href = "#/game/" + g.id;
  const left = g.clock_due
    ? t("corr_left", { h: Math.max(0, Math.floor((Date.parse(g.clock_due) - Date.now()) / 3600000)) })
    : t("corr_untimed");
  a.textContent = `${t("game_" + g.game)} ${t("corr_vs", { name: g.opponent })} · ${left}`;
  li.appendChild(a);
  return li;
}

async function showYourTurn() {
  let box = $("#your-turn");
  if (!box) {
    box = document.createElement("div");
    box.id = "your-turn";
    box.innerHTML = '<h2 data-i18n="corr_your_turn"></h2><ul id="your-turn-list"></ul>';
    $("#home").prepend(box);
  }
  box.querySelector("h2").textContent = t("corr_your_turn");
  const list = $("#your-turn-list");
  list.textContent = "";
  try {
    const data = await api("GET", "/api/games?turn=mine&limit=50");
    if (!data.games.length) {
      const p = document.createElement("li");
      p.className = "empty";
      p.textContent = t("corr_none");
      list.appendChild(p);
    }
    for (const g of data.games) list.appendChild(yourTurnItem(g));
  } catch (e) { box.hidden = true; return; }
  box.hidden = false;
}

const homeWithoutTurns = showHome;
// eslint-disable-next-line no-global-assign
showHome = async function () {
  const out = await homeWithoutTurns();
  await showYourTurn();
  return out;
};
