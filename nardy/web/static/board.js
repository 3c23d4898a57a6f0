// The SVG board. It knows only geometry: the server sends the board from the viewer's side
// (points 1..24 in the viewer's numbering, + the viewer's checkers, - the other side's), bar, off,
// dice, cube and the legal next steps ({from: [to...]}, 25 = the mover's bar, 0 = the mover's off).
//
// Layout (the viewer at the bottom): points 1-6 bottom right (1 at the right edge), 7-12 bottom left,
// 13-18 top left, 19-24 top right. The viewer moves 24 -> 1, counter-clockwise. In backgammon and short
// nardy the other side moves the opposite way; in long nardy the same way (its head is the viewer's 12).
// Points are coloured alternately, the viewer's point 1 dark (seed 003, rule 4).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
// The desktop geometry (viewBox 790 x 570, the board in landscape).
const G_WIDE = {
  W: 790, H: 570, phone: false,
  trayL: 10, fieldL: 70, bar: 370, fieldR: 420, trayR: 730, trayW: 50,
  top: 35, bottom: 535, mid: 285, pointW: 50, pointH: 205, r: 22, labelUp: 10, labelDown: 22,
};
// A narrow screen (a phone held upright, max-width 600px): the same board turned a quarter clockwise (the
// viewer's points 1-12 on the left, the home 1-6 at the bottom left, the off tray at the bottom), 15
// columns of 42 units (two trays, the bar, twelve points) along its length. Its width in units (H) follows
// the screen (phoneGeometry): 42 units come to at least 40.25 CSS pixels down to a 345 px wide board, so
// that each point, the bar and the off tray take taps over 40 x 40 px or more, and the checkers are
// about twice as large as on the landscape board shrunk to a phone's width.
const G_PHONE = {
  W: 636, phone: true,
  trayL: 2, fieldL: 45, bar: 297, fieldR: 339, trayR: 592, trayW: 42,
  pointW: 42, r: 20, labelUp: 16, labelDown: 16,
};

// The phone's geometry for a board px CSS pixels wide: H units across (360..440), the points' lengths.
function phoneGeometry(px) {
  const H = Math.max(360, Math.min(440, Math.floor(((px || 382) * G_PHONE.pointW) / 40.25)));
  const top = 32, bottom = H - 32, mid = H / 2;
  return Object.assign({}, G_PHONE, { H, top, bottom, mid, pointH: mid - top - 4 });
}
const G = Object.assign({}, G_WIDE);
const PHONE_QUERY = "(max-width: 600px)";

// Take the geometry for this screen and the board's svg (the phone's on a narrow one); true on a phone.
function useGeometry(svg) {
  const phone = typeof window !== "undefined" && !!window.matchMedia && window.matchMedia(PHONE_QUERY).matches;
  Object.assign(G, phone ? phoneGeometry(svg.getBoundingClientRect().width) : G_WIDE);
  return phone;
}

// Upright text on the turned (phone) board: the text turned back about its anchor, centred on it.
function upright(e, x, y) {
  if (G.phone) { e.setAttribute("transform", `rotate(-90 ${x} ${y})`); e.setAttribute("dominant-baseline", "central"); }
  return e;
}

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function pointX(p) {
  // left edge of point p's column
  if (p <= 6) return G.fieldR + (6 - p) * G.pointW;
  if (p <= 12) return G.fieldL + (12 - p) * G.pointW;
  if (p <= 18) return G.fieldL + (p - 13) * G.pointW;
  return G.fieldR + (p - 19) * G.pointW;
}

function isTop(p) { return p >= 13; }

// where checker k (0 = at the base) of a stack of n on point p sits
function stackPos(p, k, n) {
  const room = G.pointH - 2 * G.r - 4;
  const step = n <= (G.phone ? 1 : 5) ? 2 * G.r : Math.min(2 * G.r, room / (n - 1));
  const cx = pointX(p) + G.pointW / 2;
  const off = G.r + 2 + k * step;
  return [cx, isTop(p) ? G.top + off : G.bottom - off];
}

// The mover's off tray: long nardy's other side bears off on the left (its home is the viewer's 13-18).
function offTray(view, side) {
  // side 0 = the viewer, 1 = the other side
  if (side === 0) return { x: G.trayR, y0: G.bottom, dir: -1 };
  if (view.game === "long") return { x: G.trayL, y0: G.top, dir: 1 };
  return { x: G.trayR, y0: G.top, dir: 1 };
}

function renderBoard(root, view, ui) {
  while (root.firstChild) root.removeChild(root.firstChild);
  const phone = useGeometry(root);
  root.setAttribute("viewBox", phone ? `0 0 ${G.H} ${G.W}` : `0 0 ${G.W} ${G.H}`);
  root.classList.toggle("upright", phone);
  // everything is drawn in the landscape geometry; on a phone inside a group turned a quarter clockwise
  const svg = phone ? el("g", { transform: `translate(${G.H} 0) rotate(90)`, class: "turned" }, root) : root;
  const viewer = view.viewer;
  const colourOf = (side) => ((side === 0 ? viewer : 1 - viewer) === 0 ? "white" : "black");
  const moverSide = view.turn === null ? 0 : (view.turn === viewer ? 0 : 1);
  const moves = view.moves || {};
  const selected = ui.selected;
  const dests = selected !== null && moves[selected] ? moves[selected] : [];

  el("rect", { x: 0, y: 0, width: G.W, height: G.H, rx: 12, class: "frame" }, svg);
  el("rect", { x: G.fieldL, y: G.top, width: 6 * G.pointW, height: G.bottom - G.top, class: "field" }, svg);
  el("rect", { x: G.fieldR, y: G.top, width: 6 * G.pointW, height: G.bottom - G.top, class: "field" }, svg);
  el("rect", { x: G.bar, y: G.top, width: G.fieldR - G.bar, height: G.bottom - G.top, class: "bar" }, svg);
  el("rect", { x: G.trayL, y: G.top, width: G.trayW, height: G.bottom - G.top, class: "tray" }, svg);
  el("rect", { x: G.trayR, y: G.top, width: G.trayW, height: G.bottom - G.top, class: "tray" }, svg);

  const lastFrom = new Set(), lastTo = new Set();
  if (view.last_play && view.last_play.player !== (view.human_to_act ? view.to_act : -1)) {
    for (const [a, b] of view.last_play.steps) { lastFrom.add(a); lastTo.add(b); }
  }

  // points, labels, hit areas
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), top = isTop(p);
    const baseY = top ? G.top : G.bottom, tipY = top ? G.top + G.pointH : G.bottom - G.pointH;
    const dark = p % 2 === 1;
    el("polygon", {
      points: `${x + 1},${baseY} ${x + G.pointW - 1},${baseY} ${x + G.pointW / 2},${tipY}`,
      class: "point " + (dark ? "dark" : "light"), "data-point": p,
    }, svg);
    if (dests.includes(p)) {
      el("polygon", {
        points: `${x + 1},${baseY} ${x + G.pointW - 1},${baseY} ${x + G.pointW / 2},${tipY}`, class: "dest",
      }, svg);
    }
    if (lastFrom.has(p)) el("circle", { cx: x + G.pointW / 2, cy: top ? G.top + 8 : G.bottom - 8, r: 5, class: "last-from" }, svg);
    const ly = top ? G.top - G.labelUp : G.bottom + G.labelDown;
    const label = upright(el("text", { x: x + G.pointW / 2, y: ly, class: "label" }, svg), x + G.pointW / 2, ly);
    label.textContent = view.labels[p - 1];
  }

  // checkers on points
  const pts = view.board.points;
  for (let p = 1; p <= 24; p++) {
    const c = pts[p];
    if (!c) continue;
    const side = c > 0 ? 0 : 1, n = Math.abs(c);
    for (let k = 0; k < n; k++) {
      const [cx, cy] = stackPos(p, k, n);
      const isTopChecker = k === n - 1;
      const cls = ["checker", colourOf(side)];
      if (isTopChecker && String(p) === String(selected)) cls.push("selected");
      if (isTopChecker && lastTo.has(p)) cls.push("last-to");
      if (isTopChecker && selected === null && moves[p] && side === moverSide) cls.push("movable");
      el("circle", { cx, cy, r: G.r, class: cls.join(" ") }, svg);
    }
    if (n > 5) {
      const [cx, cy] = stackPos(p, n - 1, n);
      const txt = G.phone ? upright(el("text", { x: cx, y: cy, class: "count " + colourOf(side) }, svg), cx, cy)
        : el("text", { x: cx, y: cy + 5, class: "count " + colourOf(side) }, svg);
      txt.textContent = n;
    }
  }

  // bar: the viewer's hit checkers on the upper half (they enter at the top right), the other's below
  const barX = (G.bar + G.fieldR) / 2;
  for (const side of [0, 1]) {
    const n = view.board.bar[side];
    for (let k = 0; k < n; k++) {
      const cy = side === 0 ? G.mid - 45 - k * 20 : G.mid + 45 + k * 20;
      const cls = ["checker", colourOf(side)];
      if (k === n - 1 && side === moverSide && String(selected) === "25") cls.push("selected");
      if (k === n - 1 && side === moverSide && selected === null && moves["25"]) cls.push("movable");
      el("circle", { cx: barX, cy, r: G.r, class: cls.join(" ") }, svg);
    }
    if (n > 1) {
      const by = side === 0 ? G.mid - 45 : G.mid + 45;
      const t = upright(el("text", { x: barX, y: by + (G.phone ? 0 : 5), class: "count " + colourOf(side) }, svg), barX, by);
      t.textContent = n;
    }
  }

  // off trays
  for (const side of [0, 1]) {
    const n = view.board.off[side];
    const tr = offTray(view, side);
    for (let k = 0; k < n; k++) {
      const y = tr.dir < 0 ? tr.y0 - 6 - (k + 1) * 11 : tr.y0 + 6 + k * 11;
      el("rect", { x: tr.x + 5, y, width: G.trayW - 10, height: 10, rx: 3, class: "off " + colourOf(side) }, svg);
    }
    if (n) {
      const ox = tr.x + G.trayW / 2, oy = tr.dir < 0 ? tr.y0 - 6 - n * 11 - (G.phone ? 20 : 8) : tr.y0 + 6 + n * 11 + (G.phone ? 20 : 16);
      const t = upright(el("text", { x: ox, y: oy, class: "label" }, svg), ox, oy);
      t.textContent = n;
    }
  }
  if (dests.includes(0)) {
    const tr = offTray(view, moverSide);
    const h = (G.bottom - G.top) / 2;
    el("rect", { x: tr.x, y: tr.dir < 0 ? G.mid : G.top, width: G.trayW, height: h, class: "dest" }, svg);
  }

  // dice: the mover's, in the middle of the mover's half
  if (view.dice) {
    const [d1, d2] = view.dice;
    const all = d1 === d2 ? [d1, d1, d1, d1] : [d1, d2];
    const left = [...view.dice_left];
    const used = all.map((d) => { const i = left.indexOf(d); if (i >= 0) { left.splice(i, 1); return false; } return true; });
    // a narrow screen (a phone) gets its turned board, where the dice are about twice as large as before
    const big = G.phone;
    const size = all.length === 4 ? (big ? 36 : 34) : (big ? 46 : 42), gap = big ? 8 : 10;
    const total = all.length * size + (all.length - 1) * gap;
    const cx0 = (moverSide === 0 ? G.fieldR + 3 * G.pointW : G.fieldL + 3 * G.pointW) - total / 2;
    all.forEach((d, i) => drawDie(svg, cx0 + i * (size + gap), G.mid - size / 2, size, d, colourOf(moverSide), used[i], i));
  }

  // cube: centred in the left tray, or at the owner's side; an offered double in the middle
  if (view.cube.enabled && view.crawford && view.length > 1) {   // no Crawford game in a 1-point match
    // the Crawford game: nobody may double, so no cube; the tray says why
    const txt = el("text", { x: G.trayL + G.trayW / 2, y: G.mid, class: "crawford-label",
      transform: `rotate(-90 ${G.trayL + G.trayW / 2} ${G.mid})` }, svg);
    txt.textContent = typeof t === "function" ? t("crawford_short") : "Crawford";
  } else if (view.cube.enabled) {
    const c = view.cube;
    let y = G.mid - 20, val = c.value;
    if (c.owner !== null) {
      const ownerSide = c.owner === viewer ? 0 : 1;
      y = ownerSide === 0 ? G.bottom - 60 : (view.game === "long" ? G.mid - 100 : G.top + 20);
    }
    if (c.offered_by !== null) {
      val = c.value * 2;
      const offSide = c.offered_by === viewer ? 0 : 1;
      drawCube(svg, offSide === 0 ? G.fieldR + 3 * G.pointW - 20 : G.fieldL + 3 * G.pointW - 20, G.mid - 20, val, true);
    } else {
      drawCube(svg, G.trayL + 5, y, c.value === 1 ? 64 : val, false);
    }
  }

  // hit areas on top of everything (transparent): points, bar, trays
  for (let p = 1; p <= 24; p++) {
    const top = isTop(p);
    el("rect", {
      x: pointX(p), y: top ? G.top : G.mid, width: G.pointW, height: G.mid - G.top,
      class: "hit" + (dests.includes(p) ? " hit-dest" : "") + (moves[p] ? " hit-src" : ""), "data-loc": p,
    }, svg);
  }
  el("rect", { x: G.bar, y: G.top, width: G.fieldR - G.bar, height: G.bottom - G.top, class: "hit" + (moves["25"] ? " hit-src" : ""), "data-loc": 25 }, svg);
  const offSide = offTray(view, moverSide);
  el("rect", { x: offSide.x, y: G.top, width: G.trayW, height: G.bottom - G.top, class: "hit" + (dests.includes(0) ? " hit-dest" : ""), "data-loc": 0 }, svg);
}

const PIPS = {
  1: [[0.5, 0.5]], 2: [[0.25, 0.25], [0.75, 0.75]], 3: [[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]],
  4: [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]],
  5: [[0.25, 0.25], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.75, 0.75]],
  6: [[0.25, 0.25], [0.75, 0.25], [0.25, 0.5], [0.75, 0.5], [0.25, 0.75], [0.75, 0.75]],
};

function drawDie(svg, x, y, s, d, colour, used, i) {
  const g = el("g", { class: "die " + colour + (used ? " used" : ""), "data-die": d, "data-die-index": i }, svg);
  el("rect", { x, y, width: s, height: s, rx: s / 6 }, g);
  for (const [px, py] of PIPS[d]) el("circle", { cx: x + px * s, cy: y + py * s, r: s / 11, class: "pip" }, g);
}

function drawCube(svg, x, y, v, offered) {
  const g = el("g", { class: "cube" + (offered ? " offered" : ""), "data-cube": v }, svg);
  el("rect", { x, y, width: 40, height: 40, rx: 6 }, g);
  const t = G.phone ? upright(el("text", { x: x + 20, y: y + 20 }, g), x + 20, y + 20) : el("text", { x: x + 20, y: y + 27 }, g);
  t.textContent = v;
}

// The board location under a client point (for drag and drop), or null.
function locationAt(clientX, clientY) {
  const e = document.elementFromPoint(clientX, clientY);
  if (!e || !e.dataset || e.dataset.loc === undefined) return null;
  return e.dataset.loc;
}

// ----- a play made elsewhere, shown checker by checker ------------------------------------------------
// Steps are [from, to] in the viewer's numbering (25 = the mover's bar, 0 = the mover's off); side 0 is
// the viewer (positive counts), 1 the other side. A checker alone on the destination is hit (sent to its
// bar) in the games that hit (backgammon, short nardy).

// Apply one step to board (changed in place); false when the board does not allow it.
function applyStep(board, from, to, side, hitting) {
  const sg = side === 0 ? 1 : -1;
  if (from === 25) {
    if (board.bar[side] <= 0) return false;
    board.bar[side]--;
  } else {
    if (from < 1 || from > 24 || board.points[from] * sg <= 0) return false;
    board.points[from] -= sg;
  }
  if (to === 0) { board.off[side]++; return true; }
  if (to < 1 || to > 24) return false;
  const c = board.points[to];
  if (c * sg < 0) {
    if (!hitting || c !== -sg) return false;
    board.points[to] = 0;
    board.bar[1 - side]++;
  }
  board.points[to] += sg;
  return true;
}

function copyBoard(b) { return { points: b.points.slice(), bar: b.bar.slice(), off: b.off.slice() }; }

function sameBoard(a, b) {
  return a.points.every((x, i) => x === b.points[i]) && a.bar[0] === b.bar[0] && a.bar[1] === b.bar[1]
    && a.off[0] === b.off[0] && a.off[1] === b.off[1];
}

// Centre of the top checker of side at loc (slot "top"), or of the place a new one lands ("next").
function checkerCentre(view, loc, side, slot) {
  const b = view.board;
  if (loc === 25) {
    const n = b.bar[side], k = slot === "top" ? n - 1 : n;
    return [(G.bar + G.fieldR) / 2, side === 0 ? G.mid - 45 - k * 20 : G.mid + 45 + k * 20];
  }
  if (loc === 0) {
    const tr = offTray(view, side), k = b.off[side];
    const y = tr.dir < 0 ? tr.y0 - 6 - (k + 1) * 11 : tr.y0 + 6 + k * 11;
    return [tr.x + G.trayW / 2, y + 5];
  }
  const sg = side === 0 ? 1 : -1, c = b.points[loc];
  const n = c * sg > 0 ? Math.abs(c) : 0;
  return slot === "top" ? stackPos(loc, n - 1, n) : stackPos(loc, n, n + 1);
}

// Draw view (the board before the play), then slide each step's checker; done() at the end. Returns
// {cancel(), add(steps, side, hitting, view), pending()}: add() queues the steps of a later state (view: that
// state before them, for the dice and the cube) after those still to show.
function animatePlay(svg, view, steps, side, hitting, ms, done) {
  const cur = Object.assign({}, view, { board: copyBoard(view.board), moves: {}, last_play: null });
  const queue = steps.map((st) => ({ st, side, hitting, view: null }));
  let cancelled = false;
  const next = () => {
    if (cancelled) return;
    if (!queue.length) { done(); return; }
    const item = queue.shift();
    if (item.view) Object.assign(cur, item.view, { board: cur.board, moves: {}, last_play: null });
    const [a, b] = item.st, sd = item.side;
    const colour = (sd === 0 ? cur.viewer : 1 - cur.viewer) === 0 ? "white" : "black";
    const p0 = checkerCentre(cur, a, sd, "top");
    const p1 = checkerCentre(cur, b, sd, "next");
    const after = copyBoard(cur.board);
    if (!applyStep(after, a, b, sd, item.hitting)) { queue.length = 0; done(); return; }
    // lift the checker, slide it, put it down
    const lifted = copyBoard(cur.board);
    if (a === 25) lifted.bar[sd]--; else lifted.points[a] -= sd === 0 ? 1 : -1;
    cur.board = lifted;
    renderBoard(svg, cur, { selected: null });
    const c = el("circle", { cx: p0[0], cy: p0[1], r: G.r, class: "checker moving " + colour }, svg.querySelector(":scope > g.turned") || svg);
    const t0 = performance.now();
    const frame = (now) => {
      if (cancelled) return;
      const k = Math.min(1, (now - t0) / ms), e = k < 0.5 ? 2 * k * k : 1 - 2 * (1 - k) * (1 - k);
      c.setAttribute("cx", p0[0] + (p1[0] - p0[0]) * e);
      c.setAttribute("cy", p0[1] + (p1[1] - p0[1]) * e);
      if (k < 1) { requestAnimationFrame(frame); return; }
      cur.board = after;
      renderBoard(svg, cur, { selected: null });
      if (typeof sound === "function") sound("checker");
      setTimeout(next, 30);
    };
    requestAnimationFrame(frame);
  };
  next();
  return {
    cancel() { cancelled = true; },
    add(more, sd, hit, v) { more.forEach((st, i) => queue.push({ st, side: sd, hitting: hit, view: i === 0 ? v : null })); },
    pending() { return queue.length; },
  };
}
