// Playback before Python. Each playable section is prerendered with native controls (weighttying.controls);
// this script answers them from the section's playback table (weighttying.playback: the section's own
// slots computed at build, in CPython, for every point of its grid) by swapping the HTML of its
// [data-slot] elements, until the live lab replaces the section. A value off the grid (typed into a
// number box, or a control the tables do not cover) shows the nearest precomputed answer, marked as
// approximate; the live lab then boots from the URL, which every change here writes exactly as the live
// lab does. A table that is missing or modified (its sha256 is not the one in the page's config) is named
// in the section, which then waits for the live lab. State: window.__wtPlayer (docs/DESIGN.md).
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("wt-build").textContent);
  const files = config.playback || {};
  const embed = (window.__wtPage && window.__wtPage.embed) || "";
  const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,4})?$/;
  const INT = /^[+-]?\d{1,12}$/;
  const TRUE = ["1", "true", "yes", "on"], FALSE = ["0", "false", "no", "off"];
  const P = (window.__wtPlayer = {
    tables: {}, // section id -> its table, once loaded and checked
    errors: {}, // section id -> why its table could not be used
    state: {}, // section id -> {key: value}, what the controls say
    approx: {}, // section id -> [[key, wanted, shown]] when the answer on screen is the nearest one
    answered: 0, // slot swaps made from a table
    lastAnswerAt: 0, // performance.now() of the latest one
    loaded: {}, // section id -> promise of its checked response (rejects with the reason it is unusable)
    sync, play, need, query,
  });

  async function load(sid, url) {
    // Subresource Integrity: the browser itself refuses a body whose sha256 is not the recorded one.
    const { file, integrity } = files[sid];
    let res;
    try {
      res = await fetch(url(file), { integrity });
    } catch (err) { // a mismatch and a network failure look alike: ask again without the check
      const plain = await fetch(url(file), { cache: "no-store" }).catch(() => null);
      throw new Error(plain && plain.ok ? `${file} was modified: its sha256 is not the one this build recorded`
        : `could not load ${file} from this site`);
    }
    if (!res.ok) throw new Error(`could not load ${file} from this site (HTTP ${res.status})`);
    return res;
  }

  // Every table is downloaded (and checked) at once, but parsed only when its section needs it (a control
  // moved, or the URL's state is not the default) or when the page is idle: parsing megabytes of JSON while
  // the page itself is still being parsed would hold back its first frame.
  const parsing = {};
  function need(sid) {
    if (!parsing[sid]) {
      parsing[sid] = P.loaded[sid].then((res) => res.json()).then((table) => { P.tables[sid] = table; play(sid); }, (err) => {
        P.errors[sid] = err.message;
        console.error(`weighttying: playback table of ${sid}: ${err.message}`);
        status(sid);
      });
    }
    return parsing[sid];
  }

  // The classroom file (file://, no server) carries the tables inside: its transport (classroom.js, which runs
  // after this script) gives each one's blob: URL once the page is parsed.
  const whenParsed = new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
  const located = config.classroom
    ? whenParsed.then(() => window.__wtTransport.ready).then(() => window.__wtTransport.url) : Promise.resolve((f) => f);
  for (const sid of Object.keys(files).filter((s) => !embed || s === embed)) {
    P.loaded[sid] = located.then((url) => load(sid, url));
    P.loaded[sid].catch(() => need(sid)); // a table that cannot be used is named at once
  }
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
  window.addEventListener("load", () => {
    const rest = Object.keys(P.loaded);
    const next = () => { if (rest.length) need(rest.shift()).then(() => idle(next)); };
    idle(next);
  }, { once: true });

  const players = () => document.querySelectorAll(".wt-player[data-section]");
  const player = (sid) => document.querySelector(`.wt-player[data-section="${sid}"]`);
  const ctls = (el) => [...el.querySelectorAll(".wt-pctl[data-key]")];
  const paused = () => !!(window.__wt && window.__wt.status === "paused");
  const later = () => (paused() ? "once you load the live lab (the button at the top)"
    : "when the live lab (Python in your browser) has loaded");

  function parse(ctl, raw) {
    // A value of one control from text (URL or number box) as weighttying.state parses it; null if unusable.
    const s = String(raw).trim(), type = ctl.dataset.type;
    if (type === "bool") return TRUE.includes(s.toLowerCase()) ? true : FALSE.includes(s.toLowerCase()) ? false : null;
    if (type === "choice") return [...ctl.querySelectorAll("option")].some((o) => o.value === s.toLowerCase()) ? s.toLowerCase() : null;
    if (!(type === "int" ? INT : FLOAT).test(s) || !Number.isFinite(Number(s))) return null;
    const box = ctl.querySelector("input[type=number]");
    return Math.min(Math.max(Number(s), Number(box.min)), Number(box.max));
  }

  function fmt(x) {
    // state.fmt: the URL form of a value (Python's repr for floats, 1/0 for booleans).
    if (typeof x === "boolean") return x ? "1" : "0";
    if (typeof x !== "number" || (Number.isInteger(x) && Math.abs(x) < 1e16)) return String(x);
    const e = Math.floor(Math.log10(Math.abs(x)));
    if (e >= -4 && e < 16) return String(x);
    const [m, p] = x.toExponential().split("e");
    return `${m}e${p[0] === "-" ? "-" : "+"}${p.replace(/^[+-]/, "").padStart(2, "0")}`;
  }

  const grid = (ctl) => { const r = ctl.querySelector("input[type=range]"); return r ? JSON.parse(r.dataset.grid) : null; };
  const defaultOf = (ctl) => parse(ctl, ctl.dataset.default);
  const ctlOf = (el, key) => el.querySelector(`.wt-pctl[data-key="${key}"]`);

  // A choice that fills in other controls (the view's FILLS, e.g. savings' preset and its five numbers),
  // as the live section's reconcile does: picking it fills them in, editing one of them away makes the
  // choice FILLS' "else" (custom), and a link whose numbers are all at their defaults takes the choice's.
  const fillsOf = (el) => JSON.parse(el.dataset.fills || "{}");
  const showsFill = (st, want) => Object.keys(want).every((f) => st[f] === want[f]);

  function settle(el, changed) {
    // changed: the key the reader just set, or "" for a state read from the URL
    const st = P.state[el.dataset.section], put = (k, v) => { st[k] = v; show(ctlOf(el, k), v); };
    for (const [key, { by, else: other }] of Object.entries(fillsOf(el))) {
      const want = by[st[key]], fields = Object.keys(want || {});
      if (!want || showsFill(st, want)) continue;
      if (changed === key || (!changed && fields.every((f) => st[f] === defaultOf(ctlOf(el, f))))) {
        fields.forEach((f) => put(f, want[f]));
      } else if (!changed || fields.includes(changed)) put(key, other);
    }
  }

  function asRead(el) {
    // The state as the tables and the URL hold it: a choice showing its own fill is the choice alone, its
    // fields at their defaults (the live lab's reconcile fills them in again from it).
    const st = { ...P.state[el.dataset.section] };
    for (const [key, { by }] of Object.entries(fillsOf(el))) {
      const want = by[st[key]];
      if (want && showsFill(st, want)) {
        Object.keys(want).forEach((f) => { st[f] = defaultOf(ctlOf(el, f)); });
      }
    }
    return st;
  }

  function nearest(ctl, values, v) {
    // The index of the grid value nearest v (in log space for a log control).
    const f = ctl.hasAttribute("data-log") ? (x) => Math.log(Math.max(Number(x), 1e-300)) : Number;
    let best = 0;
    values.forEach((x, i) => { if (Math.abs(f(x) - f(v)) < Math.abs(f(values[best]) - f(v))) best = i; });
    return best;
  }

  function show(ctl, v) {
    // Put a value into a control's inputs (the slider goes to the nearest grid position).
    const input = ctl.querySelector("input, select");
    if (ctl.dataset.type === "bool") input.checked = v;
    else if (ctl.dataset.type === "choice") input.value = v;
    else {
      const range = ctl.querySelector("input[type=range]"), box = ctl.querySelector("input[type=number]");
      box.value = fmt(v);
      if (range) {
        range.value = String(nearest(ctl, grid(ctl), v));
        range.setAttribute("aria-valuetext", fmt(v));
      }
    }
  }

  function sync() {
    // Every section's controls and slots from the URL (at load, and when a restarted lab put the prerender back).
    const params = new URLSearchParams(location.search);
    for (const el of players()) {
      const sid = el.dataset.section, st = (P.state[sid] = {});
      for (const ctl of ctls(el)) {
        st[ctl.dataset.key] = defaultOf(ctl);
        for (const raw of params.getAll(`${sid}.${ctl.dataset.key}`)) {
          const v = parse(ctl, raw);
          if (v !== null) st[ctl.dataset.key] = v; // the last usable value counts, as in Python
        }
        show(ctl, st[ctl.dataset.key]);
      }
      settle(el, "");
      if (P.loaded[sid] && !isDefault(sid)) need(sid);
      play(sid);
    }
  }

  function play(sid) {
    // Show the table's answer for the section's state: exact on the grid, else the nearest, marked.
    const el = player(sid), t = P.tables[sid];
    if (!el || !P.state[sid]) return;
    if (!t) return status(sid);
    const st = asRead(el);
    const at = {}, approx = [];
    for (const ctl of ctls(el)) {
      const k = ctl.dataset.key, i = t.keys.indexOf(k), v = st[k];
      if (i < 0) {
        if (v !== defaultOf(ctl)) approx.push([k, v, defaultOf(ctl)]);
        continue;
      }
      at[k] = t.values[i].indexOf(v);
      if (at[k] < 0) {
        at[k] = typeof v === "number" ? nearest(ctl, t.values[i], v) : t.values[i].indexOf(defaultOf(ctl));
        approx.push([k, v, t.values[i][at[k]]]);
      }
    }
    const section = el.closest(".wt-live") || document;
    for (const name of t.slots) {
      const { keys, index } = t.at[name];
      const frag = String(index[keys.reduce((flat, k) => flat * t.values[t.keys.indexOf(k)].length + at[k], 0)]);
      const slot = section.querySelector(`.wt-slot[data-slot="${name}"]`);
      if (!slot) continue;
      // A slot records the fragment it shows; one without a record is the prerender, the default's answer.
      if (slot.dataset.frag === undefined && isDefault(sid)) slot.dataset.frag = frag;
      if (slot.dataset.frag !== frag) {
        slot.innerHTML = t.fragments[frag];
        slot.dataset.frag = frag;
        P.answered += 1;
        P.lastAnswerAt = performance.now();
      }
      slot.classList.toggle("wt-approx", approx.length > 0);
    }
    P.approx[sid] = approx;
    el.dataset.approx = String(approx.length > 0);
    status(sid);
  }

  const isDefault = (sid) => !P.state[sid] || ctls(player(sid)).every((ctl) => P.state[sid][ctl.dataset.key] === defaultOf(ctl));

  function status(sid) {
    const el = player(sid);
    if (!el) return;
    const line = el.querySelector(".wt-player-status");
    const approx = P.approx[sid] || [];
    if (P.errors[sid]) {
      line.textContent = `The precomputed answers could not be used: ${P.errors[sid]}. This section answers ${later()}.`;
      el.dataset.error = "true";
    } else if (!P.tables[sid] && !isDefault(sid)) {
      line.textContent = "Loading the precomputed answers…";
    } else if (approx.length) {
      const wanted = approx.map(([k, v]) => `${k} = ${fmt(v)}`).join(", ");
      const near = approx.map(([k, , near]) => `${k} = ${fmt(near)}`).join(", ");
      line.textContent = `Approximate: nothing was precomputed for ${wanted}, so this shows the nearest answer that ` +
        `was (${near}). The exact one comes ${later()}.`;
    } else {
      line.textContent = `Computed at build by this page's own code (the weighttying package, in CPython) for every step ` +
        `of these controls; the live lab takes over ${paused() ? "once you load it (the button at the top)" : "when Python has loaded in your browser"}.`;
    }
  }

  function query() {
    // state.to_query: every control in page order, only values that differ from their defaults; the
    // page's own keys (embed, theme, ...) and anything else the URL holds (the values of sections already
    // live, which Python wrote there) are kept after them.
    const mine = new Set(), parts = [];
    const enc = (s) => encodeURIComponent(s).replace(/%2C/g, ",");
    for (const el of players()) {
      const sid = el.dataset.section, st = asRead(el);
      for (const ctl of ctls(el)) {
        const key = `${sid}.${ctl.dataset.key}`, v = st[ctl.dataset.key];
        mine.add(key);
        if (v !== defaultOf(ctl)) {
          const g = grid(ctl), i = g ? g.findIndex((u) => Number(u) === v) : -1;
          parts.push(`${key}=${enc(i >= 0 ? g[i] : fmt(v))}`);
        }
      }
    }
    for (const [k, v] of new URLSearchParams(location.search)) if (!mine.has(k)) parts.push(`${enc(k)}=${enc(v)}`);
    return parts.join("&");
  }

  function changed(event) {
    // A native control moved (delegated, so a prerender put back after a restart works too).
    const input = event.target, ctl = input.closest && input.closest(".wt-pctl[data-key]");
    const el = ctl && ctl.closest(".wt-player[data-section]");
    if (!el) return;
    const sid = el.dataset.section, type = input.type;
    // sliders answer while they move; a number box when its value is committed (Enter, blur, spin)
    if ((type === "range") !== (event.type === "input")) return;
    let v;
    if (type === "range") v = Number(grid(ctl)[Number(input.value)]);
    else if (type === "checkbox") v = input.checked;
    else v = parse(ctl, input.value);
    if (v === null) v = P.state[sid][ctl.dataset.key]; // not a usable number: the box shows the value kept
    P.state[sid][ctl.dataset.key] = v;
    show(ctl, v);
    settle(el, ctl.dataset.key);
    if (P.loaded[sid]) need(sid);
    play(sid);
    const q = query();
    if (q !== location.search.slice(1)) {
      history.replaceState(history.state, "", (q ? `?${q}` : location.pathname) + location.hash);
      if (window.__wt && window.__wt.follow) window.__wt.follow(q); // the live lab starts from it
    }
  }

  document.addEventListener("input", changed);
  document.addEventListener("change", changed);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", sync, { once: true });
  else sync();
})();
