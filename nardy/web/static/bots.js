// Programs as players (issue 44, docs/bots.md): the BOT mark beside a bot account's name (lobby, game seats,
// ratings, player pages) and, on one's own player page, the API tokens: make one (shown once), list, revoke.

// The BOT mark: a small label, titled (the page's language).
function nardyBotMark() {
  const s = document.createElement("span");
  s.className = "bot-mark";
  s.textContent = t("bt_mark");
  s.title = t("bt_mark_help");
  return s;
}

// Append the BOT mark to element `el` when `user` is a bot (user: {bot}).
function nardyMarkBot(el, user) {
  if (el && user && user.bot) el.append(" ", nardyBotMark());
}

// ----- the player page: the mark, and one's own API tokens --------------------------------------------
function botsProfile(p) {
  const head = document.getElementById("pf-name");
  if (head && p) nardyMarkBot(head, p);
  let box = document.getElementById("pf-tokens");
  const mine = p && S.me && !S.me.guest && S.me.id === p.id;
  if (!mine) { if (box) box.remove(); return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "pf-tokens";
    document.getElementById("pf-body").appendChild(box);
  }
  drawTokens(box);
}

async function drawTokens(box) {
  box.textContent = "";
  const h = document.createElement("h3");
  h.textContent = t("bt_tokens");
  const help = Object.assign(document.createElement("p"), { className: "bt-help", textContent: t("bt_tokens_help") });
  const form = document.createElement("form");
  form.id = "bt-form";
  const name = Object.assign(document.createElement("input"), { id: "bt-name", type: "text", maxLength: 40, required: true });
  name.placeholder = t("bt_token_name");
  const make = Object.assign(document.createElement("button"), { id: "bt-make", type: "submit", className: "secondary", textContent: t("bt_token_make") });
  form.append(name, " ", make);
  const shown = Object.assign(document.createElement("div"), { id: "bt-new" });
  const list = Object.assign(document.createElement("ul"), { id: "bt-list" });
  const err = Object.assign(document.createElement("p"), { id: "bt-error", className: "error-text" });
  box.append(h, help, form, shown, list, err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    try {
      const made = await api("POST", "/api/auth/tokens", { name: name.value.trim() || "bot" });
      name.value = "";
      shown.textContent = "";
      shown.append(Object.assign(document.createElement("p"), { textContent: t("bt_token_once") }),
        Object.assign(document.createElement("code"), { id: "bt-secret", textContent: made.token }));
      await listTokens(list, err);
    } catch (ex) { err.textContent = ex.message; }
  });
  await listTokens(list, err);
}

async function listTokens(list, err) {
  try {
    const r = await api("GET", "/api/auth/tokens");
    list.textContent = "";
    if (!r.tokens.length) list.append(Object.assign(document.createElement("li"), { className: "empty", textContent: t("bt_token_none") }));
    for (const tok of r.tokens) {
      const li = document.createElement("li");
      li.dataset.token = tok.id;
      const used = tok.last_used ? t("bt_token_used", { when: new Date(tok.last_used).toLocaleString(LANG) }) : t("bt_token_unused");
      li.append(Object.assign(document.createElement("b"), { textContent: tok.name }), ` (${tok.scopes.join(", ")}; ${used}) `);
      const rm = Object.assign(document.createElement("button"), { type: "button", className: "secondary bt-revoke", textContent: t("bt_token_revoke") });
      rm.addEventListener("click", async () => {
        try { await api("DELETE", `/api/auth/tokens/${tok.id}`); await listTokens(list, err); } catch (ex) { err.textContent = ex.message; }
      });
      li.append(rm);
      list.append(li);
    }
  } catch (ex) { err.textContent = ex.message; }
}
