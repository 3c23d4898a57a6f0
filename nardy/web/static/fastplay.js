"use strict";
// Playing faster (docs/online.md, "Playing faster"): a play typed in a box (sent as {"action": "play",
// "typed": true}: the server reads it in the page's numbering), automatic rolls and forced steps (options kept
// per player in this browser), and a checker's step shown at once on the player's own board, before the
// server answers (its answer is authoritative: a refused step is undone and its message shown).
// Loaded after app.js: it wraps app.js's step() and renderControls().

const FAST = { timer: null };

function fastPref(k) { return localStorage.getItem("nardy.fast." + k) === "on"; }

// ----- the optimistic step ------------------------------------------------------------------------------
const slowStep = step;
// eslint-disable-next-line no-global-assign
step = async function (from, to) {
  const v = S.view;
  from = Number(from); to = Number(to);
  let orig = null;
  if (v && !S.busy && v.board && v.turn !== null && (v.moves[String(from)] || []).includes(to)) {
    const b = copyBoard(v.board);
    if (applyStep(b, from, to, v.turn === v.viewer ? 0 : 1, v.game !== "long")) {
      orig = v.board;
      v.board = b;           // the board shows the step now; the server's answer replaces the view
      S.selected = null;
      renderBoard($("#board"), v, { selected: null });
      $("#board").dataset.optimistic = String(Date.now());
    }
  }
  try {
    return await slowStep(from, to);
  } finally {
    if (orig !== null && S.view === v) {   // not replaced by an answer: refused, undo the step
      v.board = orig;
      if (S.message && S.message.text) S.message = { kind: "error", text: t("fast_undone", { text: S.message.text }) };
      render();
    }
  }
};

// ----- the typed play and the options --------------------------------------------------------------------
function fastBox() {
  let box = $("#fast-box");
  if (box) return box;
  box = document.createElement("form");
  box.id = "fast-box";
  box.innerHTML = '<label><span data-i18n="fast_typed_label"></span> <input id="fast-typed" autocomplete="off" maxlength="200"></label>'
    + ' <button id="fast-go" type="submit" data-i18n="fast_typed_go"></button>'
    + ' <label><input id="fast-auto-roll" type="checkbox"> <span data-i18n="fast_auto_roll"></span></label>'
    + ' <label><input id="fast-auto-forced" type="checkbox"> <span data-i18n="fast_auto_forced"></span></label>';
  $("#controls").after(box);
  box.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  box.onsubmit = (ev) => {
    ev.preventDefault();
    const text = $("#fast-typed").value.trim();
    if (!text) return;
    $("#fast-typed").value = "";
    act("play", { play: text, typed: true });
  };
  for (const [id, k] of [["#fast-auto-roll", "roll"], ["#fast-auto-forced", "forced"]]) {
    const c = box.querySelector(id);
    c.checked = fastPref(k);
    c.onchange = () => { localStorage.setItem("nardy.fast." + k, c.checked ? "on" : "off"); fastAuto(); };
  }
  return box;
}

// An automatic action when the options ask for one: the roll, even where the player could double (the server
// rolls by itself only where no double is possible), a step when only one step can be taken, the confirmation
// when the play so made is complete and nothing else may move.
function fastAuto() {
  clearTimeout(FAST.timer);
  const v = S.view;
  if (!v || S.busy || !v.you || !v.you.includes(v.to_act)) return;
  let next = null;
  if (fastPref("roll") && v.phase === "roll" && v.actions.includes("roll")) {
    next = () => act("roll");
  } else if (fastPref("forced") && v.phase === "move") {
    const froms = Object.keys(v.moves || {});
    if (froms.length === 1 && v.moves[froms[0]].length === 1) next = () => step(froms[0], v.moves[froms[0]][0]);
    else if (!froms.length && v.can_confirm && v.actions.includes("confirm")) next = () => act("confirm");
  }
  if (next) FAST.timer = setTimeout(() => { if (S.view === v && !S.busy) next(); }, 250);
}

const slowControls = renderControls;
// eslint-disable-next-line no-global-assign
renderControls = function () {
  slowControls();
  const v = S.view;
  if (!v || !$("#controls")) return;
  const box = fastBox();
  box.querySelector("#fast-typed").disabled = v.phase !== "move";
  $("#fast-go").disabled = S.busy;
  box.hidden = !(v.you && v.you.length);
  fastAuto();
};
