// Figures you can read: the value under the pointer, a tap or the keyboard's cursor, for every figure that
// render/ marks with <svg data-fig='JSON'> (its kind, plot box and plotted numbers). The same markup is
// prerendered, played back and live (Panel's panes, in open shadow roots), so one listener on the document
// reads each event's composedPath() and never needs Python. The pure functions below are exported for
// tests/node/readout.test.mjs; install() wires them to the page (site/main.js calls it once). What they read a
// figure's data by, `rules`, is render's (render.readout_rules, the page config's "readout"): its numbers' digits
// and whole-number limit, a strip chart's dot spread and size; the plot box is in each figure's data.

const FIGURE = "svg[data-fig]";
const GAP = 8;     // px between the reported value and its tooltip
const MARGIN = 4;  // px the tooltip keeps from the viewport's edges
const STRIP_ROOM = 0.05;  // of a strip chart's column: the highlight's room beside its dots' spread
const DOT_ROOM = 2;  // viewBox units: the highlight's room above and below a strip chart's dots

/** Python's f"{x:.{digits}g}" (render.num): `digits` significant figures, exponent form below 1e-4 (Python's
 * format spec) and from 10^digits. */
export function g(x, digits) {
  if (x === 0) return "0";
  const [m, e] = x.toExponential(digits - 1).split("e");
  const exp = Number(e);
  if (exp < -4 || exp >= digits) {
    return `${m.replace(/\.?0+$/, "")}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  // toFixed counts digits only after the point
  return x.toFixed(digits - 1 - exp).replace(/(\..*?)0+$/, "$1").replace(/\.$/, "");
}

/** A number of the figure's data as render.shown writes it: whole numbers in full, others g, text as is. */
export function shown(v, rules) {
  if (typeof v === "string") return v;
  return Number.isInteger(v) && Math.abs(v) < rules.whole_below ? String(v) : g(v, rules.digits);
}

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/** How many positions a figure's cursor moves over: [columns, rows] (rows 1 but for a heatmap). */
function extent(fig) {
  if (fig.kind === "heatmap") return [fig.xs.length, fig.ys.length];
  return [{ bars: fig.bins, strips: fig.groups }[fig.kind]?.length ?? fig.xs.length, 1];
}

/** The cursor {i, j} (i: point, bar or heatmap row from the bottom; j: heatmap column) under viewBox
 * point (x, y), or null off the plot box. */
export function cursorAt(fig, x, y) {
  const [x0, y0, x1, y1] = fig.box;
  if (x < x0 || x > x1 || y < y0 || y > y1) return null;
  const [nx, ny] = extent(fig);
  const fx = (x - x0) / (x1 - x0), fy = (y1 - y) / (y1 - y0);
  if (fig.kind === "heatmap") return { i: clamp(Math.floor(fy * ny), 0, ny - 1), j: clamp(Math.floor(fx * nx), 0, nx - 1) };
  if (fig.kind !== "lines") return { i: clamp(Math.floor(fx * nx), 0, nx - 1), j: 0 };
  return { i: nx > 1 ? Math.round(fx * (nx - 1)) : 0, j: 0 };
}

/** Where the keyboard's cursor starts when the figure takes focus: its middle. */
export function start(fig) {
  const [nx, ny] = extent(fig);
  return { i: fig.kind === "heatmap" ? Math.floor(ny / 2) : Math.floor(nx / 2), j: Math.floor(nx / 2) };
}

/** The cursor moved inside a figure that may have fewer cells or points than the one it was on. */
export function fit(fig, cur) {
  const [nx, ny] = extent(fig);
  return fig.kind === "heatmap" ? { i: clamp(cur.i, 0, ny - 1), j: clamp(cur.j, 0, nx - 1) }
    : { i: clamp(cur.i, 0, nx - 1), j: 0 };
}

/** The cursor after key (arrows, Home, End), or null for a key the figure does not take. */
export function step(fig, cur, key) {
  const [nx, ny] = extent(fig);
  const heat = fig.kind === "heatmap";
  const col = (j) => (heat ? { i: cur.i, j: clamp(j, 0, nx - 1) } : { i: clamp(j, 0, nx - 1), j: 0 });
  const along = heat ? cur.j : cur.i;
  switch (key) {
    case "ArrowLeft": return col(along - 1);
    case "ArrowRight": return col(along + 1);
    case "Home": return col(0);
    case "End": return col(nx - 1);
    case "ArrowUp": return heat ? { i: clamp(cur.i + 1, 0, ny - 1), j: cur.j } : null;
    case "ArrowDown": return heat ? { i: clamp(cur.i - 1, 0, ny - 1), j: cur.j } : null;
    default: return null;
  }
}

/** The readout's text for the cursor: what the figure plots there, named by its axes and series. */
export function describe(fig, cur, rules) {
  const text = (v) => shown(v, rules);
  if (fig.kind === "heatmap") {
    return `${fig.x} = ${text(fig.xs[cur.j])}, ${fig.y} = ${text(fig.ys[cur.i])}: ${fig.z} ${text(fig.zs[cur.i][cur.j])}`;
  }
  if (fig.kind === "bars") {
    const each = fig.series.map(([name, c]) => `${name ? name + ": " : ""}${text(c[cur.i] ?? 0)} ${fig.y}`);
    return `${fig.x} ${fig.bins[cur.i]}: ${each.join(", ")}`;
  }
  if (fig.kind === "strips") {
    const [name, values, band] = fig.groups[cur.i];
    return `${name}: ${fig.y} ${values.map(text).join(", ") || "none yet"}${band ? ` (shaded: ${text(band[0])} to ${text(band[1])})` : ""}`;
  }
  const each = fig.series.map(([name, y]) => `${name} ${cur.i < y.length ? text(y[cur.i]) : "none"}`);
  return `${fig.x} ${text(fig.xs[cur.i])}: ${each.join(", ")}`;
}

/** The reported value's place in viewBox units, as render/charts.py draws it: {rect: {x, y, w, h}, dots: [[x, y]]}
 * (a heatmap's cell, a bin's bars down to the axis, a strip's dots, a line chart's points at the step: their box
 * and dots). */
export function mark(fig, cur, rules) {
  const [x0, y0, x1, y1] = fig.box;
  const [nx, ny] = extent(fig);
  if (fig.kind === "heatmap") {
    const w = (x1 - x0) / nx, h = (y1 - y0) / ny;
    return { rect: { x: x0 + cur.j * w, y: y1 - (cur.i + 1) * h, w, h }, dots: [] };
  }
  const yOf = (v, lo, hi) => y1 - (y1 - y0) * (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  if (fig.kind === "bars") {
    const w = (x1 - x0) / nx;
    const peak = Math.max(0, ...fig.series.map(([, c]) => (typeof c[cur.i] === "number" ? c[cur.i] : 0)));
    const top = yOf(peak, 0, fig.top);
    return { rect: { x: x0 + cur.i * w, y: top, w, h: y1 - top }, dots: [] };
  }
  if (fig.kind === "strips") {  // the column's dots, spread either side of its middle, with room around them
    const w = (x1 - x0) / nx, ys = fig.groups[cur.i][1].filter((v) => typeof v === "number")
      .map((v) => yOf(v, fig.lo, fig.hi));
    const half = (rules.strip_spread + STRIP_ROOM) * w, edge = rules.dot_r + DOT_ROOM;
    const top = ys.length ? Math.min(...ys) - edge : y0, bottom = ys.length ? Math.max(...ys) + edge : y1;
    return { rect: { x: x0 + (cur.i + 0.5) * w - half, y: top, w: 2 * half, h: bottom - top }, dots: [] };
  }
  const x = nx > 1 ? x0 + (x1 - x0) * cur.i / (nx - 1) : (x0 + x1) / 2;
  const dots = fig.series.map(([, y]) => y[cur.i]).filter((v) => typeof v === "number")
    .map((v) => [x, yOf(v, fig.lo, fig.hi)]);
  const ys = dots.length ? dots.map((d) => d[1]) : [y0, y1];
  const top = Math.min(...ys), bottom = Math.max(...ys);
  return { rect: { x: x - 5, y: top - 5, w: 10, h: bottom - top + 10 }, dots };
}

/** A viewBox rect on screen, through the figure's CTM {a, d, e, f} (figures are scaled, never rotated). */
export function toScreen(m, r) {
  const left = m.a * r.x + m.e, top = m.d * r.y + m.f;
  return { left, top, right: left + m.a * r.w, bottom: top + m.d * r.h };
}

/** The viewBox point under the screen point (cx, cy). */
export function toUser(m, cx, cy) {
  return [(cx - m.e) / m.a, (cy - m.f) / m.d];
}

/** The tooltip's {left, top}: beside the reported value (above first for a cell or bar, to the right for a
 * curve's points), never over it and inside the viewport; where no side has room, the side with most,
 * kept inside the viewport. anchor: screen rect; tip: {width, height}; view: {width, height}. */
export function place(anchor, tip, view, kind) {
  const cx = (anchor.left + anchor.right) / 2, cy = (anchor.top + anchor.bottom) / 2;
  const across = (v, size, room) => clamp(v, MARGIN, Math.max(MARGIN, room - size - MARGIN));
  const sides = {
    above: { top: anchor.top - GAP - tip.height, left: across(cx - tip.width / 2, tip.width, view.width),
             room: anchor.top - GAP - MARGIN - tip.height },
    below: { top: anchor.bottom + GAP, left: across(cx - tip.width / 2, tip.width, view.width),
             room: view.height - MARGIN - anchor.bottom - GAP - tip.height },
    right: { left: anchor.right + GAP, top: across(cy - tip.height / 2, tip.height, view.height),
             room: view.width - MARGIN - anchor.right - GAP - tip.width },
    left: { left: anchor.left - GAP - tip.width, top: across(cy - tip.height / 2, tip.height, view.height),
            room: anchor.left - GAP - MARGIN - tip.width },
  };
  const order = kind === "lines" || kind === "strips" ? ["right", "left", "above", "below"]
    : ["above", "below", "right", "left"];
  const best = order.find((s) => sides[s].room >= 0)
    ?? order.reduce((a, b) => (sides[b].room > sides[a].room ? b : a));
  const { left, top } = sides[best];
  return { left: across(left, tip.width, view.width), top: across(top, tip.height, view.height), side: best };
}

// ---- the page ----------------------------------------------------------------------------------------

const parsed = new WeakMap();

/** The figure data of an <svg data-fig>, parsed once (null when it does not parse). */
function dataOf(svg) {
  if (!parsed.has(svg)) {
    let fig = null;
    try { fig = JSON.parse(svg.getAttribute("data-fig")); } catch { /* a figure without a readout */ }
    parsed.set(svg, fig);
  }
  return parsed.get(svg);
}

/** The figure an event happened in, through open shadow roots (Panel's panes). */
function figureOf(event) {
  for (const el of event.composedPath()) {
    if (el instanceof Element && el.matches(FIGURE)) return el;
  }
  return null;
}

/** A hidden <div> of class cls with attrs, at the end of <body>: the readout's parts sit over every figure. */
function element(cls, attrs = {}) {
  const el = document.createElement("div");
  el.className = cls;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.hidden = true;
  document.body.append(el);
  return el;
}

/** [svg, cursor, [clientX, clientY]] of the figure a pointer event is over, or nulls off every figure. */
function pointed(event) {
  const svg = figureOf(event), fig = svg && dataOf(svg), m = svg && svg.getScreenCTM();
  return fig && m ? [svg, cursorAt(fig, ...toUser(m, event.clientX, event.clientY)), [event.clientX, event.clientY]]
    : [null, null, null];
}

/** The readout on the page: what it shows, where, and its answer to each event install() hands it. */
class Readout {
  // what is shown: the figure, its cursor, who moved it (mouse, tap or key), the pointer's screen point (null: the
  // keyboard's) and the text; slot and above: the figure's slot and ancestors, where a redrawn figure is found again
  now = { svg: null, cur: null, by: null, at: null, text: "", slot: "", above: [] };
  #rules; // the page config's "readout" (render.readout_rules): how the figures' numbers are written and marked
  #doc; // the document listened to; its root element's size is the viewport's
  #tip = element("wt-readout", { "aria-hidden": "true", "data-testid": "readout" }); // the text, beside the value
  #box = element("wt-readout-mark", { "aria-hidden": "true" }); // the highlight over the reported value
  #live = element("wt-readout-live", { "aria-live": "polite", "data-testid": "readout-live" }); // what is announced
  #dots = []; // the highlight's dots on a line chart's points, as many made as a chart has needed
  #say = 0; // the timer of the next announcement
  // A figure redrawn under the readout (a slider moved, a live run streaming its curve) is a new <svg> in the
  // same slot: the readout follows it, at the same cursor, instead of reporting a figure no longer shown.
  #redrawn = new MutationObserver(() => { if (this.now.svg && !this.now.svg.isConnected) this.#showOnRedrawn(); });

  constructor(rules, doc) {
    this.#rules = rules;
    this.#doc = doc;
    this.#live.hidden = false;
  }

  pointermove(event) {
    if (event.pointerType === "touch") return;  // a finger's drag scrolls; its tap is pointerdown's
    const [svg, cur, at] = pointed(event);
    if (cur) this.#show(svg, cur, "mouse", at);
    else if (this.now.by === "mouse") this.#hide();
  }

  pointerdown(event) {
    const [svg, cur, at] = pointed(event);
    if (cur) this.#show(svg, cur, event.pointerType === "mouse" ? "mouse" : "tap", at);
    else if (this.now.by === "tap") this.#hide();
  }

  pointerleave() {
    if (this.now.by === "mouse") this.#hide();
  }

  focusin(event) {
    const svg = figureOf(event), fig = svg && dataOf(svg);
    if (!fig || event.composedPath()[0] !== svg) return;
    const { cur, by, at } = this.now;
    if (this.now.svg === svg) this.#show(svg, cur, by, at);  // focused by the tap or click that shows it
    else this.#show(svg, start(fig), "key");
  }

  focusout(event) {
    const svg = figureOf(event);
    // after the task: a figure redrawn while focused was followed by then (the observer runs first)
    if (svg) setTimeout(() => { if (this.now.by === "key" && this.now.svg === svg && svg.isConnected) this.#hide(); });
  }

  keydown(event) {
    const svg = figureOf(event), fig = svg && dataOf(svg);
    if (!fig || event.composedPath()[0] !== svg || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") return this.#hide();
    const cur = step(fig, this.now.svg === svg && this.now.cur ? this.now.cur : start(fig), event.key);
    if (!cur) return;
    event.preventDefault();
    this.#show(svg, cur, "key");
  }

  moved() {
    // the page scrolled or resized under the figure shown
    if (this.now.svg) this.#draw();
  }

  #draw() {
    const fig = dataOf(this.now.svg), m = this.now.svg.getScreenCTM();
    if (!fig || !m || !this.now.svg.isConnected) return this.#hide();
    const at = mark(fig, this.now.cur, this.#rules), r = toScreen(m, at.rect);
    this.#tip.textContent = this.now.text;
    this.#tip.hidden = this.#box.hidden = false;
    Object.assign(this.#box.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.right - r.left}px`,
                                     height: `${r.bottom - r.top}px` });
    this.#box.classList.toggle("wt-points", fig.kind === "lines");
    while (this.#dots.length < at.dots.length) this.#dots.push(element("wt-readout-dot", { "aria-hidden": "true" }));
    this.#dots.forEach((d, k) => {
      d.hidden = k >= at.dots.length;
      if (!d.hidden) Object.assign(d.style, { left: `${m.a * at.dots[k][0] + m.e}px`, top: `${m.d * at.dots[k][1] + m.f}px` });
    });
    const view = { width: this.#doc.documentElement.clientWidth, height: this.#doc.documentElement.clientHeight };
    const p = place(r, { width: this.#tip.offsetWidth, height: this.#tip.offsetHeight }, view, fig.kind);
    Object.assign(this.#tip.style, { left: `${p.left}px`, top: `${p.top}px` });
  }

  #show(svg, cur, by, at = null) {
    const fig = dataOf(svg);
    if (!fig || !cur) return;
    if (svg !== this.now.svg) {
      const above = [];
      for (let a = svg.parentNode; a && a.nodeType === 1; a = a.parentNode) above.push(a);
      Object.assign(this.now, { slot: svg.closest(".wt-slot")?.dataset.slot ?? "", above });
      this.#redrawn.disconnect();
      this.#redrawn.observe(svg.getRootNode(), { childList: true, subtree: true });
    }
    Object.assign(this.now, { svg, cur, by, at, text: describe(fig, cur, this.#rules) });
    this.#draw();
    // A mouse sweeping across a heatmap would queue every cell it crosses: announce where it rests.
    clearTimeout(this.#say);
    this.#say = setTimeout(() => {
      if (this.#live.textContent !== this.now.text) this.#live.textContent = this.now.text;
    }, by === "mouse" ? 250 : 0);
  }

  #showOnRedrawn() {
    const root = this.now.above.find((a) => a.isConnected);
    const svg = root && this.now.slot && root.querySelector(`.wt-slot[data-slot="${CSS.escape(this.now.slot)}"] ${FIGURE}`);
    const fig = svg && dataOf(svg), m = svg && svg.getScreenCTM();
    if (!fig || !m) return this.#hide();
    // pointed at: what is under the same point now; the keyboard's cursor: the same cell, step or bar
    const { by, at } = this.now, cur = at ? cursorAt(fig, ...toUser(m, ...at)) : fit(fig, this.now.cur);
    if (!cur) return this.#hide();
    this.#show(svg, cur, by, at);
    if (by === "key") svg.focus({ preventScroll: true });
  }

  #hide() {
    this.#redrawn.disconnect();
    clearTimeout(this.#say);
    this.#tip.hidden = this.#box.hidden = true;
    this.#dots.forEach((d) => { d.hidden = true; });
    Object.assign(this.now, { svg: null, cur: null, by: null, at: null, text: "", slot: "", above: [] });
  }
}

/** Wire the readout to the page: one tooltip, one highlight, one aria-live region, listeners on the
 * document; rules: the page config's "readout". Returns what is shown ({svg, cur, by, text}) for tests. */
export function install(rules, doc = document) {
  const readout = new Readout(rules, doc);
  doc.addEventListener("pointermove", (event) => readout.pointermove(event), { passive: true });
  doc.addEventListener("pointerdown", (event) => readout.pointerdown(event), { passive: true });
  doc.documentElement.addEventListener("pointerleave", () => readout.pointerleave());
  doc.addEventListener("focusin", (event) => readout.focusin(event));
  doc.addEventListener("focusout", (event) => readout.focusout(event));
  doc.addEventListener("keydown", (event) => readout.keydown(event));
  addEventListener("scroll", () => readout.moved(), { capture: true, passive: true });
  addEventListener("resize", () => readout.moved(), { passive: true });
  return readout.now;
}
