// The dice self-test page (/dice): asks the server for N rolls of the fair dice scheme from fresh seeds
// (GET /api/dice/test) and shows the counts against their expectation with the chi-square figures.
"use strict";

const $d = (sel) => document.querySelector(sel);
let LAST = null;   // the last answer (redrawn when the language changes)
window.diceTest = { runs: 0, last: null };

function randomSeed() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function num(x, digits) { return Number(x).toLocaleString(LANG, { maximumFractionDigits: digits }); }

function chiText(test) {
  const p = test.p < 1e-4 ? test.p.toExponential(2) : num(test.p, 4);
  return t("dice_chi", { chi: num(test.chi2, 2), df: test.df, p });
}

// a cell coloured by how far the count is from its expectation (in standard deviations)
function cell(tr, count, expected, prob, tag) {
  const td = document.createElement(tag || "td");
  const sd = Math.sqrt(expected * (1 - prob));
  const z = sd > 0 ? (count - expected) / sd : 0;
  td.textContent = count.toLocaleString(LANG);
  td.title = `${t("dice_expected")} ${num(expected, 1)}, z = ${num(z, 2)}`;
  td.dataset.z = z.toFixed(2);
  const a = Math.min(1, Math.abs(z) / 3);
  td.style.background = z >= 0 ? `rgba(29, 107, 58, ${a * 0.45})` : `rgba(176, 0, 32, ${a * 0.45})`;
  tr.appendChild(td);
  return td;
}

function head(tr, text) {
  const th = document.createElement("th");
  th.textContent = text;
  tr.appendChild(th);
}

function draw(r) {
  $d("#dice-results").hidden = false;
  $d("#chi-pairs").textContent = chiText(r.pairs_test);
  $d("#chi-faces").textContent = chiText(r.faces_test);
  $d("#chi-rolls21").textContent = chiText(r.rolls21_test);
  const pairs = $d("#pairs");
  pairs.textContent = "";
  let tr = document.createElement("tr");
  head(tr, "");
  for (let j = 1; j <= 6; j++) head(tr, String(j));
  pairs.appendChild(tr);
  for (let i = 0; i < 6; i++) {
    tr = document.createElement("tr");
    head(tr, String(i + 1));
    for (let j = 0; j < 6; j++) cell(tr, r.pairs[i][j], r.n / 36, 1 / 36);
    pairs.appendChild(tr);
  }
  const faces = $d("#faces");
  faces.textContent = "";
  const h = document.createElement("tr"), c = document.createElement("tr"), e = document.createElement("tr");
  head(h, ""); head(c, t("dice_count")); head(e, t("dice_expected"));
  r.faces.forEach((n, i) => {
    head(h, String(i + 1));
    cell(c, n, r.faces_expected, 1 / 6);
    const td = document.createElement("td");
    td.textContent = num(r.faces_expected, 1);
    e.appendChild(td);
  });
  faces.append(h, c, e);
  const rolls = $d("#rolls21");
  rolls.textContent = "";
  for (let k = 0; k < 21; k += 7) {
    const hr = document.createElement("tr"), cr = document.createElement("tr"), er = document.createElement("tr");
    for (const x of r.rolls21.slice(k, k + 7)) {
      head(hr, x.roll);
      cell(cr, x.count, x.expected, x.expected / r.n);
      const td = document.createElement("td");
      td.textContent = num(x.expected, 1);
      td.className = "expected";
      er.appendChild(td);
    }
    rolls.append(hr, cr, er);
  }
  $d("#dice-seeds").textContent = r.server_seed ? t("dice_seeds", {
    server: r.server_seed, commitment: r.commitment, client: r.client_seeds.join(", "),
  }) : "";
}

function playedInfo(r) {
  const box = $d("#dice-played-info");
  box.textContent = !r || r.games === undefined ? "" : (r.n ? t("dice_played_n", { games: r.games, n: r.n }) : t("dice_played_none"));
}

async function run(ev) {
  if (ev) ev.preventDefault();
  const played = $d("#dice-source").value === "played";
  const n = Math.max(36, Math.min(100000, Math.round(Number($d("#dice-n").value) || 36000)));
  $d("#dice-n").value = n;
  $d("#dice-error").textContent = "";
  $d("#dice-state").textContent = t("dice_running");
  $d("#dice-run").disabled = true;
  try {
    const url = played ? "/api/dice/played?games=200" : `/api/dice/test?n=${n}&client_seed=${randomSeed()}`;
    const r = await fetch(url, { headers: { "Accept-Language": LANG } });
    const data = await r.json();
    if (!r.ok) throw new Error(data.message || data.detail || `HTTP ${r.status}`);
    LAST = data;
    window.diceTest.last = data;
    playedInfo(data);
    if (data.n) draw(data); else $d("#dice-results").hidden = true;
  } catch (e) {
    $d("#dice-error").textContent = String(e.message || e);
  } finally {
    $d("#dice-state").textContent = "";
    $d("#dice-run").disabled = false;
    window.diceTest.runs++;
  }
}

async function initDice() {
  await loadCatalogue();
  setLanguage(LANG);
  $d("#lang").value = LANG;
  $d("#lang").onchange = (e) => { setLanguage(e.target.value); playedInfo(LAST); if (LAST && LAST.n) draw(LAST); };
  $d("#dice-form").onsubmit = run;
  $d("#dice-source").onchange = () => { $d("#dice-n-row").hidden = $d("#dice-source").value === "played"; run(); };
  run();
}

document.addEventListener("DOMContentLoaded", initDice);
