// Texts of the page: the message catalogue the server serves (GET /api/catalogue, from
// nardy/data/catalogue.toml: one catalogue for the terminal, the server and the page). t(key, {name: value})
// fills {name} placeholders and ICU plurals ({n, plural, one {# pip} other {# pips}}, CLDR rules through
// Intl.PluralRules); msg(code, params) words a refusal code as the server does. Preferences the page keeps
// between visits (localStorage): pref(name) / setPref(name, value).
"use strict";

let CAT = null;      // {langs, common, messages, page}: each {key: {en, ru}}
let LANG = "en";

// Preferences kept between visits: lang, animate ("on"/"off"), sound ("on"/"off"); the numbering is kept
// per game kind (nardy.rules.numbering.<game>), the computer's level (nardy.level).
// (animation is off by default for those whose system asks for reduced motion)
const PREF_DEFAULTS = {
  animate: window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "off" : "on",
  sound: "on",
};
function pref(name) {
  let v = null;
  try { v = localStorage.getItem("nardy." + name); } catch (e) { v = null; }
  return v === null ? (PREF_DEFAULTS[name] ?? null) : v;
}
function setPref(name, value) { try { localStorage.setItem("nardy." + name, value); } catch (e) { /* private mode */ } }

async function loadCatalogue() {
  const r = await fetch("/api/catalogue");
  CAT = await r.json();
  LANG = pickLanguage();
}

function pickLanguage() {
  const saved = pref("lang");
  const langs = CAT ? CAT.langs : ["en", "ru"];
  if (saved && langs.includes(saved)) return saved;
  const nav = (navigator.language || "en").toLowerCase();
  return nav.startsWith("ru") ? "ru" : "en";
}

function setLanguage(lang) {
  LANG = CAT && CAT.langs.includes(lang) ? lang : "en";
  setPref("lang", LANG);
  document.documentElement.lang = LANG;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nLabel)); });
}

function numText(n) { return Number(n).toLocaleString(LANG, { maximumFractionDigits: 3, useGrouping: false }); }

function matchBrace(s, i) {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === "{") depth++;
    else if (s[j] === "}" && --depth === 0) return j;
  }
  return s.length - 1;
}

// An ICU-style message with args filled in; a value not given keeps its {name}.
function formatMessage(tpl, args) {
  let out = "";
  for (let i = 0; i < tpl.length;) {
    if (tpl[i] !== "{") { out += tpl[i++]; continue; }
    const end = matchBrace(tpl, i);
    const inner = tpl.slice(i + 1, end);
    i = end + 1;
    const comma = inner.indexOf(",");
    const name = (comma < 0 ? inner : inner.slice(0, comma)).trim();
    if (!args || !(name in args)) { out += "{" + inner + "}"; continue; }
    if (comma < 0) { out += String(args[name]); continue; }
    const rest = inner.slice(comma + 1);
    const body = rest.slice(rest.indexOf(",") + 1);
    const forms = {};
    for (let k = 0; k < body.length;) {
      if (/\s/.test(body[k])) { k++; continue; }
      const open = body.indexOf("{", k);
      if (open < 0) break;
      const close = matchBrace(body, open);
      forms[body.slice(k, open).trim()] = body.slice(open + 1, close);
      k = close + 1;
    }
    const n = Number(args[name]);
    const form = forms["=" + n] ?? forms[new Intl.PluralRules(LANG).select(n)] ?? forms.other ?? "";
    out += formatMessage(form.split("#").join(numText(n)), args);
  }
  return out;
}

function lookup(sections, key) {
  if (!CAT) return undefined;
  for (const s of sections) {
    const e = CAT[s][key];
    if (e) return e[LANG] ?? e.en;
  }
  return undefined;
}

function t(key, args) {
  const s = lookup(["page", "common"], key);
  return formatMessage(s === undefined ? key : s, args);
}

// A refusal code worded as the server words it (nardy.texts.messages.describe, for the page's own checks).
function msg(code, args) {
  const s = lookup(["messages"], code) ?? lookup(["messages"], "not_allowed_now");
  return formatMessage(s, args);
}

// The first letter in capitals (names of levels in lists: "Expert", "Эксперт").
function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }
